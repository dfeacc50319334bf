"""Round 15 (loader rules TL201-TL203): loaders that reach other modules.

A builder whose package re-exports it (`from .utils import *` in `d2lzh_pytorch/__init__.py`,
called as `d2l.load_data_fashion_mnist(...)` by a chapter's notebook) is found by
`project.callers_of`, so the loaders it returns are followed to the script that hands them to
an epoch loop (`d2l.train_ch5(net, train_iter, test_iter, ...)`), even when that loop is a
function of the builder's own module."""

from __future__ import annotations

from typing import Dict

import pytest
from conftest import lines, project_findings

pytestmark = pytest.mark.stable_only

INIT = """
from .utils import *
"""

UTILS = """
import torch
import torchvision


def load_data(batch_size, root="~/data"):
    train_set = torchvision.datasets.FashionMNIST(root=root, train=True, transform=torchvision.transforms.ToTensor())
    test_set = torchvision.datasets.FashionMNIST(root=root, train=False, transform=torchvision.transforms.ToTensor())
    train_iter = torch.utils.data.DataLoader(train_set, batch_size=batch_size, shuffle=True, num_workers=4)
    test_iter = torch.utils.data.DataLoader(test_set, batch_size=batch_size, num_workers=4)
    return train_iter, test_iter


def evaluate(data_iter, net, device):
    correct = 0
    with torch.no_grad():
        for X, y in data_iter:
            correct += (net(X.to(device)).argmax(1) == y.to(device)).sum().item()
    return correct


def train(net, train_iter, test_iter, optimizer, device, num_epochs):
    net = net.to(device)
    for epoch in range(num_epochs):
        for X, y in train_iter:
            X, y = X.to(device), y.to(device)
            loss = torch.nn.functional.cross_entropy(net(X), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(epoch, evaluate(test_iter, net, device))
"""

SCRIPT = """
import torch
import helpers as d2l

device = torch.device("cuda")
net = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(784, 10))
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
train_iter, test_iter = d2l.load_data(256)
d2l.train(net, train_iter, test_iter, optimizer, device, 10)
"""

LOADERS = {("utils.py", code, line) for code in ("TL202", "TL203") for line in (9, 10)}


def _findings(tmp_path, monkeypatch, init: str = INIT, utils: str = UTILS, script: str = SCRIPT) -> set:
    (tmp_path / "helpers").mkdir()
    files: Dict[str, str] = {"helpers/__init__.py": init, "helpers/utils.py": utils, "train.py": script}
    return project_findings(tmp_path, monkeypatch, files, "TL202,TL203")


def test_a_builder_reexported_by_its_package(tmp_path, monkeypatch):
    assert _findings(tmp_path, monkeypatch) == LOADERS


def test_a_builder_reexported_by_name(tmp_path, monkeypatch):
    assert _findings(tmp_path, monkeypatch, init="from .utils import load_data, train\n") == LOADERS


@pytest.mark.parametrize(
    "init",
    [
        "",  # the package re-exports nothing: `d2l.load_data` is not the builder
        "from .other import *\n",  # another module's names
        "from .utils import train\nfrom .other import load_data\n",  # a builder of the same name elsewhere
    ],
)
def test_hard_negatives_of_the_package(tmp_path, monkeypatch, init):
    (tmp_path / "helpers").mkdir()
    (tmp_path / "helpers" / "other.py").write_text("def load_data(batch_size):\n    return [], []\n")
    files = {"helpers/__init__.py": init, "helpers/utils.py": UTILS, "train.py": SCRIPT}
    assert project_findings(tmp_path, monkeypatch, files, "TL202,TL203") == set()


