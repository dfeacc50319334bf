"""The third recall round of issue 25, value flow: loaders that reach a training step loop
through another function, object, module or framework. Each cause with positives and hard
negatives, in the default mode a user runs."""

from __future__ import annotations

import json
import textwrap

import pytest
from click.testing import CliRunner

from torchlint.cli import main

pytestmark = pytest.mark.stable_only


def project(tmp_path, monkeypatch, files: dict, rule: str) -> list:
    """(path, line) of one rule's findings on a small project (a marked root), default mode."""
    (tmp_path / "setup.py").write_text("")
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", rule, "--output-format", "json", "."])
    return sorted((item["path"], item["line"]) for item in json.loads(result.stdout))


LINEAR_PROBE = """
import torch
from torch.utils.data import DataLoader

device = "cuda" if torch.cuda.is_available() else "cpu"
train_loader = DataLoader(train_set, batch_size=256, num_workers=8)
test_loader = DataLoader(test_set, batch_size=512, num_workers=8)
for epoch in range(100):
    for x, y in train_loader:
        loss = criterion(model(x.to(device)), y.to(device))
        {update}
    for x, y in test_loader:
        logits = model(x.to(device))
"""


@pytest.mark.parametrize("update, reported", [
    ("optimizer.zero_grad(); loss.backward(); optimizer.step()", True),
    ("print(loss)", False),  # an evaluation program that only evaluates runs once
])
def test_a_program_named_for_evaluation_that_trains_is_a_training_program(tmp_path, monkeypatch, update, reported):
    """A linear evaluation (`feature_eval/probe.py`) fits a classifier for many epochs: its
    loaders feed training, though the directory is named for evaluation."""
    files = {"feature_eval/probe.py": LINEAR_PROBE.format(update=update)}
    expected = [("feature_eval/probe.py", 6), ("feature_eval/probe.py", 7)] if reported else []
    assert project(tmp_path, monkeypatch, files, "TL203") == expected
