"""Round 23 (TL103): `int()`, `float()` or a test of each element of a device tensor in a loop
over its elements that runs every step (a trained `forward()` building a prompt per series with
`"up" if trends[b] > 0 else "down"`, a validation pass converting each count with
`int(counts[i])`) waits once per element, as TL101 reports for `.item()` of each element (the
shared `semantics.trained_forward.walked_every_step`). Host tensors, values not known to be
tensors, loops that do not run every step and modules nothing trains stay silent."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

RULE = "TL103"

FORWARD = """
import torch
from torch import nn

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        trends = {trends}
        words = []
        for b in range(x.shape[0]):
            {line}
        return self.fc(x), words

model = Model().cuda()
optimizer = torch.optim.Adam(model.parameters())
for epoch in range(10):
    for x in loader:
        out, _ = model(x.cuda())
        out.sum().backward()
        optimizer.step()
"""


@pytest.mark.parametrize("trends, line, reported", [
    ("torch.sum(torch.diff(x, dim=1), dim=1)", 'words.append("up" if trends[b] > 0 else "down")', [14]),
    ("torch.sum(torch.diff(x, dim=1), dim=1)", "words.append(int(trends[b]))", [14]),
    ("torch.sum(torch.diff(x, dim=1), dim=1)", "if trends[b] > 0:\n                words.append(b)", [14]),
    # a host tensor, and a value not known to be a tensor
    ("torch.tensor([1.0, -1.0])", 'words.append("up" if trends[b] > 0 else "down")', []),
    ("x.tolist()", 'words.append("up" if trends[b] > 0 else "down")', []),
    # a test of the index, not of an element
    ("torch.sum(torch.diff(x, dim=1), dim=1)", "if b > 0:\n                words.append(trends[b])", []),
])
def test_element_tests_in_a_trained_forward(trends, line, reported):
    assert lines(FORWARD.format(trends=trends, line=line), RULE) == reported


def test_element_conversions_in_a_validation_pass_every_epoch():
    code = """
    import torch
    def validate(model, loader):
        hits = []
        with torch.no_grad():
            for x, y in loader:
                counts = torch.argmax(model(x.cuda()), 1)
                for i in range(len(counts)):
                    hits.append(int(counts[i]))
        return hits
    for epoch in range(10):
        for x, y in loader:
            model(x.cuda()).sum().backward()
            optimizer.step()
        validate(model, val_loader)
    """
    assert lines(code, RULE) == [9]


def test_element_conversions_in_a_module_nothing_trains():
    code = """
    import torch
    from torch import nn
    class Decoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 8)
        def forward(self, x):
            scores = torch.softmax(self.fc(x), dim=-1)
            return [int(scores[i].argmax()) for i in range(len(scores))], [float(scores[i, 0]) for i in range(3)]
    decoder = Decoder().cuda()
    print(decoder(torch.randn(4, 8, device="cuda")))
    """
    assert lines(code, RULE) == []
