"""The eighth recall round of issue 25 (lead), TL102: tensors created on the host and moved
by other spellings of a move. A concatenation of host factories moved as one
(`torch.cat((torch.ones(n), torch.zeros(n))).cuda()`), a move to where another tensor is
(`z.type_as(imgs)`, the device-agnostic idiom of Lightning examples; `.to(t)` for a tensor
known to be on the device), and the hard negatives: a factory already given `device=`, a
concatenation with a tensor that may be on the device, a move to a host tensor."""

from __future__ import annotations

import pytest

from conftest import lint

pytestmark = pytest.mark.stable_only

LOOP = """
import torch
import torch.nn as nn

device = torch.device("cuda")
model = nn.Linear(4, 4).to(device)
opt = torch.optim.Adam(model.parameters())
for step in range(1000):
    x = torch.randn(8, 4, device=device)
    host = torch.randn(8, 4)
    {line}
    loss = (model(x) + value).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


def reported(line: str) -> list:
    return [(finding.line, finding.fix is not None) for finding in lint(LOOP.format(line=line), "TL102")]


@pytest.mark.parametrize(
    "line",
    [
        "value = torch.cat((torch.ones(1, 8), torch.zeros(1, 8)), 1).cuda()",
        "value = torch.stack([torch.arange(8).float() for _ in range(8)]).to(device)",
        "value = torch.randn(8, 4).type_as(x)",
        "value = torch.linspace(0, 1, 8).expand(8, 8).to(x)",
        "value = torch.zeros(8, 4); value = value.type_as(x)",
    ],
)
def test_a_host_creation_moved_by_another_spelling_is_reported_without_a_fix(line):
    """No fix: the concatenation is the user's to rewrite, and a move to another tensor also
    takes its dtype."""
    assert reported(line) == [(11, False)]


@pytest.mark.parametrize(
    "line",
    [
        "value = torch.arange(8, device=x.device).type_as(x)",  # made on the device: a dtype cast
        "value = torch.cat((torch.ones(8, 4), x)).cuda()[:8]",  # joined with a device tensor
        "value = torch.randn(8, 4).type_as(host) + x",  # to where a host tensor is
        "value = torch.randn(8, 4).to(host) + x",
        "value = x.new_zeros(8, 4).type_as(x)",
    ],
)
def test_no_finding_where_nothing_is_copied_from_the_host(line):
    assert reported(line) == []


def test_a_helper_returning_its_parameter_type_as_another_is_not_a_device_move():
    """`def match(x, ref): return x.type_as(ref)`: where `ref` is, the helper does not say."""
    code = LOOP.replace("    {line}\n", "    value = match(torch.randn(8, 4), host)\n").replace(
        "device = torch.device", "def match(x, ref):\n    return x.type_as(ref)\n\n\ndevice = torch.device"
    )
    assert [finding.line for finding in lint(code, "TL102")] == []
    moved = code.replace("return x.type_as(ref)", "return x.cuda()")
    assert [finding.line for finding in lint(moved, "TL102")] == [15]
