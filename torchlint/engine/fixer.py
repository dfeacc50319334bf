"""Applying fixes: non-overlapping edits, re-checked until stable; a fix that would leave
code that does not parse is dropped on its own, the others are kept."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import List, Optional, Sequence, Set, Tuple, Type

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
    """Fix `text` until no applicable fix remains. A fix whose result would not parse is
    dropped (and not tried again) while the other fixes of its round are kept."""
    fixed: List[Finding] = []
    dropped: List[Finding] = []
    refused: Set[_FixKey] = set()
    current = text
    for _ in range(MAX_ROUNDS):
        findings = lint_text(current, path, rules, options).findings
        fixable = [f for f in findings if f.fixable(unsafe) and _key(f, current) not in refused]
        if not fixable:
            return FixResult(current, tuple(fixed), findings, _dropped_warning(dropped))
        candidate, applied, breaking = _apply_parsing(current, fixable)
        refused.update(_key(f, current) for f in breaking)
        dropped.extend(breaking)
        if not applied:
            return FixResult(current, tuple(fixed), findings, _dropped_warning(dropped))
        fixed.extend(applied)
        current = candidate
    findings = lint_text(current, path, rules, options).findings
    warning = "; ".join(filter(None, (_dropped_warning(dropped), f"stopped fixing after {MAX_ROUNDS} rounds")))
    return FixResult(current, tuple(fixed), findings, warning)


# A fix as it reads in the text: its rule and, per edit, the replaced text and the new text.
# Positions move between rounds; this stays the same, so a dropped fix is not tried again.
_FixKey = Tuple[str, Tuple[Tuple[str, str], ...]]


def _key(finding: Finding, text: str) -> _FixKey:
    assert finding.fix is not None
    offsets = line_offsets(text)
    spans = [(_span(edit, offsets), edit.content) for edit in finding.fix.edits]
    return finding.code, tuple((text[start:end], content) for (start, end), content in spans)


def _apply_parsing(text: str, findings: Sequence[Finding]) -> Tuple[str, List[Finding], List[Finding]]:
    """Apply the non-overlapping fixes of `findings`; while the result does not parse, find
    the first fix that breaks it by bisection over the applied fixes and leave it out.
    Returns the text, the applied fixes and the dropped ones."""
    candidate, applied = apply_fixes(text, findings)
    dropped: List[Finding] = []
    while applied and not parses(candidate):
        low, high = 1, len(applied)  # the shortest prefix of `applied` whose result does not parse
        while low < high:
            middle = (low + high) // 2
            if parses(apply_fixes(text, applied[:middle])[0]):
                low = middle + 1
            else:
                high = middle
        dropped.append(applied.pop(low - 1))
        candidate, applied = apply_fixes(text, applied)
    return candidate, applied, dropped


def _dropped_warning(dropped: Sequence[Finding]) -> Optional[str]:
    if not dropped:
        return None
    listed = ", ".join(dict.fromkeys(f"{f.code} at line {f.line}" for f in dropped))
    return f"fix{'es' if len(dropped) > 1 else ''} dropped ({listed}): the result would not parse"


def parses(text: str) -> bool:
    """Whether both CPython and LibCST parse `text`."""
    try:
        compile(text, "<torchlint fix>", "exec", ast.PyCF_ONLY_AST)
        cst.parse_module(text)
    except (SyntaxError, ValueError, cst.ParserSyntaxError):
        return False
    return True
