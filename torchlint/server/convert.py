"""Findings, fixes and text changes in the Language Server Protocol's terms.

torchlint counts 1-based lines and columns in characters; LSP counts 0-based lines and
columns in the code units the client negotiated (UTF-16 unless it chose otherwise). Lines
are split as both count them: on CRLF, CR and LF only.
"""

from __future__ import annotations

import difflib
from typing import Any, Dict, List, Optional, Sequence

from lsprotocol import types
from pygls.workspace.position_codec import PositionCodec

from torchlint.engine.findings import Applicability, Edit, Finding
from torchlint.engine.noqa import UNUSED_NOQA
from torchlint.engine.rule import Rule
from torchlint.files.source import physical_lines

SOURCE = "torchlint"
_SEVERITY = {
    "error": types.DiagnosticSeverity.Error,
    "warning": types.DiagnosticSeverity.Warning,
    "info": types.DiagnosticSeverity.Information,
}


class Positions:
    """Converts positions in one text between torchlint's and the client's units."""

    def __init__(self, text: str, codec: PositionCodec) -> None:
        self.lines = physical_lines(text, keepends=True)
        self.codec = codec

    def position(self, line: int, column: int) -> types.Position:
        """The LSP position of a 1-based (line, column); past the end clamps to the end."""
        if line > len(self.lines):
            if not self.lines:
                return types.Position(0, 0)
            last = self.lines[-1]
            if last.endswith(("\n", "\r")):
                return types.Position(len(self.lines), 0)
            return types.Position(len(self.lines) - 1, self.codec.client_num_units(last))
        body = self.lines[line - 1].rstrip("\r\n")
        return types.Position(line - 1, self.codec.client_num_units(body[: max(column - 1, 0)]))

    def range(self, line: int, column: int, end_line: int, end_column: int) -> types.Range:
        return types.Range(self.position(line, column), self.position(end_line, end_column))

    def text_edit(self, edit: Edit) -> types.TextEdit:
        return types.TextEdit(self.range(edit.line, edit.column, edit.end_line, edit.end_column), edit.content)


def diagnostic(finding: Finding, positions: Positions, href: str) -> types.Diagnostic:
    """The diagnostic of a finding; `data` carries its fix as LSP text edits."""
    rule = Rule._registry.get(finding.code)
    fix: Optional[Dict[str, Any]] = None
    if finding.fix is not None:
        fix = {
            "applicability": finding.fix.applicability.value,
            "message": finding.fix.message,
            "edits": [_edit_json(positions.text_edit(edit)) for edit in finding.fix.edits],
        }
    return types.Diagnostic(
        range=positions.range(finding.line, finding.column, finding.end_line, finding.end_column),
        message=finding.message,
        severity=_SEVERITY.get(rule.severity if rule else "warning", types.DiagnosticSeverity.Warning),
        code=finding.code,
        code_description=types.CodeDescription(href=href),
        source=SOURCE,
        tags=[types.DiagnosticTag.Unnecessary] if finding.code == UNUSED_NOQA else None,
        data={"name": finding.name, "fix": fix},
    )


def _edit_json(edit: types.TextEdit) -> Dict[str, Any]:
    start, end = edit.range.start, edit.range.end
    return {
        "range": {"start": {"line": start.line, "character": start.character}, "end": {"line": end.line, "character": end.character}},
        "newText": edit.new_text,
    }


def fix_label(finding: Finding) -> str:
    """The title of a finding's quick fix, marking unsafe fixes as such."""
    assert finding.fix is not None
    what = finding.fix.message or f"Fix {finding.code} ({finding.name})"
    if finding.fix.applicability is Applicability.UNSAFE:
        return f"{what} (unsafe: review the change)"
    return what


def text_changes(before: str, after: str, positions: Positions) -> List[types.TextEdit]:
    """Small edits that turn `before` (the text `positions` was built on) into `after`:
    one per run of changed lines, so that the rest of the buffer (and the cursor) stays put."""
    old, new = physical_lines(before, keepends=True), physical_lines(after, keepends=True)
    edits: List[types.TextEdit] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag != "equal":
            edits.append(types.TextEdit(positions.range(i1 + 1, 1, i2 + 1, 1), "".join(new[j1:j2])))
    return edits


def overlaps(a: types.Range, b: types.Range) -> bool:
    """Whether two ranges share a position (touching counts, so a cursor at an end matches)."""
    return _key(a.start) <= _key(b.end) and _key(b.start) <= _key(a.end)


def _key(position: types.Position) -> Sequence[int]:
    return (position.line, position.character)
