"""Round 26 (batch 37): a test of a parameter against a literal (`if self.stage == "test":`)
is decided by what the project's calls pass it, as truth tests already were: with `stage`
left to its default `"train"` by every construction, the branch never runs. A Lightning
module restored with `load_from_checkpoint` gets the saved arguments of a construction, with
the keywords that call overrides; a restore that overrides the parameter keeps the branch."""

from __future__ import annotations

import pytest
from conftest import lint, project_findings

pytestmark = pytest.mark.stable_only

WRAPPER = """
import lightning as L
import torch


class Wrapper(L.LightningModule):
    def __init__(self, model, stage="train"):
        super().__init__()
        self.model = model
        self.stage = stage
        self.preds = []

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.cross_entropy(self.model(x), y)

    def validation_step(self, batch, batch_idx):
        x, y = batch
        out = self.model(x)
        if self.stage {operator} "test":
            self.preds.extend(out.argmax(1).tolist())
        return torch.nn.functional.cross_entropy(out, y)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters())
"""

TRAIN = """
import lightning as L
import torch
from wrapper import Wrapper

model = Wrapper(torch.nn.Linear(4, 2))
L.Trainer(accelerator="gpu", max_epochs=10).fit(model, train_loader, val_loader)
best = Wrapper.load_from_checkpoint("best.ckpt", model=torch.nn.Linear(4, 2){override})
"""


@pytest.mark.parametrize(
    "operator, override, found",
    [
        ("==", "", set()),
        ("!=", "", {("wrapper.py", "TL101", 21)}),
        ("==", ', stage="test"', {("wrapper.py", "TL101", 21)}),
    ],
)
def test_a_parameter_tested_against_a_literal(tmp_path, monkeypatch, operator, override, found):
    files = {"wrapper.py": WRAPPER.format(operator=operator), "train.py": TRAIN.format(override=override)}
    assert project_findings(tmp_path, monkeypatch, files, "TL101") == found


TUTORIAL = """
import torch
import torch.nn as nn

ngpu = {ngpu}
device = torch.device("cuda:0" if (torch.cuda.is_available() and ngpu > 0) else "cpu")


def main():
    net = nn.Linear(4, 2).to(device)
    if (device.type == "cuda") and (ngpu > 1):
        net = nn.DataParallel(net, list(range(ngpu)))
    {rebinding}
    return net
"""


@pytest.mark.parametrize(
    "ngpu, rebinding, lines",
    [
        ("1", "", []),
        ("2", "", [12]),
        # A function that binds the name itself hides the module's constant.
        ("1", "ngpu = torch.cuda.device_count()", [12]),
    ],
)
def test_a_module_constant_compared_with_an_integer(ngpu, rebinding, lines):
    code = TUTORIAL.format(ngpu=ngpu, rebinding=rebinding)
    assert [finding.line for finding in lint(code, ["TL501"])] == lines
