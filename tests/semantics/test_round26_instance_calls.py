"""Round 26: calling an instance runs its class's `__call__` (`augment(x)` after `augment =
Augment(...)`), so `__call__` and the methods it calls run as often as those calls: every step
when the training loop calls the instance, also from another module. An instance built but
called only once, or a class of the same name that is not the one built, is not a step."""

from __future__ import annotations

import pytest
from conftest import lint, project_findings

pytestmark = pytest.mark.stable_only

AUGMENT = """
import torch


class Augment:
    def __init__(self, size):
        self.size = size

    def __call__(self, x):
        return self.mix(x)

    def mix(self, data):
        window = torch.hann_window(self.size).to(data.device)
        return data * window.sum()
"""

TRAIN = """
import torch
{imports}


def train(model, loader, optimizer):
    augment = Augment(400)
    for epoch in range(10):
        for x, y in loader:
            x = x.cuda()
            {call}
            loss = model(x).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
"""


@pytest.mark.parametrize("call, lines", [("x = augment(x)", [13]), ("pass", [])])
def test_an_instance_called_in_the_step_loop_runs_its_call_method_every_step(call, lines):
    code = AUGMENT + TRAIN.format(imports="", call=call)
    assert [finding.line for finding in lint(code, ["TL102"])] == lines


@pytest.mark.parametrize(
    "imports, found",
    [
        ("from augment import Augment", {("augment.py", "TL102", 13)}),
        # Another module's class of the same name.
        ("from other import Augment", set()),
    ],
)
def test_an_instance_of_another_modules_class(tmp_path, monkeypatch, imports, found):
    files = {
        "augment.py": AUGMENT,
        "other.py": "class Augment:\n    def __init__(self, size):\n        pass\n\n    def __call__(self, x):\n        return x\n",
        "train.py": TRAIN.format(imports=imports, call="x = augment(x)"),
    }
    assert project_findings(tmp_path, monkeypatch, files, "TL102") == found
