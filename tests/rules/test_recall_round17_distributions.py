"""Round 17 (TL102, misses of batch 23's RL agents): a `torch.distributions` object built
from numbers draws on the host, so `Normal(0, 1).sample(shape).to(device)` in an update
creates the noise on the CPU and copies it every step. Parameters that may be on the
device draw there."""

from __future__ import annotations

import pytest
from conftest import lint

AGENT = """
import torch
from torch.distributions import Normal
import torch.distributions as D

device = torch.device("cuda")


class Policy(torch.nn.Module):
    def forward(self, state):
        mean = self.mean_linear(state)
        std = self.log_std_linear(state).exp()
        {body}
        return mean + std * z
"""


def findings(body: str):
    return [(finding.line, finding.fix) for finding in lint(AGENT.replace("{body}", body), ["TL102"])]


@pytest.mark.parametrize(
    "body",
    [
        # Drawn and moved at once, or moved by a later statement.
        "z = Normal(0, 1).sample(mean.shape).to(device)",
        "normal = Normal(0, 1)\n        z = normal.sample(mean.shape).to(device)",
        "normal = Normal(0, 1)\n        z = normal.sample(mean.shape)\n        z = z.to(device)",
        # Another spelling and distribution; host factories as parameters; rsample.
        "z = D.Uniform(-1.0, 1.0).rsample(mean.shape).cuda()",
        "z = torch.distributions.Normal(torch.zeros(4), torch.ones(4)).sample().to(device)",
    ],
)
def test_a_distribution_of_numbers_draws_on_the_host(body):
    found = findings(body)
    drawn = next(number for number, text in enumerate(body.split("\n")) if "sample(" in text)
    assert [line for line, _ in found] == [13 + drawn]  # the draw, also when a later statement moves it
    assert found[0][1] is None  # where the distribution draws is the user's rewrite


@pytest.mark.parametrize(
    "body",
    [
        # Parameters that may be on the device: it draws there.
        "z = Normal(mean, std).sample().to(device)",
        "z = Normal(torch.zeros_like(mean), 1).sample().to(device)",
        # Not a torch distribution; a name bound to something else on some path.
        "z = make_noise(0, 1).sample(mean.shape).to(device)",
        "normal = Normal(0, 1) if self.training else self.noise\n        z = normal.sample(mean.shape).to(device)",
        # A dtype conversion, not a move.
        "z = Normal(0, 1).sample(mean.shape).to(torch.float16)",
    ],
)
def test_distributions_that_may_draw_on_the_device_are_silent(body):
    assert findings(body) == []


def test_a_draw_that_runs_once_is_silent():
    code = "import torch\nfrom torch.distributions import Normal\nz = Normal(0, 1).sample((4,)).cuda()\n"
    assert lint(code, ["TL102"]) == []
