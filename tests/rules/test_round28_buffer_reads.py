"""Round 28: a conversion of a registered buffer in the `forward()` of a trained module (MoCo's
`ptr = int(self.queue_ptr)`) waits for the device every step and is reported by default; a
forward that computes only its keys under `torch.no_grad()` still trains. Hard negatives: a
conversion of another tensor there (the preview variant), and a forward run wholly without
gradients."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

MOCO = """
import torch
from torch import nn


class MoCo(nn.Module):
    def __init__(self, encoder_q, encoder_k, dim=128, K=4096):
        super().__init__()
        self.encoder_q, self.encoder_k, self.K = encoder_q, encoder_k, K
        self.register_buffer("queue", torch.randn(dim, K))
        self.register_buffer("queue_ptr", torch.zeros(1, dtype=torch.long))

    @torch.no_grad()
    def _dequeue_and_enqueue(self, keys):
        ptr = int({read})
        self.queue[:, ptr:ptr + keys.shape[0]] = keys.T
        self.queue_ptr[0] = (ptr + keys.shape[0]) % self.K

    def forward(self, im_q, im_k):
{body}
        return q, k


model = MoCo(nn.Linear(8, 128), nn.Linear(8, 128)).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(10):
    for im_q, im_k in loader:
        q, k = model(im_q.cuda(), im_k.cuda())
        loss = (q * k).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""

TRAINS = "        q = self.encoder_q(im_q)\n        with torch.no_grad():\n            k = self.encoder_k(im_k)\n        self._dequeue_and_enqueue(k)"
INFERS = (
    "        with torch.no_grad():\n            q = self.encoder_q(im_q)\n            k = self.encoder_k(im_k)\n"
    "            self._dequeue_and_enqueue(k)"
)


@pytest.mark.parametrize("read, body, reported", [
    ("self.queue_ptr", TRAINS, True),
    ("self.queue_ptr[0]", TRAINS, True),
    ("keys.sum()", TRAINS, False),
    ("self.queue_ptr", INFERS, False),
])
def test_buffer_conversions_in_a_trained_forward(read, body, reported):
    code = MOCO.format(read=read, body=body)
    line = code.splitlines().index(f"        ptr = int({read})") + 1
    assert (line in lines(code, "TL103")) is reported
