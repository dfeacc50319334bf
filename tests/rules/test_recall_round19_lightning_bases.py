"""Round 19 (TL102, batch 26's domain-adaptation models): a class's Lightning batch hooks run
once per batch when the class is a `LightningModule` by what the project shows, not only by a
base class of its own file:

- its base is a class of another project module that derives from `LightningModule`;
- a Lightning `Trainer` of its file fits (or validates) an instance of it, whatever its base
  (a library's `LightningModule` subclass the project cannot read:
  `self.trainer.fit(self.model, loader)` after `self.model = Seg(...)`).

A class whose base is another module's `nn.Module` and that no trainer fits keeps its
`validation_step` a plain method (round 18's hard negative, `test_recall_round18_fit_hooks.py`)."""

from __future__ import annotations

import pytest

from test_recall_round2 import project

pytestmark = pytest.mark.stable_only

BASE = """
import torch
import pytorch_lightning as pl


class SegBase({base}):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Conv2d(1, 2, 3)

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.cross_entropy(self.net(x), y)
"""

MODEL = """
import torch
import torch.nn.functional as F
{imports}


class DomainSeg({base}):
    def validation_step(self, batch, batch_idx):
        x_src, x_tar = batch
        domains = torch.zeros(x_src.size(0) + x_tar.size(0)).long().to(x_src.device)
        return F.cross_entropy(self.head(torch.cat([x_src, x_tar])), domains)
"""

FIT = """

class Classifier:
    def __init__(self, epochs):
        self.epochs = epochs

    def fit(self, loader):
        self.model = DomainSeg()
        self.trainer = pl.Trainer(max_epochs=self.epochs, accelerator="gpu")
        self.trainer.fit(self.model, loader)
        return self
"""


def test_a_lightning_base_of_another_module(tmp_path, monkeypatch):
    files = {"base.py": BASE.format(base="pl.LightningModule"), "model.py": MODEL.format(imports="from base import SegBase", base="SegBase")}
    assert project(tmp_path, monkeypatch, files, "TL102") == [("model.py", 10)]


def test_a_module_base_of_another_module_is_no_framework(tmp_path, monkeypatch):
    files = {"base.py": BASE.format(base="torch.nn.Module"), "model.py": MODEL.format(imports="from base import SegBase", base="SegBase")}
    assert project(tmp_path, monkeypatch, files, "TL102") == []


LIBRARY_BASE = "import pytorch_lightning as pl\nfrom neuralnets.networks.unet import UNet2D"


def test_a_class_a_lightning_trainer_of_its_file_fits(tmp_path, monkeypatch):
    files = {"model.py": MODEL.format(imports=LIBRARY_BASE, base="UNet2D") + FIT}
    assert project(tmp_path, monkeypatch, files, "TL102") == [("model.py", 11)]


def test_a_library_subclass_no_trainer_fits_is_no_framework(tmp_path, monkeypatch):
    unfitted = FIT.replace("self.trainer.fit(self.model, loader)", "self.model.validation_step(next(iter(loader)), 0)")
    files = {"model.py": MODEL.format(imports=LIBRARY_BASE, base="UNet2D") + unfitted}
    assert project(tmp_path, monkeypatch, files, "TL102") == []


def test_a_trainer_that_is_not_lightnings_fits_no_lightning_module(tmp_path, monkeypatch):
    """`Trainer` of another library (a project's own trainer class) does not make a Lightning module."""
    other = FIT.replace("pl.Trainer(", "Trainer(") + "\n\nclass Trainer:\n    def __init__(self, **options):\n        self.options = options\n\n    def fit(self, model, loader):\n        return model\n"
    files = {"model.py": MODEL.format(imports=LIBRARY_BASE, base="UNet2D") + other}
    assert project(tmp_path, monkeypatch, files, "TL102") == []
