"""Round 23 (TL101): `.item()` of a registered buffer in the `forward()` of a module the
project trains (`if self.data_initialized.item() == 0:` in a vector quantiser, `Z =
self.params[0].item()` in a memory bank) waits for the device on every training step: the
buffer moved there with its module. Not a plain attribute, not a buffer the file rebinds, not
outside `forward()`, not a module nothing trains, not a forward with gradients off."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

RULE = "TL101"

MODULE = """
import torch
from torch import nn

class Quantizer(nn.Module):
    def __init__(self, n, d):
        super().__init__()
        self.embed = nn.Embedding(n, d)
        self.register_buffer("initted", torch.zeros(1))
        self.register_buffer("params", torch.tensor([-1.0, 0.07]))
        self.scale = 0.5
        {extra}

    {decorator}
    def forward(self, z):
        {read}
        return self.embed(torch.cdist(z, self.embed.weight).argmin(1))

model = nn.Sequential(nn.Linear(8, 8), Quantizer(16, 8)).cuda()
optimizer = torch.optim.Adam(model.parameters())
for epoch in range(10):
    for x in loader:
        loss = model(x.cuda()).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""


@pytest.mark.parametrize("read, extra, decorator, reported", [
    ("flag = self.initted.item() == 0", "", "", [16]),
    ("t = self.params[1].item()", "", "", [16]),
    ("t = self.scale", "", "", []),
    ("t = self.params[1].item()", "self.params = torch.tensor([1.0])", "", []),
    ("t = self.params[1].item()", "", "@torch.no_grad()", []),
])
def test_a_buffer_read_back_in_a_trained_forward(read, extra, decorator, reported):
    assert lines(MODULE.format(read=read, extra=extra, decorator=decorator), RULE) == reported


def test_a_buffer_read_outside_forward_or_in_an_untrained_module():
    code = """
    import torch
    from torch import nn

    class Memory(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)
            self.register_buffer("params", torch.tensor([-1.0, 0.07]))

        def describe(self):
            return self.params[0].item()

        def forward(self, x):
            return self.fc(x) * self.params[1].item()

    memory = Memory().cuda()
    print(memory.describe(), memory(torch.randn(2, 4, device="cuda")))
    """
    assert lines(code, RULE) == []
