from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, Set, Tuple, Union

import libcst as cst

from torchlint.engine.context import SET_GRAD_ENABLED
from torchlint.engine.findings import Applicability
from torchlint.engine.edits import indentation, module_name
from torchlint.engine.rule import NodeEdit, PendingFix, Rule
from torchlint.semantics.bindings import wrapper_attribute_read
from torchlint.semantics.calls import arguments_by_parameter, is_literal, method_call
from torchlint.semantics.tree import bound_names, children, descendants, module_nodes, nodes_of_type, per_module, scope_descendants
from torchlint.semantics.names import dotted_name
from torchlint.semantics.values import assigned_values, string_value
from torchlint.semantics.escapes import VALUE_BUILTINS, attribute_store, decorator_keeps_values, in_place_function, computed_names, may_carry_graph, outer_names_augmented, receiving_calls, stored_targets
from torchlint.semantics.kinds import HOST_KINDS, MAYBE_DEVICE_KINDS, Kind
from torchlint.semantics.frequency import Frequency
from torchlint.semantics.modes import switches_to_eval
from torchlint.semantics.project import FAST_PATH_MODULES, project_function, project_uses, runs_without_grad
from torchlint.semantics.training import after_train_mode_switch, called_function, loop_trains, runs_with_training_steps
from torchlint.semantics.volatile import assigned_volatility, runs_on_volatile, written_for_legacy_autograd

AUTOGRAD_CALLS = frozenset({"torch.autograd.grad", "torch.autograd.backward"})
# Tensor methods that only work while autograd records (`retain_grad` raises under `no_grad`).
AUTOGRAD_METHODS = frozenset({"backward", "retain_grad", "register_hook"})
# Functions that compute gradients (`torch.autograd.grad`, `torch.func.jacobian`, ...).
GRADIENT_FUNCTIONS = frozenset({"grad", "jacobian", "hessian", "vjp", "jvp", "hvp", "vhp", "jacrev", "jacfwd", "grad_and_value"})
# Methods that keep a value beyond the call (`outputs.append(out)`): a later backward through
# it fails under `no_grad`.
STORING_METHODS = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "put", "put_nowait", "register_buffer"})
# Attributes whose value `no_grad` changes.
AUTOGRAD_STATE = frozenset({"requires_grad", "grad_fn", "is_leaf", "is_grad_enabled"})
# Calls that turn a value into text; a tensor's text shows its `grad_fn`.
TEXT_CALLS = frozenset({"print", "str", "repr", "format"})
# Methods that make the text of their receiver.
TEXT_DUNDERS = frozenset({"__repr__", "__str__", "__format__"})
# Tensor methods that raise on a value recording a graph (with gradients on) and run without.
GRAPH_REFUSING = frozenset({"numpy", "__array__", "resize_", "__deepcopy__", "requires_grad_", "__dlpack__"})
# Views that return several outputs: an in-place change to one of them raises with gradients on.
MULTI_OUTPUT_VIEWS = frozenset({"split", "chunk", "unbind", "split_with_sizes"})
TEXT_METHODS = frozenset({"format", "write", "writelines", "info", "debug", "warning", "warn", "error", "critical", "log", "exception"})


@dataclass
class _Scope:
    """What one function (or the module) does with modules it puts in eval mode."""

    node: Union[cst.FunctionDef, cst.Module]
    evals: Dict[str, cst.Call] = field(default_factory=dict)  # module expression -> its `.eval()` call
    # Modules run with grad after `.eval()`, with that `.eval()` call (kept when `.train()` follows).
    graded_calls: Dict[str, cst.Call] = field(default_factory=dict)
    # The `.eval()` calls (ids) that a gradient computation follows: what runs after them may
    # be differentiated. A later `.eval()` of the same module starts a new evaluation.
    silenced: Set[int] = field(default_factory=set)
    # The loops (ids) around gradient computations seen before any `.eval()`, and around the
    # `.eval()` calls: a gradient computation in a loop that also switches to eval mode may
    # run after the switch, in a later iteration.
    gradient_loops: Set[int] = field(default_factory=set)
    eval_loops: Set[int] = field(default_factory=set)
    grad_off: bool = False
    # Modules put in eval mode under branches that run too rarely, with those branches (ids):
    # a forward outside them runs in eval mode only as often as they do.
    rare_evals: Dict[str, Set[int]] = field(default_factory=dict)
    # Names bound (latest binding, in source order) to `Variable(x, volatile=True)`.
    volatile: Set[str] = field(default_factory=set)


@dataclass
class _Candidate:
    scope: _Scope
    name: Optional[str]
    fixable: bool
    indent: str = ""
    returns_value: bool = False
    # `name`, or `Class.name` for a method of a module-level class; None when nested deeper.
    project_name: Optional[str] = None


