"""Batch 21, read after its measurement: a teaching notebook that never names a device runs
its own cells on the CPU, though a helper module it imports uses CUDA in functions written for
other notebooks (`engine.context.FileContext.serves_device`). It serves a device when it calls
a project function or class that moves work to a device itself (`FunctionFacts.
places_on_device`: a trainer class picking CUDA in `__init__`)."""

from __future__ import annotations

import pytest
from conftest import project_findings
from test_recall_round10_notebook_callers import notebook

pytestmark = pytest.mark.stable_only

HELPERS = """
import torch


def train_cpu(net, loader, loss, optimizer, epochs):
    for epoch in range(epochs):
        for X, y in loader:
            l = loss(net(X), y)
            optimizer.zero_grad()
            l.backward()
            optimizer.step()


def train_gpu(net, loader, loss, optimizer, epochs, device=torch.device("cuda")):
    net = net.to(device)
    for epoch in range(epochs):
        for X, y in loader:
            X, y = X.to(device), y.to(device)
            l = loss(net(X), y)
            optimizer.zero_grad()
            l.backward()
            optimizer.step()


class Trainer:
    def __init__(self, model, optimizer):
        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        self.model = model.to(self.device)
        self.optimizer = optimizer
"""

LOOP = (
    "for epoch in range(5):\n"
    "    for X, y in loader:\n"
    "        l = loss(net(X), y)\n"
    "        optimizer.zero_grad()\n"
    "        l.backward()\n"
    "        optimizer.step()\n"
    "        print(l.item())\n"
)


@pytest.mark.parametrize("setup, expected", [
    ("import torch\nimport helpers\nnet = torch.nn.Linear(4, 2)\nhelpers.train_cpu(net, loader, loss, optimizer, 3)", set()),
    ("import torch\nimport helpers\nnet = torch.nn.Linear(4, 2)\ntrainer = helpers.Trainer(net, optimizer)", {7}),
    ("import torch\nimport helpers\nnet = torch.nn.Linear(4, 2).cuda()", {7}),
])
def test_a_notebook_that_names_no_device(tmp_path, monkeypatch, setup: str, expected: set) -> None:
    files = {"helpers.py": HELPERS, "lesson.ipynb": notebook([setup, LOOP])}
    found = project_findings(tmp_path, monkeypatch, files, "TL101")
    assert {line for path, code, line in found if path == "lesson.ipynb"} == expected
