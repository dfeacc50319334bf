"""Round 23 (TL202, TL203): a training script that never imports Lightning itself, handed its
loaders and its trainer by builder functions of the project (`trainer = prepare_trainer(args)`,
then `trainer.fit(model, train_loader, val_loader)`), feeds them to Lightning's fit as a script
that builds the trainer does (`project.hands_result_to_lightning` asks whether the project
imports Lightning, not the calling module). A project without Lightning, or a script that only
measures the loaders, stays silent."""

from __future__ import annotations

import pytest

from test_recall_round2 import project

pytestmark = pytest.mark.stable_only

BUILDERS = """
from torch.utils.data import DataLoader
{imports}


def prepare_loaders(train_set, val_set, batch_size):
    train_loader = DataLoader(train_set, shuffle=True, batch_size=batch_size, num_workers=8)
    val_loader = DataLoader(val_set, batch_size=batch_size, num_workers=8)
    return train_loader, val_loader


def prepare_trainer(epochs):
    return {trainer}(max_epochs=epochs, gpus=[0])
"""

TRAIN = """
from builders import prepare_loaders, prepare_trainer
from corpus import Corpus, Tagger


def main():
    train_loader, val_loader = prepare_loaders(Corpus("train"), Corpus("val"), 16)
    trainer = prepare_trainer(20)
    {use}


if __name__ == "__main__":
    main()
"""

LIGHTNING = ("import pytorch_lightning as pl", "pl.Trainer")


@pytest.mark.parametrize("code", ["TL202", "TL203"])
def test_loaders_and_trainer_from_builders(tmp_path, monkeypatch, code):
    imports, trainer = LIGHTNING
    files = {"builders.py": BUILDERS.format(imports=imports, trainer=trainer), "train.py": TRAIN.format(use="trainer.fit(Tagger(), train_loader, val_loader)")}
    assert project(tmp_path, monkeypatch, files, code) == [("builders.py", 7), ("builders.py", 8)]


@pytest.mark.parametrize("imports, trainer, use", [
    ("from mytrainer import Trainer", "Trainer", "trainer.fit(Tagger(), train_loader, val_loader)"),
    (*LIGHTNING, "print(len(train_loader), len(val_loader))"),
])
def test_no_lightning_or_no_fit(tmp_path, monkeypatch, imports, trainer, use):
    files = {"builders.py": BUILDERS.format(imports=imports, trainer=trainer), "train.py": TRAIN.format(use=use)}
    assert project(tmp_path, monkeypatch, files, "TL202") == []