class EvalWithoutNoGrad(Rule):
    """## What it does
    Flags a function that calls `<module>.eval()` (or `<module>.train(False)`, the same
    switch) and then runs the module with gradients enabled: no
    `torch.no_grad()`/`torch.inference_mode()` block around the call, no such decorator, no
    `torch.set_grad_enabled(False)`, no input wrapped as `Variable(x, volatile=True)` (in the
    function, or a module-level variable it reads) in a file
    that may be written for PyTorch 0.3 or older (it never calls `.item()`, new in 0.4): that
    was their no-grad, and nothing computed from such an input records a graph; later versions
    ignore the flag. Reported on the `.eval()` call.

    ## Why is this slow?
    `eval()` only changes layer behaviour (dropout off, BatchNorm uses running statistics);
    it does not turn autograd off. Every forward still records the graph and keeps the
    activations alive for a backward pass that never comes, costing memory (smaller batches)
    and time.

    The rule is silent for functions that compute gradients after `eval()` (`.backward()`,
    `torch.autograd.grad`, reading `.grad`, directly or in a function of the project they
    call: saliency maps, adversarial evaluation, a training step that toggles modes; not a
    same-file helper whose gradient computations sit under a test of a parameter the call
    sets to skip them, `self._run_one_epoch(epoch, cross_valid=True)` with the backward under
    `if not cross_valid:`; a later `.eval()` of the same module starts a new evaluation; nor
    one in the opposite branch of a test of a parameter the function never rebinds (or sets
    only to the evaluating value), `if
    backprop: model.train() else: model.eval()` with the backward under `if backprop:`, or of
    one comparison of it with a constant (`if partition == 'train':`): the
    call that evaluates records graphs nothing differentiates), for calls after the module is switched back with `.train()`,
    for code under `with torch.set_grad_enabled(<value>):` whose value the code decides
    (`set_grad_enabled(backprop)`: the author switches gradients off to evaluate),
    and for functions that this file only calls inside `no_grad`/`inference_mode`, or that
    every call in the project runs with gradients off: inside `with torch.no_grad():`,
    `inference_mode()` or `set_grad_enabled(False)`, in a function decorated with one, or in
    a function all of whose calls run so, two callers up (`project.runs_without_grad`: the
    training script's `with torch.no_grad(): validate(...)` covers `validate` in another
    module). Nor does it report a step function that a factory returns (`val_step =
    make_val_step(model)`, called through that name): the grad mode of the code that calls it
    through such names is not followed. A
    decorator or context manager of the project's own that refers to `torch.no_grad` or
    `torch.inference_mode` (a `smart_inference_mode()` helper in a utils module, defined in
    the file or imported from the project) counts as one of them. A backward pass earlier in
    the function silences it only when it may run after the `.eval()`: later in the source,
    or in a loop that also holds the `.eval()`; the training loop of a `train_test(model)`
    that then evaluates the whole test set does not (reported without a fix).

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
    The fix decorates the function with `@torch.no_grad()`, below any decorators it already
    has. `torch` is spelled as an earlier top-level `import torch` binds it; without one the
    fix adds `import torch` after the last top-level import above the function (or after the
    docstring and `from __future__` imports), never above a notebook cell magic. It is only
    offered where nothing in the function computes gradients: no `.backward()`,
    `torch.autograd.grad`, `.grad`, `.retain_grad()` or a tensor's `.register_hook()` (both
    raise without gradients), also named by a string (`getattr(torch.autograd, "grad")`,
    `operator.methodcaller("backward")`), in it, in a nested function, in a function of the file that it
    calls or hands on (`map(adapt, batches)`), or in the `forward` of a module class of the
    file (a force field's `autograd.grad` of the energy); nor where the function runs code
    from a string (`exec("history.append(out)")`, `eval(...)`), which sees its names and
    may keep its values or compute gradients.

    Safe when nothing produced under `no_grad` leaves the function or shows its autograd
    state, and no code the function cannot see runs under it (see `semantics.escapes`): it
    returns nothing; stores nothing outside itself (`outputs.append(out)`, `self.x = ...`,
    `report.logits, report.preds = ...`, `history += [out]` on a caller's list or `running
    += out` on an alias of a caller's tensor (`running = stats["sum"]`), `global`,
    `nonlocal`); hands no value it computed to a call that may keep it, show it or
    differentiate it, which is any call but a torch function (other than `torch.save` and
    the in-place ones, `torch.Tensor.add_(running, out)`, which write into their first argument,
    and those given `out=`, `torch.cat([prev, out], out=buf)`, which keep the values in it and
    raise with gradients on when one records a graph,
    and those handed a lambda or a function of the file that lets values leave it, which they
    run on the values: `torch.utils.checkpoint.checkpoint(keep, out)`), a
    method of the computed value, a value builtin (`len`, `max`, `float`), a module put in
    eval mode, and a function of the file that lets nothing it receives leave it (a lambda
    or a function of the file that such a call or method runs on the values, `sorted(scores,
    key=by_score)`, `rows.sort(key=remember)`, must let nothing leave either; so
    `deque.appendleft`, `heapq.heappush`, `setattr`, `pprint.pprint`, `" ".join(map(str,
    row))`, an imported metric or a loss passed as a parameter all count), and changes no
    outer tensor in place (`running.mul_(0.9).add_(out)` makes `running` part of the graph,
    and so does `flat = running.view(-1)` then `flat.add_(out)`: a name bound to a method,
    attribute or item of an outer value may be a view of it); calls no function its caller
    passes, takes from a container, looks up or keeps in an attribute the file assigns (`for
    callback in CALLBACKS: callback(acc)`, `getattr(hooks, "on_val_end")(acc)`, a
    module-level `after = partial(fit, head)`, `self.on_validated(acc)` after
    `self.on_validated = on_validated`: a callback would run without gradients too), and
    draws from nothing whose code runs at each draw, handed by a call of the file or bound
    elsewhere (a module-level name, an attribute such as `self.stream`): a generator
    expression, a generator function of the file, `map`/`filter` with a lambda or a function
    of the file, an object of a class of the file whose `__iter__`, `__next__` or
    `__getitem__` stores values or runs a module, or a `DataLoader` whose `collate_fn` of
    the file keeps values (`evaluate(embed_stream(val))` where `embed_stream` fills a memory
    bank would keep its features without their graph); does
    not read `.requires_grad`/`.grad_fn`/`.is_leaf`/ `torch.is_grad_enabled()`, nor call
    `.numpy()` on a value it did not detach, nor `__array__`, `resize_` or `__deepcopy__`,
    also unbound with the value first (`torch.Tensor.numpy(out)`, `type(out).numpy(out)`)
    (each, like `copy.deepcopy` of such a value, raises only with gradients on, and code
    may catch that); runs no code
    it cannot see that keeps values (no module hooks registered in the file, on a module or
    for all of them with `register_module_forward_hook`, or by `nn.utils.weight_norm`,
    `spectral_norm` or pruning, which keep the weight they compute on the module; no
    `forward` of a class of the file, nor a `__call__` of the file (also one a class
    decorator sets, `cls.__call__ = __call__`), that stores values on `self` (also by `setattr`) or elsewhere, such as an attention map kept for
    visualisation or a cache buffer changed in place (`self.cache.copy_(k)`), or reads the
    grad mode, itself or in a function of the file it calls; no `__torch_function__` or
    `__torch_dispatch__` of a tensor subclass or mode of the file, which runs inside the
    torch calls it sees and may record or read their autograd state; no `saved_tensors_hooks`
    of the file, whose pack hooks run only when autograd saves tensors; no function of the
    file it calls that stores values outside itself or reads the grad mode, such as a table
    cached on first use, `_cache[n] = ...`, which would keep a value computed without
    gradients for later training steps, or that a decorator may keep the results of: a
    cache of another module (`functools.lru_cache` on class embeddings) or a wrapper of the
    file that stores them; decorators that only bind (`staticmethod`, `property`) and
    torch's are fine); and does not print or format a
    value that may carry a `grad_fn` (the text of such a tensor shows it, also through its
    own `out.__repr__()` or the unbound `torch.Tensor.__repr__(out)`, or an `assert`'s message, which the `AssertionError` shows;
    the elements a loop draws through `enumerate(out)` or `zip(names, out)` are such values too;
    `.item()`, `len()` and `.shape` are fine). `no_grad` also changes what some modules compute: in eval mode
    without gradients, transformer layers and multi-head attention take a fused "fast path"
    (nested tensors whose padded positions come out as zeros, other rounding), and on the
    CPU `nn.LSTM` runs oneDNN's inference kernel (other rounding in the last bits), so the
    fix is unsafe too when the program (the file, a module it imports or one that imports
    it) builds `nn.TransformerEncoderLayer`, `nn.TransformerEncoder`,
    `nn.TransformerDecoderLayer`, `nn.TransformerDecoder`, `nn.Transformer`,
    `nn.MultiheadAttention`, `nn.LSTM` (or mentions one otherwise: a subclass, an alias,
    `partial(nn.MultiheadAttention, ...)`), a torchvision `vit_*` model or a `torch.nn` module
    chosen by name (`getattr(nn, rnn_type)(...)`, which may be any of them), or computes a
    matrix product (`a @ b`, `torch.matmul`): a batch of matrices times one matrix is folded
    into a single `mm` when an operand requires gradients and run as a batched `bmm` when
    none does (a graph convolution `adj @ h` over a fixed adjacency), which rounds the last
    bits differently; or computes singular values or eigenvalues (`torch.linalg.svdvals`,
    `eigvalsh`, `eigvals`, a matrix norm of order 2, -2 or `"nuc"`, `torch.linalg.norm`,
    `cond`, `matrix_rank`, `torch.svd(..., compute_uv=False)`: an effective-rank or
    spectral-norm metric of the features), which torch computes with the vectors when an
    input requires gradients and without them under `no_grad`, through another LAPACK
    driver that rounds the last bits differently; or solves a least-squares problem
    (`torch.linalg.lstsq`: a closed-form linear probe on the features), whose default
    driver gives other last bits when an input requires gradients. Unsafe, with
    the reason in the message, when one of these holds; withheld when a value may reach a
    later backward (returned, stored, handed to such a call, or a callback runs) in a file
    that computes gradients, since that backward would fail, and when the file reads an
    attribute of the function that the decorator's wrapper does not keep (`evaluate.__defaults__`,
    `__code__`, also read by a decorator of the file the function already has, which would
    get the wrapper; `__name__` and `__doc__` are kept), or hands the function to an `inspect`
    function that reads its own code (`inspect.getfullargspec(fn)`, `getsource`; not
    `inspect.signature`, which follows the wrapper to the function). No fix for code at module
    level, for `async def` (the decorator does not reach into a coroutine), and for methods
    of `nn.Module` subclasses (a `forward` that runs a frozen teacher must keep gradients
    for the rest of the model: wrap just the call in `with torch.no_grad():`).

    ## Measured precision
    Stable since issue 25 for evaluation that runs every step or every epoch (the per-epoch
    validation function, a function the training script of another module calls every
    epoch, an evaluation the function's own epoch loop runs after training in the same
    iteration, also every N epochs and also as its own loop over a validation loader); other evaluation in a function that no module of the
    project is seen to call is the preview variant.
    Evaluation that runs once per program is not reported: an `.eval()` under a branch that
    runs only in a test episode at the end of the program (`if self.is_test:` in an action
    selection, with only `test()` setting the flag), or in a marimo notebook cell.
    Few findings: at the end of issue 25's round 1.00 on the dev half, 0.00 held out (0/1: a
    notebook's one-off test helper), 1.00 on the unseen batch 5 (1/0). Batch 13 measured 0.00
    (0/2: a validation function its only caller runs under `no_grad`) and missed the
    evaluation after a training loop; after round 7, 1.00 (1/0), the miss found.
    See docs/precision.md.
    """

    code = "TL402"
    impact = "medium"
    name = "eval-without-no-grad"
    # Evaluation every step or every epoch; not a one-off run (export, a final test) nor one
    # under an interval or opt-in guard (a sample dump every N batches). Functions no module of
    # the project is seen to call (frequency unknown) are the preview variant.
    frequencies = frozenset({Frequency.PER_STEP, Frequency.PER_EPOCH, Frequency.UNKNOWN})
    preview_variant = "evaluation in functions that no module of the project is seen to call every step or epoch"
    summary = "Module run in eval mode with autograd still recording"
    triggers = (".eval(", ".train(False", ".train(mode=False")
    fix_applicability = Applicability.SAFE
    unsafe_when = "when a value computed under no_grad leaves the function or shows its autograd state, a callback runs, or the program uses transformer layers"
    bad_examples = (
        "import torch\ndef evaluate(model, x):\n    model.eval()\n    return model(x)\n"
        "for epoch in range(10):\n    train(model)\n    evaluate(model, x)\n",
        "import torch\nclass Trainer:\n    def validate(self):\n        self.net.eval()\n        for x in self.loader:\n"
        "            out = self.net(x)\n    def fit(self):\n        for epoch in range(self.epochs):\n            self.validate()\n",
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
        # Whether each decorator or `with` item seen (by node id) is a project grad-off wrapper.
        self.project_wrappers: Dict[int, bool] = {}
        # The dotted names each same-file function calls, by function node id.
        self.called_names: Dict[int, Set[Optional[str]]] = {}

    def visit_Module(self, node: cst.Module) -> None:
        self.scopes.append(_Scope(node))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        """A function starts with the module's volatile variables bound so far (a global it
        reads); its own bindings then replace them in source order."""
        self.scopes.append(_Scope(node, volatile=set(self.scopes[0].volatile)))

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        scope = self.scopes.pop()
        if self._reportable(scope):
            fixable = node.asynchronous is None and not self._in_module_class()
            self.candidates.append(_Candidate(scope, node.name.value, fixable, self._indentation(), _returns_value(node), self._project_name(node)))

    def leave_Module(self, node: cst.Module) -> None:
        scope = self.scopes.pop()
        if self._reportable(scope):
            self.candidates.append(_Candidate(scope, None, fixable=False))
        for candidate in self.candidates:
            if candidate.name is not None and candidate.name in self.called_without_grad:
                continue
            if candidate.project_name is not None and runs_without_grad(self.ctx.path, candidate.project_name):
                continue
            if isinstance(candidate.scope.node, cst.FunctionDef) and self.ctx.frequency.closure_calls(candidate.scope.node):
                continue  # a step function a factory returns: whether its callers turn gradients off is not followed
            fix = None
            if candidate.name is not None and candidate.fixable:
                fix = self._decorator_fix(candidate.scope, candidate.indent, candidate.returns_value)
            for call in dict.fromkeys(candidate.scope.graded_calls.values()):
                if id(call) in candidate.scope.silenced:
                    continue
                switch = "`.train(False)`" if isinstance(call.func, cst.Attribute) and call.func.attr.value == "train" else "`.eval()`"
                self.report(
                    call,
                    f"{switch} does not disable autograd: the module still records the graph; "
                    "run it under `torch.no_grad()` or `torch.inference_mode()`",
                    fix=fix,
                    start=call.func.attr if isinstance(call.func, cst.Attribute) else None,
                )

    def runs_often(self, node: cst.CSTNode) -> bool:
        """`Rule.runs_often`; in preview mode only, evaluation that does not run with
        training: in a function of unknown frequency (no module of the project is seen to call
        it), though its own loop over a loader repeats it, or a pass that runs once (a final
        test over the test loader after training; see `training.runs_with_training_steps`).
        Evaluation that the function's own epoch loop runs after training in the same
        iteration is per-epoch work however often the function is called
        (`_every_epoch_of_training`)."""
        function = self.ctx.enclosing(cst.FunctionDef)
        where = function.body if isinstance(function, cst.FunctionDef) else node
        if self.withholds_preview_variant():
            execution = self.ctx.execution(where)
            if execution.frequency is Frequency.UNKNOWN and not self._every_epoch_of_training(node):
                return False
            if execution.frequency is Frequency.ONCE and not runs_with_training_steps(self.ctx, self.ctx.execution(node)):
                if not self._every_epoch_of_training(node):
                    return False
        return super().runs_often(node)

    def _every_epoch_of_training(self, node: cst.CSTNode) -> bool:
        """Whether `node` runs once per iteration of an epoch loop of its function whose
        iterations train (`training.loop_trains`: a backward pass in it or in a function it
        calls, `self._run_one_epoch(epoch)` before `self.model.eval()`), also every N epochs
        (`if epoch % 20 == 0:`): the per-epoch evaluation of a training run, also through the
        evaluation's own loop over its loader (`for batch in valid_loader:` after the training
        loop in the body of `for epoch in range(epochs):`)."""
        execution = self.ctx.execution(node)
        loop = execution.step_loop() if execution.frequency is Frequency.PER_STEP else None
        if loop is not None and not loop_trains(self.ctx, loop):
            execution = self.ctx.execution(loop)  # how often the evaluation pass itself runs
        guard = execution.interval_guard()
        if guard is not None:
            execution = self.ctx.execution(guard)
        if execution.frequency is not Frequency.PER_EPOCH:
            return False
        outer = next((reason.at for reason in execution.reasons if isinstance(reason.at, (cst.For, cst.While))), None)
        return outer is not None and loop_trains(self.ctx, outer)

    def _project_name(self, node: cst.FunctionDef) -> Optional[str]:
        """How the project index names the function being left: `name` at module level,
        `Class.name` in a module-level class; None elsewhere (nested functions)."""
        outer = self.ctx.ancestors[1:]  # below the module, above the function (left: not among them)
        if not outer:
            return node.name.value
        if len(outer) == 2 and isinstance(outer[0], cst.ClassDef) and isinstance(outer[1], cst.IndentedBlock):
            return f"{outer[0].name.value}.{node.name.value}"
        return None

    def _reportable(self, scope: _Scope) -> bool:
        graded = any(id(call) not in scope.silenced for call in scope.graded_calls.values())
        return graded and not scope.gradient_loops & scope.eval_loops

    def _in_module_class(self) -> bool:
        klass = self.ctx.enclosing(cst.ClassDef)
        return isinstance(klass, cst.ClassDef) and klass.name.value in self.ctx.values.module_classes

    def visit_Assign(self, node: cst.Assign) -> None:
        """`model = build().eval()` puts `model` in eval mode too; `x = Variable(x,
        volatile=True)` makes `x` an input that records no graph (PyTorch <= 0.3)."""
        volatile = self.scopes[-1].volatile
        for name, is_volatile in assigned_volatility(node, self.ctx.qualified_name).items():
            if is_volatile:
                volatile.add(name)
            else:
                volatile.discard(name)
        if switches_to_eval(node.value) and len(node.targets) == 1:
            target = dotted_name(node.targets[0].target)
            if target is not None:
                self._switches_to_eval(self.scopes[-1], target, node.value)  # type: ignore[arg-type]

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value == "grad" and self.scopes:
            self._note_gradients(self.scopes[-1], node)

    def visit_Call(self, node: cst.Call) -> None:
        scope = self.scopes[-1]
        qualified = self.ctx.qualified_name(node.func)
        grad_disabled = scope.grad_off or self.ctx.grad_disabled(node) or self._project_grad_off(node) or self._grad_set_by_value(node)
        if grad_disabled and isinstance(node.func, (cst.Name, cst.Attribute)):
            self.called_without_grad.add(dotted_name(node.func) or "")
        if qualified in AUTOGRAD_CALLS or self._project_computes_grad(node, qualified) or self._helper_computes_grad(node):
            self._note_gradients(scope, node)
        elif qualified in SET_GRAD_ENABLED and isinstance(self.ctx.parent(), cst.Expr):
            scope.grad_off = scope.grad_off or self.ctx.grad_mode_set_by(node) is False
        found = method_call(node)
        if found is not None:
            self._method_call(scope, node, *found)
        module = dotted_name(node.func)
        grad_disabled = grad_disabled or (
            written_for_legacy_autograd(self.ctx.module) and runs_on_volatile(node, scope.volatile, self.ctx.qualified_name)
        )
        if module in scope.evals and not grad_disabled and self._in_eval_often(scope, module) and self.runs_often(node):
            _grade(scope, module)
        elif scope.evals and not grad_disabled:
            helped = self._run_by_helper(node, scope.evals)
            helped = {module for module in helped if self._in_eval_often(scope, module)}
            if helped and self.runs_often(node):
                for module in helped:
                    _grade(scope, module)

    def _names_called(self, function: cst.FunctionDef) -> Set[Optional[str]]:
        """The dotted names `function` calls with gradients on (not under a `with
        torch.no_grad():` of its own), computed once per function."""
        known = self.called_names.get(id(function))
        if known is None:
            known = self.called_names[id(function)] = set()
            stack: List[cst.CSTNode] = [function.body]
            while stack:
                node = stack.pop()
                if isinstance(node, cst.With) and any(self.ctx.grad_mode_set_by(item.item) is False for item in node.items):
                    continue
                if isinstance(node, cst.Call):
                    known.add(dotted_name(node.func))
                stack.extend(children(node))
        return known

    def _run_by_project_function(self, call: cst.Call, evals: Dict[str, cst.Call]) -> Set[str]:
        """The modules in eval mode handed to a function of another project module that calls
        the parameter it receives them as (`metrics(model, test_loader)` running `model(x)`),
        unless that function refers to `no_grad`/`inference_mode` anywhere."""
        passed = [name for name in evals if any(dotted_name(arg.value) == name for arg in call.args)]
        if not passed or not isinstance(call.func, (cst.Name, cst.Attribute)) or (dotted_name(call.func) or "") in evals:
            return set()
        if called_function(call, self.ctx.frequency.local_functions()):
            return set()  # a helper of this file: read directly
        facts = project_function(self.ctx, call.func)
        if facts is None or facts.grad_off or facts.wraps_grad_off:
            return set()
        return {name for name in passed if facts.calls_argument(call, name)}

    def _run_by_helper(self, call: cst.Call, evals: Dict[str, cst.Call]) -> Set[str]:
        """The modules in eval mode that the helper `call` runs: a same-file one that calls it
        by the same name (`self.model(x)` in a method of the class, a global `model`) or by
        the parameter it is passed to (`_process_batch(self.model, x)`), or one of another
        project module (`_run_by_project_function`). The helper's own `no_grad` counts."""
        found = self._run_by_project_function(call, evals)
        for function in called_function(call, self.ctx.frequency.local_functions()):
            if any(self.ctx.grad_mode_set_by(decorator.decorator) is False for decorator in function.decorators):
                continue
            called = self._names_called(function)
            found |= {module for module in evals if module in called}
            found |= {dotted_name(arg) for arg, parameter in arguments_by_parameter(call, function) if parameter in called and dotted_name(arg) in evals}
        return found

    def _note_gradients(self, scope: _Scope, node: cst.CSTNode) -> None:
        """A gradient computation silences the scope's `.eval()` calls when it may run after
        one: after it in the source, or in a loop that also holds the `.eval()` (a later
        iteration follows it). A training step that ends before the function evaluates
        (`loss.backward()`, then `model.eval()` and a validation forward), in a loop over the
        training batches or not, does not: that forward still records a graph. Nor does one
        in a loop whose iteration switches to training mode before it (`model.train()` at the
        top of the epoch loop): its graph is not the evaluation's, nor is the graph of a loss
        that an inner loop computes anew every iteration (`loss = criterion(model(x), y)`
        then `loss.backward()` in the loop over batches, before the per-epoch `.eval()`):
        only the loops that repeat that computation count (`_loops_of_graph`). The fix checks
        the whole function on its own (`_decorator_fix`)."""
        if scope.evals:
            scope.silenced |= {id(call) for call in scope.evals.values() if not _exclusive(self.ctx.module, scope.node, call, node)}
        elif not after_train_mode_switch(self.ctx.path_to(node)):
            scope.gradient_loops |= {id(loop) for loop in _loops_of_graph(self.ctx.enclosing_loops(node), node)}

    def _switches_to_eval(self, scope: _Scope, module: str, call: cst.Call) -> None:
        """The module is in eval mode from `call` on; an earlier `.eval()` of it stays the one
        reported unless a gradient computation followed it (`_Scope.silenced`)."""
        if module not in scope.evals or id(scope.evals[module]) in scope.silenced:
            scope.evals[module] = call
        scope.eval_loops |= {id(loop) for loop in self.ctx.enclosing_loops(call)}

    def _project_computes_grad(self, node: cst.Call, qualified: Optional[str]) -> bool:
        """A call of a project function that runs a backward pass or reads `.grad`."""
        if (qualified or "").startswith("torch.") or not isinstance(node.func, (cst.Name, cst.Attribute)):
            return False
        facts = project_function(self.ctx, node.func)
        return facts is not None and (facts.calls_backward or facts.reads_grad)

    def _helper_computes_grad(self, call: cst.Call) -> bool:
        """A call of a same-file function (a method through `self`) that computes gradients
        on this call: not one whose every gradient computation sits under a test of a
        parameter that the call sets to skip it (`self._run_one_epoch(epoch,
        cross_valid=True)` where the backward is under `if not cross_valid:`;
        `_skipped_by_argument`)."""
        functions = called_function(call, self.ctx.frequency.local_functions())
        return any(
            _body_computes_gradient(self.ctx.module, function) and not _skipped_by_argument(self.ctx.module, call, function)
            for function in functions
        )

    def _project_grad_off(self, node: cst.CSTNode) -> bool:
        """Whether `node` runs under a decorator or context manager of the project that wraps
        `no_grad`/`inference_mode` (`@smart_inference_mode()` imported from a utils module)."""
        for ancestor, child in self.ctx.path_to(node):
            if isinstance(ancestor, cst.With) and child is ancestor.body:
                wrappers = [item.item for item in ancestor.items]
            elif isinstance(ancestor, cst.FunctionDef):
                wrappers = [decorator.decorator for decorator in ancestor.decorators]
            else:
                continue
            if any(self._wraps_grad_off(wrapper) for wrapper in wrappers):
                return True
        return False

    def _wraps_grad_off(self, wrapper: cst.BaseExpression) -> bool:
        target = wrapper.func if isinstance(wrapper, cst.Call) else wrapper
        known = self.project_wrappers.get(id(target))
        if known is None:
            qualified = self.ctx.qualified_name(target) or ""
            facts = None if qualified.startswith("torch.") else project_function(self.ctx, target)
            known = self.project_wrappers[id(target)] = facts is not None and facts.wraps_grad_off
        return known

    def _method_call(self, scope: _Scope, node: cst.Call, receiver: cst.BaseExpression, method: str) -> None:
        module = dotted_name(receiver)
        if method == "backward":
            self._note_gradients(scope, node)
        if module is None:
            return
        if switches_to_eval(node) and self.ctx.kind_of(receiver) not in HOST_KINDS | MAYBE_DEVICE_KINDS:
            self._switches_to_eval(scope, module, node)
            branches = self._branches(node)
            if branches and not self.runs_often(node):
                scope.rare_evals[module] = branches
            else:
                scope.rare_evals.pop(module, None)  # in eval mode often from here on
        elif method == "train" and module in scope.evals:
            del scope.evals[module]
        elif (method == "forward" or self._runs_on_batch(node, method)) and module in scope.evals and self._in_eval_often(scope, module) and not (scope.grad_off or self.ctx.grad_disabled(node)) and self.runs_often(node):
            _grade(scope, module)

    def _grad_set_by_value(self, node: cst.CSTNode) -> bool:
        """Whether `node` runs under `with torch.set_grad_enabled(<value>):` with a value the
        code decides (`set_grad_enabled(backprop)`, `set_grad_enabled(phase == "train")`): the
        author turns gradients off for evaluation."""
        return "set_grad_enabled" in self.ctx.text and any(
            isinstance(ancestor, cst.With) and child is ancestor.body and any(
                isinstance(item.item, cst.Call) and self.ctx.qualified_name(item.item.func) in SET_GRAD_ENABLED
                and item.item.args and not is_literal(item.item.args[0].value, "True")
                for item in ancestor.items
            )
            for ancestor, child in self.ctx.path_to(node)
        )

    def _runs_on_batch(self, node: cst.Call, method: str) -> bool:
        """Whether a method call on a module (`self.model.finetune(input_ids)`, a computation
        of the model's own other than `forward`) is handed values of the batch that its loop
        draws (the loop's target, or names the loop body binds from it): it computes on the
        data, recording a graph. Not `nn.Module`'s bookkeeping (`state_dict`, `parameters`, ...)
        nor `generate`, which libraries run without gradients themselves."""
        if method in MODULE_BOOKKEEPING or method.startswith("_"):
            return False
        loop = next((ancestor for ancestor in reversed(self.ctx.ancestors) if isinstance(ancestor, cst.For)), None)
        if loop is None:
            return False
        drawn = _batch_names(self.ctx.module, loop)
        return any(_mentions_any(arg.value, drawn) for arg in node.args)

    def _branches(self, node: cst.CSTNode) -> Set[int]:
        """The `if` statements of the current function whose branches hold `node` (visited)."""
        found: Set[int] = set()
        for ancestor, child in self.ctx.path_to(node):
            if isinstance(ancestor, (cst.FunctionDef, cst.ClassDef)):
                break
            if isinstance(ancestor, cst.If) and child is not ancestor.test:
                found.add(id(ancestor))
        return found

    def _in_eval_often(self, scope: _Scope, module: str) -> bool:
        """Whether the node visited runs `module` in eval mode often: its `.eval()` is not under
        a branch that runs rarely (`if self.is_test: self.dqn.eval()` in an action selection
        that a test episode at the end of the program runs), or the node is in that branch too."""
        branches = scope.rare_evals.get(module)
        if branches is None:
            return True
        return branches <= {id(ancestor) for ancestor in self.ctx.ancestors}

    def _indentation(self) -> str:
        """The indentation of the statement being left, from its enclosing blocks."""
        return indentation(self.ctx.module, self.ctx.ancestors)

    def _decorator_fix(self, scope: _Scope, indent: str, returns_value: bool) -> Optional[PendingFix]:
        """`@torch.no_grad()` right above the `def` (below its other decorators), importing
        torch when no earlier top-level import binds it.

        Preconditions: nothing in the function (nested functions and helpers of this file
        included) computes gradients; for a safe fix also nothing a caller could later
        backpropagate through leaves the function, and no value whose printed form shows
        its autograd state is printed or formatted.
        """
        function = scope.node
        assert isinstance(function, cst.FunctionDef)
        if any(_computes_gradient(node) for node in descendants(function.body)):
            return self.withheld("the function computes gradients")
        if any(_runs_code_string(node) for node in descendants(function.body)):
            return self.withheld("the function runs code from a string (`exec`/`eval`), which may keep its values or compute gradients")
        computing = _gradient_functions(self.ctx.module)
        helper = _gradient_helper(function, computing)
        if helper is not None:
            return self.withheld(f"it calls `{helper}`, which computes gradients")
        if "forward" in computing:
            return self.withheld("a module's `forward` in this file computes gradients, and the function runs modules")
        binding = module_name(self.ctx.module, "torch", function)
        if binding is None:
            return self.withheld("`torch` cannot be imported above the function")
        torch_name, imports = binding
        decorator = f"@{torch_name}.no_grad()"
        if function.decorators:
            edit = NodeEdit(function.decorators[-1], f"\n{indent}{decorator}", insert_after=True)
        else:
            edit = NodeEdit(function, f"{decorator}\n{indent}", insert_before=True)
        message = "Decorate the function with `@torch.no_grad()`"
        modules = set(scope.evals) | set(scope.graded_calls)
        reason = _Escapes(self.ctx, modules, _printing_functions(self.ctx.module)).reason(function, returns_value)
        if reason.startswith(LATER_BACKWARD) and _file_computes_gradients(self.ctx.module):
            return self.withheld(f"{reason}, and this file computes gradients")
        if not reason and project_uses(self.ctx, FAST_PATH_MODULES):
            reason = FAST_PATH
        internal = wrapper_attribute_read(self.ctx.module, function, self.ctx.frequency.local_functions())
        if internal is not None:
            return self.withheld(f"the file reads the function's `{internal}`, which the decorator's wrapper does not keep")
        if reason:
            return self.unsafe_fix(reason, edit, *imports, message=message)
        return self.fix(edit, *imports, message=message)


def _skipped_by_argument(module: cst.Module, call: cst.Call, function: cst.FunctionDef) -> bool:
    """Whether every gradient computation of `function` lies under an `if` testing one of its
    parameters (`if not cross_valid:`, `if train:`, or the `else` of one) that `call` sets, or
    leaves to a default, to a constant for which the branch does not run."""
    common: Optional[Set[Tuple[str, bool]]] = None
    for item in descendants(function.body):
        if not _computes_gradient(item):
            continue
        guards = _parameter_guards(module, function, item)
        common = guards if common is None else common & guards
    if not common or any(arg.star for arg in call.args):
        return False  # `**options` may set the parameter
    given = {parameter: arg for arg, parameter in arguments_by_parameter(call, function)}
    defaults = {param.name.value: param.default for param in (*function.params.params, *function.params.kwonly_params)}
    for parameter, runs_when in common:
        value = given.get(parameter, defaults.get(parameter))
        truth = {"True": True, "False": False, "None": False}.get(value.value) if isinstance(value, cst.Name) else None
        if truth is not None and truth != runs_when and not any(parameter in _assigned_names(node) for node in scope_descendants(function.body)):
            return True
    return False


def _exclusive(module: cst.Module, function: cst.CSTNode, switch: cst.Call, gradient: cst.CSTNode) -> bool:
    """Whether the `.eval()` call `switch` and the gradient computation `gradient` never run
    in the same call of `function`: they sit in opposite branches of tests of one parameter it
    never rebinds (`if backprop: model.train() else: model.eval()`, then `if backprop:
    loss.backward()`): a call that evaluates records graphs that nothing differentiates."""
    if not isinstance(function, cst.FunctionDef):
        return False
    mine, theirs = _parameter_guards(module, function, switch), _parameter_guards(module, function, gradient)
    parameters = {param.name.value for param in (*function.params.params, *function.params.kwonly_params)}
    return any(
        (name, not truth) in theirs and name.partition("==")[0] in parameters and _keeps(function, name, truth) for name, truth in mine
    )


def _keeps(function: cst.FunctionDef, name: str, truth: bool) -> bool:
    """Whether `function` never rebinds the parameter `name`, or rebinds it only to the
    literal `truth` (`backprop = False` in a branch of an evaluation that already has it so);
    a parameter compared with a constant (`partition=='train'`) is never rebound."""
    parameter, compared, _ = name.partition("==")
    literal = "True" if truth else "False"
    for node in scope_descendants(function.body):
        if parameter not in _assigned_names(node):
            continue
        if compared or not (isinstance(node, cst.Assign) and is_literal(node.value, literal)):
            return False
    return True


def _parameter_guards(module: cst.Module, function: cst.FunctionDef, node: cst.CSTNode) -> Set[Tuple[str, bool]]:
    """The (parameter, truth) tests of `function` that `node` runs under (`if name:` and `if
    not name:`, their `else` with the opposite truth)."""
    parents = module_nodes(module).parents
    guards: Set[Tuple[str, bool]] = set()
    child, parent = node, parents.get(id(node))
    while parent is not None and parent is not function:
        test = _parameter_test(parent.test) if isinstance(parent, cst.If) else None
        if test is not None and child is parent.body:
            guards.add(test)
        elif test is not None and child is parent.orelse:
            guards.add((test[0], not test[1]))
        child, parent = parent, parents.get(id(parent))
    return guards


def _parameter_test(test: cst.BaseExpression) -> Optional[Tuple[str, bool]]:
    """(name, truth the body needs) of `if name:` and `if not name:`; of `if name ==
    'train':` as (`name=='train'`, True), and of `!=` as the same test with False."""
    if isinstance(test, cst.Comparison) and isinstance(test.left, cst.Name) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        if isinstance(target.operator, (cst.Equal, cst.NotEqual)) and isinstance(target.comparator, (cst.SimpleString, cst.Integer)):
            return f"{test.left.value}=={target.comparator.value}", isinstance(target.operator, cst.Equal)
        return None
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not) and isinstance(test.expression, cst.Name):
        return test.expression.value, False
    return (test.value, True) if isinstance(test, cst.Name) else None


