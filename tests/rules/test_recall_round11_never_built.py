"""After batch 18 (read): methods of a class that nothing in a training project builds never
run, for every rule (`FrequencyAnalysis._never_built`, from `instantiation.unbuilt_definitions`):
an abandoned generator next to the model the script trains gets no per-step findings. A star
import hands names on only to modules that name them, unless the importer looks names up in
its own namespace, is a package's `__init__`, or is an export no program of the project
imports. A class holding the project's only training is not judged unused."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

MODELS = """
import torch
import torch.nn as nn


class Used(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        noise = torch.randn(x.size(0), 4).cuda()
        return self.fc(x) + noise


class Abandoned(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        noise = torch.randn(x.size(0), 4).cuda()
        return self.fc(x) + noise
"""

TRAIN = """
import torch
{imports}

if __name__ == "__main__":
    model = Used().cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(10):
        for x in loader:
            loss = model(x.cuda()).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
    {extra}
"""

USED, ABANDONED = ("models.py", "TL102", 12), ("models.py", "TL102", 22)


@pytest.mark.parametrize(
    ("imports", "extra", "expected"),
    [
        ("from models import Used", "", {USED}),
        ("from models import *", "", {USED}),
        ("from models import *", "model2 = globals()[name]()", {USED, ABANDONED}),
        # imported and never used: still never built (round 13); imported and built: live
        ("from models import Used, Abandoned", "", {USED}),
        ("from models import Used, Abandoned", "model2 = Abandoned()", {USED, ABANDONED}),
    ],
)
def test_methods_of_a_class_nothing_builds_never_run(tmp_path, monkeypatch, imports, extra, expected) -> None:
    files = {"models.py": MODELS, "train.py": TRAIN.format(imports=imports, extra=extra)}
    assert project_findings(tmp_path, monkeypatch, files, "TL102") == expected


def test_a_package_init_hands_its_star_imports_on(tmp_path, monkeypatch) -> None:
    (tmp_path / "pkg").mkdir()
    files = {
        "pkg/__init__.py": "from pkg.models import *\n",
        "pkg/models.py": MODELS,
        "train.py": TRAIN.format(imports="import pkg\nfrom pkg import Used", extra="other = getattr(pkg, name)()"),
    }
    assert project_findings(tmp_path, monkeypatch, files, "TL102") == {USED, ABANDONED}


def test_the_class_that_holds_the_only_training_is_not_unused(tmp_path, monkeypatch) -> None:
    learner = """
import torch


class Learner:
    def __init__(self, model):
        self.model = model.cuda()
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def train(self, loader):
        for x in loader:
            noise = torch.randn(x.size(0), 4).cuda()
            loss = self.model(x.cuda() + noise).sum()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
"""
    assert project_findings(tmp_path, monkeypatch, {"learner.py": learner}, "TL102") == {("learner.py", "TL102", 12)}
