"""Round 17 (TL102, after batch 24's measurement): a causal mask made on the host,
`torch.triu(torch.ones(s), diagonal=1)`, converted to a dtype (`.type(torch.uint8)`) and
moved, was created on the host to be moved: a triangle of a tensor and a dtype conversion
keep it where it is. A `.type()` to a CUDA tensor type is a move itself."""

from __future__ import annotations

import pytest
from conftest import lines

MODEL = """
import torch


class Net(torch.nn.Module):
    def forward(self, x):
        n = x.size(1)
        mask = {mask}
        return self.body(x) * mask
"""


@pytest.mark.parametrize(
    "mask",
    [
        "torch.triu(torch.ones(n, n), diagonal=1).cuda()",
        "torch.tril(torch.ones(1, n, n)).type(torch.uint8).to(x.device)",
        "torch.ones(n, n).triu(1).bool().cuda()",
    ],
)
def test_host_masks_made_by_triangles_and_moved_are_reported(mask):
    assert lines(MODEL.replace("{mask}", mask), "TL102") == [8]


@pytest.mark.parametrize(
    "mask",
    [
        # Triangles of a tensor that may be on the device are made there.
        "torch.triu(x.new_ones(n, n), diagonal=1).cuda()",
        # A CUDA tensor type is a move, not a dtype conversion of the host tensor.
        "torch.ones(n, n).type(torch.cuda.FloatTensor).cuda()",
        "torch.ones(n, n).type('torch.cuda.ByteTensor').cuda()",
    ],
)
def test_triangles_of_other_values_and_type_moves_are_silent(mask):
    assert lines(MODEL.replace("{mask}", mask), "TL102") == []
