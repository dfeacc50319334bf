"""Round 25 (TL301): a norm appended under `if batchnorm:` in the body of the loop that builds
a layer list follows the layer appended before it in every pass where the flag holds; a flag
off by default that every call in the project turns on is on (`true_in_every_call`)."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

UTILS = """
import torch.nn as nn


def make_cnn(channels, batchnorm=False, dropout=0.0):
    layers = []
    for c_in, c_out in zip(channels[:-1], channels[1:]):
        layers.append(nn.Conv2d(c_in, c_out, 3))
        if batchnorm:
            layers.append(nn.BatchNorm2d(c_out))
        layers.append(nn.ReLU())
        if dropout > 0.0:
            layers.append(nn.Dropout(dropout))
    return nn.Sequential(*layers)
"""

MODEL = """
import torch.nn as nn
from utils import make_cnn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = make_cnn([3, 32, 64]{flag})

    def forward(self, x):
        return self.features(x)
"""


@pytest.mark.parametrize("flag, reported", [
    (", batchnorm=True", True),
    ("", False),  # off by default and never turned on: opt-in
    (", batchnorm=False", False),
])
def test_a_norm_appended_under_a_flag_in_the_loop(tmp_path, monkeypatch, flag, reported):
    files = {"utils.py": UTILS, "model.py": MODEL.format(flag=flag)}
    found = project_findings(tmp_path, monkeypatch, files, "TL301")
    assert {(path, line) for path, _, line in found} == ({("utils.py", 8)} if reported else set())
