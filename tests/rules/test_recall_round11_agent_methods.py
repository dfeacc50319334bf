"""The eleventh round of issue 25: an RL script's frame loop calls a method of its own agent
(`agent.step(...)` on `agent = Agent(...)`, a class of the same file), which calls `learn()`
with its backward pass and optimizer steps. The loop trains through that instance's method
(`training.LocalFunctions.on_instances`), and a sync in `learn()` is a training sync, not a
value the environment needs (its `act()` is). Hard negatives: the environment's own `step()`
(no class of the file), a name bound to two classes, the action computed by `act()`, and a
host value."""

from __future__ import annotations

import textwrap

import pytest
from conftest import lint

pytestmark = pytest.mark.stable_only

SCRIPT = """
import torch
import torch.nn.functional as F

device = torch.device("cuda:0" if torch.cuda.is_available() else "cpu")


class Agent:
    def __init__(self):
        self.critic = torch.nn.Linear(4, 1).to(device)
        self.optimizer = torch.optim.Adam(self.critic.parameters())

    def act(self, state):
        return self.critic(torch.as_tensor(state, device=device)).cpu()

    def step(self, state, reward):
        self.memory.add(state, reward)
        if len(self.memory) > 64:
            self.learn(self.memory.sample())

    def learn(self, experiences):
        states, rewards = experiences
        q = self.critic(states)
        loss = F.mse_loss(q, rewards)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.last_loss = {read}


def run(n_episodes=200, max_t=500):
    for episode in range(n_episodes):
        state = env.reset()
        for t in range(max_t):
            action = agent.act(state)
            state, reward, done, info = env.step(action.numpy())
            {call}
            if done:
                break


if __name__ == "__main__":
    {binding}
    run()
"""


def _lines(read: str = "loss.item()", call: str = "agent.step(state, reward)", binding: str = "agent = Agent()") -> list:
    code = textwrap.dedent(SCRIPT.format(read=read, call=call, binding=binding))
    return [f.line for f in lint(code, ["TL101"])]


def test_sync_in_the_learn_method_an_agent_instance_reaches_every_frame() -> None:
    assert _lines() == [28]


def test_action_read_back_for_the_environment_is_needed() -> None:
    # `act()`'s `.cpu()` (line 14) feeds `env.step`: silent, whatever the rest.
    assert 14 not in _lines()


def test_name_bound_to_two_classes_is_not_followed() -> None:
    assert _lines(binding="agent = Agent() if fast else OtherAgent()\n    agent = Agent()\n    agent = make_agent()") == []


def test_call_on_an_object_of_no_class_of_the_file_is_not_followed() -> None:
    assert _lines(call="memory.step(state, reward)") == []


def test_host_value_is_silent() -> None:
    assert _lines(read="float(len(self.memory))") == []