@pytest.mark.parametrize(
    "change",
    [
        # one pass over each loader, on the CPU: no epoch loop, no device
        ("d2l.train(net, train_iter, test_iter, optimizer, device, 10)", "print(d2l.evaluate(test_iter, net, 'cpu'))"),
        # the loaders are only built, never handed on
        ("d2l.train(net, train_iter, test_iter, optimizer, device, 10)", "print(len(train_iter))"),
    ],
)
def test_hard_negatives_of_the_script(tmp_path, monkeypatch, change):
    assert _findings(tmp_path, monkeypatch, script=SCRIPT.replace(*change)) == set()


def test_loaders_that_pin_and_keep_their_workers(tmp_path, monkeypatch):
    utils = UTILS.replace("num_workers=4)", "num_workers=4, pin_memory=True, persistent_workers=True)")
    assert _findings(tmp_path, monkeypatch, utils=utils) == set()


# A loop over a loader wrapped by a `with` statement (`with tqdm(loader) as pbar: for x in
# pbar`) in a trainer class of another module, which the script builds with the loader and
# runs for its epochs; the class reached through a package that re-exports it (`from .trainer
# import Trainer` in `__init__`, `from engine import *` in the script).

TRAINER = """
import torch
from tqdm import tqdm


class Trainer:
    def __init__(self, model, optimizer, epochs, trainloader, device):
        self.model = model
        self.optimizer = optimizer
        self.epochs = epochs
        self.trainloader = trainloader
        self.device = device

    def train(self):
        for e in range(self.epochs):
            with tqdm(self.trainloader, desc=f"epoch {e}") as t:
                for x, y in t:
                    loss = torch.nn.functional.mse_loss(self.model(x.to(self.device)), y.to(self.device))
                    self.optimizer.zero_grad()
                    loss.backward()
                    self.optimizer.step()
"""

TRAIN_SCRIPT = """
import torch
from torch.utils.data import DataLoader
from engine import *

model = torch.nn.Linear(8, 1).cuda()
optimizer = torch.optim.Adam(model.parameters())
loader = DataLoader(ImageFiles("data/"), batch_size=64, shuffle=True, num_workers=4)
Trainer(model, optimizer, 100, loader, "cuda").train()
"""

TRAINED = {("train.py", code, 8) for code in ("TL202", "TL203")}


def _trainer_findings(tmp_path, monkeypatch, trainer: str = TRAINER, init: str = "from .trainer import Trainer\n", script: str = TRAIN_SCRIPT) -> set:
    (tmp_path / "engine").mkdir()
    files = {"engine/__init__.py": init, "engine/trainer.py": trainer, "train.py": script}
    return project_findings(tmp_path, monkeypatch, files, "TL202,TL203")


def test_a_with_bound_pass_of_a_reexported_trainer(tmp_path, monkeypatch):
    assert _trainer_findings(tmp_path, monkeypatch) == TRAINED


def test_a_with_bound_pass_over_an_iterator_of_the_loader(tmp_path, monkeypatch):
    trainer = TRAINER.replace("with tqdm(self.trainloader,", "it = iter(self.trainloader)\n            with tqdm(it,")
    assert _trainer_findings(tmp_path, monkeypatch, trainer=trainer) == TRAINED


@pytest.mark.parametrize(
    "change",
    [
        # the `with` binds a lock, the loop walks something else
        ("with tqdm(self.trainloader, desc=f\"epoch {e}\") as t:", "with torch.no_grad() as t:"),
        # the `with` binds the loader's length, a number
        ("with tqdm(self.trainloader, desc=f\"epoch {e}\") as t:", "with tqdm(len(self.trainloader)) as t:"),
    ],
)
def test_hard_negatives_of_the_with_statement(tmp_path, monkeypatch, change):
    assert _trainer_findings(tmp_path, monkeypatch, trainer=TRAINER.replace(*change)) == set()


def test_a_package_that_does_not_reexport_the_trainer(tmp_path, monkeypatch):
    # `Trainer` is not a name of the package: the class is not known
    assert _trainer_findings(tmp_path, monkeypatch, init="from .trainer import tqdm\n") == set()


# A builder's `**dict` whose key is set by a chained assignment (`configs["sampler"] = sampler
# = DistributedSampler(...)`): the dict stays known, so its worker count is read.

