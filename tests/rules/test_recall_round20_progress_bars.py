"""Round 20 (batch 28's HVAC forecaster): a loop over a progress bar named for the epoch it
shows iterates batches when the bar wraps a loader (`with tqdm(loader) as tepoch:`, then
`for x, y in tepoch:`): the validation pass that never runs a backward is a step loop
whatever the bar's name says. A loop whose target is the epoch still counts epochs; since
round 28 a loop that moves what it draws to the device passes over batches whatever it
iterates."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

TRAINER = """
import torch
import tqdm


class Trainer:
    def fit(self, train_loader, val_loader, epochs):
        for epoch in range(epochs):
            for x, y in train_loader:
                loss = self.criterion(self.model(x.to("cuda")), y.to("cuda"))
                loss.backward()
                self.optimizer.step()
            self._validate(val_loader)

    def _validate(self, loader):
        losses = []
        with torch.no_grad():
            with {bar} as tepoch:
                for {target} in tepoch:
                    out = self.model(x.to("cuda"))
                    losses.append(self.criterion(out, y.to("cuda")).item())
        return sum(losses)


Trainer().fit(train_loader, val_loader, 10)
"""


@pytest.mark.parametrize("bar, target, reported", [
    ("tqdm.tqdm(loader, unit='batch')", "x, y", [21]),
    ("tqdm.tqdm(range(epochs))", "x, y", [21]),  # named over epochs, but it moves what it draws (round 28)
    ("tqdm.tqdm(loader)", "epoch", []),  # the target says what each iteration is
])
def test_a_progress_bar_named_for_the_epoch(bar, target, reported):
    assert lines(TRAINER.format(bar=bar, target=target), "TL101") == reported
