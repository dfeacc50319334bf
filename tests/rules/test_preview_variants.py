"""Stable rules with a preview variant report it only in preview mode: the data-loader rules
(TL201, TL202, TL203) are stable for loaders that a loop that trains iterates, not for a
final test or evaluation loader; TL101 and TL102 for code that training steps run, not for
evaluation loops."""

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


STEPS = """
import torch
class Net(torch.nn.Module):
    def forward(self, x):
        return x + torch.zeros(3).cuda()
for epoch in range(10):
    for x, y in train_loader:
        loss = model(x.cuda()).sum() + torch.ones(1).cuda()
        loss.backward()
        optimizer.step()
        print(loss.item())
    for x, y in val_loader:
        correct = model(x.cuda()).argmax(1) == torch.ones(len(y)).cuda()
        print(correct.sum().item())
"""


@pytest.mark.stable_only
@pytest.mark.parametrize("rule, lines_", [("TL101", [11]), ("TL102", [5, 8])])
def test_training_steps_are_reported_by_default(rule, lines_):
    assert lines(STEPS, rule) == lines_


@pytest.mark.parametrize("rule, lines_", [("TL101", [11, 14]), ("TL102", [5, 8, 13])])
def test_preview_mode_reports_evaluation_loops_too(rule, lines_):
    assert lines(STEPS, rule) == lines_
