"""Round 27: a method that steps through an instance it holds (`self.optim.step(loss)` after
`self.optim = ParamOptim(...)`, a class of a project module whose `step` runs the backward
pass and the optimizer step) takes a training step on each call, so a loop named for epochs
that calls it is a step loop and what it calls runs every step. Hard negatives: a held
instance whose method does not step, and a method of the same name on an unknown class."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

OPTIM = """
import torch


class ParamOptim:
    def __init__(self, params, lr=1e-3):
        self.optim = torch.optim.Adam(params, lr=lr)

    def step(self, loss):
        {step}
"""

TRAINER = """
import torch
from optim import ParamOptim


def xent_loss(x0, x1):
    target = torch.arange(x0.shape[0]).cuda()
    return torch.nn.functional.cross_entropy(x0 @ x1.t(), target)


class Contrastive:
    def __init__(self, encoder):
        self.encoder = encoder.cuda()
        self.optim = {held}(self.encoder.parameters())

    def update(self, obs):
        y0, y1 = self.encoder(obs), self.encoder(obs.flip(0))
        loss = xent_loss(y0, y1)
        self.optim.step(loss)
        return loss.item()
"""

MAIN = """
import torch
from trainer import Contrastive


def main(encoder, buffer, iterations, epochs):
    trainer = Contrastive(encoder)
    for n in range(iterations):
        for epoch in range(epochs):
            log = trainer.update(buffer)
"""

STEPS = "self.optim.zero_grad()\n        loss.backward()\n        self.optim.step()"


@pytest.mark.parametrize("step, held, reported", [
    (STEPS, "ParamOptim", {("trainer.py", "TL102", 7), ("trainer.py", "TL101", 20)}),
    ("print(loss)", "ParamOptim", set()),  # its step does not train
    (STEPS, "Unknown", set()),  # an instance of a class the project does not define
])
def test_a_method_stepping_through_a_held_instance_is_a_training_step(tmp_path, monkeypatch, step, held, reported):
    files = {"optim.py": OPTIM.format(step=step), "trainer.py": TRAINER.format(held=held), "main.py": MAIN}
    assert project_findings(tmp_path, monkeypatch, files, "TL101,TL102") == reported
