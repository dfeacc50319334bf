"""Source positions, computed only for files that have something to report.

Position metadata needs a code-generation pass over the whole tree, which costs several
parses; the linter asks for it only after the traversal found a report.
"""

from __future__ import annotations

from typing import Mapping, Tuple

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

Span = Tuple[int, int, int, int]  # 1-based line, 1-based column, end line, exclusive end column


def compute_positions(module: cst.Module) -> Mapping[cst.CSTNode, CodeRange]:
    """Syntactic ranges of every node (without parentheses and surrounding whitespace)."""
    return MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)


def to_span(start: CodeRange, end: CodeRange) -> Span:
    """A 1-based span from the start of `start` to the end of `end`."""
    return (start.start.line, start.start.column + 1, end.end.line, end.end.column + 1)
