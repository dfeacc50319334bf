"""Round 14 (TL102): a created tensor is followed to its move through what the host computes
from it. An elementwise computation of created values with number literals (`labels =
(labels.unsqueeze(0) == labels.unsqueeze(1)).float()`, `weights = 1 /
torch.log2(position.float())`) is a new host tensor made from them; an in-place write of other
values (`torch.zeros(b, 10).scatter_(1, targets, 1)`) returns its receiver where it is; and a
join of host factories (`torch.cat([torch.arange(b) for _ in range(k)])`) assigned to a name
is followed like a factory. Not when the computation reads another value (which may be on the
device), when the value is read on the host before the move, when it is made on the device,
never moved, made outside the loop that moves it, made once, or in test code."""

from __future__ import annotations

import pytest
from conftest import lint, project_findings

pytestmark = pytest.mark.stable_only

ONE_HOT = """
import torch

model = torch.nn.Linear(10, 10).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(10):
    for inputs, targets in loader:
        targets = torch.zeros(inputs.size(0), 10).scatter_(1, targets.view(-1, 1).long(), 1)
        if use_cuda:
            inputs, targets = inputs.cuda(), targets.cuda(non_blocking=True)
        loss = ((model(inputs) - targets) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
"""

CONTRASTIVE = """
import torch
import torch.nn.functional as F

device = torch.device("cuda")
model = torch.nn.Linear(10, 10).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)


def contrastive_loss(features, batch_size, views):
    labels = torch.cat([torch.arange(batch_size) for _ in range(views)], dim=0)
    labels = (labels.unsqueeze(0) == labels.unsqueeze(1)).float()
    labels = labels.to(device)
    return F.mse_loss(features @ features.T, labels)


for epoch in range(10):
    for images, _ in loader:
        loss = contrastive_loss(model(images.to(device)), 32, 2)
        opt.zero_grad()
        loss.backward()
        opt.step()
"""

DISCOUNTS = """
import torch

model = torch.nn.Linear(10, 10).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(10):
    for inputs, _ in loader:
        hits = model(inputs.cuda())
        for k in (1, 5, 10):
            position = torch.arange(2, 2 + k)
            weights = 1 / torch.log2(position.float())
            gain = (hits[:, :k] * weights.to(hits.device)).sum(1)
        loss = -gain.mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
"""


def _findings(code: str, tmp_path, monkeypatch, name: str = "train.py") -> set:
    return project_findings(tmp_path, monkeypatch, {name: code}, "TL102")


@pytest.mark.parametrize(
    ("code", "line"),
    [(ONE_HOT, 8), (CONTRASTIVE, 11), (DISCOUNTS, 10)],
    ids=["scatter-into-created", "join-then-comparison", "computed-into-new-name"],
)
def test_computed_from_a_created_tensor_then_moved(tmp_path, monkeypatch, code, line):
    assert _findings(code, tmp_path, monkeypatch) == {("train.py", "TL102", line)}


def test_in_place_write_into_a_factory_moved_at_once_has_no_fix():
    code = """
    import torch
    for inputs, targets in loader:
        one_hot = torch.zeros(inputs.size(0), 10).scatter_(1, targets.view(-1, 1), 1).cuda()
        loss = model(inputs.cuda(), one_hot)
        loss.backward()
        opt.step()
    """
    [finding] = lint(code, ["TL102"])
    # On the device the write needs its index there as well: the rewrite is the user's.
    assert finding.line == 4 and finding.fix is None


@pytest.mark.parametrize(
    ("code", "change"),
    [
        # the computation reads another tensor, which may be on the device
        (DISCOUNTS, ("1 / torch.log2(position.float())", "scale / torch.log2(position.float())")),
        (DISCOUNTS, ("1 / torch.log2(position.float())", "torch.clamp(position.float(), min=low)")),
        (CONTRASTIVE, ("labels.unsqueeze(0) == labels.unsqueeze(1)", "labels.unsqueeze(0) == ids.unsqueeze(1)")),
        # a join with a value that is not a host factory
        (CONTRASTIVE, ("[torch.arange(batch_size) for _ in range(views)]", "[ids for _ in range(views)]")),
        # read on the host before the move
        (CONTRASTIVE, ("    labels = labels.to(device)\n", "    table = lookup[labels]\n    labels = labels.to(device)\n")),
        # made on the device
        (ONE_HOT, ("torch.zeros(inputs.size(0), 10)", "torch.zeros(inputs.size(0), 10, device='cuda')")),
        (DISCOUNTS, ("torch.arange(2, 2 + k)", "torch.arange(2, 2 + k, device=hits.device)")),
        # never moved: a host tensor
        (ONE_HOT, ("targets.cuda(non_blocking=True)", "targets")),
        (DISCOUNTS, ("weights.to(hits.device)", "weights")),
        # made outside the loop that moves it: once
        (DISCOUNTS, ("        for k in (1, 5, 10):\n            position = torch.arange(2, 2 + k)\n",
                     "        position = torch.arange(2, 12)\n        for k in (1, 5, 10):\n")),
    ],
)
def test_hard_negatives(tmp_path, monkeypatch, code, change):
    changed = code.replace(*change)
    assert changed != code
    assert _findings(changed, tmp_path, monkeypatch) == set()


def test_code_that_runs_once_or_is_test_code(tmp_path, monkeypatch):
    once = """
    import torch

    position = torch.arange(2, 12)
    weights = 1 / torch.log2(position.float())
    weights = weights.cuda()
    """
    assert _findings(once, tmp_path, monkeypatch) == set()
    (tmp_path / "tests").mkdir()
    assert project_findings(tmp_path, monkeypatch, {"tests/train.py": ONE_HOT}, "TL102") == set()
