"""The sixth recall round of issue 25, loaders that reach training from somewhere else:
a builder of another module reached through a wrapper that returns its result unchanged,
loaders handed to a Lightning module's constructor and returned by its loader hooks, and
loaders held in a dict (or list) and iterated by key. Each cause with positives and hard
negatives, in the default mode a user runs."""

from __future__ import annotations

from typing import Dict

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only


def findings(tmp_path, monkeypatch, files: Dict[str, str], rules: str = "TL201,TL202,TL203") -> set:
    return project_findings(tmp_path, monkeypatch, files, rules)


# -- a builder of another module, reached through a wrapper method -------------------------

PROVIDER = """
from torch.utils.data import DataLoader
from dataset import SeriesDataset


def data_provider(args, flag):
    data_set = SeriesDataset(args.root, flag)
    data_loader = DataLoader(data_set, batch_size=args.batch_size, shuffle=flag == "train", num_workers=args.num_workers)
    return data_set, data_loader
"""

EXPERIMENT = """
import torch
from data_provider import data_provider


class Exp:
    def __init__(self, args):
        self.args = args
        self.device = torch.device("cuda")
        self.model = torch.nn.Linear(4, 4).to(self.device)

    def _get_data(self, flag):
        {forward}

    def train(self):
        {unpack} = self._get_data(flag="train")
        opt = torch.optim.Adam(self.model.parameters())
        for epoch in range(self.args.epochs):
            for x, y in train_loader:
                x = x.float().to(self.device)
                loss = ((self.model(x) - y.to(self.device)) ** 2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
"""


@pytest.mark.parametrize(
    ("forward", "unpack", "expected"),
    [
        # the wrapper returns the builder's tuple as it is, or the call itself
        ("data_set, data_loader = data_provider(self.args, flag)\n        return data_set, data_loader", "train_data, train_loader",
         {("data_provider.py", "TL202", 8), ("data_provider.py", "TL203", 8)}),
        ("return data_provider(self.args, flag)", "train_data, train_loader",
         {("data_provider.py", "TL202", 8), ("data_provider.py", "TL203", 8)}),
        ("data_set, data_loader = data_provider(self.args, flag)\n        return data_loader", "train_loader",
         {("data_provider.py", "TL202", 8), ("data_provider.py", "TL203", 8)}),
        # hard negatives: the wrapper returns the dataset, or a loader of its own making
        ("data_set, data_loader = data_provider(self.args, flag)\n        return data_set, make(data_set)", "train_data, train_loader", set()),
        ("data_set, data_loader = data_provider(self.args, flag)\n        return data_loader, data_set", "train_data, train_loader", set()),
    ],
)
def test_builder_reached_through_a_wrapper(tmp_path, monkeypatch, forward, unpack, expected) -> None:
    files = {"data_provider.py": PROVIDER, "exp.py": EXPERIMENT.format(forward=forward, unpack=unpack)}
    assert findings(tmp_path, monkeypatch, files) == expected


# -- loaders kept by a Lightning module and returned by its hooks ---------------------------

SYSTEM = """
import pytorch_lightning as pl


class System({base}):
    def __init__(self, model, optimizer, train_loader, val_loader=None, test_loader=None):
        super().__init__()
        self.model = model
        self.optimizer = optimizer
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.test_loader = test_loader

    def training_step(self, batch, batch_nb):
        x, y = batch
        return ((self.model(x) - y) ** 2).mean()

    def configure_optimizers(self):
        return self.optimizer

    def train_dataloader(self):
        return self.train_loader

    def val_dataloader(self):
        return {val}

    def test_dataloader(self):
        return self.test_loader
"""

LIGHTNING_TRAIN = """
import torch
import pytorch_lightning as pl
from torch.utils.data import DataLoader
from system import System


def main(conf):
    train_loader = DataLoader(torch.load("train.pt"), batch_size=8, num_workers=4, shuffle=True)
    val_loader = DataLoader(torch.load("val.pt"), batch_size=8, num_workers=4)
    test_loader = DataLoader(torch.load("test.pt"), batch_size=8, num_workers=4)
    model = torch.nn.Linear(4, 4)
    system = System(model, torch.optim.Adam(model.parameters()), train_loader, val_loader=val_loader, test_loader=test_loader)
    trainer = pl.Trainer(max_epochs=10, accelerator="gpu")
    trainer.fit(system)
    trainer.test(system)
"""


@pytest.mark.parametrize(
    ("base", "val", "expected"),
    [
        # train and validation loaders feed every epoch; the test loader runs once
        ("pl.LightningModule", "self.val_loader",
         {("train.py", "TL202", 9), ("train.py", "TL203", 9), ("train.py", "TL202", 10), ("train.py", "TL203", 10)}),
        # hard negatives: the hook returns something else; a class that is no Lightning module
        ("pl.LightningModule", "None", {("train.py", "TL202", 9), ("train.py", "TL203", 9)}),
        ("object", "self.val_loader", set()),
    ],
)
def test_loaders_kept_by_a_lightning_module(tmp_path, monkeypatch, base, val, expected) -> None:
    files = {"system.py": SYSTEM.format(base=base, val=val), "train.py": LIGHTNING_TRAIN}
    assert findings(tmp_path, monkeypatch, files) == expected


