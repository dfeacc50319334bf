"""Round 28: a project function that returns one of its parameters as given, or `None` (`loss
= _safe_loss(loss)`, dropping non-finite losses), gives back that argument: a device tensor in,
a device tensor out, whose test waits. Hard negatives: a helper that returns something
computed from the argument, and one that binds the parameter again."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

UTILS = """
import torch


def safe_loss(loss):
    if torch.isnan(loss).any():
        return None
    {body}
"""

EVALUATE = """
import torch
from utils import safe_loss

device = torch.device("cuda")


def evaluate(model, loader):
    total = 0.0
    with torch.no_grad():
        for x, y in loader:
            loss = safe_loss(torch.nn.functional.mse_loss(model(x.to(device)), y.to(device)))
            if loss is None:
                continue
            if loss > 10.0:
                total += 1
    return total


for epoch in range(10):
    for x, y in train_loader:
        out = model(x.to(device)).sum()
        out.backward()
        optimizer.step()
    evaluate(model, val_loader)
"""


@pytest.mark.parametrize("body, reported", [
    ("return loss", True),
    ("return loss.detach().double()", False),
    ("loss = loss.clamp(max=1e4)\n    return loss", False),
])
def test_a_helper_that_returns_its_argument_gives_it_back(tmp_path, monkeypatch, body, reported):
    files = {"utils.py": UTILS.format(body=body), "evaluate.py": EVALUATE}
    found = project_findings(tmp_path, monkeypatch, files, "TL103")
    assert (("evaluate.py", "TL103", 15) in found) is reported