BUILDER = """
from torch.utils.data import DataLoader, DistributedSampler


def get_dataloader(dataset, batch_size, num_workers=4, distributed=False):
    configs = {"batch_size": batch_size, "pin_memory": True, "num_workers": num_workers}
    configs["sampler"] = sampler = DistributedSampler(dataset) if distributed else None
    configs["shuffle"] = sampler is None
    dataloader = DataLoader(dataset, **configs)
    return dataloader, sampler
"""

BUILDER_SCRIPT = """
import torch
from data import get_dataloader

model = torch.nn.Linear(8, 1).cuda()
optimizer = torch.optim.Adam(model.parameters())
loader, sampler = get_dataloader(ImageFiles("data/"), 64)
for epoch in range(100):
    for x, y in loader:
        loss = torch.nn.functional.mse_loss(model(x.cuda()), y.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""


def test_a_key_set_by_a_chained_assignment(tmp_path, monkeypatch):
    files = {"data.py": BUILDER, "train.py": BUILDER_SCRIPT}
    assert project_findings(tmp_path, monkeypatch, files, "TL203") == {("data.py", "TL203", 9)}


@pytest.mark.parametrize(
    "change",
    [
        # the chained assignment also sets the workers: to none
        ('configs["shuffle"] = sampler is None', 'configs["num_workers"] = configs["shuffle"] = 0'),
        # a name of the chain rebinds the dict itself: no longer known
        ('configs["sampler"] = sampler =', 'configs["sampler"] = configs ='),
    ],
)
def test_hard_negatives_of_the_chained_assignment(tmp_path, monkeypatch, change):
    files = {"data.py": BUILDER.replace(*change), "train.py": BUILDER_SCRIPT}
    assert project_findings(tmp_path, monkeypatch, files, "TL203") == set()


def test_a_with_bound_pass_of_a_trainer_imported_from_its_module(tmp_path, monkeypatch):
    script = TRAIN_SCRIPT.replace("from engine import *", "from engine.trainer import Trainer")
    assert _trainer_findings(tmp_path, monkeypatch, init="", script=script) == TRAINED


# A global loader a per-epoch function iterates through a wrapper bound by a `with` statement
# or chosen by a conditional expression (`bar = tqdm(train_loader) if rank == 0 else
# train_loader`, the progress bar of the first process only).

GLOBAL_LOADER = """
import torch
from torch.utils.data import DataLoader
from tqdm import tqdm

model = torch.nn.Linear(8, 1).cuda()
optimizer = torch.optim.Adam(model.parameters())
train_loader = DataLoader(train_dataset, batch_size=64, num_workers=args.num_workers, pin_memory=True)


