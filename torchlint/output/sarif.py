"""SARIF 2.1.0 output, plus the repository paths the CI formats share."""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Dict, List, Mapping, Optional, Sequence, Type, Union
from urllib.parse import quote

from torchlint import __version__
from torchlint.engine.findings import Edit, Finding, Fix
from torchlint.output import DEFAULT_SEVERITY
from torchlint.engine.rule import Rule, all_rules

if TYPE_CHECKING:
    from torchlint.output import Report

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"
FINGERPRINT_KEY = "torchlint/v1"
_LEVELS = {"error": "error", "warning": "warning", "info": "note"}

Json = Dict[str, object]


def relative_to_cwd(path: str) -> Optional[PurePosixPath]:
    """`path` relative to the working directory as a POSIX path, or None when it lies outside."""
    try:
        return PurePosixPath(Path(os.path.abspath(path)).relative_to(Path.cwd()).as_posix())
    except ValueError:
        return None


def display_path(path: str) -> str:
    """The repository-relative POSIX form of `path`, or `path` itself outside the working directory."""
    relative = relative_to_cwd(path)
    return str(relative) if relative is not None else path


def _level(severity: str) -> str:
    return _LEVELS.get(severity, _LEVELS[DEFAULT_SEVERITY])


def _first_paragraph(markdown: str) -> str:
    """The first prose paragraph of a rule's documentation, on one line; "" if there is none."""
    body = "\n".join(line for line in markdown.splitlines() if not line.startswith("#"))
    for paragraph in body.split("\n\n"):
        if paragraph.strip() and not paragraph.lstrip().startswith("```"):
            return " ".join(paragraph.split())
    return ""


def _descriptor(rule: Type[Rule], help_uri: Optional[str]) -> Json:
    documentation = rule.documentation()
    descriptor: Json = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": _first_paragraph(documentation) or rule.summary},
        "help": {"text": documentation, "markdown": documentation},
        "defaultConfiguration": {"level": _level(rule.severity)},
        "properties": {"fixApplicability": rule.fix_applicability.value, "impact": rule.impact},
    }
    if help_uri:
        descriptor["helpUri"] = help_uri
    return descriptor


def _artifact_location(path: str) -> Json:
    """A URI relative to %SRCROOT% (the working directory), or an absolute file URI outside it.

    URIs percent-encode the name's bytes, so a name that is not valid UTF-8 (held as
    surrogate escapes) keeps its exact bytes, as `Path.as_uri` does for absolute paths."""
    relative = relative_to_cwd(path)
    if relative is None:
        return {"uri": Path(os.path.abspath(path)).as_uri()}
    return {"uri": quote(os.fsencode(str(relative))), "uriBaseId": SRCROOT}


def _region(span: Union[Finding, Edit]) -> Json:
    """A SARIF region; both use 1-based lines and columns with an exclusive end column."""
    return {
        "startLine": span.line,
        "startColumn": span.column,
        "endLine": span.end_line,
        "endColumn": span.end_column,
    }


def fingerprints(report: "Report") -> List[str]:
    """Per finding: a hash of rule, path and stripped line text, then its occurrence number.

    The line number is left out so a result keeps its identity when code above it moves.
    """
    seen: Counter[str] = Counter()
    prints = []
    for finding in report.findings:
        line = report.snippets.get(finding.path, {}).get(finding.snippet_key, "")
        key = "\0".join((finding.code, display_path(finding.path), line.strip()))
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        seen[digest] += 1
        prints.append(f"{digest}:{seen[digest]}")
    return prints


def _fix(fix: Fix, path: str) -> Json:
    """A SARIF fix: the edits as replacements in the finding's file."""
    replacements = [{"deletedRegion": _region(edit), "insertedContent": {"text": edit.content}} for edit in fix.edits]
    result: Json = {"artifactChanges": [{"artifactLocation": _artifact_location(path), "replacements": replacements}]}
    if fix.message:
        result["description"] = {"text": fix.message}
    return result


def _result(finding: Finding, rule_index: Mapping[str, int], report: "Report", fingerprint: str) -> Json:
    properties: Json = {"impact": report.impact(finding.code)}
    result: Json = {
        "ruleId": finding.code,
        "level": _level(report.severity(finding.code)),
        "message": {"text": finding.message},
        "locations": [
            {"physicalLocation": {"artifactLocation": _artifact_location(finding.path), "region": _region(finding)}}
        ],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
    }
    if finding.code in rule_index:
        result["ruleIndex"] = rule_index[finding.code]
    if finding.cell is not None:
        # The region counts lines within the cell; say which cell, in the text and as a property.
        result["message"] = {"text": f"cell {finding.cell}, line {finding.line}: {finding.message}"}
        properties["cell"] = finding.cell
    result["properties"] = properties
    if finding.fix is not None and finding.fixable(report.unsafe_fixes):
        result["fixes"] = [_fix(finding.fix, finding.path)]
    return result


def _directory_uri(directory: Path) -> str:
    uri = directory.as_uri()
    return uri if uri.endswith("/") else uri + "/"


def _run(rules: Sequence[Type[Rule]], results: List[Json], report: "Report") -> Json:
    driver = {
        "name": "torchlint",
        "version": __version__,
        "semanticVersion": __version__,
        "rules": [_descriptor(rule, report.url(rule.code)) for rule in rules],
    }
    return {
        "tool": {"driver": driver},
        "originalUriBaseIds": {SRCROOT: {"uri": _directory_uri(Path.cwd())}},
        "columnKind": "unicodeCodePoints",
        "results": results,
    }


def format_sarif(report: "Report") -> str:
    """One SARIF log with a single run that describes every registered rule."""
    rules = all_rules()
    rule_index = {rule.code: index for index, rule in enumerate(rules)}
    results = [
        _result(finding, rule_index, report, fingerprint)
        for finding, fingerprint in zip(report.findings, fingerprints(report))
    ]
    log = {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [_run(rules, results, report)]}
    return json.dumps(log, indent=2) + "\n"
