"""Round 27: a local alias of a loader (`loader = pred_loader` in `predict()`) is followed in
the function that binds it only: the `loader` another function binds (`test()`, run every
epoch) says nothing of it, so a prediction loader passed over once is not re-iterated."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

SCRIPT = """
import torch
from torch.utils.data import DataLoader

test_loader = DataLoader(test_set, batch_size=8, num_workers=2)
pred_loader = DataLoader(pred_set, batch_size=8, num_workers=2)


def test():
    loader = test_loader
    for image, mask in loader:
        model(image.cuda())


def predict():
    loader = pred_loader
    for image in loader:
        model(image.cuda())


for epoch in range(10):
    train(epoch)
    test()
{last}
"""


@pytest.mark.parametrize("last, reported", [
    ("predict()", [5]),
    ("    predict()", [5, 6]),  # in the epoch loop: every epoch starts its workers again
])
def test_a_local_alias_is_followed_in_its_own_function(last, reported):
    assert lines(SCRIPT.format(last=last), "TL203") == reported
