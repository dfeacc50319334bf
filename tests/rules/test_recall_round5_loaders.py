"""The fifth recall round of issue 25, loaders: builders in another module whose options
reach `**kwargs` from `kwargs.setdefault(...)` and the callers' keywords, loaders returned in
a list and passed over every epoch by the training script, and worker counts that a
`LightningDataModule` stores from an `__init__` parameter defaulting to 0. Each cause with
positives and hard negatives, in the default mode a user runs."""

from __future__ import annotations

import json
import textwrap
from typing import Dict

import pytest
from click.testing import CliRunner

from torchlint.cli import main

pytestmark = pytest.mark.stable_only


def findings(tmp_path, monkeypatch, files: Dict[str, str], rules: str) -> list:
    """(path, code, line) of the findings of `rules` on a small project, default mode."""
    (tmp_path / "setup.py").write_text("")
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", rules, "--output-format", "json", "."])
    return sorted((item["path"].split("/")[-1], item["code"], item["line"]) for item in json.loads(result.stdout))


# -- a builder in another module: `**kwargs` set with `setdefault` and by the callers ------

BUILDER = """
import torch
from torchvision import datasets


def get10(batch_size, train=True, val=True, **kwargs):
    num_workers = kwargs.setdefault("num_workers", 1)
    kwargs.pop("input_size", None)
    ds = []
    if train:
        train_loader = torch.utils.data.DataLoader(datasets.CIFAR10("data", train=True), batch_size=batch_size, shuffle=True, **kwargs)
        ds.append(train_loader)
    if val:
        test_loader = torch.utils.data.DataLoader(datasets.CIFAR10("data", train=False), batch_size=batch_size, **kwargs)
        ds.append(test_loader)
    ds = ds[0] if len(ds) == 1 else ds
    return ds
"""

TRAIN = """
import torch
import dataset

train_loader, test_loader = dataset.get10(batch_size=64{keywords})
model = Net().cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(100):
    for data, target in train_loader:
        data, target = data.cuda(), target.cuda()
        optimizer.zero_grad()
        loss = model(data).sum()
        loss.backward()
        optimizer.step()
    if epoch % 5 == 0:
        for data, target in test_loader:
            model(data.cuda())
"""


@pytest.mark.parametrize(
    ("keywords", "expected"),
    [
        # the builder's `setdefault` gives one worker; nobody pins memory
        ("", {("dataset.py", "TL202", 11), ("dataset.py", "TL202", 14), ("dataset.py", "TL203", 11), ("dataset.py", "TL203", 14)}),
        (", num_workers=4", {("dataset.py", "TL202", 11), ("dataset.py", "TL202", 14), ("dataset.py", "TL203", 11), ("dataset.py", "TL203", 14)}),
        # the caller's keywords decide: no workers to keep, memory pinned, workers kept
        (", num_workers=0", {("dataset.py", "TL202", 11), ("dataset.py", "TL202", 14)}),
        (", pin_memory=True", {("dataset.py", "TL203", 11), ("dataset.py", "TL203", 14)}),
        (", num_workers=2, persistent_workers=True, pin_memory=True", set()),
        # a spread dict of the caller: unknown, silent
        (", **loader_options", set()),
    ],
)
def test_builder_keywords_reach_the_loader_of_another_module(tmp_path, monkeypatch, keywords, expected):
    files = {"dataset.py": BUILDER, "train.py": TRAIN.format(keywords=keywords)}
    assert set(findings(tmp_path, monkeypatch, files, "TL202,TL203")) == expected


def test_a_builder_that_changes_its_keywords_otherwise_is_unknown(tmp_path, monkeypatch):
    builder = BUILDER.replace('kwargs.pop("input_size", None)', "kwargs.update(extra_options())")
    files = {"dataset.py": builder, "train.py": TRAIN.format(keywords="")}
    assert findings(tmp_path, monkeypatch, files, "TL202,TL203") == []


def test_literal_workers_of_a_builder_repeated_by_the_epoch_loop_of_another_module(tmp_path, monkeypatch):
    """TL203 follows a returned loader to the script that passes over it every epoch, as TL202
    does; a script that passes over it once is no repetition."""
    builder = BUILDER.replace("**kwargs)", "num_workers=2)")
    files = {"dataset.py": builder, "train.py": TRAIN.format(keywords="")}
    assert ("dataset.py", "TL203", 11) in findings(tmp_path, monkeypatch, files, "TL203")
    once = """
    import torch
    import dataset

    train_loader, test_loader = dataset.get10(batch_size=64)
    for data, target in test_loader:
        print(data.shape)
    """
    files = {"dataset.py": builder, "train.py": once}
    assert findings(tmp_path, monkeypatch, files, "TL203") == []


