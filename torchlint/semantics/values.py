"""A small local inference of what a name or expression holds: tensor, array, module, number."""

from __future__ import annotations

import re
import warnings
from collections import Counter
from typing import Callable, Dict, FrozenSet, List, Optional, Set, Tuple

import libcst as cst

from torchlint.semantics.calls import argument
from torchlint.semantics.device_names import CUDA_WORDS, DEVICE_STRING, HOST_WORDS, cuda_by_words, words_of
from torchlint.semantics.devices import named_like_device, names_cpu
from torchlint.semantics.framework_names import lightning_class
from torchlint.semantics.kinds import MAYBE_DEVICE_KINDS, TENSOR_KINDS, Kind
from torchlint.semantics.names import LOCAL, NameResolver, Parameter, Scope, dotted_name
from torchlint.semantics.placement import host_modules
from torchlint.semantics.tree import descendants, iterated_source, nodes_of_type, per_module


# Functions that create a tensor in host memory unless given `device=`.
HOST_FACTORIES = frozenset(
    "zeros ones empty full arange range linspace logspace eye tensor rand randn randint randperm "
    "from_numpy as_tensor zeros_like ones_like empty_like full_like rand_like randn_like randint_like".split()
)
_LIKE_FACTORIES = frozenset(name for name in HOST_FACTORIES if name.endswith("_like"))

# `self.name = ...`, `self.name += ...`: every way of assigning a plain attribute.
_SELF_ASSIGNMENT = re.compile(r"\bself\.(\w+)\s*(?:[-+*/@%&|^]|//|\*\*|<<|>>)?=(?!=)")
# `self.register_buffer("queue_ptr", ...)`: the module's state tensor, moved with it.
_BUFFER_REGISTRATION = re.compile(
    r"\bself\.(?:register_buffer\(\s*[\"'](\w+)[\"']|add_state\(\s*[\"'](\w+)[\"']\s*,\s*(?:default\s*=\s*)?torch\.)"
)
# `self.name = ...` without an operator: an assignment that may replace a registered buffer
# (`self.total += x` updates it in place, a tensor where it was).
_SELF_REBINDING = re.compile(r"\bself\.(\w+)\s*=(?!=)")

# Functions directly under `torch.` that do not return tensors.
_TORCH_NON_TENSOR = frozenset(
    "device dtype Generator Size no_grad enable_grad inference_mode set_grad_enabled load save "
    "manual_seed seed initial_seed compile is_tensor is_floating_point numel get_default_dtype "
    "set_default_dtype set_default_device use_deterministic_algorithms set_printoptions "
    "set_num_threads get_num_threads is_grad_enabled is_inference_mode_enabled finfo iinfo "
    "autocast typename is_complex is_storage is_conj is_inference is_autocast_enabled is_nonzero "
    "is_same_size is_deterministic_algorithms_enabled".split()
)
# Calls that return a `torch.device`: torch's own, and ignite's device of the current process.
DEVICE_FACTORIES = frozenset({"torch.device", "ignite.distributed.device", "ignite.distributed.utils.device"})
_TENSOR_SUBMODULES = ("torch.nn.functional.", "torch.fft.", "torch.linalg.", "torch.special.")
_SCALAR_BUILTINS = frozenset({"float", "int", "len", "bool"})
# What a torch function can take and still compute on the host.
_HOST_INPUTS = frozenset({Kind.HOST_TENSOR, Kind.NDARRAY, Kind.NUMBER})
_TENSOR_NON_TENSOR_METHODS = {
    "item": Kind.NUMBER,
    "numpy": Kind.NDARRAY,
    "tolist": Kind.OTHER,
    "size": Kind.OTHER,
    "dim": Kind.NUMBER,
    "numel": Kind.NUMBER,
    "nelement": Kind.NUMBER,
    "element_size": Kind.NUMBER,
    "stride": Kind.OTHER,
    "data_ptr": Kind.NUMBER,
    "get_device": Kind.NUMBER,
    "is_contiguous": Kind.NUMBER,
}
# Methods that compute on an array-like the way tensor code does (reductions, comparisons,
# casts, reshapes): a parameter used so is read as a tensor would be (`tensor_evidence`).
_ARRAY_METHODS = frozenset(
    "sum mean max min argmax argmin any all abs norm std var prod eq ne gt lt ge le float double half int long bool "
    "item squeeze unsqueeze view reshape flatten detach clone nonzero count_nonzero isnan isinf isfinite sign sqrt "
    "exp log topk sort cumsum softmax log_softmax masked_select".split()
)
# Methods only a tensor has (no NumPy array, Python container or module has them): what a
# value of unknown origin returns from one is a tensor (`mask[:, t].expand(-1, n)`).
_TENSOR_ONLY_METHODS = frozenset(
    {
        "expand", "expand_as", "unsqueeze", "unsqueeze_", "masked_fill", "masked_fill_", "masked_select",
        "view_as", "type_as", "contiguous", "index_select", "repeat_interleave", "gather", "scatter",
        "scatter_", "scatter_add", "scatter_add_", "clamp", "clamp_", "clamp_min", "clamp_max", "narrow",
        "detach", "long", "permute", "log_softmax", "softmax", "norm",
    }
)
# Dict methods no tensor has: a value of tensor kind that has one is a container of tensors
# (a module's dict of outputs), whose keys and items are not tensors.
_CONTAINER_METHODS = frozenset({"items", "keys"})
_MODULE_METHODS = frozenset({"cuda", "cpu", "to", "train", "eval", "float", "half", "double", "bfloat16", "requires_grad_"})
_TENSOR_ATTRIBUTES = frozenset({"grad", "data", "T", "mT", "H", "real", "imag"})
# Attributes of a NumPy array that are arrays themselves (its other attributes are host values).
_ARRAY_ATTRIBUTES = frozenset({"T", "mT", "real", "imag", "flat", "base"})
_LITERAL_KINDS = {
    cst.Integer: Kind.NUMBER,
    cst.Float: Kind.NUMBER,
    cst.Imaginary: Kind.NUMBER,
    cst.FormattedString: Kind.OTHER,
    cst.ConcatenatedString: Kind.OTHER,
    cst.List: Kind.OTHER,
    cst.Dict: Kind.OTHER,
    cst.Set: Kind.OTHER,
    cst.Tuple: Kind.OTHER,
    cst.ListComp: Kind.OTHER,
    cst.DictComp: Kind.OTHER,
    cst.SetComp: Kind.OTHER,
}


