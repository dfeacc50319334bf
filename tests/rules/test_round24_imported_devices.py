"""Round 24 (TL202): a script that moves its batches to a device another project module picks
(`x.to(config.DEVICE)` after `from internal_files import config`, whose `DEVICE =
torch.device("cuda" if torch.cuda.is_available() else "cpu")`) runs on CUDA though it never
names it (`passed_values.device_from_project_module`). A configuration module that picks only
the CPU, or a device the script makes itself without naming CUDA, stays silent."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

CONFIG = """
import torch

DEVICE = {device}
BATCH_SIZE = 16
"""

TRAIN = """
import torch
from torch.utils.data import DataLoader
from internal_files import config

train_loader = DataLoader(train_ds, shuffle=True, batch_size=config.BATCH_SIZE, num_workers=4, persistent_workers=True)
for epoch in range(100):
    for x, y in train_loader:
        x, y = x.to({target}), y.to({target})
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""


@pytest.mark.parametrize("device, target, reported", [
    ('torch.device("cuda" if torch.cuda.is_available() else "cpu")', "config.DEVICE", True),
    ('torch.device("cpu")', "config.DEVICE", False),
    ('torch.device("cuda" if torch.cuda.is_available() else "cpu")', "torch.device('cpu')", False),
])
def test_a_device_a_project_module_picks(tmp_path, monkeypatch, device, target, reported):
    files = {"internal_files/__init__.py": "", "internal_files/config.py": CONFIG.format(device=device), "train.py": TRAIN.format(target=target)}
    assert project_findings(tmp_path, monkeypatch, files, "TL202") == ({("train.py", "TL202", 6)} if reported else set())
