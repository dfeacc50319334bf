"""Round 20 (batch 28's VAE trainer): a method that returns its loaders to attributes of its
own object (`self.train_loader, self.test_loader = self.setup_data()` in `__init__`) hands
them to every method of the class, so the epoch loop of `train()` passes over them again
and again (TL203) and moves their pinned batches (TL106). A method of another class, or a
result bound to a local name of `__init__`, is no such attribute."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

TRAINER = """
import torch
from torch.utils.data import DataLoader


class Trainer:
    def __init__(self, device):
        self.device = device
        {binding}

    def setup_data(self):
        train_loader = DataLoader(train_split, batch_size=8, num_workers=4, pin_memory=True)
        test_loader = DataLoader(test_split, batch_size=8, num_workers=4, pin_memory=True)
        return train_loader, test_loader

    def train(self):
        for epoch in range(10):
            for data, _ in self.train_loader:
                loss = self.model(data.to(self.device)).sum()
                loss.backward()
                self.optimizer.step()


Trainer("cuda").train()
"""


def check(binding: str, rule: str) -> list:
    return lines(TRAINER.format(binding=binding), rule)


def test_loaders_a_method_returns_to_attributes_of_its_object():
    binding = "self.train_loader, self.test_loader = self.setup_data()"
    assert check(binding, "TL203") == [12]  # the test loader is never passed over
    assert check(binding, "TL106") == [19]


def test_a_local_binding_is_no_attribute():
    binding = "train_loader, test_loader = self.setup_data()\n        self.train_loader = None"
    assert check(binding, "TL203") == []


def test_a_method_of_another_object_gives_other_loaders():
    binding = "self.train_loader, self.test_loader = self.data.setup_data()"
    assert check(binding, "TL203") == []
