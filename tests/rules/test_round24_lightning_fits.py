"""Round 24 (TL202, TL203): loaders reach a Lightning trainer's `fit` through project code: a
trainer a project function builds (`model, trainer = src.build_from_yaml(path)`, then
`trainer.fit(model, train_dataloader=train_dl, val_dataloaders=[val_dl])`), and a project
function that hands its loader parameters on to `fit` (`train(learner, train_loader,
val_loader, args)`; `FunctionFacts.fitted_parameters`). In a project that does not import
Lightning, or through a function that hands the loader elsewhere, nothing is assumed."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

BUILDER = """
import pytorch_lightning as pl


def build_from_yaml(path):
    model = Model(path)
    trainer = pl.Trainer(accelerator="gpu", devices=1, max_epochs=100)
    return model, trainer
"""

SCRIPT = """
import torch
from builder import build_from_yaml


def main(args):
    model, trainer = build_from_yaml(args.yaml_file)
    train_dl = torch.utils.data.DataLoader(train_ds, batch_size=32, shuffle=True, num_workers=4)
    val_dl = torch.utils.data.DataLoader(val_ds, batch_size=32, num_workers=2)
    trainer.{method}(model, train_dataloader=train_dl, val_dataloaders=[val_dl])
"""

FOUND = {(file, code, line) for file, line in (("train.py", 8), ("train.py", 9)) for code in ("TL202", "TL203")}


@pytest.mark.parametrize("builder, method, expected", [
    (BUILDER, "fit", FOUND),
    (BUILDER, "tune", set()),
    # a project without Lightning: its builder's `fit` is another library's
    (BUILDER.replace("import pytorch_lightning as pl", "import sklearn as pl"), "fit", set()),
    # a builder that makes no Lightning trainer: its object's `fit` is the project's own loop
    (BUILDER.replace('pl.Trainer(accelerator="gpu", devices=1, max_epochs=100)', "Loop(max_epochs=100)"), "fit", set()),
])
def test_a_trainer_a_project_function_builds(tmp_path, monkeypatch, builder, method, expected):
    files = {"builder.py": builder, "train.py": SCRIPT.format(method=method)}
    assert project_findings(tmp_path, monkeypatch, files, "TL202,TL203") == expected


UTILS = """
import lightning.pytorch as pl


def train(learner, train_loader, val_loader, args):
    trainer = pl.Trainer(max_epochs=args.n_epochs, accelerator="gpu")
    trainer.{call}
"""

MAIN = """
from torch.utils.data import DataLoader

if __name__ == "__main__":
    from utils import train
    train_loader = DataLoader(train_dataset, batch_size=1, shuffle=True, num_workers=8)
    val_loader = DataLoader(val_dataset, batch_size=1, num_workers=8)
    train(Learner(model, config), train_loader, val_loader, args)
"""


@pytest.mark.parametrize("call, expected", [
    ("fit(learner, train_loader, val_loader)", {(f, c, l) for f, l in (("main.py", 6), ("main.py", 7)) for c in ("TL202", "TL203")}),
    ("fit(learner, train_dataloaders=train_loader)", {("main.py", "TL202", 6), ("main.py", "TL203", 6)}),
    ("test(learner, val_loader)", set()),
])
def test_a_function_that_hands_its_loaders_to_fit(tmp_path, monkeypatch, call, expected):
    files = {"utils.py": UTILS.format(call=call), "main.py": MAIN}
    assert project_findings(tmp_path, monkeypatch, files, "TL202,TL203") == expected
