"""Where a module lives: a module the file builds and never moves stays on the CPU.

`model = Net()` followed by `model(x)`, `model.parameters()` and `model.eval()` only, in a file
that never moves `model` (`.to(...)`, `.cuda()`), never builds it with `device=`, and never
hands it to other code (which may move it: `DDP(model)`, `accelerator.prepare(model)`,
`train(model)`), runs on the CPU however many `device` variables the file defines. A call of
such a module with host inputs returns a host tensor (`values.ValueInference`).
"""

from __future__ import annotations

from typing import Dict, FrozenSet, Iterator, List, Optional, Tuple

import libcst as cst

from torchlint.semantics.names import dotted_name
from torchlint.semantics.tree import children, descendants, per_module

# Methods of a module that neither move it nor hand it to other code.
STAYING_METHODS = frozenset(
    "parameters named_parameters buffers named_buffers children named_children modules named_modules "
    "train eval zero_grad state_dict load_state_dict forward requires_grad_ float double half bfloat16".split()
)
# Builtins that only look at what they are given (`print(model)`).
LOOKING_BUILTINS = frozenset({"print", "repr", "str", "type", "isinstance", "id"})
# Nodes whose `Name` children are labels, not reads of a variable (`f(model=x)`, `def model`).
_LABELS = (cst.FunctionDef, cst.ClassDef, cst.ImportAlias, cst.Global, cst.Nonlocal)
_BINDINGS = (cst.AugAssign, cst.AnnAssign, cst.For, cst.AsName, cst.NamedExpr, cst.Param, cst.CompFor)

Parents = Tuple[Optional[cst.CSTNode], Optional[cst.CSTNode]]


@per_module
def host_modules(module: cst.Module) -> FrozenSet[str]:
    """The plain names that only ever hold a module this file builds in place (`Net(...)`,
    `nn.Linear(...)`, no `device=`, no `**options`, not a method of one of its own variables)
    and that the file only calls, reads through `STAYING_METHODS` or prints. Whether the builds
    are modules is the caller's to know (`ValueInference` asks it of names that hold one)."""
    nodes = list(_with_parents(module))
    assigned = {target.target.value for node, _ in nodes if isinstance(node, cst.Assign) for target in node.targets if isinstance(target.target, cst.Name)}
    stays: Dict[str, bool] = {}
    for node, (parent, grandparent) in nodes:
        if isinstance(node, cst.Assign):
            builds = _builds_in_place(node.value, assigned)
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    stays[target.target.value] = stays.get(target.target.value, True) and builds
        elif isinstance(node, _BINDINGS):
            for name in _names_bound(node):
                stays[name] = False
        elif isinstance(node, cst.Name) and _is_read(node, parent) and not _stays(node, parent, grandparent):
            stays[node.value] = False
    return frozenset(name for name, stays_put in stays.items() if stays_put)


def _builds_in_place(value: cst.BaseExpression, assigned: set) -> bool:
    if not isinstance(value, cst.Call) or dotted_name(value.func) is None:
        return False
    root = value.func
    while isinstance(root, cst.Attribute):
        root = root.value
    if isinstance(value.func, cst.Attribute) and isinstance(root, cst.Name) and root.value in assigned:
        return False  # `net.eval()`, `self.model.to(...)`: a method of a value, maybe moved
    return not any(arg.star or (arg.keyword is not None and arg.keyword.value == "device") for arg in value.args)


def _is_read(node: cst.Name, parent: Optional[cst.CSTNode]) -> bool:
    """Whether the name is read as a variable: not an assignment's target, an attribute's or
    keyword's name, or a definition's."""
    if isinstance(parent, cst.AssignTarget):
        return parent.target is not node
    if isinstance(parent, cst.Attribute):
        return parent.attr is not node
    if isinstance(parent, cst.Arg):
        return parent.value is node
    return not isinstance(parent, _LABELS)


def _stays(node: cst.Name, parent: Optional[cst.CSTNode], grandparent: Optional[cst.CSTNode]) -> bool:
    """A read that runs the module, reads it through a staying method, or prints it."""
    if isinstance(parent, cst.Call):
        return parent.func is node
    if isinstance(parent, cst.Attribute):
        return parent.value is node and parent.attr.value in STAYING_METHODS
    return (
        isinstance(parent, cst.Arg)
        and isinstance(grandparent, cst.Call)
        and isinstance(grandparent.func, cst.Name)
        and grandparent.func.value in LOOKING_BUILTINS
    )


def _names_bound(node: cst.CSTNode) -> List[str]:
    target = node.name if isinstance(node, (cst.AsName, cst.Param)) else getattr(node, "target", None)
    return [item.value for item in descendants(target) if isinstance(item, cst.Name)] if isinstance(target, cst.CSTNode) else []


def _with_parents(module: cst.Module) -> Iterator[Tuple[cst.CSTNode, Parents]]:
    stack: List[Tuple[cst.CSTNode, Parents]] = [(module, (None, None))]
    while stack:
        node, (parent, grandparent) = stack.pop()
        yield node, (parent, grandparent)
        stack.extend((child, (node, parent)) for child in children(node))
