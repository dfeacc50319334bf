"""The fourteenth round of issue 25: a course's helper module builds the loaders and a
notebook trains with them (`train_loader, valid_loader = get_dataloaders(...)` in a cell,
then `train_model(...)` of another helper module on the GPU). The notebook is the helper
module's program: its call sites are read as notebook code, not as the notebook's JSON
(`project.read_code`), and the notebook counts among the module's importers
(`project.importers_of`), so the device it picks is the one the helper module serves.
Hard negatives: a notebook that only prints a batch's shape, a broken notebook, a notebook
that passes workers."""

from __future__ import annotations

import pytest
from conftest import project_findings
from test_recall_round10_notebook_callers import notebook

pytestmark = pytest.mark.stable_only

LOADERS = """
import torch
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


def get_dataloaders(batch_size, num_workers=0):
    train = datasets.MNIST("data", train=True, transform=transforms.ToTensor(), download=True)
    valid = datasets.MNIST("data", train=False, transform=transforms.ToTensor())
    train_loader = DataLoader(train, batch_size=batch_size, num_workers=num_workers, shuffle=True)
    valid_loader = DataLoader(valid, batch_size=batch_size, num_workers=num_workers)
    return train_loader, valid_loader
"""

TRAINER = """
import torch


def evaluate(model, loader, device):
    correct = 0
    with torch.no_grad():
        for features, targets in loader:
            features, targets = features.to(device), targets.to(device)
            correct += (model(features).argmax(1) == targets).sum()
    return correct


def train_model(model, num_epochs, train_loader, valid_loader, optimizer, device):
    for epoch in range(num_epochs):
        model.train()
        for features, targets in train_loader:
            features, targets = features.to(device), targets.to(device)
            loss = torch.nn.functional.cross_entropy(model(features), targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        model.eval()
        evaluate(model, valid_loader, device)
"""

SETUP = (
    "%matplotlib inline\nimport torch\nfrom helper_dataset import get_dataloaders\nfrom helper_train import train_model\n"
    "DEVICE = torch.device('cuda:0' if torch.cuda.is_available() else 'cpu')\n"
)
TRAINING = (
    "model = torch.nn.Linear(784, 10).to(DEVICE)\noptimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "train_model(model=model, num_epochs=10, train_loader=train_loader, valid_loader=valid_loader, optimizer=optimizer, device=DEVICE)\n"
)


def loader_findings(tmp_path, monkeypatch, notebook_text: str, rules: str = "TL201,TL202,TL203") -> set:
    files = {"helper_dataset.py": LOADERS, "helper_train.py": TRAINER, "train.ipynb": notebook_text}
    return {(code, line) for path, code, line in project_findings(tmp_path, monkeypatch, files, rules) if path == "helper_dataset.py"}



@pytest.mark.parametrize("call, expected", [
    ("train_loader, valid_loader = get_dataloaders(batch_size=256)",
     {("TL201", 10), ("TL202", 10), ("TL201", 11), ("TL202", 11)}),
    ("train_loader, valid_loader = get_dataloaders(batch_size=256, num_workers=2)",
     {("TL202", 10), ("TL203", 10), ("TL202", 11), ("TL203", 11)}),
])
def test_a_notebook_trains_with_a_helper_modules_loaders(tmp_path, monkeypatch, call: str, expected: set) -> None:
    assert loader_findings(tmp_path, monkeypatch, notebook([SETUP, call, TRAINING])) == expected


def test_a_notebook_that_only_looks_at_a_batch(tmp_path, monkeypatch) -> None:
    cells = [SETUP, "train_loader, valid_loader = get_dataloaders(batch_size=256)", "for x, y in train_loader:\n    print(x.shape)\n    break\n"]
    assert loader_findings(tmp_path, monkeypatch, notebook(cells)) == set()


def test_a_broken_notebook_is_no_program(tmp_path, monkeypatch) -> None:
    assert loader_findings(tmp_path, monkeypatch, '{"cells": [') == set()


SETTINGS_HELPER = """
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


def get_dataloaders(batch_size, num_workers=0):
    train = datasets.MNIST("data", train=True, transform=transforms.ToTensor(), download=True)
    test = datasets.MNIST("data", train=False, transform=transforms.ToTensor())
    train_loader = DataLoader(train, batch_size=batch_size, num_workers=num_workers, shuffle=True)
    test_loader = DataLoader(test, batch_size=batch_size, num_workers=num_workers)
    return train_loader, test_loader


def compute_accuracy(model, loader, device):
    correct = 0
    for features, targets in loader:
        correct += (model(features.to(device)).argmax(1) == targets.to(device)).sum()
    return correct
"""

SETTINGS_SCRIPT = """
import torch
from helper import get_dataloaders, compute_accuracy
from settings import SETTINGS

device = torch.device("cuda")
train_loader, test_loader = get_dataloaders(batch_size=SETTINGS["batch size"], num_workers=SETTINGS["num workers"])
model = torch.nn.Linear(784, 10).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(SETTINGS["epochs"]):
    for features, targets in train_loader:
        loss = torch.nn.functional.cross_entropy(model(features.to(device)), targets.to(device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
print(compute_accuracy(model, test_loader, device))
"""


