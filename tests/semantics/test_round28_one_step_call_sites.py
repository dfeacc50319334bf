"""Round 28: a call that another module makes on one step of its loop (`if i == len(loader) -
1: val.run(...)`, the loop's counter reached through `pbar = enumerate(loader)` and `pbar =
tqdm(pbar)`) is rare, not a call of every training step. Hard negatives: the same call
unguarded, and a guard on something other than the loop's counter."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

VAL = """
import torch


def run(model, loader):
    correct = []
    with torch.no_grad():
        for x, y in loader:
            correct.append(model(x.cuda()).argmax(1) == y.cuda())
    return torch.cat(correct).float().mean().item()


def main():
    print(run(torch.load("model.pt").cuda(), build_loader()))


if __name__ == "__main__":
    main()
"""

TRAIN = """
import torch
from tqdm import tqdm
import val

for epoch in range(10):
    pbar = enumerate(trainloader)
    pbar = tqdm(pbar, total=len(trainloader))
    for i, (x, y) in pbar:
        loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        loss.backward()
        optimizer.step()
        {guard}
            top1 = val.run(model, testloader)
"""


@pytest.mark.parametrize("guard, reported", [
    ("if i == len(trainloader) - 1:", set()),
    ("if True or i:", {("val.py", "TL101", 10)}),
    ("if rank == 0:", {("val.py", "TL101", 10)}),
])
def test_a_call_on_one_step_of_another_module_is_rare(tmp_path, monkeypatch, guard, reported):
    files = {"val.py": VAL, "train.py": TRAIN.format(guard=guard)}
    found = project_findings(tmp_path, monkeypatch, files, "TL101")
    assert {finding for finding in found if finding[0] == "val.py"} == reported
