"""Round 13: the `step()` of a class that wraps a torch optimizer (clipping gradients, then
`self.optimizer.step()`) is part of the training step of the loop that calls it in another
module, unlike an environment's `step()`; a helper module that names no device still serves
that CUDA loop; `math` functions convert a tensor argument to a float (a sync); a
parameter's `.grad` is a tensor (`semantics.values`)."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

OPTIM = """
import math
import torch.optim as optim


class Optim(object):
    def __init__(self, params, lr, max_grad_norm):
        self.params = list(params)
        self.max_grad_norm = max_grad_norm
        self.optimizer = optim.SGD(self.params, lr=lr)

    def step(self):
        grad_norm = 0
        for param in self.params:
            grad_norm += math.pow(param.grad.data.norm(), 2)
        grad_norm = math.sqrt(grad_norm)
        shrinkage = self.max_grad_norm / grad_norm if grad_norm > 0 else 1.0
        for param in self.params:
            if shrinkage < 1:
                param.grad.data.mul_(shrinkage)
        self.optimizer.step()
        return grad_norm
"""

MAIN = """
import torch
from optim_wrapper import Optim

model = torch.nn.Linear(4, 4).{device}
optimizer = Optim(model.parameters(), 0.1, 10.0)
for epoch in range(100):
    for X, Y in loader:
        X, Y = X.{device}, Y.{device}
        model.zero_grad()
        loss = torch.nn.functional.mse_loss(model(X), Y)
        loss.backward()
        optimizer.step()
"""

FOUND = {("optim_wrapper.py", "TL103", 15)}


def test_sync_in_an_optimizer_wrapper_step_called_by_a_cuda_training_loop(tmp_path, monkeypatch):
    files = {"optim_wrapper.py": OPTIM, "train.py": MAIN.format(device="cuda()")}
    assert project_findings(tmp_path, monkeypatch, files, "TL103") == FOUND


@pytest.mark.parametrize(
    ("change", "main_change"),
    [
        # the training loop runs on the CPU
        (("", ""), ("cuda()", "float()")),
        # a step() that steps no optimizer (an environment's): the caller's loop reads its values
        (("        self.optimizer.step()\n", ""), ("", "")),
        # not a tensor: the norm is a Python number already
        (("math.pow(param.grad.data.norm(), 2)", "math.pow(param_norms[0], 2)"), ("", "")),
        # the wrapper's step is never called in the loop
        (("", ""), ("        optimizer.step()\n", "")),
    ],
)
def test_hard_negatives(tmp_path, monkeypatch, change, main_change):
    main = MAIN.format(device="cuda()")
    files = {"optim_wrapper.py": OPTIM.replace(*change) if change[0] else OPTIM, "train.py": main.replace(*main_change) if main_change[0] else main}
    assert project_findings(tmp_path, monkeypatch, files, "TL103") == set()


def test_math_of_a_device_tensor_in_a_step_loop(tmp_path, monkeypatch):
    code = """
import math
import torch

model = torch.nn.Linear(4, 1).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x in loader:
    loss = model(x.cuda(non_blocking=True)).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if math.isnan(loss):
        break
    ppl = math.exp(3.0)
"""
    assert project_findings(tmp_path, monkeypatch, {"train.py": code}, "TL103") == {("train.py", "TL103", 12)}
