"""Fixture pairs: torchlint's fixer turns each before.py into after.py, and both programs agree."""

from __future__ import annotations

from pathlib import Path

import pytest

from torchlint.engine.fixer import fix_text
from torchlint.engine.linter import lint_text
from torchlint.engine.rule import all_rules
from conftest import preview_options

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CODES = sorted(path.name for path in FIXTURES.iterdir() if path.is_dir())
RULES = {rule.code: rule for rule in all_rules()}


def test_every_rule_has_a_fixture_pair():
    # TL000 and TL001 are about torchlint's own input (parse errors, noqa comments), not programs.
    assert set(CODES) == set(RULES) - {"TL000", "TL001"}
    for code in CODES:
        assert (FIXTURES / code / "before.py").is_file() and (FIXTURES / code / "after.py").is_file()


@pytest.mark.parametrize("code", CODES)
def test_before_has_only_its_own_rule(code):
    text = (FIXTURES / code / "before.py").read_text()
    found = {f.code for f in lint_text(text, "before.py", all_rules(), preview_options()).findings}
    assert found == {code}


@pytest.mark.parametrize("code", CODES)
def test_fixing_before_gives_after(code):
    before = (FIXTURES / code / "before.py").read_text()
    after = (FIXTURES / code / "after.py").read_text()
    result = fix_text(before, "before.py", all_rules(), preview_options(), unsafe=True)
    if RULES[code].fix_applicability.value == "none":
        assert result.text == before and not result.fixed
    else:
        assert result.text == after
        assert result.fixed and {f.code for f in result.fixed} == {code}
    assert not [f for f in lint_text(after, "after.py", all_rules(), preview_options()).findings if f.code == code]
