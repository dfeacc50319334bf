"""Round 20 (TL103, batch 27's NER validation): the batch a `LightningModule`'s step method
receives is what its loader collated, moved by the trainer to the module's device, so the
names it unpacks to are tensors (`ids, mask, labels = batch`): `int(label) for label in
true[mask]` converts one element per token. A comprehension's `if` and a conditional
expression test a tensor's truth as an `if` statement does."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

MODULE = """
import torch
import pytorch_lightning as pl


class EntityModel({base}):
    def __init__(self, labels: int = 5):
        super().__init__()
        self.classifier = torch.nn.Linear(16, labels)

    def forward(self, ids):
        return self.classifier(ids)

    def training_step(self, batch, batch_idx):
        ids, labels = batch
        return torch.nn.functional.cross_entropy(self(ids), labels)

    def {hook}(self, batch, batch_idx):
        {body}


pl.Trainer(accelerator="gpu").fit(EntityModel(), loader)
"""


def check(body: str, base: str = "pl.LightningModule", hook: str = "validation_step", rule: str = "TL103") -> list:
    return lines(MODULE.format(base=base, hook=hook, body=body), rule)


UNPACKED = "ids, mask, labels = batch\n        return [str(int(label)) for true in labels for label in true[mask[0] == 1]]"


def test_elements_of_an_unpacked_batch_are_tensors():
    assert check(UNPACKED) == [20]


def test_fields_of_a_dict_batch_are_tensors():
    assert check('return [int(label) for label in batch["labels"][0]]') == [19]


def test_an_unknown_class_with_a_step_method_has_no_batch():
    """A class no framework runs (its `validation_step` takes whatever its caller passes)."""
    assert check(UNPACKED, base="object") == []


def test_membership_and_the_batch_index_are_no_tensor_tests():
    """`name in seen` tests a container, and `batch_idx` is a number."""
    body = "ids, names = batch\n        return [name for name in names if name in self.seen] if batch_idx == 0 else []"
    assert check(body) == []


def test_a_comprehension_condition_on_device_elements():
    body = "ids, labels = batch\n        return [1 for label in labels[0] if label != 0]"
    assert check(body) == [20]


def test_a_conditional_expression_on_a_device_tensor():
    body = 'ids, labels = batch\n        return "up" if self(ids).mean() > 0 else "down"'
    assert check(body) == [20]


def test_a_conditional_expression_on_a_host_tensor():
    body = 'limit = torch.zeros(1)\n        return "up" if limit.mean() > 0 else "down"'
    assert check(body) == []