def _grade(scope: _Scope, module: str) -> None:
    """`module` runs with gradients after its current `.eval()`: note that call, in place of a
    silenced one noted before (`_Scope.silenced`)."""
    call, noted = scope.evals[module], scope.graded_calls.get(module)
    if noted is None or (id(noted) in scope.silenced and id(call) not in scope.silenced):
        scope.graded_calls[module] = call


def _loops_of_graph(loops: List[cst.CSTNode], node: cst.CSTNode) -> List[cst.CSTNode]:
    """Of the loops around a gradient computation `node` (innermost first), those that may
    carry what it differentiates into a later iteration: for `loss.backward()` whose `loss`
    the innermost loop binding it assigns in its body (`loss = criterion(model(x), y)`,
    `loss += penalty`), that loop and the ones inside it, since every iteration of it builds
    a new graph; all of them otherwise."""
    found = method_call(node) if isinstance(node, cst.Call) else None
    receiver = found[0] if found is not None and found[1] == "backward" else None
    if not isinstance(receiver, cst.Name):
        return loops
    for index, loop in enumerate(loops):
        body = getattr(loop, "body", None)
        if body is not None and any(receiver.value in _assigned_names(item) for item in scope_descendants(body)):
            return loops[: index + 1]
    return loops


def _assigned_names(node: cst.CSTNode) -> Set[str]:
    """Names an assignment statement binds (`loss = ...`, `loss += ...`, `loss: T = ...`)."""
    if isinstance(node, cst.Assign):
        return {name for target in node.targets for name in bound_names(target.target)}
    if isinstance(node, (cst.AugAssign, cst.AnnAssign)):
        return set(bound_names(node.target))
    return set()


