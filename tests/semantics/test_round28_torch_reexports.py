"""Round 28: a name imported from a project module that imports it from torch (`from
data.dataset import DataLoader`, where `data/dataset.py` does `from torch.utils.data import
DataLoader`) is torch's. Hard negative: a project module that defines its own `DataLoader`."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

TRAIN = """
import torch
from data.dataset import BufferDataset, DataLoader

loader = DataLoader(BufferDataset(), batch_size=16, shuffle=True, num_workers=4)
for epoch in range(100):
    for x in loader:
        loss = model(x.cuda()).mean()
        loss.backward()
        optimizer.step()
"""


@pytest.mark.parametrize("dataset, reported", [
    ("from torch.utils.data import Dataset, DataLoader\n\nclass BufferDataset(Dataset):\n    pass\n", {("train.py", "TL203", 5)}),
    ("class DataLoader:\n    def __init__(self, *args, **kwargs):\n        pass\n\nclass BufferDataset:\n    pass\n", set()),
])
def test_a_torch_name_a_project_module_imports_is_torchs(tmp_path, monkeypatch, dataset, reported):
    files = {"data/__init__.py": "", "data/dataset.py": dataset, "train.py": TRAIN}
    assert project_findings(tmp_path, monkeypatch, files, "TL203") == reported