# -- loaders held in a dict and iterated by key ------------------------------------------

DICT_OF_LOADERS = """
import torch
from torch.utils.data import DataLoader
from torchvision import datasets, transforms

device = torch.device({device})
image_datasets = {{x: datasets.ImageFolder(f"data/{{x}}", transforms.ToTensor()) for x in ["train", "val"]}}
data_loaders = {loaders}
model = torch.nn.Linear(4, 2).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)


def train_model(model, loaders, optimizer, num_epochs=25):
    for epoch in range(num_epochs):
        for phase in ["train", "val"]:
            for inputs, labels in loaders[phase]:
                inputs, labels = inputs.to(device), labels.to(device)
                optimizer.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(inputs), labels)
                if phase == "train":
                    loss.backward()
                    optimizer.step()


train_model(model, data_loaders, optimizer)
"""

COMPREHENSION = '{x: DataLoader(image_datasets[x], batch_size=4, shuffle=True, num_workers=4) for x in ["train", "val"]}'
DISPLAY = '{"train": DataLoader(image_datasets["train"], batch_size=4, num_workers=4), "val": DataLoader(image_datasets["val"], batch_size=4)}'


@pytest.mark.parametrize(
    ("device", "loaders", "expected"),
    [
        ('"cuda"', COMPREHENSION, {("nb.py", "TL202", 8), ("nb.py", "TL203", 8)}),
        ('"cuda"', DISPLAY, {("nb.py", "TL202", 8), ("nb.py", "TL203", 8), ("nb.py", "TL201", 8)}),
        # hard negative: a program that never leaves the CPU needs no pinned memory
        ('"cpu"', COMPREHENSION, {("nb.py", "TL203", 8)}),
    ],
)
def test_loaders_held_in_a_dict(tmp_path, monkeypatch, device, loaders, expected) -> None:
    assert findings(tmp_path, monkeypatch, {"nb.py": DICT_OF_LOADERS.format(device=device, loaders=loaders)}) == expected


def test_a_dict_of_loaders_read_once_is_not_a_training_loader(tmp_path, monkeypatch) -> None:
    program = DICT_OF_LOADERS.format(device='"cuda"', loaders=COMPREHENSION).replace(
        "train_model(model, data_loaders, optimizer)", 'batch = next(iter(data_loaders["train"]))\nprint(batch[0].shape)'
    )
    assert findings(tmp_path, monkeypatch, {"nb.py": program}) == set()


@pytest.mark.parametrize("fit", ["trainer.fit(system)", "trainer.fit(model, train_loader, val_loader)"])
def test_a_smoke_test_trainer_does_not_feed_every_epoch(tmp_path, monkeypatch, fit) -> None:
    program = LIGHTNING_TRAIN.replace('max_epochs=10, accelerator="gpu"', "fast_dev_run=True").replace("trainer.fit(system)", fit)
    files = {"system.py": SYSTEM.format(base="pl.LightningModule", val="self.val_loader"), "train.py": program}
    assert findings(tmp_path, monkeypatch, files) == set()


ELEMENT_PASSED_ON = """
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda")
data_loaders = {x: DataLoader(torch.load(f"{x}.pt"), batch_size=4, shuffle=True, num_workers=4) for x in ["train", "val", "test"]}
model = torch.nn.Linear(4, 2).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)


def train_epoch(model, data_loader):
    for inputs, labels in data_loader:
        loss = torch.nn.functional.cross_entropy(model(inputs.to(device)), labels.to(device))
        loss.backward()
        optimizer.step()


split = "train"
for epoch in range(10):
    train_epoch(model, data_loaders[{key}])
"""


@pytest.mark.parametrize("key", ['"train"', "split"])
def test_an_element_handed_to_a_per_epoch_function(tmp_path, monkeypatch, key) -> None:
    program = ELEMENT_PASSED_ON.replace("{key}", key)
    assert findings(tmp_path, monkeypatch, {"nb.py": program}) == {("nb.py", "TL202", 6), ("nb.py", "TL203", 6)}


def test_an_element_handed_to_a_function_that_does_not_iterate_it(tmp_path, monkeypatch) -> None:
    program = ELEMENT_PASSED_ON.replace("{key}", '"train"').replace("    for inputs, labels in data_loader:\n", "    for inputs, labels in [next(iter(data_loader))]:\n")
    assert findings(tmp_path, monkeypatch, {"nb.py": program}) == set()


