"""The ninth recall round of issue 25, loaders: a Lightning data module whose loader hooks build
the loader through a class chosen at run time (`cls = DataLoader if ... else
IterableDataLoader`), through a helper method, or in a class whose Lightning base lives in
another module; loaders configured through a `**kwargs` dict. Each cause with positives and
hard negatives, in the default mode a user runs."""

from __future__ import annotations

from typing import Dict

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only


def findings(tmp_path, monkeypatch, files: Dict[str, str], rules: str = "TL201,TL202,TL203") -> set:
    return project_findings(tmp_path, monkeypatch, files, rules)


# -- a loader class chosen at run time in a loader hook ------------------------------------

CHOSEN_CLASS = """
import pytorch_lightning as pl
from torch.utils.data import DataLoader


class IterableDataLoader(DataLoader):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)


class {other}:
    def __init__(self, data, size, workers):
        self.data = data


class DataModule(pl.LightningDataModule):
    def __init__(self, streaming=False):
        super().__init__()
        self.streaming = streaming

    def {hook}(self{parameter}):
        {choice}
        return cls(self.ds, batch_size=32, num_workers=4)
"""


@pytest.mark.parametrize(
    ("hook", "parameter", "choice", "expected"),
    [
        ("train_dataloader", "", "cls = DataLoader if not self.streaming else IterableDataLoader", {("data.py", "TL202", 23), ("data.py", "TL203", 23)}),
        ("val_dataloader", "", "cls = IterableDataLoader if self.streaming else DataLoader", {("data.py", "TL202", 23), ("data.py", "TL203", 23)}),
        ("train_dataloader", "", "cls = DataLoader", {("data.py", "TL202", 23), ("data.py", "TL203", 23)}),
        # hard negatives: a class of another signature may be chosen, the class is the
        # caller's, or the hook runs after training
        ("train_dataloader", "", "cls = DataLoader if not self.streaming else Batches", set()),
        ("train_dataloader", ", cls=DataLoader", "pass", set()),
        ("test_dataloader", "", "cls = DataLoader if not self.streaming else IterableDataLoader", set()),
    ],
)
def test_loader_class_chosen_in_a_hook(tmp_path, monkeypatch, hook, parameter, choice, expected) -> None:
    files = {"data.py": CHOSEN_CLASS.format(other="Batches", hook=hook, parameter=parameter, choice=choice)}
    assert findings(tmp_path, monkeypatch, files) == expected


# -- a loader built by a helper method that the hook returns -------------------------------

HELPER = """
import pytorch_lightning as pl
from torch.utils.data import DataLoader


class DataModule({base}):
    def _loader(self, ds, shuffle):
        {build}

    def train_dataloader(self):
        return {train}

    def test_dataloader(self):
        return self._test_loader()

    def _test_loader(self):
        return DataLoader(self.test_ds, batch_size=32, num_workers=4)
"""


@pytest.mark.parametrize(
    ("base", "build", "train", "expected"),
    [
        ("pl.LightningDataModule", "return DataLoader(ds, batch_size=32, shuffle=shuffle, num_workers=4)", "self._loader(self.train_ds, True)",
         {("data.py", "TL202", 8), ("data.py", "TL203", 8)}),
        ("pl.LightningDataModule", "loader = DataLoader(ds, batch_size=32, shuffle=shuffle)\n        return loader", "self._loader(self.train_ds, True)",
         {("data.py", "TL201", 8), ("data.py", "TL202", 8)}),
        # hard negatives: the helper returns the loader among other things, the hook does
        # not return the helper's result, the class is no Lightning class
        ("pl.LightningDataModule", "return DataLoader(ds, batch_size=32, num_workers=4), len(ds)", "self._loader(self.train_ds, True)[0]", set()),
        ("pl.LightningDataModule", "return DataLoader(ds, batch_size=32, num_workers=4)", "self.train_loader", set()),
        ("object", "return DataLoader(ds, batch_size=32, num_workers=4)", "self._loader(self.train_ds, True)", set()),
    ],
)
def test_loader_built_by_a_helper_of_the_hook(tmp_path, monkeypatch, base, build, train, expected) -> None:
    files = {"data.py": HELPER.format(base=base, build=build, train=train)}
    assert findings(tmp_path, monkeypatch, files) == expected


# -- a data module whose Lightning base is defined in another module -----------------------

BASE = """
import pytorch_lightning as pl


class Base{base_name}({base}):
    def __init__(self, batch_size=32):
        super().__init__()
        self.batch_size = batch_size


class BaseDataModule(Base{base_name}):
    pass
"""

SUBCLASS = """
from torch.utils.data import DataLoader
from base import BaseDataModule


class DataModule(BaseDataModule):
    def train_dataloader(self):
        return DataLoader(self.train_ds, batch_size=self.batch_size, num_workers=4)
"""


@pytest.mark.parametrize(
    ("base", "expected"),
    [
        ("pl.LightningDataModule", {("data.py", "TL202", 8), ("data.py", "TL203", 8)}),
        ("pl.LightningModule", {("data.py", "TL202", 8), ("data.py", "TL203", 8)}),
        # hard negatives: a plain class, or a Lightning callback, whose `train_dataloader` the
        # trainer does not call
        ("object", set()),
        ("pl.Callback", set()),
    ],
)
def test_lightning_base_in_another_module(tmp_path, monkeypatch, base, expected) -> None:
    files = {"base.py": BASE.format(base=base, base_name="Module"), "data.py": SUBCLASS}
    assert findings(tmp_path, monkeypatch, files) == expected


