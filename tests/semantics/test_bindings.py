"""semantics.bindings: values a file spells out for tuple targets."""

from __future__ import annotations

import libcst as cst

from torchlint.semantics.bindings import spelled_values

RECURSIVE = """
def setup(n):
    if n:
        return setup(n - 1)
    return model, "cuda"


def ping(n):
    return pong(n)


def pong(n):
    return ping(n)


model, device = setup(3)
other, place = ping(3)
"""


def test_a_function_that_returns_its_own_call_is_read_without_endless_recursion():
    """A recursive helper (or two that return each other's call) gives values the file does
    not spell out: unknown, where it recursed without end before (the file was reported as
    nested too deeply and lost its findings)."""
    module = cst.parse_module(RECURSIVE)
    assignments = [line.body[0] for line in module.body[-2:]]
    for assign, name in zip(assignments, ("device", "place")):
        wanted = lambda item, name=name: isinstance(item, cst.Name) and item.value == name  # noqa: E731
        assert spelled_values(module, assign.targets[0].target, assign.value, wanted) is None


def test_a_file_with_a_recursive_helper_keeps_its_findings(lint_code):
    code = "import torch\n" + RECURSIVE.replace('model, "cuda"', 'torch.nn.Linear(3, 3), torch.device("cuda")') + (
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for step in range(100):\n"
        "    loss = model(torch.zeros(3).to(device)).sum()\n"
        "    opt.zero_grad()\n"
        "    loss.backward()\n"
        "    opt.step()\n"
    )
    assert [(finding.code, finding.line) for finding in lint_code(code, ["TL000", "TL102"])] == [("TL102", 21)]
