"""Round 25 (TL103): a loss the function calls `.backward()` on is a tensor, and so is what it
computes from it as from a tensor (`loss.isnan()`, `loss.isinf().any()`); `loss.item()` is a
number, TL101's (`ValueInference.kind_if_tensor`)."""

from __future__ import annotations

import pytest
from conftest import lint

pytestmark = pytest.mark.stable_only

CODE = """
import torch


def train_epoch(model, loader, device):
    for batch in loader:
        batch = to_gpu(batch, device)
        loss = model.loss(model(batch), batch)
        if {test}:
            print("bad loss")
        loss.backward()
        model.optimizer.step()
"""


@pytest.mark.parametrize("test, reported", [
    ("loss.isnan() or loss.isinf()", True),
    ("torch.isnan(loss)", True),
    ("loss.item() > 1e4", False),
    ("loss is None", False),
])
def test_tests_computed_from_the_loss(test, reported):
    assert bool(lint(CODE.format(test=test), ["TL103"])) == reported