# -- a device chosen by the program's configuration ----------------------------------------

CONFIGURED = """
import argparse
import torch
from torch.utils.data import DataLoader
from config import hp
{option}

def train(model, dataset, optimizer):
    device = torch.device({setting})
    model = model.to(device)
    loader = DataLoader(dataset, batch_size=32, num_workers=4, persistent_workers=True)
    for epoch in range(10):
        for batch in loader:
            batch = batch.to(device)
            loss = model(batch).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
"""


@pytest.mark.parametrize(
    ("option", "setting", "expected"),
    [
        ("", "hp.device", {("train.py", "TL202", 11)}),
        ("", 'hp["device"]', {("train.py", "TL202", 11)}),
        ("", "hp.train.device_name", {("train.py", "TL202", 11)}),
        ('parser = argparse.ArgumentParser()\nparser.add_argument("--device")\nargs = parser.parse_args()', "args.device", {("train.py", "TL202", 13)}),
        # hard negatives: an option that defaults to the CPU, a setting that is no device,
        # the object's own device, a device spelled out as the CPU
        ('parser = argparse.ArgumentParser()\nparser.add_argument("--device", default="cpu")\nargs = parser.parse_args()', "args.device", set()),
        ("", "hp.backend", set()),
        ("", "self.device", set()),
        ("", '"cpu"', set()),
    ],
)
def test_device_from_the_configuration(tmp_path, monkeypatch, option, setting, expected) -> None:
    files = {"train.py": CONFIGURED.format(option=option, setting=setting)}
    assert findings(tmp_path, monkeypatch, files, "TL202") == expected


# -- loader options in a keyword dict built before the call --------------------------------

BUILT_DICT = """
import torch
from torch.utils.data import DataLoader


def main(args, model, optimizer, ds, test_ds):
    device = torch.device("cuda")
{kwargs}
    loader = DataLoader(ds, **train_kwargs)
    test_loader = DataLoader(test_ds, **test_kwargs)
    for epoch in range(10):
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            loss = model(x).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        for x, y in test_loader:
            model(x.to(device))
"""

# (code, loader) pairs: "train" for `loader`, "test" for `test_loader`.
_BOTH = {("TL202", "train"), ("TL203", "train"), ("TL202", "test"), ("TL203", "test")}


def _lines(*lines: str) -> str:
    return "\n".join("    " + line for line in lines)


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        # the dict is built in view: updated on the CUDA branch, an item set, copied
        (_lines('train_kwargs = {"batch_size": 64}', 'test_kwargs = {"batch_size": 1000}',
                "if torch.cuda.is_available():", '    cuda_kwargs = {"num_workers": 1, "shuffle": True}',
                "    train_kwargs.update(cuda_kwargs)", "    test_kwargs.update(cuda_kwargs)"), _BOTH),
        (_lines('train_kwargs = {"batch_size": 64}', 'train_kwargs["num_workers"] = 4', "test_kwargs = dict(train_kwargs)"), _BOTH),
        (_lines("train_kwargs = dict(batch_size=64, num_workers=4)", "train_kwargs.update(shuffle=True)",
                'test_kwargs = {**train_kwargs, "shuffle": False}'), _BOTH),
        (_lines('train_kwargs = {"batch_size": 64}', "test_kwargs = train_kwargs.copy()"),
         {("TL201", "train"), ("TL202", "train"), ("TL201", "test"), ("TL202", "test")}),
        # the same dict under two names: the item set through one is in both
        (_lines('train_kwargs = {"batch_size": 64, "num_workers": 4}', "test_kwargs = train_kwargs",
                'test_kwargs["pin_memory"] = True'), {("TL203", "train"), ("TL203", "test")}),
        # pinned and kept alive on the CUDA branch: nothing to say
        (_lines('train_kwargs = {"batch_size": 64}', "test_kwargs = {}", "if args.cuda:",
                '    extra = {"num_workers": 1, "pin_memory": True, "persistent_workers": True}',
                "    train_kwargs.update(extra)", "    test_kwargs.update(extra)"), set()),
        # hard negatives: the dict is not built in view (an option, a function's result, a
        # change by an unknown test, in a loop, by a function it is handed to)
        (_lines("train_kwargs = vars(args)", "test_kwargs = args.loader_kwargs"), set()),
        (_lines('train_kwargs = {"batch_size": 64}', "if args.fast:", '    train_kwargs["num_workers"] = 8', "test_kwargs = train_kwargs"), set()),
        (_lines('train_kwargs = {"batch_size": 64}', "for key in args.extra:", "    train_kwargs[key] = 1", "test_kwargs = train_kwargs"), set()),
        (_lines('train_kwargs = {"batch_size": 64}', "configure(train_kwargs)", "test_kwargs = train_kwargs"), set()),
        (_lines('train_kwargs = {"batch_size": 64}', "train_kwargs.update(args.loader)", "test_kwargs = train_kwargs"), set()),
    ],
)
def test_loader_options_in_a_built_dict(tmp_path, monkeypatch, kwargs, expected) -> None:
    text = BUILT_DICT.format(kwargs=kwargs)
    lines = text.splitlines()
    where = {"train": lines.index("    loader = DataLoader(ds, **train_kwargs)"), "test": lines.index("    test_loader = DataLoader(test_ds, **test_kwargs)")}
    assert findings(tmp_path, monkeypatch, {"train.py": text}) == {("train.py", code, where[loader] + 1) for code, loader in expected}
