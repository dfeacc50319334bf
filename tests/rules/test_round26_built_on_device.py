"""Round 26: a project class that builds its tensors or layers on a device it picks
(`nn.Linear(a, b, device=device)`, `torch.tensor(adj, device=self.device)` with `device =
"cuda" if ... else "cpu"`) places work on that device, so a notebook that builds it and never
names a device itself still runs its training loop there (TL101). A class that only builds on
the CPU or on the device of a tensor it is given places nothing. A dataset that only indexes
what it holds is in memory though it hands `device=self.device` on (a setting, not data: no
TL201), and one that decodes each item and moves it to the device is reported without a
fix (a forked worker cannot use CUDA)."""

from __future__ import annotations

import pytest
from conftest import lint, project_findings
from test_recall_round10_notebook_callers import notebook

pytestmark = pytest.mark.stable_only

MODELS = """
import torch
from torch import nn


class Forecaster(nn.Module):
    def __init__(self, adj, device=None):
        super().__init__()
        if device is None:
            device = "cuda" if torch.cuda.is_available() else "cpu"
        self.adj = torch.tensor(adj, device={adj_device})
        self.head = nn.Linear(4, 1, device={head_device})

    def forward(self, x):
        return self.head(self.adj @ x)
"""

LOOP = (
    "import torch\n"
    "from models import Forecaster\n"
    "model = Forecaster(adj)\n"
    "optim = torch.optim.AdamW(model.parameters())\n"
    "losses = []\n"
    "for X, y in train_loader:\n"
    "    loss = torch.nn.functional.mse_loss(model(X), y)\n"
    "    losses.append(loss.item())\n"
    "    optim.zero_grad()\n"
    "    loss.backward()\n"
    "    optim.step()\n"
)


@pytest.mark.parametrize(
    "adj_device, head_device, expected",
    [
        ("device", "device", {8}),
        ('"cpu"', '"cpu"', set()),
        ("x.device", '"cpu"', set()),
    ],
)
def test_a_notebook_building_a_class_that_picks_the_device(tmp_path, monkeypatch, adj_device, head_device, expected):
    files = {"models.py": MODELS.format(adj_device=adj_device, head_device=head_device), "lesson.ipynb": notebook([LOOP])}
    found = project_findings(tmp_path, monkeypatch, files, "TL101")
    assert {line for path, code, line in found if path == "lesson.ipynb"} == expected


DATASET = """
import torch
from torch.utils.data import DataLoader, Dataset


class Windows(Dataset):
    def __init__(self, path):
        self.device = "cuda"
        self.windows = torch.load(path)

    def __getitem__(self, i):
        return {item}

    def __len__(self):
        return 100


def train(model, optimizer):
    loader = DataLoader(Windows("data.pt"), batch_size=16)
    for epoch in range(10):
        for x in loader:
            loss = model(x.cuda()).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
"""


@pytest.mark.parametrize(
    "item, found",
    [
        ("torch.tensor(self.windows[i], dtype=torch.float32, device=self.device)", []),
        ('torch.load(f"item{i}.pt").to(self.device)', [(19, False)]),
    ],
)
def test_items_built_on_the_device(item, found):
    findings = lint(DATASET.format(item=item), ["TL201"])
    assert [(finding.line, finding.fix is not None) for finding in findings] == found
