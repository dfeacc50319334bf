"""Losses known by what the code does with them: the name a function calls autograd's
`.backward()` on is a tensor, whatever function computed it.

`loss = loss_func(outputs, targets)` with `loss_func` chosen at run time gives no kind to
`loss`, but `loss.backward()` in the same function shows it is a tensor that carries a graph.
Only a name the function assigns once counts: a second assignment (`loss = loss.item()`) may
hold something else where it is read. Rules that offer no fix ask this; a fix needs the value's
kind as the value inference gives it.
"""

from __future__ import annotations

from typing import FrozenSet, Optional

import libcst as cst

from torchlint.semantics.bindings import reaching_values
from torchlint.semantics.tree import per_module, scope_descendants

# The keywords of `Tensor.backward()`.
BACKWARD_KEYWORDS = frozenset({"gradient", "retain_graph", "create_graph", "inputs"})


def backward_receiver(module: cst.Module, function: Optional[cst.FunctionDef], name: str) -> bool:
    """Whether `function` (None: the module's top level) calls autograd's `.backward()` on
    `name` and assigns `name` once (a plain assignment), so that the name holds that tensor
    wherever the scope reads it."""
    if name not in _receivers(module, function):
        return False
    values = reaching_values(module, function, name)
    return values is not None and len(values) == 1


@per_module
def _receivers(module: cst.Module, function: Optional[cst.FunctionDef]) -> FrozenSet[str]:
    """The names `function` (None: the top level) calls `.backward()` on as autograd's: no positional argument and
    only its keywords (not `accelerator.backward(loss)`, nor a hand-written `self.backward(x)`)."""
    return frozenset(
        item.func.value.value
        for item in scope_descendants(function.body if function is not None else module)
        if isinstance(item, cst.Call)
        and isinstance(item.func, cst.Attribute)
        and item.func.attr.value == "backward"
        and isinstance(item.func.value, cst.Name)
        and item.func.value.value not in ("self", "cls")
        and all(arg.keyword is not None and arg.keyword.value in BACKWARD_KEYWORDS for arg in item.args)
    )
