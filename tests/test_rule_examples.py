"""Every rule's documented examples behave as documented, and its metadata is complete."""

from __future__ import annotations

import pytest

from torchlint.engine.rule import IMPACTS, all_rules

from conftest import lint

RULES = all_rules()
BAD = [(rule, index, code) for rule in RULES for index, code in enumerate(rule.bad_examples)]
GOOD = [(rule, index, code) for rule in RULES for index, code in enumerate(rule.good_examples)]


@pytest.mark.parametrize("rule,index,code", BAD, ids=[f"{r.code}-bad{i}" for r, i, _ in BAD])
def test_bad_example_reports_once(rule, index, code):
    findings = lint(code, [rule.code])
    assert [f.code for f in findings] == [rule.code], code


@pytest.mark.parametrize("rule,index,code", GOOD, ids=[f"{r.code}-good{i}" for r, i, _ in GOOD])
def test_good_example_is_silent(rule, index, code):
    assert lint(code, [rule.code]) == [], code


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_rule_metadata_and_docs(rule):
    assert rule.code.startswith("TL") and len(rule.code) == 5
    assert rule.name and rule.name == rule.name.lower()
    assert rule.summary
    assert rule.impact in IMPACTS, f"{rule.code} declares no impact level"
    assert rule.bad_examples and rule.good_examples
    doc = rule.documentation()
    for heading in ("## What it does", "## Example", "## Use instead", "## Fix applicability"):
        assert heading in doc, f"{rule.code} docstring lacks {heading}"
    assert "## Why is this slow?" in doc or "## Why it matters" in doc


def test_codes_and_names_are_unique():
    assert len({r.code for r in RULES}) == len(RULES)
    assert len({r.name for r in RULES}) == len(RULES)


def test_rules_load_from_a_source_checkout(monkeypatch):
    """`python -m torchlint` run from a checkout's root finds the rules beside the package."""
    import importlib
    import sys
    from pathlib import Path

    from torchlint.engine import rule

    real_import = importlib.import_module

    def not_installed(name, *args, **kwargs):
        if name == "torchlint.rules":
            raise ModuleNotFoundError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(importlib, "import_module", not_installed)
    monkeypatch.delitem(sys.modules, "torchlint.rules")
    package = rule.rules_package()
    assert Path(package.__path__[0]).name == "rules"
    assert sys.modules["torchlint.rules"] is package
