"""Round 28: an import whose module name differs from the file's only in case (`from
pkg.diffusion import Diffusion` for `pkg/Diffusion.py`) resolves, as it does on the
case-insensitive file systems of macOS and Windows: the class is built by the project, so its
training loop runs. Hard negative: a project that builds the class nowhere."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

DIFFUSION = """
import torch


class Diffusion:
    def __init__(self, model, loader):
        self.model, self.loader = model, loader
        self.optimizer = torch.optim.Adam(model.parameters())

    def train(self, epochs):
        for epoch in range(epochs):
            for x in self.loader:
                loss = self.model(x.cuda()).mean()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                print(loss.item())
"""

TRAIN = """
import torch
from pkg.{module} import Diffusion
from pkg.utils import seed

seed(0)
for x in warmup:
    model(x).sum().backward()
{build}
"""


@pytest.mark.parametrize("module, build, reported", [
    ("diffusion", "Diffusion(model, loader).train(10)", {("Diffusion.py", "TL101", 17)}),
    ("Diffusion", "Diffusion(model, loader).train(10)", {("Diffusion.py", "TL101", 17)}),
    ("diffusion", "", set()),
])
def test_imports_that_differ_in_case_resolve(tmp_path, monkeypatch, module, build, reported):
    files = {"pkg/utils.py": "def seed(n):\n    return n\n", "pkg/Diffusion.py": DIFFUSION, "train.py": TRAIN.format(module=module, build=build)}
    assert project_findings(tmp_path, monkeypatch, files, "TL101") == reported
