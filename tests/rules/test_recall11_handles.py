"""Functions called through lists of handles (`project._handle_calls`): metric functions of
another module held in a list, a dict or a `getattr` comprehension and called as the
elements of a loop in the training step run per step, so a `.item()` inside them is
per-step work (TL101). Hard negatives: handles never called per step, a `getattr` on a
module outside the project, a list of things that are not functions."""

from __future__ import annotations

import textwrap
from typing import Dict

import pytest
from click.testing import CliRunner

from torchlint.cli import main

pytestmark = pytest.mark.stable_only


def findings(tmp_path, monkeypatch, files: Dict[str, str]) -> set:
    import json

    (tmp_path / "setup.py").write_text("")
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", "TL101", "--output-format", "json", "."])
    return {(item["path"].split("/")[-1], item["code"], item["line"]) for item in json.loads(result.stdout)}


METRIC = """
import torch


def accuracy(output, target):
    with torch.no_grad():
        pred = torch.argmax(output, dim=1)
        correct = torch.sum(pred == target).item()
    return correct / len(target)


def _private(output, target):
    return torch.sum(output).item()
"""

TRAINER = """
import torch
{imports}


class Trainer:
    def __init__(self, model, optimizer, loader, config):
        self.model = model
        self.optimizer = optimizer
        self.loader = loader
        self.metric_ftns = {handles}

    def train_epoch(self):
        for data, target in self.loader:
            data, target = data.cuda(), target.cuda()
            self.optimizer.zero_grad()
            output = self.model(data)
            loss = torch.nn.functional.cross_entropy(output, target)
            loss.backward()
            self.optimizer.step()
            for {element} in {loop}:
                print({call}(output, target))

    def train(self, epochs):
        for epoch in range(epochs):
            self.train_epoch()
"""


def trainer(imports: str, handles: str, element: str = "met", loop: str = "self.metric_ftns", call: str = "met") -> str:
    return TRAINER.format(imports=imports, handles=handles, element=element, loop=loop, call=call)


PER_STEP = {("metric.py", "TL101", 8)}


@pytest.mark.parametrize(
    ("imports", "handles", "element", "loop"),
    [
        ("import model.metric as module_metric", '[getattr(module_metric, met) for met in config["metrics"]]', "met", "self.metric_ftns"),
        ("from model.metric import accuracy", "[accuracy]", "met", "self.metric_ftns"),
        ("from model import metric", "(metric.accuracy,)", "i, met", "enumerate(self.metric_ftns)"),
        ("from model.metric import accuracy", '{"acc": accuracy}', "name, met", "self.metric_ftns.items()"),
        ("from model.metric import accuracy", '{"acc": accuracy}', "met", "self.metric_ftns.values()"),
    ],
)
def test_metric_handles_called_every_step(tmp_path, monkeypatch, imports, handles, element, loop) -> None:
    files = {"model/__init__.py": "", "model/metric.py": METRIC, "train.py": trainer(imports, handles, element, loop)}
    assert findings(tmp_path, monkeypatch, files) == PER_STEP


def test_a_private_function_is_not_reached_by_getattr(tmp_path, monkeypatch) -> None:
    program = trainer("import model.metric as module_metric", '[getattr(module_metric, met) for met in config["metrics"]]')
    files = {"model/__init__.py": "", "model/metric.py": METRIC, "train.py": program}
    assert ("metric.py", "TL101", 13) not in findings(tmp_path, monkeypatch, files)


def test_handles_that_are_never_called_per_step(tmp_path, monkeypatch) -> None:
    program = trainer("from model.metric import accuracy", "[accuracy]", call="print").replace(
        "    def train(self, epochs):", "    def report(self, output, target):\n        for met in self.metric_ftns:\n            met(output, target)\n\n    def train(self, epochs):"
    )
    files = {"model/__init__.py": "", "model/metric.py": METRIC, "train.py": program}
    assert findings(tmp_path, monkeypatch, files) == set()


def test_a_getattr_on_a_module_outside_the_project(tmp_path, monkeypatch) -> None:
    program = trainer("import torch.nn.functional as F\nimport model.metric", '[getattr(F, name) for name in config["losses"]]')
    files = {"model/__init__.py": "", "model/metric.py": METRIC, "train.py": program}
    assert findings(tmp_path, monkeypatch, files) == set()


def test_a_list_of_things_that_are_not_functions(tmp_path, monkeypatch) -> None:
    program = trainer("from model.metric import accuracy", "[accuracy(x, y), 3]")
    files = {"model/__init__.py": "", "model/metric.py": METRIC, "train.py": program}
    assert findings(tmp_path, monkeypatch, files) == set()
