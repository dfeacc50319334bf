"""The sixth recall round of issue 25, training steps: a method reached through an
instance from another module's step loop runs every step when the method it calls runs the
backward pass (each call is a training step), and not when the calls are rare or once."""

from __future__ import annotations

from typing import Dict

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only


def findings(tmp_path, monkeypatch, files: Dict[str, str], rules: str = "TL101,TL102") -> set:
    return project_findings(tmp_path, monkeypatch, files, rules)


AGENT = """
import torch
import torch.nn.functional as F


class Agent:
    def __init__(self, device):
        self.device = device
        self.encoder = torch.nn.Linear(8, 8).to(device)
        self.optimizer = torch.optim.Adam(self.encoder.parameters())

    def update_cpc(self, obs_anchor, obs_pos):
        logits = self.encoder(obs_anchor) @ self.encoder(obs_pos).T
        labels = torch.arange(logits.shape[0]).long().to(self.device)
        loss = F.cross_entropy(logits, labels)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def update(self, replay_buffer, step):
        obs, pos = replay_buffer.sample()
        {update}
"""

TRAIN = """
import torch
from agent import Agent


def main(env, replay_buffer):
    device = torch.device("cuda")
    agent = Agent(device)
    for step in range(1000000):
        env.step(agent.act(env.obs))
        {call}
    {after}


if __name__ == "__main__":
    main(make_env(), make_buffer())
"""


@pytest.mark.parametrize(
    ("update", "call", "after", "expected"),
    [
        # every step calls `update`, whose callee runs the backward pass
        ("return self.update_cpc(obs, pos)", "if step >= 1000:\n            agent.update(replay_buffer, step)", "",
         {("agent.py", "TL102", 14), ("agent.py", "TL101", 19)}),
        # hard negatives: the update runs only when debugging, or once after the loop
        ("return self.update_cpc(obs, pos)", "if debug:\n            agent.update(replay_buffer, step)", "", set()),
        ("return self.update_cpc(obs, pos)", "pass", "agent.update(replay_buffer, 0)", set()),
    ],
)
def test_a_method_reached_through_an_instance(tmp_path, monkeypatch, update, call, after, expected) -> None:
    files = {"agent.py": AGENT.replace("{update}", update), "train.py": TRAIN.replace("{call}", call).replace("{after}", after)}
    assert findings(tmp_path, monkeypatch, files) == expected



HELPER = """
import torch


class Trainer:
    def __init__(self, model, train_loader, test_loader):
        self.device = torch.device("cuda")
        self.model = model.to(self.device)
        self.train_loader, self.test_loader = train_loader, test_loader
        self.optimizer = torch.optim.Adam(model.parameters())

    def reset(self):
        return torch.FloatTensor(32, 2).uniform_(-1, 1).to(self.device)

    def test(self):
        for x, y in self.test_loader:
            self.model(x.to(self.device), self.reset())

    def train(self):
        for epoch in range(100):
            for x, y in self.train_loader:
                loss = self.model(x.to(self.device), {state}).sum()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
"""


@pytest.mark.parametrize(("state", "expected"), [("self.reset()", {("trainer.py", "TL102", 13)}), ("None", set())])
def test_a_helper_of_the_training_loop_that_a_final_test_also_calls(tmp_path, monkeypatch, state, expected) -> None:
    """The training loop's call decides; a helper only the test loop calls is the preview variant."""
    assert findings(tmp_path, monkeypatch, {"trainer.py": HELPER.replace("{state}", state)}) == expected


PER_SAMPLE = """
import torch

device = torch.device("cuda")
model = torch.nn.Linear(8, 8).to(device)
optimizer = torch.optim.Adam(model.parameters())


def train(loader, epochs):
    for epoch in range(epochs):
        for i, batch in enumerate(loader):
            mels, lengths = [b.to(device) for b in batch]
            outputs = []
            for n in range(len(lengths)):
                length = int(lengths[n].item())
                outputs.append(model(mels[n, :, :length]))
            loss = torch.stack(outputs).sum()
            {step}
"""


@pytest.mark.parametrize(
    ("step", "expected"),
    [
        ("optimizer.zero_grad()\n            loss.backward()\n            optimizer.step()", {("train.py", "TL101", 15)}),
    ],
)
def test_a_per_sample_loop_inside_a_training_step(tmp_path, monkeypatch, step, expected) -> None:
    assert findings(tmp_path, monkeypatch, {"train.py": PER_SAMPLE.replace("{step}", step)}, "TL101") == expected


def test_a_per_sample_loop_of_an_inference_pass(tmp_path, monkeypatch) -> None:
    """Hard negative: one pass over a loader that trains nothing, once."""
    program = PER_SAMPLE.replace("    for epoch in range(epochs):\n", "    if epochs:\n").replace("{step}", "print(loss)")
    assert findings(tmp_path, monkeypatch, {"train.py": program}, "TL101") == set()
