"""Round 28: a branch whose test reads a setting that every configuration file of the project
decides the same way (`if p["loss_coeff"]["superpixel"] > 0:` with `superpixel: 0` in each
YAML file) is never taken: its code runs in no configuration. Hard negatives: a file that sets
the weight above zero, and files that disagree."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

TRAIN = """
import torch
import yaml

with open("configs/train.yml") as f:
    p = yaml.safe_load(f)

for epoch in range(10):
    for x, y in loader:
        loss = model(x.cuda()).sum()
        if {test}:
            weight = torch.ones(10).cuda()
            loss = loss + weight.sum()
        loss.backward()
"""


@pytest.mark.parametrize("test, configs, reported", [
    ('p["loss_coeff"]["superpixel"] > 0', ["superpixel: 0", "superpixel: 0"], set()),
    ('p["loss_coeff"]["superpixel"] > 0', ["superpixel: 0", "superpixel: 2"], {("train.py", "TL102", 12)}),
    ('p["loss_coeff"]["superpixel"] > 0', ["superpixel: 1"], {("train.py", "TL102", 12)}),
    ('p["use_head"]', ["use_head: false"], set()),
    ('not p["use_head"]', ["use_head: false"], {("train.py", "TL102", 12)}),
])
def test_branches_every_configuration_decides(tmp_path, monkeypatch, test, configs, reported):
    files = {"train.py": TRAIN.format(test=test)}
    for index, setting in enumerate(configs):
        key = setting.split(":")[0]
        section = f"loss_coeff:\n  {setting}\n" if key == "superpixel" else f"{setting}\n"
        files[f"configs/run{index}.yml"] = "lr: 0.1\n" + section
    assert project_findings(tmp_path, monkeypatch, files, "TL102", marker=".git") == reported
