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
