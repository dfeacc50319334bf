"""Source positions, computed only for the parts of a file that hold something to report.

LibCST derives positions from a code-generation pass with position tracking, which costs
several parses for a whole module, and its `MetadataWrapper` adds a full visitor traversal on
top. Here positions are tracked only through the top-level statements that contain the
nodes asked for, so the cost of placing findings does not grow with the file.

Where each top-level statement starts is read from CPython's syntax tree of the same text
(which the linter builds anyway), and the traversal records the top-level statement that
holds each node; together they let one statement be rendered on its own, starting at its
line. Inside a function, class, loop, `if`, `with` or `try` whose findings all lie in its
indented block, only the statements of the block that hold them are rendered, down to the
innermost ones, each started at its own line (CPython's statements of the block give them)
and indentation. A statement rendered that way is compared with the source text it must
reproduce; when anything does not line up, positions fall back to rendering the whole
top-level statement, then to rendering the statements in order, which advances the line
counter through every statement before the last one needed.
"""

from __future__ import annotations

import ast
from itertools import accumulate
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Set, Tuple

import libcst as cst
from libcst.metadata import CodeRange
from libcst.metadata.position_provider import PositionProvidingCodegenState

from torchlint.files.source import physical_lines
from torchlint.semantics.tree import descendants

Span = Tuple[int, int, int, int]  # 1-based line, 1-based column, end line, exclusive end column


class _Positions:
    """Stands in for LibCST's position provider: the code generator writes ranges into it."""

    def __init__(self) -> None:
        self._computed: Dict[cst.CSTNode, CodeRange] = {}


class StatementLines:
    """Where each top-level statement of a module starts in its source `text`: the line of its
    first leading comment or blank line."""

    def __init__(
        self, module: cst.Module, text: str, starts: List[int], lines: Sequence[str], twins: List[ast.stmt]
    ) -> None:
        self.module = module
        self.text = text
        self.starts = starts
        self.lines = lines
        # The CPython statement each top-level statement starts with.
        self.twins = twins
        # The character offset of the start of each line, then that of the end of the text.
        self.offsets = [0, *accumulate(len(line) for line in lines)]

    def source(self, index: int) -> str:
        """The text of the statement at `index`, its leading lines included."""
        start = self.offsets[self.starts[index] - 1]
        if index + 1 < len(self.starts):
            return self.text[start : self.offsets[self.starts[index + 1] - 1]]
        return self.text[start : self.offsets[len(self.offsets) - 1 - len(self.module.footer)]]


def statement_lines(module: cst.Module, tree: ast.Module, text: str) -> Optional[StatementLines]:
    """Start lines of the statements of `module`, parsed from `text`, taken from CPython's tree
    `tree` of the same text; None where the two trees do not line up."""
    lines = physical_lines(text, keepends=True)
    aligned = _aligned(module.body, tree.body, lines)
    if aligned is None:
        return None
    return StatementLines(module, text, [start for _, _, start in aligned], lines, [twin for _, twin, _ in aligned])


# A LibCST statement, the CPython statement it starts with, and its first line.
Aligned = Tuple[cst.CSTNode, ast.stmt, int]


def _aligned(statements: Sequence[cst.CSTNode], twins: Sequence[ast.stmt], lines: Sequence[str]) -> Optional[List[Aligned]]:
    """The statements of a body (LibCST's) with their CPython twins (a line of statements
    joined by `;` is several) and first lines: that of the first leading comment or blank
    line; None where the two bodies do not line up."""
    found: List[Aligned] = []
    position = 0
    for statement in statements:
        if position >= len(twins):
            return None
        first = twins[position]
        position += len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
        line = first.lineno
        if getattr(statement, "decorators", ()):
            # The first decorator's expression, whose line is that of its `@` unless the
            # expression starts on a later line (checked).
            line = first.decorator_list[0].lineno  # type: ignore[attr-defined]
            if not lines[line - 1].lstrip().startswith("@"):
                return None
        found.append((statement, first, line - len(statement.leading_lines)))  # type: ignore[attr-defined]
    return found if position == len(twins) else None


def compute_positions(
    module: cst.Module,
    nodes: Iterable[cst.CSTNode],
    hints: Iterable[cst.CSTNode] = (),
    located: Optional[StatementLines] = None,
) -> Mapping[cst.CSTNode, CodeRange]:
    """Syntactic ranges (without parentheses and surrounding whitespace) of at least `nodes`.

    `hints` are the top-level statements that hold them; with `located`, only those are
    rendered."""
    wanted: Set[int] = {id(node) for node in nodes}
    if located is not None and id(module) not in wanted:
        computed = _from_hints(module, wanted, hints, located)
        if computed is not None:
            return computed
    return _in_order(module, wanted)


