"""Round 27: a function handed somewhere as a value may run anywhere, but a parameter of the
same name is no such hand-off (`len(train)` in `split(train, val_split)`, `MNIST(root,
train=train)` in `get_dataset(train)`): the module's `train()`, called in the epoch loop, still
runs every epoch. Hard negative: the function itself handed to a hook."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

SCRIPT = """
import torch
import torchvision

device = torch.device("cuda")


def get_dataset(train):
    return torchvision.datasets.MNIST("data", train=train, download=True)


loader = torch.utils.data.DataLoader(get_dataset(True), batch_size=64, num_workers=4)


def train():
    for x, y in loader:
        loss = model(x.to(device)).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


for epoch in range(10):
    {call}
"""


@pytest.mark.parametrize("call, reported", [
    ("train()", [12]),
    ("scheduler.register(train)", []),  # handed to another object: when it runs is not known
])
def test_a_parameter_named_like_a_function_is_no_reference_to_it(call, reported):
    assert lines(SCRIPT.format(call=call), "TL203") == reported
