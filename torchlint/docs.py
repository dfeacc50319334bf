"""Per-rule documentation pages, generated from the rule docstrings.

`python -m torchlint.docs [DIRECTORY]` writes `DIRECTORY/CODE.md` for every rule and an
index `DIRECTORY/README.md` (default `docs/rules`); a test keeps the committed pages in sync.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Dict, Type

from torchlint.engine.rule import Rule, all_rules

HEADER = "<!-- Generated from the rule's docstring by `python -m torchlint.docs`; do not edit. -->\n"


def rule_page(rule: Type[Rule]) -> str:
    return (
        f"{HEADER}# {rule.code} {rule.name}\n\n"
        f"{rule.summary}.\n\n"
        f"Severity: {rule.severity}. Impact: {rule.impact}. Fix: {rule.fix_label()}. "
        + (f"{rule.tier_note()} " if rule.tier_note() else "")
        + f"Run `torchlint rule {rule.code}` for this page offline.\n\n"
        f"{rule.documentation()}"
    )


def index_page() -> str:
    rows = [f"| [{r.code}]({r.code}.md) | {r.name} | {r.severity} | {r.impact} | {r.fix_label()} | {r.summary} |" for r in all_rules()]
    head = "| code | name | severity | impact | fix | summary |\n| --- | --- | --- | --- | --- | --- |\n"
    return f"{HEADER}# torchlint rules\n\n{head}" + "\n".join(rows) + "\n"


def pages() -> Dict[str, str]:
    """File name -> content of every generated page."""
    generated = {f"{rule.code}.md": rule_page(rule) for rule in all_rules()}
    generated["README.md"] = index_page()
    return generated


def main(directory: str = "docs/rules") -> None:
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    for name, content in pages().items():
        (target / name).write_text(content, encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:2])
