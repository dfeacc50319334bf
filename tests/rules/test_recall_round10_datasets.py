"""The tenth round of issue 25: a dataset made by a method of a value that is handed a method
of the object (`self.train_data.map(self.tokenize_data, batched=True)` in a Lightning data
module, Hugging Face `datasets` preprocessing) is that value's dataset, not one whose items
the object's method makes in the main process: its loader without workers is reported. The
dataset built from the object's own method (`ExperienceSourceDataset(self.train_batch)`)
stays silent."""

from __future__ import annotations

import textwrap

import pytest
from conftest import lint

pytestmark = pytest.mark.stable_only

DATA_MODULE = """
import pytorch_lightning as pl
import torch
from datasets import load_dataset
from rl import ExperienceSourceDataset


class DataModule(pl.LightningDataModule):
    def setup(self, stage=None):
        self.train_data = load_dataset("glue", "cola")["train"]
        self.train_data = {value}

    def tokenize_data(self, example):
        return self.tokenizer(example["sentence"], truncation=True)

    def train_batch(self):
        yield from self.agent.play()

    def train_dataloader(self):
        return torch.utils.data.DataLoader(self.train_data, batch_size=32, shuffle=True)
"""


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("self.train_data.map(self.tokenize_data, batched=True)", [20]),
        ("ExperienceSourceDataset(self.train_batch)", []),
    ],
)
def test_dataset_preprocessed_by_a_method_of_the_module(value, expected) -> None:
    code = textwrap.dedent(DATA_MODULE.format(value=value))
    assert [f.line for f in lint(code, ["TL201"])] == expected
