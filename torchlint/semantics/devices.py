"""Device provenance: whether a tensor-valued expression is on an accelerator, on the host,
or unknown.

Evidence for `device`: `.cuda()`, `.to(d)` with `d` not the CPU, factories given a
non-CPU `device=`. Evidence for `host`: factories without `device=`, NumPy conversions,
`.cpu()`, `.to("cpu")` or `.to(self.cpu_device)`, a data-loader batch not yet moved, and
plain tensor attributes of a class assigned only host tensors (`self.t = torch.linspace(...)`
in `__init__`: `module.to(device)` moves parameters and buffers, not plain attributes).
The value inference (`semantics.values`) tracks these as kinds; this module names them.
"""

from __future__ import annotations

import enum
from typing import Callable, Iterable, Optional, Tuple

import libcst as cst

from torchlint.semantics.calls import argument, method_call
from torchlint.semantics.device_names import DEVICE_NAME, DEVICE_STRING
from torchlint.semantics.heuristics import identifier, words
from torchlint.semantics.kinds import HOST_KINDS, Kind
from torchlint.semantics.names import dotted_name



class Placement(enum.Enum):
    DEVICE = "device"
    HOST = "host"
    UNKNOWN = "unknown"


def placement(kind: Optional[Kind]) -> Placement:
    """Where a value of `kind` lives."""
    if kind is Kind.DEVICE_TENSOR:
        return Placement.DEVICE
    if kind in HOST_KINDS:
        return Placement.HOST
    return Placement.UNKNOWN


def names_cpu(node: cst.BaseExpression, literal: Optional[str]) -> bool:
    """`"cpu"`, `"cpu:0"`, `cpu`, `self.cpu_device`, `torch.device("cpu")`: a CPU device."""
    if literal is not None:
        return literal.split(":")[0] == "cpu"
    if isinstance(node, cst.Call) and node.args:
        inner = node.args[0].value
        return isinstance(inner, cst.SimpleString) and inner.value.strip("'\"").split(":")[0] == "cpu" and identifier(node) == "device"
    return "cpu" in words(identifier(node))


def named_like_device(node: cst.BaseExpression) -> bool:
    """`device`, `self.device`, `args.local_rank`, `gpu`: a name that holds a device by convention."""
    dotted = dotted_name(node)
    return dotted is not None and bool(DEVICE_NAME.match(dotted.rsplit(".", 1)[-1]))


# Methods whose result lives where their receiver does (dtype and shape changes, in-place fills,
# in-place writes of other values, `torch.zeros(b, 10).scatter_(1, labels, 1)`, which return
# their receiver, copies and detached views, and MONAI's `MetaTensor.as_tensor()`).
SAME_PLACE_METHODS = frozenset(
    "long int float double half bfloat16 bool byte short view reshape unsqueeze squeeze expand flatten "
    "t transpose permute repeat contiguous fill_ zero_ normal_ uniform_ bernoulli_ random_ exponential_ "
    "scatter_ scatter_add_ index_fill_ index_add_ index_copy_ masked_fill_ masked_scatter_ index_put_ triu tril "
    "tile flip roll repeat_interleave detach clone as_tensor".split()
)
# `torch` functions whose result lives where their input does (`torch.triu(torch.ones(s), 1)`,
# `torch.tile(input=torch.arange(n), dims=(b, 1))`).
SAME_PLACE_FUNCTIONS = frozenset(
    f"torch.{name}" for name in
    "triu tril tile reshape unsqueeze squeeze flatten transpose permute t flip roll repeat_interleave broadcast_to".split()
)
# The dtypes a `.type(torch.uint8)` converts to: a dtype conversion, not a move
# (`.type("torch.cuda.FloatTensor")` and `.type(torch.cuda.FloatTensor)` are moves).
TORCH_DTYPES = frozenset(
    f"torch.{name}" for name in "float float32 float64 double float16 half bfloat16 uint8 int8 int16 short int32 int int64 long bool".split()
)
# The deprecated autograd wrapper, which returns its tensor where it is.
VARIABLE_WRAPPERS = frozenset({"torch.autograd.Variable", "torch.autograd.variable.Variable"})
_ARITHMETIC = (cst.Multiply, cst.Add, cst.Subtract, cst.Divide, cst.FloorDivide, cst.Power)
# How many such steps a value is followed back through.
MAX_CREATION_STEPS = 8


def same_place_source(
    node: cst.BaseExpression,
    qualified_name: Callable[[cst.BaseExpression], Optional[str]],
    kind_of: Callable[[cst.BaseExpression], Optional[Kind]],
) -> Optional[cst.BaseExpression]:
    """The value `node` is made from by host-side steps that keep a tensor where it is: an
    element (`batch["image"]`), a dtype or shape method (`torch.arange(n).long()`,
    `img.view(b, -1)`, `.type(torch.uint8)`), a triangle or another reshaping function
    (`torch.triu(torch.ones(s), 1)`, `torch.tile(input=torch.arange(n), dims=(b, 1))`),
    its negation or complement (`~torch.tril(mask)`),
    arithmetic with a number (`torch.randn(b, d) * scale`), the deprecated `Variable(...)`. None when arithmetic combines two values that may be tensors, or the
    chain is longer than `MAX_CREATION_STEPS`."""
    for _ in range(MAX_CREATION_STEPS):
        if isinstance(node, cst.Subscript):
            node = node.value
        elif isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.BitInvert, cst.Minus)):
            node = node.expression  # `~torch.tril(mask)`, `-torch.ones(n)`
        elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _ARITHMETIC):
            others = [
                side for side in (node.left, node.right)
                if not (isinstance(side, (cst.Integer, cst.Float)) or kind_of(side) is Kind.NUMBER)
            ]
            if len(others) != 1:
                return None
            node = others[0]
        elif isinstance(node, cst.Call) and qualified_name(node.func) in VARIABLE_WRAPPERS | SAME_PLACE_FUNCTIONS:
            given = argument(node, "input", 0) or argument(node, "data", 0)
            if given is None or given.star:
                return None
            node = given.value
        elif _dtype_conversion(node, qualified_name):
            node = node.func.value  # type: ignore[attr-defined]
        elif isinstance(node, cst.Call) and (method_call(node) or (None, ""))[1] in SAME_PLACE_METHODS:
            node = method_call(node)[0]  # type: ignore[index]
        else:
            return node
    return None