@pytest.mark.parametrize("settings, expected", [
    # a settings module's dict literal is read: no workers, so TL201 (not TL203) on the loader trained with
    ('SETTINGS = {"batch size": 64, "num workers": 0, "epochs": 10}\n', {("TL201", 9)}),
    ('SETTINGS = {"batch size": 64, "num workers": 4, "epochs": 10}\n', {("TL203", 9)}),
    # a setting changed elsewhere, or bound twice, is unknown: neither rule speaks for the default
    ('SETTINGS = {"batch size": 64, "num workers": 0, "epochs": 10}\nSETTINGS["num workers"] = 8\n', {("TL203", 9)}),
    ('SETTINGS = {"batch size": 64, "num workers": 0, "epochs": 10}\nif FAST:\n    SETTINGS = {"num workers": 4}\n', {("TL203", 9)}),
])
def test_a_setting_of_a_settings_module_passed_as_the_workers(tmp_path, monkeypatch, settings: str, expected: set) -> None:
    files = {"helper.py": SETTINGS_HELPER, "settings.py": settings, "train.py": SETTINGS_SCRIPT}
    found = project_findings(tmp_path, monkeypatch, files, "TL201,TL203")
    assert {(code, line) for path, code, line in found if path == "helper.py"} == expected


DATAMODULE = """
import pytorch_lightning as pl
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


class MNISTData(pl.LightningDataModule):
    def __init__(self, batch_size=64, num_workers=0):
        super().__init__()
        self.batch_size = batch_size
        self.num_workers = num_workers

    def train_dataloader(self):
        train = datasets.MNIST("data", train=True, transform=transforms.ToTensor())
        return DataLoader(train, batch_size=self.batch_size, num_workers=self.num_workers)
"""


@pytest.mark.parametrize("script, expected", [
    ("import pytorch_lightning as pl\nfrom data import MNISTData\npl.Trainer(accelerator='gpu').fit(model, MNISTData())\n", {15}),
    ("import pytorch_lightning as pl\nfrom data import MNISTData\npl.Trainer(accelerator='gpu').fit(model, MNISTData(num_workers=4))\n", set()),
    # nothing in the project builds it: a library's default, its users pick the workers
    ("import pytorch_lightning as pl\npl.Trainer(accelerator='gpu').fit(model, data)\n", set()),
])
def test_a_default_of_no_workers_counts_where_the_project_builds_the_class(tmp_path, monkeypatch, script: str, expected: set) -> None:
    found = project_findings(tmp_path, monkeypatch, {"data.py": DATAMODULE, "train.py": script}, "TL201")
    assert {line for path, code, line in found if path == "data.py"} == expected


def test_a_pass_handed_on_to_another_modules_function(tmp_path, monkeypatch) -> None:
    """`train_model` hands the validation loader every epoch to `evaluate`, imported from a
    third module, which moves its batches: the loader is moved every epoch."""
    evaluate, train = TRAINER.split("\n\ndef train_model")
    files = {
        "helper_dataset.py": LOADERS, "helper_eval.py": evaluate,
        "helper_train.py": "import torch\nfrom helper_eval import evaluate\n\ndef train_model" + train,
        "train.ipynb": notebook([SETUP, "train_loader, valid_loader = get_dataloaders(batch_size=256)", TRAINING]),
    }
    found = project_findings(tmp_path, monkeypatch, files, "TL202")
    assert {line for path, code, line in found if path == "helper_dataset.py"} == {10, 11}


UNUSED_HELPER = """
import torch


def train_classifier(model, loader, optimizer, device, num_epochs):
    for epoch in range(num_epochs):
        for features, targets in loader:
            loss = torch.nn.functional.cross_entropy(model(features.to(device)), targets.to(device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            print(loss.item())


def train_autoencoder(model, loader, optimizer, device, num_epochs):
    for epoch in range(num_epochs):
        for features, _ in loader:
            loss = torch.nn.functional.mse_loss(model(features.to(device)), features.to(device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            print(loss.item())
"""


def test_a_helper_function_the_notebooks_do_not_call_is_still_live(tmp_path, monkeypatch) -> None:
    """A course's helper module imported by notebooks only is a library for interactive use:
    its functions that no shipped cell calls are not dead code."""
    cells = ["import torch\nfrom helper_train import train_autoencoder\nfrom helper_plot import plot\ndevice = 'cuda'\noptimizer = torch.optim.Adam(model.parameters())", "train_autoencoder(model, loader, optimizer, device, 10)\nplot(1)", "model(x).sum().backward()"]
    files = {"helper_train.py": UNUSED_HELPER, "helper_plot.py": "def plot(x):\n    return x\n", "train.ipynb": notebook(cells)}
    found = project_findings(tmp_path, monkeypatch, files, "TL101")
    assert {line for path, code, line in found if path == "helper_train.py"} == {12, 22}
