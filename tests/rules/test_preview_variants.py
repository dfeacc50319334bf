"""Stable rules with a preview variant report it only in preview mode: the data-loader rules
(TL201, TL202, TL203) are stable for loaders that a loop that runs with training iterates (the
training loop, the per-epoch validation), not for a loader only an inference helper uses;
TL101 and TL102 likewise for code that runs with training, not for that helper."""

import pytest

from conftest import lines

SCRIPT = """
import torch
from torch.utils.data import DataLoader
train_loader = DataLoader(train_set, batch_size=64, num_workers=2)
val_loader = DataLoader(val_set, batch_size=64, num_workers=2)
predict_loader = DataLoader(new_set, batch_size=64, num_workers=2)

def predict(model):
    for round in range(3):
        for x in predict_loader:
            outputs.append(model(x.cuda()).argmax(1))

for epoch in range(10):
    for x, y in train_loader:
        loss = model(x.cuda()).sum()
        loss.backward()
        optimizer.step()
    for x, y in val_loader:
        correct += (model(x.cuda()).argmax(1) == y.cuda()).sum()
"""
NO_WORKERS = SCRIPT.replace(", num_workers=2", "")


@pytest.mark.stable_only
@pytest.mark.parametrize("code, rule", [(NO_WORKERS, "TL201"), (SCRIPT, "TL202"), (SCRIPT, "TL203")])
def test_loaders_used_with_training_are_reported_by_default(code, rule):
    assert lines(code, rule) == [4, 5]


@pytest.mark.parametrize("code, rule", [(NO_WORKERS, "TL201"), (SCRIPT, "TL202"), (SCRIPT, "TL203")])
def test_preview_mode_reports_the_inference_loader_too(code, rule):
    assert lines(code, rule) == [4, 5, 6]


STEPS = """
import torch
class Net(torch.nn.Module):
    def forward(self, x):
        return x + torch.zeros(3).cuda()

def generate(model, prompts):
    for prompt in prompts:
        token = model(prompt.cuda() + torch.ones(1).cuda()).argmax()
        print(token.item())

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
@pytest.mark.parametrize("rule, lines_", [("TL101", [17, 20]), ("TL102", [5, 14, 19])])
def test_code_that_runs_with_training_is_reported_by_default(rule, lines_):
    assert lines(STEPS, rule) == lines_


@pytest.mark.parametrize("rule, lines_", [("TL101", [10, 17, 20]), ("TL102", [5, 9, 14, 19])])
def test_preview_mode_reports_the_inference_helper_too(rule, lines_):
    assert lines(STEPS, rule) == lines_


IMPLICIT = """
import torch
def score(model, loader):
    for x in loader:
        total += float(torch.mean(x.cuda()))

for epoch in range(10):
    for x, y in train_loader:
        loss = model(x.cuda()).sum()
        loss.backward()
        optimizer.step()
        torch.cuda.synchronize()
"""


@pytest.mark.stable_only
def test_implicit_syncs_that_run_with_training_are_reported_by_default():
    assert lines(IMPLICIT, "TL103") == [12]


def test_implicit_syncs_in_other_loops_are_preview():
    assert lines(IMPLICIT, "TL103") == [5, 12]
