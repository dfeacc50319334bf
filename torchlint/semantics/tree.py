"""Reading the tree without LibCST's visitor machinery: child nodes straight from the fields."""

from __future__ import annotations

import bisect
import collections.abc
import dataclasses
import functools
import typing
from collections import OrderedDict
from contextlib import contextmanager
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, TypeVar

import libcst as cst

_SKIPPED_FIELDS = frozenset(
    "lpar rpar comma leading_lines lines_after_decorators header footer semicolon equal star dot "
    "colon operator newline trailing_whitespace lbracket rbracket lbrace rbrace asynchronous "
    "whitespace_after_star whitespace_after_at".split()
)
# How a field holds child nodes, from its annotation: always one node, a node or None, a
# sequence of nodes, or anything (checked value by value).
_NODE, _OPTIONAL, _SEQUENCE, _ANY = range(4)
_FIELDS: Dict[type, Tuple[Tuple[str, int], ...]] = {}
F = TypeVar("F", bound=Callable[..., Any])


def _child_fields(cls: type) -> Tuple[Tuple[str, int], ...]:
    """The fields of a node class that may hold child nodes, with how they hold them; fields
    that hold only text or flags (`Name.value`) are left out."""
    fields = _FIELDS.get(cls)
    if fields is None:
        try:
            hints = typing.get_type_hints(cls)
        except Exception:  # an annotation that does not resolve: read every value
            hints = {}
        fields = tuple(
            (f.name, kind)
            for f in dataclasses.fields(cls)
            if f.name not in _SKIPPED_FIELDS and not f.name.startswith("whitespace")
            for kind in [_field_kind(hints.get(f.name))]
            if kind is not None
        )
        _FIELDS[cls] = fields
    return fields


def _field_kind(annotation: Any) -> Optional[int]:
    """How a field annotated `annotation` holds nodes; None if it never does."""
    if isinstance(annotation, type):
        return _NODE if issubclass(annotation, cst.CSTNode) else None
    origin, arguments = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Literal:
        return None
    if origin is collections.abc.Sequence:
        return _SEQUENCE
    if origin is typing.Union:
        kinds = {_field_kind(argument) for argument in arguments if argument is not type(None)}
        if kinds == {None}:
            return None
        if kinds == {_NODE}:
            return _OPTIONAL if type(None) in arguments else _NODE
    return _ANY


# While a file is analysed (`remembering_children`): the children of each node read so far, by
# node id, and the nodes themselves (held, so that no other object takes their ids meanwhile).
_REMEMBERED: Optional[Dict[int, List[cst.CSTNode]]] = None
_HELD: List[cst.CSTNode] = []


@contextmanager
def remembering_children() -> Iterator[None]:
    """Keep each node's children once read, until the block ends. The analysis of a file reads
    most nodes' children several times (the traversal, whole-module facts, walks of functions
    and loops); LibCST's nodes never change. Callers must not change the lists returned."""
    global _REMEMBERED
    outermost = _REMEMBERED is None
    if outermost:
        _REMEMBERED = {}
    try:
        yield
    finally:
        if outermost:
            _REMEMBERED.clear()  # a walk still under way (`_known_children`) reads them anew
            _REMEMBERED = None
            _HELD.clear()


_NOTHING_KNOWN: Dict[int, List[cst.CSTNode]] = {}


def _known_children() -> Dict[int, List[cst.CSTNode]]:
    """The children remembered so far by node id, for walks that read most of them from it
    without a call of `children` per node (which they make for the others)."""
    return _REMEMBERED if _REMEMBERED is not None else _NOTHING_KNOWN


def children(node: cst.CSTNode) -> List[cst.CSTNode]:
    """The semantically relevant child nodes of `node`, in field order."""
    remembered = _REMEMBERED
    if remembered is None:
        return _children(node)
    found = remembered.get(id(node))
    if found is None:
        found = remembered[id(node)] = _children(node)
        _HELD.append(node)
    return found


