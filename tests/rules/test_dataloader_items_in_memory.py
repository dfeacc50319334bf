"""TL201 and data already in memory (`semantics.dataset_items`): a dataset class whose
`__getitem__` only indexes and converts attributes holding data in memory gives worker
processes nothing to overlap; anything that reads, decodes or transforms per item, or whose
per-item work is not seen, keeps the finding. Decided from what the class's code does."""

from __future__ import annotations

import textwrap

import pytest
from conftest import lines
from test_recall_round3_flow import project

RULE = "TL201"

IMPORTS = """
import csv, gzip, os
import h5py
import numpy as np
import torch
import torch.utils.data as tud
from torch.utils.data import DataLoader, Dataset
from PIL import Image
from torchvision import transforms
"""

TRAINING = """
loader = DataLoader({dataset}, batch_size=64)
for epoch in range(10):
    for x, y in loader:
        loss = criterion(model(x.cuda()), y.cuda())
        loss.backward()
        optimizer.step()
"""


def reported(classes: str, dataset: str = "Items()") -> bool:
    """Whether TL201 reports the loader of a CUDA training loop over `dataset`."""
    code = IMPORTS + textwrap.dedent(classes) + TRAINING.format(dataset=dataset)
    found = lines(code, RULE)
    assert len(found) <= 1
    return bool(found)


BASE = """
        class Base(Dataset):
            def __init__(self):
                self.data = torch.load("all.pt")
            def __getitem__(self, i):
                return self.data[i]
"""

IN_MEMORY = {
    "a whole-file load in __init__, lists indexed per item": """
        class Items(Dataset):
            def __init__(self, path="names.csv.gz"):
                with gzip.open(path, "rt") as f:
                    rows = list(csv.reader(f))
                self.names = [row[0] for row in rows]
                self.labels = [row[1] for row in rows]
            def __len__(self):
                return len(self.names)
            def __getitem__(self, index):
                return self.names[index], self.labels[index]
        """,
    "arrays computed by a static method, converted per item": """
        class Items(Dataset):
            def __init__(self, size=100, noise=0.1):
                self.size = size
                self.x, self.y = self.make(size, noise)
            @staticmethod
            def make(size, noise):
                theta = np.linspace(0, np.pi, size)
                x = np.stack([np.cos(theta), np.sin(theta)], 1)
                x += noise * np.random.rand(size, 2)
                return torch.Tensor(x), torch.LongTensor(np.zeros(size))
            def __len__(self):
                return self.size
            def __getitem__(self, index):
                x, y = self.x[index], self.y[index]
                return x.float().view(-1), y
        """,
    "a loaded file cut into trajectories, indexed through an index list": """
        class Items(Dataset):
            def __init__(self, path="expert.pt", count=4):
                everything = torch.load(path)
                self.trajectories = {}
                for key, value in everything.items():
                    self.trajectories[key] = value[:count]
                self.index = []
                for j in range(len(self.trajectories["states"])):
                    self.index.append((j, 0))
            def __getitem__(self, i):
                row, column = self.index[i]
                return self.trajectories["states"][row][column], self.trajectories["actions"][row][column]
        """,
    "pre-tokenised samples in a parameter declared as a list": """
        class Items(Dataset):
            def __init__(self, data: list):
                self._data = data
            def __len__(self):
                return len(self._data)
            def __getitem__(self, i):
                return self._data[i]["input_ids"].type(torch.int64), self._data[i]["labels"].type(torch.int64)
        """,
    "data written into a tensor made in __init__": """
        class Items(Dataset):
            def __init__(self, path="digits.amat"):
                raw = np.loadtxt(path)
                self.images = torch.empty((raw.shape[0], 1, 29, 29))
                for i in range(raw.shape[0]):
                    self.images[i] = to_tensor(rotate(raw[i]))
                self.labels = raw[:, -1].astype(np.int64)
            def __getitem__(self, index):
                return self.images[index], self.labels[index]
        """,
    "a subclass that keeps its base's __getitem__": BASE + """
        class Items(Base):
            pass
        """,
    # round 13: a setting compared with a constant, a setting parameter with a constant
    # default, and the exception an unknown setting raises are no per-item work
    "a setting the item branches on, an error raised for an unknown one": """
        class Items(Dataset):
            def __init__(self, partition="train", name="nbody"):
                self.name = name
                self.data = torch.load("loc_" + partition + ".pt")
            def __getitem__(self, i):
                if self.name == "nbody":
                    first, last = 6, 8
                elif self.name == "small":
                    first, last = 30, 40
                else:
                    raise Exception("unknown dataset %s" % self.name)
                return self.data[i, first], self.data[i, last]
            def __len__(self):
                return len(self.data)
        """,
    "a helper method handed arrays the class loaded once (round 14)": """
        class Items(Dataset):
            def __init__(self, split="train"):
                self.data, self.edges = self.load(split)
            def load(self, split):
                loc = np.load("loc_" + split + ".npy")
                edges = np.load("edges_" + split + ".npy")
                return self.preprocess(loc, edges)
            def preprocess(self, loc, edges):
                return loc.astype(np.float32), edges
            def __getitem__(self, i):
                return self.data[i, 0], self.data[i, -1]
            def __len__(self):
                return len(self.data)
        """,
}