def assigned_values(module: cst.Module, name: str) -> List[cst.BaseExpression]:
    """The values assigned to the name `name` anywhere in the file (`name = value`), a dotted
    one included (`self.data = value`)."""
    return list(assignment_index(module).get(name, ()))


@per_module
def assignment_index(module: cst.Module) -> Dict[str, List[cst.BaseExpression]]:
    """Every assigned value of the file by the (dotted) name it is assigned to; a tuple
    assigned element by element (`train_set, valid_set = TensorDataset(a), TensorDataset(b)`)
    gives each name its element."""
    found: Dict[str, List[cst.BaseExpression]] = {}
    for node in nodes_of_type(module, (cst.Assign,)):
        if isinstance(node, cst.Assign):
            for name in {dotted_name(target.target) for target in node.targets} - {None}:
                found.setdefault(name, []).append(node.value)  # type: ignore[arg-type]
            for target in node.targets:
                for name, value in _element_pairs(target.target, node.value):
                    found.setdefault(name, []).append(value)
    return found


def _element_pairs(target: cst.BaseExpression, value: cst.BaseExpression) -> List[Tuple[str, cst.BaseExpression]]:
    """(name, value) of `a, b = x, y`: targets and values of the same length, nothing starred."""
    if not (isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List))):
        return []
    pairs = list(zip(target.elements, value.elements))
    if len(target.elements) != len(value.elements) or any(isinstance(e, cst.StarredElement) for pair in pairs for e in pair):
        return []
    return [(name, element.value) for slot, element in pairs for name in [dotted_name(slot.value)] if name is not None]


def only_assigned_value(module: cst.Module, name: cst.Name) -> Optional[cst.BaseExpression]:
    """The value of the only assignment to `name` in the file (a notebook's earlier cell
    included), if there is exactly one and nothing else binds it (`+=`, a loop target, a
    function parameter)."""
    for node in nodes_of_type(module, (cst.AugAssign, cst.AnnAssign, cst.For, cst.Param)):
        if isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For)) and _binds(node.target, name.value):
            return None
        if isinstance(node, cst.Param) and node.name.value == name.value:
            return None
    values = assigned_values(module, name.value)
    return values[0] if len(values) == 1 else None


def _binds(target: cst.BaseExpression, name: str) -> bool:
    return any(isinstance(item, cst.Name) and item.value == name for item in descendants(target))


