"""The fourteenth round of issue 25: ignite's `idist.auto_dataloader` pins memory on CUDA, so a
project whose only loaders it builds pins every loader (`project.project_pins_loaders`): a
trainer that moves the batches of a loader whose construction it does not see (`for x, y in
self.loader:`) moves pinned batches, and a blocking move there is TL106. Hard negatives: an
`auto_dataloader` told not to pin, and a torch `DataLoader` without `pin_memory` beside it."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

TRAINER = """
import torch


class Trainer:
    def __init__(self, model, loader, optimizer):
        self.model, self.loader, self.optimizer = model, loader, optimizer

    def fit(self, epochs):
        for epoch in range(epochs):
            for x, y in self.loader:
                x, y = x.to("cuda"), y.to("cuda")
                loss = torch.nn.functional.cross_entropy(self.model(x), y)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
"""


@pytest.mark.parametrize("data, expected", [
    ("import ignite.distributed as idist\n\ndef get_loader(ds):\n    return idist.auto_dataloader(ds, batch_size=64, num_workers=4)\n", {12}),
    ("import ignite.distributed as idist\n\ndef get_loader(ds):\n    return idist.auto_dataloader(ds, batch_size=64, pin_memory=False)\n", set()),
    ("import ignite.distributed as idist\nfrom torch.utils.data import DataLoader\n\ndef get_loader(ds):\n"
     "    return idist.auto_dataloader(ds, batch_size=64)\n\ndef get_test_loader(ds):\n    return DataLoader(ds, batch_size=64)\n", set()),
])
def test_a_project_whose_loaders_ignite_builds(tmp_path, monkeypatch, data: str, expected: set) -> None:
    found = project_findings(tmp_path, monkeypatch, {"data.py": data, "trainer.py": TRAINER}, "TL106")
    assert {line for path, code, line in found if path == "trainer.py"} == expected