@pytest.mark.parametrize("classes", IN_MEMORY.values(), ids=list(IN_MEMORY))
def test_items_already_in_memory_need_no_workers(classes):
    assert not reported(classes)


PER_ITEM_WORK = {
    "a parameter stored as given, which may be a dataset or a file handle (round 13)": """
        class Items(Dataset):
            def __init__(self, source, name="nbody"):
                self.name = name
                self.source = source
            def __getitem__(self, i):
                if self.name == "nbody":
                    return self.source[i]
                raise KeyError(self.name)
        """,
    "a helper method handed what the caller passed, which may be a file handle (round 14)": """
        class Items(Dataset):
            def __init__(self, source):
                self.data = self.prepare(source)
            def prepare(self, source):
                return source
            def __getitem__(self, i):
                return self.data[i], 0
        """,
    "a helper method handed a lazy HDF5 handle (round 14)": """
        class Items(Dataset):
            def __init__(self, path="x.h5"):
                self.data = self.prepare(h5py.File(path, "r"))
            def prepare(self, handle):
                return handle["images"]
            def __getitem__(self, i):
                return self.data[i], 0
        """,
    "a transform of the dataset applied per item": """
        class Items(Dataset):
            def __init__(self, transform=None):
                self.data = np.load("x.npy")
                self.transform = transform
            def __getitem__(self, i):
                return self.transform(self.data[i]), 0
        """,
    "a torchvision transform applied per item": """
        class Items(Dataset):
            def __init__(self):
                self.data = torch.load("x.pt")
            def __getitem__(self, i):
                return transforms.ToTensor()(self.data[i]), 0
        """,
    "a file read per item": """
        class Items(Dataset):
            def __init__(self, root="data"):
                self.files = sorted(os.listdir(root))
            def __getitem__(self, i):
                return np.load(self.files[i]), 0
        """,
    "an image decoded per item": """
        class Items(Dataset):
            def __init__(self):
                self.paths = [line.strip() for line in open("list.txt")]
            def __getitem__(self, i):
                return np.asarray(Image.open(self.paths[i])), 0
        """,
    "a memory-mapped array read per item": """
        class Items(Dataset):
            def __init__(self):
                self.data = np.load("x.npy", mmap_mode="r")
            def __getitem__(self, i):
                return torch.from_numpy(self.data[i].astype(np.float32)), 0
        """,
    "np.memmap read per item": """
        class Items(Dataset):
            def __init__(self):
                self.data = np.memmap("x.bin", dtype=np.uint16, mode="r")
            def __getitem__(self, i):
                return torch.from_numpy(self.data[i : i + 512].astype(np.int64)), 0
        """,
    "an array of an .npz archive read again per item": """
        class Items(Dataset):
            def __init__(self):
                self.archive = np.load("data.npz")
            def __getitem__(self, i):
                return self.archive["x"][i], self.archive["y"][i]
        """,
    "HDF5 files gathered in a local list": """
        class Items(Dataset):
            def __init__(self, paths=("a.h5", "b.h5")):
                files = []
                for path in paths:
                    files.append(h5py.File(path, "r"))
                self.files = files
            def __getitem__(self, i):
                return self.files[i % 2]["x"][i // 2], 0
        """,
    "an HDF5 dataset read per item": """
        class Items(Dataset):
            def __init__(self):
                self.file = h5py.File("x.h5", "r")
                self.images = self.file["images"]
            def __getitem__(self, i):
                return self.images[i], 0
        """,
    "another dataset stored as given": """
        class Items(Dataset):
            def __init__(self, base):
                self.base = base
            def __getitem__(self, i):
                return self.base[i]
        """,
    "a Subset of another dataset": """
        class Items(Dataset):
            def __init__(self):
                self.mnist = tud.Subset(images, range(100))
            def __getitem__(self, i):
                return self.mnist[i]
        """,
    "a subclass that adds a transform": BASE + """
        class Items(Base):
            def __getitem__(self, i):
                return self.augment(super().__getitem__(i))
        """,
    "a function of the project called per item": """
        class Items(Dataset):
            def __init__(self):
                self.texts = torch.load("texts.pt")
            def __getitem__(self, i):
                return tokenize(self.texts[i]), 0
        """,
    "an attribute nothing in the class assigns": """
        class Items(Dataset):
            def __getitem__(self, i):
                return self.samples[i]
        """,
}


