"""Round 27: a test of one value of a loop counter (`if step == 0:`) runs its body once per
pass of that loop. In `forward()`'s loop over time steps that is once per forward, every
training step; in the training loop itself it is once per run. Hard negatives: the first
step of a training loop and of a loop over batches."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

RECURRENT = """
import torch


class ConvLSTM(torch.nn.Module):
    def forward(self, x):
        states = []
        for step in range(x.shape[1]):
            if step == 0:
                h = torch.zeros(x.shape[0], 16, 32, 32).cuda()
                states.append(h)
            h = self.cell(x[:, step], states[-1])
        return h


model = ConvLSTM().cuda()
for epoch in range(10):
    for x, y in loader:
        loss = (model(x.cuda()) - y.cuda()).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""

TRAINING = """
import torch

model = torch.nn.Linear(4, 2).cuda()
for epoch in range(10):
    for {counter}, (x, y) in enumerate(loader):
        if {counter} == 0:
            reference = torch.zeros(8, 4).cuda()
        loss = (model(x.cuda()) - y.cuda()).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""


def test_the_first_iteration_of_a_loop_in_forward_runs_every_step():
    assert lines(RECURRENT, "TL102") == [10]


@pytest.mark.parametrize("counter", ["step", "i"])
def test_the_first_step_of_a_training_loop_runs_once_per_epoch(counter):
    assert lines(TRAINING.format(counter=counter), "TL102") == []
