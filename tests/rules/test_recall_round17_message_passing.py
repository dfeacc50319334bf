"""Round 17 (TL102, misses of a graph transformer): PyTorch Geometric's `propagate()`, which
a `MessagePassing` layer's `forward()` calls, runs the layer's `message`, `aggregate`,
`update` and `message_and_aggregate`: they run as often as the forward does."""

from __future__ import annotations

import pytest
from conftest import lines

LAYER = """
import torch
from torch_geometric.nn import MessagePassing


class Base({base}):
    pass


class Conv(Base):
    def forward(self, x, edge_index):
        return self.propagate(edge_index, x=x)

    def {method}(self, x_i, x_j, edge_index_i):
        scores = torch.zeros(edge_index_i.size(0), self.heads).to(x_i.device)
        return scores + x_j
"""


@pytest.mark.parametrize("method", ["message", "update", "aggregate", "message_and_aggregate"])
def test_message_passing_hooks_run_every_forward(method):
    code = LAYER.replace("{base}", "MessagePassing").replace("{method}", method)
    assert lines(code, "TL102") == [15]


@pytest.mark.parametrize(
    "base, method",
    [
        # Not a message-passing layer: nothing in the file calls the method.
        ("torch.nn.Module", "message"),
        # A message-passing layer's own helper that propagate does not run.
        ("MessagePassing", "build_scores"),
    ],
)
def test_other_methods_and_classes_stay_unknown(base, method):
    assert lines(LAYER.replace("{base}", base).replace("{method}", method), "TL102") == []
