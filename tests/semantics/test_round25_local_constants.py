"""Round 25: a name the function binds exactly once to a literal (`intra_list = 1` just above
`if intra_list:`) decides the test as the literal would (`passed_values._constants`): the
`else` never runs. A name bound again, a parameter, or one declared `global` decides nothing."""

from __future__ import annotations

import pytest
from conftest import lint

pytestmark = pytest.mark.stable_only

CODE = """
import torch
from torch import nn


class Reranker(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 8, batch_first=True, bidirectional=True)

    def forward(self, his, flag=1):
        {binding}
        if intra_list:
            out, _ = self.lstm(his)
        else:
            out = torch.zeros(his.shape[0], his.shape[1], 16).to(his.device)
        return out


model = Reranker().cuda()
optimizer = torch.optim.Adam(model.parameters())
for his in loader:
    model(his.cuda()).sum().backward()
    optimizer.step()
"""


@pytest.mark.parametrize("binding, reported", [
    ("intra_list = 1", False),
    ("intra_list = True", False),
    ("intra_list = 0", True),  # the `else` runs every step
    ("intra_list = 1\n        intra_list = flag", True),  # bound again: unknown
    ("intra_list = flag", True),
])
def test_a_local_constant_decides_the_branch(binding, reported):
    assert bool(lint(CODE.format(binding=binding), ["TL102"])) == reported
