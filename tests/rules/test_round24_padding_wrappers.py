"""Round 24 (TL301): a project class whose `forward` ends in its biased layer's output stands
for that layer whatever it does to the input first (`inputs = F.pad(inputs, ...)` for a causal
convolution, then `return self.conv(inputs)`; `semantics.biased_layers`). A forward that can
return something else (an early `return`, the output scaled after the layer) does not."""

from __future__ import annotations

import pytest
from conftest import lint

RULE = "TL301"

WRAPPER = """
import torch.nn as nn
import torch.nn.functional as F


class CausalConv(nn.Module):
    def __init__(self, c_in, c_out, padding=(2, 1), causal=True):
        super().__init__()
        self.padding = padding
        self.causal = causal
        self.conv = nn.Conv2d(c_in, c_out, (5, 2), padding=[padding[0], 0])
        nn.init.constant_(self.conv.bias, 0.0)

    def forward(self, inputs):
{body}


encoder = nn.Sequential(CausalConv(2, 16), nn.BatchNorm2d(16), nn.PReLU())
"""

PAD = """        if self.causal:
            inputs = F.pad(inputs, [self.padding[1], 0, 0, 0])
        else:
            inputs = F.pad(inputs, [self.padding[1], self.padding[1], 0, 0])
"""


@pytest.mark.parametrize("body, reported", [
    (PAD + "        out = self.conv(inputs)\n        return out", True),
    (PAD + "        return self.conv(inputs)", True),
    ("        return self.conv(F.pad(inputs, [1, 0, 0, 0]))", True),
    # an early return, a result changed after the layer, a layer bound again in forward
    ("        if not self.causal:\n            return inputs\n        return self.conv(inputs)", False),
    ("        out = self.conv(inputs)\n        out = out * 2\n        return out", False),
    ("        self.conv = nn.Identity()\n        return self.conv(inputs)", False),
])
def test_a_wrapper_that_prepares_its_input(body, reported):
    code = WRAPPER.format(body=body)
    findings = lint(code, [RULE])
    encoder = code.splitlines().index("encoder = nn.Sequential(CausalConv(2, 16), nn.BatchNorm2d(16), nn.PReLU())") + 1
    assert [finding.line for finding in findings] == ([encoder] if reported else [])
    # the class has no bias parameter and reads its layer's `.bias`: reported without a fix
    assert all(finding.fix is None for finding in findings)
