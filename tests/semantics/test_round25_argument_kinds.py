"""Round 25: what a file's calls of its own functions pass them (`semantics.argument_kinds`),
noted as the single traversal reaches each call: a module-level function by its name, a
method through `self.<name>(...)`, a module's `forward` through `self(...)`; a parameter handed
on, or a name computed from one, stands for the caller's parameters."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from torchlint.engine.context import FileContext, Options
from torchlint.engine.walker import walk

CODE = """
import torch
from torch import nn

def accuracy(out, labels):
    return (out.argmax(1) == labels).sum()

def shadowed(x):
    return x

def host(t):
    return t

class Net(nn.Module):
    def forward(self, x, lengths=None):
        lengths = lengths.view(-1) if lengths is not None else None
        return accuracy(x, lengths)

    def fit(self, loader, device):
        for x, lengths in loader:
            x, lengths = x.to(device), lengths.to(device)
            self(x, lengths=lengths)
            self.forward(x, lengths=None)
            host(x.cpu())

def train(loader, device):
    shadowed = lambda value: value
    for x, y in loader:
        shadowed(x.to(device))
        accuracy(x.to(device), y.to(device))
"""


def passes(function: str, parameter: str) -> bool:
    text = textwrap.dedent(CODE)
    ctx = FileContext(cst.parse_module(text), text, "train.py", Options())
    walk(ctx, [])
    found = {node.name.value: node for node in _functions(ctx.module)}
    return ctx.arguments.always_maybe_on_device(found[function], parameter)


def _functions(node):
    for child in getattr(node, "body", ()) if not isinstance(node, cst.ClassDef) else node.body.body:
        if isinstance(child, cst.FunctionDef):
            yield child
        elif isinstance(child, cst.ClassDef):
            yield from _functions(child)


@pytest.mark.parametrize("function, parameter, expected", [
    ("forward", "x", True),  # `self(x, ...)` and `self.forward(x, ...)` with x moved
    ("forward", "lengths", False),  # None at one call
    ("accuracy", "out", True),  # forward's `x`, handed on, and `x.to(device)`
    ("accuracy", "labels", False),  # computed from forward's `lengths`
    ("host", "t", False),  # a host tensor
    ("shadowed", "x", False),  # the call is of a local lambda
])
def test_what_calls_pass(function, parameter, expected):
    assert passes(function, parameter) is expected
