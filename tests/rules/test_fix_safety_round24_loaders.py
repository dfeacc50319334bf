"""Round 24 fix safety: preconditions that now withhold a fix. TL301: a class pattern capturing
the bias, the `_parameters` dict, parameters drawn by `next()` or state-dict values taken by
position, a strict load of a state not the model's own. TL106: a batch class made at run time
(`types.new_class` with an `exec_body`, `make_dataclass` with a namespace, `exec` in a class
body). TL201: `np.full` of a value from the data, a file opened by a helper of the file and kept.
TL203: a dataset changed by `setattr`/`vars`, through a bound method kept as a callback, or
through the loader's `sampler.data_source`. Each next to a control that keeps its fix."""

from __future__ import annotations

import pytest
from conftest import lint

CONV = """
import io
import math
import torch
import torch.nn as nn

model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU())
{use}
"""


@pytest.mark.parametrize("use, fixed", [
    ("opt = torch.optim.SGD(model.parameters(), lr=0.1)", True),
    ("def init(m):\n    match m:\n        case nn.Conv2d(weight=w, bias=b):\n            nn.init.zeros_(b)", False),
    ("for t in model[0]._parameters.values():\n    t.data.mul_(0.5)", False),
    ("params = iter(model.parameters())\nweight = next(params)", False),
    ("first = next(iter(model.parameters()))", False),
    ("mean = list(model.state_dict().values())[4]", False),
    ("model.load_state_dict(torch.load('ckpt.pt'))", False),
])
def test_conv_bias_fix_withheld_where_the_bias_or_positions_are_used(use, fixed):
    findings = lint(CONV.format(use=use), ["TL301"])
    assert len(findings) == 1 and (findings[0].fix is not None) == fixed


TEACHER = """
import io
import torch
import torch.nn as nn

teacher = {teacher}
student = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU())
buffer = io.BytesIO()
torch.save(teacher.state_dict(), buffer)
buffer.seek(0)
student.load_state_dict(torch.load(buffer))
"""


@pytest.mark.parametrize("teacher, fixed", [
    ("nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU())", True),  # built alike: both fixed
    ("nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4))", False),  # another model: its state may differ
])
def test_conv_bias_fix_only_for_a_state_saved_from_a_model_built_alike(teacher, fixed):
    findings = [f for f in lint(TEACHER.format(teacher=teacher), ["TL301"]) if f.line == 7]
    assert len(findings) == 1 and (findings[0].fix is not None) == fixed


BATCHES = """
import dataclasses
import types
import torch
from torch.utils.data import DataLoader

{definition}
device = torch.device("cuda")
loader = DataLoader(data, batch_size=2, pin_memory=True)
for epoch in range(2):
    for batch in loader:
        print(batch.to(device))
"""


@pytest.mark.parametrize("definition, fixed", [
    ("data = [torch.ones(2) * i for i in range(4)]", True),
    ("Fields = types.new_class('Fields', (dict,), {}, lambda ns: ns.update(to=_to))\ndata = [Fields(x=torch.ones(2))]", False),
    ("Item = dataclasses.make_dataclass('Item', [('x', torch.Tensor)], namespace={'to': _to})\ndata = [Item(torch.ones(2))]", False),
    ("Item = dataclasses.make_dataclass('Item', [('x', torch.Tensor)], namespace={'size': len})\ndata = [torch.ones(2)]", True),
    ("class Fields(dict):\n    exec('def to(self, device): return self')\ndata = [Fields(x=torch.ones(2))]", False),
])
def test_non_blocking_fix_withheld_for_classes_made_at_run_time(definition, fixed):
    findings = lint(BATCHES.format(definition=definition), ["TL106"])
    assert len(findings) == 1 and (findings[0].fix is not None) == fixed


def _fixed(source: str, code: str) -> bool:
    """Whether the one finding of the rule `code` has a fix (not withheld)."""
    findings = lint(source, [code])
    assert len(findings) == 1
    return findings[0].fix is not None


ITEMS = """
import json
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda")


def open_records(p):
    return open(p, "rb")


class Scores(Dataset):
    def __init__(self, lines):
        {init}

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, i):
        r = json.loads(self.lines[i])
        return {item}


model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loader = DataLoader(Scores(["{{}}"]), batch_size=2)
for epoch in range(2):
    for y in loader:
        loss = model(y.to(device)).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
"""


@pytest.mark.parametrize("init, item, fixed", [
    ("self.lines = lines", 'np.full(1, r["y"], dtype=np.float32)', True),
    ("self.lines = lines", 'np.full(1, r["y"])', False),
    ("self.lines = lines\n        self.f = open_records(lines[0])", 'np.full(1, 1.0)', False),
])
def test_workers_fix_withheld_for_data_typed_items_and_files_opened_by_a_helper(init, item, fixed):
    assert _fixed(ITEMS.format(init=init, item=item), "TL201") == fixed


EPOCHS = """
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda")


class Pool(Dataset):
    def __init__(self):
        self.items = [0.0, 1.0]

    def grow(self):
        self.items.append(float(len(self.items)))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return torch.tensor(self.items[i])


pool = Pool()
callbacks = {callbacks}
loader = DataLoader(pool, batch_size=2, num_workers=2)
for epoch in range(3):
    for x in loader:
        print(x.to(device))
    {change}
"""


@pytest.mark.parametrize("callbacks, change, fixed", [
    ("[]", "print(len(pool))", True),
    ("[]", 'setattr(pool, "items", [0.0] * (4 + epoch))', False),
    ("[]", "vars(pool).update(items=[0.0] * (4 + epoch))", False),
    ("[pool.grow]", "for callback in callbacks:\n        callback()", False),
    ("[print]", "for callback in callbacks:\n        callback()", True),
    ("[]", "loader.sampler.data_source.items.append(2.0)", False),
])
def test_persistent_workers_fix_withheld_when_the_dataset_changes_indirectly(callbacks, change, fixed):
    assert _fixed(EPOCHS.format(callbacks=callbacks, change=change), "TL203") == fixed
