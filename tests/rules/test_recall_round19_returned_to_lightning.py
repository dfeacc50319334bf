"""Round 19 (TL203, batch 27's NER fine-tuning): a builder module returns the loaders in a
tuple (`return train_loader, val_loader`) to a script that hands them to a Lightning
trainer's `fit`; the trainer passes over them every epoch (`project.hands_result_to_lightning`).
A trainer given GPUs (`pl.Trainer(gpus=[0])`, `accelerator="gpu"`) is a program on CUDA;
`gpus=0` is the CPU (`project.FEATURES`)."""

from __future__ import annotations

import pytest

from test_recall_round2 import project
from torchlint.semantics.project import CUDA, file_enables

pytestmark = pytest.mark.stable_only

BUILDERS = """
from torch.utils.data import DataLoader
import pytorch_lightning as pl


def prepare_loaders(train_set, val_set, batch_size):
    train_loader = DataLoader(train_set, shuffle=True, batch_size=batch_size, num_workers=8)
    val_loader = DataLoader(val_set, batch_size=batch_size, num_workers=8)
    return train_loader, val_loader


def prepare_trainer(epochs):
    return pl.Trainer(max_epochs=epochs, {device})
"""

TRAIN = """
import pytorch_lightning as pl
from builders import prepare_loaders, prepare_trainer
from corpus import Corpus, Tagger

train_loader, val_loader = prepare_loaders(Corpus("train"), Corpus("val"), 16)
trainer = prepare_trainer(20)
{use}
"""


def _findings(tmp_path, monkeypatch, device: str = "gpus=[0]", use: str = "trainer.fit(Tagger(), train_loader, val_loader)") -> list:
    files = {"builders.py": BUILDERS.format(device=device), "train.py": TRAIN.format(use=use)}
    return project(tmp_path, monkeypatch, files, "TL203")


@pytest.mark.parametrize("device", ["gpus=[0]", "accelerator='gpu'"])
def test_loaders_returned_to_a_lightning_fit(tmp_path, monkeypatch, device):
    assert _findings(tmp_path, monkeypatch, device) == [("builders.py", 7), ("builders.py", 8)]


def test_loaders_returned_to_a_script_that_does_not_fit_them(tmp_path, monkeypatch):
    assert _findings(tmp_path, monkeypatch, use="print(len(train_loader), len(val_loader))") == []


@pytest.mark.parametrize(
    "code, on_cuda",
    [
        ("trainer = pl.Trainer(gpus=[0])", True),
        ("trainer = pl.Trainer(gpus=args.gpus)", True),
        ('trainer = pl.Trainer(accelerator="gpu", devices=1)', True),
        ("trainer = pl.Trainer(gpus=0)", False),
        ("trainer = pl.Trainer(gpus=None)", False),
        ('trainer = pl.Trainer(accelerator="cpu")', False),
        ("if args.gpus == 0:\n    print('cpu')", False),
    ],
)
def test_a_trainer_given_gpus_runs_on_cuda(code, on_cuda):
    assert file_enables(code, CUDA) is on_cuda
