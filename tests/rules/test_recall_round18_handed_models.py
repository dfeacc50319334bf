"""Round 18 (TL102, batch 24's S3-Rec causal mask): a trainer class keeps the model it is
given (`self.model = model` in `__init__`) and its loop calls `self.model.finetune(ids)` every
step. What the project hands that parameter, in every construction of the class or of a
subclass that passes it on through `super().__init__`, shows whose method that is
(`project._handed_modules`); a model the project does not show, or a library's, keeps the
method unknown (round 9's decision, `test_semantics_not_names.py`)."""

from __future__ import annotations

import pytest

from test_recall_round2 import project

pytestmark = pytest.mark.stable_only

MODELS = """
import torch


class SeqModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = torch.nn.Linear(8, 8)

    def finetune(self, ids):
        n = ids.size(1)
        mask = torch.triu(torch.ones(n, n), diagonal=1)
        mask = mask.cuda()
        return self.layer(ids) * mask
"""

TRAINERS = """
import torch


class Trainer:
    def __init__(self, model, loader):
        self.model = model
        self.loader = loader
        self.optim = torch.optim.Adam(self.model.parameters())


class FinetuneTrainer(Trainer):
    def __init__(self, model, loader, args):
        super().__init__({handed}, loader)

    def train(self):
        for ids in self.loader:
            loss = self.model.finetune(ids.cuda()).sum()
            loss.backward()
            self.optim.step()
"""

MAIN = """
import torch
import torchvision
from models import SeqModel
from trainers import FinetuneTrainer


def main(args, loader):
    model = {model}
    trainer = FinetuneTrainer(model, loader, args)
    trainer.train()


def again(args, loader, model):
    FinetuneTrainer({other}, loader, args).train()
"""


def check(tmp_path, monkeypatch, model="SeqModel()", handed="model", other="SeqModel()"):
    files = {
        "models.py": MODELS,
        "trainers.py": TRAINERS.replace("{handed}", handed),
        "main.py": MAIN.replace("{model}", model).replace("{other}", other),
    }
    return project(tmp_path, monkeypatch, files, "TL102")


def test_a_method_of_the_model_the_project_hands_the_trainer_runs_every_step(tmp_path, monkeypatch):
    assert check(tmp_path, monkeypatch) == [("models.py", 12)]


@pytest.mark.parametrize(
    "change",
    [
        # A library's model in every construction: its `finetune` is not the project's.
        {"model": "torchvision.models.resnet18()", "other": "torchvision.models.resnet18()"},
        # One construction hands on a model the project does not show (a parameter).
        {"other": "model"},
        # The subclass hands the base class something else than its own parameter.
        {"handed": "torchvision.models.resnet18()"},
    ],
)
def test_a_model_the_project_does_not_show_keeps_the_method_unknown(tmp_path, monkeypatch, change):
    assert check(tmp_path, monkeypatch, **change) == []



def test_a_subclass_that_calls_the_base_init_otherwise_keeps_the_method_unknown(tmp_path, monkeypatch):
    # The base class is built with the project's model, but the subclass whose loop calls
    # `finetune` hands it a library model through `Trainer.__init__(self, ...)`.
    files = {
        "models.py": MODELS,
        "trainers.py": TRAINERS.replace("super().__init__({handed}, loader)", "Trainer.__init__(self, torchvision.models.resnet18(), loader)"),
        "main.py": MAIN.replace("{model}", "SeqModel()").replace("{other}", "SeqModel()")
        + "\nfrom trainers import Trainer\nTrainer(SeqModel(), loader)\n",
    }
    assert project(tmp_path, monkeypatch, files, "TL102") == []
