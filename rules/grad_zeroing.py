from functools import cached_property
from typing import Optional

import libcst as cst

from torchlint.engine.findings import Applicability
from torchlint.engine.rule import NodeEdit, PendingFix, Rule
from torchlint.semantics.calls import argument, is_literal, method_call, reads_attribute, with_keyword
from torchlint.semantics.frequency import MAY_RUN_EVERY_STEP, names_parameters
from torchlint.semantics.names import dotted_name
from torchlint.semantics.project import project_function
from torchlint.semantics.tree import descendants, iterated_source, nodes_of_type, per_module

# PyTorch 2.0 made `set_to_none=True` the default of `zero_grad()`.
SET_TO_NONE_DEFAULT_SINCE = (2, 0)


class GradZeroing(Rule):
    """## What it does
    Flags slow gradient resets: `zero_grad(set_to_none=False)` (or `None`, which is false
    there and zero-fills too), manual zeroing such as
    `p.grad.zero_()` or `p.grad.data.zero_()`, and, only when the configured `torch-version`
    is below 2.0, a plain `zero_grad()`.

    ## Why is this slow?
    Writing zeros launches a memset kernel per parameter and keeps every gradient tensor
    allocated between steps. Setting gradients to `None` frees them, and the next backward
    writes fresh gradients with an assignment instead of accumulating into zeros. Since
    PyTorch 2.0 `zero_grad()` sets gradients to `None` by default, so a plain call is only
    reported for older targets (`torch-version = "1.13"`).

    Manual zeroing is reported only for a loop over parameters (`for p in
    model.parameters()`, `for p in group["params"]`), outside optimizer classes and
    `zero_grad` implementations (which offer both behaviours on purpose): one tensor's
    gradient, such as an input's in an adversarial attack, costs one small kernel; nor when
    it runs once (module level, `__init__`) or rarely. `zero_grad(set_to_none=False)` is
    reported wherever it appears: the argument is a choice every reset repeats.

    The rule is silent in files that use gradients as buffers, writing into `.grad` in place
    (`p.grad += g`, `p.grad.add_(g)`, `p.grad = torch.zeros_like(p)`): such code needs zeroed
    gradients, not `None`.

    ## Example
    ```python
    optimizer.zero_grad(set_to_none=False)
    for p in model.parameters():
        p.grad.zero_()
    ```

    ## Use instead
    ```python
    optimizer.zero_grad()
    for p in model.parameters():
        p.grad = None
    ```

    ## Fix applicability
    Unsafe, never safe. `zero_grad(set_to_none=False)` becomes `zero_grad()` (an explicit
    `set_to_none=False` is the author's decision), on targets below 2.0 a plain `zero_grad()`
    becomes `zero_grad(set_to_none=True)`, and manual zeroing becomes `p.grad = None`. The
    result differs when a parameter gets no gradient in a step: optimizers skip a parameter
    whose gradient is None, but still apply momentum and weight decay (SGD with momentum,
    AdamW) to one with a zero gradient, and a comparison of its gradient with None (which
    the fix allows) changes its answer: `p.grad is None` becomes true for it, so a list of
    the parameters that got no gradient, or a count of those that did, changes. No fix is
    offered when the file reads `.grad` other
    than to reset it or compare it with None (`p.grad`, `p._grad`, `getattr(p, "grad")`, `getattr`
    with a name that is not a literal, a call handed the name as a string path such as
    `operator.attrgetter("grad")`, also in a list, `map(getattr, params, ["grad"])`, or
    handed `getattr` itself, `functools.reduce(getattr, names, p)`; a lookup handed a name
    that is not a literal, `p.__getattribute__(cfg["watch"])`,
    `object.__getattribute__(p, name)`, `operator.attrgetter(".".join(fields))`; code run
    by `eval`/`exec` from a string that is not a literal or names `grad`,
    `eval("model.weight.gr" + "ad")`), or calls a function of another project module that
    reads `.grad`: such code would get None instead of zeros. No fix either for a
    `zero_grad(...)` call when the file defines a `zero_grad` that the fixed call cannot
    bind (a trainer's `def zero_grad(self, set_to_none):` would raise `TypeError` for
    `trainer.zero_grad()`; a `zero_grad(self)` for `zero_grad(set_to_none=True)`; a
    `zero_grad(self, **kwargs)` that reads `kwargs["set_to_none"]`), nor
    when the file steps a `GradScaler` and builds more than one optimizer (or one in a loop,
    or none it shows): `scaler.step(opt)` raises an `AssertionError` when no parameter of
    `opt` has a gradient (a head that a step does not use, its own optimizer), which zeroed
    gradients never cause and None gradients do.

    ## Measured precision
    stable; no finding in the real-code benchmark after the shared semantics (one false
    positive before). See docs/precision.md.
    """

    code = "TL401"
    impact = "medium"
    name = "grad-zeroing"
    summary = "Gradients reset by writing zeros instead of setting them to None"
    triggers = ("zero_",)
    fix_applicability = Applicability.UNSAFE
    frequencies = MAY_RUN_EVERY_STEP
    bad_examples = (
        "import torch\nfor x in loader:\n    optimizer.zero_grad(set_to_none=False)\n",
        "import torch\nfor x in loader:\n    optimizer.zero_grad(set_to_none=None)\n",
        "import torch\ndef reset(model):\n    for p in model.parameters():\n        p.grad.zero_()\n",
        "import torch\nfor x in loader:\n    for p in model.parameters():\n        if p.grad is not None:\n            p.grad.data.zero_()\n",
    )
    good_examples = (
        "import torch\noptimizer.zero_grad()\n",
        "import torch\noptimizer.zero_grad(set_to_none=True)\n",
        "import torch\nfor p in model.parameters():\n    p.grad = None\n",
        "import torch\nbuffer.zero_()\n",
        "optimizer.zero_grad(set_to_none=False)\n",
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        # Code that writes into `.grad` in place relies on zeroed (not None) gradients.
        self.grad_is_a_buffer = False

    def visit_Call(self, node: cst.Call) -> None:
        found = method_call(node)
        if found is None:
            return
        receiver, method = found
        if method == "zero_grad":
            self._check_zero_grad(node)
        elif method == "zero_" and not node.args and _is_grad(receiver):
            if self._zeroes_parameters(receiver) and not self._implements_a_reset() and self.runs_often(node):
                self._check_manual(node, receiver)
        elif method.endswith("_") and _is_grad(receiver):
            self.grad_is_a_buffer = True

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if _is_grad(node.target):
            self.grad_is_a_buffer = True

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        parent = self.ctx.parent()
        if _is_grad(node.target) and isinstance(parent, cst.Assign) and not (
            isinstance(parent.value, cst.Name) and parent.value.value == "None"
        ):
            self.grad_is_a_buffer = True

    def leave_Module(self, node: cst.Module) -> None:
        if self.grad_is_a_buffer:
            self.ctx.reports[:] = [report for report in self.ctx.reports if report.rule is not self]

    def _check_zero_grad(self, node: cst.Call) -> None:
        set_to_none = argument(node, "set_to_none", 0)
        falsy = next((literal for literal in ("False", "None") if set_to_none is not None and is_literal(set_to_none.value, literal)), None)
        if falsy is not None:
            new_call = node.with_changes(args=[arg for arg in node.args if arg is not set_to_none])
            if new_call.args:
                last = new_call.args[-1]
                new_call = new_call.with_changes(args=[*new_call.args[:-1], last.with_changes(comma=cst.MaybeSentinel.DEFAULT)])
            self.report(
                node,
                f"`zero_grad(set_to_none={falsy})` writes zeros into every gradient; use `zero_grad()`",
                fix=self._reset_fix(node, new_call),
            )
        elif set_to_none is None and not node.args and self.ctx.options.torch_version < SET_TO_NONE_DEFAULT_SINCE:
            self.report(
                node,
                "before PyTorch 2.0 `zero_grad()` writes zeros into every gradient; pass `set_to_none=True`",
                fix=self._reset_fix(node, with_keyword(node, "set_to_none", cst.Name("True"))),
            )

    def _reset_fix(self, node: cst.Call, new_call: cst.Call) -> PendingFix:
        """Never safe: with momentum or weight decay, a parameter that gets no gradient in a
        step is still updated from a zero gradient, but skipped with `None`."""
        reader = self._grad_reader
        if reader:
            return self.withheld(f"{reader} reads `.grad`, which would be None")
        if _scaler_may_find_no_gradient(self.ctx.module):
            return self.withheld(GRAD_SCALER_REASON)
        if _refusing_zero_grad(self.ctx.module, bool(new_call.args)):
            return self.withheld(
                "the file defines a `zero_grad` method that the fixed call cannot bind (a required `set_to_none` or other parameter, or `**kwargs` it reads)"
            )
        return self.unsafe_fix(
            "optimizers skip parameters whose gradient is None, but update them (momentum, weight decay) from zeros",
            NodeEdit(node, new_call),
            message="Set gradients to None",
        )

    @cached_property
    def _grad_reader(self) -> str:
        """What reads `.grad` other than to reset it: the file, or a function of another
        project module that it calls (named); "" when nothing does. Once per file."""
        if _file_reads_grad(self.ctx.module):
            return "the file"
        # Calls anywhere in the file, resolved through its import statements: the traversal's
        # qualified names hold only where it stands, and torch's functions are no project's.
        for call in nodes_of_type(self.ctx.module, (cst.Call,)):
            if isinstance(call, cst.Call) and isinstance(call.func, (cst.Name, cst.Attribute)):
                facts = project_function(self.ctx, call.func)
                if facts is not None and facts.reads_grad:
                    return f"`{facts.name}`"
        return ""

    def _zeroes_parameters(self, receiver: cst.BaseExpression) -> bool:
        """Whether `p.grad` belongs to a loop over parameters (`for p in model.parameters()`,
        `for p in group["params"]`): one reset per parameter. A single tensor's gradient
        (an input being attacked or explained, one weight) costs one small kernel."""
        owner = _grad_attribute(receiver)
        assert isinstance(owner, cst.Attribute)
        if not isinstance(owner.value, cst.Name):
            return False
        for loop in self.ctx.enclosing_loops(receiver):
            if isinstance(loop, cst.For) and any(
                isinstance(name, cst.Name) and name.value == owner.value.value for name in descendants(loop.target)
            ):
                return names_parameters(_container(iterated_source(loop.iter)))
        return False

    def _implements_a_reset(self) -> bool:
        """Inside an optimizer class or a `zero_grad` method: the reset itself, which offers both behaviours."""
        for ancestor in self.ctx.ancestors:
            if isinstance(ancestor, cst.FunctionDef) and ancestor.name.value == "zero_grad":
                return True
            if isinstance(ancestor, cst.ClassDef) and any(
                (self.ctx.qualified_name(base.value) or "").startswith("torch.optim.") for base in ancestor.bases
            ):
                return True
        return False

    def _check_manual(self, node: cst.Call, receiver: cst.BaseExpression) -> None:
        self.report(
            node,
            "zeroing `.grad` in place launches a kernel per parameter; set it to None instead",
            fix=self._manual_fix(node, receiver),
        )

    def _manual_fix(self, node: cst.Call, receiver: cst.BaseExpression) -> Optional[PendingFix]:
        """`p.grad.zero_()` as a whole statement becomes `p.grad = None`."""
        parent = self.ctx.parent()
        grad = _grad_attribute(receiver)
        if not isinstance(parent, cst.Expr) or parent.value is not node:
            return None
        reader = self._grad_reader
        if reader:
            return self.withheld(f"{reader} reads `.grad`, which would be None")
        if _scaler_may_find_no_gradient(self.ctx.module):
            return self.withheld(GRAD_SCALER_REASON)
        assignment = cst.Assign(targets=[cst.AssignTarget(grad)], value=cst.Name("None"))
        return self.fix(NodeEdit(parent, assignment), message="Set `.grad` to None")


GRAD_SCALER_REASON = (
    "the file steps a `GradScaler` and may build more than one optimizer: `scaler.step(opt)` raises when no parameter "
    "of `opt` has a gradient (an optimizer of a head a step does not use), which None gradients make possible"
)


@per_module
def _scaler_may_find_no_gradient(module: cst.Module) -> bool:
    """Whether the file uses a `GradScaler` and builds more than one optimizer (or builds one in
    a loop or comprehension, or none the file shows): `GradScaler.step` asserts that
    `unscale_` found a gradient among an optimizer's parameters, which holds for zeroed
    gradients but not when a step leaves every parameter of one optimizer with None."""
    if not any(isinstance(node, cst.Name) and node.value in ("GradScaler", "ShardedGradScaler") for node in descendants(module)):
        return False
    imported = {
        (alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else alias.name.value)
        for node in nodes_of_type(module, (cst.ImportFrom,))
        if isinstance(node, cst.ImportFrom) and node.module is not None and (dotted_name(node.module) or "") in ("torch.optim", "optim")
        and not isinstance(node.names, cst.ImportStar)
        for alias in node.names
        if isinstance(alias.name, cst.Name)
    }

    def builds_optimizer(node: cst.CSTNode) -> bool:
        name = (dotted_name(node.func) or "") if isinstance(node, cst.Call) else ""
        last = name.rpartition(".")[2]
        if not last[:1].isupper() or "lr_scheduler" in name or last.endswith("GradScaler"):
            return False
        return name.startswith(("torch.optim.", "optim.")) or name in imported

    built = sum(1 for node in descendants(module) if builds_optimizer(node))
    loops = [node for node in descendants(module) if isinstance(node, (cst.For, cst.While, cst.CompFor))]
    in_loop = any(builds_optimizer(item) for loop in loops for item in descendants(loop))
    return built != 1 or in_loop


def _grad_attribute(node: cst.BaseExpression) -> cst.BaseExpression:
    """`x.grad` for `x.grad.data`, else the node itself."""
    if isinstance(node, cst.Attribute) and node.attr.value == "data":
        return node.value
    return node


def _is_grad(node: cst.BaseExpression) -> bool:
    """`x.grad` or `x.grad.data`."""
    node = _grad_attribute(node)
    return isinstance(node, cst.Attribute) and node.attr.value == "grad"


def _container(iterated: cst.BaseExpression) -> cst.BaseExpression:
    """`model.parameters()` -> `model.parameters`, `group["params"]` -> `params`: what is iterated."""
    if isinstance(iterated, cst.Call):
        return iterated.func
    if isinstance(iterated, cst.Subscript) and len(iterated.slice) == 1:
        index = iterated.slice[0].slice
        if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString):
            return cst.Name(index.value.value.strip("'\""))
    return iterated


