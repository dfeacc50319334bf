"""Round 27: a program whose only devices are command-line settings that default to the CPU
(`add_argument("--device", default="cpu")`, then `.to(args.device)`), which no launch script of
the project sets, and which names no accelerator, runs on the host: its reads wait for nothing.
Hard negatives: a launch script that passes `--device cuda`, a default naming CUDA, and code
that names an accelerator elsewhere."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

MAIN = """
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--device", default={default}, type=str)
args = parser.parse_args()

model = torch.nn.Linear(4, 2).to(args.device)
optimizer = torch.optim.Adam(model.parameters())
{extra}
for epoch in range(10):
    for x, y in loader:
        x, y = x.to(args.device), y.to(args.device)
        loss = (model(x) - y).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(loss.item())
"""


@pytest.mark.parametrize("default, extra, script, reported", [
    ('"cpu"', "", "python main.py --lr 0.1\n", set()),
    ('"cpu"', "", "python main.py --device cuda\n", {("main.py", "TL101", 19)}),
    ('"cuda"', "", "python main.py\n", {("main.py", "TL101", 19)}),
    ('"cpu"', "torch.cuda.manual_seed(0)", "python main.py\n", {("main.py", "TL101", 19)}),
])
def test_devices_from_options_that_default_to_the_cpu(tmp_path, monkeypatch, default, extra, script, reported):
    files = {"main.py": MAIN.format(default=default, extra=extra), "run.sh": script}
    assert project_findings(tmp_path, monkeypatch, files, "TL101") == reported
