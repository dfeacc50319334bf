"""Round 23: a branch that tests a device's type against another device's name runs only
there (`if logits.device.type == "mps": logits = logits.cpu()`, a workaround for an operator
MPS lacks), so nothing in it waits for CUDA; the `else` of a test that the device is CUDA
likewise (`semantics.devices.in_cpu_only_branch`)."""

from __future__ import annotations

import libcst as cst
import pytest

from torchlint.semantics.devices import in_cpu_only_branch
from torchlint.semantics.tree import module_nodes


def _path(code: str, marker: str):
    module = cst.parse_module(code)
    parents = module_nodes(module).parents
    target = next(node for node in module_nodes(module).order if isinstance(node, cst.Name) and node.value == marker)
    path, child = [], target
    while id(child) in parents:
        parent = parents[id(child)]
        path.append((parent, child))
        child = parent
    return path


@pytest.mark.parametrize("test, branch, host_only", [
    ('logits.device.type == "mps"', "body", True),
    ('logits.device.type == "mps"', "orelse", False),
    ('device == "cpu"', "body", True),
    ('str(args.device) == "cpu"', "body", True),
    ('x.device.type == "cuda"', "body", False),
    ('x.device.type == "cuda"', "orelse", True),
    ('x.device.type != "cuda"', "body", True),
    ('not device.type == "mps"', "orelse", True),
    ('mode == "cpu"', "body", False),  # not a device
    ('device.type in ("mps", "cpu")', "body", False),  # not read
])
def test_branches_by_device_type(test, branch, host_only):
    code = f"if {test}:\n    HERE_BODY = 1\nelse:\n    HERE_ORELSE = 1\n"
    marker = "HERE_BODY" if branch == "body" else "HERE_ORELSE"
    assert in_cpu_only_branch(_path(code, marker), lambda node: None) is host_only


@pytest.mark.stable_only
def test_a_read_back_in_a_branch_for_another_device_is_silent():
    from conftest import lines

    code = """
    import torch
    for epoch in range(10):
        for x, y in loader:
            logits = model(x.cuda())
            loss = criterion(logits, y.cuda())
            loss.backward()
            optimizer.step()
            if logits.device.type == "mps":
                ranks = logits.detach().cpu().argsort()
            else:
                ranks = logits.detach().cpu().argsort()
    """
    assert lines(code, "TL101") == [12]
