"""Round 17 (TL203, false findings of batch 24): a worker count that comes from a
command-line option whose default is `0` starts no workers unless the user asks, also when a
caller hands the option to a loader factory's parameter (`num_workers=args.workers`) or the
object keeps the parsed options (`self.args.workers`). TL201's policy is unchanged: an
option is the user's choice, not reported."""

from __future__ import annotations

import pytest
from conftest import project_findings

DATA = """
import torch
from torch.utils.data import DataLoader


def get_loaders(dataset, batch_size, num_workers=1):
    return DataLoader(dataset, batch_size=batch_size, num_workers=num_workers)


class Module:
    def __init__(self, args, dataset):
        self.args = args
        self.loader = DataLoader(dataset, batch_size=8, num_workers=self.args.workers)

    def fit(self, model, optimizer):
        for epoch in range(10):
            for x in self.loader:
                loss = model(x.cuda()).mean()
                loss.backward()
                optimizer.step()
"""

MAIN = """
import argparse
import torch
from data import get_loaders, Module

parser = argparse.ArgumentParser()
parser.add_argument("-j", "--workers", type=int, default={default})
args = parser.parse_args()
loader = get_loaders(dataset, 64, num_workers=args.workers)
module = Module(args, dataset)
module.fit(model, optimizer)
model = model.cuda()
for epoch in range(10):
    for x, y in loader:
        loss = model(x.cuda()).mean()
        loss.backward()
        optimizer.step()
"""


def findings(tmp_path, monkeypatch, default):
    files = {"data.py": DATA, "main.py": MAIN.replace("{default}", default)}
    return sorted((name, code, line) for name, code, line in project_findings(tmp_path, monkeypatch, files, "TL201,TL203") if name == "data.py")


def test_an_option_defaulting_to_no_workers_needs_no_persistent_workers(tmp_path, monkeypatch):
    assert findings(tmp_path, monkeypatch, "0") == []


@pytest.mark.parametrize("default", ["4", "None"])
def test_an_option_with_workers_or_no_constant_default_is_reported(tmp_path, monkeypatch, default):
    assert findings(tmp_path, monkeypatch, default) == [("data.py", "TL203", 7), ("data.py", "TL203", 13)]
