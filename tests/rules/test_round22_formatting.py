"""Round 22 (TL103, batch 30 part a: a full-batch GCN printing its losses every epoch with
`'{:.4f}'.format(loss)`): `str.format()` and printf-style `%` formatting of a tensor convert it
to a Python number, waiting for the device, as an f-string does. Host values, and formatting
in loops that neither train nor run every epoch, stay silent."""

from __future__ import annotations

import pytest
from conftest import lines

RULE = "TL103"

LOOP = """
import torch
model = torch.nn.Linear(4, 2).cuda()
for epoch in range(200):
    optimizer.zero_grad()
    loss = criterion(model(X), y)
    loss.backward()
    optimizer.step()
    {line}
"""


@pytest.mark.parametrize("line, reported", [
    ("print('loss: {:.4f}'.format(loss))", [9]),
    ("print('loss: %.4f' % loss)", [9]),
    ("print('%d: %.4f' % (epoch, loss))", [9]),
    ("print('loss: {:.4f}'.format(loss.item()))", []),
    ("print('epoch: {:04d}'.format(epoch))", []),
    ("print('loss: %.4f' % loss.item())", []),
    ("text = template.format(loss)", []),
])
def test_formatting_a_device_loss_every_step(line, reported):
    assert lines(LOOP.format(line=line), RULE) == reported


def test_formatting_in_a_loop_that_does_not_train():
    code = """
    import torch
    model = torch.nn.Linear(4, 2).cuda()
    for i in range(10):
        out = model(torch.randn(2, 4, device="cuda"))
        print("{:.3f}".format(out.sum()))
    """
    assert lines(code, RULE) == []
