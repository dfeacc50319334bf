"""`--add-noqa`: suppress every current finding in place, so a codebase can adopt the gate today."""

from __future__ import annotations

import io
import tokenize
from typing import Dict, List, Sequence, Set

from torchlint.engine.findings import Finding
from torchlint.engine.noqa import noqa_comments
from torchlint.files.source import physical_lines


def add_noqa(text: str, findings: Sequence[Finding]) -> str:
    """`text` with `# noqa: CODE` added on each finding's line (merged into an existing directive).

    Lines that end inside a multi-line string cannot carry a comment and are left alone.
    """
    wanted: Dict[int, List[str]] = {}
    for finding in findings:
        codes = wanted.setdefault(finding.line, [])
        if finding.code not in codes:
            codes.append(finding.code)
    if not wanted:
        return text
    blocked = _lines_inside_strings(text)
    comments = noqa_comments(text)
    lines = physical_lines(text, keepends=True)
    for number, codes in wanted.items():
        if number in blocked or number > len(lines):
            continue
        line = lines[number - 1]
        body = line.rstrip("\r\n")
        ending = line[len(body) :]
        comment = comments.get(number)
        if comment is None:
            body = f"{body.rstrip()}  # noqa: {', '.join(codes)}"
        elif comment.codes is not None:
            merged = list(comment.codes) + [code for code in codes if code not in comment.codes]
            body = f"{body[: comment.start]}# noqa: {', '.join(merged)}{body[comment.end :]}"
        lines[number - 1] = body + ending
    return "".join(lines)


def _lines_inside_strings(text: str) -> Set[int]:
    """Lines whose end falls inside a multi-line string token (where a comment would be text)."""
    blocked: Set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.STRING and token.end[0] > token.start[0]:
                blocked.update(range(token.start[0], token.end[0]))
            elif getattr(tokenize, "FSTRING_MIDDLE", None) == token.type and token.end[0] > token.start[0]:
                blocked.update(range(token.start[0], token.end[0]))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return blocked
