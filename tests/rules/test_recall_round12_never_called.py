"""Round 12: a module-level function that nothing in a training project names never runs, for
every rule, as a class that nothing builds (`instantiation.unbuilt_definitions`): an evaluation
pass whose only call is commented out gets no findings, nor what only it calls. A function is
live when anything may call it: a name outside its body (a call, a value handed on, a registry,
an export), a decorator, a string, a packaging entry point, a dynamic lookup."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

LIBRARY = """
import torch


def evaluate(model, loader):
    model.eval()
    return [model(x.cuda(non_blocking=True)) for x in loader]


def evaluate_partial(model, loader):
    model.eval()
    return [model(x.cuda(non_blocking=True)) for x in loader]


def complete_graphs(model, loader):
    for epoch in range(10):
        evaluate_partial(model, loader)
"""

TRAIN = """
import torch
{imports}

if __name__ == "__main__":
    model = build().cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(10):
        for x in loader:
            loss = model(x.cuda(non_blocking=True)).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
        evaluate(model, val_loader)
        # complete_graphs(model, val_loader)
    {extra}
"""

USED, PARTIAL = ("library.py", "TL402", 6), ("library.py", "TL402", 11)


@pytest.mark.parametrize(
    ("imports", "extra", "expected"),
    [
        ("from library import evaluate", "", {USED}),
        ("from library import *", "", {USED}),
        # imported and never called (round 13: an import alone runs nothing), or called
        ("from library import evaluate, complete_graphs", "", {USED}),
        ("from library import evaluate, complete_graphs", "complete_graphs(model, val_loader)", {USED, PARTIAL}),
        ("import library\nfrom library import evaluate", "library.complete_graphs(model, val_loader)", {USED, PARTIAL}),
        ("from library import evaluate", "hooks = {'complete': 'complete_graphs'}", {USED, PARTIAL}),
        ("import library\nfrom library import evaluate", "getattr(library, args.task)(model)", {USED, PARTIAL}),
        # an attribute of an object looked up by name reaches no module-level function
        ("import library\nfrom library import evaluate", "getattr(self, args.task)(model)", {USED}),
    ],
)
def test_a_function_nothing_names_never_runs(tmp_path, monkeypatch, imports, extra, expected) -> None:
    files = {"library.py": LIBRARY, "train.py": TRAIN.format(imports=imports, extra=extra)}
    assert project_findings(tmp_path, monkeypatch, files, "TL402") == expected


@pytest.mark.parametrize(
    "change",
    [
        ("def complete_graphs", "@register\ndef complete_graphs"),
        ("def complete_graphs", "TASKS = [lambda m, l: complete_graphs(m, l)]\n\n\ndef complete_graphs"),
    ],
)
def test_a_registered_or_referenced_function_is_live(tmp_path, monkeypatch, change) -> None:
    files = {"library.py": LIBRARY.replace(*change), "train.py": TRAIN.format(imports="from library import evaluate", extra="")}
    assert project_findings(tmp_path, monkeypatch, files, "TL402") == {USED, PARTIAL}


def test_a_packaging_entry_point_is_live(tmp_path, monkeypatch) -> None:
    (tmp_path / "pyproject.toml").write_text('[project.scripts]\ncomplete = "library:complete_graphs"\n')
    files = {"library.py": LIBRARY, "train.py": TRAIN.format(imports="from library import evaluate", extra="")}
    assert project_findings(tmp_path, monkeypatch, files, "TL402") == {USED, PARTIAL}



def test_a_function_a_notebook_calls_is_live(tmp_path, monkeypatch) -> None:
    import json

    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": ["from library import complete_graphs\n", "complete_graphs(model, val_loader)\n"]}
    notebook = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "explore.ipynb").write_text(json.dumps(notebook))
    files = {"library.py": LIBRARY, "train.py": TRAIN.format(imports="from library import evaluate", extra="")}
    assert project_findings(tmp_path, monkeypatch, files, "TL402") == {USED, PARTIAL}


MODEL = """
import torch
import torch.nn as nn


class Forecaster(nn.Module):
    def __init__(self, size, parallel=False):
        super().__init__()
        self.parallel = parallel
        self.encoder = nn.Linear(size, size)
        if self.parallel:
            self.encoder = nn.DataParallel(self.encoder)

    def forward(self, x):
        return self.encoder(x)