def _refusing_zero_grad(module: cst.Module, passes_set_to_none: bool) -> bool:
    """Whether a `zero_grad` function or method of the file (a trainer or wrapper that the
    call may reach) cannot bind the fixed call: `zero_grad()` when it requires a parameter
    (`def zero_grad(self, set_to_none)`) or reads its `**kwargs` (`kwargs["set_to_none"]`), or
    `zero_grad(set_to_none=True)` when it takes no such keyword. Its first parameter is taken
    as bound (`self`)."""
    for function in nodes_of_type(module, (cst.FunctionDef,)):
        if not isinstance(function, cst.FunctionDef) or function.name.value != "zero_grad":
            continue
        params = function.params
        positional_params = [*params.posonly_params, *params.params][1:]
        required = [p for p in positional_params if p.default is None] + [p for p in params.kwonly_params if p.default is None]
        takes_keyword = params.star_kwarg is not None or any(p.name.value == "set_to_none" for p in [*params.params, *params.kwonly_params])
        if passes_set_to_none:
            required = [p for p in required if p.name.value != "set_to_none"]
            if not takes_keyword:
                return True
        if required or _reads_keywords(function):
            return True
    return False


def _reads_keywords(function: cst.FunctionDef) -> bool:
    """Whether the function's `**kwargs` is read other than handed on whole (`kwargs["set_to_none"]`
    needs the keyword the fixed call drops)."""
    star = function.params.star_kwarg
    if not isinstance(star, cst.Param):
        return False
    spread = {id(arg.value) for arg in descendants(function.body) if isinstance(arg, cst.Arg) and arg.star == "**"}
    return any(isinstance(node, cst.Name) and node.value == star.name.value and id(node) not in spread for node in descendants(function.body))


@per_module
def _file_reads_grad(module: cst.Module) -> bool:
    """Whether the file uses `.grad` other than to reset it or compare it with None."""
    resets = set()
    uses = []
    for node in descendants(module):
        found = method_call(node)
        if found is not None and found[1] == "zero_" and _is_grad(found[0]):
            resets.add(id(_grad_attribute(found[0])))
        elif isinstance(node, cst.AssignTarget) and _is_grad(node.target):
            resets.add(id(node.target))
        elif isinstance(node, cst.Comparison) and _is_grad(node.left) and all(
            is_literal(target.comparator, "None") for target in node.comparisons
        ):
            resets.add(id(_grad_attribute(node.left)))
        elif reads_attribute(node, "grad") or reads_attribute(node, "_grad"):
            # `p._grad` is the same slot as `p.grad`
            uses.append(id(node))
    return any(use not in resets for use in uses)
