"""The tenth round of issue 25: ignite's `idist.auto_dataloader(dataset, **kwargs)` builds a
torch DataLoader from its keywords (workers: DataLoader's default, none) and pins memory
itself when the device is CUDA. TL201 reports it without `num_workers`; TL202 does not ask
for `pin_memory` it sets already (unless the call turns it off); TL106 treats its batches as
pinned. A function of the same name from another library is not ignite's."""

from __future__ import annotations

import textwrap

import pytest
from conftest import lint

SCRIPT = """
import {module} as idist
import torch
from ignite.engine import Engine


def training(config, model, train_ds):
    device = idist.device()
    train_loader = idist.auto_dataloader(train_ds, batch_size=64, shuffle=True{extra})
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def train_step(engine, batch):
        x, y = batch[0].to(device), batch[1].to(device)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss

    trainer = Engine(train_step)
    trainer.run(train_loader, max_epochs=config["epochs"])
    torch.cuda.synchronize()
"""


def codes_by_line(module: str, extra: str = "") -> set:
    code = textwrap.dedent(SCRIPT.format(module=module, extra=extra))
    return {(f.code, f.line) for f in lint(code, ["TL201", "TL202", "TL106"])}


def test_ignite_auto_dataloader_without_workers() -> None:
    assert codes_by_line("ignite.distributed") == {("TL201", 9), ("TL106", 13)}


@pytest.mark.parametrize(
    "extra, expected",
    [
        (", num_workers=8", {("TL106", 13)}),  # workers given: only the blocking moves
        (", num_workers=8, pin_memory=False", {("TL202", 9)}),  # pinning turned off by the call
    ],
)
def test_ignite_auto_dataloader_options(extra, expected) -> None:
    assert codes_by_line("ignite.distributed", extra) == expected


def test_a_look_alike_of_another_library_is_not_a_loader() -> None:
    assert codes_by_line("mylib.distributed") == set()
