"""`# noqa` comments: blanket (`# noqa`) or per code (`# noqa: TL101, TL201`)."""

from __future__ import annotations

import re
from typing import FrozenSet, Optional

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Za-z]+[0-9]+(?:[\s,]+[A-Za-z]+[0-9]+)*))?", re.IGNORECASE)
_CODE = re.compile(r"[A-Za-z]+[0-9]+")

# A blanket `# noqa` suppresses every code.
BLANKET: FrozenSet[str] = frozenset({"*"})


def comment_start(line: str) -> Optional[int]:
    """Index of the `#` that starts a comment on `line`, skipping `#` inside string literals."""
    quote = ""
    index = 0
    while index < len(line):
        char = line[index]
        if quote:
            if char == "\\":
                index += 1
            elif line.startswith(quote, index):
                index += len(quote) - 1
                quote = ""
        elif char in "'\"":
            quote = line[index : index + 3] if line.startswith(char * 3, index) else char
            index += len(quote) - 1
        elif char == "#":
            return index
        index += 1
    return None


def noqa_codes(line: str) -> Optional[FrozenSet[str]]:
    """The codes a line's `# noqa` comment names, BLANKET for a bare one, None without one."""
    start = comment_start(line)
    if start is None:
        return None
    match = _NOQA.search(line, start)
    if match is None:
        return None
    codes = match.group("codes")
    if codes is None:
        return BLANKET
    return frozenset(code.upper() for code in _CODE.findall(codes))


def is_suppressed(code: str, line: str) -> bool:
    codes = noqa_codes(line)
    return codes is not None and (codes is BLANKET or code in codes)
