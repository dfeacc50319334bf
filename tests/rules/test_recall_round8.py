"""The eighth recall round of issue 25: loaders followed across functions and modules where
earlier rounds lost them. A loader a class keeps on `self` and iterates through a local name
(`data_loader = self.val_loader` on one branch); a loader built by a helper whose loader
class is a parameter (`klass=DataLoader`) and whose other arguments pass through
`**kwargs`; loaders handed in a dict to a class that keeps an element; a loader a function
of another module wraps before its loop. Each with positives and hard
negatives, in the default mode a user runs."""

from __future__ import annotations

from typing import Dict

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only


def findings(tmp_path, monkeypatch, files: Dict[str, str], rules: str) -> set:
    return project_findings(tmp_path, monkeypatch, files, rules)


# -- a loader kept on `self` and iterated through a local name --------------------------------

TRAINER = """
import torch


class Trainer:
    def __init__(self, model, loss_fn, optimizer, train_loader, val_loader=None):
        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        self.model, self.loss_fn, self.optimizer = model.to(self.device), loss_fn, optimizer
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
sbs = Trainer(model, torch.nn.CrossEntropyLoss(), optimizer, train_loader, val_loader)
sbs.train(10)
"""


def test_a_loader_kept_on_self_and_iterated_through_a_local_name_feeds_training(tmp_path, monkeypatch):
    files = {"trainer.py": TRAINER, "main.py": SETTER_SCRIPT}
    assert findings(tmp_path, monkeypatch, files, "TL201,TL202") == {
        ("main.py", "TL201", 8), ("main.py", "TL202", 8), ("main.py", "TL201", 9), ("main.py", "TL202", 9),
    }


@pytest.mark.parametrize(
    "change",
    [
        # the class keeps something else: the loader is not what the loop iterates
        ("self.val_loader = val_loader", "self.val_loader = None"),
        # the class is never given the validation loader
        ("optimizer, train_loader, val_loader)", "optimizer, train_loader)"),
    ],
)
def test_a_loader_the_class_does_not_keep_for_the_loop_is_not(tmp_path, monkeypatch, change):
    trainer, script = TRAINER, SETTER_SCRIPT
    if change[0] in trainer:
        trainer = trainer.replace(*change)
    else:
        script = script.replace(*change)
    found = findings(tmp_path, monkeypatch, {"trainer.py": trainer, "main.py": script}, "TL201,TL202")
    assert ("main.py", "TL201", 9) not in found and ("main.py", "TL202", 9) not in found
    assert ("main.py", "TL201", 8) in found  # the training loader still is


def test_a_class_whose_loops_do_not_iterate_the_attribute_is_not(tmp_path, monkeypatch):
    trainer = TRAINER.replace("for x_batch, y_batch in data_loader:", "for x_batch, y_batch in self.batches():")
    trainer += "\n    def batches(self):\n        return [(torch.zeros(2), torch.zeros(2))]\n"
    found = findings(tmp_path, monkeypatch, {"trainer.py": trainer, "main.py": SETTER_SCRIPT}, "TL201,TL202")
    assert not {item for item in found if item[0] == "main.py"}


# -- a loader factory whose loader class is a parameter; loaders in a dict a trainer keeps --

FACTORY = """
from torch.utils.data import DataLoader


def loader(dataset, *args, shuffle=False, klass=DataLoader, **kwargs):
    return klass(dataset, *args, shuffle=shuffle, **kwargs)
"""

SOLVER = """
import torch


class Solver:
    def __init__(self, data, model, optimizer):
        self.tr_loader = data["tr_loader"]
        self.cv_loader = data["cv_loader"]
        self.model = model
        self.optimizer = optimizer
        self.device = "cuda"

    def train(self, epochs):
        for epoch in range(epochs):
            self._run_one_epoch(epoch)
            with torch.no_grad():
                self._run_one_epoch(epoch, cross_valid=True)

    def _run_one_epoch(self, epoch, cross_valid=False):
        data_loader = self.tr_loader if not cross_valid else self.cv_loader
        progress = Progress(data_loader, name="epoch")
        for i, data in enumerate(progress):
            noisy, clean = [x.to(self.device) for x in data]
            loss = (self.model(noisy) - clean).abs().mean()
            if not cross_valid:
                loss.backward()
                self.optimizer.step()


class Progress:
    def __init__(self, iterable, name):
        self.iterable = iterable

    def __iter__(self):
        return iter(self.iterable)
"""

DICT_SCRIPT = """
import torch
import distrib
from solver import Solver

model = torch.nn.Linear(4, 4).cuda()
optimizer = torch.optim.Adam(model.parameters())
tr_loader = distrib.loader(torch.load("train.pt"), batch_size=8, shuffle=True, num_workers=5)
cv_loader = distrib.loader(torch.load("valid.pt"), batch_size=1, num_workers=5)
data = {"tr_loader": tr_loader, "cv_loader": cv_loader}
solver = Solver(data, model, optimizer)
solver.train(100)
"""


