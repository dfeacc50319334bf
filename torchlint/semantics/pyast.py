"""Names and walks over CPython's `ast` trees, shared by the project index and the readers
of its classes."""

from __future__ import annotations

import ast
from typing import Dict, List, Optional

from torchlint.files.syntax import ast_children

# `functools.partial` as written at a call: the function it binds is called through it.
PARTIALS = frozenset({"partial", "functools.partial"})


def ast_dotted(node: Optional[ast.AST]) -> Optional[str]:
    """`a.b.c` for a chain of attributes on a name, else None."""
    parts: List[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return ".".join([node.id, *reversed(parts)]) if isinstance(node, ast.Name) else None


def ast_qualified(node: ast.AST, aliases: Dict[str, str]) -> Optional[str]:
    """The qualified name of a dotted name whose head the module imports (`np.load` ->
    `numpy.load`), through `aliases` (local name -> qualified name); None otherwise."""
    head, dot, rest = (ast_dotted(node) or "").partition(".")
    return aliases[head] + dot + rest if head in aliases else None


def ast_walk(node: ast.AST) -> List[ast.AST]:
    """`list(ast.walk(node))` in the same (breadth-first) order, without expression contexts."""
    nodes = [node]
    for current in nodes:  # the list grows while it is read
        nodes.extend(ast_children(current))
    return nodes


def ast_argument(call: ast.Call, name: str, position: int) -> Optional[ast.AST]:
    """The argument `call` passes to the parameter `name`: by keyword, or at `position`
    among its positional arguments before any `*`."""
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    positional = call.args[: next((i for i, arg in enumerate(call.args) if isinstance(arg, ast.Starred)), len(call.args))]
    return positional[position] if 0 <= position < len(positional) else None
