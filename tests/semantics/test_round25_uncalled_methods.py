"""Round 25: the methods of a script's plain classes that nothing can call never run
(`instantiation.unbuilt_definitions`): a variant script that builds the agent, loads a checkpoint
and evaluates never calls the `update_parameters` it copied from the training script. A
method the script calls, a class with a library base (whose methods a library may call by
name), a module other modules import and a module with no top-level code keep their methods."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

AGENT = """
import torch
from torch import nn


class Agent{base}:
    def __init__(self, device):
        self.device = device
        self.critic = nn.Linear(4, 1).to(device)
        self.optimizer = torch.optim.Adam(self.critic.parameters())

    def update_parameters(self, batches):
        for states, returns in batches:
            loss = (self.critic(states.to(self.device)).squeeze(-1) - returns.to(self.device)).pow(2).mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            print(loss.item())

    def act(self, state):
        return self.critic(state.to(self.device))

{main}
"""

EVALUATE = """agent = Agent(torch.device("cuda"))
agent.critic.load_state_dict(torch.load("critic.pt"))
for state in states:
    agent.act(state)
"""

TRAIN = EVALUATE + "    agent.update_parameters(replay)\n"


@pytest.mark.parametrize("base, main, extra, reported", [
    ("", EVALUATE, {}, False),
    ("", TRAIN, {}, True),
    ("(nn.Module)", EVALUATE, {}, True),
    ("", "", {}, True),
    ("", EVALUATE, {"run.py": "from agent import Agent\n"}, True),
])
def test_methods_a_script_never_calls(tmp_path, monkeypatch, base, main, extra, reported):
    files = {"agent.py": AGENT.format(base=base, main=main), **extra}
    found = project_findings(tmp_path, monkeypatch, files, "TL101", marker=".git")
    assert bool({line for path, _, line in found if path == "agent.py"}) == reported
