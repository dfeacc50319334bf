"""The fifth recall round of issue 25, value flow: objects that reach a training step through
another function or object than the one that builds them. Each cause with positives and hard
negatives, in the default mode a user runs."""

from __future__ import annotations

import ast

import pytest
from test_recall_round5_loaders import findings  # (path, code, line) of a small project's findings

from torchlint.semantics.project import _instances

pytestmark = pytest.mark.stable_only


# -- a trainer built by one of its class's own constructors -------------------------------

FIT = """
import pytorch_lightning as pl
from torch.utils.data import DataLoader

def cli_main(args):
    train_loader = DataLoader(train_set, batch_size=32)
    val_loader = DataLoader(val_set, batch_size=32)
    trainer = {trainer}
    trainer.{method}(model, train_loader, val_loader)
"""


@pytest.mark.parametrize("trainer, method, reported", [
    ("pl.Trainer.from_argparse_args(args)", "fit", True),  # a class constructor: an instance
    ("pl.Trainer(max_epochs=5)", "fit", True),  # as before
    ('pl.Trainer.from_argparse_args(args, accelerator="cpu")', "fit", False),  # told to run on the CPU
    ("pl.Trainer.from_argparse_args(args)", "predict", False),  # one pass, no training
    ("pl.LightningModule.load_from_checkpoint(path)", "fit", False),  # another class's constructor
    ("Forest.from_config(args)", "fit", False),  # not a Lightning class
])
def test_a_trainer_built_by_a_class_constructor(tmp_path, monkeypatch, trainer, method, reported):
    files = {"train.py": FIT.format(trainer=trainer, method=method)}
    expected = [("train.py", "TL201", 6), ("train.py", "TL201", 7)] if reported else []
    assert findings(tmp_path, monkeypatch, files, "TL201") == expected


# -- a name bound in either branch of an `if` holds either loader after it ----------------

BRANCHES = """
import torch
from torch.utils.data import DataLoader


def inpainting_loader(ds):
    return DataLoader(ds, batch_size=4, num_workers=4)


def text_loader(ds):
    return DataLoader(ds, batch_size=4, num_workers=4)


def loss_step(batch, model):
    return model(batch["pixels"].to(model.device)).mean()


def train_loop(model, optimizer, loader, epochs):
    for epoch in range(epochs):
        for batch in loader:
            loss = loss_step(batch, model)
            loss.backward()
            optimizer.step()


def main(ds, model, optimizer, inpainting):
    model.cuda()
{binding}
    train_loop(model, optimizer, loader, 10)
"""


@pytest.mark.parametrize("binding, reported", [
    # either builder's loader reaches the training loop
    ("    if inpainting:\n        loader = inpainting_loader(ds)\n    else:\n        loader = text_loader(ds)", [7, 11]),
    ("    if inpainting:\n        loader = inpainting_loader(ds)\n    elif ds:\n        loader = text_loader(ds)", [7, 11]),
    # a later assignment in the same branch replaces the first loader before the loop
    ("    loader = inpainting_loader(ds)\n    loader = text_loader(ds)", [11]),
    ("    if inpainting:\n        loader = inpainting_loader(ds)\n        loader = text_loader(ds)", [11]),
])
def test_loaders_bound_in_either_branch_of_an_if(tmp_path, monkeypatch, binding, reported):
    files = {"train.py": BRANCHES.format(binding=binding)}
    assert findings(tmp_path, monkeypatch, files, "TL202") == [("train.py", "TL202", line) for line in reported]


# -- a dataset whose items the epoch loop only reads keeps its workers' copy valid ---------