def test_a_smoke_test_left_to_an_option_still_trains(tmp_path, monkeypatch) -> None:
    program = LIGHTNING_TRAIN.replace('max_epochs=10, accelerator="gpu"', 'max_epochs=10, accelerator="gpu", fast_dev_run=conf["dry_run"]')
    files = {"system.py": SYSTEM.format(base="pl.LightningModule", val="self.val_loader"), "train.py": program}
    assert findings(tmp_path, monkeypatch, files) == {("train.py", "TL202", 9), ("train.py", "TL203", 9), ("train.py", "TL202", 10), ("train.py", "TL203", 10)}


OPTION_LOADER = """
import torch
from torch.utils.data import DataLoader


def train(args, dataset, model):
    loader = DataLoader(dataset, batch_size=32, num_workers=args.num_workers)
    for epoch in range(args.epochs):
        for x, y in loader:
            loss = model(x.cuda(), y.cuda())
            loss.backward()
"""

OPTIONS = """
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--num-workers", type=int, default={default})
"""


@pytest.mark.parametrize(("default", "expected"), [("0", set()), ("4", {("train.py", "TL203", 7)}), ("None", {("train.py", "TL203", 7)})])
def test_workers_from_an_option_that_defaults_to_zero(tmp_path, monkeypatch, default, expected) -> None:
    files = {"train.py": OPTION_LOADER, "options.py": OPTIONS.replace("{default}", default)}
    assert findings(tmp_path, monkeypatch, files, "TL203") == expected


def test_workers_from_an_option_whose_modules_disagree(tmp_path, monkeypatch) -> None:
    files = {"train.py": OPTION_LOADER, "options.py": OPTIONS.replace("{default}", "0"), "other.py": OPTIONS.replace("{default}", "8")}
    assert findings(tmp_path, monkeypatch, files, "TL203") == {("train.py", "TL203", 7)}


# -- a builder's tuple handed whole to a class that keeps its elements ---------------------

BUILDER = """
import torch
from torchvision import datasets


def get_train_valid_loader(data_dir, batch_size, num_workers=4, pin_memory=False):
    dataset = datasets.MNIST(data_dir, train=True)
    train_loader = torch.utils.data.DataLoader(dataset, batch_size=batch_size, num_workers=num_workers, pin_memory=pin_memory)
    valid_loader = torch.utils.data.DataLoader(dataset, batch_size=batch_size, num_workers=num_workers, pin_memory=pin_memory)
    return (train_loader, valid_loader)
"""

TRAINER = """
import torch


class Trainer:
    def __init__(self, config, data_loader):
        self.config = config
        self.device = torch.device("cuda")
        self.train_loader = data_loader[0]
        self.valid_loader = data_loader[1]
        self.model = Net().to(self.device)
        self.optimizer = torch.optim.Adam(self.model.parameters())

    def train(self):
        {train}

    def train_one_epoch(self, epoch):
        for i, (x, y) in enumerate(self.train_loader):
            loss = self.model(x.to(self.device)).sum()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()

    def validate(self, epoch):
        for i, (x, y) in enumerate(self.valid_loader):
            self.model(x.to(self.device))
"""

MAIN = """
import data_loader
from trainer import Trainer


def main(config):
    kwargs = {{}}
    if config.use_gpu:
        kwargs = {kwargs}
    dloader = data_loader.get_train_valid_loader(config.data_dir, config.batch_size, **kwargs)
    Trainer(config, dloader).train()
"""

EPOCHS = """for epoch in range(self.config.epochs):
            self.train_one_epoch(epoch)
            self.validate(epoch)"""


@pytest.mark.parametrize(
    ("kwargs", "train", "expected"),
    [
        # one worker from the caller's dict, memory pinned by it: workers restart every epoch
        ('{"num_workers": 1, "pin_memory": True}', EPOCHS, {("data_loader.py", "TL203", 8), ("data_loader.py", "TL203", 9)}),
        # the validation loader passed over once per run, the training loader every epoch
        ('{"pin_memory": True}', "self.validate(0)\n        " + EPOCHS.replace("self.validate(epoch)", "pass"), {("data_loader.py", "TL203", 8)}),
        # one epoch: each loader is passed over once
        ('{"num_workers": 1, "pin_memory": True}', "self.train_one_epoch(0)\n        self.validate(0)", set()),
    ],
)
def test_a_builder_s_tuple_kept_by_a_trainer_class(tmp_path, monkeypatch, kwargs, train, expected):
    files = {"data_loader.py": BUILDER, "trainer.py": TRAINER.format(train=train), "main.py": MAIN.format(kwargs=kwargs)}
    assert findings(tmp_path, monkeypatch, files) == expected


def test_loaders_a_test_hands_to_a_lightning_module_are_test_code(tmp_path, monkeypatch) -> None:
    files = {"system.py": SYSTEM.format(base="pl.LightningModule", val="self.val_loader"), "test_train.py": LIGHTNING_TRAIN}
    assert findings(tmp_path, monkeypatch, files) == set()
