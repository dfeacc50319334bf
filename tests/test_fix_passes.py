"""`--fix` passes over the files again while a pass fixes something (a fix in one file can
make another file's finding fixable through the project's facts), so a second run is idle."""

from __future__ import annotations

from typing import List, Sequence

from torchlint.engine import runner
from torchlint.engine.findings import Finding
from torchlint.engine.runner import FileJob, FileOutcome, FixMode, RunOptions, check_files


def _finding(code: str) -> Finding:
    return Finding(code=code, name="n", message="m", path="a.py", line=1, column=1, end_line=1, end_column=2)


def _passes(monkeypatch, fixed_per_pass: List[int], mode: FixMode) -> List[FileOutcome]:
    calls = iter(fixed_per_pass)

    def fake(jobs: Sequence[FileJob], options: RunOptions, workers: int, progress=None) -> List[FileOutcome]:
        count = next(calls)
        return [FileOutcome(job.path, fixed=tuple(_finding(f"TL{n}") for n in range(count))) for job in jobs]

    monkeypatch.setattr(runner, "_check_files", fake)
    monkeypatch.setattr(runner, "_remove_abandoned_temporaries", lambda jobs: None)
    return check_files([FileJob("a.py", frozenset({"TL106"}))], RunOptions(mode=mode), 1)


def test_fix_passes_again_until_a_pass_fixes_nothing(monkeypatch):
    outcomes = _passes(monkeypatch, [2, 1, 0], FixMode.FIX)
    assert len(outcomes[0].fixed) == 3


def test_fix_passes_are_bounded(monkeypatch):
    outcomes = _passes(monkeypatch, [1, 1, 1, 1, 1], FixMode.FIX)
    assert len(outcomes[0].fixed) == runner.FIX_PASSES


def test_check_and_diff_run_once(monkeypatch):
    for mode in (FixMode.CHECK, FixMode.DIFF):
        assert len(_passes(monkeypatch, [2, 5], mode)[0].fixed) == 2
