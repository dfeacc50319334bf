"""The settings a configuration file's text writes, read without a YAML library and without
running anything.

A configuration file (YAML or JSON) is read as a list of settings: each the path of mapping
keys that leads to it (`("data", "num_workers")`) and its value, a literal (an int, a float, a
bool, `None` or a string) or `UNKNOWN`. YAML is read for its block-mapping subset only:
nested `key: scalar` mappings at increasing indentation, comments, quoted strings, ints,
floats with a dot, `true`/`false` and `null`/`~`. Anything else a key holds (a sequence, a
flow collection, a block scalar, an anchor, an alias, a tag, an interpolation `${...}`,
YAML 1.1's `yes`/`no`/`on`/`off`, a value continued on more indented lines) is `UNKNOWN`,
and the keys written inside a region that is not read (a sequence of mappings) are `hidden`:
their values there are not known. A text that does not read as such a mapping (a tab in the
indentation, a line that is no `key: value`, JSON that does not parse) is unreadable: every
key it writes is hidden.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, FrozenSet, List, Optional, Set, Tuple


class _Unknown:
    """A value the reader does not know."""

    def __repr__(self) -> str:
        return "UNKNOWN"


UNKNOWN = _Unknown()
Setting = Tuple[Tuple[str, ...], object]


@dataclass(frozen=True)
class ConfigText:
    """What one configuration file writes: its settings, and the keys whose values it holds
    where they are not read (`hidden`)."""

    settings: Tuple[Setting, ...] = ()
    hidden: FrozenSet[str] = field(default_factory=frozenset)


# `key:` or `key: value`, with a plain or quoted key; the colon ends the key only before a
# space or the end of the line (`a:b` is a plain scalar).
_MAPPING_LINE = re.compile(r"""^(?P<key>"[^"]*"|'[^']*'|[^\s#'"\[\]{},&*!|>%@`-][^#]*?)\s*:(?:[ \t]+(?P<rest>.*?))?\s*$""")
# Any `key:` or `"key":` in a text: the keys an unread region may write.
_ANY_KEY = re.compile(r"""["']?([\w.-]+)["']?\s*:(?:\s|$)""", re.MULTILINE)
_INT = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
_FLOAT = re.compile(r"[-+]?(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
_BOOLS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_NULLS = frozenset({"null", "Null", "NULL", "~"})


def normal_key(key: str) -> str:
    """A key as settings are matched: dashes as underscores (`num-workers`, `num_workers`)."""
    return key.replace("-", "_")


def read_json(text: str) -> ConfigText:
    """The settings of a JSON document: its nested objects' scalar members; an array's keys
    are hidden."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return unreadable(text)
    settings: List[Setting] = []
    hidden: Set[str] = set()
    _flatten(data, (), settings, hidden)
    return ConfigText(tuple(settings), frozenset(hidden))


def _flatten(data: Any, path: Tuple[str, ...], settings: List[Setting], hidden: Set[str]) -> None:
    if isinstance(data, dict):
        for key, value in data.items():
            _flatten(value, (*path, normal_key(str(key))), settings, hidden)
    elif isinstance(data, list):
        if path:
            settings.append((path, UNKNOWN))
        hidden.update(_json_keys(data))
    elif path:
        settings.append((path, data if isinstance(data, (bool, int, float, str)) or data is None else UNKNOWN))


def _json_keys(data: Any) -> Set[str]:
    stack, found = [data], set()
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            found.update(normal_key(str(key)) for key in item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def unreadable(text: str) -> ConfigText:
    """A text the reader cannot follow: every key it writes is hidden."""
    return ConfigText((), frozenset(normal_key(key) for key in _ANY_KEY.findall(text)))


def read_yaml(text: str) -> ConfigText:
    """The settings of a YAML document's block mappings (see the module's docstring)."""
    settings: List[Setting] = []
    hidden: Set[str] = set()
    # The mapping keys enclosing the current line: (indentation, key).
    parents: List[Tuple[int, str]] = []
    # A key written without a value on the line before: (indentation, path).
    opened: Optional[Tuple[int, Tuple[str, ...]]] = None
    # While lines are skipped: the indentation a line must exceed to be skipped, whether a
    # sequence item (`- `) at that indentation is skipped too, and the path made unknown.
    skipping: Optional[Tuple[int, bool, Tuple[str, ...]]] = None
    for raw in text.splitlines():
        line = _without_comment(raw)
        if not line.strip() or line.startswith(("---", "...", "%")):
            continue
        body = line.lstrip(" ")
        indent = len(line) - len(body)
        if body.startswith("\t"):
            return unreadable(text)
        if skipping is not None:
            limit, items, path = skipping
            if indent > limit or (items and indent == limit and _is_item(body)):
                hidden.update(normal_key(key) for key in _ANY_KEY.findall(body))
                if path:
                    settings.append((path, UNKNOWN))
                continue
            skipping = None
        if _is_item(body):  # a sequence: what the key above holds is not read
            path = opened[1] if opened is not None else ()
            hidden.update(normal_key(key) for key in _ANY_KEY.findall(body))
            if path:
                settings.append((path, UNKNOWN))
            skipping, opened = (indent, True, path), None
            continue
        if opened is not None:
            if indent <= opened[0]:
                settings.append((opened[1], None))  # `key:` alone is null
            opened = None
        match = _MAPPING_LINE.match(line[indent:])
        if match is None:
            return unreadable(text)
        while parents and parents[-1][0] >= indent:
            parents.pop()
        key = match.group("key")
        path = (*(name for _, name in parents), normal_key(key[1:-1] if key[:1] in "\"'" else key))
        rest = match.group("rest")
        if not rest:
            parents.append((indent, path[-1]))
            opened = (indent, path)
            continue
        value = scalar(rest)
        settings.append((path, value))
        skipping = (indent, False, path)  # a value continued on more indented lines is not read
    if opened is not None:
        settings.append((opened[1], None))
    return ConfigText(tuple(settings), frozenset(hidden))


def _is_item(body: str) -> bool:
    return body == "-" or body.startswith(("- ", "-\t"))


def _without_comment(line: str) -> str:
    """The line without its comment: a `#` at its start or after a space, outside quotes."""
    quote = None
    for index, char in enumerate(line):
        if quote is not None:
            if char == quote:
                quote = None
        elif char in "\"'" and (index == 0 or line[index - 1] in " \t:[{,"):
            quote = char
        elif char == "#" and (index == 0 or line[index - 1] in " \t"):
            return line[:index].rstrip()
    return line.rstrip()


def scalar(text: str) -> object:
    """The value of a plain or quoted YAML scalar written on one line; `UNKNOWN` for anything
    else (see the module's docstring)."""
    if text[:1] in "\"'":
        if len(text) < 2 or text[-1] != text[0] or text[0] in text[1:-1]:
            return UNKNOWN  # escapes, doubled quotes, a string continued on the next line
        return UNKNOWN if "${" in text else text[1:-1]
    if text[:1] in "[{&*!|>%@`" or "${" in text:
        return UNKNOWN
    if text in _BOOLS:
        return _BOOLS[text]
    if text in _NULLS:
        return None
    if _INT.fullmatch(text):
        return int(text)
    if _FLOAT.fullmatch(text):
        return float(text)
    if text.lower() in ("yes", "no", "on", "off", "y", "n") or text[:1].isdigit() or text[:1] in "+-.":
        return UNKNOWN  # YAML 1.1 booleans, octals, sexagesimals, `.inf`: readers differ
    return text
