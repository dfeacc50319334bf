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
from typing import Callable, List, Optional, Sequence

import libcst as cst

_CLOSING = "pass\n"
_LINE_END = re.compile(r"\r\n|\r|\n")  # where CPython's parser ends a line (not at `\f` or `\v`)


@dataclass(frozen=True)
class Parsed:
    """A text, its LibCST tree, and the offset where each top-level statement's code starts
    (its first decorator or keyword, after the comments and blank lines before it)."""

    text: str
    module: cst.Module
    starts: Sequence[int]


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
        starts = _statement_starts(text, tree)
        self.last = Parsed(text, module, starts) if len(starts) == len(module.body) else None
        return module

    def _reparse(self, text: str, parse: Callable[[str], cst.Module]) -> Optional[cst.Module]:
        assert self.last is not None
        old, module, starts = self.last.text, self.last.module, self.last.starts
        if text == old:
            return module
        prefix = _common_prefix(old, text)
        suffix = _common_suffix(old, text, min(len(old), len(text)) - prefix)
        first = max((k for k, start in enumerate(starts) if start < prefix), default=0)
        after = next((k for k, start in enumerate(starts) if start >= len(old) - suffix), len(starts))
        indented = next((k for k, statement in enumerate(module.body) if not isinstance(statement, cst.SimpleStatementLine)), first)
        if (
            first == 0
            or indented >= first
            or not isinstance(getattr(module.body[indented], "body", None), cst.IndentedBlock)
            or old.count("\n", 0, starts[first]) < 2
        ):
            return None
        last = after == len(starts)
        piece = text[starts[first] :] if last else text[starts[first] : starts[after] + len(text) - len(old)]
        if not last and (not piece.endswith(("\n", "\r")) or piece.rstrip("\r\n").endswith("\\")):
            return None  # the statements after it would not start a line
        try:
            # A statement after the piece closes its blocks as the statement after it in the
            # text does (at the end of a text, LibCST gives the blocks' footers more lines).
            parsed = parse(piece if last else piece + _CLOSING)
        except (cst.ParserSyntaxError, RecursionError):
            return None
        if (
            len(parsed.body) < (1 if last else 2)
            or parsed.header
            or parsed.default_indent != module.default_indent
            or parsed.default_newline != module.default_newline
            or parsed.encoding != module.encoding
        ):
            return None
        changed = list(parsed.body)
        changed[0] = changed[0].with_changes(leading_lines=module.body[first].leading_lines)
        if last:
            body = [*module.body[:first], *changed]
            return module.with_changes(body=body, footer=parsed.footer, has_trailing_newline=parsed.has_trailing_newline)
        closing = changed.pop()
        body = [*module.body[:first], *changed, module.body[after].with_changes(leading_lines=closing.leading_lines), *module.body[after + 1 :]]
        return module.with_changes(body=body)


def _statement_starts(text: str, tree: ast.Module) -> List[int]:
    """The offset in `text` of the line where each top-level statement starts (statements
    that share a line, `a = 1; b = 2`, are one statement in LibCST's tree)."""
    lines = sorted({min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))]) for node in tree.body})
    offsets = [0, *(match.end() for match in _LINE_END.finditer(text))]
    return [offsets[line - 1] for line in lines]


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
