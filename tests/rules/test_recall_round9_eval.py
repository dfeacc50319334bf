"""The ninth recall round of issue 25, evaluation without `no_grad` (TL402): the validation
that a solver's epoch loop runs after training in the same iteration (through a helper
method, in a function no module is seen to call), and a script's evaluation every N
epochs after an inference-only branch that evaluated once and a training loop whose losses
are computed anew every batch. Positives and hard negatives, in the default mode a user
runs."""

from __future__ import annotations

from typing import Dict

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only


def findings(tmp_path, monkeypatch, files: Dict[str, str]) -> set:
    return project_findings(tmp_path, monkeypatch, files, "TL402")


# -- a solver whose epoch loop validates through the training helper -----------------------

SOLVER = """
import torch


class Solver(object):
    def __init__(self, data, model, optimizer, args):
        self.tr_loader = data["tr_loader"]
        self.cv_loader = data["cv_loader"]
        self.model = model
        self.optimizer = optimizer
        self.epochs = args.epochs

    def train(self):
        for epoch in range(self.epochs):
            {train}
            self.model.eval()
            {validate}

    def _run_one_epoch(self, epoch, cross_valid=False):
        total_loss = 0
        data_loader = self.tr_loader if not cross_valid else self.cv_loader
        for i, (x, y) in enumerate(data_loader):
            out = self.model(x.cuda())
            loss = ((out - y.cuda()) ** 2).mean()
            if not cross_valid:
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            total_loss += loss.item()
        return total_loss / (i + 1)
"""

_TRAIN = "self.model.train()\n            self._run_one_epoch(epoch)"


@pytest.mark.parametrize(
    ("train", "validate", "expected"),
    [
        (_TRAIN, "self._run_one_epoch(epoch, cross_valid=True)", {("solver.py", "TL402", 17)}),
        (_TRAIN, "val_loss = self._run_one_epoch(epoch, cross_valid=True)\n            print(val_loss)", {("solver.py", "TL402", 17)}),
        # hard negatives: validation under no_grad, an epoch loop that does not train (it
        # only evaluates checkpoints), training after the switch in the same iteration
        (_TRAIN, "with torch.no_grad():\n                self._run_one_epoch(epoch, cross_valid=True)", set()),
        ("self.model.load_state_dict(torch.load(str(epoch)))", "print(self.model(torch.ones(1, device='cuda')))", set()),
        ("pass", "self._run_one_epoch(epoch)", set()),
        (_TRAIN, "self._run_one_epoch(epoch, cross_valid=False)", set()),
        (_TRAIN, "self._run_one_epoch(epoch, **self.options)", set()),
    ],
)
def test_solver_validates_every_epoch(tmp_path, monkeypatch, train, validate, expected) -> None:
    files = {"solver.py": SOLVER.format(train=train, validate=validate)}
    assert findings(tmp_path, monkeypatch, files) == expected


# -- a script evaluating every N epochs in another module's function ------------------------

UTILS = """
import numpy as np
{decorator}
def evaluate(model, dataset, args):
    total = 0.0
    for u in range(len(dataset)):
        predictions = -model.predict(np.array([u]))
        total += predictions[0]
    return total / len(dataset)
"""

SCRIPT = """
import torch
from utils import *

if __name__ == "__main__":
    model = build(args).to(args.device)
    if args.inference_only:
        model.eval()
        print(evaluate(model, dataset, args))
    optimizer = torch.optim.Adam(model.parameters())
    for epoch in range(args.num_epochs):
        if args.inference_only:
            break
        for step in range(num_batch):
            u, seq = sampler.next_batch()
            loss = model(u, seq).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        if epoch % 20 == 0:
            model.eval()
            {evaluation}
            {back}
"""


@pytest.mark.parametrize(
    ("decorator", "evaluation", "back", "expected"),
    [
        ("", "t_test = evaluate(model, dataset, args)", "model.train()", {("main.py", "TL402", 21)}),
        ("", "t_test = evaluate(model, dataset, args)", "pass", {("main.py", "TL402", 21)}),
        # hard negatives: the evaluation runs without gradients, or its result is trained on
        ("@torch.no_grad()", "t_test = evaluate(model, dataset, args)", "model.train()", set()),
        ("", "with torch.no_grad():\n                t_test = evaluate(model, dataset, args)", "model.train()", set()),
        ("", "out = model(u, seq)", "out.mean().backward()", set()),
    ],
)
def test_script_evaluates_every_n_epochs(tmp_path, monkeypatch, decorator, evaluation, back, expected) -> None:
    files = {"utils.py": "import torch\n" + UTILS.format(decorator=decorator), "main.py": SCRIPT.format(evaluation=evaluation, back=back)}
    assert findings(tmp_path, monkeypatch, files) == expected


def test_rare_evaluation_alone_is_not_reported(tmp_path, monkeypatch) -> None:
    """Only the inference-only branch evaluates: it runs once."""
    script = SCRIPT.format(evaluation="pass", back="model.train()").replace("            model.eval()\n", "")
    files = {"utils.py": UTILS.format(decorator=""), "main.py": script}
    assert findings(tmp_path, monkeypatch, files) == set()


def test_gradient_after_an_evaluation_silences_only_that_one(tmp_path, monkeypatch) -> None:
    """A saliency pass differentiates what its evaluation computed; a later evaluation of the
    same module, every epoch, records a graph no one uses."""
    script = '''
import torch

def fit(model, loader, x, epochs, optimizer):
    model.eval()
    saliency = model(x).sum()
    saliency.backward()
    for epoch in range(epochs):
        model.train()
        for xb, yb in loader:
            loss = (model(xb) - yb).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        model.eval()
        print(model(x).mean())
'''
    assert findings(tmp_path, monkeypatch, {"fit.py": script}) == {("fit.py", "TL402", 15)}


def test_a_graph_carried_into_the_next_iteration_is_not_reported(tmp_path, monkeypatch) -> None:
    """The backward of the next iteration differentiates what the evaluation computed: its
    receiver is bound in the loop that also switches to eval mode."""
    script = '''
import torch

def fit(model, x, epochs, optimizer):
    score = None
    for epoch in range(epochs):
        if score is not None:
            optimizer.zero_grad()
            score.backward()
            optimizer.step()
        model.eval()
        score = model(x).sum()
'''
    assert findings(tmp_path, monkeypatch, {"fit.py": script}) == set()
