"""The seventh recall round of issue 25: loaders and batches followed where earlier rounds
lost them. A DataLoader subclass that hands its own parameters on to DataLoader, built in a
LightningDataModule's hook; a pinned loader handed to a function of another module that
wraps it (`tqdm.tqdm(train_loader)`) before its loop; a move inside a wrapper call on one
branch of an `if` (`x = Variable(x.cuda())`). Each with positives and hard negatives, in the
default mode a user runs."""

from __future__ import annotations

from typing import Dict

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only


def findings(tmp_path, monkeypatch, files: Dict[str, str], rules: str) -> set:
    return project_findings(tmp_path, monkeypatch, files, rules)


# -- a DataLoader subclass that forwards its parameters ------------------------------------

SUBCLASS = """
import torch
from torch.utils.data import DataLoader


class AudioDataLoader(DataLoader):
    def __init__(self, dataset, num_workers, batch_sampler, **kwargs):
        super().__init__(dataset=dataset, num_workers=num_workers, batch_sampler=batch_sampler, **kwargs)
        self.collate_fn = collate


def collate(batch):
    return batch
"""

DATA_MODULE = """
import pytorch_lightning as pl
from data_loader import AudioDataLoader


class SpeechData(pl.LightningDataModule):
    def train_dataloader(self):
        return AudioDataLoader(dataset=self.train_set, num_workers=self.num_workers, batch_sampler=self.sampler)

    def val_dataloader(self):
        return AudioDataLoader(dataset=self.val_set, num_workers=self.num_workers, batch_sampler=self.sampler, pin_memory=True)
"""


def test_a_subclass_that_forwards_its_parameters_is_a_dataloader(tmp_path, monkeypatch):
    files = {"data_loader.py": SUBCLASS, "data_module.py": DATA_MODULE}
    assert findings(tmp_path, monkeypatch, files, "TL202,TL203") == {
        ("data_module.py", "TL202", 8),
        ("data_module.py", "TL203", 8),
        ("data_module.py", "TL203", 11),  # pinned, but its workers still restart every epoch
    }


@pytest.mark.parametrize(
    "change",
    [
        # a default of its own: a call without the argument does not get DataLoader's
        ("def __init__(self, dataset, num_workers, batch_sampler, **kwargs):",
         "def __init__(self, dataset, num_workers=4, batch_sampler=None, **kwargs):"),
        # an option of the loader set after the base's `__init__`
        ("self.collate_fn = collate", "self.pin_memory = True"),
        # a parameter handed on under another value
        ("num_workers=num_workers", "num_workers=batch_sampler.workers"),
    ],
)
def test_a_subclass_that_changes_the_arguments_is_not(tmp_path, monkeypatch, change):
    files = {"data_loader.py": SUBCLASS.replace(*change), "data_module.py": DATA_MODULE}
    assert findings(tmp_path, monkeypatch, files, "TL202,TL203") == set()


# -- a pinned loader wrapped by the function that loops over it ----------------------------

LOADERS = """
from torch.utils.data import DataLoader


def create_dataloader(dataset, batch_size):
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=4, pin_memory=True)
"""

TRAINER = """
import torch
import tqdm


def train(model, optimizer, trainloader, epochs):
    for epoch in range(epochs):
        loader = tqdm.tqdm(trainloader, desc="train")
        for (mel, audio) in loader:
            mel = mel.cuda()
            audio = audio.cuda()
            loss = (model(mel) - audio).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
"""

MAIN = """
import torch
from loaders import create_dataloader
from trainer import train

model = torch.nn.Linear(8, 8).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
train(model, optimizer, create_dataloader(dataset, 16), 10)
"""

MAIN_BOUND = MAIN.replace("train(model, optimizer, create_dataloader(dataset, 16), 10)",
                          "train_loader = create_dataloader(dataset, 16)\ntrain(model, optimizer, train_loader, 10)")


def test_a_wrapped_parameter_of_another_module_is_the_pinned_loader(tmp_path, monkeypatch):
    files = {"loaders.py": LOADERS, "trainer.py": TRAINER, "main.py": MAIN_BOUND}
    assert findings(tmp_path, monkeypatch, files, "TL106") == {("trainer.py", "TL106", 10), ("trainer.py", "TL106", 11)}


@pytest.mark.parametrize(
    "change",
    [
        ("pin_memory=True", "pin_memory=False"),  # not pinned
        ('loader = tqdm.tqdm(trainloader, desc="train")', 'loader = tqdm.tqdm(other_batches, desc="train")'),  # not the parameter
        ("        for (mel, audio) in loader:", "        loader = list(loader)\n        for (mel, audio) in loader:"),  # bound twice
    ],
)
def test_a_wrapped_name_that_is_not_the_pinned_parameter_is_not(tmp_path, monkeypatch, change):
    old, new = change
    files = {"loaders.py": LOADERS.replace(old, new), "trainer.py": TRAINER.replace(old, new), "main.py": MAIN_BOUND}
    assert findings(tmp_path, monkeypatch, files, "TL106") == set()


# -- a move inside a wrapper, on one branch of an `if` --------------------------------------

HAND_DRAWN = """
import torch
from torch.autograd import Variable
from torch.utils.data import DataLoader


def train(args, net, optimizer, dataset):
    loader = DataLoader(dataset, args.batch_size, num_workers=4, shuffle=True, pin_memory=True)
    batches = iter(loader)
    for iteration in range(args.max_iter):
        images, targets = next(batches)
        if args.cuda:
            images = Variable(images.cuda())
        else:
            images = Variable(images)
        loss = net(images, targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""


def test_a_move_wrapped_on_one_branch_blocks(tmp_path, monkeypatch):
    assert findings(tmp_path, monkeypatch, {"train.py": HAND_DRAWN}, "TL106") == {("train.py", "TL106", 13)}


def test_a_batch_rebound_before_the_move_on_its_branch_is_not_the_pinned_batch(tmp_path, monkeypatch):
    code = HAND_DRAWN.replace("            images = Variable(images.cuda())", "            images = images.float()\n            images = Variable(images.cuda())")
    assert findings(tmp_path, monkeypatch, {"train.py": code}, "TL106") == set()
