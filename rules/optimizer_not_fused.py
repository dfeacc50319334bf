from dataclasses import dataclass
from functools import cached_property
from typing import Dict, List, Optional, Set, Tuple

import libcst as cst

from torchlint.engine.findings import Applicability
from torchlint.engine.rule import NodeEdit, PendingFix, Rule
from torchlint.rules.data_parallel import DATA_PARALLEL
from torchlint.semantics.calls import argument, has_star, is_literal, keyword, method_call, with_keyword
from torchlint.semantics.devices import Placement, placement
from torchlint.semantics.dtypes import program_makes_complex
from torchlint.semantics.flags import only_when_switched_on
from torchlint.semantics.heuristics import PARAMETER_WORDS, has_word, identifier
from torchlint.semantics.names import dotted_name
from torchlint.semantics.training import DISTRIBUTED_DATA_PARALLEL, remote_program
from torchlint.semantics.tree import descendants, nodes_of_type

OPTIMIZERS = {
    "torch.optim.Adam": "Adam",
    "torch.optim.adam.Adam": "Adam",
    "torch.optim.AdamW": "AdamW",
    "torch.optim.adamw.AdamW": "AdamW",
    "torch.optim.SGD": "SGD",
    "torch.optim.sgd.SGD": "SGD",
}
# PyTorch 1.12 added the `foreach=` argument; 2.0 made the multi-tensor (foreach) update the
# default for CUDA parameters and added `fused=True` to AdamW (Adam has had one since 1.13),
# so fused is proposed from 2.0, where both have it. SGD gained `fused=` in 2.3, but it is
# not proposed (see the docstring).
FOREACH_ARGUMENT_SINCE = (1, 12)
FOREACH_DEFAULT_SINCE = (2, 0)
FUSED = frozenset({"Adam", "AdamW"})
# Calls that wrap a module without moving it: the wrapper's parameters are the module's.
MODULE_WRAPPERS = DATA_PARALLEL | DISTRIBUTED_DATA_PARALLEL | {"torch.compile"}
PARAMETER_METHODS = ("parameters", "named_parameters")
Key = Tuple[int, str]


@dataclass
class _Candidate:
    """An optimizer call, the keyword its fix would add and the modules whose parameters it updates."""

    call: cst.Call
    name: str
    remedy: str
    owners: List[Key]


