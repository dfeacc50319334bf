"""Round 25 (TL103): a helper's parameter holds a device tensor when every call the file makes
of the helper passes one (`semantics.argument_kinds`): `float((out.argmax(1) == labels).sum())`
in `accuracy(out, labels)`, called every step with `labels` moved to the GPU, waits every step;
so does `int(pred.sum())` after `pred = out.argmax(1)` (`Scope.derived`).
And `x, y = x.to(device), y.to(device)` gives each name the kind of the value beside it."""

from __future__ import annotations

import pytest
from conftest import lint

pytestmark = pytest.mark.stable_only

RULE = "TL103"

HELPER = """
import torch
import torch.nn.functional as F

def accuracy(out, labels):
    {body}
    return correct

def train(model, loader, optimizer, device):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        out = model(x)
        loss = F.cross_entropy(out, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        {call}
"""


@pytest.mark.parametrize("body, call, reported", [
    ("correct = float((out.argmax(1) == labels).sum())", "acc = accuracy(out, y)", True),
    ("correct = float((out.argmax(1) == labels).sum())", "acc = accuracy(out, labels=y)", True),
    ("correct = 1 if (out.argmax(1) == labels).all() else 0", "acc = accuracy(out, y)", True),
    # through a name computed from the parameter, also when the parameter itself is bound again
    ("pred = out.argmax(1); correct = int(pred.sum())", "acc = accuracy(x, y)", True),
    ("out = out.argmax(1); correct = int(out.sum())", "acc = accuracy(x, y)", True),
    ("pred = out.argmax(1); correct = int(pred.sum())", "acc = accuracy(x.cpu(), y)", False),
    # host values passed: nothing to wait for
    ("correct = float((out.argmax(1) == labels).sum())", "acc = accuracy(out.cpu(), y.cpu())", False),
    # a parameter bound again before the test holds what the helper made of it
    ("labels = convert(labels); correct = float((out.argmax(1) == labels).sum())", "acc = accuracy(out, y)", False),
    # unknown values at the call: the parameter's kind stays unknown
    ("correct = float((out.argmax(1) == labels).sum())", "acc = accuracy(out, targets_of(x))", False),
    ("correct = float((out.argmax(1) == labels).sum())", "acc = accuracy(*pair)", False),
])
def test_a_helper_called_with_device_tensors(body, call, reported):
    findings = lint(HELPER.format(body=body, call=call), [RULE])
    assert [finding.line for finding in findings] == ([6] if reported else [])


def test_every_call_must_pass_a_device_tensor():
    code = HELPER.format(
        body="correct = float((out.argmax(1) == labels).sum())",
        call="acc = accuracy(out, y)\n\nprint(accuracy(predictions, [1, 2, 3]))",
    )
    assert lint(code, [RULE]) == []


def test_a_method_called_on_self_with_a_device_batch():
    code = """
    import torch

    class Trainer:
        def __init__(self, model, optimizer, device):
            self.model, self.optimizer, self.device = model, optimizer, device
            self.best = 0.0

        def _track(self, scores):
            if scores.max() > self.best:
                self.best = scores.max()

        def fit(self, loader):
            for x, y in loader:
                x, y = x.to(self.device), y.to(self.device)
                loss = self.model(x).sum()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                self._track(y)
    """
    assert [finding.line for finding in lint(code, [RULE])] == [10]


def test_a_helper_the_file_never_calls_stays_silent():
    code = """
    import torch

    def accuracy(out, labels):
        return float((out.argmax(1) == labels).sum())

    for x, y in loader:
        x, y = x.cuda(), y.cuda()
        loss = model(x).sum()
        loss.backward()
        optimizer.step()
    """
    assert lint(code, [RULE]) == []


@pytest.mark.parametrize("move, reported", [
    ("x, y = x.to(device), y.to(device)", True),
    ("[x, y] = [x.cuda(), y.cuda()]", True),
    ("x, y = x.cpu(), y.cpu()", False),
    ("x, y = y.to(device), x", False),
    ("x, y = y, x.to(device)", True),
])
def test_pairwise_assignment_gives_each_name_its_value_kind(move, reported):
    code = f"""
    import torch

    def train(model, loader, optimizer, device):
        for x, y in loader:
            {move}
            loss = model(x).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total = float(y.sum())
    """
    assert [finding.line for finding in lint(code, [RULE])] == ([11] if reported else [])


def test_a_parameter_handed_on_from_helper_to_helper():
    code = HELPER.format(
        body="correct = float((out.argmax(1) == labels).sum())",
        call="report(out, y)",
    ) + """
def report(out, target):
    return accuracy(out, target)
"""
    assert [finding.line for finding in lint(code, [RULE])] == [6]
    cycle = HELPER.format(body="correct = float((out.argmax(1) == labels).sum())", call="") + """
def report(out, target):
    return accuracy(out, target) + report(out, target)
"""
    assert lint(cycle, [RULE]) == []


@pytest.mark.parametrize("loop, reported", [
    ("for i, row in enumerate(labels):\n        if row.sum() > 0:", True),
    ("for i, row in enumerate(labels.tolist()):\n        if i > 0:", False),
])
def test_enumerate_counts_and_walks_rows(loop, reported):
    code = HELPER.format(body=f"correct = 0\n    {loop}\n            correct += 1", call="acc = accuracy(out, y)")
    assert bool(lint(code, [RULE])) == reported
