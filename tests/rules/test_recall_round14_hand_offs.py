"""The fourteenth round of issue 25: passes handed on. A loader a builder returns to a
training module that hands it to a function, which builds a trainer class with it and runs
it (`_train_impl(model, dataset)` building `Learner(model, dataset)`, whose `train()` loops
over `self.dataset` every epoch), is passed over again and again (`project._passes_handed_on`).
Hard negative: the function hands the trainer something else."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

DATA = """
import os
import torch


def from_path(dataset):
    return torch.utils.data.DataLoader(dataset, batch_size=16, num_workers=os.cpu_count(), pin_memory=True)
"""

LEARNER = """
import torch
from data import from_path


class Learner:
    def __init__(self, model, dataset, optimizer):
        self.model, self.dataset, self.optimizer = model, dataset, optimizer

    def train(self, epochs):
        for epoch in range(epochs):
            for features in self.dataset:
                loss = self.model(features.to("cuda", non_blocking=True)).mean()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()


def _train_impl(model, dataset, optimizer):
    learner = Learner(model, {given}, optimizer)
    learner.train(100)


def train(model, optimizer, files):
    dataset = from_path(files)
    _train_impl(model, dataset, optimizer)
"""


@pytest.mark.parametrize("given, expected", [("dataset", {7}), ("other_loader", set())])
def test_a_loader_handed_to_a_function_that_runs_a_trainer_with_it(tmp_path, monkeypatch, given: str, expected: set) -> None:
    files = {"data.py": DATA, "learner.py": LEARNER.format(given=given)}
    found = project_findings(tmp_path, monkeypatch, files, "TL203")
    assert {line for path, code, line in found if path == "data.py"} == expected