class OptimizerNotFused(Rule):
    """## What it does
    Flags `torch.optim.Adam` and `torch.optim.AdamW` built over the parameters of a module the
    same file moves to CUDA (`model.cuda()`, `model = Net().to(device)`, or an alias, a
    submodule or a DDP / DataParallel / `torch.compile` wrapper of such a module; parameter
    groups built from it, also by a helper named for parameters, `get_params_groups(model)`)
    without `fused=True`. When the configured `torch-version` is below 2.0 it also flags
    `torch.optim.SGD`, and proposes `foreach=True` instead (below 1.12, which has no
    `foreach=` argument, it reports nothing). Silent when the file freezes the module
    (`p.requires_grad = False` over its parameters, `module.requires_grad_(False)`): a head
    trained on a frozen backbone takes a step that is negligible next to the forward pass.
    Silent in programs on the distributed RPC framework, whose remote round trips dominate
    each step, and for an optimizer built only behind an opt-in flag (`if args.use_optimizer:`
    for a `store_true` option, `Adam(...) if fine_tune_encoder else None` with the constant
    set to `False`; see `semantics.flags`).

    ## Why is this slow?
    An optimizer step reads and writes every parameter, gradient and optimizer state, and
    PyTorch has three implementations of it. The for-loop one launches several small kernels
    per parameter tensor; the multi-tensor (`foreach`) one launches each operation once for a
    whole list of tensors, still one pass over memory per operation; the fused one does the
    whole update in one kernel per device and dtype, reading each tensor once. Since PyTorch
    2.0, CUDA parameters get the multi-tensor update by default; fused, usually the fastest,
    stays opt-in while PyTorch gives the newer kernels time to mature. The gain is a few
    percent of step time: torchtitan measured 1.6% to 3.6% higher training throughput on
    Llama 3 8B (2.6% on average) when it made fused AdamW its default. Before 2.0 the default
    was the for-loop update, which costs far more launches on models with many parameter
    tensors.

    SGD is not reported on 2.0 and later: its default is already the multi-tensor update; the
    fused SGD added in 2.3 was slower than it for large tensors in a benchmark posted to
    PyTorch's fused-SGD work, and a project reported it advancing momentum on steps that a
    `GradScaler` skips after an overflow.

    The rule is silent when `fused=` or `foreach=` is passed with any value (a decision, such
    as `fused=False` to keep bitwise reproducibility), when `differentiable=` is passed with
    anything but `False` (fused does not support it), when `**kwargs` may pass any of them
    (nanoGPT's `**extra_args` with `fused=True`), when the parameters are not a module's
    `.parameters()` (or a list or param groups built from them) or that module is not moved to
    CUDA in the same file, in files that never mention CUDA (or `torch.accelerator`), for optimizer classes that are
    not torch's, and in test code.

    ## Example
    ```python
    model = GPT(config).to("cuda")
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)
    ```

    ## Use instead
    ```python
    model = GPT(config).to("cuda")
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1, fused=True)
    ```

    ## Fix applicability
    Unsafe. The fix adds `fused=True` (`foreach=True` below 2.0). The fused kernel rounds
    differently from the multi-tensor one (results agree to float rounding, not bitwise), and
    it raises at the first step if any parameter is not a floating-point tensor on a
    supported device (a complex parameter, a parameter left on the CPU by a model split
    across devices) or a gradient is sparse. A gradient that is a view not laid out densely
    and in order (expanded, `p.grad = g.mean().expand_as(p)`; transposed, permuted, flipped
    or strided, `w.grad = (err.T @ x).T`, `p.grad = flat[::2]`) gets other values from the
    fused CPU kernel, far beyond rounding, which reads its memory as if it were contiguous;
    so no `fused=True` either when the file sets a `.grad` by hand (`p.grad = g`, `p.grad.data
    = g`, `setattr(p, "grad", g)`) to anything but `None` or a `.contiguous()` copy, nor when
    it makes a parameter of a view whose memory has gaps (`nn.Parameter(w[:, ::2])`,
    `Embedding.from_pretrained(vectors[:, :4])`, `big.narrow(1, 1, 4)`, rows of a transpose
    `w.T[:4]`), which the fused kernel updates as if it were contiguous (rows an embedding never
    looks up move too). No fix is offered when `capturable=` is passed
    (the optimizer is set up for CUDA-graph capture, which should be re-checked by hand), and
    no `fused=True` when the program may make complex values (`semantics.dtypes`): in the
    file, an imaginary literal (`torch.exp(1j * phase)`), a complex dtype (`torch.cfloat`,
    `dtype="complex64"`, NumPy's type codes `dtype="D"`, `a.astype("F")`, `"<c8"`, and
    `dtype="complex"`), `torch.polar`, `torch.complex`, `view_as_complex`,
    `torch.linalg.eig`/`eigvals` (NumPy's too), `np.roots` (and `np.polynomial`'s
    `polyroots`, `chebroots`, ..., and `np.poly1d`, whose `.r` holds its roots), `torch.stft`, a forward transform
    of `torch.fft`, `numpy.fft` or `scipy.fft` (however imported: `from numpy.fft import rfft`)
    or such a module handed on as a value (`spectrum = np.fft`), `np.emath`/`np.lib.scimath`,
    `.cfloat()`, `dtype.to_complex()`, Python's `complex()` or a `cmath` function, a negative
    number literal raised to a power that is not an integer literal (`(-1) ** (2 * k / n)`,
    `pow(-1, 0.5)`, complex in Python), or a torch or
    NumPy attribute looked up by a name the file does not spell (`getattr(torch,
    cfg["dtype"])`, which may be a complex dtype); in a module it imports or that
    imports it, any of these spelled out.

    ## Measured precision
    stable. 1.00 on the development half (106/0; an RPC example and an optimizer behind an
    opt-in flag are now silent) and 0.94 on the held-out half (74/5: a unit-test helper, a
    CPU-versus-GPU timing demo, two optimizers only for a one-off learning-rate test, a tiny
    data-bound notebook; heads on a frozen backbone and optimizers behind opt-in flags are now
    silent). On the ten repositories added last it was the weakest stable rule (12/5, now 12/3). See docs/precision.md.
    """

    code = "TL404"
    name = "optimizer-not-fused"
    # Advice: the gain depends on the model (launch-bound small models gain, large ones do not
    # measurably), so a finding is shown without failing a CI gate.
    severity = "info"
    summary = "Adam/AdamW over CUDA parameters without `fused=True`"
    impact = "high"
    triggers = ("Adam", "SGD")
    fix_applicability = Applicability.UNSAFE
    bad_examples = (
        "import torch\nmodel = Net().cuda()\noptimizer = torch.optim.Adam(model.parameters(), lr=1e-3)\n",
        "import torch\nfrom torch import optim\ndevice = torch.device('cuda')\nmodel = Net().to(device)\n"
        "optimizer = optim.AdamW([p for p in model.parameters() if p.requires_grad])\n",
    )
    good_examples = (
        "import torch\nmodel = Net().cuda()\noptimizer = torch.optim.Adam(model.parameters(), fused=True)\n",
        "import torch\nmodel = Net().cuda()\noptimizer = torch.optim.Adam(model.parameters(), foreach=False)\n",
        "import torch\nmodel = Net().cuda()\noptimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n",
        "import torch\nmodel = Net()\noptimizer = torch.optim.Adam(model.parameters())\n",
        "import torch\nmodel = Net().cuda()\noptimizer = torch.optim.Adam(model.parameters(), **extra_args)\n",
        "import torch\nfrom mylib import Adam\nmodel = Net().cuda()\noptimizer = Adam(model.parameters())\n",
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.candidates: List[_Candidate] = []
        # Modules moved to an accelerator, and names bound to another module, an alias or a wrapper of it.
        self.moved: Set[Key] = set()
        self.wraps: Dict[Key, Key] = {}
        # The value last assigned to each name: `params = [...]` passed as `Adam(params)`.
        self.assigned: Dict[Key, cst.BaseExpression] = {}
        # Modules whose parameters the file freezes (a backbone under a small trained head), and
        # those it unfreezes again (a GAN critic frozen only during the generator's step).
        self.frozen: Set[Key] = set()
        self.unfrozen: Set[Key] = set()

    def visit_For(self, node: cst.For) -> None:
        """`for p in model.parameters(): p.requires_grad = False` (also over
        `named_parameters()`, under a condition) freezes `model`."""
        found = method_call(node.iter)
        if found is None or found[1] not in PARAMETER_METHODS:
            return
        target = node.target.elements[-1].value if isinstance(node.target, cst.Tuple) and node.target.elements else node.target
        if isinstance(target, cst.Name):
            for value in _requires_grad_set(node.body, target.value):
                self._note_freezing(found[0], value)

    def _note_freezing(self, module: cst.BaseExpression, value: str) -> None:
        key = self._root_key(module)
        if key is not None:
            (self.frozen if value == "False" else self.unfrozen).add(key)

    def visit_Call(self, node: cst.Call) -> None:
        found = method_call(node)
        if found is not None and found[1] == "requires_grad_":
            value = node.args[0].value if node.args else cst.Name("True")  # `backbone.requires_grad_(False)`
            self._note_freezing(found[0], value.value if isinstance(value, cst.Name) else "")
        if placement(self.ctx.values.move_destination(node)) is Placement.DEVICE:
            key = self._root_key(node.func.value)  # type: ignore[attr-defined]
            if key is not None:
                self.moved.add(key)
            return
        name = OPTIMIZERS.get(self.ctx.qualified_name(node.func) or "")
        if name is not None:
            self._check_optimizer(node, name)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            key = self._key(target.target, binding=True)
            if key is None:
                continue
            self.assigned[key] = node.value
            value = node.value
            if isinstance(value, cst.Call) and placement(self.ctx.values.move_destination(value)) is Placement.DEVICE:
                self.moved.add(key)
                continue
            wrapped = None
            if isinstance(value, (cst.Name, cst.Attribute)):
                wrapped = self._root_key(value)  # `model_without_ddp = model`, `net = model.module`
            elif isinstance(value, cst.Call) and self.ctx.qualified_name(value.func) in MODULE_WRAPPERS and value.args:
                wrapped = self._root_key(value.args[0].value)
            if wrapped is not None and wrapped != key:
                self.wraps[key] = wrapped

    def leave_Module(self, node: cst.Module) -> None:
        if not self.ctx.uses_cuda or remote_program(self.ctx):
            return
        for candidate in self.candidates:
            if all(owner in self.frozen and owner not in self.unfrozen for owner in candidate.owners):
                continue  # a head trained on a frozen backbone: its step is negligible next to the forward
            if all(self._on_accelerator(owner) for owner in candidate.owners):
                self.report(candidate.call, self._message(candidate), fix=self._fix(candidate))

    # ---------------------------------------------------------------------------------

    def _check_optimizer(self, node: cst.Call, name: str) -> None:
        if self.in_skipped_code() or self._opt_in(node):
            return
        remedy = self._remedy(name)
        if remedy is None or has_star(node) or keyword(node, "fused") or keyword(node, "foreach"):
            return
        differentiable = keyword(node, "differentiable")
        if differentiable is not None and not is_literal(differentiable.value, "False"):
            return
        params = argument(node, "params", 0)
        if params is None or params.star:
            return
        owners = self._owners(params.value)
        if owners:
            self.candidates.append(_Candidate(node, name, remedy, owners))

    def _opt_in(self, node: cst.Call) -> bool:
        """Built only when an opt-in flag is on (`if args.use_optimizer:`, `Adam(...) if
        fine_tune_encoder else None`): a choice the default run never makes."""
        scope = self.ctx.enclosing(cst.FunctionDef)
        for ancestor, child in self.ctx.path_to(node):
            test = None
            if isinstance(ancestor, cst.If) and child is ancestor.body:
                test = ancestor.test
            elif isinstance(ancestor, cst.IfExp) and child is ancestor.body:
                test = ancestor.test
            if test is not None and only_when_switched_on(test, self.ctx.module, scope):
                return True
        return False

    def _remedy(self, name: str) -> Optional[str]:
        """`fused` or `foreach`, the keyword that speeds up this optimizer on the target version."""
        version = self.ctx.options.torch_version
        if version < FOREACH_ARGUMENT_SINCE:
            return None
        if version < FOREACH_DEFAULT_SINCE:
            return "foreach"
        return "fused" if name in FUSED else None

    def _owners(self, params: cst.BaseExpression) -> List[Key]:
        """The modules whose `.parameters()` the argument is built from (`model.parameters()`,
        a comprehension or param groups over them, or a name assigned one of those), or the
        module a parameter-group helper is given (`get_params_groups(student)`,
        `param_groups = add_weight_decay(model, wd)`); empty when anything else is passed or a
        module is unknown."""
        named = identifier(params)
        if isinstance(params, cst.Name):
            key = self._key(params, binding=False)
            params = self.assigned.get(key, params) if key is not None else params
        grouped = _grouped_module(params, named)
        if grouped is not None:
            key = self._root_key(grouped)
            return [key] if key is not None else []
        owners: List[Key] = []
        for item in descendants(params):
            found = method_call(item)
            if found is None or found[1] not in PARAMETER_METHODS:
                continue
            key = self._root_key(found[0])
            if key is None:
                return []
            owners.append(key)
        return owners

    def _on_accelerator(self, key: Key) -> bool:
        seen: Set[Key] = set()
        while key not in self.moved:
            if key in seen or key not in self.wraps:
                return False
            seen.add(key)
            key = self.wraps[key]
        return True

    def _root_key(self, node: cst.BaseExpression) -> Optional[Key]:
        """The storage key of the module an expression is part of: `model` for `model.encoder`
        and `model[0]`, `self.net` for `self.net.head`."""
        while isinstance(node, (cst.Attribute, cst.Subscript)):
            key = self._key(node, binding=False) if isinstance(node, cst.Attribute) else None
            if key is not None:
                return key
            node = node.value
        return self._key(node, binding=False) if isinstance(node, cst.Name) and node.value != "self" else None

    def _key(self, node: cst.BaseExpression, binding: bool) -> Optional[Key]:
        return self.ctx.names.storage_key(node, binding, self.ctx.enclosing(cst.ClassDef))

    def _message(self, candidate: _Candidate) -> str:
        if candidate.remedy == "fused":
            return (
                f"`{candidate.name}` over CUDA parameters runs the multi-tensor update; `fused=True` updates every "
                "parameter in one kernel per device and dtype"
            )
        return (
            f"before PyTorch 2.0, `{candidate.name}` runs several kernels per parameter tensor by default; pass "
            "`foreach=True` for the multi-tensor update"
        )

    @cached_property
    def _makes_complex(self) -> bool:
        """Whether the program makes complex values: one walk of the file, for every optimizer."""
        return program_makes_complex(self.ctx)

    @cached_property
    def _expanded_gradient(self) -> bool:
        """Whether the file sets a `.grad` to a value that may not be laid out densely and
        in order: an expanded view (`p.grad = g.mean().expand_as(p)`, zero strides), but
        also a transposed, permuted, flipped or strided one (`w.grad = (err.T @ x).T`,
        `dec.weight.grad = enc.weight.grad.T`, `p.grad = flat[::2]`), by assignment, by
        `setattr(p, "grad", g)` or through `p.grad.data = g`. The fused CPU kernel reads such
        a gradient's memory as if it were contiguous and computes other values than the
        multi-tensor update, far beyond float rounding. Only `None` and a `.contiguous()`
        copy are known to be safe. (A gradient that `backward()` accumulates always
        follows its parameter's layout.)"""
        for node in descendants(self.ctx.module):
            value: Optional[cst.BaseExpression] = None
            if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)) and node.value is not None:
                targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
                if any(_names_gradient(t) for t in targets):
                    value = node.value
            elif isinstance(node, cst.Call) and dotted_name(node.func) in ("setattr", "builtins.setattr") and len(node.args) >= 3:
                name = node.args[1].value
                if not (isinstance(name, cst.SimpleString) and name.evaluated_value not in ("grad", "_grad", "data")):
                    value = node.args[2].value
            if value is None or (isinstance(value, cst.Name) and value.value == "None"):
                continue
            if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "contiguous":
                continue
            return True
        return False

    @cached_property
    def _strided_parameter(self) -> bool:
        """Whether the file makes a parameter (`nn.Parameter(x)`, `Embedding.from_pretrained(x)`)
        of a view whose memory may have gaps: a slice with a step or over a later axis (`w[:,
        :4]`, `w[::2]`), rows of a transpose (`w.T[:4]`), `narrow`, an expansion; not through
        `.contiguous()` or `.clone()`, which copy. (A whole transpose is dense, in another
        order: the fused kernel differs from the multi-tensor update by rounding only.)"""
        for node in nodes_of_type(self.ctx.module, (cst.Call,)):
            assert isinstance(node, cst.Call)
            name = (self.ctx.qualified_name(node.func) or dotted_name(node.func) or "").rpartition(".")[2]
            if name in ("Parameter", "from_pretrained") and node.args and _strided_view(node.args[0].value):
                return True
        return False

    def _fix(self, candidate: _Candidate) -> PendingFix:
        if keyword(candidate.call, "capturable") is not None:
            return self.withheld("`capturable=` prepares the optimizer for CUDA-graph capture: check the faster update with it by hand")
        if candidate.remedy == "fused" and self._makes_complex:
            return self.withheld("the program makes complex values, and the fused update takes floating-point parameters only")
        if candidate.remedy == "fused" and self._strided_parameter:
            return self.withheld(
                "the file makes a parameter from a view that may not be dense and in order (a slice, `narrow`, a transpose: "
                "`nn.Parameter(w[:, ::2])`), and the fused CPU kernel updates it as if it were: other values"
            )
        if candidate.remedy == "fused" and self._expanded_gradient:
            return self.withheld(
                "the file sets a gradient by hand, which may be a view that is not dense and in order (expanded, transposed, strided: `p.grad = g.T`), and the fused CPU kernel updates it as if it were: other values"
            )
        fixed = with_keyword(candidate.call, candidate.remedy, cst.Name("True"))
        return self.fix(NodeEdit(candidate.call, fixed), message=f"Pass `{candidate.remedy}=True`")


