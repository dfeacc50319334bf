"""Round 27: an action read back and handed to a same-file helper that passes it on to the
environment's step (`observe_env(obs, action.item())` around `env.step(action)` for each
skipped frame) must reach the host, as one handed to `env.step` directly. Hard negative: a
helper that only records the value."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

AGENT = """
import torch

device = torch.device("cuda")


def observe_env(obs, action):
    total = 0
    for i in range(4):
        obs, reward, done, info = env.step(action)
        total += reward
    return obs, total, done


def record(obs, action):
    history.append(action)
    return obs, 0.0, False


policy = torch.nn.Linear(4, 2).to(device)
optimizer = torch.optim.Adam(policy.parameters())
for episode in range(1000):
    obs, done = env.reset(), False
    while not done:
        action = policy(torch.as_tensor(obs, device=device)).argmax()
        obs, reward, done = {helper}(obs, action.item())
        loss = policy(torch.as_tensor(obs, device=device)).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""


@pytest.mark.parametrize("helper, reported", [("observe_env", []), ("record", [26])])
def test_an_action_handed_to_a_helper_that_steps_the_environment(helper, reported):
    assert lines(AGENT.format(helper=helper), "TL101") == reported
