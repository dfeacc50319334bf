"""Round 28: MONAI's `DataLoader` is torch's with MONAI's collation, so its batches moved to the
device need pinned memory, also through `MetaTensor.as_tensor()`; and `zero_grad(set_to_none=
None)` zero-fills every gradient, as `False` does. Hard negatives: a pinned MONAI loader, a
batch that stays on the host, and `set_to_none=True`."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

MONAI = """
import torch
from monai.data import CacheDataset, DataLoader

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"
train_loader = DataLoader(train_dataset, batch_size=2, num_workers=4{pin})
for epoch in range(100):
    for batch in train_loader:
        image = batch["image"].as_tensor(){move}
        loss = model(image).mean()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none={reset})
"""


@pytest.mark.parametrize("pin, move, reported", [
    ("", ".to(DEVICE, non_blocking=True)", [6]),
    (", pin_memory=True", ".to(DEVICE, non_blocking=True)", []),
    ("", "", []),
])
def test_monai_loaders_need_pinned_memory(pin, move, reported):
    assert lines(MONAI.format(pin=pin, move=move, reset="True"), "TL202") == reported


@pytest.mark.parametrize("reset, reported", [("None", [13]), ("False", [13]), ("True", [])])
def test_set_to_none_none_zero_fills(reset, reported):
    code = MONAI.format(pin=", pin_memory=True", move=".to(DEVICE, non_blocking=True)", reset=reset)
    assert lines(code, "TL401") == reported