# Reasons whose value a later backward may go through; a file that computes gradients gets no fix.
LATER_BACKWARD = "a later backward"
RETURNS = f"{LATER_BACKWARD} may go through the returned value"
STORES = f"{LATER_BACKWARD} may go through values the function stores outside itself"
FAST_PATH = (
    "the program uses transformer layers, multi-head attention, an LSTM, matrix products or singular values or eigenvalues "
    "(`svdvals`, `eigvalsh`, matrix norms), whose eval-mode forward takes another path without gradients (padded positions "
    "come out as zeros, values round differently)"
)
MAX_HELPER_DEPTH = 3


class _Escapes:
    """Why running a function under `no_grad` may change what the program does: a value it
    computes leaves it (returned, stored, handed to a call that may keep it, print it or
    differentiate it), its autograd state is read or shown, or code its caller passes runs."""

    def __init__(self, ctx, modules: Set[str], printing: Set[str]) -> None:
        self.ctx = ctx
        self.modules = modules  # the modules put in eval mode: calling them computes values
        self.printing = printing

    def reason(self, function: cst.FunctionDef, returns_value: bool, seeded: Set[str] = frozenset(), depth: int = 0) -> str:
        """Why `function` is unsafe to run without gradients, or "" when nothing leaves it;
        `seeded` names parameters that receive values computed by its caller."""
        if returns_value:
            return RETURNS
        stored = _stores_or_reads_state(function)
        if stored:
            return stored
        computed = computed_names(function.body, seeded)
        if any(outer_names_augmented(function, computed)):
            return STORES
        if _shows_autograd_state(function, computed, self.printing):
            return "the function prints or formats values whose text shows their autograd state"
        if _converts_graph_to_numpy(function, computed):
            return "`.numpy()` (or `__array__`, `resize_`, `__deepcopy__`, `requires_grad_`, `__dlpack__`, also unbound, `torch.Tensor.numpy(out)`) raises on a value that records a graph (code that catches the error runs another way)"
        if _changes_split_pieces(function, computed):
            return "an in-place change to a piece of `split`, `chunk` or `unbind` raises on a value that records a graph (code that catches the error runs another way)"
        for call in receiving_calls(function.body, computed, self.modules):
            if not self._keeps_local(call, depth):
                return f"{LATER_BACKWARD} may go through a value handed to `{dotted_name(call.func) or 'a call'}`, which may keep it, show its autograd state or differentiate it"
        for call in _runs_callbacks_on_values(function.body, computed, self.ctx.frequency.local_functions()):
            if not all(self._callback_keeps_local(arg.value, depth) for arg in call.args):
                return f"{LATER_BACKWARD} may go through a function of this file or a lambda that `{dotted_name(call.func) or 'a call'}` runs on the values it computes (`key=`), which may keep them"
        callback = self._called_unknown(function)
        if callback:
            return f"{LATER_BACKWARD} may run in `{callback}`, a function passed in or taken from a container, which would run without gradients too"
        lazy = _lazy_iterable_argument(self.ctx, function)
        if lazy:
            return f"{LATER_BACKWARD} may run in {lazy}, which a caller hands it to iterate: its code runs when the function draws from it, without gradients too"
        for layer in list(_helper_layers([function], self.ctx.module))[1:]:
            for helper in layer:
                stored = _stores_or_reads_state(helper) or self._kept_by_decorator(helper)
                if stored:
                    return f"`{helper.name.value}`, a function of this file it calls: {stored}"
        return _unseen_module_code(self.ctx.module)

    def _keeps_local(self, call: cst.Call, depth: int) -> bool:
        """Whether `call` only computes from the values it receives: a torch function (not
        `torch.save`), a value builtin (`len`, `max`), a module in eval mode, or a function of
        the file that does not let what it receives leave it."""
        qualified = self.ctx.qualified_name(call.func) or ""
        if any(arg.keyword is not None and arg.keyword.value == "out" for arg in call.args):
            # `torch.cat([prev, out], out=buf)` keeps the values in `buf`, and raises with
            # gradients on when one of them records a graph
            return False
        if qualified.startswith("torch.") and qualified != "torch.save" and not in_place_function(qualified):
            # a function of the file handed to it may run on the values (`checkpoint(keep, out)`)
            return all(self._callback_keeps_local(arg.value, depth) for arg in call.args)
        func = call.func
        if isinstance(func, cst.Name) and func.value in VALUE_BUILTINS and self.ctx.names.lookup(func.value) is None:
            # a `key=` function of the file runs on the values (`_runs_callbacks_on_values`)
            return True
        if dotted_name(func) in self.modules or self.ctx.kind_of(func) is Kind.MODULE:
            return True
        callees = called_function(call, self.ctx.frequency.local_functions())
        if not callees or depth >= MAX_HELPER_DEPTH:
            return False
        return all(
            not self.reason(callee, False, {parameter for _, parameter in arguments_by_parameter(call, callee)} | _catch_all(callee), depth + 1)
            for callee in callees
        )

    def _callback_keeps_local(self, value: cst.BaseExpression, depth: int) -> bool:
        """Whether a function that a torch call receives (`torch.utils.checkpoint.checkpoint(keep,
        out)`, `torch.vmap(score)`) lets nothing it is given leave it: not a lambda, and a
        function of the file only when every parameter may hold a computed value and none
        leaves it."""
        if isinstance(value, cst.Lambda):
            return False
        functions = self.ctx.frequency.local_functions().get(value.value, []) if isinstance(value, cst.Name) else []
        if functions and depth >= MAX_HELPER_DEPTH:
            return False
        return all(not self.reason(function, False, _parameter_names(function), depth + 1) for function in functions)

    def _kept_by_decorator(self, helper: cst.FunctionDef) -> str:
        """STORES when a decorator of `helper` may keep what the helper computes: a cache
        (`functools.lru_cache`) or a wrapper of the file that stores its results (its own
        code, nested wrappers included, stores), else ""."""
        functions = self.ctx.frequency.local_functions()
        for decorator in helper.decorators:
            called = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
            own = functions.get(called.value, []) if isinstance(called, cst.Name) else []
            if own and not any(_stores_or_reads_state(function) for function in own):
                continue
            if not own and not decorator_keeps_values(self.ctx.qualified_name(called)):
                continue
            return f"{STORES} (a decorator of `{helper.name.value}` may keep what it returns)"
        return ""

    def _called_unknown(self, function: cst.FunctionDef) -> str:
        """A callable `function` calls whose code it cannot know (a callback): a name that a
        parameter, its own loop or assignment, or an assignment at module level binds (`for
        callback in CALLBACKS: callback(acc)`, `after = partial(fit, head)`), or a value that
        is not a name (`getattr(hooks, "on_val_end")(acc)`, `HOOKS[0]()`), or an attribute the
        file assigns (`self.on_validated = on_validated`, then `self.on_validated(acc)`); not a
        module."""
        attributes = _assigned_attributes(self.ctx.module)
        bound = {param.name.value for param in (*function.params.params, *function.params.kwonly_params)}
        module_level = [small for line in self.ctx.module.body if isinstance(line, cst.SimpleStatementLine) for small in line.body]
        for node in [*descendants(function.body), *module_level]:
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else []
            if isinstance(node, (cst.For, cst.AsName)):
                targets = [node.name if isinstance(node, cst.AsName) else node.target]
            bound |= {name.value for target in targets for name in [target, *descendants(target)] if isinstance(name, cst.Name)}
        for node in descendants(function.body):
            if not isinstance(node, cst.Call) or self.ctx.kind_of(node.func) is Kind.MODULE:
                continue
            if isinstance(node.func, cst.Name) and node.func.value in bound - self.modules:
                return node.func.value
            if isinstance(node.func, cst.Attribute) and _calls_stored(node.func, attributes) and dotted_name(node.func) not in self.modules:
                return dotted_name(node.func) or node.func.attr.value
            if not isinstance(node.func, (cst.Name, cst.Attribute)):
                return dotted_name(node.func) or self.ctx.module.code_for_node(node.func)
        return ""


