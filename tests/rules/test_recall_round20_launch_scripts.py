"""Round 20 (batch 28's segmentation script): what the rest of the project does decides.
A shell script that runs the training script with `--num_workers 2` gives the loader
workers although the option defaults to 0, so re-spawning them every epoch costs (TL203);
and a progress bar bound to a name before the loop (`batch_iter = tqdm(loader)`) iterates
the loader's batches as they are, so moving them counts (TL202, TL106)."""

from __future__ import annotations

import textwrap

import pytest
from conftest import lines
from test_recall_round3_flow import project

pytestmark = pytest.mark.stable_only

TRAIN = """
import argparse
import torch
from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument("--num_workers", type=int, default=0)
args = parser.parse_args()
device = torch.device("cuda")
loader = DataLoader(dataset, batch_size=8, num_workers=args.num_workers, pin_memory=True)
for epoch in range(20):
    for x, y in loader:
        loss = model(x.to(device, non_blocking=True)).sum()
        loss.backward()
        optimizer.step()
"""


@pytest.mark.parametrize("script, reported", [
    ("python train.py --epochs 20 --num_workers 2 \\\n  --lr 1e-4\n", [("train.py", 10)]),
    ("python3 train.py --lr 1e-4 \\\n  --num_workers=4\n", [("train.py", 10)]),
    ("python train.py --num_workers 0\n", []),
    ("python train.py --num_workers $WORKERS\n", []),  # unknown: it may be 0
    ("echo --num_workers 2\n", []),  # no Python program is run
    (None, []),
])
def test_a_shell_script_that_passes_workers(tmp_path, monkeypatch, script, reported):
    files = {"train.py": TRAIN}
    if script is not None:
        files["scripts/run.sh"] = script
    assert project(tmp_path, monkeypatch, files, "TL203") == reported


WRAPPED = """
import torch
from torch.utils.data import DataLoader
from tqdm import tqdm

device = torch.device("cuda")


def main():
    loader = DataLoader(ds, batch_size=8, num_workers=2, persistent_workers=True{pin})
    for epoch in range(10):
        batch_iter = {wrapper}
        for img, mask in batch_iter:
            img, mask = img.to(device), mask.to(device)
            model(img, mask).backward()
            optimizer.step()
"""


@pytest.mark.parametrize("wrapper, reported", [
    ("tqdm(loader, leave=False)", [10]),
    ("tqdm(other_loader)", []),  # another iterable's items
    ("prefetcher(loader)", []),  # a project object of its own, not a known wrapper
])
def test_a_progress_bar_bound_to_a_name_iterates_the_batches(wrapper, reported):
    assert lines(WRAPPED.format(pin="", wrapper=wrapper), "TL202") == reported


def test_blocking_moves_of_a_pinned_loader_through_a_progress_bar():
    code = WRAPPED.format(pin=", pin_memory=True", wrapper="tqdm(loader)")
    assert lines(code, "TL106") == [14, 14]
