from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Union

import libcst as cst

from torchlint.engine.context import SET_GRAD_ENABLED
from torchlint.engine.findings import Applicability
from torchlint.engine.rule import NodeEdit, PendingFix, Rule
from torchlint.semantics.calls import is_literal, method_call
from torchlint.semantics.tree import children
from torchlint.semantics.names import dotted_name, unconditional_alias
from torchlint.semantics.kinds import HOST_KINDS, MAYBE_DEVICE_KINDS

AUTOGRAD_CALLS = frozenset({"torch.autograd.grad", "torch.autograd.backward"})


@dataclass
class _Scope:
    """What one function (or the module) does with modules it puts in eval mode."""

    node: Union[cst.FunctionDef, cst.Module]
    evals: Dict[str, cst.Call] = field(default_factory=dict)  # module expression -> its `.eval()` call
    graded_calls: Set[str] = field(default_factory=set)  # modules run with grad after `.eval()`
    computes_grad: bool = False
    grad_off: bool = False


@dataclass
class _Candidate:
    scope: _Scope
    name: Optional[str]
    fixable: bool
    indent: str = ""
    returns_value: bool = False


class EvalWithoutNoGrad(Rule):
    """## What it does
    Flags a function that calls `<module>.eval()` and then runs the module with gradients
    enabled: no `torch.no_grad()`/`torch.inference_mode()` block around the call, no such
    decorator, no `torch.set_grad_enabled(False)`. Reported on the `.eval()` call.

    ## Why is this slow?
    `eval()` only changes layer behaviour (dropout off, BatchNorm uses running statistics);
    it does not turn autograd off. Every forward still records the graph and keeps the
    activations alive for a backward pass that never comes, costing memory (smaller batches)
    and time.

    The rule is silent for functions that compute gradients after `eval()` (`.backward()`,
    `torch.autograd.grad`, reading `.grad`: saliency maps, adversarial evaluation, a training
    step that toggles modes), for calls after the module is switched back with `.train()`,
    and for functions that this file only calls inside `no_grad`/`inference_mode`.

    ## Example
    ```python
    def evaluate(model, loader):
        model.eval()
        return sum(model(x).argmax(1).eq(y).sum() for x, y in loader)
    ```

    ## Use instead
    ```python
    @torch.no_grad()
    def evaluate(model, loader):
        model.eval()
        return sum(model(x).argmax(1).eq(y).sum() for x, y in loader)
    ```
    Use `@torch.inference_mode()` when the results are never used in autograd later.

    ## Fix applicability
    The fix decorates the function with `@torch.no_grad()` (adding `import torch` when the
    file has no plain top-level import of it). It is only offered where the function never
    computes gradients, so nothing it does needs the graph. Safe when the function returns
    nothing; unsafe when it returns a value, because a caller could backpropagate through
    what it returns. No fix for code at module level, for `async def` (the decorator does
    not reach into a coroutine), and for methods of `nn.Module` subclasses (a `forward` that
    runs a frozen teacher must keep gradients for the rest of the model: wrap just the call
    in `with torch.no_grad():`).
    """

    code = "TL402"
    name = "eval-without-no-grad"
    summary = "Module run in eval mode with autograd still recording"
    triggers = (".eval(",)
    fix_applicability = Applicability.SAFE
    bad_examples = (
        "import torch\ndef evaluate(model, x):\n    model.eval()\n    return model(x)\n",
        "import torch\ndef validate(self):\n    self.net.eval()\n    for x in self.loader:\n        out = self.net(x)\n",
    )
    good_examples = (
        "import torch\n@torch.no_grad()\ndef evaluate(model, x):\n    model.eval()\n    return model(x)\n",
        "import torch\ndef evaluate(model, x):\n    model.eval()\n    with torch.no_grad():\n        return model(x)\n",
        "import torch\ndef saliency(model, x):\n    model.eval()\n    out = model(x)\n    out.sum().backward()\n    return x.grad\n",
        "import torch\ndef evaluate(model, x):\n    model.eval()\n    torch.set_grad_enabled(False)\n    return model(x)\n",
        "import torch\ndef step(model, x):\n    model.eval()\n    model.train()\n    return model(x)\n",
        "import torch\ndef evaluate(model, x):\n    model.eval()\n    return model(x)\nwith torch.no_grad():\n    evaluate(m, x)\n",
        "import torch\ndef finish(model):\n    model.eval()\n    return model\n",
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.scopes: List[_Scope] = []
        self.candidates: List[_Candidate] = []
        self.called_without_grad: Set[str] = set()

    def visit_Module(self, node: cst.Module) -> None:
        self.scopes.append(_Scope(node))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scopes.append(_Scope(node))

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        scope = self.scopes.pop()
        if self._reportable(scope):
            fixable = node.asynchronous is None and not self._in_module_class()
            self.candidates.append(_Candidate(scope, node.name.value, fixable, self._indentation(), _returns_value(node)))

    def leave_Module(self, node: cst.Module) -> None:
        scope = self.scopes.pop()
        if self._reportable(scope):
            self.candidates.append(_Candidate(scope, None, fixable=False))
        for candidate in self.candidates:
            if candidate.name is not None and candidate.name in self.called_without_grad:
                continue
            fix = None
            if candidate.name is not None and candidate.fixable:
                fix = self._decorator_fix(candidate.scope.node, candidate.indent, candidate.returns_value)
            for module, call in candidate.scope.evals.items():
                if module in candidate.scope.graded_calls:
                    self.report(
                        call,
                        "`.eval()` does not disable autograd: the module still records the graph; "
                        "run it under `torch.no_grad()` or `torch.inference_mode()`",
                        fix=fix,
                        start=call.func.attr if isinstance(call.func, cst.Attribute) else None,
                    )

    def _reportable(self, scope: _Scope) -> bool:
        return bool(scope.graded_calls) and not scope.computes_grad

    def _in_module_class(self) -> bool:
        klass = self.ctx.enclosing(cst.ClassDef)
        return isinstance(klass, cst.ClassDef) and klass.name.value in self.ctx.values.module_classes

    def visit_Assign(self, node: cst.Assign) -> None:
        """`model = build().eval()` puts `model` in eval mode too."""
        found = method_call(node.value)
        if found is not None and found[1] == "eval" and not node.value.args and len(node.targets) == 1:  # type: ignore[attr-defined]
            target = dotted_name(node.targets[0].target)
            if target is not None:
                self.scopes[-1].evals.setdefault(target, node.value)  # type: ignore[arg-type]

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value == "grad" and self.scopes:
            self.scopes[-1].computes_grad = True

    def visit_Call(self, node: cst.Call) -> None:
        scope = self.scopes[-1]
        qualified = self.ctx.qualified_name(node.func)
        grad_disabled = scope.grad_off or self.ctx.grad_disabled(node)
        if grad_disabled and isinstance(node.func, (cst.Name, cst.Attribute)):
            self.called_without_grad.add(dotted_name(node.func) or "")
        if qualified in AUTOGRAD_CALLS:
            scope.computes_grad = True
        elif qualified in SET_GRAD_ENABLED and isinstance(self.ctx.parent(), cst.Expr):
            scope.grad_off = scope.grad_off or self.ctx.grad_mode_set_by(node) is False
        found = method_call(node)
        if found is not None:
            self._method_call(scope, node, *found)
        module = dotted_name(node.func)
        if module in scope.evals and not grad_disabled:
            scope.graded_calls.add(module)

    def _method_call(self, scope: _Scope, node: cst.Call, receiver: cst.BaseExpression, method: str) -> None:
        module = dotted_name(receiver)
        if method == "backward":
            scope.computes_grad = True
        if module is None:
            return
        if method == "eval" and not node.args and self.ctx.kind_of(receiver) not in HOST_KINDS | MAYBE_DEVICE_KINDS:
            scope.evals.setdefault(module, node)
        elif method == "train" and module in scope.evals:
            del scope.evals[module]
        elif method == "forward" and module in scope.evals and not (scope.grad_off or self.ctx.grad_disabled(node)):
            scope.graded_calls.add(module)

    def _indentation(self) -> str:
        """The indentation of the statement being left, from its enclosing blocks."""
        default = self.ctx.module.default_indent
        return "".join(
            block.indent if block.indent is not None else default
            for block in self.ctx.ancestors
            if isinstance(block, cst.IndentedBlock)
        )

    def _decorator_fix(self, function: Union[cst.FunctionDef, cst.Module], indent: str, returns_value: bool) -> Optional[PendingFix]:
        """`@torch.no_grad()` right above the `def`, importing torch when it is not bound.

        Unsafe when the function returns a value: a caller could backpropagate through it.
        """
        assert isinstance(function, cst.FunctionDef)
        torch_name = unconditional_alias(self.ctx.module, "torch")
        edits = [NodeEdit(function, f"@{torch_name or 'torch'}.no_grad()\n{indent}", insert_before=True)]
        if torch_name is None:
            anchor = _import_anchor(self.ctx.module)
            if anchor is None:
                return None
            edits.append(NodeEdit(anchor, "import torch\n", insert_before=True))
        applicability = Applicability.UNSAFE if returns_value else Applicability.SAFE
        return self.fix(*edits, applicability=applicability, message="Decorate the function with `@torch.no_grad()`")



def _returns_value(function: cst.FunctionDef) -> bool:
    """Whether the function (not a nested one) returns or yields a value other than None."""
    stack: List[cst.CSTNode] = list(children(function.body))
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if isinstance(node, (cst.Return, cst.Yield)) and node.value is not None and not is_literal(node.value, "None"):
            return True
        stack.extend(children(node))
    return False


def _import_anchor(module: cst.Module) -> Optional[cst.CSTNode]:
    """The first top-level statement after the docstring and `from __future__` imports."""
    for index, statement in enumerate(module.body):
        if index == 0 and _is_docstring(statement):
            continue
        if isinstance(statement, cst.SimpleStatementLine) and any(
            isinstance(s, cst.ImportFrom) and dotted_name(s.module or cst.Name("x")) == "__future__" for s in statement.body
        ):
            continue
        return statement
    return None


def _is_docstring(statement: cst.CSTNode) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )
