"""A call cycle between methods (`step()` calls `learn()`, which calls
`self.optimizer.step()`, a call of a method named `step` too) must not make an answer depend
on the order of the questions: asking first about `step()`'s call of `learn()` reached
`learn()` while `step()` was still being answered, and `learn()` kept "a recursive call"
(unknown) for the rest of the file, so no sync in it was reported."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from torchlint.engine.context import FileContext, Options
from torchlint.semantics.frequency import Frequency
from torchlint.semantics.tree import descendants

AGENT = """
import torch


class Agent:
    def step(self, state, reward):
        self.memory.add(state, reward)
        if len(self.memory) > 64:
            self.learn(self.memory.sample())

    def learn(self, experiences):
        loss = self.critic(experiences).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        probe(loss)


def run(agent, env):
    for episode in range(100):
        state = env.reset()
        for t in range(500):
            state, reward = env.act(state)
            agent.step(state, reward)


run(Agent(), make_env())
"""


def _calls(module: cst.Module, name: str) -> list:
    return [node for node in descendants(module) if isinstance(node, cst.Call) and isinstance(node.func, (cst.Name, cst.Attribute))
            and (node.func.value if isinstance(node.func, cst.Name) else node.func.attr.value) == name]


@pytest.mark.parametrize("first", ["learn", "step", "probe"])
def test_answers_do_not_depend_on_the_order_of_questions(first: str) -> None:
    text = textwrap.dedent(AGENT)
    ctx = FileContext(cst.parse_module(text), text, "agent.py", Options())
    for call in _calls(ctx.module, first):
        ctx.execution(call)
    [probe] = _calls(ctx.module, "probe")
    assert ctx.execution(probe).frequency is Frequency.PER_STEP
