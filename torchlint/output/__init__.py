"""Finding formatters: full (with source context), concise and JSON."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Callable, Dict, List, Sequence

import click

from torchlint.engine.findings import Finding, Fix
from torchlint.output.github import format_github
from torchlint.output.junit import format_junit
from torchlint.output.sarif import format_sarif


@dataclass(frozen=True)
class Report:
    """Everything a formatter needs: sorted findings and the reported source lines per path."""

    findings: Sequence[Finding]
    snippets: Dict[str, Dict[str, str]]
    unsafe_fixes: bool
    color: bool


def _marker(finding: Finding, report: Report) -> str:
    return "[*] " if finding.fixable(report.unsafe_fixes) else ""


def _header(finding: Finding, report: Report) -> str:
    location = f"{finding.location}:"
    code = finding.code
    if report.color:
        location = click.style(location, bold=True)
        code = click.style(code, fg="red", bold=True)
    return f"{location} {code} {_marker(finding, report)}{finding.message}"


def format_concise(report: Report) -> str:
    return "".join(_header(f, report) + "\n" for f in report.findings)


def format_full(report: Report) -> str:
    """The header line, then the source line with a caret under the reported span."""
    chunks: List[str] = []
    for finding in report.findings:
        chunks.append(_header(finding, report))
        line = report.snippets.get(finding.path, {}).get(finding.snippet_key)
        if line is not None:
            gutter = str(finding.line)
            pad = " " * len(gutter)
            end = finding.end_column if finding.end_line == finding.line else len(line) + 1
            width = max(1, end - finding.column)
            indent = "".join(c if c == "\t" else " " for c in line[: finding.column - 1])
            carets = "^" * width
            if report.color:
                carets = click.style(carets, fg="red", bold=True)
            chunks.append(f"{gutter} | {line.rstrip()}\n{pad} | {indent}{carets}")
        chunks.append("")
    return "\n".join(chunks)


def fix_json(fix: Fix) -> Dict[str, object]:
    return {
        "applicability": fix.applicability.value,
        "message": fix.message,
        "edits": [
            {
                "content": edit.content,
                "location": {"line": edit.line, "column": edit.column},
                "end_location": {"line": edit.end_line, "column": edit.end_column},
            }
            for edit in fix.edits
        ],
    }


def finding_json(finding: Finding) -> Dict[str, object]:
    return {
        "code": finding.code,
        "name": finding.name,
        "message": finding.message,
        "path": finding.path,
        "line": finding.line,
        "column": finding.column,
        "end_line": finding.end_line,
        "end_column": finding.end_column,
        "fix": fix_json(finding.fix) if finding.fix else None,
        "url": finding.url,
        "cell": finding.cell,
    }


def format_json(report: Report) -> str:
    return json.dumps([finding_json(f) for f in report.findings], indent=2) + "\n"


def format_json_lines(report: Report) -> str:
    return "".join(json.dumps(finding_json(f)) + "\n" for f in report.findings)


FORMATTERS: Dict[str, Callable[[Report], str]] = {
    "full": format_full,
    "concise": format_concise,
    "json": format_json,
    "json-lines": format_json_lines,
    "github": format_github,
    "sarif": format_sarif,
    "junit": format_junit,
}
