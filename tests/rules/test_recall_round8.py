"""The eighth recall round of issue 25: loaders followed across functions and modules where
earlier rounds lost them. A loader kept on `self` by a setter method and iterated by the
class's step loop; a loader built by a helper whose loader class is a parameter (`klass=
DataLoader`) and whose other arguments pass through `**kwargs`. Each with positives and hard
negatives, in the default mode a user runs."""

from __future__ import annotations

from typing import Dict

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only


def findings(tmp_path, monkeypatch, files: Dict[str, str], rules: str) -> set:
    return project_findings(tmp_path, monkeypatch, files, rules)


# -- a loader kept on `self` by a setter method ---------------------------------------------

TRAINER = """
import torch


class Trainer:
    def __init__(self, model, loss_fn, optimizer):
        self.model = model
        self.loss_fn = loss_fn
        self.optimizer = optimizer
        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        self.model.to(self.device)
        self.train_loader = None
        self.val_loader = None

    def set_loaders(self, train_loader, val_loader=None):
        self.train_loader = train_loader
        self.val_loader = val_loader

    def _mini_batch(self, validation=False):
        if validation:
            data_loader = self.val_loader
        else:
            data_loader = self.train_loader
        losses = []
        for x_batch, y_batch in data_loader:
            x_batch = x_batch.to(self.device)
            y_batch = y_batch.to(self.device)
            loss = self.loss_fn(self.model(x_batch), y_batch)
            if not validation:
                loss.backward()
                self.optimizer.step()
                self.optimizer.zero_grad()
            losses.append(loss)
        return losses

    def train(self, n_epochs):
        for epoch in range(n_epochs):
            self._mini_batch(validation=False)
            with torch.no_grad():
                self._mini_batch(validation=True)
"""

SETTER_SCRIPT = """
import torch
from torch.utils.data import DataLoader
from torchvision.datasets import ImageFolder
from trainer import Trainer

device = "cuda" if torch.cuda.is_available() else "cpu"
train_loader = DataLoader(ImageFolder("train"), batch_size=16, shuffle=True)
val_loader = DataLoader(ImageFolder("val"), batch_size=16)
model = torch.nn.Linear(10, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
sbs = Trainer(model, torch.nn.CrossEntropyLoss(), optimizer)
sbs.set_loaders(train_loader, val_loader)
sbs.train(10)
"""


def test_a_loader_a_setter_keeps_for_the_step_loop_feeds_training(tmp_path, monkeypatch):
    files = {"trainer.py": TRAINER, "main.py": SETTER_SCRIPT}
    assert findings(tmp_path, monkeypatch, files, "TL201,TL202") == {
        ("main.py", "TL201", 8), ("main.py", "TL202", 8), ("main.py", "TL201", 9), ("main.py", "TL202", 9),
    }


@pytest.mark.parametrize(
    "change",
    [
        # the setter keeps something else: the loader is not what the loop iterates
        ("self.val_loader = val_loader", "self.val_loader = None"),
        # the setter is never called with the validation loader
        ("sbs.set_loaders(train_loader, val_loader)", "sbs.set_loaders(train_loader)"),
    ],
)
def test_a_loader_the_setter_does_not_keep_for_the_loop_is_not(tmp_path, monkeypatch, change):
    trainer, script = TRAINER, SETTER_SCRIPT
    if change[0] in trainer:
        trainer = trainer.replace(*change)
    else:
        script = script.replace(*change)
    found = findings(tmp_path, monkeypatch, {"trainer.py": trainer, "main.py": script}, "TL201,TL202")
    assert ("main.py", "TL201", 9) not in found and ("main.py", "TL202", 9) not in found
    assert ("main.py", "TL201", 8) in found  # the training loader still is


def test_a_setter_of_a_class_whose_loops_do_not_iterate_the_attribute_is_not(tmp_path, monkeypatch):
    trainer = TRAINER.replace("for x_batch, y_batch in data_loader:", "for x_batch, y_batch in self.batches():")
    trainer += "\n    def batches(self):\n        return [(torch.zeros(2), torch.zeros(2))]\n"
    found = findings(tmp_path, monkeypatch, {"trainer.py": trainer, "main.py": SETTER_SCRIPT}, "TL201,TL202")
    assert not {item for item in found if item[0] == "main.py"}
