"""Round 28: a program that freezes parameters at run time (`p.requires_grad = False` in a
function called after the model is wrapped) needs `find_unused_parameters=True`: DDP waits for
the gradients of every parameter that required one when it was built. Hard negatives: a copy
frozen in its constructor (an EMA model), and `requires_grad = True`."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

PROGRAM = """
import torch
from torch.nn.parallel import DistributedDataParallel as DDP


class EMA:
    def __init__(self, model):
        self.shadow = copy.deepcopy(model)
        for p in self.shadow.parameters():
            {ema}


def freeze_backbone(model):
    for p in model.backbone.parameters():
        {freeze}


model = DDP(build_model().cuda(), device_ids=[rank], find_unused_parameters=True)
ema = EMA(model)
for epoch in range(10):
    freeze_backbone(model)
    for x, y in loader:
        loss = model(x.cuda()).sum()
        loss.backward()
"""


@pytest.mark.parametrize("ema, freeze, reported", [
    ("p.requires_grad_(False)", "p.requires_grad = False", []),
    ("p.requires_grad_(False)", "p.requires_grad_(False)", []),
    ("p.requires_grad_(False)", "p.requires_grad = True", [18]),
    ("p.requires_grad = False", "pass", [18]),
])
def test_parameters_frozen_at_run_time_need_unused_parameter_search(ema, freeze, reported):
    assert lines(PROGRAM.format(ema=ema, freeze=freeze), "TL502") == reported
