"""The eleventh round of issue 25: an MLP built by appending layers in a loop
(`for d in dims: layers.append(nn.Linear(i, d)); layers.append(nn.BatchNorm1d(d)); ...`, then
`nn.Sequential(*layers)`): each pass adds the Linear right before the BatchNorm, so its bias
is cancelled in every layer. Hard negatives: a pass that may stop between the two (`continue`),
a norm added under an `if` in the loop, a norm that follows only across passes, or after the
loop, and a list started with `list()` rebound elsewhere."""

from __future__ import annotations

import textwrap

import pytest
from conftest import lint

pytestmark = pytest.mark.stable_only

MLP = """
import torch


class MLP(torch.nn.Module):
    def __init__(self, input_dim, dims, last=True):
        super().__init__()
        layers = {start}
        for dim in dims:
            {body}
            input_dim = dim
        {after}
        self.mlp = torch.nn.Sequential(*layers)

    def forward(self, x):
        return self.mlp(x)


model = MLP(10, [64, 32]).cuda()
"""

LINEAR_THEN_NORM = "layers.append(torch.nn.Linear(input_dim, dim))\n            layers.append(torch.nn.BatchNorm1d(dim))\n            layers.append(torch.nn.ReLU())"


def _lines(body: str = LINEAR_THEN_NORM, after: str = "pass", start: str = "list()") -> list:
    code = textwrap.dedent(MLP.format(body=body, after=after, start=start))
    return [f.line for f in lint(code, ["TL301"])]


@pytest.mark.parametrize("start", ["list()", "[]"])
def test_linear_then_norm_in_every_pass(start: str) -> None:
    assert _lines(start=start) == [10]


def test_extend_in_the_loop() -> None:
    body = "layers.extend([torch.nn.Linear(input_dim, dim), torch.nn.BatchNorm1d(dim), torch.nn.ReLU()])"
    assert _lines(body=body) == [10]


def test_pass_that_may_stop_between_the_two() -> None:
    body = LINEAR_THEN_NORM.replace("\n            layers.append(torch.nn.BatchNorm1d", "\n            if dim == 1:\n                continue\n            layers.append(torch.nn.BatchNorm1d")
    assert _lines(body=body) == []


def test_norm_added_under_an_if_in_the_loop() -> None:
    # round 25: the norm follows the Linear in every pass where `dim > 8` holds (reported
    # without a fix: the condition reads the loop's variable)
    body = LINEAR_THEN_NORM.replace("layers.append(torch.nn.BatchNorm1d(dim))", "if dim > 8:\n                layers.append(torch.nn.BatchNorm1d(dim))")
    assert _lines(body=body) == [10]


def test_norm_first_in_the_pass_follows_the_linear_only_across_passes() -> None:
    body = "layers.append(torch.nn.BatchNorm1d(input_dim))\n            layers.append(torch.nn.ReLU())\n            layers.append(torch.nn.Linear(input_dim, dim))"
    assert _lines(body=body) == []


def test_norm_after_the_loop() -> None:
    body = "layers.append(torch.nn.ReLU())\n            layers.append(torch.nn.Linear(input_dim, dim))"
    assert _lines(body=body, after="layers.append(torch.nn.BatchNorm1d(input_dim))") == []
