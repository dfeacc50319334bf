"""Round 13: a name bound once in its scope to a torch name stands for it
(`Tensor = torch.FloatTensor`, then `Tensor(n, 1).fill_(1.0).to(device)` in a gradient penalty
is a host tensor copied every step); a name bound to different values in different branches
(`Tensor = torch.cuda.FloatTensor` when CUDA is there) is not an alias."""

from __future__ import annotations

import pytest
from conftest import lint

PENALTY = """
import torch
from torch import autograd


class WGAN(torch.nn.Module):
    def __init__(self, critic):
        super().__init__()
        self.critic = critic
        self.device = torch.device("cuda")

    def forward(self, real, fake):
{binding}
        alpha = torch.rand(real.size(0), 1, device=self.device)
        mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
        scores = self.critic(mixed)
        ones = Tensor(real.shape[0], 1).fill_(1.0).to(self.device)
        grads = autograd.grad(scores, mixed, ones, create_graph=True)[0]
        return ((grads.norm(2, dim=1) - 1) ** 2).mean()
"""


def _lines(binding: str) -> list:
    return [finding.line for finding in lint(PENALTY.format(binding=binding), ["TL102"])]


def test_a_local_alias_of_a_legacy_constructor():
    assert _lines("        Tensor = torch.FloatTensor") == [17]


def test_a_module_level_alias():
    code = PENALTY.format(binding="        pass").replace("import torch\n", "import torch\nTensor = torch.FloatTensor\n", 1)
    assert [finding.line for finding in lint(code, ["TL102"])] == [18]


@pytest.mark.parametrize(
    "binding",
    [
        "        Tensor = torch.cuda.FloatTensor if torch.cuda.is_available() else torch.FloatTensor",
        "        if self.device.type == 'cuda':\n            Tensor = torch.cuda.FloatTensor\n        else:\n            Tensor = torch.FloatTensor",
        "        Tensor = torch.cuda.FloatTensor",
        "        Tensor = make_tensor_type()",
    ],
)
def test_not_an_alias_of_a_host_constructor(binding):
    assert _lines(binding) == []