def _from_hints(
    module: cst.Module, wanted: Set[int], hints: Iterable[cst.CSTNode], located: StatementLines
) -> Optional[Mapping[cst.CSTNode, CodeRange]]:
    """Positions from rendering only the hinted statements; None when they do not hold every
    wanted node or a statement does not render as the text it came from."""
    index = {id(statement): number for number, statement in enumerate(module.body)}
    remaining = set(wanted)
    provider = _Positions()
    for statement in dict.fromkeys(hints):
        number = index.get(id(statement))
        if number is None:
            continue
        inside = {id(node) for node in descendants(statement)} & remaining
        if not inside:
            continue
        if not _render_block(module, statement, located.twins[number], [], inside, provider, located):
            state = _state(module, provider, [], located.starts[number])
            statement._codegen(state)
            if not _reproduces(module, "".join(state.tokens), located.source(number), number):
                return None
        remaining -= inside
    return provider._computed if not remaining else None


# Compound statements with an indented block, and their CPython twins.
_BLOCKS = {
    cst.FunctionDef: (ast.FunctionDef, ast.AsyncFunctionDef),
    cst.ClassDef: (ast.ClassDef,),
    cst.For: (ast.For, ast.AsyncFor),
    cst.While: (ast.While,),
    cst.If: (ast.If,),
    cst.With: (ast.With, ast.AsyncWith),
    cst.Try: (ast.Try,),
}


def _render_block(
    module: cst.Module,
    statement: cst.CSTNode,
    twin: ast.stmt,
    indents: List[str],
    wanted: Set[int],
    provider: _Positions,
    located: StatementLines,
) -> Optional[bool]:
    """Positions of the `wanted` nodes of a compound statement from rendering only the
    statements of its indented block that hold them (the innermost ones): whether each
    rendering is the source text at its place; None when a wanted node is elsewhere in the
    statement (its header, an `else` branch) or the statement has no block to read."""
    body = getattr(statement, "body", None)
    if not isinstance(body, cst.IndentedBlock) or not isinstance(twin, _BLOCKS.get(type(statement), ())):
        return None
    aligned = _aligned(body.body, twin.body, located.lines)  # type: ignore[attr-defined]
    if aligned is None:
        return None
    held = [(inner, {id(node) for node in descendants(inner)} & wanted) for inner, _, _ in aligned]
    if set().union(*(inside for _, inside in held)) != wanted:
        return None
    indents = [*indents, module.default_indent if body.indent is None else body.indent]
    return all(
        _render(module, inner, inner_twin, start, indents, inside, provider, located)
        for (inner, inner_twin, start), (_, inside) in zip(aligned, held)
        if inside
    )


def _render(
    module: cst.Module,
    statement: cst.CSTNode,
    twin: ast.stmt,
    start: int,
    indents: List[str],
    wanted: Set[int],
    provider: _Positions,
    located: StatementLines,
) -> bool:
    """Positions of the `wanted` nodes of a statement of an indented block that starts at
    line `start`, rendering as little of it as `_render_block` can; whether what was rendered
    is the source text at its place."""
    inner = _render_block(module, statement, twin, indents, wanted, provider, located)
    if inner is not None:
        return inner
    state = _state(module, provider, indents, start)
    statement._codegen(state)
    return located.text.startswith("".join(state.tokens), located.offsets[start - 1])


def _state(module: cst.Module, provider: _Positions, indents: List[str], line: int) -> PositionProvidingCodegenState:
    """A code generator that records positions, starting at the first column of `line`
    inside blocks indented by `indents`."""
    state = PositionProvidingCodegenState(
        default_indent=module.default_indent, default_newline=module.default_newline, provider=provider
    )
    state.indent_tokens = list(indents)
    state.line = line
    return state


def _reproduces(module: cst.Module, generated: str, source: str, number: int) -> bool:
    """Whether a statement rendered on its own is its source text, so that the line it was
    started at is right (the last statement of a file without a final newline gets one)."""
    if generated == source:
        return True
    last = number == len(module.body) - 1
    return last and not module.has_trailing_newline and not module.footer and generated.rstrip("\r\n") == source


def _in_order(module: cst.Module, wanted: Set[int]) -> Mapping[cst.CSTNode, CodeRange]:
    """Positions from rendering the statements in order up to the last one that holds a wanted
    node; the statements before it are rendered untracked, only to advance the line counter."""
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