# -- worker counts from `__init__` defaults ------------------------------------------------

DATA_MODULE = """
import pytorch_lightning as pl
import torch


class ImageData(pl.LightningDataModule):
    def __init__(self, data_dir, batch_size=16, num_workers=0):
        super().__init__()
        {store}

    def train_dataloader(self):
        return torch.utils.data.DataLoader(self.train_ds, batch_size=16, num_workers={workers})
"""

STORED = [
    ("self.save_hyperparameters()", "self.hparams.num_workers"),
    ("self.num_workers = num_workers", "self.num_workers"),
]


@pytest.mark.parametrize(("store", "workers"), STORED)
@pytest.mark.parametrize(
    ("caller", "reported"),
    [
        ("", False),  # no call in the project: the default
        ("data = ImageData('images')\n", False),
        ("data = ImageData('images', num_workers=0)\n", False),
        ("data = ImageData('images', 32, 4)\n", True),
        ("data = ImageData('images', num_workers=args.workers)\n", True),
        ("data = ImageData('images', **options)\n", True),
        ("cli = LightningCLI(Model, ImageData)\n", True),  # built from a configuration
    ],
)
def test_workers_defaulting_to_zero_in_init(tmp_path, monkeypatch, store, workers, caller, reported):
    files = {"data.py": DATA_MODULE.format(store=store, workers=workers), "train.py": "from data import ImageData\n" + caller}
    found = findings(tmp_path, monkeypatch, files, "TL203")
    assert found == ([("data.py", "TL203", 12)] if reported else [])


def test_workers_changed_in_init_are_not_the_default(tmp_path, monkeypatch):
    store = "num_workers = num_workers or 4\n        self.num_workers = num_workers"
    files = {"data.py": DATA_MODULE.format(store=store, workers="self.num_workers")}
    assert findings(tmp_path, monkeypatch, files, "TL203") == [("data.py", "TL203", 13)]


# -- a flag that selects CUDA, known by what it does ----------------------------------------

FLAGGED = """
import torch
from torch.utils.data import DataLoader

model = Net()
if {test}:
    model.{move}()
loader = DataLoader(ds, batch_size=64, num_workers=2, pin_memory={flag}, persistent_workers=True)
for epoch in range(10):
    for x, y in loader:
        loss = model(x.cuda()).sum()
        loss.backward()
        optimizer.step()
"""


@pytest.mark.parametrize(
    ("test", "move", "flag", "pinned"),
    [
        ("args.fast", "cuda", "args.fast", True),  # pins on the runs that move to CUDA
        ("not args.slow", "cuda", "not args.slow", True),
        ("args.slow", "cuda", "not args.slow", False),  # pins on the runs that stay on the host
        ("args.fast", "half", "args.fast", False),  # a flag with no device effect: not known to pin
        ("args.no_cuda", "cpu", "not args.no_cuda", True),  # no effect on CUDA: the words decide
    ],
)
def test_pin_memory_flag_known_by_its_effect_on_the_device(tmp_path, monkeypatch, test, move, flag, pinned):
    """TL106 asks whether the loader pins memory on a CUDA run: `pin_memory=flag` does where
    the flag is what selects CUDA."""
    files = {"train.py": FLAGGED.format(test=test, move=move, flag=flag)}
    assert findings(tmp_path, monkeypatch, files, "TL106") == ([("train.py", "TL106", 11)] if pinned else [])


def test_a_long_branch_is_no_choice_of_device(tmp_path, monkeypatch):
    """`if args.train:` around a part of the program that moves to CUDA says nothing about the
    device the flag chooses."""
    move = "cuda()\n    model.eval()\n    print(model)\n    model.train"
    files = {"train.py": FLAGGED.format(test="args.train", move=move, flag="args.train")}
    assert findings(tmp_path, monkeypatch, files, "TL106") == []
    files = {"train.py": FLAGGED.format(test="args.train", move="cuda", flag="args.train")}
    assert findings(tmp_path, monkeypatch, files, "TL106") == [("train.py", "TL106", 11)]


# -- DataLoader subclasses with a signature of their own ------------------------------------

BASE_LOADER = """
import numpy as np
from torch.utils.data import DataLoader
from torch.utils.data.sampler import SubsetRandomSampler


class BaseDataLoader(DataLoader):
    def __init__(self, dataset, batch_size, shuffle, validation_split, num_workers):
        self.sampler, self.valid_sampler = self._split_sampler(validation_split)
        self.init_kwargs = {{"dataset": dataset, "batch_size": batch_size, "shuffle": shuffle, "num_workers": num_workers{options}}}
        super().__init__(sampler=self.sampler, **self.init_kwargs)

    def _split_sampler(self, split):
        idx = np.arange(100)
        return SubsetRandomSampler(idx[10:]), SubsetRandomSampler(idx[:10])

    def split_validation(self):
        return DataLoader(sampler=self.valid_sampler, **self.init_kwargs)
"""

