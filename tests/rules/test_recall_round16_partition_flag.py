"""Round 16 (TL402): one function that trains or evaluates by a parameter compared with a
constant (`if partition == 'train': ... else: model.eval()`, the backward under `if partition
== 'train':`), called with `partition='valid'` every epoch: its `.eval()` and its gradient
computations never run in the same call, as with a boolean flag (round 13)."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

TRAIN = """
import torch
import torch.nn.functional as F


def train(epoch, loader, partition='train'):
    for x, y in loader:
        if partition == 'train':
            model.train()
            optimizer.zero_grad()
        else:
            model.eval()
        loss = F.l1_loss(model(x.cuda()), y.cuda())
        if {test}:
            loss.backward()
            optimizer.step()


model = torch.nn.Linear(4, 2).cuda()
optimizer = torch.optim.Adam(model.parameters())
for epoch in range(100):
    train(epoch, train_loader, partition='train')
    train(epoch, valid_loader, partition='valid')
"""


@pytest.mark.parametrize(
    "test, reported",
    [
        # The same comparison: the backward never runs after `.eval()`.
        ("partition == 'train'", {("train.py", "TL402", 12)}),
        # Another comparison: `partition != 'test'` holds for 'valid' too, so a call that
        # evaluates may differentiate.
        ("partition != 'test'", set()),
    ],
)
def test_evaluation_through_a_compared_parameter(tmp_path, monkeypatch, test, reported):
    assert project_findings(tmp_path, monkeypatch, {"train.py": TRAIN.replace("{test}", test)}, "TL402") == reported


def test_a_rebound_parameter_may_run_both(tmp_path, monkeypatch):
    code = TRAIN.replace("    for x, y in loader:\n", "    partition = partition.lower()\n    for x, y in loader:\n").replace("{test}", "partition == 'train'")
    assert project_findings(tmp_path, monkeypatch, {"train.py": code}, "TL402") == set()
