"""JUnit XML: one `torchlint` test suite with a failed test case per finding."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING, Dict, Mapping

from torchlint.engine.findings import Finding
from torchlint.output.sarif import display_path

if TYPE_CHECKING:
    from torchlint.output import Report

# Characters XML 1.0 cannot carry at all, even escaped (control characters, lone surrogates).
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_safe(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def _attributes(values: Mapping[str, object]) -> Dict[str, str]:
    return {key: _xml_safe(str(value)) for key, value in values.items()}


def _element(parent: ET.Element, tag: str, attributes: Mapping[str, object], text: str = "") -> ET.Element:
    """A child element; ElementTree escapes markup, characters XML cannot hold become U+FFFD."""
    element = ET.SubElement(parent, tag, _attributes(attributes))
    if text:
        element.text = _xml_safe(text)
    return element


def _testcase(suite: ET.Element, finding: Finding, severity: str) -> None:
    path = display_path(finding.path)
    case = _element(
        suite,
        "testcase",
        {
            "classname": path,
            "name": f"{finding.code} {finding.name} at {finding.position}",
            "file": path,
            "line": finding.line,
        },
    )
    details = f"{path}:{finding.position}: {finding.code} {finding.message}"
    _element(case, "failure", {"type": severity, "message": finding.message}, details)


def format_junit(report: "Report") -> str:
    """A `testsuites` document holding the `torchlint` suite."""
    count = len(report.findings)
    totals = {"tests": count, "failures": count, "errors": 0}
    root = ET.Element("testsuites", _attributes({"name": "torchlint", **totals}))
    suite = _element(root, "testsuite", {"name": "torchlint", **totals, "skipped": 0})
    for finding in report.findings:
        _testcase(suite, finding, report.severity(finding.code))
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"
