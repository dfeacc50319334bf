"""Rule documentation in the editor: the pages "Show documentation" opens, and hover text.

The pages are the ones `python -m torchlint.docs` generates (the text of `torchlint rule
CODE`), written once per server into a private temporary directory, so they open offline
and always match the installed version.
"""

from __future__ import annotations

import atexit
import re
import shutil
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Type

from torchlint.docs import rule_page
from torchlint.engine.rule import Rule, all_rules

_SECTION = re.compile(r"^## (.+)$", re.MULTILINE)
# A statement of measured cost, e.g. "Measured: 1.18x faster on an H100 (see gpu-results)".
_MEASURED = re.compile(r"^[*_]*measured\b[*_:]*\s*(.+)$", re.IGNORECASE | re.MULTILINE)


class RulePages:
    """The documentation page of each rule as a `file:` URI, written on first use."""

    def __init__(self) -> None:
        self._uris: Dict[str, str] = {}

    def uri(self, code: str) -> str:
        if not self._uris:
            directory = Path(tempfile.mkdtemp(prefix="torchlint-rules-"))
            atexit.register(shutil.rmtree, directory, True)
            for rule in all_rules():
                page = directory / f"{rule.code}.md"
                page.write_text(rule_page(rule), encoding="utf-8")
                self._uris[rule.code] = page.as_uri()
        return self._uris.get(code, "")


def sections(documentation: str) -> Dict[str, str]:
    """The `## Title` sections of a rule's documentation, by title."""
    parts = _SECTION.split(documentation)
    return {title.strip(): body.strip() for title, body in zip(parts[1::2], parts[2::2])}


def measured_cost(documentation: str) -> Optional[str]:
    """The rule's measured cost: a `## Measured ...` section or a line starting "Measured"."""
    for title, body in sections(documentation).items():
        if title.lower().startswith("measured"):
            return body
    match = _MEASURED.search(documentation)
    return match.group(1).strip() if match else None


def hover_text(rule: Type[Rule], href: str) -> str:
    """Markdown for a hover on a finding of `rule`: summary, why it is slow, measured cost."""
    documentation = rule.documentation()
    lines: List[str] = [
        f"**{rule.code} {rule.name}** ({rule.severity}, impact: {rule.impact}, fix: {rule.fix_applicability.value})",
        "",
        f"{rule.summary}.",
    ]
    why = sections(documentation).get("Why is this slow?")
    if why:
        lines += ["", "**Why is this slow?**", "", why]
    measured = measured_cost(documentation)
    if measured:
        lines += ["", f"**Measured:** {measured}"]
    lines += ["", f"[Documentation]({href}) · `torchlint rule {rule.code}`"]
    return "\n".join(lines)
