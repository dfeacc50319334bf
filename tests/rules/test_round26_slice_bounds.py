"""Round 26: a tensor as a slice bound (`x[:n]`, `x[n - k:]`) is converted with `__index__`,
as `int(n)` is: in a loop that runs every step it waits for the device, once per statement.
Hard negatives: sizes (`t.shape[0]`, `t.size(1)`, `t.numel()`), Python numbers, host
tensors, and values already read back (`.tolist()`)."""

from __future__ import annotations

import pytest
from conftest import lint

pytestmark = pytest.mark.stable_only

CODE = """
import torch


def train(model, loader, optimizer):
    for epoch in range(10):
        for x, y in loader:
            x = x.cuda()
            lengths = (x.shape[-1] * torch.rand(x.shape[0], device=x.device)).int()
            host = torch.randint(0, 5, (x.shape[0],))
            listed = lengths.tolist()
            for k in range(x.shape[0]):
                n = {bound}
                x[k, :n] = x[k, :n] * 0
            loss = model(x).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
"""


@pytest.mark.parametrize(
    "bound, lines",
    [
        ("lengths[k]", [14]),
        ("x.shape[-1] - lengths[k]", [14]),
        ("x.shape[-1]", []),
        ("x.size(1) // 2", []),
        ("x[k].numel()", []),
        ("host[k]", []),
        ("listed[k]", []),
        ("3", []),
    ],
)
def test_a_device_tensor_as_a_slice_bound(bound, lines):
    assert [finding.line for finding in lint(CODE.format(bound=bound), ["TL103"])] == lines


OUTSIDE = """
import torch


def crop(x, lengths):
    return x[:, : lengths.max()]
"""


def test_outside_a_step_loop_nothing_is_reported():
    assert lint(OUTSIDE, ["TL103"]) == []


MATRIX = """
import numpy as np
import torch


def train(model, optimizer, loader, val_loader, n_classes):
    for epoch in range(10):
        for x, y in loader:
            loss = model(x.cuda()).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        cm = np.zeros((n_classes, n_classes), dtype=np.int32)
        hist = torch.zeros(n_classes, n_classes, device="cuda")
        for x, y in val_loader:
            y = y.cuda()
            pred = model(x.cuda()).argmax(1)
            host = pred.cpu()
            for t, p in zip(y.view(-1), pred.view(-1)):
                {update}
"""


@pytest.mark.parametrize(
    "update, lines",
    [
        ("cm[t.long(), p.long()] += 1", [20]),
        ("hist[t, p] += 1", []),  # a tensor indexing a tensor stays on the device
        ("cm[0, 1] += 1", []),
        ("cm[host[0], host[1]] += 1", []),  # host tensors
    ],
)
def test_a_device_tensor_as_an_index_of_a_numpy_array(update, lines):
    assert [finding.line for finding in lint(MATRIX.format(update=update), ["TL103"])] == lines
