"""GitLab Code Quality: the JSON array GitLab reads from a `codequality` report artifact
(https://docs.gitlab.com/ci/testing/code_quality/#code-quality-report-format)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Dict

from torchlint.engine.findings import Finding
from torchlint.output.sarif import display_path, fingerprints

if TYPE_CHECKING:
    from torchlint.output import Report

# GitLab's severities are info, minor, major, critical and blocker.
SEVERITIES = {"error": "critical", "warning": "major", "info": "info"}


def _issue(finding: Finding, severity: str, fingerprint: str) -> Dict[str, object]:
    description = f"{finding.code} {finding.message}"
    line = finding.line
    if finding.cell is not None:
        # Lines count within the cell, not in the notebook's JSON: point at the file, say where.
        description, line = f"{finding.code} cell {finding.cell}, line {finding.line}: {finding.message}", 1
    return {
        "description": description,
        "check_name": f"{finding.code} {finding.name}",
        "fingerprint": fingerprint,
        "severity": SEVERITIES.get(severity, "major"),
        "location": {"path": display_path(finding.path), "lines": {"begin": line}},
    }


def format_gitlab(report: "Report") -> str:
    """One issue per finding, with the SARIF format's fingerprints (stable when lines move)."""
    issues = [
        _issue(finding, report.severity(finding.code), fingerprint)
        for finding, fingerprint in zip(report.findings, fingerprints(report))
    ]
    return json.dumps(issues, indent=2) + "\n"
