"""Round 24: a loop whose body ends in its own `return`, `raise` or `break`, with no
`continue` of its own, runs its body once at most (`for imgs, targets in loader: ...; return
imgs.cpu(), preds` to plot one batch per epoch): nothing in it repeats, and the loader it reads
one batch from does not move batch after batch (`frequency.repeats`)."""

from __future__ import annotations

import pytest
from conftest import lint

pytestmark = pytest.mark.stable_only

SCRIPT = """
import torch
from torch.utils.data import DataLoader

train_loader = DataLoader(train_set, batch_size=8, shuffle=True, num_workers=4, pin_memory=True, persistent_workers=True)
val_loader = DataLoader(val_set, batch_size=8, num_workers=4, persistent_workers=True)

def show(model, loader):
    model.eval()
    with torch.no_grad():
        for imgs, targets in loader:
            {body}

for epoch in range(10):
    model.train()
    for imgs, targets in train_loader:
        loss = criterion(model(imgs.cuda(non_blocking=True)), targets.cuda(non_blocking=True))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    show(model, val_loader)
"""

ONE_BATCH = "preds = model(imgs.cuda()).argmax(1).cpu()\n            return imgs.cpu(), preds"


@pytest.mark.parametrize("body, reported", [
    (ONE_BATCH, set()),
    ("preds = model(imgs.cuda()).argmax(1)\n            print(preds.cpu())\n            break", set()),
    # every batch, or a `continue` that may skip the return
    ("preds = model(imgs.cuda()).argmax(1)\n            print(preds.cpu())", {("TL101", 13), ("TL202", 6)}),
    ("if targets is None:\n                continue\n            " + ONE_BATCH, {("TL101", 14), ("TL202", 6)}),
])
def test_a_loop_that_leaves_with_its_first_batch(body, reported):
    found = {(finding.code, finding.line) for finding in lint(SCRIPT.format(body=body), ["TL101", "TL202"])}
    assert found == reported


@pytest.mark.parametrize("leave, reported", [("break", [10]), ("pass", [10])])
def test_an_epoch_loop_that_trains_one_batch_per_epoch_is_the_step_loop(leave, reported):
    # `for epoch ...: for data in loader: ...; break` trains on one batch per epoch: each
    # epoch is one training step, and the print in it waits every step (as in a loop over
    # every batch, where it is reported in the inner loop).
    code = f"""
    import torch

    def train(dataloader, model, optimizer):
        for epoch in range(5000):
            for batch_idx, data in enumerate(dataloader):
                features = data["features"].float().cuda()
                loss = model(features)
                optimizer.zero_grad()
                print("epoch", epoch, "loss", loss)
                loss.backward()
                optimizer.step()
                {leave}
    """
    assert [finding.line for finding in lint(code, ["TL103"])] == reported