"""

MAIN = """
import torch
from model import Forecaster

if __name__ == "__main__":
    model = Forecaster(8{argument}).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x in loader:
        loss = model(x.cuda(non_blocking=True)).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
"""


@pytest.mark.parametrize(
    ("argument", "expected"),
    [
        ("", set()),
        (", parallel=False", set()),
        (", parallel=True", {("model.py", "TL501", 12)}),
        (", parallel=args.parallel", {("model.py", "TL501", 12)}),
        (", True", {("model.py", "TL501", 12)}),
    ],
)
def test_a_branch_no_call_takes_reports_nothing(tmp_path, monkeypatch, argument, expected) -> None:
    files = {"model.py": MODEL, "main.py": MAIN.format(argument=argument)}
    assert project_findings(tmp_path, monkeypatch, files, "TL501") == expected


LOADERS = """
import torch
from torch.utils.data import DataLoader


def train_loader(dataset):
    return DataLoader(dataset, batch_size=64, shuffle=True)


def legacy_loader(dataset):
    return DataLoader(dataset, batch_size=64, shuffle=True)
"""


def test_a_loader_no_call_builds_reports_nothing(tmp_path, monkeypatch) -> None:
    train = MAIN.replace("from model import Forecaster", "from model import Forecaster\nfrom loaders import train_loader")
    train = train.replace("    for x in loader:", "    for x in train_loader(dataset):").format(argument="")
    found = project_findings(tmp_path, monkeypatch, {"model.py": MODEL, "loaders.py": LOADERS, "main.py": train}, "TL201")
    assert found == {("loaders.py", "TL201", 7)}


@pytest.mark.parametrize(("argument", "expected"), [("", set()), (", parallel=True", {("model.py", "TL501", 12)})])
def test_super_naming_the_class_hands_nothing_on(tmp_path, monkeypatch, argument, expected) -> None:
    """`super(Forecaster, self).__init__()` and `isinstance(m, Forecaster)` read the class
    without handing it on: the constructor's calls are still all known."""
    model = MODEL.replace("super().__init__()", "super(Forecaster, self).__init__()") + "\n\ndef unwrap(m):\n    return m.module if isinstance(m, (nn.DataParallel, Forecaster)) else m\n"
    files = {"model.py": model, "main.py": MAIN.format(argument=argument)}
    assert project_findings(tmp_path, monkeypatch, files, "TL501") == expected


FACTORY = """
import torch


def make_model(conf, gpu_ids=[0]):
    model = build(conf).cuda()
    if len(gpu_ids) > 1 and torch.cuda.device_count() > 1:
        model = torch.nn.DataParallel(model, device_ids=gpu_ids)
    return model
"""

TRAINING = MAIN.replace("from model import Forecaster", "from factory import make_model").replace("Forecaster(8{argument}).cuda()", "make_model(conf{argument})")


@pytest.mark.parametrize(
    ("argument", "expected"),
    [
        ("", set()),
        (", [3]", set()),
        (", gpu_ids=[0, 1]", {("factory.py", "TL501", 8)}),
        (", args.gpu_ids", {("factory.py", "TL501", 8)}),
        (", [*args.gpu_ids]", {("factory.py", "TL501", 8)}),
    ],
)
def test_a_device_list_every_call_leaves_at_one_device(tmp_path, monkeypatch, argument, expected) -> None:
    """`if len(gpu_ids) > 1 and ...:` is never taken when every call passes or leaves a list
    display of one device."""
    files = {"factory.py": FACTORY, "train.py": TRAINING.format(argument=argument)}
    assert project_findings(tmp_path, monkeypatch, files, "TL501") == expected


def test_another_modules_class_of_the_same_name_is_no_use(tmp_path, monkeypatch) -> None:
    """`variant.py` defines and builds its own `complete_graphs`: that names nothing of
    `library.py`, which it does not import."""
    variant = "import torch\n\n\ndef complete_graphs(model, loader):\n    return model\n\n\nif __name__ == '__main__':\n    complete_graphs(None, None)\n"
    files = {"library.py": LIBRARY, "variant.py": variant, "train.py": TRAIN.format(imports="from library import evaluate", extra="")}
    assert project_findings(tmp_path, monkeypatch, files, "TL402") == {USED}
