"""The fifth recall round of issue 25, value flow: objects that reach a training step through
another function or object than the one that builds them. Each cause with positives and hard
negatives, in the default mode a user runs."""

from __future__ import annotations

import json
import textwrap
from typing import Dict

import pytest
from click.testing import CliRunner

from torchlint.cli import main

pytestmark = pytest.mark.stable_only


def findings(tmp_path, monkeypatch, files: Dict[str, str], rules: str) -> list:
    """(path, code, line) of the findings of `rules` on a small project, default mode."""
    (tmp_path / "setup.py").write_text("")
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", rules, "--output-format", "json", "."])
    return sorted((item["path"].split("/")[-1], item["code"], item["line"]) for item in json.loads(result.stdout))


# -- a trainer built by one of its class's own constructors -------------------------------

FIT = """
import pytorch_lightning as pl
from torch.utils.data import DataLoader

def cli_main(args):
    train_loader = DataLoader(train_set, batch_size=32)
    val_loader = DataLoader(val_set, batch_size=32)
    trainer = {trainer}
    trainer.{method}(model, train_loader, val_loader)
"""


@pytest.mark.parametrize("trainer, method, reported", [
    ("pl.Trainer.from_argparse_args(args)", "fit", True),  # a class constructor: an instance
    ("pl.Trainer(max_epochs=5)", "fit", True),  # as before
    ('pl.Trainer.from_argparse_args(args, accelerator="cpu")', "fit", False),  # told to run on the CPU
    ("pl.Trainer.from_argparse_args(args)", "predict", False),  # one pass, no training
    ("pl.LightningModule.load_from_checkpoint(path)", "fit", False),  # another class's constructor
    ("Forest.from_config(args)", "fit", False),  # not a Lightning class
])
def test_a_trainer_built_by_a_class_constructor(tmp_path, monkeypatch, trainer, method, reported):
    files = {"train.py": FIT.format(trainer=trainer, method=method)}
    expected = [("train.py", "TL201", 6), ("train.py", "TL201", 7)] if reported else []
    assert findings(tmp_path, monkeypatch, files, "TL201") == expected
