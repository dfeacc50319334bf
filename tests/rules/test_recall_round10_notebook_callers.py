"""The tenth round of issue 25: a helper module's function that a notebook's training loop
calls every step (`acc = accuracy_fn(y, y_pred.argmax(dim=1))` in a tutorial notebook, with
`accuracy_fn` imported from `helper_functions.py`) runs every step: notebooks count among
the callers the project index reads (`project.callers_of`). Hard negatives: a notebook that
calls it once after training, a notebook whose JSON is broken, magics in the cells."""

from __future__ import annotations

import json

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

HELPERS = """
import torch


def accuracy_fn(y_true, y_pred):
    correct = torch.eq(y_true, y_pred).sum().item()
    return correct / len(y_pred) * 100


def set_seeds(seed=42):
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)
"""

TRAINING_CELLS = [
    "%matplotlib inline\n!pip install -q torchmetrics\nimport torch\nfrom helper_functions import accuracy_fn\ndevice = 'cuda'",
    "for epoch in range(epochs):\n"
    "    for X, y in train_loader:\n"
    "        X, y = X.to(device), y.to(device)\n"
    "        y_pred = model(X)\n"
    "        loss = loss_fn(y_pred, y)\n"
    "        {inside}\n"
    "        optimizer.zero_grad()\n"
    "        loss.backward()\n"
    "        optimizer.step()\n"
    "{after}",
]


def notebook(cells) -> str:
    return json.dumps({
        "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": cell} for cell in cells],
        "metadata": {"kernelspec": {"language": "python", "name": "python3"}, "language_info": {"name": "python"}},
        "nbformat": 4, "nbformat_minor": 5,
    })


def helper_lines(tmp_path, monkeypatch, notebook_text: str) -> set:
    files = {"helper_functions.py": HELPERS, "train.ipynb": notebook_text}
    return {line for path, code, line in project_findings(tmp_path, monkeypatch, files, "TL101") if path == "helper_functions.py"}


def test_helper_called_every_step_by_a_notebook(tmp_path, monkeypatch) -> None:
    cells = [TRAINING_CELLS[0], TRAINING_CELLS[1].format(inside="acc = accuracy_fn(y, y_pred.argmax(dim=1))", after="")]
    assert helper_lines(tmp_path, monkeypatch, notebook(cells)) == {6}


def test_helper_called_once_after_training_by_a_notebook(tmp_path, monkeypatch) -> None:
    after = "acc = accuracy_fn(y_test, model(X_test).argmax(dim=1))\n"
    cells = [TRAINING_CELLS[0], TRAINING_CELLS[1].format(inside="pass", after=after)]
    assert helper_lines(tmp_path, monkeypatch, notebook(cells)) == set()


def test_a_broken_notebook_is_no_caller(tmp_path, monkeypatch) -> None:
    assert helper_lines(tmp_path, monkeypatch, '{"cells": [') == set()
