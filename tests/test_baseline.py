"""--baseline FILE and --update-baseline: only findings the baseline does not record."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from torchlint.cli import main

TRAIN = """import torch


def train(model, loader, optimizer):
    for x in loader:
        total += model(x.cuda()).item()
    optimizer.zero_grad(set_to_none=False)
"""


@pytest.fixture
def project(src_project) -> Path:
    return src_project(TRAIN)


def run(*args: str):
    return CliRunner().invoke(main, ["check", "--output-format", "json", *args])


def reported(*args: str):
    result = run(*args)
    return result, [(d["code"], d["line"]) for d in json.loads(result.stdout)] if result.stdout.startswith("[") else None


def test_update_then_only_new_findings(project: Path):
    recorded = run("--baseline", "baseline.json", "--update-baseline")
    assert recorded.exit_code == 0 and "Recorded 2 findings" in recorded.stderr
    document = json.loads((project / "baseline.json").read_text())
    assert [(item["path"], item["code"]) for item in document["findings"]] == [("src/train.py", "TL101"), ("src/train.py", "TL401")]
    result, found = reported("--baseline", "baseline.json")
    assert result.exit_code == 0 and found == [] and "2 findings in the baseline not shown" in result.stderr
    # Unrelated edits move every line; the fingerprints survive.
    (project / "src" / "train.py").write_text('"""Training."""\nimport torch\n\nX = 1\n\n\ndef helper():\n    pass\n' + TRAIN[len("import torch\n"):])
    assert reported("--baseline", "baseline.json")[1] == []
    # A new finding, and a second identical one in the same function, are reported.
    text = (project / "src" / "train.py").read_text().replace("        total += model(x.cuda()).item()\n", "        total += model(x.cuda()).item()\n        total += model(x.cuda()).item()\n")
    (project / "src" / "train.py").write_text(text + "\n\ndef evaluate(model, loader):\n    for x in loader:\n        total += model(x.cuda()).item()\n")
    result, found = reported("--baseline", "baseline.json")
    assert result.exit_code == 1 and [code for code, _ in found] == ["TL101", "TL101"]


def test_the_baseline_is_independent_of_the_working_directory(project: Path):
    run("--baseline", "baseline.json", "--update-baseline")
    os.chdir(project / "src")
    assert reported("--baseline", "../baseline.json", "train.py")[1] == []


def test_bad_baselines_are_errors(project: Path):
    result = run("--baseline", "missing.json")
    assert result.exit_code == 2 and "baseline not found" in result.stderr
    (project / "bad.json").write_text("[1, 2]")
    result = run("--baseline", "bad.json")
    assert result.exit_code == 2 and "not a torchlint baseline" in result.stderr
    result = run("--update-baseline")
    assert result.exit_code == 2 and "--update-baseline needs --baseline" in result.stderr
