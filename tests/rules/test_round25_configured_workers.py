"""Round 25 (TL203): a data module that the project never builds by name, while its
configuration files set its `num_workers` above zero, is built from them (Hydra's
`instantiate`): its worker count is not the constructor's default of `0`
(`passed_values.zero_in_every_call`). Configurations that give no workers leave it silent."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

DATA = """
import pytorch_lightning as pl
from torch.utils.data import DataLoader


class MNISTDataModule(pl.LightningDataModule):
    def __init__(self, data_dir: str = "data", batch_size: int = 64, num_workers: int = 0):
        super().__init__()
        self.batch_size = batch_size
        self.num_workers = num_workers

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=self.batch_size, shuffle=True, num_workers=self.num_workers, pin_memory=True)
"""

TRAIN = """
import hydra
import pytorch_lightning as pl


@hydra.main(config_path="configs", config_name="vae")
def main(cfg):
    datamodule = hydra.utils.instantiate(cfg.datamodule)
    model = hydra.utils.instantiate(cfg.model)
    trainer = pl.Trainer(accelerator="gpu", devices=1, max_epochs=200)
    trainer.fit(model, datamodule=datamodule)
"""


@pytest.mark.parametrize("workers, reported", [(8, True), (0, False)])
def test_workers_set_by_the_configuration(tmp_path, monkeypatch, workers, reported):
    config = f"datamodule:\n  _target_: src.data.MNISTDataModule\n  batch_size: 64\n  num_workers: {workers}\n"
    files = {"src/data.py": DATA, "src/__init__.py": "", "train.py": TRAIN, "configs/vae.yaml": config}
    found = project_findings(tmp_path, monkeypatch, files, "TL203")
    assert {(path, line) for path, _, line in found} == ({("data.py", 13)} if reported else set())
