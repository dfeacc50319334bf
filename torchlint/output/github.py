"""GitHub Actions workflow commands: one annotation per finding."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict

from torchlint.engine.findings import Finding
from torchlint.output.sarif import display_path

if TYPE_CHECKING:
    from torchlint.output import Report

_COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    """Escape a command's message as the Actions toolkit does."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a command property value: like a message, and also `:` and `,`."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(finding: Finding, severity: str) -> str:
    """The `::warning file=...::message` command (`::error`/`::notice` by severity) for one finding.
    A notebook finding names its cell and line in the title."""
    properties: Dict[str, object] = {
        "file": display_path(finding.path),
        "line": finding.line,
        "col": finding.column,
        "endLine": finding.end_line,
        "endColumn": finding.end_column,
        "title": f"{finding.code} {finding.name}",
    }
    if finding.cell is not None:
        # Lines count within the cell, not in the notebook's JSON: annotate the file, say where.
        properties = {"file": properties["file"], "title": f"{properties['title']} (cell {finding.cell}, line {finding.line})"}
    joined = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items())
    command = _COMMANDS.get(severity, "warning")
    return f"::{command} {joined}::{escape_data(finding.message)}"


def format_github(report: "Report") -> str:
    """One workflow command per finding."""
    return "".join(annotation(finding, report.severity(finding.code)) + "\n" for finding in report.findings)
