"""Round 24 (TL103): an `elif` that tests the tensors its `if` already tested (`if d < low:
... elif d > high: ...`) waits for nothing new: the first test brought the value to the host
and nothing is queued in between. An `elif` on another tensor waits again."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

CODE = """
import torch

for epoch in range(100):
    for x, y in loader:
        d = torch.nn.functional.kl_div(x.cuda(), y.cuda())
        e = torch.nn.functional.mse_loss(x.cuda(), y.cuda())
        if d < 0.01:
            beta /= 2
        elif {test}:
            beta *= 2
        (d * beta + e).backward()
        optimizer.step()
"""


@pytest.mark.parametrize("test, reported", [
    ("d > 0.02", [8]),
    ("d > 0.02 and beta < 10", [8]),
    ("e > 0.02", [8, 10]),
])
def test_an_elif_on_the_tested_tensor(test, reported):
    assert lines(CODE.format(test=test), "TL103") == reported
