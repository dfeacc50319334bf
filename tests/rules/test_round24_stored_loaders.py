"""Round 24 (TL202, TL203): a loader that a trainer class builds in an overridable method and
keeps on the instance (`self.train_loader = self.get_train_loader(config)` in a base trainer's
`__init__`) feeds the loops of its subclass that the base's epoch loop calls
(`semantics.stored_results`). A loader kept but passed over once after training, or never
passed over, stays silent."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

BASE = """
import torch


class BaseTrainer:
    def __init__(self, config):
        self.config = config
        self.train_loader = self.get_train_loader(config)
        self.val_loader = self.get_val_loader(config)
        self.test_loader = self.get_test_loader(config)

    def train(self):
        for epoch in range(self.config.epochs):
            self._train_epoch(epoch)
            self._val_epoch(epoch)
        self._test()
"""

TRAINER = """
import torch
from torch.utils.data import DataLoader
from tqdm import tqdm
from base import BaseTrainer


class Trainer(BaseTrainer):
    def get_train_loader(self, config):
        loader = DataLoader(TextDataset(config.train_path), batch_size=32, shuffle=True, num_workers=8)
        return loader

    def get_val_loader(self, config):
        loader = DataLoader(TextDataset(config.val_path), batch_size=32, num_workers=8)
        return loader

    def get_test_loader(self, config):
        loader = DataLoader(TextDataset(config.test_path), batch_size=32, num_workers=8)
        return loader

    def _train_epoch(self, epoch):
        pbar = tqdm(self.train_loader)
        for batch in pbar:
            batch = {k: v.to("cuda") for k, v in batch.items()}
            loss = self.model(**batch).loss
            loss.backward()
            self.optimizer.step()

    def _val_epoch(self, epoch):
        with torch.no_grad():
            for batch in self.val_loader:
                batch = {k: v.to("cuda") for k, v in batch.items()}
                self.model(**batch)

    def _test(self):
        with torch.no_grad():
            for batch in self.test_loader:
                self.model(**{k: v.to("cuda") for k, v in batch.items()})
"""


def test_loaders_kept_by_a_base_trainer(tmp_path, monkeypatch):
    found = project_findings(tmp_path, monkeypatch, {"base.py": BASE, "trainer.py": TRAINER}, "TL202,TL203")
    assert found == {(file, code, line) for file, line in (("trainer.py", 10), ("trainer.py", 14)) for code in ("TL202", "TL203")}


@pytest.mark.parametrize("change", [
    ("            self._train_epoch(epoch)\n            self._val_epoch(epoch)\n", "            self._val_epoch(epoch)\n"),
    ("        self.train_loader = self.get_train_loader(config)\n", "        loader = self.get_train_loader(config)\n"),
])
def test_no_training_pass_in_the_loop_or_nothing_kept(tmp_path, monkeypatch, change):
    # the epoch loop runs no training pass (validation only), or the train loader is not kept
    found = project_findings(tmp_path, monkeypatch, {"base.py": BASE.replace(*change), "trainer.py": TRAINER}, "TL202,TL203")
    assert ("trainer.py", "TL203", 10) not in found and ("trainer.py", "TL203", 18) not in found
