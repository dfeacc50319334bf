"""Round 13: a host factory copied into a tensor known to be on the device every step
(`noises.data.copy_(torch.randn(b, nz, 1, 1))` in a GAN's step loop) is made on the CPU and
copied over (TL102, no fix). Not into a host tensor, not a factory given the device, not once."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

GAN = """
import torch as t

device = t.device("cuda")
netd = t.nn.Linear(100, 1).to(device)
netg = t.nn.Linear(100, 100).to(device)
opt = t.optim.Adam(netd.parameters())
noises = t.randn(64, 100).to(device)
for epoch in range(10):
    for img, _ in loader:
        real = img.to(device, non_blocking=True)
        noises.data.copy_(t.randn(64, 100))
        loss = netd(real).mean() - netd(netg(noises).detach()).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
"""


def test_a_host_factory_copied_into_a_device_tensor_every_step(tmp_path, monkeypatch):
    assert project_findings(tmp_path, monkeypatch, {"train.py": GAN}, "TL102") == {("train.py", "TL102", 12)}


@pytest.mark.parametrize(
    "change",
    [
        ("noises = t.randn(64, 100).to(device)", "noises = t.randn(64, 100)"),
        ("noises.data.copy_(t.randn(64, 100))", "noises.data.copy_(t.randn(64, 100, device=device))"),
        ("noises.data.copy_(t.randn(64, 100))", "noises.data.copy_(batch_noise)"),
        ("        noises.data.copy_(t.randn(64, 100))\n", ""),
    ],
)
def test_hard_negatives(tmp_path, monkeypatch, change):
    code = GAN.replace(*change)
    assert code != GAN
    assert project_findings(tmp_path, monkeypatch, {"train.py": code}, "TL102") == set()
