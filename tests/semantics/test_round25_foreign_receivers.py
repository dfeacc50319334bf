"""Round 25: a call through a name an import binds (`torch.log(x)`, `np.log(p)`) is no call of
the file's own method of that name: a PPO class's `log()` is not entered every minibatch
because `update()` computes `torch.log(sigma)` there (`FrequencyAnalysis._on_foreign_instance`)."""

from __future__ import annotations

import pytest
from conftest import lint

pytestmark = pytest.mark.stable_only

CODE = """
import torch


class PPO:
    def __init__(self, policy, optimizer):
        self.policy, self.optimizer = policy, optimizer

    def update(self, batches):
        for obs, old_sigma in batches:
            sigma = self.policy(obs.cuda())
            loss = {call}.mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()

    def log(self, std):
        print(std.item())
"""


@pytest.mark.parametrize("call, lines", [("torch.log(sigma / old_sigma.cuda())", []), ("self.log(sigma)", [18])])
def test_a_library_call_does_not_enter_a_method_of_the_same_name(call, lines):
    assert [finding.line for finding in lint(CODE.format(call=call), ["TL101"])] == lines
