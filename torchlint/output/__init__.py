"""Finding formatters: full (with source context), concise, grouped, pylint and JSON; the CI
formats live in their own modules, imported on first use."""

from __future__ import annotations

import importlib
import itertools
import json
import unicodedata
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Mapping, Optional, Sequence

import click

from torchlint.engine.catalog import RuleInfo
from torchlint.engine.findings import Finding, Fix

DEFAULT_SEVERITY = "warning"
# The colour of each severity's code, word and carets when colour is on.
SEVERITY_COLORS = {"error": "red", "warning": "yellow", "info": "cyan"}


@dataclass(frozen=True)
class Report:
    """Everything a formatter needs: sorted findings and the reported source lines per path."""

    findings: Sequence[Finding]
    snippets: Dict[str, Dict[str, str]]
    unsafe_fixes: bool
    color: bool
    # The documentation URL template of the rules (`docs-url`, with `{code}`); None keeps
    # each finding's repository-relative `url`.
    docs_url: Optional[str] = None
    # The rule catalog by code (empty: ask the rules, which imports them).
    rules: Mapping[str, RuleInfo] = field(default_factory=dict)

    def url(self, code: str) -> Optional[str]:
        return self.docs_url.format(code=code) if self.docs_url else None

    def rule(self, code: str) -> Optional[RuleInfo]:
        """The metadata of the rule that reported `code`; None for an unknown code."""
        if not self.rules:
            from torchlint.engine.catalog import from_rules

            object.__setattr__(self, "rules", {info.code: info for info in from_rules()})
        return self.rules.get(code)

    def severity(self, code: str) -> str:
        """"error", "warning" or "info"."""
        info = self.rule(code)
        return info.severity if info else DEFAULT_SEVERITY

    def impact(self, code: str) -> Optional[str]:
        """"low", "medium" or "high"; None for an unknown code."""
        info = self.rule(code)
        return info.impact if info else None


def _marker(finding: Finding, report: Report) -> str:
    return "[*] " if finding.fixable(report.unsafe_fixes) else ""


def _paint(text: str, severity: str, report: Report) -> str:
    """`text` in the colour of `severity` when colour is on."""
    return click.style(text, fg=SEVERITY_COLORS.get(severity), bold=True) if report.color else text


def _labelled(finding: Finding, report: Report) -> str:
    """`CODE [*] severity: message`: what every text format says about a finding."""
    severity = report.severity(finding.code)
    return f"{_paint(finding.code, severity, report)} {_marker(finding, report)}{_paint(severity, severity, report)}: {finding.message}"


def _header(finding: Finding, report: Report) -> str:
    where = f"{finding.location}:"
    return f"{click.style(where, bold=True) if report.color else where} {_labelled(finding, report)}"


def _width(character: str) -> int:
    """Terminal columns of a character: two for East Asian wide and full-width ones."""
    return 2 if unicodedata.east_asian_width(character) in ("W", "F") else 1


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
            indent = "".join("\t" if c == "\t" else " " * _width(c) for c in line[: finding.column - 1])
            carets = "^" * max(1, sum(_width(c) for c in line[finding.column - 1 : end - 1]))
            carets = _paint(carets, report.severity(finding.code), report)
            chunks.append(f"{gutter} | {line.rstrip()}\n{pad} | {indent}{carets}")
            impact = report.impact(finding.code)
            if impact:
                chunks.append(f"{pad} = impact: {impact}")
        chunks.append("")
    return "\n".join(chunks)


def format_grouped(report: Report) -> str:
    """The findings under the name of each file, one indented line each."""
    chunks: List[str] = []
    for path, findings in itertools.groupby(report.findings, key=lambda f: f.path):
        title = click.style(path, bold=True, underline=True) if report.color else path
        chunks.append(title + ":\n" + "".join(f"  {f.position} {_labelled(f, report)}\n" for f in findings) + "\n")
    return "".join(chunks)


def format_pylint(report: Report) -> str:
    """`path:line: [CODE] message`, as pylint's parseable output (a notebook names its cell)."""
    lines = []
    for finding in report.findings:
        cell = f"cell {finding.cell}, line {finding.line}: " if finding.cell is not None else ""
        lines.append(f"{finding.path}:{finding.line}: [{finding.code}] {cell}{finding.message}\n")
    return "".join(lines)


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


def finding_json(finding: Finding, url: Optional[str] = None) -> Dict[str, object]:
    """A finding as JSON; `url` replaces the finding's own documentation link."""
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
        "url": url or finding.url,
        "cell": finding.cell,
    }


def reported_json(finding: Finding, report: Report) -> Dict[str, object]:
    """A finding as the JSON formats print it: with the report's link, the rule's severity and impact."""
    return {**finding_json(finding, report.url(finding.code)), "severity": report.severity(finding.code), "impact": report.impact(finding.code)}


def format_json(report: Report) -> str:
    return json.dumps([reported_json(f, report) for f in report.findings], indent=2) + "\n"


def format_json_lines(report: Report) -> str:
    return "".join(json.dumps(reported_json(f, report)) + "\n" for f in report.findings)


def _lazy(module: str, function: str) -> Callable[[Report], str]:
    """A formatter from a module imported on first use (they import more than a run needs)."""

    def run(report: Report) -> str:
        formatter: Callable[[Report], str] = getattr(importlib.import_module(f"torchlint.output.{module}"), function)
        return formatter(report)

    return run


FORMATTERS: Dict[str, Callable[[Report], str]] = {
    "full": format_full,
    "concise": format_concise,
    "grouped": format_grouped,
    "pylint": format_pylint,
    "json": format_json,
    "json-lines": format_json_lines,
    "github": _lazy("github", "format_github"),
    "sarif": _lazy("sarif", "format_sarif"),
    "junit": _lazy("junit", "format_junit"),
    "gitlab": _lazy("gitlab", "format_gitlab"),
    "rdjson": _lazy("rdjson", "format_rdjson"),
}
