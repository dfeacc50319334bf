"""The real-code precision benchmark's scoring script and its data files."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

RUN_PY = Path(__file__).resolve().parent.parent / "benchmarks" / "precision" / "run.py"
_spec = importlib.util.spec_from_file_location("precision_run", RUN_PY)
assert _spec is not None and _spec.loader is not None
bench = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = bench  # dataclasses look their module up
_spec.loader.exec_module(bench)

REPOS = [bench.Repo("a/dev", "0" * 40, "dev", ""), bench.Repo("b/held", "1" * 40, "heldout", "")]


def _finding(repo: str, path: str, line: int, code: str = "TL101") -> object:
    return bench.Finding(repo, path, line, code, "message")


def _label(repo: str, path: str, line: int, label: str, code: str = "TL101") -> object:
    return bench.Label(repo, path, line, code, label, "reason")


def _labels(*labels: object) -> dict:
    return {label.key: label for label in labels}  # type: ignore[attr-defined]


def test_precision_excludes_debatable_and_unlabelled() -> None:
    findings = [
        _finding("a/dev", "t.py", 1),
        _finding("a/dev", "t.py", 2),
        _finding("a/dev", "t.py", 3),
        _finding("a/dev", "t.py", 4),
        _finding("a/dev", "t.py", 5),
    ]
    labels = _labels(
        _label("a/dev", "t.py", 1, "TP"),
        _label("a/dev", "t.py", 2, "TP"),
        _label("a/dev", "t.py", 3, "FP"),
        _label("a/dev", "t.py", 4, "debatable"),
    )
    report = bench.score(REPOS, findings, labels, set())
    rule = report.halves["dev"]["TL101"]
    assert (rule.tp, rule.fp, rule.debatable, rule.unlabelled) == (2, 1, 1, 1)
    assert rule.precision == pytest.approx(0.667)
    assert [finding.line for finding in report.unlabelled] == [5]


def test_gone_findings_and_recall_on_audited_files() -> None:
    labels = _labels(
        _label("b/held", "m.py", 1, "TP"),  # no longer reported: recall loss
        _label("b/held", "m.py", 2, "FP"),  # no longer reported: fixed
        _label("b/held", "m.py", 3, "FN"),  # a miss that is now reported
        _label("b/held", "m.py", 4, "FN"),  # still missed
        _label("b/held", "other.py", 9, "FN"),  # not in an audited file
    )
    findings = [_finding("b/held", "m.py", 3)]
    report = bench.score(REPOS, findings, labels, {("b/held", "m.py")})
    rule = report.halves["heldout"]["TL101"]
    assert (rule.tp, rule.gone_tp, rule.gone_fp) == (1, 1, 1)
    assert (rule.audited_found, rule.audited_expected) == (1, 3)
    assert rule.recall == pytest.approx(0.333)


def test_notebook_findings_name_their_cell() -> None:
    assert bench._location({"path": "nb.ipynb", "cell": 3}) == "nb.ipynb#cell3"
    assert bench._location({"path": "train.py", "cell": None}) == "train.py"


def test_labels_reject_unknown_kinds(tmp_path: Path) -> None:
    labels = tmp_path / "labels.tsv"
    labels.write_text("repo\tpath\tline\tcode\tlabel\treason\na/dev\tt.py\t1\tTL101\tmaybe\tx\n")
    with pytest.raises(SystemExit, match="unknown label 'maybe'"):
        bench.load_labels(labels)


def test_shipped_labels_belong_to_pinned_repositories() -> None:
    repos = {repo.name for repo in bench.load_repos()}
    labels = bench.load_labels()
    assert {label.repo for label in labels.values()} <= repos
    assert {repo for repo, _ in bench.load_audited()} <= repos
    assert {repo.half for repo in bench.load_repos()} == set(bench.HALVES)
