"""Round 24 (TL201): a dataset handed a state its building object keeps changing
(`RLDataset(self.buffer, 200)` where `training_step` calls `self.buffer.append(experience)`)
serves what the main process makes: workers would sample stale copies of the buffer, so no
workers are advised (`semantics.datasets`). A dataset handed an attribute the object only
reads still loads its items and is reported."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

MODULE = """
import lightning as L
import torch
from torch.utils.data import DataLoader, IterableDataset


class RLDataset(IterableDataset):
    def __init__(self, buffer, size):
        self.buffer = buffer
        self.size = size

    def __iter__(self):
        for experience in self.buffer.sample(self.size):
            yield experience


class DQN(L.LightningModule):
    def __init__(self):
        super().__init__()
        self.buffer = ReplayBuffer(10000)
        self.paths = sorted(glob.glob("episodes/*.npz"))

    def training_step(self, batch, batch_idx):
        loss = self.loss(batch)
        {change}
        return loss

    def train_dataloader(self):
        dataset = RLDataset({given}, 200)
        return DataLoader(dataset, batch_size=32)


trainer = L.Trainer(accelerator="gpu", max_epochs=100)
trainer.fit(DQN())
"""


@pytest.mark.parametrize("given, change, reported", [
    ("self.buffer", "self.buffer.append(self.play_step())", []),
    ("self.buffer", "self.buffer.update(batch[-1], loss.detach())", []),
    ("self.paths", "self.buffer.append(self.play_step())", [30]),
])
def test_a_dataset_over_a_buffer_the_module_fills(given, change, reported):
    assert lines(MODULE.format(given=given, change=change), "TL201") == reported


def test_the_buffer_batches_still_go_to_the_device_unpinned():
    # Only the workers are the main process's business: the trainer still copies every
    # sampled batch to the GPU from pageable memory (TL202 stays).
    code = MODULE.format(given="self.buffer", change="self.buffer.append(self.play_step())")
    assert lines(code, "TL202") == [30]
