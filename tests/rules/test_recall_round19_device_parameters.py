"""Round 19 (TL202, batch 27's recommender): a training function of a module that names no
CUDA takes its device as a parameter (`def train_bpr(model, df, device="cpu")`), and the
script that calls it passes the device it picked (`device="cuda" if ... else "cpu"`): the
batches its loop moves go to CUDA (`passed_values.device_given_by_callers`). Callers that
pass the CPU, or leave the CPU default, keep it silent."""

from __future__ import annotations

import pytest

from test_recall_round2 import project

pytestmark = pytest.mark.stable_only

TRAIN = """
import torch
from torch.utils.data import DataLoader


def train_bpr(model, triples, epochs=5, device="cpu"):
    loader = DataLoader(triples, batch_size=512, shuffle=True)
    optimizer = torch.optim.Adam(model.parameters())
    for epoch in range(epochs):
        for u, p, n in loader:
            u, p, n = u.to(device), p.to(device), n.to(device)
            loss = (model(u, p) - model(u, n)).sigmoid().log().mean()
            loss.backward()
            optimizer.step()
"""

MAIN = """
import torch
from train import train_bpr

device = "cuda" if torch.cuda.is_available() else "cpu"
model = build_model().to(device)
train_bpr(model, load_triples(), {passed})
"""


@pytest.mark.parametrize("passed, reported", [("device=device", True), ("10, device", True), ('device="cpu"', False), ("epochs=3", False)])
def test_a_device_the_callers_pass(tmp_path, monkeypatch, passed, reported):
    files = {"train.py": TRAIN, "main.py": MAIN.format(passed=passed)}
    assert project(tmp_path, monkeypatch, files, "TL202") == ([("train.py", 7)] if reported else [])