def test_loaders_of_a_factory_kept_in_a_dict_by_a_trainer_are_iterated_every_epoch(tmp_path, monkeypatch):
    files = {"distrib.py": FACTORY, "solver.py": SOLVER, "train.py": DICT_SCRIPT}
    assert findings(tmp_path, monkeypatch, files, "TL202,TL203") == {
        ("train.py", "TL202", 8), ("train.py", "TL203", 8), ("train.py", "TL202", 9), ("train.py", "TL203", 9),
    }


@pytest.mark.parametrize(
    "file, change",
    [
        # the factory's default class is not torch's DataLoader
        ("distrib.py", ("klass=DataLoader", "klass=list")),
        # the dict holds the loaders under other keys than those the trainer keeps
        ("train.py", ('{"tr_loader": tr_loader, "cv_loader": cv_loader}', '{"train": tr_loader, "valid": cv_loader}')),
        # the trainer's loop iterates the number of batches, not the loader
        ("solver.py", ('progress = Progress(data_loader, name="epoch")', "progress = range(len(data_loader))")),
    ],
)
def test_a_factory_or_a_dict_that_does_not_give_the_loop_its_loader_is_not(tmp_path, monkeypatch, file, change):
    files = {"distrib.py": FACTORY, "solver.py": SOLVER, "train.py": DICT_SCRIPT}
    assert change[0] in files[file]
    files[file] = files[file].replace(*change)
    assert findings(tmp_path, monkeypatch, files, "TL202,TL203") == set()


def test_a_loop_that_moves_no_element_of_the_batch_does_not_need_pinned_memory(tmp_path, monkeypatch):
    solver = SOLVER.replace("[x.to(self.device) for x in data]", "[x.float() for x in data]")
    files = {"distrib.py": FACTORY, "solver.py": solver, "train.py": DICT_SCRIPT}
    assert findings(tmp_path, monkeypatch, files, "TL202,TL203") == {("train.py", "TL203", 8), ("train.py", "TL203", 9)}


# -- a function of another module that wraps the loader it is given before its loop ----------

ENGINE = """
import torch
from tqdm import tqdm


def fit(model, optimizer, loader, epochs):
    for epoch in range(epochs):
        batches = tqdm(loader)
        for x, y in batches:
            loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            loss.backward()
            optimizer.step()
"""

ENGINE_SCRIPT = """
import torch
from torch.utils.data import DataLoader
from engine import fit

model = torch.nn.Linear(4, 2).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(torch.load("train.pt"), batch_size=8, num_workers=4, pin_memory=True)
fit(model, optimizer, loader, 10)
"""


def test_a_loader_wrapped_before_the_loop_of_another_module_is_reiterated(tmp_path, monkeypatch):
    files = {"engine.py": ENGINE, "train.py": ENGINE_SCRIPT}
    assert findings(tmp_path, monkeypatch, files, "TL203") == {("train.py", "TL203", 8)}


def test_a_loop_over_the_number_of_batches_is_no_pass_over_the_loader(tmp_path, monkeypatch):
    engine = ENGINE.replace("batches = tqdm(loader)", "batches = len(loader)").replace("for x, y in batches:", "for i in range(batches):\n            x, y = torch.zeros(2, 4), torch.zeros(2)")
    assert findings(tmp_path, monkeypatch, {"engine.py": engine, "train.py": ENGINE_SCRIPT}, "TL203") == set()


BUILDER = """
import torch
import distrib


def get_loaders(train_set, valid_set):
    tr_loader = distrib.loader(train_set, batch_size=8, shuffle=True, num_workers=5)
    cv_loader = distrib.loader(valid_set, batch_size=1, num_workers=5)
    return tr_loader, cv_loader
"""

BUILT_SCRIPT = """
import torch
from data import get_loaders
from solver import Solver

model = torch.nn.Linear(4, 4).cuda()
optimizer = torch.optim.Adam(model.parameters())
tr_loader, cv_loader = get_loaders(torch.load("train.pt"), torch.load("valid.pt"))
data = {"tr_loader": tr_loader, "cv_loader": cv_loader}
solver = Solver(data, model, optimizer)
solver.train(100)
"""


def test_loaders_a_builder_returns_into_a_dict_a_trainer_keeps_are_iterated_every_epoch(tmp_path, monkeypatch):
    files = {"distrib.py": FACTORY, "solver.py": SOLVER, "data.py": BUILDER, "train.py": BUILT_SCRIPT}
    assert findings(tmp_path, monkeypatch, files, "TL203") == {("data.py", "TL203", 7), ("data.py", "TL203", 8)}


def test_loaders_a_builder_returns_into_a_dict_under_other_keys_are_not(tmp_path, monkeypatch):
    script = BUILT_SCRIPT.replace('{"tr_loader": tr_loader, "cv_loader": cv_loader}', '{"train": tr_loader, "valid": cv_loader}')
    files = {"distrib.py": FACTORY, "solver.py": SOLVER, "data.py": BUILDER, "train.py": script}
    assert findings(tmp_path, monkeypatch, files, "TL203") == set()
