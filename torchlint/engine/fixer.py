"""Applying fixes: non-overlapping edits, re-checked until stable, never leaving broken code."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple, Type

import libcst as cst

from torchlint.engine.context import Options
from torchlint.engine.findings import Edit, Finding
from torchlint.engine.linter import lint_text
from torchlint.engine.rule import Rule
from torchlint.files.source import physical_lines

# Each round applies every non-overlapping fix; overlapping ones wait for the next round.
MAX_ROUNDS = 10


@dataclass(frozen=True)
class FixResult:
    """The fixed text, what was fixed, what remains, and why fixing stopped early, if it did."""

    text: str
    fixed: Tuple[Finding, ...]
    remaining: Tuple[Finding, ...]
    warning: Optional[str] = None


def line_offsets(text: str) -> List[int]:
    """Offset of the first character of each line (1-based line N is index N - 1)."""
    offsets = [0]
    for line in physical_lines(text, keepends=True):
        offsets.append(offsets[-1] + len(line))
    return offsets


def _span(edit: Edit, offsets: Sequence[int]) -> Tuple[int, int]:
    return offsets[edit.line - 1] + edit.column - 1, offsets[edit.end_line - 1] + edit.end_column - 1


def _overlaps(a: Tuple[int, int], b: Tuple[int, int]) -> bool:
    """Edits conflict when their ranges intersect or both touch the same insertion point."""
    return (a[0] < b[1] and b[0] < a[1]) or a[0] == b[0] or (a[0] == a[1] and b[0] <= a[0] <= b[1]) or (
        b[0] == b[1] and a[0] <= b[0] <= a[1]
    )


def apply_fixes(text: str, findings: Sequence[Finding]) -> Tuple[str, List[Finding]]:
    """Apply the fixes of `findings` that do not overlap an earlier one; return text and applied."""
    offsets = line_offsets(text)
    taken: List[Tuple[int, int]] = []
    chosen: List[Tuple[Tuple[int, int], str]] = []
    applied: List[Finding] = []
    for finding in sorted(findings, key=lambda f: f.sort_key):
        assert finding.fix is not None
        spans = [_span(edit, offsets) for edit in finding.fix.edits]
        if any(_overlaps(span, other) for span in spans for other in taken):
            continue
        taken.extend(spans)
        chosen.extend(zip(spans, (edit.content for edit in finding.fix.edits)))
        applied.append(finding)
    for (start, end), content in sorted(chosen, key=lambda item: item[0], reverse=True):
        text = text[:start] + content + text[end:]
    return text, applied


def fix_text(text: str, path: str, rules: Sequence[Type[Rule]], options: Options, unsafe: bool) -> FixResult:
    """Fix `text` until no applicable fix remains; keep the original if a result does not parse."""
    fixed: List[Finding] = []
    current = text
    for _ in range(MAX_ROUNDS):
        findings = lint_text(current, path, rules, options).findings
        fixable = [f for f in findings if f.fixable(unsafe)]
        if not fixable:
            return FixResult(current, tuple(fixed), findings)
        candidate, applied = apply_fixes(current, fixable)
        if not parses(candidate):
            codes = ", ".join(sorted({f.code for f in applied}))
            original = lint_text(text, path, rules, options).findings
            return FixResult(text, (), original, f"fixes ({codes}) were dropped: the result would not parse")
        fixed.extend(applied)
        current = candidate
    findings = lint_text(current, path, rules, options).findings
    return FixResult(current, tuple(fixed), findings, f"stopped fixing after {MAX_ROUNDS} rounds")


def parses(text: str) -> bool:
    try:
        cst.parse_module(text)
    except cst.ParserSyntaxError:
        return False
    return True
