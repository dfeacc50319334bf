"""Round 25: a pass over a data loader under an interval test (`if step % val_interval == 0:
for batch in val_loader:`) is an evaluation loop of its own: it runs again at every interval,
as a per-epoch validation does, and each of its batches is a step (`frequency._execution`).
Its per-batch syncs are reported, as they are in a validation function called at the same
place. A sampling loop under the interval and the interval's own work stay rare."""

from __future__ import annotations

import pytest
from conftest import lint

pytestmark = pytest.mark.stable_only

SCRIPT = """
import torch
from torch.utils.data import DataLoader

train_loader = DataLoader(train_set, batch_size=8, shuffle=True, num_workers=4, pin_memory=True, persistent_workers=True)
val_loader = DataLoader(val_set, batch_size=8, num_workers=4, pin_memory=True)
steps = 0
for epoch in range(10):
    for x, y in train_loader:
        loss = criterion(model(x.cuda(non_blocking=True)), y.cuda(non_blocking=True))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if steps % args.validation_interval == 0:
            print(loss.item())
            with torch.no_grad():
                {body}
        steps += 1
"""


@pytest.mark.parametrize("body, lines", [
    ("for vx, vy in val_loader:\n                    total += criterion(model(vx.cuda()), vy.cuda()).item()", [18]),
    ("for i in range(8):\n                    print(model(torch.randn(1, 4).cuda()).sum().item())", []),
])
def test_a_pass_over_a_loader_under_an_interval(body, lines):
    findings = lint(SCRIPT.format(body=body), ["TL101"])
    assert sorted(finding.line for finding in findings) == lines
