"""The eleventh round of issue 25: DataLoader subclasses that take the loader's options as
they are. A project class whose `__init__` keeps DataLoader's positional parameters, hands
them on (by name or at DataLoader's position) with its `**kwargs`, and may add a
`collate_fn` of its own (`GraphLoader(dataset, batch_size=1, shuffle=True, **kwargs)` calling
`super().__init__(dataset, batch_size, shuffle, collate_fn=..., **kwargs)`, as graph
libraries write it) is a loader at each call; so is PyTorch Geometric's `DataLoader`. Both
collate their own batches, so TL106's fix is unsafe there. A class that fixes an option, gives
one a default of its own, hands a parameter to another of DataLoader's positions or sets an
option on `self` is not."""

from __future__ import annotations

import textwrap

import pytest
from conftest import lint

pytestmark = pytest.mark.stable_only

PROGRAM = """
import torch
{imports}
{klass}

def train(model, opt, ds, device):
    loader = GraphLoader(ds, batch_size=32, shuffle=True, {options})
    for epoch in range(100):
        for batch in loader:
            batch = batch.to(device)
            loss = model(batch).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()

if __name__ == "__main__":
    device = torch.device("cuda")
    model = torch.nn.Linear(3, 1).to(device)
    train(model, torch.optim.SGD(model.parameters(), 0.1), None, device)
"""

FORWARDING = """
class GraphLoader(torch.utils.data.DataLoader):
    def __init__(self, dataset, batch_size=1, shuffle=True, **kwargs):
        super(GraphLoader, self).__init__(dataset, batch_size, shuffle, collate_fn=lambda items: items, **kwargs)
"""


def _program(klass: str, options: str = "num_workers=4", imports: str = "") -> str:
    return textwrap.dedent(PROGRAM.format(imports=imports, klass=textwrap.dedent(klass), options=options))


def _found(code: str) -> list:
    return sorted((f.code, f.line) for f in lint(code, ["TL201", "TL202", "TL203", "TL106"]))


def test_forwarding_subclass_is_a_loader_at_each_call() -> None:
    code = _program(FORWARDING)
    line = code.splitlines().index("    loader = GraphLoader(ds, batch_size=32, shuffle=True, num_workers=4)") + 1
    assert _found(code) == [("TL202", line), ("TL203", line)]


def test_pyg_loader_is_a_loader() -> None:
    code = _program("", imports="from torch_geometric.loader import DataLoader as GraphLoader")
    line = code.splitlines().index("    loader = GraphLoader(ds, batch_size=32, shuffle=True, num_workers=4)") + 1
    assert _found(code) == [("TL202", line), ("TL203", line)]


@pytest.mark.parametrize(
    "imports, klass",
    [
        ("", FORWARDING),
        ("", FORWARDING.replace("collate_fn=lambda items: items, ", "") + "        self.collate_fn = collate_graphs\n"),
        ("from torch_geometric.data import DataLoader as GraphLoader", ""),
    ],
)
def test_batches_of_a_loader_collating_its_own_get_an_unsafe_fix(imports, klass) -> None:
    code = _program(klass, options="num_workers=4, pin_memory=True, persistent_workers=True", imports=imports)
    [move] = lint(code, ["TL106"])
    assert move.fix is not None and move.fix.applicability.name == "UNSAFE"


@pytest.mark.parametrize(
    "klass",
    [
        # fixes an option itself: the `super().__init__` call is the loader, whose options are unknown
        FORWARDING.replace("collate_fn=lambda items: items", "num_workers=2"),
        # an option with a default of its own
        FORWARDING.replace("shuffle=True, **kwargs)", "shuffle=True, num_workers=2, **kwargs)").replace(
            "shuffle, collate_fn", "shuffle, num_workers=num_workers, collate_fn"),
        # hands a parameter to another position of DataLoader's
        FORWARDING.replace("dataset, batch_size, shuffle,", "dataset, shuffle, batch_size,"),
        # sets an option on itself after its base's `__init__`
        FORWARDING + "        self.num_workers = 0\n",
        # a sampler of its own
        FORWARDING.replace("collate_fn=lambda items: items", "sampler=None"),
    ],
)
def test_subclass_that_changes_the_options_is_not_followed_at_its_calls(klass) -> None:
    code = _program(klass)
    call_line = code.splitlines().index("    loader = GraphLoader(ds, batch_size=32, shuffle=True, num_workers=4)") + 1
    assert all(line != call_line for _, line in _found(code))


def test_look_alike_loader_of_another_library_is_silent() -> None:
    code = _program("", imports="from mylib.data import DataLoader as GraphLoader")
    assert _found(code) == []
