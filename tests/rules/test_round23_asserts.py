"""Round 23 (TL101, TL103): an `assert` on a device value in a training step waits for the
device every step, as an `if` does; Python runs asserts unless started with `-O`, which
training jobs rarely are (two independent labellers of fresh batches counted them as costs).
Asserts on shapes or host values, and asserts in loops that do not run with training (a
one-off pass, generation, where the check decides whether the loop may go on) stay silent."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

TRAINING = """
import torch
model = torch.nn.Linear(4, 2).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(num_epochs):
    for x, y in loader:
        out = model(x.cuda())
        {line}
        loss = torch.nn.functional.mse_loss(out, y.cuda())
        loss.backward()
        optimizer.step()
"""


@pytest.mark.parametrize("line, rule, reported", [
    ("assert not torch.isnan(out).any()", "TL103", [8]),
    ("assert torch.allclose(out.sum(), out.sum())", "TL103", [8]),
    ("assert (out > -1e6).all().item()", "TL101", [8]),
    ("assert out.shape[0] == x.shape[0]", "TL103", []),
    ("assert not torch.isnan(torch.zeros(3)).any()", "TL103", []),
])
def test_an_assert_on_a_device_value_in_a_training_step(line, rule, reported):
    assert lines(TRAINING.format(line=line), rule) == reported


EVALUATION = """
import torch
model = torch.nn.Linear(4, 2).cuda()
def evaluate(loader):
    with torch.no_grad():
        for x, y in loader:
            out = model(x.cuda())
            {line}
{caller}
"""

EVERY_EPOCH = """for epoch in range(num_epochs):
    for x, y in train_loader:
        model(x.cuda()).sum().backward()
    evaluate(val_loader)"""
ONCE = "evaluate(test_loader)"


@pytest.mark.parametrize("line, rule, caller, reported", [
    # the per-epoch validation runs with training: its checks wait every epoch's batches
    ("assert not torch.isnan(out).any()", "TL103", EVERY_EPOCH, [8]),
    ("assert out.abs().max().item() < 1e6", "TL101", EVERY_EPOCH, [8]),
    # a one-off pass that does not run with training: the check decides whether it goes on
    ("assert not torch.isnan(out).any()", "TL103", ONCE, []),
    ("assert out.abs().max().item() < 1e6", "TL101", ONCE, []),
])
def test_an_assert_in_an_evaluation_loop(line, rule, caller, reported):
    assert lines(EVALUATION.format(line=line, caller=caller), rule) == reported
