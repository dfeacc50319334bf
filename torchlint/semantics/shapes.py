"""What the file shows about the number of dimensions of a tensor."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torchlint.semantics.bindings import attribute_assignments, reaching_values
from torchlint.semantics.calls import positional
from torchlint.semantics.facts import FileFacts
from torchlint.semantics.names import dotted_name

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
