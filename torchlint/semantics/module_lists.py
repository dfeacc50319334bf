"""Layers held in `nn.ModuleList`s and applied by position: `self.bns[i](self.fcs[i](h))`.

A class that builds `self.fcs = nn.ModuleList()` and appends to it knows the index of each
layer appended in the block that made the list, up to the first one appended in a loop or a
nested block. A loop whose first pass takes element 0 of two lists and runs one's output
straight into the other (`for i in range(n)`, `for i, lin in enumerate(self.lins[:-1])`,
`for conv, bn in zip(self.convs, self.bns)`; in one call, `self.bns[i](lin(x))`, or in two
statements, `x = lin(x)` then `x = self.bns[i](x)`) runs element 0 of the one straight into
element 0 of the other whenever the loop runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import libcst as cst

from torchlint.semantics.calls import method_call
from torchlint.semantics.tree import descendants, names_bound_by

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
    """(first, second) for each loop of the class whose pass over position `i` runs element `i`
    of `self.<first>` straight into element `i` of `self.<second>`, from position 0."""
    pairs: List[Tuple[str, str]] = []
    for loop in descendants(klass):
        if not isinstance(loop, cst.For):
            continue
        positions = _loop_positions(loop)
        if positions is None:
            continue
        element = _Elements(*positions)
        for node in descendants(loop.body):
            if isinstance(node, cst.Call) and len(node.args) == 1:
                pair = (element.of(node.args[0].value), element.of(node))
                if None not in pair:
                    pairs.append(pair)  # type: ignore[arg-type]
            if isinstance(node, cst.IndentedBlock):
                pairs += _consecutive_pairs(list(node.body), element)
    return pairs


@dataclass(frozen=True)
class _Elements:
    """What names the current position of a loop over module lists: its index (`i` of
    `self.bns[i]`) and the names the loop binds to elements (`lin` of `enumerate(self.lins)`)."""

    index: Optional[str]
    aliases: Dict[str, str]

    def of(self, call: cst.BaseExpression) -> Optional[str]:
        """The list whose current element `call` calls with one argument, if any."""
        if not (isinstance(call, cst.Call) and len(call.args) == 1):
            return None
        func = call.func
        if isinstance(func, cst.Name):
            return self.aliases.get(func.value)
        if self.index is None or not (isinstance(func, cst.Subscript) and len(func.slice) == 1):
            return None
        element = func.slice[0].slice
        if not (isinstance(element, cst.Index) and isinstance(element.value, cst.Name) and element.value.value == self.index):
            return None
        return _attribute(func.value)


def _loop_positions(loop: cst.For) -> Optional[Tuple[Optional[str], Dict[str, str]]]:
    """The index and element names of a loop that starts at position 0 of the module lists
    it walks: `for i in range(n)`, `for i, lin in enumerate(self.lins[:-1])`, `for a, b in
    zip(self.a, self.b)`; None for any other loop or one whose body rebinds those names."""
    iterated, target = loop.iter, loop.target
    index: Optional[str] = None
    aliases: Dict[str, str] = {}
    if _called(iterated, "range") and len(iterated.args) == 1 and isinstance(target, cst.Name):  # type: ignore[attr-defined]
        index = target.value
    elif _called(iterated, "enumerate") and len(iterated.args) == 1 and _pair_of_names(target):
        index, alias = (element.value.value for element in target.elements)  # type: ignore[attr-defined]
        listed = _list_from_start(iterated.args[0].value)  # type: ignore[attr-defined]
        if listed is None:
            return None
        aliases[alias] = listed
    elif _called(iterated, "zip") and isinstance(target, cst.Tuple) and len(target.elements) == len(iterated.args):  # type: ignore[attr-defined]
        for element, arg in zip(target.elements, iterated.args):  # type: ignore[attr-defined]
            listed = _list_from_start(arg.value) if not (arg.star or arg.keyword) else None
            if isinstance(element.value, cst.Name) and listed is not None:
                aliases[element.value.value] = listed
    else:
        return None
    bound = {name for node in descendants(loop.body) for name in names_bound_by(node)}
    if bound & {index, *aliases}:
        return None
    return index, aliases


def _called(node: cst.BaseExpression, name: str) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == name


def _pair_of_names(target: cst.BaseExpression) -> bool:
    return isinstance(target, cst.Tuple) and len(target.elements) == 2 and all(isinstance(e.value, cst.Name) for e in target.elements)


def _list_from_start(node: cst.BaseExpression) -> Optional[str]:
    """`name` for `self.<name>` or a slice of it that starts at 0 (`self.<name>[:-1]`)."""
    if isinstance(node, cst.Subscript) and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Slice):
        part = node.slice[0].slice
        start = part.lower
        if part.step is not None or not (start is None or (isinstance(start, cst.Integer) and start.value == "0")):
            return None
        node = node.value
    return _attribute(node)


def _consecutive_pairs(body: List[cst.BaseStatement], element: _Elements) -> List[Tuple[str, str]]:
    """(first, second) for `x = <element of first>(...)` directly followed by a statement that
    takes `x` as the only argument of the current element of `second`."""
    pairs: List[Tuple[str, str]] = []
    for index, statement in enumerate(body):
        small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 else None
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name)):
            continue
        first = element.of(small.value)
        consumer = next_consumer(body, index, small.targets[0].target.value)
        second = element.of(consumer) if consumer is not None else None
        if first is not None and second is not None:
            pairs.append((first, second))
    return pairs


def rows_view(node: cst.BaseExpression) -> Optional[Tuple[cst.BaseExpression, cst.BaseExpression]]:
    """(`x`, `n`) for `x.view(-1, n)` or `x.reshape(-1, n)`: the rows of `n` features of `x`,
    whose last axis keeps its features when it has `n` of them."""
    found = method_call(node)
    if found is None or found[1] not in ("view", "reshape") or len(node.args) != 2:  # type: ignore[attr-defined]
        return None
    first, size = (arg.value for arg in node.args)  # type: ignore[attr-defined]
    if any(arg.keyword or arg.star for arg in node.args):  # type: ignore[attr-defined]
        return None
    if not (isinstance(first, cst.UnaryOperation) and isinstance(first.operator, cst.Minus) and isinstance(first.expression, cst.Integer) and first.expression.value == "1"):
        return None
    return found[0], size


def same_size(first: cst.BaseExpression, second: cst.BaseExpression) -> bool:
    """Whether two size expressions are written alike, the factors of a product in any order
    (`2*self.width` and `self.width * 2`)."""
    return _canonical(first) == _canonical(second)


def _canonical(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
        return "*".join(sorted((_canonical(node.left), _canonical(node.right))))
    return cst.Module([]).code_for_node(node.with_changes(lpar=[], rpar=[]) if hasattr(node, "lpar") else node).replace(" ", "")


def next_consumer(body: Sequence[cst.CSTNode], index: int, variable: str) -> Optional[cst.Call]:
    """For `variable = ...` at `body[index]`, the call of the next statement that takes
    `variable` as its only argument, maybe as rows (`variable.view(-1, n)`, see `rows_view`),
    and is its only reader: `variable = f(variable)` (also `f(variable).view(...)`), `return
    f(variable)`, or `w = f(variable)` with `variable` not read again in the block."""
    following = body[index + 1] if index + 1 < len(body) else None
    if not isinstance(following, cst.SimpleStatementLine) or len(following.body) != 1:
        return None
    statement = following.body[0]
    if not isinstance(statement, (cst.Assign, cst.Return)) or not isinstance(statement.value, cst.Call):
        return None
    call = _innermost_taker(statement.value, variable)
    if call is None:
        return None
    rebinds = isinstance(statement, cst.Assign) and any(isinstance(t.target, cst.Name) and t.target.value == variable for t in statement.targets)
    if not rebinds and not isinstance(statement, cst.Return) and _mentions(body[index + 2 :], variable):
        return None
    return call


def _innermost_taker(value: cst.Call, variable: str) -> Optional[cst.Call]:
    """The call of `value` that takes `variable` as its only argument (maybe as rows), when
    `value` reads `variable` there only: `value` itself, or the call that makes its first
    argument, followed inwards (`F.relu(self.bn(v))`: the norm takes `v`, whatever is done
    with its output afterwards)."""
    call: Optional[cst.BaseExpression] = value
    while isinstance(call, cst.Call):
        while isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Call):
            call = call.func.value  # what the consumer's output is made into next does not matter: `self.bn(v).view(n, m, c)`
        taken = call.args[0].value if len(call.args) == 1 else None
        rows = rows_view(taken) if taken is not None else None
        taken = rows[0] if rows is not None else taken
        if isinstance(taken, cst.Name) and taken.value == variable:
            return call if call is value or _reads(value, variable) == _reads(call, variable) else None
        call = call.args[0].value if call.args and not call.args[0].star and call.args[0].keyword is None else None
    return None


def _reads(node: cst.CSTNode, name: str) -> int:
    return sum(isinstance(item, cst.Name) and item.value == name for item in descendants(node))


def _mentions(statements: Sequence[cst.CSTNode], name: str) -> bool:
    return any(isinstance(node, cst.Name) and node.value == name for statement in statements for node in descendants(statement))


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
