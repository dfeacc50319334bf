"""Round 24 (TL101, TL103): a read of each element of a device tensor counts as one whatever
the element is read through: a part of a row (`r[0].item()` in `for r in ranks:`, a row of a
ranking or of a gathered tensor) or a comprehension over the tensor (`[int(n) for n in
counts]`, `[r[0].item() for r in ranks]`) waits once per element, every step, as the loop
over `lengths[i]` does (`semantics.elements.element_loop`). Host tensors, Python lists and
loops that do not run every step stay silent."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

VALIDATION = """
import torch
def validate(model, loader):
    hits = []
    with torch.no_grad():
        for x, y in loader:
            ranks = {ranks}
            {line}
    return hits
for epoch in range(10):
    for x, y in loader:
        model(x.cuda()).sum().backward()
        optimizer.step()
    validate(model, val_loader)
"""


@pytest.mark.parametrize("rule, ranks, line, reported", [
    ("TL101", "model(x.cuda()).argsort(1)", "for r in ranks:\n                hits.append(r[0].item())", [9]),
    ("TL101", "model(x.cuda()).argsort(1)", "for r in ranks:\n                hits.append(r[0, 1:3].tolist())", [9]),
    ("TL101", "model(x.cuda()).argsort(1)", "hits.extend([r[0].item() for r in ranks])", [8]),
    ("TL103", "torch.argmax(model(x.cuda()), 1)", "hits.extend([int(n) for n in ranks])", [8]),
    ("TL103", "torch.argsort(model(x.cuda()), 1)", "for r in ranks:\n                hits.append(int(r[0]))", [9]),
    ("TL103", "torch.argsort(model(x.cuda()), 1)", "hits.extend([r for r in ranks if r[0] > 0])", [8]),
    # a comparison that nothing tests stays on the device
    ("TL103", "torch.argsort(model(x.cuda()), 1)", "hits.extend([r[0] > 0 for r in ranks])", []),
    # rows of a host tensor, and of a Python list
    ("TL101", "model(x.cuda()).argsort(1).cpu()", "for r in ranks:\n                hits.append(r[0].item())", []),
    ("TL101", "model(x.cuda()).argsort(1).tolist()", "for r in ranks:\n                hits.append(r[0])", []),
    ("TL103", "torch.argmax(model(x.cuda()), 1).tolist()", "hits.extend([int(n) for n in ranks])", []),
    ("TL103", "torch.argmax(model(x.cuda()), 1).cpu()", "hits.extend([int(n) for n in ranks])", []),
])
def test_rows_and_comprehensions_in_a_validation_pass(rule, ranks, line, reported):
    assert lines(VALIDATION.format(ranks=ranks, line=line), rule) == reported


def test_rows_read_in_a_final_evaluation_are_silent():
    code = """
    import torch
    for epoch in range(10):
        for x, y in loader:
            model(x.cuda()).sum().backward()
            optimizer.step()
    hits = []
    with torch.no_grad():
        for x, y in test_loader:
            ranks = model(x.cuda()).argsort(1)
            for r in ranks:
                hits.append(r[0].item())
    """
    assert lines(code, "TL101") == []