def literal_keywords(
    value: cst.BaseExpression, names: NameResolver, module: Optional[cst.Module] = None, every_run: bool = False
) -> Optional[Dict[str, cst.BaseExpression]]:
    """The keywords a dict literal spells out: `{"num_workers": 4}` or `dict(num_workers=4)`
    (the builtin, not a local `dict`); None when any key is not a plain string or the dict
    unpacks another. A choice by device (`{"num_workers": 1, "pin_memory": True} if use_cuda
    else {}`) spells out the branch a CUDA run takes (see `cuda_branch`): the loader options
    that matter are those of the run on the device; with `every_run` (what a fix that adds
    keywords next to the dict must know), it is unknown."""
    if isinstance(value, cst.IfExp):
        branch = cuda_branch(value, module) if not every_run else None
        return literal_keywords(branch, names, module) if branch is not None else None
    if isinstance(value, cst.Dict):
        keywords: Dict[str, cst.BaseExpression] = {}
        for element in value.elements:
            key = string_value(element.key) if isinstance(element, cst.DictElement) else None
            if key is None:
                return None
            keywords[key] = element.value
        return keywords
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "dict":
        if names.lookup("dict") is not None or any(arg.keyword is None for arg in value.args):
            return None
        return {arg.keyword.value: arg.value for arg in value.args if arg.keyword is not None}
    return None


def spread_of(module: cst.Module, names: NameResolver, arg: cst.Arg, every_run: bool = False) -> Optional[Dict[str, cst.BaseExpression]]:
    """The keywords one `**name` argument supplies when the name's only assignment in the file
    (or, for `**self.init_kwargs`, the attribute's) is a dict literal (`literal_keywords`;
    `every_run`: see there) that the file never changes (no item assignment, no method call but
    reads: `kwargs.update(cuda_kwargs)` makes it unknown); None otherwise."""
    assigned = only_assigned_value(module, arg.value) if isinstance(arg.value, cst.Name) else _only_attribute_value(module, arg.value)
    known = literal_keywords(assigned, names, module, every_run) if assigned is not None else None
    return None if known is None or dotted_name(arg.value) in _changed_dicts(module) else known


def _only_attribute_value(module: cst.Module, value: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """The value of the only assignment in the file to the attribute `value` of `self`
    (`self.init_kwargs = {...}` in `__init__`)."""
    name = dotted_name(value) if isinstance(value, cst.Attribute) else None
    values = assigned_values(module, name) if name is not None and name.startswith("self.") else []
    return values[0] if len(values) == 1 else None


# Methods of a dict that do not change it.
DICT_READS = frozenset({"get", "keys", "items", "values", "copy"})


@per_module
def _changed_dicts(module: cst.Module) -> Set[str]:
    """Names (dotted ones included) whose object the file changes: `kw["x"] = ...`, `kw |=
    ...`, `kw.update(...)`, `self.kw.update(...)`."""
    changed: Set[str] = set()
    for node in nodes_of_type(module, (cst.Assign, cst.AugAssign, cst.Call)):
        targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target] if isinstance(node, cst.AugAssign) else []
        changed |= {dotted_name(t.value) for t in targets if isinstance(t, cst.Subscript)} - {None}  # type: ignore[misc]
        if isinstance(node, cst.AugAssign) and dotted_name(node.target) is not None:
            changed.add(dotted_name(node.target))  # type: ignore[arg-type]
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and dotted_name(node.func.value) is not None:
            if node.func.attr.value not in DICT_READS:
                changed.add(dotted_name(node.func.value))  # type: ignore[arg-type]
    return changed


def cuda_branch(choice: cst.IfExp, module: Optional[cst.Module] = None) -> Optional[cst.BaseExpression]:
    """The branch of `a if test else b` that a run on CUDA takes, when the test asks for the
    device and nothing else (see `true_on_cuda`)."""
    on_cuda = true_on_cuda(choice.test, module)
    if on_cuda is None:
        return None
    return choice.body if on_cuda else choice.orelse


def true_on_cuda(test: cst.BaseExpression, module: Optional[cst.Module] = None) -> Optional[bool]:
    """Whether a test that asks for the device and nothing else holds on a CUDA run.

    Decided by effects first: a flag (a name or attribute, `not` it) whose truth the file
    uses to select CUDA (`if flag: model.cuda()`, `"cuda" if flag else "cpu"`; see
    `cuda_flags`). Where the file shows no such effect, the words of the test are the
    tie-breaker: True for `use_cuda`, `args.cuda`, `torch.cuda.is_available()`,
    `device.type == "cuda"`, `args.gpu`, `use_accel` (`torch.accelerator`: CUDA on NVIDIA
    GPUs); False for `not use_cuda`, `args.no_cuda`, `device == "cpu"`; None for any other test."""
    negated = False
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test, negated = test.expression, not negated
    selected = cuda_flags(module).get(dotted_name(test) or "") if module is not None else None
    if selected is not None:
        return selected != negated
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(test.comparisons[0].operator, (cst.NotEqual, cst.IsNot)):
        negated = not negated
    words = {
        word
        for node in descendants(test)
        for text in [node.value if isinstance(node, cst.Name) else string_value(node) if isinstance(node, cst.SimpleString) else None]
        if text
        for word in words_of(text)
    }
    if CUDA_WORDS & words and HOST_WORDS & words and dotted_name(test) is None:
        return None  # `torch.cuda.is_available() and not args.cpu`: not one question
    return cuda_by_words(words, negated)


