"""Round 25 (TL106): a loader factory's `pin_memory` parameter given a test that holds where
CUDA runs (`pin_memory=True if device.type == "cuda" else False`, `device.type == "cuda"`)
pins the batches the training loop moves to that device (`project._pins`, `_true_value`).
A test that holds on the CPU does not."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

DATA = """
from torch.utils.data import DataLoader


def create_dataloaders(train_set, batch_size=128, num_workers=4, pin_memory=False):
    return DataLoader(train_set, batch_size=batch_size, shuffle=True, num_workers=num_workers, pin_memory=pin_memory, persistent_workers=True)
"""

TRAIN = """
import torch
from data import create_dataloaders


def fit(model, optimizer, training_data, device):
    for epoch in range(10):
        for audio, labels in training_data:
            audio = audio.to(device)
            loss = torch.nn.functional.cross_entropy(model(audio), labels.to(device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


def main(config):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train_loader = create_dataloaders(config.train, num_workers=2, pin_memory={pin})
    model = torch.nn.Linear(3, 4).to(device)
    fit(model, torch.optim.SGD(model.parameters(), lr=0.1), train_loader, device)
"""


@pytest.mark.parametrize("pin, reported", [
    ('True if device.type == "cuda" else False', True),
    ('device.type == "cuda"', True),
    ("torch.cuda.is_available()", True),
    ('device.type == "cpu"', False),
    ("config.pin", False),
])
def test_pinned_where_cuda_runs(tmp_path, monkeypatch, pin, reported):
    found = project_findings(tmp_path, monkeypatch, {"data.py": DATA, "train.py": TRAIN.format(pin=pin)}, "TL106")
    assert {line for path, _, line in found if path == "train.py"} == ({9, 10} if reported else set())
