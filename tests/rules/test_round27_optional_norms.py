"""Round 27: a convolution whose output a BatchNorm takes only under a test (`self.bn =
nn.BatchNorm2d(c) if bn else None`, then `if self.bn: x = self.bn(x)`; `if self.activation ==
"relu": x = F.relu(self.bn(x))`) has its bias cancelled in the blocks that apply the norm: TL301
reports it without a fix, since the other blocks need the bias. Hard negatives: a branch that
applies something else, and a norm applied to another value."""

from __future__ import annotations

import pytest
from conftest import lint

pytestmark = pytest.mark.stable_only

BLOCK = """
import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, cin, cout, bn=True, activation="relu"):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1)
        self.bn = {norm}
        self.drop = nn.Dropout(0.1)
        self.activation = activation

    def forward(self, x):
        x = self.conv(x)
        {branch}
        return x
"""


@pytest.mark.parametrize("norm, branch, reported", [
    ("nn.BatchNorm2d(cout) if bn else None", "if self.bn:\n            x = self.bn(x)", True),
    ("nn.BatchNorm2d(cout)", 'if self.activation == "relu":\n            x = F.relu(self.bn(x))\n        else:\n            x = torch.tanh(x)', True),
    ("nn.BatchNorm2d(cout)", "if self.training:\n            x = self.drop(x)", False),
    ("nn.BatchNorm2d(cout)", "if self.bn:\n            y = self.bn(torch.zeros_like(x))", False),
])
def test_a_norm_applied_under_a_test_is_reported_without_a_fix(norm, branch, reported):
    findings = lint(BLOCK.format(norm=norm, branch=branch), ["TL301"])
    assert [finding.line for finding in findings] == ([10] if reported else [])
    assert all(finding.fix is None for finding in findings)
