"""Round 25: `nn`, `F` and `optim` reached only through a star import of a project module
stand for torch's modules (`from model import *`, where model.py does `import torch.nn as
nn`), so `class KeywordSpotter(nn.Module)` is a module class and `self.to(device)` in its
training loop moves a module every step. A name the file binds itself keeps its own meaning."""

from __future__ import annotations

import pytest
from conftest import lint

pytestmark = pytest.mark.stable_only

CODE = """
import torch
from model import *
{shadow}

class Spotter(nn.Module):
    def fit(self, loader, optimizer, device):
        for x, y in loader:
            self.to(device)
            loss = F.cross_entropy(self(x.to(device)), y.to(device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
"""


@pytest.mark.parametrize("shadow, lines", [("", [9]), ("import mylib.nn as nn", [])])
def test_conventional_aliases_through_a_star_import(shadow, lines):
    assert [finding.line for finding in lint(CODE.format(shadow=shadow), ["TL108"])] == lines
