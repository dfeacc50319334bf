"""Round 25 (TL202): a loader built right in the call that opens its pass (`data =
cycle(DataLoader(...))` with a generator of the project that yields its parameter's items, or
`iter(DataLoader(...))`), drawn with `next(data)` in a loop that trains and moved to the
device (`loaders._drawn_inline`); and a device name bound to a setting (`device =
args.device`) puts the program where its configuration does (`device_from_configuration`)."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

UTILS = """
import argparse


def cycle(dl):
    while True:
        for data in dl:
            yield data


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default={default})
    parser.add_argument("--iterations", type=int, default=1000)
    return parser.parse_args()
"""

TRAIN = """
import torch
from torch.utils.data import DataLoader
from utils import cycle, get_args


def main(model, dataset, optimizer):
    args = get_args()
    device = args.device
    train_loader = {opener}(DataLoader(dataset, batch_size=64, shuffle=True, num_workers=4, persistent_workers=True))
    for iteration in range(args.iterations):
        x, y = next(train_loader)
        x = x.to(device)
        loss = model(x, y.to(device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""


@pytest.mark.parametrize("opener, default, reported", [
    ("cycle", '"cuda"', True),
    ("iter", '"cuda"', True),
    ("cycle", '"cpu"', False),
    ("list", '"cuda"', False),
])
def test_a_loader_drawn_from_inline(tmp_path, monkeypatch, opener, default, reported):
    files = {"utils.py": UTILS.format(default=default), "train.py": TRAIN.format(opener=opener)}
    found = project_findings(tmp_path, monkeypatch, files, "TL202")
    assert {(path, line) for path, _, line in found} == ({("train.py", 10)} if reported else set())
