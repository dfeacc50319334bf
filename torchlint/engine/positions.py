"""Source positions, computed only for the parts of a file that hold something to report.

LibCST derives positions from a code-generation pass with position tracking, which costs
several parses for a whole module, and its `MetadataWrapper` adds a full visitor traversal on
top. Here positions are tracked only through the top-level statements that contain the
nodes asked for; the statements before them are rendered untracked (much cheaper) just to
advance the line counter, and generation stops after the last statement needed.
"""

from __future__ import annotations

from typing import Dict, Iterable, Mapping, Set, Tuple

import libcst as cst
from libcst.metadata import CodeRange
from libcst.metadata.position_provider import PositionProvidingCodegenState

from torchlint.semantics.tree import descendants

Span = Tuple[int, int, int, int]  # 1-based line, 1-based column, end line, exclusive end column


class _Positions:
    """Stands in for LibCST's position provider: the code generator writes ranges into it."""

    def __init__(self) -> None:
        self._computed: Dict[cst.CSTNode, CodeRange] = {}


def compute_positions(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> Mapping[cst.CSTNode, CodeRange]:
    """Syntactic ranges (without parentheses and surrounding whitespace) of at least `nodes`."""
    wanted: Set[int] = {id(node) for node in nodes}
    provider = _Positions()
    state = PositionProvidingCodegenState(
        default_indent=module.default_indent, default_newline=module.default_newline, provider=provider
    )
    for header in module.header:
        header._codegen(state)
    for statement in module.body:
        if not wanted:
            break
        inside = {id(node) for node in descendants(statement)} & wanted
        if inside:
            statement._codegen(state)
            wanted -= inside
        else:
            state._update_position(module.code_for_node(statement))
    if id(module) in wanted:
        return _whole_module(module)
    return provider._computed


def _whole_module(module: cst.Module) -> Mapping[cst.CSTNode, CodeRange]:
    provider = _Positions()
    module._codegen(
        PositionProvidingCodegenState(default_indent=module.default_indent, default_newline=module.default_newline, provider=provider)
    )
    return provider._computed


def to_span(start: CodeRange, end: CodeRange) -> Span:
    """A 1-based span from the start of `start` to the end of `end`."""
    return (start.start.line, start.start.column + 1, end.end.line, end.end.column + 1)