def _dtype_conversion(node: cst.BaseExpression, qualified_name: Callable[[cst.BaseExpression], Optional[str]]) -> bool:
    """`t.type(torch.uint8)`: a conversion to a dtype, which keeps the tensor where it is."""
    found = method_call(node)
    if found is None or found[1] != "type" or len(node.args) != 1 or node.args[0].keyword is not None:  # type: ignore[attr-defined]
        return False
    return qualified_name(node.args[0].value) in TORCH_DTYPES  # type: ignore[attr-defined]


# The legacy typed constructors of host tensors (`torch.cuda.FloatTensor` is on the device);
# `torch.Tensor(b, 1)` is the one of the default dtype.
LEGACY_HOST_TENSORS = frozenset(
    f"torch.{kind}Tensor" for kind in ("", "Float", "Double", "Half", "BFloat16", "Long", "Int", "Short", "Char", "Byte", "Bool")
)


def legacy_sized_constructor(call: cst.Call, qualified: Optional[str]) -> bool:
    """`torch.FloatTensor(b, 1, 1, 1)`, `torch.BoolTensor(x.size())`: a legacy typed constructor
    given a size (it allocates an uninitialised host tensor), not data (`torch.LongTensor(ids)`,
    whose copy from the host a device constructor would make as well). A size is two or more
    positional numbers, or one `x.size()`, `x.shape` or integer literal."""
    if qualified not in LEGACY_HOST_TENSORS or any(arg.keyword is not None or arg.star for arg in call.args):
        return False
    if len(call.args) > 1:
        return not any(isinstance(arg.value, (cst.List, cst.Tuple, cst.ListComp)) for arg in call.args)
    if len(call.args) != 1:
        return False
    value = call.args[0].value
    found = method_call(value)
    return (
        isinstance(value, cst.Integer)
        or (found is not None and found[1] == "size" and not value.args)  # type: ignore[union-attr]
        or (isinstance(value, cst.Attribute) and value.attr.value == "shape")
    )


CUDA_AVAILABLE = "torch.cuda.is_available"


def in_cpu_only_branch(path: Iterable[Tuple[cst.CSTNode, cst.CSTNode]], qualified_name: Callable[[cst.BaseExpression], Optional[str]]) -> bool:
    """Whether the code at the end of `path` ((ancestor, child) pairs, innermost first) runs
    only without CUDA: in the `else` of `if torch.cuda.is_available():` or of `if x.is_cuda:`,
    or in the body of their negation; in the body of a test that a device is another one
    (`if logits.device.type == "mps":`, `if device == "cpu":`) or the `else` of a test that it
    is CUDA (`if x.device.type == "cuda":`). Nothing there is on a GPU to synchronise with."""
    for ancestor, child in path:
        if not isinstance(ancestor, cst.If) or child not in (ancestor.body, ancestor.orelse):
            continue
        test, negated = ancestor.test, False
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            test, negated = test.expression, True
        asks_cuda = (isinstance(test, cst.Call) and not test.args and qualified_name(test.func) == CUDA_AVAILABLE) or (
            isinstance(test, cst.Attribute) and test.attr.value == "is_cuda"
        )
        if not asks_cuda:
            asked = _device_type_test(test)
            if asked is None:
                continue
            asks_cuda, negated = asked[0], negated != asked[1]
            if not asks_cuda:  # `== "mps"`: the body runs on that device only
                asks_cuda, negated = True, not negated
        if (child is ancestor.body) == negated:
            return True
    return False


def _device_type_test(test: cst.BaseExpression) -> Optional[Tuple[bool, bool]]:
    """For `device.type == "mps"`, `x.device.type != "cuda"`, `str(device) == "cpu"` or
    `device == "cuda:0"` (a device, its type or text against a string literal): whether the
    literal names CUDA, and whether the test is a `!=`. None for any other test."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return None
    comparison = test.comparisons[0]
    if not isinstance(comparison.operator, (cst.Equal, cst.NotEqual)):
        return None
    sides = (test.left, comparison.comparator)
    literal = next((side.evaluated_value for side in sides if isinstance(side, cst.SimpleString)), None)
    other = next((side for side in sides if not isinstance(side, cst.SimpleString)), None)
    if not isinstance(literal, str) or other is None:
        return None
    if isinstance(other, cst.Call) and isinstance(other.func, cst.Name) and other.func.value == "str" and len(other.args) == 1:
        other = other.args[0].value
    if isinstance(other, cst.Attribute) and other.attr.value == "type":
        other = other.value
    if not named_like_device(other) or not DEVICE_STRING.match(literal):
        return None
    return literal.split(":")[0] == "cuda", isinstance(comparison.operator, cst.NotEqual)
