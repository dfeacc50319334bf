"""Round 25: `from src import train` where `src` is a directory without `__init__.py` (a
namespace package) imports the module `src/train.py`, and `train.initiate(...)` is that
module's function (`project._imports_project_module`): a loader handed to it is moved there."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

TRAIN = """
import torch


def initiate(model, optimizer, train_loader):
    for epoch in range(10):
        for x, y in train_loader:
            loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
"""

MAIN = """
import torch
from torch.utils.data import DataLoader
from src import train

loader = DataLoader(dataset, batch_size=32, shuffle=True, num_workers=4, persistent_workers=True)
model = build().cuda()
train.initiate(model, torch.optim.Adam(model.parameters()), loader)
"""


@pytest.mark.parametrize("package_init, reported", [(False, True), (True, True)])
def test_a_module_of_a_namespace_package(tmp_path, monkeypatch, package_init, reported):
    files = {"main.py": MAIN, "src/train.py": TRAIN, **({"src/__init__.py": ""} if package_init else {})}
    found = project_findings(tmp_path, monkeypatch, files, "TL202", marker=".git")
    assert bool({line for path, _, line in found if path == "main.py"}) == reported