def train(epoch):
    bar = tqdm(train_loader) if args.local_rank == 0 else train_loader
    for x, y in bar:
        loss = torch.nn.functional.mse_loss(model(x.cuda()), y.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


for epoch in range(100):
    train(epoch)
"""


@pytest.mark.parametrize(
    "wrapper",
    [
        "    bar = tqdm(train_loader) if args.local_rank == 0 else train_loader\n    for x, y in bar:",
        "    bar = train_loader if args.quiet else enumerate(tqdm(train_loader))\n    for x, y in bar:",
        "    with tqdm(train_loader, desc=str(epoch)) as bar:\n     for x, y in bar:",
    ],
)
def test_a_wrapped_pass_every_epoch(wrapper):
    code = GLOBAL_LOADER.replace("    bar = tqdm(train_loader) if args.local_rank == 0 else train_loader\n    for x, y in bar:", wrapper)
    assert lines(code, "TL203") == [8]


@pytest.mark.parametrize(
    "wrapper",
    [
        # a choice between this loader and another one
        "    bar = tqdm(train_loader) if args.local_rank == 0 else other_loader\n    for x, y in bar:",
        # the loader's length, a number
        "    with tqdm(total=len(train_loader)) as bar:\n     for x, y in other_loader:",
        "    bar = len(train_loader)\n    for x, y in range(bar):",
    ],
)
def test_hard_negatives_of_the_wrappers(wrapper):
    code = GLOBAL_LOADER.replace("    bar = tqdm(train_loader) if args.local_rank == 0 else train_loader\n    for x, y in bar:", wrapper)
    assert lines(code, "TL203") == []


def test_a_wrapped_pass_run_once():
    code = GLOBAL_LOADER.replace("for epoch in range(100):\n    train(epoch)", "train(0)")
    assert lines(code, "TL203") == []


# Lightning's loader hooks that build one loader per dataset in a loop and return the list
# (`loaders.append(DataLoader(...))`, `return loaders`): the trainer iterates each every epoch.

LIST_HOOK = """
import pytorch_lightning as pl
from torch.utils.data import DataLoader


class Module(pl.LightningModule):
    def train_dataloader(self):
        loaders = list()
        for dataset, batch_size in zip(self.train_datasets, self.batch_sizes):
            loaders.append(
                DataLoader(dataset, batch_size=batch_size, num_workers=self.config.num_workers, pin_memory=True)
            )
        return loaders
"""


@pytest.mark.parametrize("start", ["loaders = list()", "loaders = []"])
def test_loaders_a_lightning_hook_appends_to_the_list_it_returns(start):
    assert lines(LIST_HOOK.replace("loaders = list()", start), "TL203") == [11]


@pytest.mark.parametrize(
    "change",
    [
        # the list is not what the hook returns
        ("        return loaders", "        return self.main_loader"),
        # appended to a list the hook did not start empty
        ("        loaders = list()", "        loaders = self.loaders"),
        # no workers to keep
        ("num_workers=self.config.num_workers", "num_workers=0"),
        # a method of no framework: nothing iterates the list every epoch
        ("class Module(pl.LightningModule):", "class Module:"),
    ],
)
def test_hard_negatives_of_the_list_hook(change):
    assert lines(LIST_HOOK.replace(*change), "TL203") == []


# A Lightning loader hook that takes `**kwargs` for the project's own calls
# (`datamodule.train_dataloader(batch_size=64)`) and spreads them into the loader: the
# trainer calls it without arguments, so the dict holds only what the hook sets itself.

KWARGS_HOOK = """
import pytorch_lightning as pl
from torch.utils.data import DataLoader


class DataModule(pl.LightningDataModule):
    def train_dataloader(self, batch_size=None, **kwargs):
        dataset_kwargs = kwargs.pop("dataset_kwargs", {})
        return DataLoader(self.train_dataset, batch_size=batch_size or 64, num_workers=self.num_workers, pin_memory=True, **kwargs)
"""


@pytest.mark.parametrize(
    "change",
    [
        ("", ""),
        ('        dataset_kwargs = kwargs.pop("dataset_kwargs", {})\n', '        kwargs.setdefault("drop_last", True)\n'),
    ],
)
def test_a_hook_spreading_its_own_kwargs(change):
    assert lines(KWARGS_HOOK.replace(*change), "TL203") == [9]


@pytest.mark.parametrize(
    "change",
    [
        # the hook itself sets the option
        ('        dataset_kwargs = kwargs.pop("dataset_kwargs", {})\n', '        kwargs.setdefault("persistent_workers", False)\n'),
        # the dict is handed to a function that may change it
        ('        dataset_kwargs = kwargs.pop("dataset_kwargs", {})\n', "        self.update_options(kwargs)\n"),
        # another dict is spread
        ("pin_memory=True, **kwargs)", "pin_memory=True, **self.loader_options)"),
        # not a loader hook: its callers may pass anything
        ("    def train_dataloader(self,", "    def make_loader(self,"),
    ],
)
def test_hard_negatives_of_the_hook_kwargs(change):
    assert lines(KWARGS_HOOK.replace(*change), "TL203") == []