SUBCLASS_TRAIN = """
import torch
from base import BaseDataLoader

train_loader = BaseDataLoader(dataset, 64, True, 0.1, {workers})
valid_loader = train_loader.split_validation()
model = Net().cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(100):
    for data, target in train_loader:
        data, target = data.to("cuda"), target.to("cuda")
        optimizer.zero_grad()
        model(data).sum().backward()
        optimizer.step()
    for data, target in valid_loader:
        model(data.to("cuda"))
"""


@pytest.mark.parametrize(
    ("options", "workers", "expected"),
    [
        ("", "2", {("base.py", "TL202", 11), ("base.py", "TL203", 11), ("base.py", "TL202", 18), ("base.py", "TL203", 18)}),
        # the dict decides: memory pinned, workers kept; a caller's worker count of 0
        (', "pin_memory": True, "persistent_workers": True', "2", set()),
        ("", "0", {("base.py", "TL202", 11), ("base.py", "TL202", 18)}),
    ],
)
def test_a_loader_subclass_configured_through_a_dict_of_its_own(tmp_path, monkeypatch, options, workers, expected):
    files = {"base.py": BASE_LOADER.format(options=options), "train.py": SUBCLASS_TRAIN.format(workers=workers)}
    assert set(findings(tmp_path, monkeypatch, files, "TL202,TL203")) == expected


def test_a_loader_subclass_whose_dict_changes_is_unknown(tmp_path, monkeypatch):
    base = BASE_LOADER.format(options="").replace("        super().__init__(", "        self.init_kwargs.update(extra)\n        super().__init__(")
    files = {"base.py": base, "train.py": SUBCLASS_TRAIN.format(workers="2")}
    assert findings(tmp_path, monkeypatch, files, "TL202,TL203") == []


def test_a_loader_subclass_that_nothing_trains_on(tmp_path, monkeypatch):
    """Instances built but only looked at once: no per-epoch cost to claim."""
    once = "from base import BaseDataLoader\nloader = BaseDataLoader(dataset, 64, True, 0.1, 2)\nprint(next(iter(loader)))\n"
    files = {"base.py": BASE_LOADER.format(options=""), "train.py": once}
    assert findings(tmp_path, monkeypatch, files, "TL202,TL203") == []


def test_the_subclass_of_a_subclass_passes_its_base_s_arguments(tmp_path, monkeypatch):
    """`MnistLoader(BaseDataLoader)` calls `super().__init__(dataset, batch_size, shuffle,
    split, num_workers)` in BaseDataLoader's signature: position 4 is not DataLoader's
    `batch_sampler`, so that call is no loader to check (TL201 would claim no workers)."""
    mnist = """
    from base import BaseDataLoader


    class MnistLoader(BaseDataLoader):
        def __init__(self, data_dir, batch_size, num_workers=1):
            super().__init__(load(data_dir), batch_size, True, 0.1, num_workers)
    """
    train = SUBCLASS_TRAIN.replace("from base import BaseDataLoader", "from mnist import MnistLoader")
    train = train.replace("BaseDataLoader(dataset, 64, True, 0.1, {workers})", "MnistLoader('data', 64)")
    files = {"base.py": BASE_LOADER.format(options=""), "mnist.py": mnist, "train.py": train}
    assert [item for item in findings(tmp_path, monkeypatch, files, "TL201,TL202,TL203") if item[0] == "mnist.py"] == []


# -- a batch source known by what the file does with it -------------------------------------

HANDED = """
import torch
from torchnet.engine import Engine


def main():
    model = Net().cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    batches = make_batches(True)
    {warmup}

    def h(sample):
        inputs, targets = sample
        loss = torch.nn.functional.cross_entropy(model(inputs.cuda()), targets.cuda())
        print(loss.item())
        return loss, None

    engine = Engine()
    engine.train(h, batches, 200, optimizer)
"""

WARMUP = """for inputs, targets in batches:
        optimizer.zero_grad()
        model(inputs.cuda()).sum().backward()
        optimizer.step()"""


@pytest.mark.parametrize(("warmup", "expected"), [(WARMUP, [("train.py", "TL101", 18)]), ("print(len(batches))", [])])
def test_a_value_a_training_loop_iterates_is_a_batch_source(tmp_path, monkeypatch, warmup, expected):
    """`engine.train(h, batches, ...)` runs `h` every batch when `batches` is what a loop of
    the file trains on, whatever its name; a value the file only measures says nothing."""
    files = {"train.py": HANDED.format(warmup=warmup)}
    assert findings(tmp_path, monkeypatch, files, "TL101") == expected
