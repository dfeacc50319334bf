"""Round 28: in a program (a project that nothing packages for installation and that ships no
notebooks) a model class that none of its modules builds is never built, even where most
modules of its directory are variants nothing imports: no user outside imports them one by
one. Hard negatives: the same layout packaged for installation, or shipped with notebooks."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

VARIANT = """
from torch import nn


class {name}(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
        self.bn = nn.BatchNorm2d(8)

    def forward(self, x):
        return self.bn(self.conv(x))
"""

TRAIN = """
import torch
from models.used import Used

model = Used().cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(10):
    for x in loader:
        model(x.cuda()).mean().backward()
        optimizer.step()
"""


@pytest.mark.parametrize("extra, reported", [
    ({}, {("used.py", "TL301", 8)}),
    ({"setup.py": "from setuptools import setup\nsetup(name='p')\n"}, {("used.py", "TL301", 8), ("unused_a.py", "TL301", 8)}),
    ({"demo.ipynb": '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'}, {("used.py", "TL301", 8), ("unused_a.py", "TL301", 8)}),
])
def test_unbuilt_variants_of_a_program(tmp_path, monkeypatch, extra, reported):
    files = {
        "models/__init__.py": "",
        "models/used.py": VARIANT.format(name="Used"),
        "models/unused_a.py": VARIANT.format(name="UnusedA"),
        "models/unused_b.py": VARIANT.format(name="UnusedB"),
        "models/unused_c.py": VARIANT.format(name="UnusedC"),
        "train.py": TRAIN,
        **extra,
    }
    found = project_findings(tmp_path, monkeypatch, files, "TL301", marker=".git")
    assert {item for item in found if item[0] in ("used.py", "unused_a.py")} == reported
