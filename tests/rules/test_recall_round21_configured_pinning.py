"""Round 21 (TL106, batch 16's vocoder recipes): `pin_memory=config["pin_memory"]` where every
configuration file of the project sets `pin_memory: true` pins the loader as the literal
does, so its batches' blocking moves are reported; a configuration that turns it off, or a
key no file sets, keeps the loader unknown."""

from __future__ import annotations

import pytest
from test_recall11_config_files import findings

pytestmark = pytest.mark.stable_only

TRAIN = """
import torch
import yaml
from torch.utils.data import DataLoader

config = yaml.safe_load(open("conf/base.yaml"))
loader = DataLoader(dataset, batch_size=8, num_workers=4, persistent_workers=True, pin_memory=config["pin_memory"])
for epoch in range(10):
    for x, y in loader:
        loss = model(x.to("cuda"), y.to("cuda"))
        loss.backward()
        optimizer.step()
"""


@pytest.mark.parametrize("configs, reported", [
    ({"conf/base.yaml": "pin_memory: true\n", "conf/large.yaml": "pin_memory: true\nbatch_size: 64\n"},
     {("train.py", "TL106", 10), ("train.py", "TL106", 10)}),
    ({"conf/base.yaml": "pin_memory: true\n", "conf/cpu.yaml": "pin_memory: false\n"}, set()),
    ({"conf/base.yaml": "batch_size: 8\n"}, set()),
])
def test_pinning_every_configuration_asks_for(tmp_path, monkeypatch, configs, reported):
    assert findings(tmp_path, monkeypatch, {"train.py": TRAIN, **configs}, "TL106") == reported
