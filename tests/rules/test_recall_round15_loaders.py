"""Round 15 (loader rules TL201-TL203): loaders that reach other modules.

A builder whose package re-exports it (`from .utils import *` in `d2lzh_pytorch/__init__.py`,
called as `d2l.load_data_fashion_mnist(...)` by a chapter's notebook) is found by
`project.callers_of`, so the loaders it returns are followed to the script that hands them to
an epoch loop (`d2l.train_ch5(net, train_iter, test_iter, ...)`), even when that loop is a
function of the builder's own module."""

from __future__ import annotations

from typing import Dict

import pytest
from conftest import project_findings

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
