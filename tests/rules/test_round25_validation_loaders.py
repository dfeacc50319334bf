"""Round 25 (TL202): Lightning runs its validation loop only for a module that defines
`validation_step`; in a project whose code never names that hook, a data module's
`val_dataloader()` is never iterated, and its loader moves nothing (`loaders._loader_hook`,
`project.project_mentions`). The training loader is reported either way."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

DATA = """
import pytorch_lightning as pl
from torch.utils.data import DataLoader


class Data(pl.LightningDataModule):
    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=64, shuffle=True, num_workers=4, persistent_workers=True)

    def val_dataloader(self):
        return DataLoader(self.val_set, batch_size=64, num_workers=4, persistent_workers=True)
"""

MODEL = """
import pytorch_lightning as pl
import torch


class GAN(pl.LightningModule):
    def training_step(self, batch, batch_idx):
        x, _ = batch
        return self.loss(x)
{validation}
    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters())


if __name__ == "__main__":
    trainer = pl.Trainer(accelerator="gpu", devices=1, max_epochs=50)
    trainer.fit(GAN(), datamodule=Data())
"""

VALIDATION = """
    def validation_step(self, batch, batch_idx):
        x, _ = batch
        self.log("val_loss", self.loss(x))
"""


@pytest.mark.parametrize("validation, lines", [("", {8}), (VALIDATION, {8, 11})])
def test_a_validation_loader_without_a_validation_step(tmp_path, monkeypatch, validation, lines):
    files = {"data.py": DATA, "model.py": "from data import Data\n" + MODEL.format(validation=validation)}
    found = project_findings(tmp_path, monkeypatch, files, "TL202")
    assert {line for path, _, line in found if path == "data.py"} == lines
