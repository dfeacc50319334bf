"""Round 25 (TL103): a metric's tensor state (`self.add_state("total", default=torch.zeros(1))`)
lives where the metric does, as a registered buffer does, and `self.total += x` updates it in
place (`ValueInference._self_attribute_kind`); an `assert`'s message is built only when the
assertion fails (`frequency`: rare)."""

from __future__ import annotations

import pytest
from conftest import lint

pytestmark = pytest.mark.stable_only

CODE = """
import pytorch_lightning as pl
import torch
from torchmetrics import Metric


class Sparsity(Metric):
    def __init__(self):
        super().__init__()
        self.add_state("positive", default={default}, dist_reduce_fx="sum")
        self.add_state("words", default={default}, dist_reduce_fx="sum")

    def update(self, preds, mask):
        self.positive += (preds > 0.5).sum()
        self.words += mask.sum()
        assert self.words >= self.positive, f"{{self.words}} {{self.positive}}"

    def compute(self):
        return self.positive / self.words


class Model(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.sparsity = Sparsity()

    def training_step(self, batch, batch_idx):
        preds = self.net(batch["x"])
        self.sparsity.update(preds, batch["mask"])
        return preds.sum()
"""


@pytest.mark.parametrize("default, lines", [("torch.zeros(1)", [16]), ("[]", [])])
def test_a_metric_state_asserted_every_step(default, lines):
    assert [finding.line for finding in lint(CODE.format(default=default), ["TL103"])] == lines
