"""Round 24 (TL102): a range made on the host every step and copied to the device is reported
through reshaping functions (`torch.tile(input=torch.arange(n), dims=(b, 1))` moved later;
`semantics.devices.same_place_source`), and so is `torch.tensor(range(n))`, which
`torch.arange(n, device=...)` fills on the device (reported without a fix: `device=` alone would
still copy the Python numbers). Other data, ranges made once and reshaped batches stay silent."""

from __future__ import annotations

import pytest
from conftest import lint

pytestmark = pytest.mark.stable_only

RULE = "TL102"

FORWARD = """
import torch
from torch import nn

class Embedding(nn.Module):
    def __init__(self, n, d, max_len):
        super().__init__()
        self.items = nn.Embedding(n, d)
        self.positions = nn.Embedding(max_len, d)

    def forward(self, x):
        batch_size, seq_len = x.shape[0], x.shape[1]
        {line}
        positions = positions.to(x.device)
        return self.items(x) + self.positions(positions)

model = Embedding(10, 8, 5).cuda()
optimizer = torch.optim.Adam(model.parameters())
for epoch in range(10):
    for x in loader:
        model(x.cuda()).sum().backward()
        optimizer.step()
"""


@pytest.mark.parametrize("line, reported, fixable", [
    ("positions = torch.tile(input=torch.arange(seq_len), dims=(batch_size, 1))", True, False),
    ("positions = torch.arange(seq_len).tile(batch_size, 1)", True, False),
    ("positions = torch.unsqueeze(torch.arange(seq_len), 0).repeat(batch_size, 1)", True, False),
    ("positions = torch.tensor(range(seq_len)).unsqueeze(0)", True, False),
    ("positions = torch.tensor(list(range(seq_len)))", True, False),
    # values that are not a range, a reshaped batch, and a range given a device
    ("positions = torch.tensor([0, 1, 2, 3])", False, False),
    ("positions = torch.tile(input=x, dims=(2, 1))", False, False),
    ("positions = torch.tile(torch.arange(seq_len, device=x.device), (batch_size, 1))", False, False),
])
def test_ranges_made_on_the_host_every_forward(line, reported, fixable):
    findings = lint(FORWARD.format(line=line), [RULE])
    assert [finding.line for finding in findings] == ([13] if reported else [])
    assert all((finding.fix is not None) == fixable for finding in findings)


def test_a_range_moved_at_once_is_reported_with_the_remedy():
    code = """
    import torch
    for x in loader:
        index = torch.tensor(range(x.shape[0])).cuda()
        model(x.cuda(), index).sum().backward()
        optimizer.step()
    """
    [finding] = lint(code, [RULE])
    assert finding.line == 4 and finding.fix is None
    assert "torch.arange(..., device=...)" in finding.message


def test_a_range_made_once_is_silent():
    code = """
    import torch
    index = torch.tensor(range(64)).cuda()
    for x in loader:
        model(x.cuda(), index).sum().backward()
        optimizer.step()
    """
    assert lint(code, [RULE]) == []
