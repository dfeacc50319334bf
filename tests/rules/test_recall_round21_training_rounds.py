"""Round 21 (TL104, batch 29's co-training): a loop whose every iteration runs a Lightning
trainer's `fit` runs whole trainings, one per round: `torch.cuda.empty_cache()` between the
rounds is no per-step cost. A loop that fits only under a test, or a `fit` of another
library's object, is no such loop."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

ROUNDS = """
import gc
import torch
from pytorch_lightning import Trainer

for t in range(5):
    labels = pseudo_label(model.to("cuda"))
    del model
    gc.collect()
    torch.cuda.empty_cache()
    trainer = {trainer}
    {fit}
    model = reload()
"""


@pytest.mark.parametrize("trainer, fit, reported", [
    ('Trainer(max_epochs=20, accelerator="gpu")', "trainer.fit(bert, datamodule=dm)", []),
    ('Trainer(max_epochs=20, accelerator="gpu")', "if t > 2:\n        trainer.fit(bert, datamodule=dm)", [10]),
    ("SGDClassifier()", "trainer.fit(features, labels)", [10]),  # scikit-learn's fit: no training run on the device
])
def test_rounds_of_whole_trainings(trainer, fit, reported):
    assert lines(ROUNDS.format(trainer=trainer, fit=fit), "TL104") == reported
