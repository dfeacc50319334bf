"""A matcher for ``.gitignore`` patterns with git's semantics (no git executable)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional, Union

StrPath = Union[str, "os.PathLike[str]"]

# POSIX bracket expressions accepted by git's wildmatch, as regex class bodies.
_POSIX_CLASSES = {
    "alnum": "a-zA-Z0-9",
    "alpha": "a-zA-Z",
    "blank": " \\t",
    "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9",
    "graph": "\\x21-\\x7e",
    "lower": "a-z",
    "print": "\\x20-\\x7e",
    "punct": "\\!-\\/\\:-\\@\\[-\\`\\{-\\~",
    "space": " \\t\\n\\r\\f\\v",
    "upper": "A-Z",
    "xdigit": "0-9A-Fa-f",
}


class _InvalidPattern(ValueError):
    """A pattern git would never match (e.g. an unclosed ``[``)."""


@dataclass(frozen=True)
class Rule:
    """One compiled pattern line of an ignore file."""

    pattern: str
    regex: re.Pattern[str]
    negated: bool
    dir_only: bool
    basename_only: bool  # unanchored pattern: matched against the last path component


@dataclass(frozen=True)
class GitIgnore:
    """The rules of one ignore file; paths are matched relative to ``base_dir``."""

    base_dir: str  # posix form
    rules: tuple[Rule, ...]

    @classmethod
    def from_lines(cls, lines: Iterable[str], base_dir: StrPath) -> GitIgnore:
        """Compile ignore-file lines; blanks, comments and invalid patterns are dropped."""
        rules = tuple(rule for rule in map(parse_rule, lines) if rule is not None)
        return cls(Path(base_dir).as_posix(), rules)

    @classmethod
    def from_file(cls, path: StrPath, base_dir: Optional[StrPath] = None) -> GitIgnore:
        """Read an ignore file (undecodable bytes replaced); base defaults to its directory."""
        text = Path(path).read_text(encoding="utf-8-sig", errors="replace")
        base = Path(path).parent if base_dir is None else base_dir
        return cls.from_lines(text.split("\n"), base)

    def match(self, rel_path: str, is_dir: bool) -> Optional[bool]:
        """Verdict of the last rule matching ``rel_path`` itself: True ignored,
        False re-included by ``!``, None when no rule matches.

        Exclusion inherited from an ignored parent directory is not checked here:
        callers walk top-down and stop at ignored directories, as git does.
        """
        basename = rel_path.rpartition("/")[2]
        for rule in reversed(self.rules):
            if rule.dir_only and not is_dir:
                continue
            if rule.regex.fullmatch(basename if rule.basename_only else rel_path):
                return not rule.negated
        return None


def parse_rule(line: str) -> Optional[Rule]:
    """Compile one ignore-file line; None for blanks, comments and invalid patterns."""
    text = _strip_trailing_spaces(line[:-1] if line.endswith("\r") else line)
    if not text or text.startswith("#"):
        return None
    negated = text.startswith("!")
    body = text[1:] if negated else text
    dir_only = body.endswith("/")
    if dir_only:
        body = body[:-1]
    anchored = "/" in body
    if body.startswith("/"):
        body = body[1:]
    if not body:
        return None
    try:
        regex = re.compile(_translate(body), re.DOTALL)
    except _InvalidPattern:
        return None
    return Rule(text, regex, negated, dir_only, basename_only=not anchored)


def _strip_trailing_spaces(line: str) -> str:
    """Drop trailing spaces that are not escaped with a backslash."""
    cut: Optional[int] = None
    i = 0
    while i < len(line):
        char = line[i]
        if char == " ":
            cut = i if cut is None else cut
        else:
            cut = None
            if char == "\\":
                i += 1  # the escaped character is kept as is
        i += 1
    return line if cut is None else line[:cut]


def _translate(body: str) -> str:
    """Translate a glob (no leading slash) into a regex for ``fullmatch``."""
    out: list[str] = []
    i = 0
    while i < len(body):
        char = body[i]
        if char == "*":
            i = _translate_stars(body, i, out)
        elif char == "?":
            out.append("[^/]")
            i += 1
        elif char == "[":
            regex, i = _translate_class(body, i + 1)
            out.append(regex)
        else:
            literal, i = _literal(body, i)
            out.append(re.escape(literal))
    return "".join(out)


def _translate_stars(body: str, start: int, out: list[str]) -> int:
    """Translate a run of ``*``; a whole ``**`` path component spans directories."""
    end = start
    while end < len(body) and body[end] == "*":
        end += 1
    whole_component = (start == 0 or body[start - 1] == "/") and (
        end == len(body) or body[end] == "/"
    )
    if end - start < 2 or not whole_component:
        out.append("[^/]*")
        return end
    if end == len(body):  # trailing "/**" (or a lone "**"): everything inside
        out.append(".*")
        return end
    out.append("(?:.*/)?")  # leading "**/" or middle "/**/": zero or more directories
    return end + 1


def _literal(body: str, i: int) -> tuple[str, int]:
    """Read one possibly backslash-escaped character; return it and the next index."""
    if body[i] != "\\":
        return body[i], i + 1
    if i + 1 == len(body):
        raise _InvalidPattern(body)
    return body[i + 1], i + 2


def _translate_class(body: str, start: int) -> tuple[str, int]:
    """Translate a ``[...]`` class whose content starts at ``start``."""
    i = start
    negated = i < len(body) and body[i] in "!^"
    if negated:
        i += 1
    items: list[str] = []
    first = True
    while i < len(body) and (first or body[i] != "]"):
        first = False
        item, i = _class_item(body, i)
        items.append(item)
    if i >= len(body):
        raise _InvalidPattern(body)
    return _class_regex("".join(items), negated), i + 1


def _class_item(body: str, i: int) -> tuple[str, int]:
    """Translate one class member: a character, a range or a POSIX class."""
    if body.startswith("[:", i):
        end = body.find(":]", i + 2)
        if end != -1:
            name = body[i + 2 : end]
            if name not in _POSIX_CLASSES:
                raise _InvalidPattern(body)
            return _POSIX_CLASSES[name], end + 2
    low, i = _literal(body, i)
    if i + 1 < len(body) and body[i] == "-" and body[i + 1] != "]":
        high, i = _literal(body, i + 1)
        item = f"{_class_escape(low)}-{_class_escape(high)}" if low <= high else ""
        return item, i
    return _class_escape(low), i


def _class_escape(char: str) -> str:
    return char if char.isalnum() else "\\" + char


def _class_regex(members: str, negated: bool) -> str:
    """Build the class regex; like git, a class never matches ``/``."""
    if not members:
        return "[^/]" if negated else "(?!)"
    if negated:
        return f"[^/{members}]"
    regex = f"[{members}]"
    return f"(?!/){regex}" if re.fullmatch(regex, "/") else regex
