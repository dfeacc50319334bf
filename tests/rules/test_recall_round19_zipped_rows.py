"""Round 19 (TL103, batch 27's NER validation): `for true, pred in zip(labels, pred_labels):`
binds each name to a row of the iterable beside it, so `int(label) for label in pred` converts
elements of a device tensor; and in a method of a module class (a `LightningModule` too),
`self(x)` runs the forward, so `self((ids, mask))["logits"].argmax(dim=2)` is a tensor.
Rows of values of unknown type stay unknown."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

MODULE = """
import torch
import pytorch_lightning as pl


class Tagger({base}):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(8, 4)

    def forward(self, inputs):
        return {{"logits": self.net(inputs[0])}}

    def training_step(self, batch, batch_idx):
        ids, mask, labels = batch
        return torch.nn.functional.cross_entropy(self((ids, mask))["logits"], labels)

    def validation_step(self, batch, batch_idx):
        ids, mask, labels = batch
        predictions = self((ids, mask))["logits"].argmax(dim=2)
        tags = []
        for {target} in zip({iterated}):
            tags.append([str(int(label)) for label in pred])
        return tags


pl.Trainer(accelerator="gpu").fit(Tagger(), loader)
"""


def check(base: str = "pl.LightningModule", target: str = "true, pred", iterated: str = "labels, predictions") -> list:
    return lines(MODULE.format(base=base, target=target, iterated=iterated), "TL103")


def test_rows_of_a_zipped_device_tensor():
    assert check() == [23]


def test_rows_of_a_zipped_unknown_value_stay_unknown():
    """An attribute of unknown type may be a list of Python ints (the batch's own fields
    are tensors: round 20)."""
    assert check(target="pred, true", iterated="self.names, predictions") == []


def test_zip_of_another_meaning_binds_nothing():
    """A starred target, or a `zip` the file defines, is no row-by-row binding."""
    assert check(target="*pred", iterated="labels, predictions") == []
