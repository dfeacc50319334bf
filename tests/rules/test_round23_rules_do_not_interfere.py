"""Round 23: a rule that reads ahead of the traversal (TL102's walk of a scope's later moves)
must not fix the answers other rules get for nodes it has not reached: names resolve with the
bindings in force where the traversal stands, so `ctx.qualified_name`, which remembers each
node's answer for every rule, is asked only about the node being visited. Here the walk runs
at `offset.to(device)`, before the traversal reaches `from torch.utils.data import DataLoader`;
TL202 and TL203 must still see the loader built after that import."""

from __future__ import annotations

import pytest
from conftest import lint

pytestmark = pytest.mark.stable_only

CODE = """
import torch

device = "cuda"
offset = torch.zeros(3)
offset = offset.to(device)

from torch.utils.data import DataLoader

loader = DataLoader(dataset, batch_size=32, num_workers=4)
model = torch.nn.Linear(3, 1).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(num_epochs):
    for x, y in loader:
        loss = (model(x.to(device) + offset) - y.to(device)).pow(2).mean()
        loss.backward()
        optimizer.step()
"""


def _found(select=None):
    return sorted((f.code, f.line) for f in lint(CODE, select) if f.code in ("TL202", "TL203"))


def test_loader_rules_see_the_same_loaders_beside_every_other_rule():
    assert _found() == _found(["TL202", "TL203"]) == [("TL202", 10), ("TL203", 10)]
