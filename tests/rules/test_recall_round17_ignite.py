"""Round 17 (TL106, misses of an ignite template): an ignite process function,
`update(engine, batch)` handed to `Engine(...)`, runs for every batch of the loader the
engine is run on; when every loader the project builds pins memory, its blocking moves of
the batch are reported (with an unsafe fix: the loader is not followed). `idist.device()`
is a device."""

from __future__ import annotations

import pytest
from conftest import lines, project_findings

ENGINES = """
import torch
import ignite.distributed as idist
from ignite.engine import Engine


def create_engines(model, optimizer, criterion):
    def train_step(engine, batch):
        model.train()
        x, y = batch[0].to({device}), batch[1].to({device})
        loss = criterion(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss.item()

    def validation_step(engine, batch):
        model.eval()
        with torch.no_grad():
            x = batch[0].to({device})
            return model(x), batch[1]

    return Engine(train_step), Engine(validation_step)
"""

TRAIN = """
import torch
from torch.utils.data import DataLoader
from engines import create_engines

train_loader = DataLoader(train_set, batch_size=64, num_workers=4, pin_memory={pinned})
val_loader = DataLoader(val_set, batch_size=64, num_workers=4, pin_memory=True)
trainer, evaluator = create_engines(model, optimizer, criterion)
trainer.run(train_loader, max_epochs=10)
"""


def findings(tmp_path, monkeypatch, pinned="True", device="idist.device()", engines=ENGINES):
    files = {"engines.py": engines.replace("{device}", device), "train.py": TRAIN.replace("{pinned}", pinned)}
    return sorted(line for name, _, line in project_findings(tmp_path, monkeypatch, files, "TL106") if name == "engines.py")


def test_batches_of_ignite_process_functions_are_moved_every_step(tmp_path, monkeypatch):
    # The trainer's moves, and the evaluator's, which runs with training.
    assert findings(tmp_path, monkeypatch) == [10, 20]


@pytest.mark.parametrize(
    "pinned, device, expected",
    [
        # A loader of the project that does not pin: the batches may come from it.
        ("False", "idist.device()", []),
        # Moves that do not block, or are no device moves.
        ("True", "idist.device(), non_blocking=True", []),
        ("True", "torch.float16", []),
    ],
)
def test_unpinned_projects_and_other_moves(tmp_path, monkeypatch, pinned, device, expected):
    assert findings(tmp_path, monkeypatch, pinned, device) == expected


def test_a_function_not_handed_to_an_engine_is_not_a_step(tmp_path, monkeypatch):
    engines = ENGINES.replace("return Engine(train_step), Engine(validation_step)", "return train_step, validation_step")
    assert findings(tmp_path, monkeypatch, engines=engines) == []


@pytest.mark.parametrize(
    "device, reported",
    [("idist.device()", [8]), ("ignite.distributed.device()", [8]), ("idist.get_rank()", [])],
)
def test_the_ignite_device_is_a_device(device, reported):
    code = f"""
import torch
import ignite
import ignite.distributed as idist
for x in loader:
    loss = model(x).mean()
    loss.backward()
    noise = torch.zeros(3).to({device})
"""
    assert lines(code, "TL102") == reported
