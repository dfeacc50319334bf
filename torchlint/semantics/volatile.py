"""Inputs that record no graph in old PyTorch: `Variable(x, volatile=True)`.

Before PyTorch 0.4, `volatile=True` was how inference turned autograd off: every result
computed from a volatile input is volatile and records no graph, so a module run on one needs
no `no_grad` (which did not exist yet). From 0.4 on the flag is ignored (with a warning), so
it counts only in a file written for the old versions (`written_for_legacy_autograd`)."""

from __future__ import annotations

from typing import Callable, Dict, Optional, Set

import libcst as cst

from torchlint.semantics.tree import descendants, nodes_of_type, per_module

VARIABLE = frozenset({"torch.autograd.Variable", "torch.autograd.variable.Variable"})

Qualify = Callable[[cst.BaseExpression], Optional[str]]


def is_volatile(node: cst.BaseExpression, qualify: Qualify) -> bool:
    """`Variable(x, volatile=True)` (torch's `Variable`, however imported)."""
    if not isinstance(node, cst.Call) or qualify(node.func) not in VARIABLE:
        return False
    return any(
        arg.keyword is not None and arg.keyword.value == "volatile" and isinstance(arg.value, cst.Name) and arg.value.value == "True"
        for arg in node.args
    )


def assigned_volatility(node: cst.Assign, qualify: Qualify) -> Dict[str, bool]:
    """For each name `node` binds, whether it is bound to a volatile variable: `x =
    Variable(x, volatile=True)`, also one element of a tuple assignment (`data, target =
    Variable(data, volatile=True), Variable(target)`). Read in source order, the latest
    binding of a name says whether it is volatile."""
    found: Dict[str, bool] = {}
    for target in node.targets:
        pairs = [(target.target, node.value)]
        if isinstance(target.target, cst.Tuple) and isinstance(node.value, cst.Tuple):
            if len(target.target.elements) == len(node.value.elements):
                pairs = [(left.value, right.value) for left, right in zip(target.target.elements, node.value.elements)]
        for left, right in pairs:
            for name in [left, *descendants(left)]:
                if isinstance(name, cst.Name):
                    found[name.value] = name is left and is_volatile(right, qualify)
    return found


def runs_on_volatile(call: cst.Call, names: Set[str], qualify: Qualify) -> bool:
    """Whether `call` (a module's forward) takes a volatile input, by name or built in place:
    it records no graph."""
    return any((isinstance(arg.value, cst.Name) and arg.value.value in names) or is_volatile(arg.value, qualify) for arg in call.args)


@per_module
def written_for_legacy_autograd(module: cst.Module) -> bool:
    """Whether the file may be written for PyTorch 0.3 or older: it never calls `.item()`
    (new in 0.4, the version that stopped honouring `volatile`; such files read scalars as
    `loss.data[0]`, an error since 0.5)."""
    return not any(node.attr.value == "item" for node in nodes_of_type(module, (cst.Attribute,)))
