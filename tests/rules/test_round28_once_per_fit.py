"""Round 28: a Lightning module whose `training_step` never reads its batch trains nothing on
its train loader, and a loader drawn in a hook that runs once per fit (`on_train_start`, to fit
a k-NN on extracted features) is drawn once: neither needs pinned memory. Hard negatives: the
same module whose `training_step` trains on the batch, and the extraction run from a per-epoch
hook."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

BASE = """
import torch
import lightning.pytorch as L
from sklearn.neighbors import KNeighborsClassifier
from tqdm import tqdm


class BaseKNN(L.LightningModule):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def extract(self, loader):
        features, labels = [], []
        with torch.no_grad():
            for inputs, label in tqdm(loader):
                inputs = inputs.to(self.device)
                features.append(self.model(inputs).cpu())
                labels.append(label)
        return torch.cat(features), torch.cat(labels)

    def {hook}(self):
        train_loader = self.train_dataloader()
        bank, labels = self.extract(train_loader)
        self.knn = KNeighborsClassifier(n_neighbors=5)
        self.knn.fit(bank.numpy(), labels.numpy())

    def training_step(self, batch, batch_idx):
        {step}

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)
"""

CIFAR = """
from torch.utils.data import DataLoader
from base import BaseKNN


class CifarKNN(BaseKNN):
    def train_dataloader(self):
        return DataLoader(self.train_dataset, batch_size=64, num_workers=4)
"""

RUN = """
import lightning.pytorch as L
from cifar import CifarKNN

trainer = L.Trainer(accelerator="gpu", max_epochs=1)
trainer.fit(CifarKNN(model))
"""

IDLE = "return torch.tensor(0.0, requires_grad=True)"
TRAINS = "x, y = batch\n        return torch.nn.functional.cross_entropy(self.model(x), y)"


@pytest.mark.parametrize("hook, step, reported", [
    ("on_train_start", IDLE, set()),
    ("on_train_start", TRAINS, {("cifar.py", "TL202", 8)}),  # the trainer's passes train
    ("on_train_epoch_start", IDLE, {("cifar.py", "TL202", 8)}),  # drawn every epoch
])
def test_loaders_of_idle_steps_and_once_per_fit_hooks(tmp_path, monkeypatch, hook, step, reported):
    files = {"base.py": BASE.format(hook=hook, step=step), "cifar.py": CIFAR, "run.py": RUN}
    assert project_findings(tmp_path, monkeypatch, files, "TL202") == reported