@per_module
def cuda_flags(module: cst.Module) -> Dict[str, bool]:
    """Flags (names, attributes) whose truth the file uses to select CUDA, with the truth that
    does: `if flag:` whose body moves to CUDA (`.cuda()`, a `"cuda"` device) and whose `else`
    does not, `"cuda" if flag else "cpu"`; `not flag` the other way round. A flag used both
    ways is left out."""
    found: Dict[str, Set[bool]] = {}
    for node in nodes_of_type(module, (cst.If, cst.IfExp)):
        if not isinstance(node, (cst.If, cst.IfExp)):
            continue
        test, truth = node.test, True
        while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, truth = test.expression, not truth
        flag = dotted_name(test)
        on_true, on_false = _selects_cuda(node.body), node.orelse is not None and _selects_cuda(node.orelse)
        if flag is not None and on_true != on_false:
            found.setdefault(flag, set()).add(truth if on_true else not truth)
    return {flag: truths.pop() for flag, truths in found.items() if len(truths) == 1}


# At most this many statements in a branch that selects CUDA (`if use_cuda: model.cuda()`):
# a longer one is a part of the program, not a choice of device.
_DEVICE_BRANCH_STATEMENTS = 3


def _selects_cuda(node: cst.CSTNode) -> bool:
    """Whether `node` (an expression, or a short block whose every statement does) moves
    something to CUDA or names the CUDA device."""
    if isinstance(node, (cst.IndentedBlock, cst.Else)):
        statements = node.body if isinstance(node, cst.IndentedBlock) else node.body.body
        return 0 < len(statements) <= _DEVICE_BRANCH_STATEMENTS and all(_selects_cuda(statement) for statement in statements)
    return any(
        (isinstance(item, cst.Call) and isinstance(item.func, cst.Attribute) and item.func.attr.value == "cuda")
        or (isinstance(item, cst.SimpleString) and (string_value(item) or "").split(":")[0] == "cuda")
        for item in descendants(node)
    )


def string_value(node: cst.BaseExpression) -> Optional[str]:
    """The value of a plain (non-f, non-bytes) string literal, else None."""
    if isinstance(node, cst.SimpleString) and "b" not in node.prefix.lower():
        with warnings.catch_warnings():  # `invalid escape sequence` is the checked code's business
            warnings.simplefilter("ignore")
            value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def string_key(node: cst.BaseExpression) -> Optional[str]:
    """The string key a subscript reads or writes (`cfg["device"]`), else None."""
    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
        return string_value(node.slice[0].slice.value)
    return None


# Libraries that compute on the host only: what their functions return lives there (a
# tensor handed to them is converted to NumPy first).
HOST_LIBRARIES = frozenset({"sklearn", "scipy", "pandas", "statistics"})

# The kinds an attribute `self.<name>` is known to hold when every assignment gives it one.
TRACKED_ATTRIBUTE_KINDS = (Kind.HOST_TENSOR, Kind.MODULE)


