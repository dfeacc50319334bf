"""Round 18 (TL301, batch 24's crystal graph network): `total = self.fc_full(x)` on a 3-D
input, then `self.bn1(total.view(-1, 2 * width)).view(n, m, 2 * width)`. Viewed as rows of
its output features, the Linear's output keeps its features in the last axis, which the
BatchNorm1d of as many features normalises: the bias is cancelled. What the norm's output
is made into next does not matter."""

from __future__ import annotations

import pytest
from conftest import lines

MODEL = """
import torch
import torch.nn as nn


class ConvLayer(nn.Module):
    def __init__(self, width, bonds):
        super().__init__()
        self.width = width
        self.fc_full = {layer}
        self.bn1 = {norm}

    def forward(self, atoms, bonds):
        n, m = bonds.shape[:2]
        total = self.fc_full(torch.cat([atoms, bonds], dim=2))
        {use}
        return total


model = ConvLayer(8, 4).cuda()
optimizer = torch.optim.Adam(model.parameters())
for atoms, bonds in loader:
    loss = model(atoms.cuda(), bonds.cuda()).sum()
    loss.backward()
    optimizer.step()
"""

LINEAR = "nn.Linear(2 * self.width + bonds, 2 * self.width)"
NORM = "nn.BatchNorm1d(2 * self.width)"


def check(use: str, layer: str = LINEAR, norm: str = NORM) -> list:
    return lines(MODEL.format(layer=layer, norm=norm, use=use), "TL301")


@pytest.mark.parametrize(
    "use",
    [
        "total = self.bn1(total.view(-1, self.width * 2)).view(n, m, self.width * 2)",
        "total = self.bn1(total.reshape(-1, 2 * self.width))",
    ],
)
def test_a_linear_viewed_as_rows_of_its_features_into_batchnorm1d_is_reported(use):
    assert check(use) == [10]


@pytest.mark.parametrize(
    "use, layer, norm",
    [
        # Rows of another width: the features are regrouped.
        ("total = self.bn1(total.view(-1, self.width))", LINEAR, "nn.BatchNorm1d(self.width)"),
        # Not rows: the first axis is kept and the rest flattened.
        ("total = self.bn1(total.view(n, -1))", LINEAR, NORM),
        # A size the layer does not write as its output features.
        ("total = self.bn1(total.view(-1, self.channels))", LINEAR, "nn.BatchNorm1d(self.channels)"),
        # A 2-D norm over the rows of a Linear.
        ("total = self.bn1(total.view(-1, 2 * self.width, 1, 1))", LINEAR, "nn.BatchNorm2d(2 * self.width)"),
        # Something between the view and the norm.
        ("total = self.bn1(torch.relu(total).view(-1, 2 * self.width))", LINEAR, NORM),
    ],
)
def test_other_views_and_norms_are_not_reported(use, layer, norm):
    assert check(use, layer, norm) == []


NESTED = """
import torch.nn as nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 32)
        self.bn = nn.BatchNorm1d(32)

    def forward(self, x):
        return self.bn(self.fc(x).reshape(-1, 32))


model = Head().cuda()
"""


def test_a_view_inside_the_norm_call_counts_too():
    assert lines(NESTED, "TL301") == [8]
