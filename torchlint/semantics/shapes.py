"""What the file shows about the number of dimensions of a tensor."""

from __future__ import annotations

from typing import List, Optional

import libcst as cst

from torchlint.semantics.bindings import attribute_assignments, reaching_values
from torchlint.semantics.calls import positional
from torchlint.semantics.facts import FileFacts
from torchlint.semantics.names import dotted_name
from torchlint.semantics.values import assigned_values
from torchlint.semantics.tree import descendants as descendants_of

# Factories whose positional arguments are the sizes (`torch.randn(d)` is one-dimensional).
SIZED = frozenset({"empty", "zeros", "ones", "rand", "randn"})
# Factories that always make one dimension.
VECTORS = frozenset({"arange", "linspace", "logspace", "randperm"})
# Factories that copy their data argument (`torch.tensor([0.0, -1e4])` is one-dimensional).
LITERAL_MAKERS = frozenset({"tensor", "as_tensor"})
PARAMETERS = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})
MAX_DEPTH = 4


def may_be_vector(ctx: FileFacts, expression: cst.BaseExpression, function: Optional[cst.FunctionDef], depth: int = 0) -> bool:
    """Whether a value the file gives `expression` is made one-dimensional: a factory with one
    size (`torch.randn(d)`, `torch.arange(n)`) or of a flat list literal (`torch.tensor([0, 1])`), also wrapped in `nn.Parameter(...)`, reached
    through the names (`q = self.query`) and attributes (`self.query = nn.Parameter(...)`)
    the file assigns it. A learned query vector pooling a set of keys is the usual case."""
    if depth > MAX_DEPTH:
        return False
    if isinstance(expression, cst.Name):
        values = reaching_values(ctx.module, function, expression.value) or []
    elif isinstance(expression, cst.Attribute) and dotted_name(expression) is not None:
        values = [value for value in attribute_assignments(ctx.module, dotted_name(expression) or "") if value is not None]
    elif isinstance(expression, cst.Call):
        qualified = ctx.qualified_name(expression.func) or ""
        args = positional(expression)
        if qualified in PARAMETERS:
            return bool(args) and may_be_vector(ctx, args[0].value, function, depth + 1)
        family, _, name = qualified.rpartition(".")
        if family != "torch" or any(arg.star for arg in expression.args):
            return False
        if name in VECTORS:
            return True
        if name in LITERAL_MAKERS:  # `torch.tensor([0, 0, 1])`: a flat list literal
            return bool(args) and isinstance(args[0].value, (cst.List, cst.Tuple)) and not any(
                isinstance(element.value, (cst.List, cst.Tuple, cst.ListComp)) for element in args[0].value.elements
            )
        return name in SIZED and len(args) == 1 and not isinstance(args[0].value, (cst.Tuple, cst.List))
    else:
        return False
    return any(may_be_vector(ctx, value, function, depth + 1) for value in values)


def varies_along_last_axis(ctx: FileFacts, expression: cst.BaseExpression) -> bool:
    """Whether the file makes a tensor that an attribute in `expression` reads (`self.temp` in
    `self.temp.exp()`) with a last dimension that may hold more than one value: a value it
    assigns the attribute or registers under its name (`self.register_buffer("decay", ...)`)
    made by a factory of one dimension (`nn.Parameter(torch.linspace(1.0, 2.0, keys))`), of
    sizes whose last is not 1 (`torch.ones(heads, 1, 1)` is constant along it), of a list
    literal, or computed from such a value (`0.9 ** (pos[:, None] - pos[None, :]).abs()` with
    `pos = torch.arange(n)`). An attribute the file gives no such value says nothing."""
    for item in (expression, *descendants_of(expression)):
        dotted = dotted_name(item) if isinstance(item, cst.Attribute) else None
        if dotted is None or not dotted.startswith("self."):
            continue
        values = attribute_assignments(ctx.module, dotted) + _registered(ctx.module, dotted.partition(".")[2])
        if any(value is not None and _varies(ctx, value) for value in values):
            return True
    return False


def _registered(module: cst.Module, name: str) -> List[Optional[cst.BaseExpression]]:
    """The values `self.register_buffer("name", value)` and `register_parameter` give `name`."""
    return [
        node.args[1].value for node in descendants_of(module)
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in ("register_buffer", "register_parameter")
        and len(node.args) > 1 and isinstance(node.args[0].value, cst.SimpleString) and node.args[0].value.evaluated_value == name
    ]


def _varies(ctx: FileFacts, value: cst.BaseExpression, depth: int = 0) -> bool:
    """Whether `value` is made with a last dimension of more than one element (see
    `varies_along_last_axis`), following names the file assigns."""
    if depth > 2 * MAX_DEPTH:
        return False
    if isinstance(value, cst.Name):
        return any(_varies(ctx, item, depth + 1) for item in assigned_values(ctx.module, value.value))
    if isinstance(value, (cst.UnaryOperation, cst.Subscript)):
        return _varies(ctx, value.expression if isinstance(value, cst.UnaryOperation) else value.value, depth + 1)
    if isinstance(value, cst.BinaryOperation):
        return _varies(ctx, value.left, depth + 1) or _varies(ctx, value.right, depth + 1)
    if not isinstance(value, cst.Call):
        return False
    qualified = ctx.qualified_name(value.func) or ""
    family, _, name = qualified.rpartition(".")
    args = positional(value)
    if family == "torch" and name in VECTORS:
        return True
    if family == "torch" and name in SIZED:
        sizes = [arg.value for arg in args]
        if len(sizes) == 1 and isinstance(sizes[0], (cst.List, cst.Tuple)):
            sizes = [element.value for element in sizes[0].elements]
        return bool(sizes) and not (isinstance(sizes[-1], cst.Integer) and sizes[-1].value == "1")
    if family == "torch" and name in LITERAL_MAKERS:
        return bool(args) and isinstance(args[0].value, (cst.List, cst.Tuple)) and len(args[0].value.elements) > 1
    receiver = [value.func.value] if isinstance(value.func, cst.Attribute) and not family.startswith(("torch", "numpy")) else []
    return any(_varies(ctx, item, depth + 1) for item in [*receiver, *(arg.value for arg in value.args)])
