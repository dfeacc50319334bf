"""Round 28: a loader that a builder of the script returns, handed to a training function of
another module that draws its batches by hand (`it = iter(loader)` every epoch, then `batch =
next(it)` until `StopIteration`) and moves them to the device, is passed over every epoch:
it needs pinned memory and persistent workers. Hard negatives: one pass drawn before the epoch
loop, and batches that stay on the host."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

MAIN = """
import torch
from torch.utils.data import DataLoader
from trainer import train


def get_loader(dataset, batch_size):
    loader = DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=2)
    return loader


def main(dataset, model):
    loader = get_loader(dataset, 64)
    optimizer = torch.optim.Adam(model.parameters())
    train(loader, model.cuda(), optimizer, 10)
"""

TRAINER = """
import torch


def train(train_loader, model, optimizer, epochs):
    {first}
    for epoch in range(epochs):
        {again}
        while True:
            try:
                batch = next(loader)
            except StopIteration:
                break
            x, y = batch
            x = x{move}
            loss = torch.nn.functional.mse_loss(model(x), y{move})
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
"""


@pytest.mark.parametrize("first, again, move, reported", [
    ("pass", "loader = iter(train_loader)", ".cuda()", {("main.py", "TL202", 8), ("main.py", "TL203", 8)}),
    ("loader = iter(train_loader)", "pass", ".cuda()", set()),
    ("pass", "loader = iter(train_loader)", "", {("main.py", "TL203", 8)}),
])
def test_hand_drawn_passes_of_a_handed_loader(tmp_path, monkeypatch, first, again, move, reported):
    files = {"main.py": MAIN, "trainer.py": TRAINER.format(first=first, again=again, move=move)}
    assert project_findings(tmp_path, monkeypatch, files, "TL202,TL203") == reported
