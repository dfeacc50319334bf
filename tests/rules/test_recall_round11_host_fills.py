"""The eleventh round of issue 25: a tensor created on the host, filled with constants in
place and then moved (`attr = torch.zeros(n, 2)`, `attr[:, 0] = 4`, `attr =
attr.to(edge_attr.device)` in a graph convolution's `forward()`) could have been created on the
device, where the same writes run: TL102 reports the creation (without a fix). A write that
reads another value (a host array, an index) keeps the creation on the host silent."""

from __future__ import annotations

import textwrap

import pytest
from conftest import lint

pytestmark = pytest.mark.stable_only

CONV = """
import torch


class Conv(torch.nn.Module):
    def forward(self, x, edge_attr):
        attr = torch.zeros(x.size(0), 2)
        {write}
        attr = attr.to(edge_attr.device)
        return torch.cat((edge_attr, attr), dim=0)


def train(model, loader, opt):
    for epoch in range(10):
        for x, e in loader:
            loss = model(x.cuda(), e.cuda()).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
"""


@pytest.mark.parametrize(
    ("write", "expected"),
    [
        ("attr[:, 0] = 4", [7]),
        ("attr[0] = True", [7]),
        ("attr.fill_(1)", [7]),
        ("attr.uniform_(-1, 1)", [7]),
        ("attr[:, 0] = values", []),
        ("attr[index] = 1", []),
        ("attr.copy_(source)", []),
        ("attr[:, 0] += 4", []),
        ("print(attr)", []),
    ],
)
def test_constant_fills_before_the_move(write: str, expected: list) -> None:
    code = textwrap.dedent(CONV.format(write=write))
    assert [f.line for f in lint(code, ["TL102"])] == expected


LABELS = """
import torch

model = torch.nn.Linear(4, 1).cuda()
opt = torch.optim.Adam(model.parameters())
for epoch in range(100):
    lbl_1 = torch.ones(1, 8)
    {second}
    lbl = {join}
    lbl = lbl.cuda()
    loss = torch.nn.functional.binary_cross_entropy_with_logits(model(x.cuda()), lbl)
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


@pytest.mark.parametrize(
    ("second", "join", "expected"),
    [
        ("lbl_2 = torch.zeros(1, 8)", "torch.cat((lbl_1, lbl_2), 1)", [7, 8]),
        ("lbl_2 = torch.zeros(1, 8)", "torch.stack([lbl_1, lbl_2])", [7, 8]),
        ("lbl_2 = labels_on_host", "torch.cat((lbl_1, lbl_2), 1)", []),
        ("lbl_2 = torch.zeros(1, 8)", "torch.cat((lbl_1, lbl_2), dim)", []),
        ("lbl_2 = torch.zeros(1, 8)\n    print(lbl_2)", "torch.cat((lbl_1, lbl_2), 1)", []),
    ],
)
def test_created_values_joined_before_the_move(second: str, join: str, expected: list) -> None:
    code = textwrap.dedent(LABELS.format(second=second, join=join))
    assert [f.line for f in lint(code, ["TL102"])] == expected
