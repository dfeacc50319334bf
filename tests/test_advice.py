"""Advice (severity `info`: once-per-program settings whose gain depends on the model) is
opt-in, and when selected it is shown but does not fail a CI gate; other findings do."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from torchlint.cli import main
from torchlint.engine.rule import all_rules

pytestmark = pytest.mark.stable_only

TRAINING = """
import torch
model = torch.nn.Linear(4, 2).cuda()
optimizer = torch.optim.Adam(model.parameters())
for x, y in loader:
    loss = model(x.cuda()).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""


def check(path, *options):
    arguments = ["check", "--no-cache", "--isolated", "--output-format", "json", *options, str(path)]
    result = CliRunner().invoke(main, arguments)
    return result.exit_code, sorted({item["code"] for item in json.loads(result.stdout)})


def test_advice_is_opt_in(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(TRAINING)
    assert check(path) == (0, [])
    assert "TL601" in check(path, "--extend-select", "ADVICE")[1]
    assert check(path, "--extend-select", "TL605")[1] == ["TL605"]
    assert set(check(path, "--select", "ALL")[1]) >= {"TL601", "TL605"}
    assert check(path, "--select", "ALL", "--ignore", "ADVICE")[1] == []


def test_advice_alone_exits_0_and_a_warning_exits_1(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(TRAINING)
    status, codes = check(path, "--extend-select", "ADVICE")
    assert status == 0 and codes and all(code in ADVICE for code in codes)
    path.write_text(TRAINING + "    print(loss.item())\n")
    status, codes = check(path, "--extend-select", "ADVICE")
    assert status == 1 and "TL101" in codes


def test_compile_advice_is_silent_where_the_program_differentiates_twice(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(TRAINING)
    assert "TL605" in check(path, "--extend-select", "ADVICE")[1]
    path.write_text(TRAINING + "    penalty = torch.autograd.grad(loss, x, create_graph=True)\n")
    assert "TL605" not in check(path, "--extend-select", "ADVICE")[1]


ADVICE = {rule.code for rule in all_rules() if rule.severity == "info"}


def test_the_advice_rules_are_the_model_dependent_settings():
    assert {"TL404", "TL601", "TL603", "TL604", "TL605"} <= ADVICE
    assert not {"TL101", "TL201", "TL301", "TL402", "TL501"} & ADVICE


TWO_ROUTINES = """
import torch
import torch.nn as nn
torch.backends.cuda.matmul.allow_tf32 = False
model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.Flatten(), nn.Linear(8, 2)).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
def train():
    for x in train_loader:
        for _ in range(n_critic):
            critic_loss(x.cuda()).backward()
            critic_opt.step()
        model(x.cuda()).sum().backward()
        optimizer.step()
    for x in train_loader:
        model(x.cuda()).sum().backward()
        optimizer.step()
def train_multi():
    data_iter = iter(celeba_loader)
    while step < total:
        x = next(data_iter)
        model(x.cuda()).sum().backward()
        optimizer.step()
"""


def test_advice_is_reported_once_per_file_at_its_first_training_loop(tmp_path):
    """Advice is about the program (`semantics.training.advice_site`): however many training
    loops and routines a file has (a critic's inner loop, a second epoch loop, a second
    routine), each advice rule reports once, at the first loop."""
    path = tmp_path / "train.py"
    path.write_text(TWO_ROUTINES)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", "ADVICE", "--output-format", "json", str(path)])
    findings = [item for item in json.loads(result.stdout) if item["code"] != "TL404"]
    codes = [item["code"] for item in findings]
    assert {"TL601", "TL603", "TL605"} <= set(codes)
    assert len(codes) == len(set(codes))
    assert {item["line"] for item in findings} == {8}
