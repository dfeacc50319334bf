"""Differential tests of the fixes: small programs run before and after fixing, compared.

Each file in `programs/` holds the programs of one rule, each starting with a header
`# %% <title> [<expect>]`: `safe` (plain `--fix` changes it), `unsafe` (only
`--unsafe-fixes` does), or `none` (no fix is applied); `[unsafe, same]` also promises that
the unsafe fix keeps the output. Every variant of every program runs in one subprocess
(`runner.py`) on CPU torch. A safe fix must keep the output (what is printed and whether and
what it raises) exactly; an unsafe fix must parse and must not raise where the original ran;
fixing twice must give what fixing once gave.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List

import pytest

pytest.importorskip("torch")

from torchlint.engine.findings import Applicability  # noqa: E402
from torchlint.engine.fixer import fix_text  # noqa: E402
from torchlint.engine.options import Options  # noqa: E402
from torchlint.engine.rule import all_rules  # noqa: E402

HERE = Path(__file__).resolve().parent
HEADER = re.compile(r"^# %% (?P<title>.+?) \[(?P<expect>safe|unsafe|none)(?P<same>, same)?\]\n", re.MULTILINE)
RULES = {rule.code: rule for rule in all_rules()}
FIXABLE = sorted(code for code, rule in RULES.items() if rule.fix_applicability is not Applicability.NONE)


@dataclass(frozen=True)
class Program:
    code: str
    title: str
    expect: str
    same: bool
    source: str

    @property
    def id(self) -> str:
        return f"{self.code}: {self.title}"

    def fixed(self, unsafe: bool, source: str = "") -> str:
        return fix_text(source or self.source, f"{self.code.lower()}.py", [RULES[self.code]], Options(preview=True), unsafe).text


def _load(path: Path) -> List[Program]:
    text = path.read_text()
    headers = list(HEADER.finditer(text))
    return [
        Program(path.stem, h.group("title"), h.group("expect"), bool(h.group("same")), text[h.end() : nxt.start() if nxt else len(text)])
        for h, nxt in zip(headers, [*headers[1:], None])
    ]


PROGRAMS = [program for path in sorted((HERE / "programs").glob("TL*.py")) for program in _load(path)]


@pytest.fixture(scope="module")
def outputs() -> Dict[str, Dict[str, object]]:
    """What each original and fixed program printed and raised, keyed by source."""
    sources = sorted({text for p in PROGRAMS for text in (p.source, p.fixed(False), p.fixed(True))})
    result = subprocess.run(
        [sys.executable, str(HERE / "runner.py")], input=json.dumps(sources), capture_output=True, text=True, timeout=900, check=True
    )
    return dict(zip(sources, json.loads(result.stdout)))


def test_every_fixable_rule_has_a_control_and_five_adversarial_programs():
    counts = {code: sum(p.code == code for p in PROGRAMS) for code in FIXABLE}
    assert all(count >= 6 for count in counts.values()), counts


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.id)
def test_fixed_program_behaves_as_its_fix_promises(program: Program, outputs):
    original = outputs[program.source]
    assert original["error"] is None, f"the program itself raises {original['error']}"
    safe, unsafe = program.fixed(False), program.fixed(True)
    assert (safe != program.source, unsafe != program.source) == {
        "safe": (True, True), "unsafe": (False, True), "none": (False, False)
    }[program.expect]
    for text in (safe, unsafe):
        compile(text, program.id, "exec")
    assert outputs[safe] == original, "a safe fix changed what the program does"
    assert outputs[unsafe]["error"] is None, "an unsafe fix made the program raise"
    if program.same:
        assert outputs[unsafe] == original
    assert program.fixed(False, safe) == safe and program.fixed(True, unsafe) == unsafe, "fixing twice differs from once"