# Builtins that return a lazy iterator running the function they are handed at each draw.
LAZY_MAPPERS = frozenset({"map", "filter"})
# Builtins and `itertools` functions that draw lazily from the iterables they are handed.
LAZY_WRAPPERS = frozenset({"iter", "zip", "enumerate", "reversed", "chain", "islice", "cycle", "tee", "zip_longest", "starmap", "compress", "takewhile", "dropwhile", "accumulate", "pairwise", "batched"})
# The methods of a class that iterating its object, or drawing from it, runs.
ITERATION_METHODS = frozenset({"__iter__", "__next__", "__getitem__"})


def _drawn_sources(function: cst.FunctionDef) -> List[cst.BaseExpression]:
    """What `function` draws from: the iterable of a `for` loop or a comprehension, or the
    argument of `next`/`iter`, and the names and attributes inside it (`enumerate(stream)`)."""
    sources: List[cst.BaseExpression] = []
    for node in descendants(function.body):
        if isinstance(node, (cst.For, cst.CompFor)):
            sources.append(node.iter)
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in ("next", "iter"):
            sources.extend(arg.value for arg in node.args[:1])
    inner = [item for source in sources for item in descendants(source) if isinstance(item, (cst.Name, cst.Attribute))]
    return [*sources, *inner]


