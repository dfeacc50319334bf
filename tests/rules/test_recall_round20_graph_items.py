"""Round 20 (TL201, batch 27's protein graphs): a PyTorch Geometric dataset that defines its
own `__getitem__` (handing each index to its `get`, which loads an `.npz` archive and builds
the graph) builds each graph when the loader asks for it, as one that keeps the dataset's
indexing does; one that keeps the graphs it built in a cache of its own (`if idx in
self.cache: return self.cache[idx]`) builds nothing after the first epoch, and worker
processes would each fill a copy of that cache and lose it."""

from __future__ import annotations

import pytest
from test_recall_round19_graph_loaders import _graph_project

pytestmark = pytest.mark.stable_only

OWN_INDEXING = """

class Archives(Dataset):
    def __init__(self, files):
        super().__init__()
        self.files = files
        self.cache = {{}}

    def len(self):
        return len(self.files)

    def get(self, idx):
        {lookup}
        arrays = np.load(self.files[idx])
        graph = Data(x=torch.tensor(arrays["x"]), pos=torch.tensor(arrays["pos"]))
        {store}
        return graph

    def __getitem__(self, idx):
        return self.get(idx)
"""


@pytest.mark.parametrize("lookup, store, reported", [
    ("", "", [("runner.py", 14)]),
    ("if idx in self.cache:\n            return self.cache[idx]", "self.cache[idx] = graph", []),
    # a lookup in one attribute and a store in another is no cache
    ("if idx in self.files:\n            return None", "self.cache[idx] = graph", [("runner.py", 14)]),
])
def test_own_indexing_of_a_graph_dataset(tmp_path, monkeypatch, lookup, store, reported):
    import test_recall_round19_graph_loaders as graphs

    monkeypatch.setattr(graphs, "GRAPHS", "import numpy as np\n" + graphs.GRAPHS + OWN_INDEXING.format(lookup=lookup, store=store))
    assert _graph_project(tmp_path, monkeypatch, "TL201", "Archives") == reported
