"""The tenth recall round of issue 25: loaders handed to an object of a project class (a
trainer class of another module) that stores them in `__init__`, itself or through its base
class's `__init__`, and loops over them when one of its methods is called, directly or
through another method it hands the attribute to. The loader runs with training when the
program calls that method every epoch; the final test loader, whose method is called once,
does not. Each cause with positives and hard negatives, in the default mode a user runs."""

from __future__ import annotations

from typing import Dict

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only


def findings(tmp_path, monkeypatch, files: Dict[str, str]) -> set:
    return project_findings(tmp_path, monkeypatch, files, "TL201,TL202")


BASE_TRAINER = """
import torch
import tqdm


class Trainer:
    def __init__(self, model, train_loader, valid_loader, test_loader, args):
        self.model = model.cuda()
        self.optim = torch.optim.Adam(model.parameters())
        self.train_loader = train_loader
        self.valid_loader = valid_loader
        self.test_loader = test_loader

    def train(self, epoch):
        self.iteration(epoch, self.train_loader)

    def valid(self, epoch):
        return self.iteration(epoch, self.valid_loader, train=False)

    def test(self, epoch):
        return self.iteration(epoch, self.test_loader, train=False)


class FinetuneTrainer(Trainer):
    def __init__(self, model, train_loader, valid_loader, test_loader, args):
        super().__init__(model, train_loader, valid_loader, test_loader, args)

    def iteration(self, epoch, loader, train=True):
        batches = tqdm.tqdm(enumerate(loader), total=len(loader))
        for i, batch in batches:
            batch = tuple(t.to("cuda") for t in batch)
            loss = self.model(*batch).mean()
            if train:
                self.optim.zero_grad()
                loss.backward()
                self.optim.step()
"""

SCRIPT = """
import torch
from torch.utils.data import DataLoader
from trainers import {klass}


def main(args, model, train_ds, valid_ds, test_ds):
    args.cuda = torch.cuda.is_available()
    train_loader = DataLoader(train_ds, batch_size=64)
    valid_loader = DataLoader(valid_ds, batch_size=64)
    test_loader = DataLoader(test_ds, batch_size=64)
    trainer = {klass}(model, train_loader, valid_loader, test_loader, args)
    for epoch in range(args.epochs):
        trainer.{every_epoch}(epoch)
    trainer.test(0)
"""

TRAIN, VALID, TEST = 9, 10, 11


@pytest.mark.parametrize(
    "klass, every_epoch, expected",
    [
        ("FinetuneTrainer", "train", {TRAIN}),  # stored by the base's __init__, looped by an inherited method
        ("FinetuneTrainer", "valid", {VALID}),  # the per-epoch validation pass
        ("Trainer", "train", set()),  # the base class has no `iteration`: nothing loops over the loader
    ],
)
def test_loader_looped_by_a_method_of_a_trainer_object(tmp_path, monkeypatch, klass, every_epoch, expected) -> None:
    found = findings(tmp_path, monkeypatch, {"trainers.py": BASE_TRAINER, "train.py": SCRIPT.format(klass=klass, every_epoch=every_epoch)})
    lines = {line for path, _code, line in found if path == "train.py"}
    assert lines == expected
    if expected:
        assert {code for _path, code, _line in found} == {"TL201", "TL202"}


def test_test_loader_whose_method_runs_once_is_not_reported(tmp_path, monkeypatch) -> None:
    script = SCRIPT.format(klass="FinetuneTrainer", every_epoch="train").replace("    trainer.test(0)\n", "") + "    for _ in range(3):\n        pass\n"
    found = findings(tmp_path, monkeypatch, {"trainers.py": BASE_TRAINER, "train.py": script})
    assert TEST not in {line for _path, _code, line in found}


EXPLICIT_BASE = BASE_TRAINER.replace(
    "super().__init__(model, train_loader, valid_loader, test_loader, args)",
    "Trainer.__init__(self, model, train_loader, valid_loader, test_loader, args)",
)

REORDERED = BASE_TRAINER.replace(
    "    def __init__(self, model, train_loader, valid_loader, test_loader, args):\n        super().__init__(model, train_loader, valid_loader, test_loader, args)",
    "    def __init__(self, model, loaders, args):\n        super().__init__(model, None, loaders, None, args)",
)


def test_base_init_called_by_name(tmp_path, monkeypatch) -> None:
    found = findings(tmp_path, monkeypatch, {"trainers.py": EXPLICIT_BASE, "train.py": SCRIPT.format(klass="FinetuneTrainer", every_epoch="train")})
    assert {line for _path, _code, line in found} == {TRAIN}


def test_base_init_given_other_values_stores_nothing_of_the_loader(tmp_path, monkeypatch) -> None:
    """The subclass hands `None` for the training loader: what its caller passes as `loaders`
    lands in `valid_loader`, which only `valid()` loops over, never called here."""
    script = """
from torch.utils.data import DataLoader
from trainers import FinetuneTrainer


def main(args, model, train_ds):
    train_loader = DataLoader(train_ds, batch_size=64)
    trainer = FinetuneTrainer(model, train_loader, args)
    for epoch in range(args.epochs):
        trainer.train(epoch)
"""
    assert findings(tmp_path, monkeypatch, {"trainers.py": REORDERED, "train.py": script}) == set()


def test_loader_wrapped_twice_in_a_method_argument(tmp_path, monkeypatch) -> None:
    """`batches = tqdm(enumerate(loader))`, then a loop over `batches`, in a method the script
    calls with the loader each epoch."""
    trainers = """
import torch
import tqdm


class Trainer:
    def __init__(self, model):
        self.model = model.cuda()
        self.optim = torch.optim.Adam(model.parameters())

    def pretrain(self, epoch, loader):
        batches = tqdm.tqdm(enumerate(loader), total=len(loader))
        for i, batch in batches:
            loss = self.model(batch.cuda()).mean()
            loss.backward()
            self.optim.step()
"""
    script = """
from torch.utils.data import DataLoader
from trainers import Trainer


def main(args, model, dataset):
    trainer = Trainer(model)
    for epoch in range(args.epochs):
        loader = DataLoader(dataset, batch_size=64)
        trainer.{method}(epoch, loader)
"""
    assert {line for _p, _c, line in findings(tmp_path, monkeypatch, {"trainers.py": trainers, "train.py": script.format(method="pretrain")})} == {9}
    # A method the class does not define: nothing is known to loop over the loader.
    assert findings(tmp_path, monkeypatch, {"trainers.py": trainers, "train.py": script.format(method="describe")}) == set()
