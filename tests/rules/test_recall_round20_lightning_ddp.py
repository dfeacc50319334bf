"""Round 20 (TL502, batch 28's audio fine-tuning): Lightning asks DDP to find unused
parameters after every forward by a strategy name (`strategy="ddp_find_unused_parameters_true"`)
or by `DDPStrategy(find_unused_parameters=True)`; both cost what torch's own flag costs."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only


@pytest.mark.parametrize("code, reported", [
    ('import lightning as L\ntrainer = L.Trainer(devices=4, strategy="ddp_find_unused_parameters_true")\n', [2]),
    ("import pytorch_lightning as pl\nfrom pytorch_lightning.strategies import DDPStrategy\n"
     "trainer = pl.Trainer(strategy=DDPStrategy(find_unused_parameters=True))\n", [3]),
    ('import lightning as L\ntrainer = L.Trainer(devices=4, strategy="ddp")\n', []),
    ("import pytorch_lightning as pl\nfrom pytorch_lightning.strategies import DDPStrategy\n"
     "trainer = pl.Trainer(strategy=DDPStrategy(find_unused_parameters=False))\n", []),
    # another library's trainer and a string that is no strategy argument
    ('import torch\nfrom transformers import Trainer\ntrainer = Trainer(strategy="ddp_find_unused_parameters_true")\n', []),
    ('import lightning as L\nname = "ddp_find_unused_parameters_true"\ntrainer = L.Trainer(devices=4)\n', []),
])
def test_lightning_ways_of_finding_unused_parameters(code, reported):
    assert lines(code, "TL502") == reported


def test_a_file_that_imports_only_lightning_is_checked():
    """`import lightning as L` makes a PyTorch file although the text never says "torch"."""
    code = (
        "import lightning as L\n\n\nclass Model(L.LightningModule):\n"
        "    def training_step(self, batch, batch_idx):\n"
        "        loss = self.loss(batch)\n"
        "        self.log(\"loss\", loss.item())\n"
        "        return loss\n"
    )
    assert lines(code, "TL101") == [7]