# Views whose memory may have gaps (a transpose alone is dense, in another order).
STRIDED_VIEWS = frozenset({"narrow", "expand", "expand_as", "unfold", "diagonal", "as_strided"})
# Views that reorder the axes: a part of one taken along its first axis has gaps.
REORDERING_VIEWS = frozenset({"t", "transpose", "permute", "movedim", "swapaxes"})


def _strided_view(value: cst.BaseExpression) -> bool:
    """Whether `value` may be a view whose memory has gaps (see `_strided_parameter`), looking
    through `.detach()`, `.data`, `.float()` and the like, up to a copy."""
    while True:
        found = method_call(value) if isinstance(value, cst.Call) else None
        if found is not None and found[1] in ("contiguous", "clone"):
            return False
        if found is not None and found[1] in STRIDED_VIEWS:
            return True
        if isinstance(value, cst.Subscript):
            parts = [item.slice for item in value.slice]
            if any(isinstance(part, cst.Slice) and part.step is not None for part in parts):
                return True  # `w[::2]`
            if any(not (isinstance(part, cst.Slice) and part.lower is None and part.upper is None) for part in parts[1:]):
                return True  # `w[:, :4]`, `w[:, 0]`: a later axis restricted
            if not (isinstance(parts[0], cst.Slice) and parts[0].lower is None and parts[0].upper is None) and _reordered(value.value):
                return True  # `w.T[:4]`: rows of a transpose
            value = value.value
            continue
        if found is not None:
            value = found[0]
        elif isinstance(value, cst.Attribute):
            value = value.value
        else:
            return False


