"""Round 16 (TL101, a false finding of batch 23): the attribute of a NumPy value is a host
value (`np.finfo(np.float32).eps.item()`), not a tensor read back from the device."""

from __future__ import annotations

import pytest
from conftest import lines

LOOP = """
import numpy as np
import torch

model = torch.nn.Linear(4, 1).cuda()
optimizer = torch.optim.Adam(model.parameters())
for x in loader:
    out = model(x.cuda())
    loss = out.mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    value = {read}
"""


@pytest.mark.parametrize(
    "read, reported",
    [
        # NumPy scalars and arrays: on the host already.
        ("np.finfo(np.float32).eps.item()", []),
        ("np.ones(3).T.sum().item()", []),
        # A tensor's attribute of the same spelling is still the device's.
        ("out.T.sum().item()", [13]),
        ("out.real.sum().item()", [13]),
    ],
)
def test_numpy_attributes_are_host_values(read, reported):
    assert lines(LOOP.replace("{read}", read), "TL101") == reported
