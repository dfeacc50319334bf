"""Round 24: a branch switched off by a constant test never runs (`if use_cuda and
torch.cuda.device_count() > 1 and False:`, `if 0:`, the `else` of `if True:`), so nothing in it
is reported, whatever the rule (`passed_values.branch_never_taken`)."""

from __future__ import annotations

import pytest
from conftest import lint

LOOP = """
import torch
from torch import nn

model = nn.Linear(8, 8)
if {test}:
    model = nn.DataParallel(model)
{other}
model.cuda()
for x in loader:
    loss = model(x.cuda()).sum()
    loss.backward()
    optimizer.step()
    {branch}
"""


@pytest.mark.parametrize("test, other, reported", [
    ("torch.cuda.device_count() > 1", "", True),
    ("torch.cuda.device_count() > 1 and False", "", False),
    ("False and torch.cuda.device_count() > 1", "", False),
    ("0", "", False),
    ("not True", "", False),
    ("True", "", True),
    ("False", "else:\n    model = nn.DataParallel(model)", True),
])
def test_data_parallel_in_a_constant_branch(test, other, reported):
    found = [finding.line for finding in lint(LOOP.format(test=test, other=other, branch="pass"), ["TL501"])]
    assert bool(found) == reported


@pytest.mark.parametrize("branch, reported", [
    ("if True:\n        print(loss.item())", True),
    ("if False:\n        print(loss.item())", False),
    ("if True:\n        pass\n    else:\n        print(loss.item())", False),
    ("if x.shape[0] > 1:\n        print(loss.item())\n    else:\n        pass", True),
])
def test_a_sync_in_a_constant_branch(branch, reported):
    found = lint(LOOP.format(test="torch.cuda.device_count() > 1", other="", branch=branch), ["TL101"])
    assert bool(found) == reported
