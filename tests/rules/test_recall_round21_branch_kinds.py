"""Round 21 (TL101, batch 20's GAN helper): a name that one branch of an `if`/`else` binds to a
device or unknown value and the other to a host tensor (`gener_loss = loss_fn(...)` on the
steps that train the generator, `gener_loss = torch.tensor(0.)` on the others) may hold a
device tensor after the `if`: `.item()` of it waits on those steps. Host values in both
branches stay host values."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

LOOP = """
import torch

for step, (x, y) in enumerate(loader):
    out = model(x.cuda())
    if step % 2 == 0:
        loss = {trained}
        loss.backward()
        optimizer.step()
    else:
        loss = {skipped}
    log.append(loss.item())
"""


@pytest.mark.parametrize("trained, skipped, reported", [
    ("loss_fn(out, y.cuda())", "torch.tensor(0.)", [12]),
    ("torch.nn.functional.mse_loss(out, y.cuda())", "torch.tensor(0.)", [12]),
    ("torch.nn.functional.mse_loss(out, y.cuda())", "torch.zeros(1, device=out.device)", [12]),
    ("torch.tensor(1.)", "torch.tensor(0.)", []),  # host in both branches
])
def test_a_name_bound_differently_by_the_branches(trained, skipped, reported):
    assert lines(LOOP.format(trained=trained, skipped=skipped), "TL101") == reported
