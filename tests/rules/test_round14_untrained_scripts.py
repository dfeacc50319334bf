"""Batch 21, read after its measurement: a script without a `__main__` block that no project
module imports and that never trains (a demo or an evaluation of a pretrained model) runs
once per invocation; `DataParallel` there, wrapping the model to load `module.`-prefixed
weights and evaluate, has no gradients to all-reduce (`training.untrained_script`, TL501).
Hard negatives: the same script when it trains, when another module imports it, and a
module whose top level only defines and assigns."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

DEMO = """
import torch
import models

sd = torch.load("best.pth")
audio_model = models.ASTModel()
audio_model = torch.nn.DataParallel(audio_model)
audio_model.load_state_dict(sd, strict=False)
print(audio_model(torch.rand(10, 1024, 128)).shape)
"""

TRAINING = DEMO + """
optimizer = torch.optim.Adam(audio_model.parameters())
for x, y in loader:
    loss = torch.nn.functional.cross_entropy(audio_model(x.cuda()), y.cuda())
    loss.backward()
    optimizer.step()
"""

LIBRARY = """
import torch


def wrap(model):
    return torch.nn.DataParallel(model)
"""


@pytest.mark.parametrize("files, expected", [
    ({"demo.py": DEMO}, set()),
    ({"demo.py": TRAINING}, {("demo.py", 7)}),
    ({"demo.py": DEMO, "run.py": "import demo\n"}, {("demo.py", 7)}),
    ({"parallel.py": LIBRARY}, {("parallel.py", 6)}),
])
def test_a_script_without_an_entry_point_that_never_trains(tmp_path, monkeypatch, files: dict, expected: set) -> None:
    found = project_findings(tmp_path, monkeypatch, {"models.py": "class ASTModel:\n    pass\n", **files}, "TL501")
    assert {(path, line) for path, code, line in found} == expected