def _children(node: cst.CSTNode) -> List[cst.CSTNode]:
    result: List[cst.CSTNode] = []
    for name, how in _child_fields(type(node)):
        value = getattr(node, name)
        if how is _NODE:
            result.append(value)
        elif how is _SEQUENCE:
            result.extend(value)
        elif how is _OPTIONAL:
            if value is not None:
                result.append(value)
        elif type(value) is tuple or type(value) is list:
            result.extend(item for item in value if _is_node_type(type(item)))
        elif _is_node_type(type(value)):
            result.append(value)
    return result


_NODE_TYPES: Dict[type, bool] = {}


def _is_node_type(kind: type) -> bool:
    """`issubclass(kind, cst.CSTNode)`, answered once per type: LibCST's node classes are
    abstract base classes, whose `isinstance` checks cost more than a dictionary look-up."""
    known = _NODE_TYPES.get(kind)
    if known is None:
        known = _NODE_TYPES[kind] = issubclass(kind, cst.CSTNode)
    return known


COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)
# Calls that iterate the items of their first argument: `enumerate(loader)`, `tqdm(loader)`.
ITERATION_WRAPPERS = frozenset({"enumerate", "sorted", "reversed", "list", "tuple", "tqdm", "iter", "zip", "islice"})
# Those also called through their module: `tqdm.tqdm(loader)`, `itertools.islice(loader, n)`.
MODULE_ITERATION_WRAPPERS = frozenset({"tqdm", "islice"})


def iterated_source(iterated: cst.BaseExpression) -> cst.BaseExpression:
    """What a loop really iterates: `loader` for `enumerate(tqdm(loader))`, also for `tqdm(loader)
    if is_master else loader`, whose branches iterate the same value."""
    while isinstance(iterated, cst.Call) and iterated.args and wrapper_name(iterated.func) in ITERATION_WRAPPERS:
        iterated = iterated.args[0].value
    if isinstance(iterated, cst.IfExp):
        body, orelse = iterated_source(iterated.body), iterated_source(iterated.orelse)
        if body.deep_equals(orelse):
            return body
    return iterated


def wrapper_name(func: cst.BaseExpression) -> Optional[str]:
    """`tqdm` for `tqdm` and `tqdm.tqdm`: the name of a call that may wrap an iterable."""
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute) and func.attr.value in MODULE_ITERATION_WRAPPERS:
        return func.attr.value
    return None


def iterated_parts(iterated: cst.BaseExpression, target: cst.BaseExpression) -> List[Tuple[cst.BaseExpression, cst.BaseExpression]]:
    """Each source a loop draws items from, with the part of its target bound to those items:
    `for (x, y), (u, v) in zip(a, b)` gives (a, `(x, y)`) and (b, `(u, v)`); `for i, batch in
    enumerate(loader)` gives (loader, `batch`). A target that does not unpack a `zip` element by
    element is bound to every source's items."""
    while isinstance(iterated, cst.Call) and iterated.args and wrapper_name(iterated.func) is not None:
        wrapper = wrapper_name(iterated.func)
        if wrapper not in ITERATION_WRAPPERS:
            break
        elements = target.elements if isinstance(target, (cst.Tuple, cst.List)) else None
        if elements is not None and any(isinstance(element, cst.StarredElement) for element in elements):
            elements = None
        if wrapper == "zip":
            sources = [arg.value for arg in iterated.args]
            if elements is None or len(elements) != len(sources) or any(arg.star or arg.keyword for arg in iterated.args):
                return [(iterated_source(source), target) for source in sources]
            return [part for source, element in zip(sources, elements) for part in iterated_parts(source, element.value)]
        if wrapper == "enumerate" and elements is not None and len(elements) == 2:
            target = elements[1].value
        iterated = iterated.args[0].value
    return [(iterated, target)]


