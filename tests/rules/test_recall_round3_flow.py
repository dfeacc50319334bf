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


LISTED = """
import torch
from torch.utils.data import DataLoader

def run(rank, epochs):
    train_loader = DataLoader(train_set, num_workers=8, pin_memory=True, batch_sampler=sampler)
    eval_loader = DataLoader(eval_set, num_workers=8, pin_memory=True)
    model = Net().cuda(rank)
    for epoch in range(epochs):
        train_and_evaluate(epoch, model, [train_loader, eval_loader])

def train_and_evaluate(epoch, model, loaders):
    {unpacking}
    for x, y in train_loader:
        loss = model(x.cuda(rank, non_blocking=True), y.cuda(rank, non_blocking=True))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""


@pytest.mark.parametrize("unpacking, lines", [
    ("train_loader, eval_loader = loaders", [6]),
    ("eval_loader, train_loader = loaders", [7]),  # the loop iterates the other element
    ("train_loader = make_loader(loaders)", []),  # no unpacking: a loader of its own
])
def test_a_loader_in_a_list_argument_unpacked_by_the_callee(tmp_path, monkeypatch, unpacking, lines):
    """`train_and_evaluate(..., [train_loader, eval_loader])` every epoch, and `train_loader,
    eval_loader = loaders` in the callee: the pass over the first element repeats."""
    files = {"train.py": LISTED.format(unpacking=unpacking)}
    assert project(tmp_path, monkeypatch, files, "TL203") == [("train.py", line) for line in lines]
