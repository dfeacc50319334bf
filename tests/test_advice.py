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
