"""Round 23: a loop trains when its iteration calls, itself or through a same-file helper,
another project module's function that runs a backward pass (`update_params(batch)` calling
`core.a2c.a2c_step(...)` in an RL main loop). TL104 and TL108 report only loops that run with
training since this round, so their findings there depend on it; a loop whose helper only
evaluates stays their preview variant."""

from __future__ import annotations

import pytest

from test_recall_round2 import project

pytestmark = pytest.mark.stable_only

CORE = """
import torch

def a2c_step(policy, optimizer, states, returns):
    loss = (policy(states) - returns).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

def evaluate(policy, states):
    with torch.no_grad():
        return policy(states).mean()
"""

MAIN = """
import torch
from core import a2c_step, evaluate

def update_params(batch):
    states = torch.as_tensor(batch).cuda()
    {call}

def main_loop():
    for i_iter in range(max_iter_num):
        batch = agent.collect_samples(2048)
        update_params(batch)
        torch.cuda.empty_cache()

main_loop()
"""


@pytest.mark.parametrize("call, reported", [
    ("a2c_step(policy, optimizer, states, returns)", [("main.py", 13)]),
    ("evaluate(policy, states)", []),
])
def test_a_loop_that_trains_through_a_helper_of_another_module(tmp_path, monkeypatch, call, reported):
    files = {"core.py": CORE, "main.py": MAIN.format(call=call)}
    assert project(tmp_path, monkeypatch, files, "TL104") == reported
