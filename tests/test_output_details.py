"""Output details: documentation URLs, statistics as JSON, the rule listing, colour, carets, progress."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from torchlint import cli
from torchlint.cli import main
from torchlint.config import DEFAULT_DOCS_URL

TRAIN = "import torch\nfor x in loader:\n    total += model(x.cuda()).item()\noptimizer.zero_grad(set_to_none=False)\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "train.py").write_text(TRAIN)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(*args: str, env=None):
    return CliRunner().invoke(main, ["check", "--no-cache", *args], env=env)


def test_documentation_urls_are_absolute_and_configurable(project: Path):
    assert {d["url"] for d in json.loads(run("--output-format", "json").stdout)} == {
        DEFAULT_DOCS_URL.format(code="TL101"),
        DEFAULT_DOCS_URL.format(code="TL401"),
    }
    (project / "pyproject.toml").write_text('[tool.torchlint]\ndocs-url = "https://docs.example.org/rules/{code}.html"\n')
    assert json.loads(run("--output-format", "json").stdout)[0]["url"] == "https://docs.example.org/rules/TL101.html"
    sarif = json.loads(run("--output-format", "sarif").stdout)
    rules = {rule["id"]: rule for rule in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["TL401"]["helpUri"] == "https://docs.example.org/rules/TL401.html"


def test_statistics_follow_the_output_format(project: Path):
    table = run("--statistics").stdout
    assert "TL101  sync-in-loop" in table
    data = json.loads(run("--statistics", "--output-format", "json").stdout)
    assert data == [
        {"code": "TL101", "name": "sync-in-loop", "count": 1, "fixable": False},
        {"code": "TL401", "name": "grad-zeroing", "count": 1, "fixable": True},
    ]


def test_rule_listing_is_aligned_and_has_json():
    lines = CliRunner().invoke(main, ["rule", "--all"]).stdout.splitlines()
    items = json.loads(CliRunner().invoke(main, ["rule", "--all", "--output-format", "json"]).stdout)
    assert [item["code"] for item in items][:2] == ["TL000", "TL001"] and all(item["documentation"] for item in items)
    assert len(lines) == len(items) >= 20
    starts = []
    for line, item in zip(lines, items):
        found, end = [], 0
        for column in ("name", "severity", "summary"):
            found.append(line.index(item[column], end))
            end = found[-1] + len(item[column])
        starts.append(found)
    assert len({tuple(found) for found in starts}) == 1
    tl102 = [line for line in lines if line.startswith("TL102")][0]
    assert "safe/unsafe" in tl102


def test_a_sometimes_unsafe_fix_says_so():
    page = CliRunner().invoke(main, ["rule", "TL102"]).stdout
    assert "Fix: safe (unsafe for random factories" in page
    assert "Fix: unsafe." in CliRunner().invoke(main, ["rule", "TL101"]).stdout


def test_force_color_and_no_color(project: Path):
    assert "\x1b[" in run(env={"FORCE_COLOR": "1"}).stdout
    assert "\x1b[" not in run(env={"NO_COLOR": "1"}).stdout
    assert "\x1b[" not in run("--color", "never", env={"FORCE_COLOR": "1"}).stdout


def test_caret_is_aligned_under_wide_characters(project: Path):
    (project / "train.py").write_text('import torch\nfor x in loader:\n    s = "数据"; total += model(x.cuda()).item()\n')
    source, carets = run("--output-format", "full", "--color", "never").stdout.splitlines()[1:3]
    wide = source.index("数")
    # Each of the two wide characters takes two columns on a terminal.
    start = source.index("item()") + 2
    assert carets.index("^") == start and carets.count("^") == len("item()")
    assert wide < start


def test_progress_appears_on_a_terminal_after_the_delay(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch):
    quiet = cli._Progress(3, enabled=True)
    quiet()
    quiet.finish()
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(cli._Progress, "DELAY", -1.0)
    progress = cli._Progress(3, enabled=True)
    progress.shown_at -= 1
    progress()
    progress.finish()
    assert capsys.readouterr().err == "\rtorchlint: checked 1 of 3 files\r\x1b[K"
    silent = cli._Progress(3, enabled=False)
    silent()
    assert capsys.readouterr().err == ""