def _iterated_parameters(function: cst.FunctionDef) -> Set[str]:
    """The parameters of `function` that it draws from (`_drawn_sources`)."""
    parameters = _parameter_names(function)
    return {item.value for item in _drawn_sources(function) if isinstance(item, cst.Name) and item.value in parameters}


def _lazy_iterable_argument(ctx, function: cst.FunctionDef) -> str:
    """What a call of the file hands `function` to draw from whose own code runs at each draw,
    in words, or "": a generator expression, a generator function of the file, `map`/`filter`
    with a lambda or a function of the file, an object of a class of the file whose iteration
    methods (`__iter__`, `__next__`, `__getitem__`) store values or read autograd state, or
    one of these reached through a name or a lazy wrapper (`zip`, `enumerate`, `itertools`).
    That code runs under the decorator's `no_grad` (a feature stream that fills a memory bank
    would keep values without their graph)."""
    for source in _drawn_sources(function):
        if isinstance(source, cst.Attribute) or (isinstance(source, cst.Name) and source.value not in _parameter_names(function)):
            # a stream bound elsewhere: at module level, or kept on the object (`self.stream`)
            lazy = _lazy_iterable(ctx, source, 0)
            if lazy:
                return lazy
    drawn = _iterated_parameters(function)
    if not drawn:
        return ""
    name = function.name.value
    for call in nodes_of_type(ctx.module, (cst.Call,)):
        if not isinstance(call, cst.Call):
            continue
        called = call.func.value if isinstance(call.func, cst.Name) else call.func.attr.value if isinstance(call.func, cst.Attribute) else None
        if called != name:
            continue
        for argument, parameter in arguments_by_parameter(call, function):
            if parameter in drawn:
                lazy = _lazy_iterable(ctx, argument, 0)
                if lazy:
                    return lazy
    return ""


def _lazy_iterable(ctx, value: cst.BaseExpression, depth: int) -> str:
    """`value` in words when drawing from it runs code of the file or a lambda (see
    `_lazy_iterable_argument`), else ""."""
    if depth >= MAX_HELPER_DEPTH:
        return ""
    if isinstance(value, cst.GeneratorExp):
        return "a generator expression"
    if isinstance(value, (cst.Name, cst.Attribute)):
        dotted = dotted_name(value)
        for assigned in assigned_values(ctx.module, dotted) if dotted else []:
            found = _lazy_iterable(ctx, assigned, depth + 1)
            if found:
                return found
        return ""
    if not isinstance(value, cst.Call):
        return ""
    func = value.func
    last = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else None
    functions = ctx.frequency.local_functions()
    if last == "DataLoader":
        # the main process runs the `collate_fn` (and, without workers, the dataset) as the
        # loop draws from the loader
        collate = next((arg.value for arg in value.args if arg.keyword is not None and arg.keyword.value == "collate_fn"), None)
        if isinstance(collate, cst.Lambda) or (
            isinstance(collate, cst.Name) and any(_stores_or_reads_state(f) or _changes_own_state_in_place(f) for f in functions.get(collate.value, []))
        ):
            return f"a loader whose `collate_fn` `{ctx.module.code_for_node(collate)}` keeps values"
        return _lazy_iterable(ctx, value.args[0].value, depth + 1) if value.args and value.args[0].keyword is None else ""
    if last in LAZY_MAPPERS and value.args:
        mapped = value.args[0].value
        if isinstance(mapped, cst.Lambda) or (isinstance(mapped, cst.Name) and mapped.value in functions):
            return f"`{last}` over `{ctx.module.code_for_node(mapped)}`"
    if last in LAZY_WRAPPERS or last in LAZY_MAPPERS:
        return next((found for arg in value.args if (found := _lazy_iterable(ctx, arg.value, depth + 1))), "")
    if isinstance(func, cst.Name) and func.value in functions:
        if any(isinstance(node, (cst.Yield,)) for function in functions[func.value] for node in scope_descendants(function.body)):
            return f"the generator `{func.value}`"
    if isinstance(func, cst.Name) and func.value in ctx.frequency.classes():
        for klass in ctx.frequency.classes()[func.value]:
            for method in children(klass.body):
                if isinstance(method, cst.FunctionDef) and method.name.value in ITERATION_METHODS:
                    if _stores_or_reads_state(method) or _changes_own_state_in_place(method) or any(
                        isinstance(node, cst.Call) and ctx.kind_of(node.func) is Kind.MODULE for node in descendants(method)
                    ):
                        return f"an object of `{func.value}` (its `{method.name.value}`)"
    return ""


