"""The eighth recall round of issue 25 (lead), TL402: evaluation that another module's
function runs through a method of the model (`model.predict(users, items)` for every user,
as recommendation code evaluates), after the training script puts the model in eval mode
every few epochs. The module's own housekeeping methods (`model.state_dict()`) run nothing,
and a helper under `torch.no_grad()` records no graph."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

EVALUATE = """
import numpy as np
import torch


{decorator}def evaluate(model, dataset):
    hits = 0.0
    for user in dataset.users:
        scores = {use}
        hits += float(scores.argsort()[0] < 10)
    return hits / len(dataset.users)
"""

MAIN = """
import torch
from utils import evaluate
from model import Recommender

model = Recommender().to("cuda")
opt = torch.optim.Adam(model.parameters())
for epoch in range(200):
    model.train()
    for step in range(100):
        loss = model(torch.randn(8, 4, device="cuda")).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    if epoch % 20 == 0:
        model.eval()
        print(evaluate(model, dataset))
"""

MODEL = """
import torch
import torch.nn as nn


class Recommender(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(100, 4)

    def forward(self, x):
        return x @ self.emb.weight.T

    def predict(self, users, items):
        return self.emb(torch.as_tensor(items, device="cuda")).sum(-1)
"""


@pytest.mark.parametrize(
    "decorator, use, reported",
    [
        ("", "-model.predict(np.array([user]), dataset.items)", True),
        ("", "-model(np.array([user]))", True),
        ("@torch.no_grad()\n", "-model.predict(np.array([user]), dataset.items)", False),
        ("", "np.array([len(model.state_dict())])", False),
        ("", "-model._cache[user]", False),
        ("", "np.array([model.register_full_backward_pre_hook(print) is None])", False),
        ("", "np.array([model.register_state_dict_pre_hook(print) is None])", False),
    ],
)
def test_evaluation_through_a_method_of_the_model_in_another_module(tmp_path, monkeypatch, decorator, use, reported):
    files = {"utils.py": EVALUATE.format(decorator=decorator, use=use), "main.py": MAIN, "model.py": MODEL}
    found = project_findings(tmp_path, monkeypatch, files, "TL402")
    assert (("main.py", "TL402", 16) in found) is reported


def test_the_message_names_the_switch_the_code_uses(tmp_path, monkeypatch):
    """`model.train(False)` is reported as what it is written as, not as `.eval()`."""
    from click.testing import CliRunner

    from torchlint.cli import main

    files = {"utils.py": EVALUATE.format(decorator="", use="-model(np.array([user]))"), "main.py": MAIN.replace("model.eval()", "model.train(False)"), "model.py": MODEL}
    assert ("main.py", "TL402", 16) in project_findings(tmp_path, monkeypatch, files, "TL402")
    result = CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", "TL402", "--output-format", "concise", "."])
    assert "`.train(False)` does not disable autograd" in result.stdout and "`.eval()`" not in result.stdout
