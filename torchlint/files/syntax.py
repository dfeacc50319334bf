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
import warnings
from functools import lru_cache

# The deepest syntax tree torchlint analyses; deeper code is reported as too deep (TL000).
MAX_NESTING = 4000


@lru_cache(maxsize=2)
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
