"""Round 18 (TL101, batch 25's PPO update): `actor_loss.detach().to(torch.device('cpu'))`
every update step is a copy to the host, as `.to("cpu")` is. The CPU device is recognised as
the shared semantics name it (`devices.names_cpu`): a string, `torch.device("cpu")`, a name
that says so."""

from __future__ import annotations

import pytest
from conftest import in_step_loop, lines

LOOP = """
loss = model(x.cuda()).sum()
loss.backward()
optimizer.step()
losses.append(loss.detach().{move})
"""


def check(move: str) -> list:
    code = "import torch\nmodel = torch.nn.Linear(3, 1).cuda()\noptimizer = torch.optim.SGD(model.parameters(), lr=0.1)\nlosses = []\n"
    return lines(code + in_step_loop(LOOP.replace("{move}", move)), "TL101")


@pytest.mark.parametrize("move", ['to(torch.device("cpu"))', 'to(device="cpu")', "to(cpu_device)", 'to("cpu:0")'])
def test_a_move_to_the_cpu_device_is_a_copy_to_the_host(move):
    assert check(move) == [9]


@pytest.mark.parametrize("move", ["to(torch.float16)", 'to(torch.device("cuda"))', "to(device)", "to(x)"])
def test_a_move_elsewhere_or_a_dtype_change_is_not(move):
    assert check(move) == []
