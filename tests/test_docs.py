"""The committed rule pages in docs/rules match the rule docstrings."""

from __future__ import annotations

from pathlib import Path

from torchlint.docs import pages
from torchlint.engine.rule import all_rules

DOCS = Path(__file__).resolve().parent.parent / "docs" / "rules"


def test_rule_pages_are_in_sync_with_the_docstrings():
    expected = pages()
    committed = {path.name: path.read_text(encoding="utf-8") for path in DOCS.glob("*.md")}
    stale = sorted(name for name in expected if committed.get(name) != expected[name])
    extra = sorted(set(committed) - set(expected))
    assert not stale and not extra, f"run `python -m torchlint.docs` (stale: {stale}, extra: {extra})"


def test_every_finding_url_points_at_a_page():
    for rule in all_rules():
        assert (DOCS.parent.parent / rule.doc_url()).is_file()
