"""The per-rule before/after programs and the check that torchlint's fixer turns one into the other.

The programs live in the repository's `fixtures/` directory, which is installed as the package
`torchlint.verify.workloads` (pyproject's package-dir), so the same files serve the test suite in a
checkout and `torchlint verify` from an installed wheel.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from torchlint.engine.context import Options
from torchlint.engine.findings import Applicability
from torchlint.engine.fixer import fix_text
from torchlint.engine.rule import all_rules

BEFORE = "before"
AFTER = "after"
WORKLOADS_PACKAGE = "torchlint.verify.workloads"
# How a program's text shows its workload: distributed first, then the loader, then the model.
WORKLOAD_MARKERS = (
    ("DistributedDataParallel", "DDP step, one process"),
    ("decode(index)", "decoding loader"),
    ("TransformerBlock", "transformer block step"),
    ("resnet", "ResNet step"),
    ("nn.Conv2d", "conv net step"),
)


class VerifyError(Exception):
    """verify cannot run at all: no workloads, an unknown rule, bad arguments."""


@dataclass(frozen=True)
class Fixture:
    """One rule's program pair and what verify needs to know about the rule."""

    code: str
    name: str
    fixable: bool
    directory: Path

    def read(self, label: str) -> str:
        return (self.directory / f"{label}.py").read_text(encoding="utf-8")

    @property
    def workload(self) -> str:
        """What the programs train, named after the first workload their text uses."""
        text = self.read(BEFORE) + self.read(AFTER)
        return next((name for marker, name in WORKLOAD_MARKERS if marker in text), "MLP step")


def default_fixtures_dir() -> Path:
    """Where the programs are: the installed workloads package (the checkout's fixtures/ when editable)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(WORKLOADS_PACKAGE)
    except ImportError:
        spec = None
    locations = list(spec.submodule_search_locations or []) if spec else []
    if not locations or not Path(locations[0]).is_dir():
        raise VerifyError(f"the verify workloads are not installed ({WORKLOADS_PACKAGE}); reinstall torchlint")
    return Path(locations[0])


def fixture_codes(fixtures_dir: Path) -> List[str]:
    """Codes of the rules that have both `before.py` and `after.py`, sorted."""
    if not fixtures_dir.is_dir():
        raise VerifyError(f"no fixtures directory at {fixtures_dir}")
    return sorted(
        path.name for path in fixtures_dir.iterdir() if (path / "before.py").is_file() and (path / "after.py").is_file()
    )


def select_codes(codes: Optional[Sequence[str]], available: Sequence[str]) -> List[str]:
    """The requested codes (all available ones when None), each of which must have a fixture pair."""
    if codes is None:
        return list(available)
    chosen = list(dict.fromkeys(code.upper() for code in codes))
    missing = [code for code in chosen if code not in available]
    if missing:
        raise VerifyError(f"no fixture pair for {', '.join(missing)}; available: {', '.join(available)}")
    return chosen


def load_fixtures(codes: Sequence[str], fixtures_dir: Path) -> List[Fixture]:
    """The fixture pairs of `codes`; a code that names no rule is treated as fixable."""
    rules = {rule.code: rule for rule in all_rules()}
    fixtures = []
    for code in codes:
        rule = rules.get(code)
        fixable = rule is None or rule.fix_applicability is not Applicability.NONE
        fixtures.append(Fixture(code, rule.name if rule else "", fixable, fixtures_dir / code))
    return fixtures


def first_difference(expected: str, actual: str) -> str:
    """Where two texts first differ, as 'line N: expected ... got ...'."""
    want, got = expected.splitlines(), actual.splitlines()
    for number, (a, b) in enumerate(zip(want, got), start=1):
        if a != b:
            return f"line {number}: after.py has {a.strip()!r}, the fixer wrote {b.strip()!r}"
    if len(want) != len(got):
        return f"after.py has {len(want)} lines, the fixer wrote {len(got)}"
    return "the texts differ in line endings or trailing whitespace"


# `verify` runs rules in threads; CPython's parser and `ast` compiler may fail when called from
# several threads at once ("SystemError: AST constructor recursion depth mismatch"), so the
# fixes are computed one at a time (the programs still run in parallel).
_FIXING = threading.Lock()


def fixed_program(before: str, after: str, fixable: bool) -> Tuple[str, Optional[str]]:
    """The program to run as 'after' and, if the fixer disagrees with after.py, why.

    For a rule without an automatic fix, after.py is the hand-written remedy and runs as written.
    """
    if not fixable:
        return after, None
    # Every finding's fix is proven, preview variants included: the pair is the rule's own program.
    with _FIXING:
        fixed = fix_text(before, "before.py", all_rules(), Options(preview=True), unsafe=True).text
    if fixed != after:
        return fixed, "torchlint's fix of before.py differs from after.py, " + first_difference(after, fixed)
    return fixed, None