SESSION = """
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda")
data_loader = DataLoader(dataset, 32, shuffle=True, num_workers=2)
for epoch in range(1, epochs + 1):
    for i, (texts, mels, idx) in enumerate(data_loader, 1):
        stop = torch.ones(mels.shape[0], mels.shape[2])
        for j, k in enumerate(idx):
            {use}
        loss = model(texts.to(device), mels.to(device), stop.to(device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""


@pytest.mark.parametrize("use, reported", [
    ("stop[j, :int(dataset.metadata[k][4]) - 1] = 0", True),  # an item read: nothing changes
    ("dataset.metadata[k] = None", False),  # the dataset changes every epoch
    ("dataset.metadata[k][4] += 1", False),
    ("dataset.metadata[k].append(j)", False),  # an item's method may change it
    ("dataset.resample(k)", False),
])
def test_a_dataset_read_by_index_in_the_epoch_loop(tmp_path, monkeypatch, use, reported):
    files = {"train.py": SESSION.format(use=use)}
    assert findings(tmp_path, monkeypatch, files, "TL203") == ([("train.py", "TL203", 6)] if reported else [])


# -- an instance built by another constructor of its class --------------------------------

SERIES = """
from torch.utils.data import DataLoader, Dataset


class Series(Dataset):
    def __init__(self, data, cutoff=None):
        self.data, self.cutoff = data, cutoff

    @classmethod
    def from_parameters(cls, parameters, data):
        return cls(data, **parameters)

    @classmethod
    def from_dataset(cls, dataset, data):
        return cls.from_parameters({"cutoff": dataset.cutoff}, data)

    @classmethod
    def describe(cls, dataset, data):
        return {"cutoff": dataset.cutoff}

    def to_dataloader(self, train=True, **kwargs):
        return DataLoader(self, shuffle=train, **kwargs)
"""
SERIES_TRAIN = """
import pytorch_lightning as pl
from series import Series

training = Series(data)
validation = Series.{constructor}(training, data)
train_loader = training.to_dataloader(train=True, batch_size=128, num_workers=2)
val_loader = validation.to_dataloader(train=False, batch_size=128, num_workers=2)
trainer = pl.Trainer(max_epochs=100, accelerator="auto")
trainer.fit(net, train_dataloaders=train_loader, val_dataloaders=val_loader)
"""


@pytest.mark.parametrize("constructor, reported", [
    ("from_dataset", [7, 8]),  # a classmethod returning `cls.from_parameters(...)`: a Series
    ("describe", [7]),  # a classmethod returning a dict: no Series, no factory known
])
def test_an_instance_built_by_another_constructor_of_its_class(tmp_path, monkeypatch, constructor, reported):
    files = {"series.py": SERIES, "train.py": SERIES_TRAIN.format(constructor=constructor)}
    assert findings(tmp_path, monkeypatch, files, "TL203") == [("train.py", "TL203", line) for line in reported]


# -- a created tensor handed to a helper that returns it moved inside a wrapper ------------

HIDDEN = """
import torch
from torch import nn
from torch.autograd import Variable


def create_variable(tensor):
    if torch.cuda.is_available():
        return Variable({moved})
    return Variable(tensor)


class RNN(nn.Module):
    def forward(self, x):
        hidden = self._init_hidden(x.size(0))
        return self.gru(x, hidden)

    def _init_hidden(self, batch_size):
        hidden = torch.zeros(2, batch_size, 100)
        return create_variable(hidden)


model = RNN().cuda()
for x, y in loader:
    loss = criterion(model(x.cuda()), y.cuda())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""


@pytest.mark.parametrize("moved, reported", [
    ("tensor.cuda()", True),  # the helper returns the created tensor on the device
    ("tensor.float()", False),  # a cast keeps it on the host
    ("tensor", False),
])
def test_a_helper_returning_its_argument_moved_inside_a_wrapper(tmp_path, monkeypatch, moved, reported):
    files = {"train.py": HIDDEN.format(moved=moved)}
    assert findings(tmp_path, monkeypatch, files, "TL102") == ([("train.py", "TL102", 19)] if reported else [])


@pytest.mark.parametrize("code, instances", [
    ("validation = Series.from_dataset(training, data)", {"validation": "Series.from_dataset"}),
    ("model = Net()\nmodel = Net.load_from_checkpoint(path)", {"model": "Net"}),  # the same class
    # a method of the name itself names no class (looking its methods up would never end)
    ("self.C = self.C.cuda()", {}),
])
def test_the_class_a_name_holds(code, instances):
    assert _instances(ast.parse(code)) == instances
