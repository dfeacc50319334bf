"""Layers held in `nn.ModuleList`s and applied by index: `self.bns[i](self.fcs[i](h))`.

A class that builds `self.fcs = nn.ModuleList()` and appends to it knows the index of each
layer appended in the block that made the list, up to the first one appended in a loop or a
nested block; the pairs its methods apply by the same index in a loop over `range(n)` run
element 0 of one list straight into element 0 of the other whenever the loop runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, List, Optional, Tuple

import libcst as cst

from torchlint.semantics.calls import method_call
from torchlint.semantics.tree import descendants

MODULE_LIST = "torch.nn.ModuleList"
Qualify = Callable[[cst.BaseExpression], Optional[str]]


@dataclass(frozen=True)
class ListLayers:
    """What a class puts in one `ModuleList` attribute: the leading items whose index is
    known, in order, and every item added anywhere (None for one that is not a call)."""

    indexed: Tuple[cst.Call, ...]
    every: Tuple[Optional[cst.Call], ...]


def module_list_layers(klass: cst.ClassDef, name: str, qualify: Qualify) -> Optional[ListLayers]:
    """The layers of `self.<name>` when the class assigns it once, an `nn.ModuleList` of a list
    literal or of nothing, and changes it only by `append`; None otherwise."""
    assignments = [node for node in descendants(klass) if isinstance(node, cst.Assign) and any(_attribute(t.target) == name for t in node.targets)]
    if len(assignments) != 1 or not isinstance(assignments[0].value, cst.Call) or qualify(assignments[0].value.func) != MODULE_LIST:
        return None
    made = assignments[0].value
    literal = made.args[0].value if len(made.args) == 1 and not made.args[0].keyword else None
    if made.args and not isinstance(literal, cst.List):
        return None
    items = [element.value if isinstance(element, cst.Element) else None for element in (literal.elements if literal else ())]
    indexed = list(items) if all(isinstance(item, cst.Call) for item in items) else []
    appends = [node for node in descendants(klass) if _changes(node, name)]
    if any(not _appends(node) for node in appends):
        return None
    known = _appended_in_block(klass, assignments[0], name)
    if len(indexed) == len(items):
        indexed += known
    every = items + [node.args[0].value for node in appends]
    return ListLayers(tuple(indexed), tuple(item if isinstance(item, cst.Call) else None for item in every))  # type: ignore[arg-type]


def indexed_pairs(klass: cst.ClassDef) -> List[Tuple[str, str]]:
    """(first, second) for each call `self.<second>[i](self.<first>[i](x))` in the class whose
    index `i` is the target of an enclosing `for i in range(n)`: element 0 of `first` runs
    straight into element 0 of `second` whenever the loop runs."""
    pairs: List[Tuple[str, str]] = []
    for loop in descendants(klass):
        if not (isinstance(loop, cst.For) and isinstance(loop.target, cst.Name) and _from_zero(loop.iter)):
            continue
        index = loop.target.value
        for node in descendants(loop.body):
            outer = _indexed_call(node, index)
            if outer is None or len(node.args) != 1:  # type: ignore[attr-defined]
                continue
            inner = _indexed_call(node.args[0].value, index)  # type: ignore[attr-defined]
            if inner is not None and len(node.args[0].value.args) == 1:  # type: ignore[attr-defined]
                pairs.append((inner, outer))
    return pairs


def _indexed_call(node: cst.CSTNode, index: str) -> Optional[str]:
    """`name` for a call `self.<name>[index](...)`."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Subscript) and len(node.func.slice) == 1):
        return None
    element = node.func.slice[0].slice
    if not (isinstance(element, cst.Index) and isinstance(element.value, cst.Name) and element.value.value == index):
        return None
    return _attribute(node.func.value)


def _from_zero(iterated: cst.BaseExpression) -> bool:
    """`range(n)`: a loop whose first index is 0."""
    return isinstance(iterated, cst.Call) and isinstance(iterated.func, cst.Name) and iterated.func.value == "range" and len(iterated.args) == 1


def _attribute(node: cst.BaseExpression) -> Optional[str]:
    """`name` for `self.<name>`."""
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
        return node.attr.value
    return None


def _changes(node: cst.CSTNode, name: str) -> bool:
    """A method call on `self.<name>` (`append`, `extend`, `insert`, ...)."""
    found = method_call(node)
    return found is not None and _attribute(found[0]) == name and found[1] not in ("parameters", "modules", "children", "named_parameters")


def _appends(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Call) and method_call(node)[1] == "append" and len(node.args) == 1 and not node.args[0].keyword and not node.args[0].star  # type: ignore[index]


def _appended_in_block(klass: cst.ClassDef, made: cst.Assign, name: str) -> List[cst.Call]:
    """The layers appended to `self.<name>` by statements of the block that made the list,
    after it, in order, up to the first statement that appends otherwise (in a loop, a branch)."""
    block = next((node for node in descendants(klass) if isinstance(node, cst.IndentedBlock) and any(_holds(s, made) for s in node.body)), None)
    if block is None:
        return []
    statements = list(block.body)
    start = next(i for i, statement in enumerate(statements) if _holds(statement, made))
    found: List[cst.Call] = []
    for statement in statements[start + 1 :]:
        calls = [node for node in descendants(statement) if _changes(node, name)]
        if not calls:
            continue
        small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 else None
        if not (isinstance(small, cst.Expr) and len(calls) == 1 and small.value is calls[0] and isinstance(calls[0].args[0].value, cst.Call)):
            break
        found.append(calls[0].args[0].value)  # type: ignore[arg-type]
    return found


def _holds(statement: cst.CSTNode, small: cst.CSTNode) -> bool:
    """Whether `small` is one of the simple statements of the line `statement`."""
    return isinstance(statement, cst.SimpleStatementLine) and any(item is small for item in statement.body)
