"""The sixth recall round of issue 25, how often code runs: a method reached through an
instance from another module's step loop runs every step when the method it calls runs the
backward pass (each call is a training step), and not when the calls are rare or once."""

from __future__ import annotations

import json
import textwrap
from typing import Dict

import pytest
from click.testing import CliRunner

from torchlint.cli import main

pytestmark = pytest.mark.stable_only


def findings(tmp_path, monkeypatch, files: Dict[str, str], rules: str = "TL101,TL102") -> set:
    """(file, code, line) of the findings of `rules` on a small project, default mode."""
    (tmp_path / "setup.py").write_text("")
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", rules, "--output-format", "json", "."])
    return {(item["path"].split("/")[-1], item["code"], item["line"]) for item in json.loads(result.stdout)}


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

