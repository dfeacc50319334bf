"""Round 22 (TL101, batch 30 part a: a full-batch GCN whose `for epoch in range(epochs):` runs
forward, backward and an optimizer step, calling `accuracy()` of another module every epoch):
the project index, like the file's own analysis, takes a loop whose own iteration runs a
backward pass for a step loop whatever it is named, so a helper of another module it calls
runs every training step. An epoch loop whose backward pass is in a nested loop over batches
stays an epoch loop: a helper called after that inner loop runs once per epoch."""

from __future__ import annotations

import pytest
from conftest import project_findings

UTILS = """
import torch

def accuracy(output, label):
    correct = (output.argmax(1) == label).float().sum()
    return 100 * correct.item() / len(label)
"""

FULL_BATCH = """
import torch
from utils import accuracy

device = "cuda" if torch.cuda.is_available() else "cpu"
model = torch.nn.Linear(16, 4).to(device)
optimizer = torch.optim.Adam(model.parameters())
X, y = X.to(device), y.to(device)
for epoch in range(200):
    optimizer.zero_grad()
    output = model(X)
    loss = torch.nn.functional.cross_entropy(output, y)
    acc = accuracy(output, y)
    loss.backward()
    optimizer.step()
"""

MINI_BATCH = """
import torch
from utils import accuracy

device = "cuda" if torch.cuda.is_available() else "cpu"
model = torch.nn.Linear(16, 4).to(device)
optimizer = torch.optim.Adam(model.parameters())
for epoch in range(200):
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
        loss.backward()
        optimizer.step()
    acc = accuracy(model(X_val.to(device)), y_val.to(device))
"""


@pytest.mark.parametrize("train, reported", [(FULL_BATCH, True), (MINI_BATCH, False)])
def test_helper_of_a_full_batch_epoch_loop(tmp_path, monkeypatch, train, reported):
    found = project_findings(tmp_path, monkeypatch, {"utils.py": UTILS, "train.py": train}, "TL101", marker=".git")
    assert (("utils.py", "TL101", 6) in found) is reported
    assert found <= {("utils.py", "TL101", 6), ("train.py", "TL101", 13)}  # the helper, and the call of a helper that reads back
