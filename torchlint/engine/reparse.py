"""Parsing an edited text again by re-parsing only the top-level statements the edit touched.

The language server lints the same file after every edit, and LibCST's parse of a 2,000-line
file is about 40% of a run. `Reparser` keeps the last tree of a file; for the next text it
parses the top-level statements from the last one that starts before the first changed
character to the first one that starts after the last changed character, and puts them
between the statements of the old tree that the edit did not touch. The result is the tree a
whole parse of the new text gives, node for node: the parts reused are text that did not
change, read in the same tokenizer state (a statement starting at column 0, outside any
bracket or string, every block closed). Where that cannot be shown from the texts, the whole
text is parsed: an edit of the first statement or of the last, of the module's first two
lines (an encoding declaration), before the first indented block (which sets the module's
default indentation), or a piece whose indentation or line ending differs from the module's.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence, Tuple

import libcst as cst

_CLOSING = "pass\n"
_LINE_END = re.compile(r"\r\n|\r|\n")  # where CPython's parser ends a line (not at `\f` or `\v`)


@dataclass(frozen=True)
class Parsed:
    """A text, its LibCST and CPython trees, and the offset where each line starts."""

    text: str
    module: cst.Module
    tree: ast.Module
    lines: Sequence[int]

    def starts(self, statements: Sequence[ast.stmt]) -> List[int]:
        """The offset of the line where each statement starts (its first decorator or keyword,
        after the comments and blank lines before it); statements that share a line (`a = 1;
        b = 2`) are one statement in LibCST's tree."""
        first_lines = {min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))]) for node in statements}
        return [self.lines[line - 1] for line in sorted(first_lines)]


@dataclass(frozen=True)
class _Edit:
    """Where two texts differ: `old[start:end]` became `new[start:end + shift]`."""

    new: str
    start: int
    end: int
    shift: int

    def piece(self, start: int, end: Optional[int]) -> str:
        """The new text from old offset `start` to old offset `end` (None: to its end)."""
        return self.new[start:] if end is None else self.new[start : end + self.shift]


class Reparser:
    """Parses successive versions of one file, reusing the statements an edit left alone."""

    def __init__(self) -> None:
        self.last: Optional[Parsed] = None

    def parse(self, text: str, tree: ast.Module, parse: Callable[[str], cst.Module]) -> cst.Module:
        """LibCST's tree of `text`, whose CPython tree is `tree` (the text parses); `parse`
        parses a whole text or a piece of it."""
        module = self._reparse(text, parse) if self.last is not None else None
        if module is None:
            module = parse(text)
        self.last = Parsed(text, module, tree, [0, *(match.end() for match in _LINE_END.finditer(text))])
        return module

    def _reparse(self, text: str, parse: Callable[[str], cst.Module]) -> Optional[cst.Module]:
        assert self.last is not None
        last, module = self.last, self.last.module
        if text == last.text:
            return module
        prefix = _common_prefix(last.text, text)
        end = len(last.text) - _common_suffix(last.text, text, min(len(last.text), len(text)) - prefix)
        edit = _Edit(text, prefix, end, len(text) - len(last.text))
        starts = last.starts(last.tree.body)
        span = _span(starts, edit, 0)
        if span is None or len(starts) != len(module.body) or last.text.count("\n", 0, starts[span[0]]) < 2:
            return None  # the first statement, or an encoding declaration, changed
        first, after = span
        if after == first + 1:  # within one statement: its block's statements, if it has one
            node = next(node for node in last.tree.body if last.starts([node])[0] == starts[first])
            inner = self._reparse_block(module.body[first], node, edit, parse)
            if inner is not None:
                return module.with_changes(body=[*module.body[:first], inner, *module.body[after:]])
        indented = next((k for k, statement in enumerate(module.body) if not isinstance(statement, cst.SimpleStatementLine)), first)
        if indented >= first or not isinstance(getattr(module.body[indented], "body", None), cst.IndentedBlock):
            return None  # the first indented block, which sets the module's indentation, may have changed
        at_end = after == len(starts)
        pieces = _parse_piece(edit.piece(starts[first], None if at_end else starts[after]), module, "", at_end, parse)
        if pieces is None:
            return None
        changed, closing, parsed = pieces
        body = _spliced(module.body, first, after, changed, closing)
        if closing is None:
            return module.with_changes(body=body, footer=parsed.footer, has_trailing_newline=parsed.has_trailing_newline)
        return module.with_changes(body=body)

    def _reparse_block(
        self, statement: cst.BaseStatement, node: ast.stmt, edit: _Edit, parse: Callable[[str], cst.Module]
    ) -> Optional[cst.BaseStatement]:
        """Top-level `statement` (CPython's `node`) with the statements of its indented body
        that the edit touched parsed again, if the edit lies between two of them."""
        assert self.last is not None
        block = getattr(statement, "body", None)
        if not isinstance(block, cst.IndentedBlock) or block.indent is not None:
            return None
        starts = self.last.starts(node.body)
        indent = self.last.module.default_indent
        span = _span(starts, edit, len(indent))
        if span is None or span[1] == len(starts) or len(starts) != len(block.body):
            return None
        first, after = span
        pieces = _parse_piece(edit.piece(starts[first], starts[after]), self.last.module, indent, False, parse)
        if pieces is None:
            return None
        changed, closing, _ = pieces
        return statement.with_changes(body=block.with_changes(body=_spliced(block.body, first, after, changed, closing)))


