"""Round 27: a project function that places nothing on a device, called with host tensors
only (`iou, f1 = evaluate(pred.cpu(), mask.cpu())`), returns host tensors: their `.item()`
waits for no device. Hard negatives: the same function given device tensors, and one that
moves its inputs to the GPU."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

UTILS = """
import torch


def evaluate(preds, targets):
    {body}
    tp = (preds.argmax(1) == targets).sum()
    return tp / len(targets), tp
"""

TRAIN = """
import torch
from utils import evaluate

device = torch.device("cuda")


def train(model, loader, optimizer):
    for epoch in range(10):
        for img, mask in loader:
            img, mask = img.to(device), mask.to(device)
            pred = model(img)
            loss = (pred - mask).abs().mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            pred, mask = pred.detach(){move}, mask{move}
            acc, tp = evaluate(pred, mask)
            history.append(acc.item())
"""


@pytest.mark.parametrize("body, move, reported", [
    ("pass", ".cpu()", {("train.py", "TL101", 17)}),
    ("pass", "", {("train.py", "TL101", 19)}),  # device tensors in, device tensors out
    ("preds = preds.cuda()", ".cpu()", {("train.py", "TL101", 17), ("train.py", "TL101", 19)}),
])
def test_a_project_function_run_on_host_tensors_returns_host_tensors(tmp_path, monkeypatch, body, move, reported):
    files = {"utils.py": UTILS.format(body=body), "train.py": TRAIN.format(move=move)}
    assert project_findings(tmp_path, monkeypatch, files, "TL101") == reported