def descendants(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`node` and every node below it (order unspecified)."""
    known = _known_children()
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        below = known.get(id(current))
        stack.extend(children(current) if below is None else below)


def in_source_order(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`node` and every node below it, in source order (parents before their children)."""
    known = _known_children()
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        below = known.get(id(current))
        stack.extend(reversed(children(current) if below is None else below))


def comments(node: cst.CSTNode) -> List[str]:
    """Every comment inside `node`, including those in whitespace the walker skips."""
    found: List[str] = []
    stack: List[object] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, cst.Comment):
            found.append(current.value)
        elif isinstance(current, cst.CSTNode):
            stack.extend(getattr(current, name) for name in _field_names(type(current)))
        elif isinstance(current, (list, tuple)):
            stack.extend(current)
    return sorted(found)


@functools.lru_cache(maxsize=None)
def _field_names(cls: type) -> Tuple[str, ...]:
    """The names of every field of a node class (`dataclasses.fields` builds them on each call)."""
    return tuple(field.name for field in dataclasses.fields(cls))


NESTED_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda, *COMPREHENSIONS)
# The same classes for a test of a node's exact type (LibCST does not subclass them), which
# costs less than `isinstance` against several classes on the hottest walks.
_NESTED_SCOPE_TYPES = frozenset(NESTED_SCOPES)


