"""Round 26 (batch 37): a test of a parameter against a literal (`if self.stage == "test":`)
is decided by what the project's calls pass it, as truth tests already were: with `stage`
left to its default `"train"` by every construction, the branch never runs. A Lightning
module restored with `load_from_checkpoint` gets the saved arguments of a construction, with
the keywords that call overrides; a restore that overrides the parameter keeps the branch."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

WRAPPER = """
import lightning as L
import torch


class Wrapper(L.LightningModule):
    def __init__(self, model, stage="train"):
        super().__init__()
        self.model = model
        self.stage = stage
        self.preds = []

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.cross_entropy(self.model(x), y)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        out = self.model(x)
        if self.stage {operator} "test":
            self.preds.extend(out.argmax(1).tolist())
        return torch.nn.functional.cross_entropy(out, y)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters())
"""

TRAIN = """
import lightning as L
import torch
from wrapper import Wrapper

model = Wrapper(torch.nn.Linear(4, 2))
L.Trainer(accelerator="gpu", max_epochs=10).fit(model, train_loader, val_loader)
best = Wrapper.load_from_checkpoint("best.ckpt", model=torch.nn.Linear(4, 2){override})
"""


@pytest.mark.parametrize(
    "operator, override, found",
    [
        ("==", "", set()),
        ("!=", "", {("wrapper.py", "TL101", 21)}),
        ("==", ', stage="test"', {("wrapper.py", "TL101", 21)}),
    ],
)
def test_a_parameter_tested_against_a_literal(tmp_path, monkeypatch, operator, override, found):
    files = {"wrapper.py": WRAPPER.format(operator=operator), "train.py": TRAIN.format(override=override)}
    assert project_findings(tmp_path, monkeypatch, files, "TL101") == found