def _runs_callbacks_on_values(body: cst.CSTNode, computed: Set[str], functions: Dict[str, List[cst.FunctionDef]]) -> Iterator[cst.Call]:
    """Calls that hand a lambda or a function of the file to code that may run it on values
    that may carry a graph: a call that receives such a value (`sorted(scores, key=by_score)`,
    `max(out, key=keyed)`, which `receiving_calls` lets through as value builtins) or a method
    of one (`rows.sort(key=remember)`)."""
    for node in descendants(body):
        if not isinstance(node, cst.Call):
            continue
        if not any(isinstance(arg.value, cst.Lambda) or (isinstance(arg.value, cst.Name) and arg.value.value in functions) for arg in node.args):
            continue
        found = method_call(node)
        if any(may_carry_graph(arg.value, computed) for arg in node.args) or (found is not None and may_carry_graph(found[0], computed)):
            yield node


@per_module
def _assigned_attributes(module: cst.Module) -> Set[str]:
    """The dotted names of the attributes the file assigns (`self.on_validated = ...`,
    `trainer.on_validated = ...`): a call of one runs whatever value was stored there."""
    return {
        dotted
        for node in descendants(module)
        if isinstance(node, cst.AssignTarget)
        for stored in stored_targets(node.target)
        if isinstance(stored, cst.Attribute)
        for dotted in [dotted_name(stored)]
        if dotted is not None
    }


def _calls_stored(func: cst.Attribute, assigned: Set[str]) -> bool:
    """Whether calling `func` runs a value the file stored in an attribute: the same dotted
    name (`self.on_validated`), or `self.<name>` of an attribute the file sets on some object
    (`trainer.on_validated = fit_probe`)."""
    if dotted_name(func) in assigned:
        return True
    own = isinstance(func.value, cst.Name) and func.value.value == "self"
    return own and any(name.rpartition(".")[2] == func.attr.value for name in assigned)


def _stores_or_reads_state(function: cst.FunctionDef) -> str:
    """Why `function` may keep a value beyond its run (a store outside itself, `global`) or
    behave differently without gradients (it reads autograd state), or ""."""
    for node in descendants(function.body):
        if isinstance(node, (cst.Global, cst.Nonlocal)):
            return f"{LATER_BACKWARD} may go through outer variables the function assigns"
        if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.AsName)):
            if any(stored_targets(node.name if isinstance(node, cst.AsName) else node.target)):
                return STORES
        found = method_call(node)
        if (found is not None and found[1] in STORING_METHODS) or attribute_store(node):
            return STORES
        name = node.attr if isinstance(node, cst.Attribute) else node
        if isinstance(name, cst.Name) and name.value in AUTOGRAD_STATE:
            return f"the function reads `{name.value}`, which `no_grad` changes"
    return ""


def _changes_own_state_in_place(function: cst.FunctionDef) -> str:
    """STORES when a method changes its object's state in place (`self.cache.copy_(k)`: the
    buffer then records a graph), else ""."""
    params = function.params.params
    if not params:
        return ""
    owner = params[0].name.value
    for node in descendants(function.body):
        found = method_call(node)
        if found is None or not found[1].endswith("_") or found[1].startswith("__"):
            continue
        receiver = found[0]
        steps = 0
        while isinstance(receiver, (cst.Attribute, cst.Subscript, cst.Call)):
            steps += isinstance(receiver, cst.Attribute)
            receiver = receiver.func if isinstance(receiver, cst.Call) else receiver.value
        if steps and isinstance(receiver, cst.Name) and receiver.value == owner:
            return STORES
    return ""


@per_module
def _unseen_module_code(module: cst.Module) -> str:
    """Why code the function cannot see, run by the modules it calls, may behave differently
    without gradients: the file registers module hooks (`register_forward_hook`), or the
    `forward` of a class of the file (or a `__call__` of the file), or a function of the file
    it calls (by name or as a method, `self.remember(y)`), stores values or reads autograd
    state; else ""."""
    for node in descendants(module):
        if _registers_hook(node):
            return f"{LATER_BACKWARD} may go through values the module hooks of this file keep; they run without gradients too"
        if isinstance(node, cst.Name) and node.value == "saved_tensors_hooks":
            return "the pack hooks of `saved_tensors_hooks` in this file run only when autograd saves tensors, which it does not without gradients"
        if isinstance(node, cst.FunctionDef) and node.name.value in TORCH_OVERRIDES:
            return f"`{node.name.value}` of a tensor subclass or mode of this file runs inside torch calls, without gradients too"
    forwards = [item for node in descendants(module) if isinstance(node, cst.ClassDef) for item in children(node.body) if isinstance(item, cst.FunctionDef) and item.name.value == "forward"]
    # A `__call__` of the file, in a class body or made to be set on a class (`cls.__call__ =
    # __call__` in a class decorator), runs in place of or around a module's forward.
    forwards += [node for node in descendants(module) if isinstance(node, cst.FunctionDef) and node.name.value == "__call__"]
    for layer in _helper_layers(forwards, module):
        for function in layer:
            stored = _stores_or_reads_state(function) or _changes_own_state_in_place(function)
            if stored.startswith(LATER_BACKWARD):
                return f"{LATER_BACKWARD} may go through values a module's `forward` of this file keeps"
            if stored:
                return f"a module's `forward` of this file: {stored}"
    return ""


@per_module
def _function_bodies(module: cst.Module) -> Dict[str, List[cst.FunctionDef]]:
    """The file's functions and methods by name."""
    bodies: Dict[str, List[cst.FunctionDef]] = {}
    for node in descendants(module):
        if isinstance(node, cst.FunctionDef):
            bodies.setdefault(node.name.value, []).append(node)
    return bodies


def _helper_layers(functions: List[cst.FunctionDef], module: cst.Module) -> Iterator[List[cst.FunctionDef]]:
    """`functions`, then the functions of the file they call (by name or as a method), then
    the ones those call, up to `MAX_HELPER_DEPTH` layers, each function once."""
    bodies = _function_bodies(module)
    seen: Set[int] = set()
    for _ in range(MAX_HELPER_DEPTH + 1):
        yield functions
        seen |= {id(function) for function in functions}
        functions = [
            helper
            for function in functions
            for node in descendants(function.body)
            if isinstance(node, cst.Call)
            for name in [node.func.attr.value if isinstance(node.func, cst.Attribute) else getattr(node.func, "value", None)]
            for helper in bodies.get(name or "", [])
            if id(helper) not in seen
        ]


# torch utilities whose forward pre-hook stores the weight it computes on the module
# (`module.weight`, with a `grad_fn` only when gradients are on): the old `weight_norm` and
# `spectral_norm` (not their `parametrizations` successors, which compute on access) and pruning.
_STORING_HOOK_UTILITIES = frozenset({"weight_norm", "spectral_norm"})
# torch's override protocols: a tensor subclass or a `TorchFunctionMode`/`TorchDispatchMode`
# defining one runs its own code inside every torch call it sees (`torch.overrides`).
TORCH_OVERRIDES = frozenset({"__torch_function__", "__torch_dispatch__"})


def _registers_hook(node: cst.CSTNode) -> bool:
    """A call that registers a hook, as a method (`layer.register_forward_hook(fn)`) or a
    function (`register_module_forward_hook(fn)`, which hooks every module), or a torch
    utility that registers one (`nn.utils.weight_norm(conv)`, `prune.l1_unstructured(...)`)."""
    if not isinstance(node, cst.Call):
        return False
    found = method_call(node)
    called = found[1] if found is not None else dotted_name(node.func) or ""
    parts = (dotted_name(node.func) or called).split(".")
    utility = parts[-1] in _STORING_HOOK_UTILITIES and "parametrizations" not in parts
    return (called.startswith("register_") and called.endswith("hook")) or utility or "prune" in parts[:-1]


def _parameter_names(function: cst.FunctionDef) -> Set[str]:
    """Every parameter of `function`, starred ones included."""
    params = function.params
    star = [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
    return {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params, *star)}


def _catch_all(function: cst.FunctionDef) -> Set[str]:
    """The `*args`/`**kwargs` parameters of `function`, which receive whatever else is passed."""
    return {param.name.value for param in (function.params.star_arg, function.params.star_kwarg) if isinstance(param, cst.Param)}


