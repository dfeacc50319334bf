"""The values a lint run produces: findings, their fixes and their text edits."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Optional, Tuple


class Applicability(enum.Enum):
    """How safe a fix is, as in ruff: safe fixes run with --fix, unsafe ones need --unsafe-fixes."""

    NONE = "none"
    UNSAFE = "unsafe"
    SAFE = "safe"


@dataclass(frozen=True)
class Edit:
    """Replace the text between two 1-based (line, column) positions with `content`."""

    line: int
    column: int
    end_line: int
    end_column: int
    content: str

    @property
    def start(self) -> Tuple[int, int]:
        return (self.line, self.column)

    @property
    def end(self) -> Tuple[int, int]:
        return (self.end_line, self.end_column)


@dataclass(frozen=True)
class Fix:
    """A set of edits that must be applied together."""

    applicability: Applicability
    edits: Tuple[Edit, ...]
    message: str = ""


@dataclass(frozen=True)
class Finding:
    """One reported anti-pattern, with 1-based positions (columns count characters)."""

    code: str
    name: str
    message: str
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    fix: Optional[Fix] = None
    url: str = ""
    # For notebooks: the 1-based cell number; line numbers then count within that cell.
    cell: Optional[int] = None

    @property
    def sort_key(self) -> Tuple[str, int, int, int, str]:
        return (self.path, self.cell or 0, self.line, self.column, self.code)

    @property
    def location(self) -> str:
        """`path:line:column`, or `path:cell N:line:column` in a notebook."""
        return f"{self.path}:{self.position}"

    @property
    def position(self) -> str:
        """`line:column`, or `cell N:line:column` in a notebook."""
        cell = f"cell {self.cell}:" if self.cell is not None else ""
        return f"{cell}{self.line}:{self.column}"

    @property
    def snippet_key(self) -> str:
        """The key of the reported source line in a file's snippets."""
        return f"{self.cell or 0}:{self.line}"

    def fixable(self, unsafe: bool) -> bool:
        """Whether `--fix` (with `--unsafe-fixes` when `unsafe`) would apply this finding's fix."""
        if self.fix is None:
            return False
        if self.fix.applicability is Applicability.SAFE:
            return True
        return unsafe and self.fix.applicability is Applicability.UNSAFE
