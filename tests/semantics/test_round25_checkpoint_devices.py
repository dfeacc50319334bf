"""Round 25: a device read only as where a checkpoint is loaded to (`torch.load(f,
map_location=self.device)`) places no work on it: `load_state_dict` copies the checkpoint
into the module's own parameters, which nothing moved. A file whose only use of its device is
that runs on the CPU (`host_programs.leaves_its_device_unused`); one that also moves its
network there does not."""

from __future__ import annotations

import pytest
from conftest import lint

pytestmark = pytest.mark.stable_only

AGENT = """
import torch
from torch import nn

class Agent:
    def __init__(self, device=None):
        self.device = device
        self.policy = nn.Linear(4, 2){move}
        self.optimizer = torch.optim.Adam(self.policy.parameters())

    def load(self, filename):
        self.policy.load_state_dict(torch.load(filename, map_location=self.device))

    def update(self, batches):
        for states, returns in batches:
            loss = (self.policy(states).sum(-1) - returns).pow(2).mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            print(loss.item())
"""


@pytest.mark.parametrize("move, lines", [("", []), (".to(self.device)", [20])])
def test_a_device_used_only_to_load_checkpoints(move, lines):
    assert [finding.line for finding in lint(AGENT.format(move=move), ["TL101"])] == lines
