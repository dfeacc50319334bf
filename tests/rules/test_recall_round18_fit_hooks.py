"""Round 18 (TL102): a `LightningModule`'s `validation_step` runs for every validation batch of
every epoch of a fit, as TL101 already counts it; a tensor it creates on the host and moves is
created and copied that often. `test_step` and `predict_step` run after the fit, once per
batch of one pass: the preview variant."""

from __future__ import annotations

import pytest
from conftest import lines

MODULE = """
import torch
import torch.nn.functional as F
import pytorch_lightning as pl


class Lit({base}):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(8, 2)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return F.cross_entropy(self.net(x), y)

    def {hook}(self, batch, batch_idx):
        x, y = batch
        weights = torch.ones(x.size(0)).to(self.device)
        return (F.cross_entropy(self.net(x), y, reduction="none") * weights).mean()

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters())


pl.Trainer(accelerator="gpu").fit(Lit(), loader)
"""


def check(hook: str, base: str = "pl.LightningModule") -> list:
    return lines(MODULE.format(hook=hook, base=base), "TL102")


@pytest.mark.stable_only
def test_a_host_tensor_moved_in_validation_step_is_reported():
    assert check("validation_step") == [18]


@pytest.mark.stable_only
@pytest.mark.parametrize("hook", ["test_step", "predict_step"])
def test_hooks_that_run_after_the_fit_stay_in_preview(hook):
    assert check(hook) == []


@pytest.mark.parametrize("hook", ["test_step", "predict_step"])
def test_hooks_that_run_after_the_fit_are_reported_in_preview(hook):
    assert check(hook) == [18]


@pytest.mark.stable_only
def test_a_method_of_the_same_name_outside_a_framework_is_not_a_batch_hook():
    assert check("validation_step", base="torch.nn.Module") == []
