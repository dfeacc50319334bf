"""Round 19 (TL101, batch 27's link-prediction scripts): a script that picks a device
(`device = torch.device("cuda" if torch.cuda.is_available() else "cpu")`), never reads it and
places nothing itself runs its tensors on the CPU, even where other modules of the project
use CUDA: its read-backs wait for nothing (`host_programs.leaves_its_device_unused`). Reading
the device, `.cuda()`, `.to(...)`, a `device=` argument, or a project function that places
work on a device itself keeps the findings."""

from __future__ import annotations

import pytest

from test_recall_round2 import project

pytestmark = pytest.mark.stable_only

SCRIPT = """
import torch
from graph import load_graph{extra_import}

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
graph = load_graph()
model = torch.nn.Embedding(10, 4){placement}
optimizer = torch.optim.Adam(model.parameters())
for i in range(10):
    optimizer.zero_grad()
    row = torch.LongTensor([graph.edge_index[0][i].item()])
    loss = model(row).sum()
    loss.backward()
    optimizer.step()
"""

GRAPH = """
import torch


def load_graph():
    return torch.load("graph.pt")


def to_gpu(module):
    return module.cuda()
"""


def _findings(tmp_path, monkeypatch, placement: str = "", extra_import: str = "") -> list:
    files = {"graph.py": GRAPH, "train.py": SCRIPT.format(placement=placement, extra_import=extra_import)}
    return project(tmp_path, monkeypatch, files, "TL101")


def test_a_device_picked_and_never_used_leaves_the_script_on_the_cpu(tmp_path, monkeypatch):
    assert _findings(tmp_path, monkeypatch) == []


@pytest.mark.parametrize(
    "placement, extra_import",
    [
        (".to(device)", ""),
        (".cuda()", ""),
        ("\nprint(device)\nmodel = model.to(torch.device(\"cuda\"))", ""),
        ("\nmodel = to_gpu(model)", ", to_gpu"),
    ],
)
def test_a_script_that_places_work_keeps_its_findings(tmp_path, monkeypatch, placement, extra_import):
    assert _findings(tmp_path, monkeypatch, placement, extra_import) == [("train.py", 11 + placement.count("\n"))]
