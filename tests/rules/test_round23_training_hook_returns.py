"""Round 23 (TL103): a tensor test that decides the `return` of a Lightning `training_step`
(`if torch.isnan(loss): return None`, skipping the batch) waits for the device every step, as
the same test before `continue` does in a hand-written training loop, where it was already
reported. In `validation_step` the value decides what the evaluation returns: silent."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

RULE = "TL103"

MODULE = """
import pytorch_lightning as pl
import torch
from torch import nn

class Net(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(4, 2)

    def {hook}(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.mse_loss(self.layer(x), y)
        if {test}:
            return None
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters())

trainer = pl.Trainer(accelerator="gpu", max_epochs=10)
trainer.fit(Net(), train_loader, val_loader)
"""


@pytest.mark.parametrize("hook, test, reported", [
    ("training_step", "torch.isnan(loss)", [14]),
    ("training_step", "loss.isinf().any()", [14]),
    ("training_step", "loss > 1e6", [14]),
    ("training_step", "batch_idx > 1000", []),
    ("validation_step", "torch.isnan(loss)", []),
])
def test_a_tensor_test_deciding_a_hook_s_return(hook, test, reported):
    assert lines(MODULE.format(hook=hook, test=test), RULE) == reported


def test_the_same_test_in_a_hand_written_training_loop_was_already_reported():
    code = """
    import torch
    def train(loader):
        for x, y in loader:
            loss = torch.nn.functional.mse_loss(model(x.cuda()), y.cuda())
            if torch.isnan(loss):
                continue
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    for epoch in range(100):
        train(loader)
    """
    assert lines(code, RULE) == [6]
