"""Round 23 (TL102, batch 31's SASRec): `mask = ~torch.tril(torch.ones(L, L, dtype=torch.bool))`
then `mask.to(device)` in every forward creates the mask on the CPU and copies it: the
complement (and a negation) keeps a tensor where it is, as `torch.tril` does
(`semantics.devices.same_place_source`). A complement of a value that is no host creation
stays silent."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

RULE = "TL102"

MODULE = """
import torch
import torch.nn as nn

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(32, 4, batch_first=True)

    def forward(self, x):
        seq_len = x.shape[1]
        mask = {mask}
        mask = mask.to(x.device)
        return self.attn(x, x, x, attn_mask=mask)[0]

model = Block().cuda()
optimizer = torch.optim.Adam(model.parameters())
for epoch in range(10):
    for x in loader:
        model(x.cuda()).sum().backward()
        optimizer.step()
"""


@pytest.mark.parametrize("mask, reported", [
    ("~torch.tril(torch.ones(seq_len, seq_len, dtype=torch.bool))", [12]),
    ("-torch.ones(seq_len, seq_len)", [12]),
    ("~self.cached_mask[:seq_len, :seq_len]", []),
])
def test_a_complemented_mask_created_on_the_host(mask, reported):
    assert lines(MODULE.format(mask=mask), RULE) == reported


GAN = """
import torch
from torch.autograd import Variable {alias}

G = torch.nn.Linear(100, 10).cuda()
optimizer = torch.optim.Adam(G.parameters())
for epoch in range(10):
    for x, _ in loader:
        z = {wrapper}(torch.randn((x.shape[0], 100)).view(-1, 100))
        z = {wrapper}(z.cuda())
        G(z).mean().backward()
        optimizer.step()
"""


@pytest.mark.parametrize("alias, wrapper, reported", [
    ("", "Variable", [9]),
    ("as V", "V", [9]),
    ("", "make_noise", []),  # a function of unknown effect may leave the value elsewhere
])
def test_noise_wrapped_in_variable_and_moved_by_the_next_statement(alias, wrapper, reported):
    assert lines(GAN.format(alias=alias, wrapper=wrapper), RULE) == reported
