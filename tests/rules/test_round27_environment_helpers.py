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


PRIORITIES = """
import torch

device = torch.device("cuda")


def update():
    batch, idx, weights = buffer.replay(size=32)
    states = torch.tensor(batch, dtype=torch.float32).to(device)
    td_error = (net(states) - target).pow(2).sum(-1)
    loss = (td_error * torch.tensor(weights, device=device)).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    {holder}.set_priority(td_error.detach().cpu().numpy(), idx)


for frame in range(10000):
    state = env.reset()
    update()
"""


@pytest.mark.parametrize("holder, reported", [("buffer", []), ("recorder", [15])])
def test_priorities_of_the_replay_memory_the_update_draws_from(holder, reported):
    """The memory hands out experience by `replay(...)`: its new priorities decide the next
    batches, so they must reach the host; another object's are no such need."""
    assert lines(PRIORITIES.format(holder=holder), "TL101") == reported


STORE_ONLY = """
import torch

device = torch.device("cuda")


def update(s, a, r):
    memory.append_to_replay(s, a, r)
    batch = memory.prep_minibatch()
    loss = net(batch.to(device)).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    memory.save_td(loss.item())


for frame in range(10000):
    update(s, a, r)
"""


def test_a_memory_that_only_stores_by_replay_hands_out_nothing():
    """`append_to_replay` stores experience: the memory draws no batch the loss decides."""
    assert lines(STORE_ONLY, "TL101") == [14]
