"""Round 20 (TL402, a founding rule; batch 26's BERT tagger): the validation pass a training
function's epoch loop runs after its training loop is per-epoch evaluation, also when the
pass is its own loop over a loader (`for batch in valid_loader:` with the forward inside)
and whoever calls the training function is not seen to repeat it: `model.eval()` there
still records the graph of every validation batch."""

from __future__ import annotations

import pytest
from test_recall_round3_flow import project

pytestmark = pytest.mark.stable_only

TRAINER = """
import torch


def iteration(device, model, optimizer, epochs, train_loader, valid_loader):
    model = model.to(device)
    for epoch in range(epochs):
        model.train()
        for batch in train_loader:
            loss = model(batch.to(device)).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        model.eval()
        {validation}
"""

MAIN = """
import torch
from trainer import iteration

if __name__ == "__main__":
    iteration("cuda", model, optimizer, 10, train_loader, valid_loader)
"""


@pytest.mark.parametrize("validation, reported", [
    ("for batch in valid_loader:\n            total = model(batch.to(device)).mean()", [("trainer.py", 14)]),
    # gradients off: nothing to report
    ("with torch.no_grad():\n            for batch in valid_loader:\n                total = model(batch.to(device)).mean()", []),
    # a pass that trains (fine-tuning on the validation data) is no evaluation
    ("for batch in valid_loader:\n            model(batch.to(device)).mean().backward()", []),
])
def test_a_validation_loop_after_training_in_the_epoch_loop(tmp_path, monkeypatch, validation, reported):
    files = {"trainer.py": TRAINER.format(validation=validation), "main.py": MAIN}
    assert project(tmp_path, monkeypatch, files, "TL402") == reported