def _reordered(value: cst.BaseExpression) -> bool:
    """Whether `value` is a transpose or permutation (`.T`, `.t()`, `.permute(...)`) of
    something, looking through `.detach()`, `.data` and the like."""
    for item in (value, *descendants(value)):
        found = method_call(item) if isinstance(item, cst.Call) else None
        if (found is not None and found[1] in REORDERING_VIEWS) or (isinstance(item, cst.Attribute) and item.attr.value in ("T", "mT", "H", "mH")):
            return True
    return False


def _names_gradient(target: cst.BaseExpression) -> bool:
    """`p.grad`, `p._grad`, or `p.grad.data` as an assignment target."""
    if not isinstance(target, cst.Attribute):
        return False
    if target.attr.value in ("grad", "_grad"):
        return True
    return target.attr.value == "data" and isinstance(target.value, cst.Attribute) and target.value.attr.value in ("grad", "_grad")


def _grouped_module(params: cst.BaseExpression, named: str) -> Optional[cst.BaseExpression]:
    """The module a helper builds parameter groups of: the first argument of a call whose name,
    or the name its result is given, is about parameters (`utils.get_params_groups(student)`,
    `param_groups = optim_factory.add_weight_decay(model, wd)`), when it is a plain name
    or attribute and the call mentions no `.parameters()` of its own."""
    if not isinstance(params, cst.Call) or not params.args or params.args[0].keyword is not None:
        return None
    if not (has_word(identifier(params), PARAMETER_WORDS) or has_word(named, PARAMETER_WORDS)):
        return None
    first = params.args[0].value
    if not isinstance(first, (cst.Name, cst.Attribute)):
        return None
    if any(method_call(item) is not None and method_call(item)[1] in PARAMETER_METHODS for item in descendants(params)):
        return None
    return first


def _requires_grad_set(body: cst.BaseSuite, name: str) -> List[str]:
    """The values (`"True"`, `"False"`, or `""` when not a literal) that `body` assigns to
    `<name>.requires_grad`."""
    found = []
    for node in descendants(body):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                if isinstance(target.target, cst.Attribute) and dotted_name(target.target) == f"{name}.requires_grad":
                    found.append(node.value.value if isinstance(node.value, cst.Name) else "")
    return found
