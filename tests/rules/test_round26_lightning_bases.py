"""Round 26: a `LightningModule` whose Lightning base lies in another project module, reached
through a base of its own file (`DownstreamMD17(Downstream)`, `Downstream(Grundmodel)`),
runs its hooks every batch, and so does a `step()` helper its `training_step` and
`validation_step` share: `.item()` there is a sync per step, named after the training hook.
A class that only a docstring names is never built."""

from __future__ import annotations

import pytest
from conftest import project_findings, write

from torchlint.semantics import project
from torchlint.semantics.instantiation import unbuilt_definitions

pytestmark = pytest.mark.stable_only

BASE = """
import lightning as L
import torch


class Grundmodel(L.LightningModule):
    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters())
"""

DOWNSTREAM = """
import torch
from base import Grundmodel


class Downstream(Grundmodel):
    def training_step(self, data, batch_idx):
        return self.step("train", data, batch_idx)

    def validation_step(self, data, batch_idx):
        return self.step("val", data, batch_idx)

    def step(self, task, data, batch_idx):
        loss = self(data).mean()
        self.log(f"{task}_loss", loss.item())
        return loss


class DownstreamQM9(Downstream):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 1)

    def test_step(self, data, batch_idx):
        self.step("test", data, batch_idx)

    def forward(self, data):
        return self.net(data)
"""

TRAIN = """
import lightning as L
from downstream import DownstreamQM9

L.Trainer(accelerator="gpu", max_epochs=10).fit(DownstreamQM9(), loader)
"""


def test_a_step_helper_of_hooks_inherited_through_local_bases(tmp_path, monkeypatch):
    files = {"base.py": BASE, "downstream.py": DOWNSTREAM, "train.py": TRAIN}
    assert project_findings(tmp_path, monkeypatch, files, "TL101") == {("downstream.py", "TL101", 15)}


LAYERS = '''
import torch


class Reference(torch.nn.Module):
    def forward(self, x):
        total = 0.0
        for row in x:
            total += row.sum().item()
        return total


class Model(torch.nn.Module):
    """A smaller Reference network."""

    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(4, 1)

    def forward(self, x):
        return self.net(x)
'''

SCRIPT = """
import torch
from layers import Model

if __name__ == "__main__":
    model = Model().cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(10):
        for x in loader:
            loss = model(x.cuda()).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
"""


@pytest.mark.parametrize(
    "docstring, unbuilt",
    [
        ('"""A smaller Reference network."""', True),
        ("NAMES = ['Reference']", False),
        # A string further down a body lists what a user may pick: not prose.
        ('"""A model."""\n    """Options: \'Model()\', \'Reference()\'"""', False),
    ],
)
def test_a_class_named_only_in_a_docstring_is_not_built(tmp_path, monkeypatch, docstring, unbuilt):
    (tmp_path / ".git").mkdir()  # a program's repository, not an installable library
    layers = write(tmp_path, "layers.py", LAYERS.replace('"""A smaller Reference network."""', docstring))
    write(tmp_path, "train.py", SCRIPT)
    project.clear()
    assert ("Reference" in unbuilt_definitions(layers, open(layers).read())) is unbuilt


@pytest.mark.parametrize("use, unbuilt", [("def build() -> Model | Reference:\n    return Model()\n", True), ("def build():\n    return Reference()\n", False)])
def test_a_class_named_only_in_a_return_annotation_is_not_built(tmp_path, monkeypatch, use, unbuilt):
    (tmp_path / ".git").mkdir()
    layers = write(tmp_path, "layers.py", LAYERS)
    write(tmp_path, "train.py", SCRIPT.replace("from layers import Model", "from layers import Model, Reference\n\n\n" + use))
    project.clear()
    assert ("Reference" in unbuilt_definitions(layers, open(layers).read())) is unbuilt
