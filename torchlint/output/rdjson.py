"""reviewdog's Diagnostic Format as one JSON document (`rdjson`, the `DiagnosticResult`
message of https://github.com/reviewdog/reviewdog/blob/master/proto/rdf/reviewdog.proto)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Dict, List, Optional

from torchlint.engine.findings import Finding
from torchlint.output.sarif import display_path

if TYPE_CHECKING:
    from torchlint.output import Report

SEVERITIES = {"error": "ERROR", "warning": "WARNING", "info": "INFO"}
SOURCE = {"name": "torchlint"}

Json = Dict[str, object]


def byte_column(line_text: str, column: int) -> int:
    """A 1-based code-point column as reviewdog counts columns: in UTF-8 bytes, from 1."""
    before = line_text[: column - 1]
    return len(before.encode("utf-8", "surrogatepass")) + (column - 1 - len(before)) + 1


def _position(line: int, column: int, finding_line: int, line_text: Optional[str]) -> Optional[Json]:
    """A position in bytes; None where the text of its line is not known (a column other than
    the first on another line than the finding's)."""
    if column == 1:
        return {"line": line, "column": 1}
    if line != finding_line or line_text is None:
        return None
    return {"line": line, "column": byte_column(line_text, column)}


def _diagnostic(finding: Finding, report: "Report") -> Json:
    severity = report.severity(finding.code)
    code: Json = {"value": finding.code}
    url = report.url(finding.code) or finding.url
    if url:
        code["url"] = url
    diagnostic: Json = {
        "message": finding.message,
        "location": {"path": display_path(finding.path)},
        "severity": SEVERITIES.get(severity, "WARNING"),
        "code": code,
    }
    if finding.cell is not None:
        # Lines count within the cell, not in the notebook's JSON: name the file, say where.
        diagnostic["message"] = f"cell {finding.cell}, line {finding.line}: {finding.message}"
        return diagnostic
    text = report.snippets.get(finding.path, {}).get(finding.snippet_key)
    start = _position(finding.line, finding.column, finding.line, text)
    # A finding over several lines ends with its last line: that line's text is not at hand.
    end = _position(finding.end_line, finding.end_column, finding.line, text) or {"line": finding.end_line + 1, "column": 1}
    diagnostic["location"] = {"path": display_path(finding.path), "range": {"start": start, "end": end}}
    suggestions = _suggestions(finding, report, text)
    if suggestions:
        diagnostic["suggestions"] = suggestions
    return diagnostic


def _suggestions(finding: Finding, report: "Report", text: Optional[str]) -> List[Json]:
    """The fix's edits, when it is offered and every edit's position can be given in bytes."""
    if finding.fix is None or not finding.fixable(report.unsafe_fixes):
        return []
    suggestions = []
    for edit in finding.fix.edits:
        start = _position(edit.line, edit.column, finding.line, text)
        end = _position(edit.end_line, edit.end_column, finding.line, text)
        if start is None or end is None:
            return []
        suggestions.append({"range": {"start": start, "end": end}, "text": edit.content})
    return suggestions


def format_rdjson(report: "Report") -> str:
    """One `DiagnosticResult` holding a diagnostic per finding."""
    result = {"source": SOURCE, "diagnostics": [_diagnostic(f, report) for f in report.findings]}
    return json.dumps(result, indent=2) + "\n"