def scope_descendants(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """`node` and the nodes below it that run in its scope: nested functions, classes,
    lambdas and comprehensions are skipped."""
    known = _known_children()
    yield node
    stack = list(children(node))
    while stack:
        current = stack.pop()
        if type(current) in _NESTED_SCOPE_TYPES:
            continue
        yield current
        below = known.get(id(current))
        stack.extend(children(current) if below is None else below)



def comprehension_walruses(node: cst.CSTNode) -> Iterator[cst.NamedExpr]:
    """The `:=` expressions inside the comprehensions that run in `node`'s scope (nested
    comprehensions included, not functions, classes or lambdas): `[d for d in xs if (device
    := d)]` binds `device` in the enclosing scope, not in the comprehension."""
    for scoped in scope_descendants(node):
        for child in children(scoped):
            if isinstance(child, COMPREHENSIONS):
                stack: List[cst.CSTNode] = [child]
                while stack:
                    current = stack.pop()
                    if isinstance(current, cst.NamedExpr):
                        yield current
                    if not isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                        stack.extend(children(current))

BINDING_NODES = (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For, cst.AsName, cst.NamedExpr)
# Capture patterns of a `match` case: `case {"device": device}`, `case [first, *rest]`,
# `case {**rest}` bind names as an assignment does.
MATCH_CAPTURES = (cst.MatchAs, cst.MatchStar, cst.MatchMapping)


def names_bound_by(node: cst.CSTNode) -> List[str]:
    """The plain names `node` binds when it is an assignment target, `x += 1`, `x: int = 1`,
    a `for` loop, an `as` clause, `x := 1` or a capture pattern of `match`; [] for any other node."""
    if isinstance(node, MATCH_CAPTURES):
        captured = node.rest if isinstance(node, cst.MatchMapping) else node.name
        return [captured.value] if isinstance(captured, cst.Name) else []
    if not isinstance(node, BINDING_NODES):
        return []
    target = node.name if isinstance(node, cst.AsName) else node.target
    return bound_names(target)  # type: ignore[arg-type]


def parameter_names(params: cst.Parameters) -> List[str]:
    """The names a function's or lambda's parameters bind, `*args` and `**kwargs` included."""
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    every += [star for star in (params.star_arg, params.star_kwarg) if isinstance(star, cst.Param)]
    return [param.name.value for param in every]


def bound_names(target: cst.BaseExpression) -> List[str]:
    """The plain names an assignment target binds: `x`, `(x, y)`, `[a, *rest]`; not `a.b` or `a[0]`."""
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [name for element in target.elements for name in bound_names(element.value)]
    if isinstance(target, cst.StarredElement):
        return bound_names(target.value)
    return []


# The whole-module facts of the modules analysed last, by id (with the module itself: ids of
# dropped trees are reused). A file is analysed at a time; the fixer re-parses a few times.
_MODULE_FACTS: "OrderedDict[int, Tuple[cst.CSTNode, Dict[Any, Any]]]" = OrderedDict()
MODULES_REMEMBERED = 4


def per_module(function: F) -> F:
    """Memoise a whole-module fact `function(module, *args)` (hashable `args`): a question about
    the whole file (who reads `.bias`, which functions compute gradients) is answered by one
    walk of the module, then looked up for every finding that asks it."""

    @functools.wraps(function)
    def memoised(module: cst.CSTNode, *args: Any) -> Any:
        entry = _MODULE_FACTS.get(id(module))
        if entry is None or entry[0] is not module:
            entry = _MODULE_FACTS[id(module)] = (module, {})
            while len(_MODULE_FACTS) > MODULES_REMEMBERED:
                _MODULE_FACTS.popitem(last=False)
        facts = entry[1]
        key = (function, args)
        if key not in facts:
            facts[key] = function(module, *args)
        return facts[key]

    return memoised  # type: ignore[return-value]


@per_module
def top_level_index(module: cst.Module) -> Dict[int, int]:
    """The index in `module.body` of the first top-level statement holding each node, by node id."""
    statements = list(enumerate(module.body))
    return {id(node): index for index, statement in reversed(statements) for node in descendants(statement)}


@dataclasses.dataclass(frozen=True)
class ModuleNodes:
    """Every node of a module, read once: in `descendants` order, by exact type, and the
    parent of each (by id)."""

    order: List[cst.CSTNode]
    by_type: Dict[type, List[cst.CSTNode]]
    parents: Dict[int, cst.CSTNode]


@dataclasses.dataclass(frozen=True)
class _StatementNodes:
    """The nodes of one top-level statement, as `ModuleNodes` holds them (the statement's
    parent aside), with the children of each by id."""

    statement: cst.CSTNode
    order: List[cst.CSTNode]
    by_type: Dict[type, List[cst.CSTNode]]
    parents: Dict[int, cst.CSTNode]
    children: Dict[int, List[cst.CSTNode]]


# The statements of the module read last, by id: the language server's next tree
# (`engine.reparse`) holds the same statement objects wherever an edit did not reach.
_LAST_STATEMENTS: Dict[int, _StatementNodes] = {}


@per_module
def module_nodes(module: cst.Module) -> ModuleNodes:
    """The nodes of `module`: whole-file questions filter these lists instead of walking the
    tree. Each top-level statement's subtree is a contiguous run of `order` (the statements
    last first), read anew only when the statement is not one of the module read last."""
    global _LAST_STATEMENTS
    pieces = []
    for statement in children(module):
        piece = _LAST_STATEMENTS.get(id(statement))
        pieces.append(piece if piece is not None and piece.statement is statement else _statement_nodes(statement))
    _LAST_STATEMENTS = {id(piece.statement): piece for piece in pieces}
    order: List[cst.CSTNode] = [module]
    by_type: Dict[type, List[cst.CSTNode]] = {type(module): [module]}
    parents: Dict[int, cst.CSTNode] = {}
    remembered = _REMEMBERED
    for piece in reversed(pieces):
        order.extend(piece.order)
        parents[id(piece.statement)] = module
        parents.update(piece.parents)
        for kind, same in piece.by_type.items():
            known = by_type.get(kind)
            if known is None:
                by_type[kind] = list(same)
            else:
                known.extend(same)
        if remembered is not None:
            remembered.update(piece.children)
            _HELD.append(piece.statement)  # holds every node below it
    return ModuleNodes(order, by_type, parents)


def _statement_nodes(statement: cst.CSTNode) -> _StatementNodes:
    order: List[cst.CSTNode] = []
    by_type: Dict[type, List[cst.CSTNode]] = {}
    parents: Dict[int, cst.CSTNode] = {}
    read: Dict[int, List[cst.CSTNode]] = {}
    known = _known_children()
    stack: List[cst.CSTNode] = [statement]
    while stack:
        node = stack.pop()
        order.append(node)
        same = by_type.get(type(node))
        if same is None:
            by_type[type(node)] = [node]
        else:
            same.append(node)
        below = known.get(id(node))
        if below is None:
            below = _children(node)
        read[id(node)] = below
        for child in below:
            parents[id(child)] = node
        stack.extend(below)
    return _StatementNodes(statement, order, by_type, parents, read)


def source_order(module: cst.Module, nodes: List[cst.CSTNode]) -> List[cst.CSTNode]:
    """`nodes` of `module` in the order `in_source_order(module)` meets them, found from the
    path of child positions that leads to each rather than by a walk of the whole module."""
    parents = module_nodes(module).parents

    def path(node: cst.CSTNode) -> List[int]:
        steps: List[int] = []
        while node is not module:
            parent = parents[id(node)]
            steps.append(next(index for index, child in enumerate(children(parent)) if child is node))
            node = parent
        return steps[::-1]

    return sorted(nodes, key=path)


@per_module
def nodes_of_type(module: cst.Module, kinds: Tuple[type, ...]) -> List[cst.CSTNode]:
    """The nodes of `module` that are instances of `kinds`, in `descendants` order. Only for a
    whole module: its index is remembered for a few modules, and a subtree passed here would
    push the checked file's out (`descendants_of_type` slices a subtree from the index)."""
    assert isinstance(module, cst.Module), "nodes_of_type takes a module; use descendants_of_type for a subtree"
    nodes = module_nodes(module)
    matching = {kind for kind in nodes.by_type if issubclass(kind, kinds)}
    if len(matching) <= 1:
        return list(nodes.by_type[matching.pop()]) if matching else []
    return [node for node in nodes.order if type(node) in matching]


@dataclasses.dataclass(frozen=True)
class _Subtrees:
    """Where each node's subtree lies in `ModuleNodes.order` (a node, then its descendants),
    and the positions there of the nodes of each type."""

    starts: Dict[int, int]
    ends: List[int]
    positions: Dict[type, List[int]]


@per_module
def _subtrees(module: cst.Module) -> _Subtrees:
    nodes = module_nodes(module)
    starts = {id(node): index for index, node in enumerate(nodes.order)}
    ends = list(range(1, len(nodes.order) + 1))
    parents = nodes.parents
    for index in range(len(nodes.order) - 1, 0, -1):  # a subtree ends where its last child's does
        parent = starts[id(parents[id(nodes.order[index])])]
        if ends[parent] < ends[index]:
            ends[parent] = ends[index]
    positions = {kind: [starts[id(node)] for node in same] for kind, same in nodes.by_type.items()}
    return _Subtrees(starts, ends, positions)


def descendants_of_type(module: cst.Module, node: cst.CSTNode, kind: type) -> List[cst.CSTNode]:
    """The nodes of exact type `kind` among `descendants(node)`, in that order, for a `node` of
    `module`: a slice of the module's index rather than a walk of the subtree."""
    subtrees = _subtrees(module)
    start = subtrees.starts.get(id(node))
    if start is None or module_nodes(module).order[start] is not node:
        return [item for item in descendants(node) if type(item) is kind]
    positions = subtrees.positions.get(kind, [])
    same = module_nodes(module).by_type.get(kind, [])
    return same[bisect.bisect_left(positions, start) : bisect.bisect_left(positions, subtrees.ends[start])]


def leaves_in_first_iteration(body: cst.BaseSuite) -> bool:
    """Whether a loop's body ends in a `return`, `raise` or `break` of its own, with no
    `continue` of its own before: the loop runs its body once at most (`for x, y in loader:
    ...; return x.cpu(), pred` to show one batch)."""
    last = body.body[-1] if isinstance(body, cst.IndentedBlock) and body.body else None
    if not isinstance(last, cst.SimpleStatementLine) or not isinstance(last.body[-1], (cst.Return, cst.Raise, cst.Break)):
        return False
    return not any(isinstance(node, cst.Continue) for node in _own_statements(body))


def _own_statements(body: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The nodes of a loop body outside the loops, functions and classes it nests."""
    for child in children(body):
        yield child
        if not isinstance(child, (cst.For, cst.While, cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            yield from _own_statements(child)
        elif isinstance(child, (cst.For, cst.While)) and child.orelse is not None:
            yield from _own_statements(child.orelse)
