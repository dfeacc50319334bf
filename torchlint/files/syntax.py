"""CPython's syntax tree of a source text, and how deeply it nests.

The nesting is checked before LibCST is handed the code. LibCST's parser recurses once per
nesting level: its time grows steeply with the depth (about 10 s at 3,000 levels) and its
native stack overflows, killing the process, near 7,000. CPython 3.11 and newer refuse such
code in `compile()` at depths that vary with the version (under torchlint's recursion limit,
about 3,000 on 3.12.1, 10,000 on 3.13 and 24,000 on 3.11) and 3.10 does not refuse it at all,
so torchlint sets its own bound, the same on every Python.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections import OrderedDict
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Dict, FrozenSet, Iterator, List, Optional, Tuple

# The deepest syntax tree torchlint analyses; deeper code is reported as too deep (TL000).
MAX_NESTING = 4000


@lru_cache(maxsize=32)
def python_tree(text: str) -> ast.Module:
    """CPython's syntax tree of `text`, without printing the warnings its parser gives about
    the code (`invalid escape sequence` is the checked code's business, not torchlint's output).
    Kept for the texts parsed last: the linter's syntax check and the checked file's project
    summaries share one parse (callers must not change the tree).

    Raises what `compile()` raises: SyntaxError, ValueError (null bytes), RecursionError and
    MemoryError (code too deep for the parser).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compile(text, "<torchlint>", "exec", ast.PyCF_ONLY_AST)


@dataclass(frozen=True)
class TextFacts:
    """What the linter asks of CPython's tree of a text before LibCST parses it."""

    too_deep: bool  # it nests deeper than `MAX_NESTING` (`nested_too_deeply`)
    # The first part of every module an absolute import anywhere in the text names (`torch`
    # for `import torch.nn as nn` and for `from torch.utils import data`).
    imported: FrozenSet[str]


# Texts whose trees were built lately, with their facts: a text checked again (a module
# summarised for the project index, then checked itself) is not parsed again for them.
_FACTS: "OrderedDict[str, TextFacts]" = OrderedDict()
TEXTS_REMEMBERED = 1024


def text_facts(text: str) -> TextFacts:
    """`TextFacts` of `text`, remembered. Raises what `python_tree` raises."""
    known = _FACTS.get(text)
    if known is None:
        tree = python_tree(text)
        known = _FACTS[text] = TextFacts(nested_too_deeply(tree), frozenset(imported_packages(tree.body)))
        while len(_FACTS) > TEXTS_REMEMBERED:
            _FACTS.popitem(last=False)
    return known


def nests_too_deeply(text: str) -> bool:
    """Whether CPython's tree of `text` nests deeper than `MAX_NESTING` (`nested_too_deeply`).
    Raises what `python_tree` raises."""
    return text_facts(text).too_deep


def imported_packages(body: List[ast.stmt]) -> Iterator[str]:
    """The first part of each module that the absolute imports among the statements `body`,
    and the blocks nested in them, name. Imports are statements: expressions are not entered."""
    pending = list(body)
    while pending:
        statement = pending.pop()
        if isinstance(statement, ast.Import):
            yield from (alias.name.partition(".")[0] for alias in statement.names)
        elif isinstance(statement, ast.ImportFrom):
            if not statement.level and statement.module:
                yield statement.module.partition(".")[0]
        else:
            for block in ("body", "orelse", "finalbody", "handlers", "cases"):
                nested = getattr(statement, block, None)
                if isinstance(nested, list):
                    pending.extend(nested)


def nested_too_deeply(tree: ast.AST, limit: int = MAX_NESTING) -> bool:
    """Whether `tree` nests deeper than `limit` levels.

    Every level of nesting on one line takes at least one character of source, and a level
    adds at most one node the source does not spell out (`Expr` around a call), so a node that
    fits on a line narrower than half the depth still allowed is skipped unvisited: only
    multi-line and very long constructs are entered, a small part of an ordinary file.
    """
    pending = [(tree, 0)]
    while pending:
        node, depth = pending.pop()
        if depth > limit:
            return True
        line = getattr(node, "lineno", None)
        if line is not None and line == node.end_lineno and 2 * (node.end_col_offset - node.col_offset) + 2 < limit - depth:
            continue
        pending.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return False


# A field in the grammar that CPython's node classes give as their docstrings:
# `FunctionDef(identifier name, arguments args, stmt* body, expr* decorator_list, ...)`.
_GRAMMAR_FIELD = re.compile(r"(\w+)([*?]?) (\w+)")
# Grammar types of fields that never hold child nodes (`expr_context`: `Load`, `Store`, `Del`).
_NOT_NODES = frozenset({"identifier", "string", "constant", "int", "expr_context"})
# Per node class: its fields that hold nodes, each with whether it holds a list of them.
_NODE_FIELDS: Dict[type, Optional[Tuple[Tuple[str, bool], ...]]] = {}
_UNREAD: Any = object()  # a marker: `_NODE_FIELDS.get` found nothing


def ast_children(node: ast.AST) -> List[ast.AST]:
    """`list(ast.iter_child_nodes(node))` without the `Load`/`Store`/`Del` markers of
    expressions, reading only the fields the grammar says hold nodes."""
    fields = _NODE_FIELDS.get(type(node), _UNREAD)
    if fields is _UNREAD:
        fields = _node_fields(type(node))
    if fields is None:
        return [child for child in ast.iter_child_nodes(node) if not isinstance(child, ast.expr_context)]
    found: List[ast.AST] = []
    for name, many in fields:
        value = getattr(node, name, None)
        if not many:
            if value is not None:
                found.append(value)
        elif value:
            found.extend([item for item in value if item is not None] if None in value else value)
    return found


def _node_fields(kind: type) -> Optional[Tuple[Tuple[str, bool], ...]]:
    """The node-holding fields of an `ast` class, read once from its grammar; None when its
    docstring does not spell out its fields."""
    declared = _GRAMMAR_FIELD.findall((kind.__doc__ or "").partition("(")[2])
    fields = None
    if [name for _, _, name in declared] == list(getattr(kind, "_fields", ())):
        fields = tuple((name, many == "*") for grammar_type, many, name in declared if grammar_type not in _NOT_NODES)
    _NODE_FIELDS[kind] = fields
    return fields
