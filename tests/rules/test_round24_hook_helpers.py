"""Round 24 (TL103): a method of a LightningModule that the class calls only from its batch
hooks, each time with the hook's batch (`self.shared_step(batch, "train")`), gets the batch the
trainer moved to the accelerator, so a test of its tensors waits every step as it does in
`training_step` itself (`engine.walker`'s batch arguments). A helper also called with other
values, or given something else, stays unknown."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

MODULE = """
import lightning as L
import torch

class Segmenter(L.LightningModule):
    def shared_step(self, batch, stage):
        mask = batch["mask"]
        assert mask.max() <= 1.0 and mask.min() >= 0
        return torch.nn.functional.binary_cross_entropy_with_logits(self.model(batch["image"]), mask)

    def training_step(self, batch, batch_idx):
        return self.shared_step({train}, "train")

    def validation_step(self, batch, batch_idx):
        self.log("val", self.shared_step({valid}))

    {extra}

trainer = L.Trainer(accelerator="gpu", max_epochs=10)
trainer.fit(Segmenter(), train_loader, val_loader)
"""


@pytest.mark.parametrize("train, valid, extra, reported", [
    ("batch", 'batch, "valid"', "", [8]),
    ("batch", 'stage="valid", batch=batch', "", [8]),
    # a helper also called with something else, or given another value
    ("batch", 'batch, "valid"', "def sample(self):\n        return self.shared_step(self.example, 'sample')", []),
    ("self.example", 'self.example, "valid"', "", []),
])
def test_a_helper_given_the_batch_by_every_hook(train, valid, extra, reported):
    assert lines(MODULE.format(train=train, valid=valid, extra=extra), "TL103") == reported
