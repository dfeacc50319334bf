"""The data-loader rules (TL201, TL202, TL203) are stable for loaders that a loop that trains
iterates; other loaders (a final test, evaluation, loaders handed elsewhere) are their
preview variant, reported only in preview mode."""

import pytest

from conftest import lines

SCRIPT = """
import torch
from torch.utils.data import DataLoader
train_loader = DataLoader(train_set, batch_size=64, num_workers=2)
test_loader = DataLoader(test_set, batch_size=64, num_workers=2)
for epoch in range(10):
    for x, y in train_loader:
        loss = model(x.cuda()).sum()
        loss.backward()
        optimizer.step()
    for x, y in test_loader:
        print(model(x.cuda()).argmax(1))
"""
NO_WORKERS = SCRIPT.replace(", num_workers=2", "")


@pytest.mark.stable_only
@pytest.mark.parametrize("code, rule", [(NO_WORKERS, "TL201"), (SCRIPT, "TL202"), (SCRIPT, "TL203")])
def test_only_the_training_loader_is_reported_by_default(code, rule):
    assert lines(code, rule) == [4]


@pytest.mark.parametrize("code, rule", [(NO_WORKERS, "TL201"), (SCRIPT, "TL202"), (SCRIPT, "TL203")])
def test_preview_mode_reports_the_test_loader_too(code, rule):
    assert lines(code, rule) == [4, 5]
