"""Round 27: Hugging Face `TrainingArguments(dataloader_num_workers=N)` without
`dataloader_persistent_workers=True` makes the `Trainer` start its loader workers again every
epoch (TL203, no fix: the field needs transformers 4.38 or later). Hard negatives: no workers, persistent workers,
a single epoch, keywords spread from a dict, and another library's class of that name."""

from __future__ import annotations

import pytest
from conftest import lint

pytestmark = pytest.mark.stable_only

SCRIPT = """
import torch
from {module} import Trainer, TrainingArguments

args = TrainingArguments(output_dir="out", per_device_train_batch_size=32{extra})
trainer = Trainer(model=model, args=args, train_dataset=train_ds)
trainer.train()
"""


@pytest.mark.parametrize("module, extra, reported", [
    ("transformers", ", dataloader_num_workers=4", True),
    ("transformers", ", dataloader_num_workers=4, dataloader_persistent_workers=False", True),
    ("transformers", ", dataloader_num_workers=workers, num_train_epochs=10", True),
    ("transformers", "", False),  # no workers: nothing to keep alive (TL201's business)
    ("transformers", ", dataloader_num_workers=0", False),
    ("transformers", ", dataloader_num_workers=4, dataloader_persistent_workers=True", False),
    ("transformers", ", dataloader_num_workers=4, num_train_epochs=1", False),
    ("transformers", ", dataloader_num_workers=4, **extra", False),
    ("mylib.training", ", dataloader_num_workers=4", False),
])
def test_training_arguments_with_workers_that_do_not_persist(module, extra, reported):
    findings = lint(SCRIPT.format(module=module, extra=extra), ["TL203"])
    assert [finding.line for finding in findings] == ([5] if reported else [])


def test_no_fix_is_offered_for_a_field_that_older_versions_lack():
    [finding] = lint(SCRIPT.format(module="transformers", extra=", dataloader_num_workers=4"), ["TL203"])
    assert finding.fix is None and "4.38" in finding.message
