"""Round 18 (TL101, batch 25's PPO agents): `act(state)` returns `action.item()`, and the
training and evaluation loops of other modules hand it to `env.step(action)`. A Gym
environment runs on the host and takes a host action, so the read-back is needed; it was
already silent when the loop is in the agent's own module. Where a loop of another module
does not hand the result to the environment (a loss it logs), the sync stays reported."""

from __future__ import annotations

import pytest

from test_recall_round2 import project

pytestmark = pytest.mark.stable_only

AGENT = """
import torch


class Agent:
    def __init__(self, policy):
        self.policy = policy.cuda()
        self.optimizer = torch.optim.Adam(self.policy.parameters())

    def act(self, state):
        with torch.no_grad():
            probs = self.policy(torch.as_tensor(state, device="cuda"))
            action = torch.distributions.Categorical(probs).sample()
        return action.item(), probs

    def update(self, states, returns):
        loss = ((self.policy(states) - returns) ** 2).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
"""

TRAIN = """
import gym
import torch
from agent import Agent


def evaluate(policy, epochs):
    env = gym.make("CartPole-v1")
    agent = Agent(policy)
    for epoch in range(epochs):
        state = env.reset()
        done = False
        while not done:
            {loop}
"""


@pytest.mark.parametrize(
    "loop",
    [
        "action, probs = agent.act(state)\n            state, reward, done, info = env.step(action)",
        "state, reward, done, info = env.step(agent.act(state)[0])",
    ],
)
def test_an_action_another_module_hands_to_the_environment_is_not_reported(tmp_path, monkeypatch, loop):
    files = {"agent.py": AGENT, "train.py": TRAIN.replace("{loop}", loop)}
    assert project(tmp_path, monkeypatch, files, "TL101") == []


def test_a_value_the_loop_does_not_hand_to_the_environment_stays_reported(tmp_path, monkeypatch):
    loop = "logged, probs = agent.act(state)\n            state, reward, done, info = env.step(env.action_space.sample())"
    files = {"agent.py": AGENT, "train.py": TRAIN.replace("{loop}", loop)}
    assert project(tmp_path, monkeypatch, files, "TL101") == [("agent.py", 14)]
