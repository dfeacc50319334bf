"""Round 27: code a project keeps in `temp/`, `archive/`, `scratch/` and similar directories
(superseded copies, experiments, backups) is treated as test code is: performance rules skip
it, unless a module outside such directories imports it. The directories a checkout lives in
(`/tmp/...`) say nothing: the path within the project decides."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

TRAIN = """
import torch

device = torch.device("cuda")
model = torch.nn.Linear(4, 2).to(device)
optimizer = torch.optim.Adam(model.parameters())
for epoch in range(10):
    for x, y in loader:
        loss = (model(x.to(device)) - y.to(device)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(loss.item())
"""

HELPER = """
import torch


def accuracy(out, y):
    return (out.argmax(1) == y).sum().item()
"""

MAIN = """
import torch
from {module} import accuracy

device = torch.device("cuda")
model = torch.nn.Linear(4, 2).to(device)
for x, y in loader:
    out = model(x.to(device))
    out.sum().backward()
    optimizer.step()
    total += accuracy(out, y.to(device))
"""


@pytest.mark.parametrize("path", ["temp/train.py", "archive/v1/train.py", "Scratch/train.py"])
def test_a_training_script_kept_in_a_superseded_directory_is_skipped(tmp_path, monkeypatch, path):
    assert project_findings(tmp_path, monkeypatch, {path: TRAIN}, "TL101") == set()


@pytest.mark.parametrize("path", ["train.py", "src/train.py", "templates/train.py"])
def test_other_directories_are_checked(tmp_path, monkeypatch, path):
    assert project_findings(tmp_path, monkeypatch, {path: TRAIN}, "TL101") == {("train.py", "TL101", 13)}


def test_a_module_kept_there_that_live_code_imports_is_checked(tmp_path, monkeypatch):
    files = {"tmp/__init__.py": "", "tmp/metrics.py": HELPER, "main.py": MAIN.format(module="tmp.metrics")}
    assert ("metrics.py", "TL101", 6) in project_findings(tmp_path, monkeypatch, files, "TL101")
