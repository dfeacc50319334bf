"""Round 18 (TL301, after batch 24's measurement): the graph-learning MLP walks its layer lists
with `enumerate` or `zip` rather than `range`, and runs a layer's output into the norm in two
statements (`x = lin(x)` then `x = self.bns[i](x)`). The first pass of such a loop runs
element 0 of one list straight into element 0 of the other, as `self.bns[i](self.lins[i](x))`
does in a loop over `range(n)`."""

from __future__ import annotations

import pytest
from conftest import lines

MODEL = """
import torch
import torch.nn.functional as F


class MLP(torch.nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.lins = torch.nn.ModuleList()
        self.lins.append(torch.nn.Linear(sizes[0], sizes[1]))
        self.bns = torch.nn.ModuleList()
        self.bns.append(torch.nn.BatchNorm1d(sizes[1]))
        for size in sizes[2:]:
            self.lins.append(torch.nn.Linear(sizes[1], size))
            self.bns.append(torch.nn.BatchNorm1d(size))

    def forward(self, x):
{loop}
        return x


model = MLP([16, 64, 64]).cuda()
optimizer = torch.optim.Adam(model.parameters())
for step in range(1000):
    loss = model(torch.randn(32, 16, device="cuda")).sum()
    loss.backward()
    optimizer.step()
"""


def check(loop: str) -> list:
    return lines(MODEL.replace("{loop}", loop), "TL301")


@pytest.mark.parametrize(
    "loop",
    [
        # The OGB examples' MLP: the element of `enumerate`, then the norm by index.
        "        for i, lin in enumerate(self.lins[:-1]):\n            x = lin(x)\n            x = self.bns[i](x)\n            x = F.relu(x)",
        # Both lists walked by `zip`, in one call or in two statements.
        "        for lin, bn in zip(self.lins, self.bns):\n            x = F.relu(bn(lin(x)))",
        "        for lin, bn in zip(self.lins[0:], self.bns):\n            h = lin(x)\n            x = bn(h)",
        # By index over `range(n)`, in two statements.
        "        for i in range(len(self.bns)):\n            x = self.lins[i](x)\n            x = self.bns[i](x)",
    ],
)
def test_a_list_layer_run_straight_into_a_list_norm_is_reported(loop):
    assert check(loop) == [10]


@pytest.mark.parametrize(
    "loop",
    [
        # An activation between the layer and the norm.
        "        for i, lin in enumerate(self.lins[:-1]):\n            x = lin(x)\n            x = F.relu(x)\n            x = self.bns[i](x)",
        # A statement under a condition between them may change the value.
        "        for i, lin in enumerate(self.lins[:-1]):\n            x = lin(x)\n            if self.training:\n                x = F.relu(x)\n            x = self.bns[i](x)",
        # The loop starts at position 1 of the layers: element 0 feeds no norm.
        "        for i, lin in enumerate(self.lins[1:]):\n            x = self.bns[i](lin(x))",
        "        for i, lin in enumerate(self.lins, 1):\n            x = self.bns[i - 1](lin(x))",
        # The norms of another position.
        "        for i, lin in enumerate(self.lins[:-1]):\n            x = self.bns[i + 1](lin(x))",
        # The element name is rebound in the loop.
        "        for lin, bn in zip(self.lins, self.bns):\n            lin = F.relu\n            x = bn(lin(x))",
        # The layer's output is read again after the norm (a residual): kept as it is.
        "        for i, lin in enumerate(self.lins[:-1]):\n            h = lin(x)\n            x = self.bns[i](h)\n            x = x + h",
    ],
)
def test_a_list_layer_whose_output_reaches_the_norm_otherwise_is_not_reported(loop):
    assert check(loop) == []
