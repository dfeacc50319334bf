"""Round 19 (TL101, batches 25 and 26): a read-back right after another one of the same
iteration, with only host work between, finds the device idle: the first one waited for the
step, and the second copies a value that is ready (`semantics.waits`). The first read stays
reported; so does a second one after device work (a forward, tensor arithmetic, a call of
unknown effect), in a nested loop, or whose own receiver computes on the device."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

LOOP = """
import torch

model = torch.nn.Linear(8, 2).cuda()
optimizer = torch.optim.Adam(model.parameters())
for x, y in loader:
    x, y = x.cuda(), y.cuda()
    out = model(x)
    loss = torch.nn.functional.cross_entropy(out, y)
    loss.backward()
    optimizer.step()
    correct = (out.argmax(1) == y).sum()
    total_loss += loss.item()
{after}
"""


def check(after: str) -> list:
    return lines(LOOP.format(after=after), "TL101")


@pytest.mark.parametrize(
    "after",
    [
        "    total_correct += correct.item()",
        "    history.append(out.cpu())\n    bar.set_postfix({'loss': total_loss, 'correct': correct.item()})",
        "    if step % 10 == 0:\n        print(f'correct {correct.item()}')",
    ],
)
def test_a_read_back_after_the_iteration_waited_is_not_reported(after):
    assert check(after) == [13]


@pytest.mark.parametrize(
    "after, line",
    [
        ("    out2 = model(x)\n    total_correct += out2.sum().item()", 15),  # a forward in between
        ("    total_correct += (out.argmax(1) == y).sum().item()", 14),  # its own receiver computes
        ("    scaled = correct * weight\n    total_correct += scaled.item()", 15),  # tensor arithmetic
        ("    for row in out:\n        rows.append(row.tolist())", 15),  # a nested loop
        ("    log_metrics(correct)\n    total_correct += correct.item()", 15),  # a call of unknown effect
    ],
)
def test_a_read_back_after_device_work_stays_reported(after, line):
    assert check(after) == [13, line]


LIGHTNING = """
import torch
import torch.nn.functional as F
import pytorch_lightning as pl


class Classifier(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(8, 2)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return F.cross_entropy(self.net(x), y)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        out = self.net(x)
        acc = (out.argmax(-1) == y).float().mean()
        self.log("val_loss", F.cross_entropy(out, y).item())
        self.log("val_acc", acc.item())


pl.Trainer(accelerator="gpu").fit(Classifier(), loader)
"""


def test_a_second_read_back_in_a_lightning_hook_is_not_reported():
    assert lines(LIGHTNING, "TL101") == [20]
