"""A Lightning module's `forward()` runs every step only when its training or validation
hooks run it (`self(x)`, `self.forward(x)`); one whose hooks call `self.model(...)` instead
is its inference API, run as often as whoever calls it. A class whose `training_step` lives
elsewhere (a base class) keeps the old reading."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from torchlint.engine.context import FileContext
from torchlint.engine.options import Options
from torchlint.semantics.execution import Frequency

MODULE = """
import pytorch_lightning as pl


class Detector(pl.LightningModule):
    def forward(self, x):
        self.model.eval()
        return self.model(x)
{steps}
"""

OWN_MODEL = """
    def training_step(self, batch, batch_idx):
        images, targets = batch
        return sum(self.model(images, targets).values())
"""


def forward_frequency(steps: str) -> Frequency:
    text = textwrap.dedent(MODULE.format(steps=steps))
    module = cst.parse_module(text)
    ctx = FileContext(module, text, "detector.py", Options())
    forward = next(node for node in module.body[1].body.body if isinstance(node, cst.FunctionDef))
    return ctx.frequency.execution(forward.body.body[0]).frequency


@pytest.mark.parametrize(
    ("steps", "expected"),
    [
        (OWN_MODEL, Frequency.UNKNOWN),  # the hooks run `self.model`: forward is the inference API
        (OWN_MODEL.replace("self.model(images, targets)", "self(images, targets)"), Frequency.PER_STEP),
        (OWN_MODEL.replace("self.model(images, targets)", "self.forward(images)"), Frequency.PER_STEP),
        ("", Frequency.PER_STEP),  # no training_step here: a base class's may run it
    ],
)
def test_forward_of_a_lightning_module(steps, expected) -> None:
    assert forward_frequency(steps) is expected
