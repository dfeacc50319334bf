"""The sixth recall round of issue 25, how often code runs: a helper shared by a training loop
and a test run once, a method reached through an instance built by a factory function of
another module, and a host value that decides early stopping. Each cause has positives and
hard negatives, in the default mode a user runs."""

from __future__ import annotations

import pytest

from test_recall_round2 import found, project

pytestmark = pytest.mark.stable_only

TRAINER = """
class Trainer:
    def __init__(self, model, loader, test_loader, device):
        self.model, self.loader, self.test_loader, self.device = model, loader, test_loader, device
        self.optimizer = torch.optim.Adam(model.parameters())

    def reset(self, n):
        return torch.zeros(n, 256).to(self.device)

    def train_one_epoch(self):
        for x, y in self.loader:
            h = {hidden}
            loss = self.model(x.to(self.device), h).sum()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()

    def train(self, epochs):
        for epoch in range(epochs):
            self.train_one_epoch()
        self.test()

    def test(self):
        for x, y in self.test_loader:
            h = self.reset(x.shape[0])
            print(self.model(x.to(self.device), h).argmax(1).eq(y).sum())
"""


@pytest.mark.parametrize(
    "hidden, reported",
    [
        # The training loop runs every epoch: the helper runs every training step, whatever the
        # test loop, run once after training, that also calls it.
        ("self.reset(x.shape[0])", [12]),
        # Only the final test calls it: no default finding.
        ("self.h0", []),
    ],
)
def test_a_helper_a_training_loop_and_a_final_test_share_runs_every_step(hidden, reported):
    assert found(TRAINER.format(hidden=hidden), "TL102") == reported


AGENT = """
import torch

class Agent:
    def __init__(self, device):
        self.device = device

    def update_critic(self, obs):
        loss = self.critic(obs).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()

    def update_cpc(self, obs):
        labels = torch.arange(obs.shape[0]).long().to(self.device)
        loss = self.cross_entropy(self.curl(obs), labels)
        loss.backward()
        self.cpc_optimizer.step()

    def update(self, buffer, step):
        obs = buffer.sample()
        self.update_critic(obs)
        if step % self.cpc_update_freq == 0:
            self.update_cpc(obs)
"""

TRAIN = """
import torch
from agent import Agent

def make_agent(device):
    {factory}

def main():
    agent = {build}
    for step in range(1000000):
        if step >= 1000:
            agent.update(buffer, step)
"""


@pytest.mark.parametrize(
    "factory, build, reported",
    [
        ("return Agent(device)", "make_agent(torch.device('cuda'))", [("agent.py", 15)]),
        ("return Agent(device)", "Agent(torch.device('cuda'))", [("agent.py", 15)]),
        # A factory that may return another class says nothing of `agent`'s class; `update()`
        # takes an optimizer step all the same (its `update_critic()`): each call is a step.
        ("return Agent(device) if device else Other(device)", "make_agent(torch.device('cuda'))", [("agent.py", 15)]),
        ("if device:\n        return Other(device)\n    return Agent(device)", "make_agent(torch.device('cuda'))", [("agent.py", 15)]),
    ],
)
def test_a_method_an_instance_runs_every_training_step_runs_every_step(tmp_path, monkeypatch, factory, build, reported):
    """`agent.update(...)` in the entry script's step loop, where `agent` comes from a factory
    function and `update()` trains through `self.update_critic(...)`: `update_cpc()`, which
    `update()` calls, runs every training step too."""
    files = {"agent.py": AGENT, "train.py": TRAIN.format(factory=factory, build=build)}
    assert project(tmp_path, monkeypatch, files, "TL102") == reported


# A full-batch training step: each epoch is one step.
TRAIN_STEP = """
def train_step():
    optimizer.zero_grad()
    loss = F.nll_loss(model(features.cuda()), labels.cuda())
    loss.backward()
    optimizer.step()
"""

EARLY_STOPPING = TRAIN_STEP + """    return loss.item()

def validate():
    with torch.no_grad():
        loss_val = F.nll_loss(model(features.cuda()), labels.cuda())
        acc_val = accuracy(model(features.cuda()), labels.cuda())
        return loss_val.item(), acc_val.item()

bad_counter, best = 0, 1e9
for epoch in range(1000):
    loss_tra = train_step()
    loss_val, acc_val = validate()
    print(loss_tra, loss_val, acc_val)
    {decision}
"""


@pytest.mark.parametrize(
    "decision, reported",
    [
        # The validation loss decides when training stops: it must reach the host every epoch
        # (and `acc_val`, returned with it, costs no further wait). The training loss does not.
        (
            "if loss_val < best:\n        best = loss_val\n        bad_counter = 0\n    else:\n        bad_counter += 1\n"
            "    if bad_counter == 100:\n        break",
            [11],
        ),
        ("if loss_val > 10:\n        break", [11]),
        # The best value is kept, but nothing stops the loop: only printed, every value is a cost.
        ("if loss_val < best:\n        best = loss_val", [11, 17, 17]),
        # A test on the training loss alone: the validation values decide nothing.
        ("if loss_tra > 10:\n        break", [17, 17]),
    ],
)
def test_a_value_that_decides_early_stopping_is_needed_on_the_host(decision, reported):
    assert found(EARLY_STOPPING.format(decision=decision), "TL101") == reported


FINAL_TEST = TRAIN_STEP + """
def evaluate():
    with torch.no_grad():
        return F.nll_loss(model(features.cuda()), labels.cuda()).item()

def run(split):
    for epoch in range(1000):
        train_step()
    return evaluate()

for i in range(10):
    print(run(i))
"""


def test_an_evaluation_after_a_full_batch_training_run_runs_once_per_run():
    """Each iteration of the outer loop runs a whole training run (its epochs are steps of
    full-batch training): the test after it runs once per run, not every step."""
    assert found(FINAL_TEST, "TL101") == []
    # Evaluated inside the training loop instead, it runs every step.
    assert found(FINAL_TEST.replace("        train_step()\n", "        train_step()\n        print(evaluate())\n"), "TL101") == [14]
