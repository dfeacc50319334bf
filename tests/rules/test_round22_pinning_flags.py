"""Round 22 (TL106, batch 29's speaker-verification trainer): a loader module that pins on a
flag named for the GPU (`pin_memory=use_gpu`, `pin_memory=not args.no_cuda`) pins on the CUDA
runs where copies cost, in the project index as in the file itself, so the blocking copies of a
training script that loops over a loader it gets from that module are reported. A flag named
for the CPU, or one whose name says nothing of the device, leaves the loader unknown."""

from __future__ import annotations

import pytest
from conftest import project_findings

LOADERS = """
import torch

def get_loader(config):
    use_gpu = config["use_gpu"]
    train = torch.utils.data.DataLoader(config["train"], batch_size=64, num_workers=4, pin_memory={flag})
    test = torch.utils.data.DataLoader(config["test"], batch_size=1, num_workers=4, pin_memory={flag})
    return train, test
"""

TRAIN = """
import torch
from loaders import get_loader

def train(model, optimizer, train_loader, device):
    for data, targets in train_loader:
        data = data.to(device)
        targets = targets.to(device)
        loss = torch.nn.functional.cross_entropy(model(data), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

def main(config):
    device = torch.device("cuda")
    model = torch.nn.Linear(4, 2).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    train_loader, test_loader = get_loader(config)
    for epoch in range(10):
        train(model, optimizer, train_loader, device)
"""


@pytest.mark.parametrize("flag, reported", [
    ("use_gpu", True),
    ("not config.no_cuda", True),
    ("True", True),
    ("use_cpu", False),
    ("config['pin']", False),
])
def test_loader_pinned_on_a_flag_named_for_the_gpu(tmp_path, monkeypatch, flag, reported):
    found = project_findings(tmp_path, monkeypatch, {"loaders.py": LOADERS.format(flag=flag), "train.py": TRAIN}, "TL106")
    expected = {("train.py", "TL106", 7), ("train.py", "TL106", 8)}
    assert found == (expected if reported else set())
