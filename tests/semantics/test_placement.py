"""Modules that stay on the CPU: built in the file, never moved, never handed on; their outputs
on host inputs are host tensors, so reading them syncs with no device."""

import libcst as cst
import pytest

from conftest import lint
from torchlint.semantics.placement import host_modules

PROGRAM = """
import torch
import torch.nn as nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(10, 2)
criterion = nn.CrossEntropyLoss()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
X = torch.randn(100, 10)
Y = torch.randint(0, 2, (100,))
print(model)
{extra}
for epoch in range(100):
    model.train()
    out = model(X)
    loss = criterion(out, Y) + nn.functional.mse_loss(out, torch.zeros(100, 2))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(loss.item())
"""


def test_a_module_built_and_never_moved_runs_on_the_host_whatever_devices_exist():
    code = PROGRAM.format(extra="")
    assert sorted(host_modules(cst.parse_module(code)) & {"model", "criterion"}) == ["criterion", "model"]
    assert [finding.line for finding in lint(code, ["TL101"])] == []


@pytest.mark.parametrize(
    "extra",
    [
        "model.to(device)",  # moved
        "model = model.cuda()",
        "model = nn.Linear(10, 2).to(device)",  # built moved
        "model = nn.Linear(10, 2, device=device)",  # built on the device
        "model = nn.DataParallel(model)",  # handed to other code, which may move it
        "net = model\nnet.cuda()",  # an alias moved
        "for m in [model]:\n    m.cuda()",
        "model.apply(lambda m: m.cuda())",
        "torch.set_default_device('cuda')",  # every module is built on the device
        "X = X.to(device)",  # the input is not known to be on the host
    ],
)
def test_a_module_that_may_be_moved_or_fed_device_inputs_is_not_known_to_stay(extra):
    code = PROGRAM.format(extra=extra)
    read = code.splitlines().index("    print(loss.item())") + 1
    assert [finding.line for finding in lint(code, ["TL101"])] == [read]
