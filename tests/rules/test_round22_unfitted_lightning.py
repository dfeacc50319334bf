"""Round 22 (batch 30, part a: a tutorial script and notebooks that define a LightningModule and
then fine-tune another object, with `trainer.fit(...)` commented out): a Lightning module's
batch hooks run only when a trainer is handed an instance. In a program that no project module
imports, a class whose instances the code only builds into names and reads attributes of
reaches no trainer: its `training_step` never runs. An instance handed to any call (a trainer,
a function of another module), a class another module imports, or a LightningCLI program keeps
the hooks per-step code."""

from __future__ import annotations

import pytest
from conftest import project_findings

SCRIPT = """
import torch
import pytorch_lightning as pl


class LitDiffusion(pl.LightningModule):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def training_step(self, batch, batch_idx):
        (x0,) = batch
        t = torch.rand(x0.shape[0]).to(x0.device)
        return self.model(x0, t).mean()

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters())


model = torch.nn.Linear(3, 2).cuda()
pl_model = LitDiffusion(model)
{use}
"""


@pytest.mark.parametrize("use, reported", [
    ("# trainer = pl.Trainer(max_epochs=10)\n# trainer.fit(pl_model, loader)", False),
    ("pl_model.eval()\nprint(pl_model.model)", False),
    ("trainer = pl.Trainer(max_epochs=10)\ntrainer.fit(pl_model, loader)", True),
    ("trainer = pl.Trainer(max_epochs=10)\ntrainer.fit(model=pl_model, train_dataloaders=loader)", True),
    ("run_training(pl_model)", True),
    ("models = [pl_model]", True),
])
def test_training_step_of_a_module_no_trainer_gets(tmp_path, monkeypatch, use, reported):
    found = project_findings(tmp_path, monkeypatch, {"train.py": SCRIPT.format(use=use)}, "TL102", marker=".git")
    assert found == ({("train.py", "TL102", 13)} if reported else set())


def test_class_another_module_imports(tmp_path, monkeypatch):
    files = {
        "lit.py": SCRIPT.format(use=""),
        "main.py": "import pytorch_lightning as pl\nfrom lit import LitDiffusion\n\npl.Trainer().fit(LitDiffusion(None), loader)\n",
    }
    assert project_findings(tmp_path, monkeypatch, files, "TL102", marker=".git") == {("lit.py", "TL102", 13)}