class ValueInference:
    """Infers the kind of expressions from literals, torch/NumPy calls and tracked names."""

    def __init__(
        self,
        names: NameResolver,
        factories_on_host: bool = True,
        text: str = "",
        module: Optional[cst.Module] = None,
        computes_where_given: Callable[[cst.BaseExpression], bool] = lambda func: False,
        passed_through: Callable[[cst.BaseExpression], Optional[Tuple[int, str]]] = lambda func: None,
    ) -> None:
        self.names = names
        # Whether a callee is a project function that places nothing on a device: what it
        # computes from host tensors stays on the host (`iou, f1 = evaluate(pred.cpu(), mask.cpu())`).
        self.computes_where_given = computes_where_given
        # The parameter (position, name) a project function returns as it was given (`loss =
        # _safe_loss(loss)`): its call is that argument.
        self.passed_through = passed_through
        # The file, asked which modules it builds and never moves (`placement.host_modules`).
        self.module = module
        self.module_classes: Set[str] = set()
        # How many `self.<name> = ...` assignments the file's text has, by name.
        self.attribute_assignments: Counter = Counter(_SELF_ASSIGNMENT.findall(text))
        # The names the file registers as buffers of its modules.
        self.buffers: FrozenSet[str] = frozenset(buffer or state for buffer, state in _BUFFER_REGISTRATION.findall(text))
        # How many plain `self.<name> = ...` assignments the file's text has, by name.
        self._rebindings: Counter = Counter(_SELF_REBINDING.findall(text))
        # The kind of the assignments to `self.<name>` seen so far (a host tensor or a module),
        # and how many; (None, -1) once anything else was assigned.
        self._attribute_kinds: Dict[str, Tuple[Optional[Kind], int]] = {}
        # False when the file changes the default device, so factories may not create on the host.
        self.factories_on_host = factories_on_host
        # The open parameter (`Scope.open_parameters`), with its function, that
        # `tensor_parameters` assumes a tensor.
        self._assumed: Optional[Parameter] = None
        # A name of unknown kind `kind_if_tensor` takes for a tensor.
        self._tensor_name: Optional[str] = None

    def lookup(self, name: str) -> Optional[Kind]:
        for scope in reversed(self.names.scopes):
            if name in scope.values:
                return scope.values[name]
            if name in scope.bindings:
                if name == self._tensor_name:
                    return Kind.TENSOR
                return Kind.TENSOR if self._assumed is not None and self._assumed in _parameters_of(scope, name) else None
        return None

    def kind_if_tensor(self, node: cst.BaseExpression, name: str) -> Optional[Kind]:
        """The kind of `node` if the name `name`, of unknown kind, holds a tensor that may be on
        the device (a loss the function calls `.backward()` on: `loss.isnan()` is one too,
        `loss.item()` a number)."""
        self._tensor_name = name
        try:
            return self.kind_of(node)
        finally:
            self._tensor_name = None

    def tensor_parameters(self, node: cst.BaseExpression) -> List[Parameter]:
        """The open parameters (`Scope.open_parameters`), each with its function, such that
        `node`, of unknown kind, is a tensor that may be on the device when that one parameter
        holds one (`float((pred == labels).sum())` in `accuracy(pred, labels)`, also through
        names computed from it: `actual = scores[i].argmax()`, then `int(actual)`): what the
        function's callers pass decides (`semantics.argument_kinds`)."""
        candidates: Set[Parameter] = set()
        for name in {item.value for item in descendants(node) if isinstance(item, cst.Name)}:
            owner = next((scope for scope in reversed(self.names.scopes) if name in scope.bindings or name in scope.values), None)
            if owner is not None and name not in owner.values:
                candidates.update(_parameters_of(owner, name))
        found: List[Parameter] = []
        for candidate in candidates:
            self._assumed = candidate
            try:
                kind = self.kind_of(node)
            finally:
                self._assumed = None
            if kind in MAYBE_DEVICE_KINDS:
                found.append(candidate)
        return found

    def tensor_evidence(self, node: cst.BaseExpression) -> bool:
        """Whether `node` computes as tensor code does: a torch function, an array method
        (`.argmax(1)`, `.sum()`, `.max()`), or a name computed from a parameter so
        (`Scope.derived`). A bare parameter, arithmetic and comparisons of numbers are not."""
        for item in descendants(node):
            if isinstance(item, cst.Call):
                func = item.func
                if isinstance(func, cst.Attribute) and func.attr.value in _ARRAY_METHODS:
                    return True
                if (self.names.qualified_name(func) or "").startswith("torch."):
                    return True
            elif isinstance(item, cst.Name) and any(item.value in scope.derived for scope in self.names.scopes):
                return True
        return False

    def assign(self, name: str, kind: Optional[Kind]) -> None:
        values = self.names.scopes[-1].values
        if kind is None:
            values.pop(name, None)
        else:
            values[name] = kind

    def kind_of(self, node: cst.BaseExpression) -> Optional[Kind]:
        """The kind of value `node` evaluates to, or None when unknown."""
        literal = _LITERAL_KINDS.get(type(node))
        if literal is not None:
            return literal
        if isinstance(node, cst.SimpleString):
            value = string_value(node)
            return Kind.DEVICE if value is not None and DEVICE_STRING.match(value) else Kind.OTHER
        if isinstance(node, cst.Name):
            return self.lookup(node.value)
        if isinstance(node, cst.Call):
            return self._call_kind(node)
        if isinstance(node, cst.Attribute):
            if node.attr.value == "device":
                return Kind.DEVICE
            if node.attr.value == "grad" and dotted_name(node.value) not in (None, "self"):
                return Kind.TENSOR  # a parameter's gradient (`p.grad`, `param.grad.data`), where the parameter lives
            base = self.kind_of(node.value)
            if base in TENSOR_KINDS and node.attr.value in _TENSOR_ATTRIBUTES:
                return base
            if base is Kind.NDARRAY:  # a NumPy value's attribute lives on the host (`np.finfo(t).eps`)
                return Kind.NDARRAY if node.attr.value in _ARRAY_ATTRIBUTES else Kind.OTHER
            if isinstance(node.value, cst.Name) and node.value.value == "self":
                return self._self_attribute_kind(node.attr.value)
            return None
        if isinstance(node, cst.BinaryOperation):
            return _combine(self.kind_of(node.left), self.kind_of(node.right))
        if isinstance(node, cst.UnaryOperation):
            return self.kind_of(node.expression)
        if isinstance(node, cst.Subscript):
            base = self.kind_of(node.value)
            return base if base in TENSOR_KINDS or base is Kind.NDARRAY else None
        if isinstance(node, cst.Comparison):
            if any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in node.comparisons):
                return Kind.OTHER  # `x is None`, `k in d`: a Python bool whatever `x` is
            kinds = {self.kind_of(node.left), *(self.kind_of(c.comparator) for c in node.comparisons)}
            return next((kind for kind in (Kind.DEVICE_TENSOR, Kind.TENSOR, Kind.HOST_TENSOR) if kind in kinds), None)
        if isinstance(node, cst.IfExp):
            if _is_none(node.orelse) or _is_none(node.body):  # `x.view(n, -1) if x is not None else None`
                return self.kind_of(node.orelse if _is_none(node.body) else node.body)
            body = self.kind_of(node.body)
            return body if body is self.kind_of(node.orelse) else None
        return None

    def _call_kind(self, node: cst.Call) -> Optional[Kind]:
        func = node.func
        if self.is_module_class(func):
            return Kind.MODULE
        if isinstance(func, (cst.Name, cst.Attribute)) and self.kind_of(func) is Kind.MODULE:
            if isinstance(func, cst.Name) and self._host_inputs(node) and self._stays_on_host(func.value):
                return Kind.HOST_TENSOR  # a module that stays on the CPU, run on host inputs
            return Kind.TENSOR  # calling a module runs its forward
        qualified = self.names.qualified_name(func)
        if qualified is not None and not qualified.startswith(("torch.", "numpy.")) and self._host_inputs(node) and self.computes_where_given(func):
            return Kind.HOST_TENSOR  # a project function run on host tensors, placing nothing elsewhere
        through = self.passed_through(func) if isinstance(func, cst.Name) and qualified is not None and not qualified.startswith(("torch.", "numpy.")) else None
        if through is not None:
            given = argument(node, through[1], through[0])
            return self.kind_of(given.value) if given is not None and not given.star else None
        if qualified is not None:
            return self._qualified_call_kind(qualified, node)
        if isinstance(func, cst.Name) and func.value in _SCALAR_BUILTINS and self.names.lookup(func.value) is None:
            return Kind.NUMBER
        if isinstance(func, cst.Attribute):
            receiver = self.kind_of(func.value)
            method = func.attr.value
            if receiver in TENSOR_KINDS:
                return self._tensor_method_kind(receiver, method, node)
            if receiver is Kind.NDARRAY:
                return Kind.OTHER if method == "tolist" else Kind.NDARRAY
            if receiver is Kind.MODULE and method in _MODULE_METHODS:
                return Kind.MODULE
            if method == "numpy":
                return Kind.NDARRAY
            if receiver is None and self._tensor_method_kind(Kind.TENSOR, method, node) is Kind.HOST_TENSOR:
                return Kind.HOST_TENSOR  # whatever was moved to the host is there now
            if receiver is None and method in _TENSOR_ONLY_METHODS:
                return Kind.TENSOR  # only a tensor has the method: its result is one
        return None

    def _qualified_call_kind(self, qualified: str, node: cst.Call) -> Optional[Kind]:
        if qualified in DEVICE_FACTORIES:
            return Kind.DEVICE
        if qualified.startswith("numpy."):
            return Kind.NDARRAY
        if qualified.split(".")[0] in HOST_LIBRARIES:
            return Kind.OTHER  # `r2_score(y, p)`, `stats.pearsonr(a, b)`: computed on the host
        if qualified == "torch.nn.Parameter":
            return Kind.TENSOR
        if qualified.startswith(_TENSOR_SUBMODULES):
            return Kind.HOST_TENSOR if self._host_inputs(node) else Kind.TENSOR
        parts = qualified.split(".")
        if parts[0] != "torch":
            return None
        if len(parts) >= 3 and parts[1] == "nn" and parts[-1][:1].isupper():
            return Kind.MODULE
        if len(parts) == 2 and parts[1][:1].islower() and parts[1] not in _TORCH_NON_TENSOR:
            if self._creates_on_host(parts[1], node):
                return Kind.HOST_TENSOR
            device = next((arg.value for arg in node.args if arg.keyword is not None and arg.keyword.value == "device"), None)
            if device is not None and parts[1] in HOST_FACTORIES:
                return self._placed_on(device)
            return Kind.HOST_TENSOR if self._host_inputs(node) else Kind.TENSOR
        return None

    def _stays_on_host(self, name: str) -> bool:
        """Whether the module named `name` is built by this file and never moved; never when
        the file changes the default device."""
        return self.module is not None and self.factories_on_host and name in host_modules(self.module)

    def _host_inputs(self, node: cst.Call) -> bool:
        """Whether every argument of the call is a host tensor, an array, a number or a
        literal option, at least one of them a tensor or an array, and none is `device=`:
        what a torch function or a CPU module computes from them stays on the host."""
        kinds = []
        for arg in node.args:
            if arg.star or (arg.keyword is not None and arg.keyword.value == "device"):
                return False
            if isinstance(arg.value, cst.SimpleString) or (isinstance(arg.value, cst.Name) and arg.value.value in ("None", "True", "False")):
                continue
            kinds.append(self.kind_of(arg.value))
        return all(kind in _HOST_INPUTS for kind in kinds) and any(kind in (Kind.HOST_TENSOR, Kind.NDARRAY) for kind in kinds)

    def _placed_on(self, device: cst.BaseExpression) -> Kind:
        """The kind of a tensor placed on `device`: host for the CPU, else on the device
        when `device` is known to be one (a device string, `torch.device`, `x.device`, a
        name such as `device`), else unknown."""
        literal = string_value(device)
        if names_cpu(device, literal):
            return Kind.HOST_TENSOR
        if self.kind_of(device) is Kind.DEVICE or named_like_device(device):
            return Kind.DEVICE_TENSOR
        return Kind.TENSOR

    def move_destination(self, node: cst.Call) -> Optional[Kind]:
        """Where `x.cuda()` / `x.to(...)` (of a tensor or a module) puts `x`: DEVICE_TENSOR on an
        accelerator, HOST_TENSOR on the CPU, TENSOR when unknown (a dtype cast, an unknown
        argument); None for any other call."""
        if not isinstance(node.func, cst.Attribute) or node.func.attr.value not in ("cuda", "to"):
            return None
        return self._tensor_method_kind(Kind.TENSOR, node.func.attr.value, node)

    def _tensor_method_kind(self, receiver: Kind, method: str, node: cst.Call) -> Optional[Kind]:
        """The kind a tensor method returns: host after `.cpu()`, on the device after `.cuda()`;
        unknown for a dict method (`model(x).items()`: the receiver was a dict of outputs)."""
        if method in _CONTAINER_METHODS:
            return None
        if method in _TENSOR_NON_TENSOR_METHODS:
            return _TENSOR_NON_TENSOR_METHODS[method]
        if method in ("cpu", "pin_memory"):
            return Kind.HOST_TENSOR
        if method == "cuda":
            return Kind.DEVICE_TENSOR
        if method == "to":
            target = next((arg.value for arg in node.args if arg.keyword is None or arg.keyword.value == "device"), None)
            if target is None or _is_dtype(target):
                return receiver
            return self._placed_on(target)
        return receiver

    def _self_attribute_kind(self, name: str) -> Optional[Kind]:
        """`self.t` is a tensor where the file registers `t` as a buffer, or as a tensor state
        of a metric (`self.add_state("total", default=torch.zeros(1))`), and never binds it
        again (`self.register_buffer("queue_ptr", torch.zeros(1))`: it lives where its module
        does; `self.total += x` updates it in place),
        a host tensor when every assignment to an attribute `t` in the file is
        one (`module.to(device)` moves parameters and buffers, not plain attributes), and a
        module when every one is a module (`self.D = Discriminator()`, `self.D =
        nn.DataParallel(self.D)`). The traversal records the assignments it has seen; the
        file's text says how many there are."""
        if name in self.buffers and not self._rebindings.get(name):
            return Kind.TENSOR  # a registered buffer, never rebound: it moves with its module
        kind, seen = self._attribute_kinds.get(name, (None, 0))
        return kind if seen and seen == self.attribute_assignments.get(name) else None

    def note_attribute(self, name: str, kind: Optional[Kind]) -> None:
        """Record an assignment `self.<name> = value` of the given kind."""
        known, seen = self._attribute_kinds.get(name, (kind, 0))
        if kind in TRACKED_ATTRIBUTE_KINDS and known is kind and seen >= 0:
            self._attribute_kinds[name] = (kind, seen + 1)
        else:
            self._attribute_kinds[name] = (None, -1)  # assigned something else: its kind is unknown

    def _creates_on_host(self, factory: str, node: cst.Call) -> bool:
        if not self.factories_on_host or factory not in HOST_FACTORIES:
            return False
        if any(arg.keyword is not None and arg.keyword.value == "device" or arg.star for arg in node.args):
            return False
        if factory in _LIKE_FACTORIES or factory == "as_tensor":
            return bool(node.args) and self.kind_of(node.args[0].value) in (Kind.HOST_TENSOR, Kind.NDARRAY, Kind.OTHER)
        return True

    def loop_target_kind(self, iterated: cst.BaseExpression) -> Optional[Kind]:
        """Batches from a data loader are host tensors until moved (`for x, y in train_loader`);
        the rows of a tensor live where the tensor does (`for x in torch.linspace(...)`)."""
        kind = self.kind_of(iterated)
        if kind in TENSOR_KINDS:
            return kind
        iterated = iterated_source(iterated)
        name = iterated.attr.value if isinstance(iterated, cst.Attribute) else getattr(iterated, "value", "")
        return Kind.HOST_TENSOR if isinstance(name, str) and "loader" in name.lower() else None

    def annotation_kind(self, annotation: cst.BaseExpression) -> Optional[Kind]:
        """The kind named by a type annotation such as `torch.Tensor` or `np.ndarray`."""
        qualified = self.names.qualified_name(annotation)
        if qualified in ("torch.Tensor", "torch.nn.Parameter"):
            return Kind.TENSOR
        if qualified == "numpy.ndarray":
            return Kind.NDARRAY
        if qualified == "torch.nn.Module" or self.is_module_class(annotation):
            return Kind.MODULE
        if isinstance(annotation, cst.Name) and annotation.value in ("int", "float", "bool"):
            return Kind.NUMBER
        return None

    def is_module_class(self, node: cst.BaseExpression) -> bool:
        """Whether `node` names a class of this file that subclasses a torch module."""
        return isinstance(node, cst.Name) and node.value in self.module_classes and self.names.lookup(node.value) == LOCAL

    def note_class(self, node: cst.ClassDef) -> None:
        """Remember classes that subclass a `torch.nn` module class (or Lightning's), directly or via a local subclass."""
        for base in node.bases:
            qualified = self.names.qualified_name(base.value) or ""
            if self.is_module_class(base.value) or lightning_class(qualified, "LightningModule") or (
                qualified.startswith("torch.nn.") and qualified.split(".")[-1][:1].isupper()
            ):
                self.module_classes.add(node.name.value)
                return


