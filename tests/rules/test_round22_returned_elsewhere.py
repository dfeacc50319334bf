"""Round 22 (TL102, development misses in batches 28 and 30: a noise scheduler's
`sample_timesteps(n)` returning `torch.randint(1, T, (n,))`, moved by the training step of
another module): a helper of another project module whose every `return` gives what a torch
factory creates on the host is a host creation its callers copy; a per-step move of its result
is reported at the move. A helper that creates on a device, returns host data
(`torch.tensor(values)`) or something else on some path, and a move outside the step loop stay
silent."""

from __future__ import annotations

import pytest
from conftest import project_findings

SCHEDULER = """
import torch

class Scheduler:
    def __init__(self, steps):
        self.steps = steps

    def sample_timesteps(self, n):
        {body}
"""

TRAIN = """
import torch
from scheduler import Scheduler

device = torch.device("cuda")
model = torch.nn.Linear(4, 4).to(device)
scheduler = Scheduler(1000)
for x in loader:
    t = scheduler.sample_timesteps(x.shape[0]).to(device)
    loss = model(x.to(device) * t[:, None]).pow(2).mean()
    loss.backward()
    optimizer.step()
probe = scheduler.sample_timesteps(4).to(device)
"""


@pytest.mark.parametrize("body, reported", [
    ("return torch.randint(1, self.steps, (n,))", True),
    ("t = torch.randint(1, self.steps, (n,))\n        return t", True),
    ("return torch.randint(1, self.steps, (n,), device='cuda')", False),
    ("return torch.tensor([1] * n)", False),
    ("if n > 1:\n            return torch.randint(1, self.steps, (n,))\n        return self.cache[:n]", False),
])
def test_helper_of_another_module_returns_a_host_creation(tmp_path, monkeypatch, body, reported):
    files = {"scheduler.py": SCHEDULER.format(body=body), "train.py": TRAIN}
    found = project_findings(tmp_path, monkeypatch, files, "TL102", marker=".git")
    assert found == ({("train.py", "TL102", 9)} if reported else set())
