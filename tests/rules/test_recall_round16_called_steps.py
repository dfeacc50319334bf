"""Round 16 of issue 25: training steps taken through called code, read from the project
index. An agent's `learn()` that calls a helper of another module doing zero_grad, backward
and step takes a training step itself; the base class's loop that reaches it through
`self.train_step_interval()` is a step loop, so the read-backs of the agent's loss code run
every step. And a method without loops of a trainer class (`engine.eval(x, y)`), called in a
loop inside the epoch loop, runs for every batch of that pass."""

from __future__ import annotations

import pytest

from test_recall_round2 import project

pytestmark = pytest.mark.stable_only

UTILS = """
import torch

def update_params(optim, loss, networks, clip=None):
    optim.zero_grad()
    loss.backward()
    if clip:
        for net in networks:
            torch.nn.utils.clip_grad_norm_(net.parameters(), clip)
    optim.step()

def log_params(optim, loss):
    print(optim, loss)
"""

BASE = """
import torch
from abc import ABC, abstractmethod

class BaseAgent(ABC):
    def __init__(self, env):
        self.env = env
        self.steps = 0

    def train_episode(self):
        done = False
        state = self.env.reset()
        while not done:
            state, reward, done, _ = self.env.step(self.env.action_space.sample())
            self.steps += 1
            self.train_step_interval()

    def train_step_interval(self):
        if self.is_update():
            {call}

    @abstractmethod
    def learn(self):
        pass
"""

AGENT = """
import torch
from base_agent import BaseAgent
from utils import {helper}

class IQNAgent(BaseAgent):
    def __init__(self, env):
        super().__init__(env)
        self.net = torch.nn.Linear(4, 2).cuda()
        self.optim = torch.optim.Adam(self.net.parameters())

    def learn(self):
        states = torch.randn(32, 4, device="cuda")
        loss, mean_q = self.calculate_loss(states)
        {helper}(self.optim, loss, networks=[self.net])
        if self.steps % 100 == 0:
            print(mean_q)

    def calculate_loss(self, states):
        q = self.net(states)
        return q.pow(2).mean(), q.detach().mean().item()
"""

MAIN = """
import gym
from agent import IQNAgent

agent = IQNAgent(gym.make("CartPole-v1"))
for episode in range(1000):
    agent.train_episode()
"""


@pytest.mark.parametrize(
    "call, helper, reported",
    [
        # `learn()` steps through the helper; the base class's episode loop reaches it.
        ("self.learn()", "update_params", [("agent.py", 21)]),
        # A helper of the same shape that does not train: nothing proves a step loop.
        ("self.learn()", "log_params", []),
        # Learning only in an exception handler: a rare call.
        ("pass\n        try:\n            pass\n        except RuntimeError:\n            self.learn()", "update_params", []),
    ],
)
def test_a_step_taken_through_an_imported_helper_makes_the_base_class_loop_a_step_loop(tmp_path, monkeypatch, call, helper, reported):
    files = {"utils.py": UTILS, "base_agent.py": BASE.replace("{call}", call), "agent.py": AGENT.replace("{helper}", helper), "main.py": MAIN}
    assert project(tmp_path, monkeypatch, files, "TL101") == reported


ENGINE = """
import torch

class trainer:
    def __init__(self, model, lrate):
        self.model = model.cuda()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lrate)

    def train(self, x, y):
        self.model.train()
        self.optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(self.model(x), y)
        loss.backward()
        self.optimizer.step()
        return loss

    def eval(self, x, y):
        self.model.eval()
        loss = torch.nn.functional.mse_loss(self.model(x), y)
        return loss.item()
"""

TRAIN = """
import torch
from engine import trainer

def main(loaders, epochs):
    engine = trainer(torch.nn.Linear(4, 1), 1e-3)
    for i in range(1, epochs + 1):
        for x, y in loaders["train"]:
            engine.train(x.cuda(), y.cuda())
        {validation}

main(loaders, 100)
"""


@pytest.mark.parametrize(
    "validation, reported",
    [
        # Every validation batch of every epoch.
        ("for x, y in loaders['val']:\n            valid_loss = engine.eval(x.cuda(), y.cuda())", [("engine.py", 20)]),
        # Once per epoch, on one batch.
        ("valid_loss = engine.eval(x.cuda(), y.cuda())", []),
        # A loop over a display of splits: two calls per epoch, not batches.
        ("for split in ('val', 'test'):\n            valid_loss = engine.eval(x.cuda(), y.cuda())", []),
    ],
)
def test_a_trainer_method_called_for_every_batch_of_the_epoch_runs_every_step(tmp_path, monkeypatch, validation, reported):
    files = {"engine.py": ENGINE, "train.py": TRAIN.replace("{validation}", validation)}
    assert project(tmp_path, monkeypatch, files, "TL101") == reported


HELPER = """
import torch

def score(predictions, targets):
    return (predictions.argmax(-1) == targets).float().mean().item()

def score_all(model, loader):
    total = 0.0
    for x, y in loader:
        total += (model(x.cuda()).argmax(-1) == y.cuda()).float().mean()
    return total.item()
"""

EVALUATE = """
import torch
from helper import {function}

model = torch.nn.Linear(4, 2).cuda()
for epoch in range(10):
    for task, loader in enumerate(loaders):
        accuracy = {call}
"""


@pytest.mark.parametrize(
    "function, call",
    [
        # A module-level function, called in a loop inside the epoch loop of a program that
        # never trains: an inference script's results reach the host as they must.
        ("score", "score(model(x.cuda()), y.cuda())"),
        # A function with its own loop over the batches: it runs once per task, and its
        # per-batch work is judged inside it.
        ("score_all", "score_all(model, loader)"),
    ],
)
def test_a_callee_in_a_loop_inside_epochs_without_training_or_with_its_own_loop_is_not_per_batch(tmp_path, monkeypatch, function, call):
    files = {"helper.py": HELPER, "evaluate.py": EVALUATE.replace("{function}", function).replace("{call}", call)}
    assert ("helper.py", 5) not in project(tmp_path, monkeypatch, files, "TL101")


NORM = """
import torch

def global_grad_norm_(parameters, norm_type=2):
    total = 0.0
    for p in parameters:
        total += p.grad.norm(norm_type).item() ** norm_type
    return total ** (1.0 / norm_type)
"""

AGENT_UPDATE = """
import torch
from utils import global_grad_norm_

class Agent:
    def __init__(self):
        self.model = torch.nn.Linear(4, 2).cuda()
        self.optimizer = torch.optim.Adam(self.model.parameters())

    def train_model(self, states, targets, epochs):
        for i in range(epochs):
            for j in range(len(states) // 32):
                loss = (self.model(states[j]) - targets[j]).pow(2).mean()
                self.optimizer.zero_grad()
                {backward}
                global_grad_norm_(self.model.parameters())
                self.optimizer.step()

agent = Agent()
for update in range(1000):
    agent.train_model(states, targets, 4)
"""


@pytest.mark.parametrize(
    "backward, reported",
    [
        # A method's minibatch loop that runs backward: the helper runs every step.
        ("loss.backward()", [("utils.py", 7)]),
        # The same loop without a backward pass: nothing shows a step.
        ("pass", []),
    ],
)
def test_a_helper_called_in_a_methods_training_loop_runs_every_step(tmp_path, monkeypatch, backward, reported):
    files = {"utils.py": NORM, "agent.py": AGENT_UPDATE.replace("{backward}", backward)}
    assert project(tmp_path, monkeypatch, files, "TL101") == reported