def _shows_autograd_state(function: cst.FunctionDef, computed: Set[str], printing: Set[str]) -> bool:
    """Whether the function turns into text a value that may carry a `grad_fn` (see
    `semantics.escapes.may_carry_graph`). Text is made by `print`, `str`, f-strings, logging
    and `write` methods, by the functions of the file in `printing`, and by an `assert`'s
    message, which the `AssertionError` carries to whoever shows it."""
    texts: List[cst.BaseExpression] = []
    for node in descendants(function.body):
        if isinstance(node, cst.Assert) and node.msg is not None:
            texts.append(node.msg)
        found = method_call(node)
        if found is not None and found[1] in TEXT_DUNDERS:
            texts.append(found[0])  # `out.__repr__()`: the text of the receiver
        if _makes_text(node, printing):
            texts.extend(arg.value for arg in node.args)  # type: ignore[attr-defined]
        elif isinstance(node, cst.FormattedStringExpression):
            texts.append(node.expression)
    return any(may_carry_graph(text, computed) for text in texts)


def _converts_graph_to_numpy(function: cst.FunctionDef, computed: Set[str]) -> bool:
    """Whether the function calls a method that refuses a value recording a graph (`.numpy()`
    without `force=`, NumPy's `__array__`, `resize_`, `__deepcopy__` of a non-leaf) on a value
    that may record one and was not detached, bound (`out.numpy()`) or unbound with the value
    first (`torch.Tensor.numpy(out)`, `type(out).numpy(out)`): that raises with gradients on
    and returns without them."""
    for node in descendants(function.body):
        found = method_call(node) if isinstance(node, cst.Call) else None
        if found is None or found[1] not in GRAPH_REFUSING or any(arg.keyword is not None and arg.keyword.value == "force" for arg in node.args):  # type: ignore[attr-defined]
            continue
        if found[1] == "requires_grad_" and _turns_grad_on(node):  # type: ignore[arg-type]
            continue  # `x.clone().requires_grad_(True)`: only turning it off raises on a non-leaf
        receivers = [found[0]]
        first = node.args[0] if node.args else None  # type: ignore[attr-defined]
        if first is not None and first.keyword is None and not first.star:
            receivers.append(first.value)  # the unbound form hands the value first
        for receiver in receivers:
            attributes = {item.attr.value for item in [receiver, *descendants(receiver)] if isinstance(item, cst.Attribute)}
            if not {"detach", "data"} & attributes and may_carry_graph(receiver, computed):
                return True
    return False


def _turns_grad_on(call: cst.Call) -> bool:
    """`t.requires_grad_()` or `t.requires_grad_(True)`, also unbound with the value first
    (`torch.Tensor.requires_grad_(t, True)`): only turning gradients off raises on a non-leaf."""
    keyworded = [arg.value for arg in call.args if arg.keyword is not None and arg.keyword.value == "requires_grad"]
    positional = [arg.value for arg in call.args if arg.keyword is None]
    unbound = isinstance(call.func, cst.Attribute) and (dotted_name(call.func.value) or "").endswith("Tensor")
    flags = keyworded or positional[1 if unbound else 0:][:1]
    return not flags or is_literal(flags[0], "True")


def _changes_split_pieces(function: cst.FunctionDef, computed: Set[str]) -> bool:
    """Whether the function changes in place (`boxes.clamp_(0, 1)`, a method ending in `_`) a
    piece of `split`, `chunk` or `unbind` (the method or the torch function) of a value that may
    record a graph, bound by an assignment, a loop or a comprehension, or indexed right away
    (`out.chunk(2)[0].zero_()`): that raises with gradients on and changes the value without."""
    pieces: Set[str] = set()
    for node in descendants(function.body):
        if isinstance(node, cst.Assign) and _multi_output_view(node.value, computed):
            pieces.update(name for target in node.targets for name in bound_names(target.target))
        elif isinstance(node, (cst.For, cst.CompFor)) and _multi_output_view(node.iter, computed):
            pieces.update(bound_names(node.target))
    for node in descendants(function.body):
        found = method_call(node) if isinstance(node, cst.Call) else None
        if found is None or not found[1].endswith("_") or found[1].startswith("__"):
            continue
        receiver = found[0].value if isinstance(found[0], cst.Subscript) else found[0]
        if (isinstance(receiver, cst.Name) and receiver.value in pieces) or _multi_output_view(receiver, computed):
            return True
    return False


def _multi_output_view(value: cst.BaseExpression, computed: Set[str]) -> bool:
    """`out.split(...)`, `out.chunk(2)`, `torch.unbind(out)` of a value that may record a graph."""
    found = method_call(value) if isinstance(value, cst.Call) else None
    if found is None or found[1] not in MULTI_OUTPUT_VIEWS:
        return False
    source = found[0]
    if dotted_name(source) == "torch" and value.args:  # type: ignore[attr-defined]
        source = value.args[0].value  # type: ignore[attr-defined]
    return may_carry_graph(source, computed)


def _makes_text(node: cst.CSTNode, printing: Set[str]) -> bool:
    """A call that turns its arguments into text."""
    if not isinstance(node, cst.Call):
        return False
    if isinstance(node.func, cst.Name):
        return node.func.value in TEXT_CALLS or node.func.value in printing
    # `torch.Tensor.__repr__(out)`: the unbound text method makes the text of its argument
    return isinstance(node.func, cst.Attribute) and node.func.attr.value in TEXT_METHODS | TEXT_DUNDERS


@per_module
def _printing_functions(module: cst.Module) -> Set[str]:
    """Names of the file's functions that print, log or format anything."""
    return {
        node.name.value
        for node in nodes_of_type(module, (cst.FunctionDef,))
        if isinstance(node, cst.FunctionDef)
        and any(_makes_text(item, set()) or isinstance(item, cst.FormattedString) for item in descendants(node))
    }


@per_module
def _gradient_functions(module: cst.Module) -> Set[str]:
    """Names of the functions of the file that compute gradients, directly or through another."""
    bodies = {node.name.value: node for node in nodes_of_type(module, (cst.FunctionDef,)) if isinstance(node, cst.FunctionDef)}
    computing = {name for name, node in bodies.items() if any(_computes_gradient(item) for item in descendants(node))}
    while True:
        more = {name for name, node in bodies.items() if name not in computing and _gradient_helper(node, computing)}
        if not more:
            return computing
        computing |= more


@per_module
def _body_computes_gradient(module: cst.Module, function: cst.FunctionDef) -> bool:
    """Whether anything in the body of `function` (a function of `module`) computes gradients,
    found once per function: every call of it asks."""
    return any(_computes_gradient(item) for item in descendants(function.body))


@per_module
def _batch_names(module: cst.Module, loop: cst.For) -> Set[str]:
    """The names that hold values of the batch a loop of `module` draws: its target, and the
    names its body binds from them (`user_ids, input_ids = batch`, then `input_ids =
    input_ids.long()`), found once per loop: every module call in it asks."""
    drawn = set(bound_names(loop.target))
    assignments = [item for item in descendants(loop.body) if isinstance(item, cst.Assign)]
    for _ in range(3):
        drawn |= {name for item in assignments if _mentions_any(item.value, drawn)
                  for target in item.targets for name in bound_names(target.target)}
    return drawn


@per_module
def _file_computes_gradients(module: cst.Module) -> bool:
    return any(_computes_gradient(node) for node in descendants(module))


def _gradient_helper(function: cst.FunctionDef, computing: Set[str]) -> Optional[str]:
    """The first function of `computing` that `function` names (calls, or hands on as in
    `map(adapt, batches)`), or a nested function that computes gradients."""
    for node in descendants(function.body):
        if isinstance(node, cst.FunctionDef) and any(_computes_gradient(item) for item in descendants(node)):
            return node.name.value
        if isinstance(node, cst.Name) and node.value in computing:
            return node.value
    return None


def _runs_code_string(node: cst.CSTNode) -> bool:
    """A call of the builtin `exec` or `eval` (`exec("history.append(out)")`): code the
    rule cannot read, which sees the function's names."""
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in ("exec", "eval")


def _computes_gradient(node: cst.CSTNode) -> bool:
    found = method_call(node)
    if found is not None and found[1] in AUTOGRAD_METHODS:
        return True
    if isinstance(node, cst.Attribute) and node.attr.value == "grad":
        return True
    called = dotted_name(node.func) if isinstance(node, cst.Call) else None
    if called in ("getattr", "methodcaller", "operator.methodcaller"):
        # `getattr(torch.autograd, "grad")(...)`, `methodcaller("backward")(loss)`
        return any(string_value(arg.value) in AUTOGRAD_METHODS | GRADIENT_FUNCTIONS for arg in node.args)  # type: ignore[union-attr]
    return called is not None and called.rpartition(".")[2] in GRADIENT_FUNCTIONS


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


# `nn.Module` methods that compute nothing on data, and `generate`, which libraries run under
# `no_grad` themselves: a call of one on a module in eval mode is not an evaluation step.
MODULE_BOOKKEEPING = frozenset(
    "parameters named_parameters buffers named_buffers children named_children modules named_modules "
    "state_dict load_state_dict train eval to cuda cpu half float double bfloat16 zero_grad apply "
    "requires_grad_ register_buffer register_parameter register_forward_hook register_forward_pre_hook "
    "register_full_backward_hook add_module get_submodule get_parameter extra_repr type share_memory "
    "generate save save_pretrained".split()
)


def _mentions_any(expression: cst.CSTNode, names: Set[str]) -> bool:
    return any(isinstance(item, cst.Name) and item.value in names for item in (expression, *descendants(expression)))
