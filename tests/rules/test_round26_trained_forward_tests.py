"""Round 26: the `forward()` of a module the project trains runs every training step, on the
inputs the module's callers hand it (tensors moved by the training loop): a test or
conversion of such an input (`assert (t < self.steps).all()`) waits for the device every step
(TL103, a preview variant). Hard negatives: a flag parameter with a default, a forward with
gradients off (an inference module), a module nothing trains, a forward that only tests
sizes; and the default run, where the variant is withheld."""

from __future__ import annotations

import pytest
from conftest import lint


CODE = """
import torch
from torch import nn


class Process(nn.Module):
    def __init__(self, steps=1000):
        super().__init__()
        self.steps = steps
        self.net = nn.Linear(4, 4)

    {decorator}
    def forward(self, x, t, return_noise=False):
        {check}
        if return_noise:
            return x
        return self.net(x) * t.view(-1, 1)


def train(loader, optimizer):
    model = Process().cuda()
    for epoch in range(10):
        for x, t in loader:
            loss = model(x.cuda(), t.cuda()).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
"""


@pytest.mark.parametrize(
    "decorator, check, lines",
    [
        ("", "assert (t < self.steps).all()", [14]),
        ("", "if torch.isnan(x).any():\n            raise ValueError('nan input')", [14]),
        ("", "assert x.shape[0] == t.shape[0]", []),
        ("@torch.no_grad()", "assert (t < self.steps).all()", []),
    ],
)
def test_a_test_of_a_trained_modules_input(decorator, check, lines):
    code = CODE.format(decorator=decorator, check=check)
    assert [finding.line for finding in lint(code, ["TL103"])] == lines


@pytest.mark.stable_only
def test_the_default_run_withholds_the_variant():
    assert lint(CODE.format(decorator="", check="assert (t < self.steps).all()"), ["TL103"]) == []


def test_a_module_that_nothing_trains_is_not_reported():
    code = CODE.format(decorator="", check="assert (t < self.steps).all()").split("\n\ndef train")[0]
    assert lint(code + "\n\nmodel = Process().cuda()\n", ["TL103"]) == []
