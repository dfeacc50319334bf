"""Round 23 (TL101, TL103): an `assert` on a device value in a training step waits for the
device every step, as an `if` does; Python runs asserts unless started with `-O`, which
training jobs rarely are (two independent labellers of fresh batches counted them as costs).
Asserts on shapes or host values, and asserts in loops that do not train (where the check
decides whether the loop may go on) stay silent."""

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


def test_an_assert_in_a_loop_that_does_not_train_decides_whether_it_goes_on():
    code = """
    import torch
    model = torch.nn.Linear(4, 2).cuda()
    def evaluate(loader):
        with torch.no_grad():
            for x, y in loader:
                out = model(x.cuda())
                assert not torch.isnan(out).any()
    for epoch in range(10):
        evaluate(val_loader)
    """
    assert lines(code, "TL103") == []


def test_a_read_back_in_an_assert_of_a_loop_that_does_not_train():
    code = """
    import torch
    model = torch.nn.Linear(4, 2).cuda()
    def evaluate(loader):
        with torch.no_grad():
            for x, y in loader:
                out = model(x.cuda())
                assert out.abs().max().item() < 1e6
    for epoch in range(10):
        evaluate(val_loader)
    """
    assert lines(code, "TL101") == []
