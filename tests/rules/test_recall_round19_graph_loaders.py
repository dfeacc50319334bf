"""Round 19 (TL201, TL202, batch 26's graph loaders): loaders whose batches are graphs.

- A project `DataLoader` subclass that names its dataset otherwise (`def __init__(self, data,
  **kwargs)` handing `data` first to `super().__init__`, with a `collate_fn` of its own that
  builds graphs) takes DataLoader's options as they are: it is a loader.
- PyTorch Geometric's `DataLoader` over a project `Dataset` whose `get(idx)` reads or builds
  each graph (a pandas merge and a k-NN graph per event) has per-item work for workers; over
  an `InMemoryDataset`, or a dataset whose `get` only indexes what it holds, it has none.
- A file that imports only `torch_geometric` is a PyTorch file.
- `self.trainer` bound to a different class in each of two classes of a module: each class's
  calls resolve to its own trainer's method (the loader it hands on is iterated there).
- A loader handed to another module's loop that moves its batches to the device is moved,
  in a file that never names CUDA itself, when the program uses CUDA.
"""

from __future__ import annotations

import pytest

from test_recall_round2 import project

pytestmark = pytest.mark.stable_only

TRAINERS = """
import torch


class RegressionTrainer:
    def __init__(self, model, optimizer, device):
        self.model = model.to(device)
        self.optimizer = optimizer
        self.device = device

    def train(self, loader):
        for batch in loader:
            batch = batch.to(self.device)
            loss = self.model(batch).sum()
            loss.backward()
            self.optimizer.step()


class Summary:
    def __init__(self, path):
        self.path = path

    def train(self, loader):
        return len(loader)
"""

GRAPHS = """
import pandas as pd
import torch
from torch_geometric.data import Data, Dataset, InMemoryDataset
from torch_geometric.nn import knn_graph


class EventDataset(Dataset):
    def __init__(self, ids, path):
        super().__init__()
        self.ids = ids
        self.frame = pd.read_parquet(path)

    def len(self):
        return len(self.ids)

    def get(self, idx):
        event = pd.merge(self.frame.loc[self.ids[idx]], self.frame, on="sensor")
        x = torch.tensor(event.values, dtype=torch.float32)
        return Data(x=x, edge_index=knn_graph(x, k=8))


class HeldGraphs(Dataset):
    def __init__(self, graphs):
        super().__init__()
        self.graphs = list(graphs)

    def len(self):
        return len(self.graphs)

    def get(self, idx):
        return self.graphs[idx]


class Molecules(InMemoryDataset):
    def __init__(self, root):
        super().__init__(root)
        self.data, self.slices = torch.load(self.processed_paths[0])
"""

RUNNER = """
from torch_geometric.loader import DataLoader
from graphs import {dataset}
from trainers import RegressionTrainer, Summary


class Runner:
    def __init__(self, model, optimizer, device):
        self.trainer = RegressionTrainer(model, optimizer, device)

    def run(self, parts):
        for part in parts:
            dataset = {dataset}(part)
            train_loader = DataLoader(dataset[:3000], batch_size=32)
            self.trainer.train(train_loader)


class Report:
    def __init__(self, path):
        self.trainer = Summary(path)

    def run(self, parts):
        for part in parts:
            self.trainer.train(DataLoader({dataset}(part), batch_size=32))
"""

MAIN = """
import torch
from runner import Runner

model = torch.nn.Linear(8, 1)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
Runner(model, torch.optim.Adam(model.parameters()), device).run([1, 2, 3])
"""


def _graph_project(tmp_path, monkeypatch, rule: str, dataset: str = "EventDataset", main: str = MAIN) -> list:
    files = {"trainers.py": TRAINERS, "graphs.py": GRAPHS, "runner.py": RUNNER.format(dataset=dataset), "main.py": main}
    return project(tmp_path, monkeypatch, files, rule)


@pytest.mark.parametrize("rule", ["TL201", "TL202"])
def test_graph_loader_over_graphs_built_per_item(tmp_path, monkeypatch, rule):
    """Only `Runner`'s loader: `Report` hands its loader to `Summary.train`, which never
    passes over it (its `self.trainer` is another class)."""
    assert _graph_project(tmp_path, monkeypatch, rule) == [("runner.py", 14)]


@pytest.mark.parametrize("dataset", ["HeldGraphs", "Molecules"])
def test_graph_loader_over_graphs_in_memory_has_no_worker_finding(tmp_path, monkeypatch, dataset):
    assert _graph_project(tmp_path, monkeypatch, "TL201", dataset) == []


