"""Round 16 of issue 25: modules found where a launcher's search path puts them, DataLoader
subclasses that hand `*args, **kwargs` on, and the Lightning hooks that run at every
optimisation step.

A recipe-style project runs `PYTHONPATH=src/data:src/solver python src/bin/train.py`, whose
`from solver import Solver` names `src/solver/solver.py` next to an empty
`src/solver/__init__.py`. Without that, the solver's step loop was taken for code nothing runs
and the script's loaders for objects of an unknown class."""

from __future__ import annotations

from typing import Dict

import pytest
from conftest import lines, project_findings

pytestmark = pytest.mark.stable_only

LOADER = """
import torch.utils.data as data


class AudioDataLoader(data.DataLoader):
    def __init__(self, *args, {own}**kwargs):
        super().__init__(*args, **kwargs)
        self.collate_fn = _collate
{after}

def _collate(batch):
    return batch[0]
"""

SOLVER = """
import torch


class Solver:
    def __init__(self, loader, model, optimizer):
        self.loader, self.model, self.optimizer = loader, model, optimizer

    def train(self):
        for epoch in range(100):
            total_loss = 0.0
            for x, y in self.loader:
                loss = (self.model(x.cuda()) - y.cuda()).pow(2).mean()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                total_loss += loss.item()
"""

TRAIN = """
import torch
from data import AudioDataLoader
from solver import Solver

model = torch.nn.Linear(4, 1).cuda()
optimizer = torch.optim.Adam(model.parameters())
loader = AudioDataLoader(dataset, batch_size=1, shuffle=True, num_workers=4)
Solver(loader, model, optimizer).train()
"""


# The rules the recipe's findings come from.
RULES = "TL101,TL202,TL203"


def _recipe(own: str = "", after: str = "", **extra: str) -> Dict[str, str]:
    files = {
        "src/__init__.py": "",
        "src/data/__init__.py": "",
        "src/data/data.py": LOADER.replace("{own}", own).replace("{after}", after),
        "src/solver/__init__.py": "",
        "src/solver/solver.py": SOLVER,
        "src/bin/train.py": TRAIN,
    }
    files.update(extra)
    return files


def test_modules_on_the_launchers_search_path_are_followed(tmp_path, monkeypatch):
    assert project_findings(tmp_path, monkeypatch, _recipe("LFR_m=1, LFR_n=1, "), RULES) == {
        ("solver.py", "TL101", 17),
        ("train.py", "TL202", 8),
        ("train.py", "TL203", 8),
    }


@pytest.mark.parametrize(
    "own, after",
    [
        # The subclass takes the worker count itself: what reaches DataLoader is not shown.
        ("num_workers=0, ", ""),
        # It sets an option on itself after its base's `__init__`.
        ("", "        self.pin_memory = True\n"),
    ],
)
def test_a_subclass_that_changes_the_options_is_no_plain_loader(tmp_path, monkeypatch, own, after):
    found = project_findings(tmp_path, monkeypatch, _recipe(own, after), RULES)
    assert ("solver.py", "TL101", 17) in found
    assert not {item for item in found if item[1] in ("TL202", "TL203")}


def test_a_module_next_to_the_script_wins_over_the_search_path(tmp_path, monkeypatch):
    # `src/bin/data.py` binds the name where the script runs: its class is no DataLoader.
    found = project_findings(tmp_path, monkeypatch, _recipe(**{"src/bin/data.py": "class AudioDataLoader:\n    pass\n"}), RULES)
    assert not {item for item in found if item[1] in ("TL202", "TL203")}


LIGHTNING = """
import pytorch_lightning as pl
import torch


class {base}:
    def configure_gradient_clipping(self, optimizer, gradient_clip_val=None, gradient_clip_algorithm=None):
        params = [p for group in optimizer.param_groups for p in group["params"]]
        grad_norm = torch.nn.utils.clip_grad_norm_(params, 1.0)
        self.history.append(grad_norm.item())
"""


@pytest.mark.parametrize(
    "base, reported",
    [
        # Lightning calls it at every optimisation step.
        ("Model(pl.LightningModule)", [10]),
        # The same method of a class no framework calls, called by nothing: unknown.
        ("Model", []),
    ],
)
def test_lightnings_gradient_clipping_hook_runs_every_step(base, reported):
    assert lines(LIGHTNING.replace("{base}", base), "TL101") == reported


VISDOM = """
import torch

model = torch.nn.Linear(4, 1).cuda()
optimizer = torch.optim.Adam(model.parameters())
for epoch in range(10):
    for i, (x, y) in enumerate(loader):
        loss = (model(x.cuda()) - y.cuda()).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if {test}:
            curve[i] = loss.item()
"""


@pytest.mark.parametrize(
    "test, reported",
    [
        # A visualisation switch: an opt-in for debugging runs.
        ("args.visdom", []),
        ("visdom_epoch and not cross_valid", []),
        # A test of the data: every step where it holds.
        ("i > 0", [13]),
    ],
)
def test_a_visdom_switch_guards_its_body(test, reported):
    assert lines(VISDOM.replace("{test}", test), "TL101") == reported


ITERATORS = """
def infinite_iterator(dataloader):
    while True:
        for batch in iter(dataloader):
            yield {yielded}
"""

DRAWN = """
import torch
from torch.utils.data import DataLoader
from iterators import infinite_iterator

model = torch.nn.Linear(4, 1).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(dataset, batch_size=64, shuffle=True)
batches = infinite_iterator(loader)
for step in range(100000):
    x, y = next(batches)
    loss = (model(x.cuda()) - y.cuda()).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""


@pytest.mark.parametrize(
    "yielded, reported",
    [
        # A generator of another module that yields the loader's batches: the step loop
        # draws them with `next()`, so the loader feeds training.
        ("batch", {("train.py", "TL201", 8)}),
        # One that yields something else of each batch: no batch of the loader is drawn.
        ("len(batch)", set()),
    ],
)
def test_batches_drawn_through_another_modules_generator(tmp_path, monkeypatch, yielded, reported):
    files = {"iterators.py": ITERATORS.replace("{yielded}", yielded), "train.py": DRAWN}
    assert project_findings(tmp_path, monkeypatch, files, "TL201") == reported


MOVED_AT_DRAW = """
import torch
from torch.utils.data import DataLoader

def infinite_iterator(dataloader):
    while True:
        for batch in iter(dataloader):
            yield batch

model = torch.nn.Linear(4, 1).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(dataset, batch_size=64, shuffle=True, num_workers=4)
batches = infinite_iterator(loader)
for step in range(100000):
    batch = next(batches){move}
    loss = model(batch).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""


@pytest.mark.parametrize(
    "move, reported",
    [
        # The drawn batch is copied to the device as it is drawn.
        (".to(device)", [12]),
        (".cuda()", [12]),
        # A dtype cast, and a copy to the CPU: no host-to-device copy.
        (".to(torch.float16)", []),
        (".to('cpu')", []),
    ],
)
def test_a_batch_moved_as_it_is_drawn(move, reported):
    assert lines(MOVED_AT_DRAW.replace("{move}", move), "TL202") == reported
