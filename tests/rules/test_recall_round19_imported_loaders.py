"""Round 19 (TL201, TL202, TL203, batch 27's CycleGAN): a data module builds its loaders as
module-level names; the training script imports them (`from dataloaders import men_loader`)
and hands them to its training function, whose epoch loop zips them, moves the batches to
CUDA and trains (`project.imported_global_hand_offs`). A script that imports them and only
counts them leaves them unknown."""

from __future__ import annotations

import pytest

from test_recall_round2 import project

pytestmark = pytest.mark.stable_only

DATALOADERS = """
from torch.utils.data import DataLoader
from faces import FaceDataset

plain_loader = DataLoader(FaceDataset("plain"), batch_size=32, shuffle=True)
glasses_loader = DataLoader(FaceDataset("glasses"), batch_size=32, shuffle=True, num_workers=4)
"""

RUN = """
import torch
from dataloaders import plain_loader, glasses_loader as glasses

device = "cuda" if torch.cuda.is_available() else "cpu"


def train(loader_a, loader_b, epochs):
    model = torch.nn.Linear(8, 8).to(device)
    optimizer = torch.optim.Adam(model.parameters())
    for epoch in range(epochs):
        for real_a, real_b in zip(loader_a, loader_b):
            real_a, real_b = real_a.to(device), real_b.to(device)
            loss = (model(real_a) - real_b).abs().mean()
            loss.backward()
            optimizer.step()


if __name__ == "__main__":
    {use}
"""


def _findings(tmp_path, monkeypatch, rule: str, use: str = "train(plain_loader, glasses, 100)") -> list:
    return project(tmp_path, monkeypatch, {"dataloaders.py": DATALOADERS, "run.py": RUN.format(use=use)}, rule)


@pytest.mark.parametrize("rule, lines", [("TL201", [5]), ("TL202", [5, 6]), ("TL203", [6])])
def test_loaders_imported_and_handed_to_a_training_function(tmp_path, monkeypatch, rule, lines):
    assert _findings(tmp_path, monkeypatch, rule) == [("dataloaders.py", line) for line in lines]


@pytest.mark.parametrize("rule", ["TL201", "TL202", "TL203"])
def test_loaders_imported_and_only_counted(tmp_path, monkeypatch, rule):
    assert _findings(tmp_path, monkeypatch, rule, use="print(len(plain_loader), len(glasses))") == []


def test_a_module_of_the_same_name_in_another_directory_is_not_the_one_imported(tmp_path, monkeypatch):
    """`from dataloaders import ...` in `cyclegan/run.py` imports `cyclegan/dataloaders.py`,
    not the `dcgan/dataloaders.py` beside a script that never imports its own."""
    files = {
        "cyclegan/dataloaders.py": DATALOADERS, "cyclegan/run.py": RUN.format(use="train(plain_loader, glasses, 100)"),
        "dcgan/dataloaders.py": DATALOADERS, "dcgan/train.py": "import torch\nprint(torch.cuda.is_available())\n",
    }
    for name in ("cyclegan", "dcgan", ".git"):  # one repository: the directories share a project
        (tmp_path / name).mkdir()
    assert project(tmp_path, monkeypatch, files, "TL201") == [("cyclegan/dataloaders.py", 5)]
