"""Round 15 of issue 25: what called code does, read from the project index. A loop each
iteration of which calls another module's function that trains in loops of its own
(`exp.train(setting)`, `model = trainer(...)`) runs once per training run, not once per step;
the same loop around a function that takes one training step per call stays a step loop. A
`DataParallel` wrapper handed only to project functions that never train (the final
evaluation of the best checkpoint) is not trained."""

from __future__ import annotations

import pytest

from test_recall_round2 import project

pytestmark = pytest.mark.stable_only

EXPERIMENT = """
import torch

class Exp_Main:
    def __init__(self, args):
        self.model = torch.nn.Linear(4, 1).cuda()
        self.optimizer = torch.optim.Adam(self.model.parameters())

    def train(self, setting):
        for epoch in range(10):
            for x, y in self.loader:
                loss = self.model(x.cuda()).sub(y.cuda()).pow(2).mean()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()

    def step(self, x):
        loss = self.model(x.cuda()).sum()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss
"""

RUNS = """
import torch
from exp_main import Exp_Main

{alias}
for ii in range(args.itr):
    exp = {klass}(args)
    {call}
    torch.cuda.empty_cache()
"""


@pytest.mark.parametrize(
    "alias, klass, call, reported",
    [
        # Each iteration is a whole experiment (a training run of its own epochs): the cache is
        # emptied once per run, between runs.
        ("Exp = Exp_Main", "Exp", "exp.train(setting)", []),
        # The class is named as it is imported, without an alias.
        ("", "Exp_Main", "exp.train(setting)", []),
        # One training step per call: the loop is a step loop.
        ("Exp = Exp_Main", "Exp", "exp.step(batch)", [("run.py", 9)]),
        # A run only under a test is not every iteration's work.
        ("Exp = Exp_Main", "Exp", "if ii > 0: exp.train(setting)", [("run.py", 9)]),
    ],
)
def test_a_loop_of_experiments_runs_once_per_training_run(tmp_path, monkeypatch, alias, klass, call, reported):
    files = {"exp_main.py": EXPERIMENT, "run.py": RUNS.format(alias=alias, klass=klass, call=call)}
    assert project(tmp_path, monkeypatch, files, "TL104") == reported


def test_a_name_bound_to_two_classes_is_not_followed(tmp_path, monkeypatch):
    runs = RUNS.format(alias="Exp = Exp_Main", klass="Exp", call="exp.train(setting)").replace(
        "Exp = Exp_Main", "Exp = Exp_Main\nif args.other:\n    Exp = Other"
    )
    assert project(tmp_path, monkeypatch, {"exp_main.py": EXPERIMENT, "run.py": runs}, "TL104") == [("run.py", 11)]


TRAINER = """
import torch

def trainer(model, batches, iterations):
    model = model.cuda()
    optimizer = torch.optim.Adam(model.parameters())
    for i in range(iterations):
        x = next(batches).cuda()
        loss = model(x).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model
"""

FORECAST = """
import torch
from trainer import trainer

forecasts = []
for pattern in patterns:
    model = trainer(build(pattern), iter(sets[pattern]), iterations=1000)
    with torch.no_grad():
        forecasts.extend(model(last_window(pattern).cuda()).cpu().numpy())
"""


def test_the_forecast_of_each_trained_model_is_read_once_per_model(tmp_path, monkeypatch):
    files = {"trainer.py": TRAINER, "main.py": FORECAST}
    assert project(tmp_path, monkeypatch, files, "TL101") == []
    # Trained only under a test, the loop is not a loop of training runs.
    files["main.py"] = FORECAST.replace("    model = trainer(", "    if pattern in fresh: model = trainer(")
    assert project(tmp_path, monkeypatch, files, "TL101") == [("main.py", 9)]


TRAINTEST = """
import torch

def train(model, loader, optimizer):
    for x, y in loader:
        loss = model(x.cuda()).sub(y.cuda()).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

def validate(model, loader):
    model.eval()
    with torch.no_grad():
        return sum(model(x.cuda()).sum() for x, _ in loader)
"""

FINAL_EVALUATION = """
import torch
from traintest import train, validate

model = torch.nn.Linear(4, 1).cuda()
train(model, train_loader, torch.optim.Adam(model.parameters()))
model = torch.nn.DataParallel(model)
model.load_state_dict(torch.load("best.pth"))
{use}
"""


@pytest.mark.parametrize(
    "use, reported",
    [
        # The best checkpoint, wrapped to load its `module.` weights, is only evaluated.
        ("validate(model, test_loader)", []),
        # Trained after the wrap: every step replicates it.
        ("train(model, train_loader, optimizer)", [("run.py", 7)]),
        # Handed to a function the project does not define: it may train.
        ("fit(model, train_loader)", [("run.py", 7)]),
    ],
)
def test_data_parallel_only_for_the_final_evaluation_is_silent(tmp_path, monkeypatch, use, reported):
    files = {"traintest.py": TRAINTEST, "run.py": FINAL_EVALUATION.format(use=use)}
    assert project(tmp_path, monkeypatch, files, "TL501") == reported