def _is_dtype(node: cst.BaseExpression) -> bool:
    """`torch.float16`, `torch.long` and the like."""
    return (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.attr.value.startswith(_DTYPE_PREFIXES)
    )


_DTYPE_PREFIXES = ("float", "half", "bfloat", "int", "long", "bool", "double", "uint", "complex", "short", "cfloat")


def _is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def _parameters_of(scope: Scope, name: str) -> FrozenSet[Parameter]:
    """The open parameters `name` stands for in `scope`: itself, or those its value was
    computed from (`Scope.derived`)."""
    if name in scope.open_parameters:
        return frozenset({(scope.node, name)})
    return scope.derived.get(name, frozenset())


def _combine(left: Optional[Kind], right: Optional[Kind]) -> Optional[Kind]:
    if Kind.DEVICE_TENSOR in (left, right):
        return Kind.DEVICE_TENSOR
    if Kind.TENSOR in (left, right):
        return Kind.TENSOR
    if Kind.HOST_TENSOR in (left, right):
        other = right if left is Kind.HOST_TENSOR else left
        return Kind.HOST_TENSOR if other in (Kind.HOST_TENSOR, Kind.NUMBER) else None
    if Kind.NDARRAY in (left, right):
        return Kind.NDARRAY
    if left is Kind.NUMBER and right is Kind.NUMBER:
        return Kind.NUMBER
    return None
