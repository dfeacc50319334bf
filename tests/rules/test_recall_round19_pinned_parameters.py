"""Round 19 (TL106, batch 26's U-Net tutorial code): a builder module returns loaders built
with `pin_memory=pin_memory`, its own parameter, and the training script passes it `True` (a
constant `PIN_MEMORY = True` at its top): the batches its training function draws are pinned,
and their blocking `.to(device)` is reported (`FunctionFacts.pinned_by_parameter`). A call
that passes `False`, or leaves a default that is not `True`, proves nothing."""

from __future__ import annotations

import pytest

from test_recall_round2 import project

pytestmark = pytest.mark.stable_only

UTILS = """
from torch.utils.data import DataLoader


def get_loaders(train_set, val_set, batch_size, num_workers=4, pin_memory={default}):
    train_loader = DataLoader(train_set, batch_size=batch_size, num_workers=num_workers, pin_memory=pin_memory, shuffle=True)
    val_loader = DataLoader(val_set, batch_size=batch_size, num_workers=num_workers, pin_memory=pin_memory)
    return train_loader, val_loader
"""

TRAIN = """
import torch
from utils import get_loaders

PIN_MEMORY = {constant}
device = "cuda" if torch.cuda.is_available() else "cpu"


def train_fn(loader, model, optimizer):
    for data, targets in loader:
        data = data.to(device=device)
        loss = model(data).sum()
        loss.backward()
        optimizer.step()


def main():
    model = torch.nn.Linear(8, 1).to(device)
    optimizer = torch.optim.Adam(model.parameters())
    train_loader, val_loader = get_loaders(load("train"), load("val"), 16{passed})
    for epoch in range(10):
        train_fn(train_loader, model, optimizer)


if __name__ == "__main__":
    main()
"""


@pytest.mark.parametrize(
    "default, constant, passed, reported",
    [
        ("False", "True", ", 4, PIN_MEMORY", True),
        ("False", "True", ", pin_memory=True", True),
        ("True", "True", "", True),
        ("False", "False", ", 4, PIN_MEMORY", False),
        ("False", "True", "", False),
        ("True", "True", ", pin_memory=args.pin", False),
        ("True", "True", ", **loader_options", False),  # the options may set it: a default proves nothing
    ],
)
def test_loaders_pinned_by_the_callers_argument(tmp_path, monkeypatch, default, constant, passed, reported):
    files = {"utils.py": UTILS.format(default=default), "train.py": TRAIN.format(constant=constant, passed=passed)}
    assert project(tmp_path, monkeypatch, files, "TL106") == ([("train.py", 11)] if reported else [])