@pytest.mark.parametrize("classes", PER_ITEM_WORK.values(), ids=list(PER_ITEM_WORK))
def test_work_per_item_or_unseen_items_keep_the_finding(classes):
    assert reported(classes)


def test_random_splits_and_parameters_of_a_function_the_file_calls():
    """Parts of `random_split` of an in-memory dataset, and a function's parameter to which
    every call passes an in-memory dataset, are in memory; a call passing a dataset that
    reads files keeps the finding."""
    split = "\ntrain_set, val_set = torch.utils.data.random_split(Items(), [80, 20])\n"
    in_memory = textwrap.dedent(IN_MEMORY["arrays computed by a static method, converted per item"])
    assert not reported(in_memory + split, "train_set")
    assert reported(textwrap.dedent(PER_ITEM_WORK["a file read per item"]) + split, "train_set")
    function = """
    def fit(train_data):
        loader = DataLoader(train_data, batch_size=64)
        for x, y in loader:
            criterion(model(x.cuda()), y.cuda()).backward()
            optimizer.step()
    fit(train_data=tud.TensorDataset(features, labels))
    """
    assert lines(IMPORTS + textwrap.dedent(function), RULE) == []
    reads = function + "fit(Images())\n"
    assert lines(IMPORTS + textwrap.dedent(reads), RULE) == [12]


def test_an_element_of_a_tuple_a_function_of_the_file_returns():
    """`dataset, model, optimizer = load_train_objs()` binds what that function returns first;
    a function that returns something else there keeps the finding."""
    code = """
    def load_train_objs():
        train_set = tud.TensorDataset(torch.rand(2048, 20), torch.rand(2048, 1))
        return train_set, torch.nn.Linear(20, 1), None
    def prepare(dataset):
        return DataLoader(dataset, batch_size=32)
    def main():
        dataset, model, optimizer = load_train_objs()
        for x, y in prepare(dataset):
            criterion(model(x.cuda()), y.cuda()).backward()
            optimizer.step()
    """
    assert lines(IMPORTS + textwrap.dedent(code), RULE) == []
    reads = code.replace("tud.TensorDataset(torch.rand(2048, 20), torch.rand(2048, 1))", "Images()")
    assert lines(IMPORTS + textwrap.dedent(reads), RULE) == [15]


SCRIPT = """
import torch
from torch.utils.data import DataLoader
from data import datasets as ds
from data.datasets import Items as Alias

loader = DataLoader({dataset}, batch_size=64)
for epoch in range(10):
    for x, y in loader:
        criterion(model(x.cuda()), y.cuda()).backward()
        optimizer.step()
"""


@pytest.mark.stable_only
@pytest.mark.parametrize("classes, is_reported", [
    (IN_MEMORY["a loaded file cut into trajectories, indexed through an index list"], False),
    (IN_MEMORY["a subclass that keeps its base's __getitem__"], False),
    (PER_ITEM_WORK["a transform of the dataset applied per item"], True),
    (PER_ITEM_WORK["a subclass that adds a transform"], True),
    (PER_ITEM_WORK["an HDF5 dataset read per item"], True),
])
@pytest.mark.parametrize("dataset", ["ds.Items()", "Alias()"])
def test_a_dataset_class_of_another_project_module(tmp_path, monkeypatch, classes, is_reported, dataset):
    files = {
        "data/__init__.py": "",
        "data/datasets.py": IMPORTS + textwrap.dedent(classes),
        "train.py": SCRIPT.format(dataset=dataset),
    }
    assert project(tmp_path, monkeypatch, files, RULE) == ([("train.py", 7)] if is_reported else [])
