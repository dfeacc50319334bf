"""Round 28: a function that its own module calls once (a standalone evaluation in its
`__main__` block) and a training script calls every epoch runs as often as its most frequent
caller: its per-batch reads wait every epoch. Hard negative: a training script that also
evaluates only once, after its epochs."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

EVALUATE = """
import torch


def evaluate(model, loader, device):
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            correct += (model(x).argmax(1) == y).sum().item()
    return correct


if __name__ == "__main__":
    device = torch.device("cuda")
    model = torch.load("model.pt").to(device)
    print(evaluate(model, build_loader("test"), device))
"""

TRAIN = """
import torch
from evaluate import evaluate

device = torch.device("cuda")
model = build_model().to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(10):
    for x, y in train_loader:
        loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
{indent}acc = evaluate(model, val_loader, device)
"""


@pytest.mark.parametrize("indent, reported", [
    ("    ", {("evaluate.py", "TL101", 10)}),
    ("", set()),
])
def test_a_function_runs_as_often_as_its_most_frequent_caller(tmp_path, monkeypatch, indent, reported):
    files = {"evaluate.py": EVALUATE, "train.py": TRAIN.format(indent=indent)}
    assert project_findings(tmp_path, monkeypatch, files, "TL101") == reported
