"""Round 13: one function that trains or evaluates by a flag (`if backprop: model.train()
else: model.eval()`, the backward under `if backprop:`) records graphs when called to
evaluate (`backprop=False` every few epochs): its `.eval()` and its gradient computations never
run in the same call, so the backward does not silence TL402. Silent when the function sets the
grad mode from the flag (`with torch.set_grad_enabled(backprop):`), when no call evaluates,
and when the flag is rebound inside the function."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

TRAIN = """
import torch
import torch.nn.functional as F


def run_epoch(model, optimizer, loader, device, backprop=True):
    if backprop:
        model.train()
    else:
        model.eval()
    total = 0.0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = F.mse_loss(model(x), y)
        if backprop:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        total += loss.detach()
    return total


def main():
    device = torch.device("cuda")
    model = torch.nn.Linear(4, 2).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(100):
        run_epoch(model, opt, train_loader, device)
        if epoch % 5 == 0:
            run_epoch(model, opt, val_loader, device, backprop=False)


if __name__ == "__main__":
    main()
"""


def test_evaluation_through_a_training_function_flag(tmp_path, monkeypatch):
    assert project_findings(tmp_path, monkeypatch, {"train.py": TRAIN}, "TL402") == {("train.py", "TL402", 10)}


@pytest.mark.parametrize(
    "change",
    [
        # the grad mode follows the flag
        ("    for x, y in loader:\n        x, y", "    for x, y in loader:\n      with torch.set_grad_enabled(backprop):\n        x, y"),
        # no call evaluates: the `else` never runs
        ("device, backprop=False)", "device, backprop=True)"),
        # the flag is rebound: both may run in one call
        ("    total = 0.0\n", "    total = 0.0\n    backprop = optimizer is not None\n"),
        # the backward runs whatever the flag
        ("        if backprop:\n            optimizer.zero_grad()", "        if True:\n            optimizer.zero_grad()"),
    ],
)
def test_hard_negatives(tmp_path, monkeypatch, change):
    code = TRAIN.replace(*change)
    assert code != TRAIN
    assert project_findings(tmp_path, monkeypatch, {"train.py": code}, "TL402") == set()


def test_a_flag_set_to_the_evaluating_value_keeps_them_apart(tmp_path, monkeypatch):
    """`backprop = False` for a baseline that has nothing to train keeps an evaluating call
    evaluating; only another value could make the backward run after `.eval()`."""
    code = TRAIN.replace("    total = 0.0\n", "    total = 0.0\n    if model is None:\n        backprop = False\n")
    assert project_findings(tmp_path, monkeypatch, {"train.py": code}, "TL402") == {("train.py", "TL402", 10)}
    flipped = TRAIN.replace("    total = 0.0\n", "    total = 0.0\n    if model is None:\n        backprop = True\n")
    assert project_findings(tmp_path, monkeypatch, {"train.py": flipped}, "TL402") == set()