def _span(starts: Sequence[int], edit: _Edit, indent: int) -> Optional[Tuple[int, int]]:
    """The statements to parse again: from the last one whose indentation and first character
    the edit left alone to the first one that starts after the edit (`len(starts)`: to the
    end). None where the edit starts before the first statement's first character."""
    first = max((k for k, start in enumerate(starts) if start + indent < edit.start), default=None)
    if first is None:
        return None
    return first, next((k for k, start in enumerate(starts) if start >= edit.end), len(starts))


def _parse_piece(
    piece: str, module: cst.Module, indent: str, at_end: bool, parse: Callable[[str], cst.Module]
) -> Optional[Tuple[List[cst.BaseStatement], Optional[cst.BaseStatement], cst.Module]]:
    """The statements of `piece` (whole lines of statements indented by `indent`, at the end
    of the text or not), parsed as in `module`, and a statement that stands for the one after
    them in the text (None at the end)."""
    if not at_end and (not piece.endswith(("\n", "\r")) or piece.rstrip("\r\n").endswith("\\")):
        return None  # the statements after it would not start a line
    # A statement after the piece closes its blocks as the statement after it in the text does
    # (at the end of a text, LibCST gives the blocks' footers more lines); an indented piece is
    # the body of an `if`.
    text = f"if 1:\n{piece}{indent}pass\n" if indent else piece if at_end else piece + _CLOSING
    try:
        parsed = parse(text)
    except (cst.ParserSyntaxError, RecursionError):
        return None
    if (
        parsed.header
        or parsed.default_indent != module.default_indent
        or parsed.default_newline != module.default_newline
        or parsed.encoding != module.encoding
    ):
        return None
    statements = list(parsed.body)
    if indent:
        block = getattr(statements[0], "body", None) if len(statements) == 1 else None
        if not isinstance(block, cst.IndentedBlock) or block.indent is not None or block.header.comment is not None:
            return None
        statements = list(block.body)
    closing = None if at_end else statements.pop()
    return (statements, closing, parsed) if statements else None


def _spliced(
    body: Sequence[cst.BaseStatement], first: int, after: int, changed: List[cst.BaseStatement], closing: Optional[cst.BaseStatement]
) -> List[cst.BaseStatement]:
    """`body` with its statements from `first` to `after` replaced by `changed`, which keep
    the lines before the first of them, and the lines before the statement after them
    as `closing` has them."""
    spliced = [*body[:first], changed[0].with_changes(leading_lines=body[first].leading_lines), *changed[1:]]
    if closing is not None:
        spliced += [body[after].with_changes(leading_lines=closing.leading_lines), *body[after + 1 :]]
    return spliced


def _common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix of `a` and `b` (by halving: string comparison is native)."""
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _common_suffix(a: str, b: str, limit: int) -> int:
    """The length of the longest common suffix of `a` and `b`, at most `limit`."""
    low, high = 0, limit
    while low < high:
        middle = (low + high + 1) // 2
        if a[len(a) - middle :] == b[len(b) - middle :]:
            low = middle
        else:
            high = middle - 1
    return low
