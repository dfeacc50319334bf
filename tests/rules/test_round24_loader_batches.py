"""Round 24 (TL202): batch parts bound element by element (`inputs, labels = data["x"],
data["y"]`) are the batch's, and a dataset class that opens an array store or lists a
directory (`h5py.File(path, "r")`, `os.listdir(root)`) reads its data, so it does not make its
data up even where it also calls torch factories (`semantics.dataset_items.reads_storage`)."""

from __future__ import annotations

import pytest
from conftest import lines, project_findings

pytestmark = pytest.mark.stable_only

LOOP = """
import torch
from torch.utils.data import DataLoader

def main():
    loader = DataLoader(dataset, batch_size=32, shuffle=True, num_workers=4)
    for epoch in range(10):
        for j, data in enumerate(loader):
            {binding}
            inputs = inputs.float().to(device)
            loss = criterion(net(inputs), labels.to(device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    main()
"""


@pytest.mark.parametrize("binding, reported", [
    ('inputs, labels = data["x"], data["y"]', [6]),
    ('[inputs, labels] = [data[0], data[1]]', [6]),
    ('inputs, labels = data', [6]),
    # parts of something else than the batch
    ('inputs, labels = other["x"], other["y"]', []),
])
def test_batch_parts_bound_element_by_element(binding, reported):
    assert lines(LOOP.format(binding=binding), "TL202") == reported


DATASET = """
import os
import h5py
import numpy as np
import torch
from torch.utils.data import Dataset


class Layouts(Dataset):
    def __init__(self, root):
        self.root = root
        self.names = {names}

    def __getitem__(self, index):
        data = {read}
        layout = torch.zeros(3, 64, 64)
        layout[0] = torch.from_numpy(np.asarray(data["building"]))
        return layout

    def __len__(self):
        return len(self.names)
"""

DATAMODULE = """
import pytorch_lightning as pl
from torch.utils.data import DataLoader
from layouts import Layouts


class Data(pl.LightningDataModule):
    def setup(self, stage=None):
        self.train_set = Layouts("data/train")

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=8, shuffle=True, num_workers=4)


trainer = pl.Trainer(accelerator="gpu", devices=1, max_epochs=100)
trainer.fit(model, datamodule=Data())
"""


@pytest.mark.parametrize("names, read, reported", [
    ("os.listdir(root)", 'h5py.File(os.path.join(self.root, self.names[index]), "r")', True),
    ("sorted(os.listdir(root))", 'h5py.File(self.names[index], "r")', True),
    # a dataset that makes its data up
    ("list(range(1000))", "{'building': torch.rand(64, 64).numpy()}", False),
])
def test_a_dataset_reading_an_array_store_feeds_lightning(tmp_path, monkeypatch, names, read, reported):
    files = {"layouts.py": DATASET.format(names=names, read=read), "train.py": DATAMODULE}
    found = project_findings(tmp_path, monkeypatch, files, "TL202")
    assert found == ({("train.py", "TL202", 12)} if reported else set())
