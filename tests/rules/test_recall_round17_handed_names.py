"""Round 17 (TL102, a miss of a vocoder's sequence mask): a host tensor handed to a new name
through steps that keep it where it is (`expanded = seq_range.unsqueeze(0).expand(b, n)`)
and moved by a later statement was created on the host to be moved."""

from __future__ import annotations

import pytest
from conftest import lines

MASK = """
import torch


def sequence_mask(lengths, max_len):
    batch_size = lengths.size(0)
    seq_range = torch.arange(0, max_len).long()
    expanded = seq_range.unsqueeze(0).expand(batch_size, max_len)
    {between}
    if lengths.is_cuda:
        expanded = expanded.cuda()
    return expanded < lengths.unsqueeze(1)


class Net(torch.nn.Module):
    def forward(self, x, lengths):
        return self.body(x) * sequence_mask(lengths, x.size(1))
"""


def test_a_value_handed_to_a_new_name_and_moved_is_reported_at_its_creation():
    assert lines(MASK.replace("{between}", "pass"), "TL102") == [7]


@pytest.mark.parametrize(
    "between",
    [
        # The old name is read again: a host use of the value (it shares its memory).
        "total = seq_range.sum()",
        # The new name is read on the host before the move.
        "first = expanded[0].tolist()",
        # A nested function may read the old name on the host.
        "report = lambda: seq_range.tolist()",
    ],
)
def test_host_uses_of_either_name_keep_it_silent(between):
    assert lines(MASK.replace("{between}", between), "TL102") == []
