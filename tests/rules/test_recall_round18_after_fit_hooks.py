"""Round 18 (TL101, TL103; batch 26's audio classifier): a `LightningModule`'s `test_step`
runs for the batches of `trainer.test()`, one pass after the fit, as a final evaluation does:
its read-backs are the preview variant, as TL102's are. A helper the training step shares
keeps the training step's frequency, and `validation_step` runs every epoch of the fit."""

from __future__ import annotations

import pytest
from conftest import lines

MODULE = """
import torch
import torch.nn.functional as F
import pytorch_lightning as pl


class Lit(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(8, 2)

    def shared(self, batch):
        x, y = batch
        loss = F.cross_entropy(self.net(x), y)
        self.log("shared", loss.item())
        return loss

    def training_step(self, batch, batch_idx):
        return self.shared(batch)

    def {hook}(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self.net(x), y)
        self.log("loss", loss.item())
        print(float(loss))
        return self.shared(batch)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters())


trainer = pl.Trainer(accelerator="gpu")
trainer.fit(Lit(), loader)
trainer.test(Lit(), loader)
"""


def check(hook: str, rule: str) -> list:
    return lines(MODULE.format(hook=hook), rule)


@pytest.mark.stable_only
@pytest.mark.parametrize("hook", ["test_step", "predict_step"])
def test_read_backs_in_the_hooks_of_a_pass_after_the_fit_are_the_preview_variant(hook):
    assert check(hook, "TL101") == [15]  # the shared helper only
    assert check(hook, "TL103") == []


@pytest.mark.parametrize("hook", ["test_step", "predict_step"])
def test_the_preview_variant_reports_them(hook):
    assert check(hook, "TL101") == [15, 24]
    assert check(hook, "TL103") == [25]


@pytest.mark.stable_only
def test_validation_step_runs_with_the_fit():
    assert check("validation_step", "TL101") == [15, 24]