def test_moved_elsewhere_in_a_program_without_cuda_is_not_pinned(tmp_path, monkeypatch):
    main = MAIN.replace('torch.device("cuda" if torch.cuda.is_available() else "cpu")', '"cpu"')
    assert _graph_project(tmp_path, monkeypatch, "TL202", main=main) == []


DDI_DATA = """
from torch.utils.data import Dataset, DataLoader


class PairDataset(Dataset):
    def __init__(self, pairs):
        self.pairs = pairs

    def __len__(self):
        return len(self.pairs)

    def __getitem__(self, index):
        return self.pairs[index]

    def collate_fn(self, batch):
        return build_graphs(batch)


class PairLoader(DataLoader):
    def __init__(self, data, **kwargs):
        super().__init__({first}, collate_fn=data.collate_fn, **kwargs)
"""

DDI_TRAIN = """
import torch
from data import PairDataset, PairLoader

train_loader = PairLoader(PairDataset(read_pairs("train.csv")), batch_size=1024, shuffle=True)
model = torch.nn.Linear(8, 1).cuda()
optimizer = torch.optim.Adam(model.parameters())
for epoch in range(100):
    for batch in train_loader:
        loss = model(batch.to("cuda")).sum()
        loss.backward()
        optimizer.step()
"""


@pytest.mark.parametrize("rule", ["TL201", "TL202"])
def test_loader_subclass_naming_its_dataset_otherwise(tmp_path, monkeypatch, rule):
    files = {"data.py": DDI_DATA.format(first="data"), "train.py": DDI_TRAIN}
    assert project(tmp_path, monkeypatch, files, rule) == [("train.py", 5)]


def test_loader_subclass_handing_its_base_something_else_first_is_not_a_loader(tmp_path, monkeypatch):
    """`super().__init__(data.pairs, ...)`: what the class is given is not what its base gets."""
    files = {"data.py": DDI_DATA.format(first="data.pairs"), "train.py": DDI_TRAIN}
    assert project(tmp_path, monkeypatch, files, "TL201") == []


HELPER = """
import torch


def train(model, loader, device):
    optimizer = torch.optim.Adam(model.parameters())
    for epoch in range(10):
        for x, y in loader:
            loss = model(x.to(device)).sum()
            loss.backward()
            optimizer.step()
    torch.cuda.empty_cache()
"""

SCRIPT = """
import torch
from torch.utils.data import DataLoader
from helper import train

{device} = torch.device({choice})
loader = DataLoader(read_images("train"), batch_size=64)
train(torch.nn.Linear(8, 1), loader, {device})
"""


@pytest.mark.parametrize("device", ["DEVICE", "device"])
def test_a_program_that_picks_the_cpu_pins_nothing_it_hands_to_a_move(tmp_path, monkeypatch, device):
    """The move is in another module of a project that uses CUDA, but this program hands it
    the CPU (a device constant in capitals is a device name too)."""
    files = {"helper.py": HELPER, "train.py": SCRIPT.format(device=device, choice='"cpu"')}
    assert project(tmp_path, monkeypatch, files, "TL202") == []


def test_a_program_that_picks_cuda_pins_what_it_hands_to_a_move(tmp_path, monkeypatch):
    files = {"helper.py": HELPER, "train.py": SCRIPT.format(device="DEVICE", choice='"cuda" if torch.cuda.is_available() else "cpu"')}
    assert project(tmp_path, monkeypatch, files, "TL202") == [("train.py", 7)]


ACCUMULATED = """
import numpy as np
import torch
from torch_geometric.data import Dataset


class Events(Dataset):
    def __init__(self, batch_ids):
        super().__init__()
        self.x = None
        for batch_id in batch_ids:
            part = np.load(f"batch_{{batch_id}}.npy"{lazy})
            self.x = part if self.x is None else np.append(self.x, part, axis=0)
        self.x = torch.from_numpy(self.x)
        self.x = self.x.float()

    def len(self):
        return len(self.x)

    def get(self, idx):
        return self.x[idx]
"""


@pytest.mark.parametrize("lazy, reported", [("", False), (", mmap_mode='r'", True)])
def test_arrays_accumulated_from_themselves_are_in_memory(tmp_path, monkeypatch, lazy, reported):
    """`self.x = self.x.float()`: the assignments that do not read the attribute decide;
    a memory-mapped part is read per item, an array loaded whole is not."""
    runner = RUNNER.replace("from graphs import {dataset}", "from events import {dataset}")
    files = {"trainers.py": TRAINERS, "events.py": ACCUMULATED.format(lazy=lazy), "runner.py": runner.format(dataset="Events"), "main.py": MAIN}
    assert project(tmp_path, monkeypatch, files, "TL201") == ([("runner.py", 14)] if reported else [])
