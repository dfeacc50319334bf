"""`# noqa` comments: blanket (`# noqa`) or per code (`# noqa: TL101, TL201`), on a line or,
as `# torchlint: noqa` / `# torchlint: noqa: TL101` on a line of its own, for the whole file.

Comments are found with the tokenizer, so text that looks like a comment inside a string
never counts. Only files that contain "noqa" are tokenized.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, replace
from typing import Dict, FrozenSet, List, Optional, Sequence, Tuple

from torchlint.engine.findings import Applicability, Edit, Finding, Fix
from torchlint.engine.rule import DOCS_PAGE
from torchlint.files.source import physical_lines

UNUSED_NOQA = "TL001"

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Za-z]+[0-9]+(?:[\s,]+[A-Za-z]+[0-9]+)*))?", re.IGNORECASE)
_CODE = re.compile(r"[A-Za-z]+[0-9]+")
_FILE_NOQA = re.compile(r"#\s*torchlint\s*:\s*noqa(?::\s*(?P<codes>[A-Za-z]+[0-9]+(?:[\s,]+[A-Za-z]+[0-9]+)*))?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class NoqaComment:
    """A `# noqa` directive on a line: its 0-based column span and the codes it names."""

    line: int
    start: int
    end: int
    # None for a blanket `# noqa`, which suppresses every code.
    codes: Optional[Tuple[str, ...]]

    def suppresses(self, code: str) -> bool:
        return self.codes is None or code in self.codes


def parse_directive(comment: str, line: int, column: int) -> Optional[NoqaComment]:
    """The noqa directive inside one comment token starting at `column`, if any."""
    match = _NOQA.search(comment)
    if match is None:
        return None
    codes = match.group("codes")
    parsed = tuple(code.upper() for code in _CODE.findall(codes)) if codes else None
    return NoqaComment(line, column + match.start(), column + match.end(), parsed)


def noqa_comments(text: str) -> Dict[int, NoqaComment]:
    """The noqa directives of a source text by 1-based line number."""
    return _directives(text)[0]


def _directives(text: str) -> Tuple[Dict[int, NoqaComment], Optional[NoqaComment]]:
    """The line directives by line number, and the file-level `# torchlint: noqa` if any."""
    lowered = text.lower()
    if "noqa" not in lowered:
        return {}, None
    last = lowered.count("\n", 0, lowered.rfind("noqa")) + 1  # no directive on a later line
    comments: Dict[int, NoqaComment] = {}
    whole_file: Optional[NoqaComment] = None
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.start[0] > last:
                break
            if token.type != tokenize.COMMENT:
                continue
            exemption = _FILE_NOQA.match(token.string) if not token.line[: token.start[1]].strip() else None
            if exemption is not None and whole_file is None:
                codes = exemption.group("codes")
                whole_file = NoqaComment(token.start[0], token.start[1], token.end[1], tuple(c.upper() for c in _CODE.findall(codes)) if codes else None)
                continue
            directive = parse_directive(token.string, token.start[0], token.start[1])
            if directive is not None:
                comments[directive.line] = directive
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return comments, whole_file


def apply_noqa(
    findings: Sequence[Finding], text: str, path: str, enabled: FrozenSet[str], known: FrozenSet[str], report_unused: bool
) -> List[Finding]:
    """Drop suppressed findings; with `report_unused`, add TL001 for noqa codes that suppress
    nothing (among enabled rules) or name no torchlint rule."""
    if not findings and not report_unused:
        return []  # nothing to suppress: the comments are not read
    comments, whole_file = _directives(text)
    if whole_file is not None:
        findings = [finding for finding in findings if not whole_file.suppresses(finding.code)]
    if not comments:
        return list(findings)
    kept: List[Finding] = []
    used: Dict[int, set] = {}
    for finding in findings:
        comment = comments.get(finding.line)
        if comment is not None and comment.suppresses(finding.code):
            used.setdefault(finding.line, set()).add(finding.code)
        elif finding.fix is not None and _fix_touches_suppressed_line(finding, comments):
            kept.append(replace(finding, fix=None))
        else:
            kept.append(finding)
    if report_unused:
        lines = physical_lines(text)
        kept.extend(_unused(comment, used.get(line, set()), enabled, known, lines, path) for line, comment in comments.items())
    return [finding for finding in kept if finding is not None]


def _fix_touches_suppressed_line(finding: Finding, comments: Dict[int, NoqaComment]) -> bool:
    """A line with `# noqa` for a rule is never rewritten by that rule's fix."""
    assert finding.fix is not None
    return any(
        line in comments and comments[line].suppresses(finding.code)
        for edit in finding.fix.edits
        for line in range(edit.line, edit.end_line + 1)
    )


def _unused(
    comment: NoqaComment, used: set, enabled: FrozenSet[str], known: FrozenSet[str], lines: Sequence[str], path: str
) -> Optional[Finding]:
    if comment.codes is None or UNUSED_NOQA in comment.codes:
        return None
    ours = [code for code in comment.codes if code.startswith("TL")]
    unknown = [code for code in ours if code not in known]
    unused = [code for code in ours if code in known and code in enabled and code not in used]
    if not unknown and not unused:
        return None
    parts = []
    if unused:
        parts.append(f"unused `noqa` code{'s' if len(unused) > 1 else ''} {', '.join(unused)}")
    if unknown:
        parts.append(f"unknown code{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}")
    edit = _removal(comment, lines[comment.line - 1], set(unused) | set(unknown))
    return Finding(
        UNUSED_NOQA,
        "unused-noqa",
        "; ".join(parts),
        path,
        comment.line,
        comment.start + 1,
        comment.line,
        comment.end + 1,
        Fix(Applicability.SAFE, (edit,), "Remove the unused codes"),
        DOCS_PAGE.format(code=UNUSED_NOQA),
    )


def _removal(comment: NoqaComment, line_text: str, dropped: set) -> Edit:
    """An edit that rewrites the directive without `dropped`, or removes it with the
    whitespace before it when no code is left. Text after the directive stays a comment:
    `# noqa: TL9 reason` becomes `# reason`, and a comment that follows it keeps its own `#`
    (`# noqa: TL9  # type: ignore` becomes `# type: ignore`)."""
    assert comment.codes is not None
    remaining = [code for code in comment.codes if code not in dropped]
    if remaining:
        return Edit(comment.line, comment.start + 1, comment.line, comment.end + 1, f"# noqa: {', '.join(remaining)}")
    after = line_text[comment.end :]
    if after.lstrip().startswith("#"):  # `# noqa: TL9  # type: ignore`: the next comment stays
        return Edit(comment.line, comment.start + 1, comment.line, comment.end + 1 + len(after) - len(after.lstrip()), "")
    if after.strip():
        return Edit(comment.line, comment.start + 1, comment.line, comment.end + 1, "#")
    start = len(line_text[: comment.start].rstrip())
    if start == 0 or line_text[: comment.start].strip() == "":
        start = comment.start
    return Edit(comment.line, start + 1, comment.line, comment.end + 1, "")
