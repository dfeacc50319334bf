"""Round 28: a branch that runs only off CUDA (`if logits.device.type == "mps": logits =
logits.cpu()`, the `else` of `if x.is_cuda:`) leaves the kinds of a CUDA run behind it: the
name still holds a device tensor, whose reads wait. Hard negatives: a branch that moves to the
host unconditionally or on a test that is not about the device."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

EVALUATE = """
import torch
device = torch.device("cuda")

def evaluate(model, loader, flag):
    model.eval()
    with torch.no_grad():
        for x, y in loader:
            logits = model(x.to(device))
{branch}
            total = logits.sum().item()

def train(model, loader, val_loader, opt):
    for epoch in range(10):
        for x, y in loader:
            loss = model(x.to(device)).sum()
            loss.backward()
            opt.step()
        evaluate(model, val_loader, True)
"""


@pytest.mark.parametrize("branch, reported", [
    ('            if logits.device.type == "mps":\n                logits = logits.cpu()', True),
    ('            if str(device) == "cpu":\n                logits = logits.cpu()', True),
    ("            if logits.is_cuda:\n                pass\n            else:\n                logits = logits.cpu()", True),
    ("            if not torch.cuda.is_available():\n                logits = logits.cpu()", True),
    ("            logits = logits.cpu()", False),
    ("            if flag:\n                logits = logits.cpu()", False),
    ('            if logits.device.type == "cuda":\n                logits = logits.cpu()', False),
])
def test_host_branch_keeps_cuda_kinds(branch: str, reported: bool) -> None:
    code = EVALUATE.format(branch=branch)
    read = code.splitlines().index("            total = logits.sum().item()") + 1
    assert (read in lines(code, "TL101")) is reported
