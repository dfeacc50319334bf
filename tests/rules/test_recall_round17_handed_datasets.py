"""Round 17 (TL201, false findings of batch 23 and earlier batches): a dataset class that
stores what its constructor is given and only indexes it in `__getitem__` (the Hugging
Face fine-tuning pattern, `IMDbDataset(encodings, labels)`) holds its items in memory when
the program hands it values in memory: worker processes would have no loading to overlap.
Handed a dataset, a lazy handle or an unknown value, the finding stays."""

from __future__ import annotations

import pytest
from conftest import lines

PROGRAM = """
import h5py
import numpy as np
import pandas as pd
import torch
import torchvision
from transformers import AutoTokenizer

df = pd.read_csv("movie_data.csv")
texts = df.iloc[:35000]["review"].values
labels = df.iloc[:35000]["sentiment"].values
tokenizer = AutoTokenizer.from_pretrained("distilbert-base-uncased")
encodings = tokenizer(list(texts), truncation=True, padding=True)


class PairDataset(torch.utils.data.Dataset):
    def __init__(self, encodings, labels):
        self.encodings = encodings
        self.labels = labels

    def __getitem__(self, idx):
        item = {key: torch.tensor(val[idx]) for key, val in self.encodings.items()}
        item["labels"] = torch.tensor(self.labels[idx])
        return item

    def __len__(self):
        return len(self.labels)


class ImageFiles(torch.utils.data.Dataset):
    def __init__(self, paths, labels):
        self.paths = paths
        self.labels = labels

    def __getitem__(self, idx):
        return torchvision.io.read_image(self.paths[idx]), self.labels[idx]

    def __len__(self):
        return len(self.paths)


def train(given):
    dataset = {dataset}
    loader = torch.utils.data.DataLoader(dataset, batch_size=16, shuffle=True)
    model.cuda()
    for epoch in range(3):
        for batch in loader:
            loss = model(batch["input_ids"].cuda()).loss
            loss.backward()
            optimizer.step()
"""
LOADER_LINE = 44


@pytest.mark.parametrize(
    "dataset",
    [
        "PairDataset(encodings, labels)",
        "PairDataset({'input_ids': [[1, 2], [3, 4]]}, [0, 1])",
        "PairDataset(tokenizer(list(texts)), np.asarray(labels))",
        "PairDataset(torch.load('encodings.pt'), df['label'].tolist())",
    ],
)
def test_a_dataset_handed_values_in_memory_needs_no_workers(dataset):
    assert lines(PROGRAM.replace("{dataset}", dataset), "TL201") == []


@pytest.mark.parametrize(
    "dataset",
    [
        # Another dataset: indexing it runs its loading.
        "PairDataset(torchvision.datasets.CIFAR10('data'), labels)",
        # Lazy handles read per item.
        "PairDataset(encodings, np.load('labels.npy', mmap_mode='r'))",
        "PairDataset(h5py.File('data.h5')['x'], labels)",
        # A value the program does not show: a parameter.
        "PairDataset(given, labels)",
        # A dataset whose items are read from files, whatever it is handed.
        "ImageFiles(list(df['path']), labels)",
    ],
)
def test_datasets_handed_data_to_load_keep_the_finding(dataset):
    assert lines(PROGRAM.replace("{dataset}", dataset), "TL201") == [LOADER_LINE]


def test_a_parameter_is_not_the_module_value_of_its_name():
    # `encodings` of `train(encodings)` is what its callers pass, not the module's tokenizer output.
    program = PROGRAM.replace("def train(given):", "def train(encodings):").replace("{dataset}", "PairDataset(encodings, labels)")
    assert lines(program, "TL201") == [LOADER_LINE]
