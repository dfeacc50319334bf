"""Round 23 (TL301, batch 31's keyword-spotting and speech models): `x = self.conv1(x)` followed
by `x = F.relu(self.bn1(x))` feeds the convolution's output straight into the norm, as `x =
self.bn1(x)` on a line of its own does: what the norm's output is made into afterwards does not
matter (`semantics.module_lists.next_consumer`). The norm must take the output alone and be its
only reader in the statement."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

RULE = "TL301"

MODULE = """
import torch
import torch.nn as nn
import torch.nn.functional as F

class M5(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv1d(1, 32, kernel_size=80, stride=16)
        self.bn1 = nn.BatchNorm1d(32)
        self.relu = nn.ReLU()

    def forward(self, x):
        x = self.conv1(x)
        {line}
        return x

model = M5().cuda()
optimizer = torch.optim.Adam(model.parameters())
for epoch in range(10):
    for x, y in loader:
        loss = F.cross_entropy(model(x.cuda()).mean(-1), y.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""


@pytest.mark.parametrize("line, reported", [
    ("x = F.relu(self.bn1(x))", [9]),
    ("x = self.relu(self.bn1(x))", [9]),
    ("x = F.max_pool1d(F.leaky_relu(self.bn1(x), 0.2), 4)", [9]),
    ("x = F.relu(self.bn1(x)).view(x.size(0), -1)", []),  # `x` is read again in the statement
    ("x = torch.add(self.bn1(x), x)", []),
    ("x = self.bn1(F.relu(x))", []),  # the activation comes first: the bias survives it
    ("x = self.bn1(torch.cat([x, x], 1))", []),
])
def test_a_norm_inside_the_next_statement(line, reported):
    assert lines(MODULE.format(line=line), RULE) == reported
