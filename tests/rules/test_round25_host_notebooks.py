"""Round 25: a notebook whose code names no accelerator (no `cuda`, `gpu`, `mps`,
accelerator) runs on the CPU: nothing imports a notebook, so `torch.zeros(...).to(x.device)`
in its model's `forward` copies nothing and `.item()` in its loop waits for nothing
(`host_programs.notebook_on_the_host`; TL102 now asks `FileContext.serves_device` as the sync
rules do). The same cells in a notebook that picks CUDA, or imports JAX, are reported."""

from __future__ import annotations

import pytest
from conftest import project_findings
from test_recall_round10_notebook_callers import notebook

pytestmark = pytest.mark.stable_only

MODEL = """import torch
from torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(4, 8, batch_first=True)
        self.head = nn.Linear(8, 1)

    def forward(self, x):
        h0 = torch.zeros(1, x.size(0), 8).to(x.device)
        c0 = torch.zeros(1, x.size(0), 8).to(x.device)
        out, _ = self.rnn(x, (h0, c0))
        return self.head(out[:, -1])
"""

TRAIN = """{device}model = Net(){move}
optimizer = torch.optim.Adam(model.parameters())
for epoch in range(20):
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x{move}), y{move})
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
"""


@pytest.mark.parametrize("device, move, reported", [
    ("", "", set()),
    ('device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n', ".to(device)", {("TL102", 11), ("TL102", 12), ("TL101", 10)}),
    # JAX places its work on a GPU unasked: such a notebook is not known to run on the CPU
    ("import jax\n", "", {("TL102", 11), ("TL102", 12)}),
])
def test_a_notebook_naming_no_accelerator_runs_on_the_cpu(tmp_path, monkeypatch, device, move, reported):
    cells = [MODEL, TRAIN.format(device=device, move=move)]
    found = project_findings(tmp_path, monkeypatch, {"train.ipynb": notebook(cells)}, "TL101,TL102")
    assert {(code, line) for _, code, line in found} == reported
