"""Device provenance: device, host or unknown, from the evidence in the file."""

from __future__ import annotations

import textwrap
from typing import Dict

import libcst as cst
import pytest

from torchlint.engine.context import FileContext, Options
from torchlint.engine.rule import Rule
from torchlint.engine.walker import walk
from torchlint.semantics.devices import Placement, names_cpu, placement


class _Probe(Rule):
    """Records the placement of each `probe(expr)` argument while the traversal stands on it."""

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.seen: Dict[str, Placement] = {}

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "probe":
            argument = node.args[0].value
            self.seen[self.ctx.module.code_for_node(argument)] = placement(self.ctx.kind_of(argument))


def placements(code: str) -> Dict[str, Placement]:
    text = textwrap.dedent(code)
    ctx = FileContext(cst.parse_module(text), text, "train.py", Options())
    probe = _Probe(ctx)
    walk(ctx, [probe])
    return probe.seen


DEVICE, HOST, UNKNOWN = Placement.DEVICE, Placement.HOST, Placement.UNKNOWN


def test_evidence_for_device_and_host():
    code = """
    import numpy as np
    import torch
    a = torch.zeros(3).cuda()
    b = torch.randn(2, device="cuda")
    c = torch.arange(4, device=device)
    d = x.to(device)
    e = torch.ones(3)
    f = a.cpu()
    g = np.ones(3)
    h = y.to(self.cpu_device)
    i = torch.zeros(3, device="cpu")
    j = model(batch)
    k = a + e
    probe(a); probe(b); probe(c); probe(d); probe(e); probe(f); probe(g); probe(h); probe(i); probe(j); probe(k)
    """
    assert list(placements(code).values()) == [DEVICE, DEVICE, DEVICE, UNKNOWN, HOST, HOST, HOST, HOST, HOST, UNKNOWN, DEVICE]


def test_loader_batches_are_host_until_moved():
    code = """
    import torch
    for x, y in train_loader:
        probe(y)
        x = x.to(device)
        probe(x)
    """
    assert placements(code) == {"y": HOST, "x": DEVICE}


def test_plain_attributes_assigned_host_tensors_stay_on_the_host():
    code = """
    import torch
    class Sampler(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.sigmas = torch.linspace(0, 1, 10)
            self.table = torch.arange(10)
            self.moved = torch.ones(3)
            self.register_buffer("buffer", torch.zeros(3))

        def to_device(self):
            self.moved = self.moved.cuda()

        def forward(self, t):
            probe(self.sigmas[t])
            probe(self.table)
            probe(self.moved)
            probe(self.buffer)
    """
    assert placements(code) == {"self.sigmas[t]": HOST, "self.table": HOST, "self.moved": UNKNOWN, "self.buffer": UNKNOWN}


@pytest.mark.parametrize("text", ['"cpu"', "'cpu:0'", "cpu", "self.cpu_device", 'torch.device("cpu")'])
def test_names_of_the_cpu(text):
    node = cst.parse_expression(text)
    literal = node.evaluated_value if isinstance(node, cst.SimpleString) else None
    assert names_cpu(node, literal)


@pytest.mark.parametrize("text", ['"cuda"', "device", "self.device", "input_device", "args.npu"])
def test_not_the_cpu(text):
    node = cst.parse_expression(text)
    literal = node.evaluated_value if isinstance(node, cst.SimpleString) else None
    assert not names_cpu(node, literal)


def test_the_word_input_is_not_a_device():
    text = "import torch\nx = input()\n"
    ctx = FileContext(cst.parse_module(text), text, "train.py", Options())
    assert not ctx.uses_device


def test_rows_of_a_tensor_live_where_it_does():
    code = """
    import torch
    rates = [probe(x) for x in torch.linspace(0, 0.1, 12)]
    for row in torch.zeros(3, 3).cuda():
        probe(row)
    """
    assert list(placements(code).values()) == [HOST, DEVICE]


class _MoveProbe(Rule):
    """Records where each `.cuda()`/`.to(...)` call puts its receiver, and the storage key of
    each receiver, while the traversal stands on them."""

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.seen: Dict[str, object] = {}

    def visit_Call(self, node: cst.Call) -> None:
        destination = self.ctx.values.move_destination(node)
        if destination is not None:
            receiver = node.func.value  # type: ignore[attr-defined]
            key = self.ctx.names.storage_key(receiver, False, self.ctx.enclosing(cst.ClassDef))
            self.seen[self.ctx.module.code_for_node(node)] = (placement(destination), key is not None and key[1])


def moves(code: str) -> Dict[str, object]:
    text = textwrap.dedent(code)
    ctx = FileContext(cst.parse_module(text), text, "train.py", Options())
    probe = _MoveProbe(ctx)
    walk(ctx, [probe])
    return probe.seen


def test_where_a_module_or_tensor_is_moved_and_what_holds_it():
    found = moves(
        """
        import torch
        model = Net()
        model.cuda()
        model.to(device)
        model.to("cpu")
        model.to(torch.float16)
        class Trainer:
            def setup(self):
                self.net.to("cuda:1")
                self.net.head.to(rank)
        def unbound():
            ghost.cuda()
        """
    )
    assert found == {
        "model.cuda()": (DEVICE, "model"),
        "model.to(device)": (DEVICE, "model"),
        'model.to("cpu")': (HOST, "model"),
        "model.to(torch.float16)": (UNKNOWN, "model"),
        'self.net.to("cuda:1")': (DEVICE, "self.net"),
        "self.net.head.to(rank)": (DEVICE, False),
        "ghost.cuda()": (DEVICE, False),
    }
