"""Round 20 (TL202, batch 27's Lightning NER and forecasting projects): a loader Lightning
feeds is moved to the accelerator batch by batch whether its dataset reads each item or
loaded everything into memory first (a corpus tokenised into tensors in `__init__`): both
are copied from pageable memory. Only demo data that a torch factory makes up, read from
nowhere, stays exempt (`semantics.datasets.made_up`)."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

DATAMODULE = """
import torch
import pytorch_lightning as pl
from torch.utils.data import DataLoader, Dataset, TensorDataset


class Corpus(Dataset):
    def __init__(self, path):
        self.ids = torch.tensor(read_corpus(path))

    def __getitem__(self, index):
        return self.ids[index]

    def __len__(self):
        return len(self.ids)


class Noise(Dataset):
    def __init__(self):
        self.ids = torch.randint(0, 100, (64, 16))

    def __getitem__(self, index):
        return self.ids[index]

    def __len__(self):
        return len(self.ids)


class Data(pl.LightningDataModule):
    def train_dataloader(self):
        return DataLoader({dataset}, batch_size=32, num_workers=4)


pl.Trainer(accelerator="gpu", max_epochs=10).fit(model, datamodule=Data())
"""


def check(dataset: str) -> list:
    return lines(DATAMODULE.format(dataset=dataset), "TL202")


def test_a_corpus_loaded_into_memory_is_still_copied_batch_by_batch():
    assert check('Corpus("train.txt")') == [31]


def test_tensors_loaded_from_a_file_are_too():
    assert check('TensorDataset(torch.load("features.pt"))') == [31]


def test_a_dataset_class_making_its_data_up_is_demo_data():
    assert check("Noise()") == []


def test_a_tensor_dataset_of_factory_tensors_is_demo_data():
    assert check("TensorDataset(torch.randn(64, 8), torch.randint(0, 2, (64,)))") == []


def test_a_subset_of_demo_data_is_demo_data():
    assert check("torch.utils.data.Subset(Noise(), range(32))") == []
