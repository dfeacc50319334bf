"""Round 27: metric functions held as handles in one module (`metrics = [getattr(module_metric,
met) for met in config["metrics"]]`) and handed to a class of another module (`Trainer(model,
criterion, metrics, ...)`, re-exported by its package with `from .trainer import *`) that calls
each element in its training loop (`for met in self.metric_ftns: met(output, target)`) run every
step: the layout of the widespread PyTorch project template. Hard negatives: handles handed to
a parameter the class never loops over, and a loop over another attribute."""

from __future__ import annotations

import pytest
from conftest import project_findings
from test_recall11_handles import METRIC

pytestmark = pytest.mark.stable_only

TRAIN = """
import torch
import metric as module_metric
from trainer import Trainer


def main(config, model, criterion, optimizer, loader):
    metrics = [getattr(module_metric, met) for met in config["metrics"]]
    trainer = Trainer({handed})
    trainer.train()
"""

TRAINER = """
import torch


class Trainer:
    def __init__(self, model, criterion, metric_ftns, optimizer, data_loader):
        self.model = model.cuda()
        self.criterion = criterion
        self.metric_ftns = metric_ftns
        self.optimizer = optimizer
        self.data_loader = data_loader

    def train(self):
        for epoch in range(100):
            for data, target in self.data_loader:
                data, target = data.cuda(), target.cuda()
                output = self.model(data)
                loss = self.criterion(output, target)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                for met in self.{looped}:
                    met(output, target)
"""


@pytest.mark.parametrize("handed, looped, reported", [
    ("model, criterion, metrics, optimizer, loader", "metric_ftns", {("metric.py", "TL101", 8)}),
    ("model, criterion, optimizer=optimizer, data_loader=loader, metric_ftns=metrics", "metric_ftns", {("metric.py", "TL101", 8)}),
    ("model, criterion, None, optimizer, loader", "metric_ftns", set()),  # the handles are not handed on
    ("model, metrics, criterion, optimizer, loader", "metric_ftns", set()),  # handed as another parameter
    ("model, criterion, metrics, optimizer, loader", "other_ftns", set()),  # the class loops over something else
])
def test_handles_handed_to_another_module_run_where_it_calls_them(tmp_path, monkeypatch, handed, looped, reported):
    files = {
        "metric.py": METRIC,
        "train.py": TRAIN.format(handed=handed),
        "trainer/__init__.py": "from .trainer import *\n",
        "trainer/trainer.py": TRAINER.format(looped=looped),
    }
    assert project_findings(tmp_path, monkeypatch, files, "TL101") == reported
