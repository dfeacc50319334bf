"""Round 15 (TL102): a host tensor made by a same-file helper and moved by its caller
(`sample_gumbel(size)` with `U = torch.rand(shape)` and `return -torch.log(eps - torch.log(U +
eps))`, then `noise = noise.cuda()` or `sample_gumbel(size).cuda()`) is reported at the
helper's factory; a parameter that defaults to a number (`eps=1e-10`) reads as one in the
computation. `torch.normal` draws on the host when given a size (`torch.normal(0, std,
size=s)`) or a host mean (`torch.normal(torch.zeros(n), std)`). Not when the helper makes it on
the device, reads it on the host, may return something else, when a parameter without a
number default joins the computation, when the caller does not move it, for code that runs
once, for test code, or for `torch.normal` of tensors that may be on the device."""

from __future__ import annotations

import pytest
from conftest import lint, project_findings

pytestmark = pytest.mark.stable_only


def _findings(code: str, tmp_path, monkeypatch, name: str = "train.py") -> set:
    return project_findings(tmp_path, monkeypatch, {name: code}, "TL102")

GUMBEL = """
import torch
import torch.nn.functional as F


def sample_gumbel(shape, eps=1e-10):
    U = torch.rand(shape).float()
    return - torch.log(eps - torch.log(U + eps))


def gumbel_softmax_sample(logits, tau=1, eps=1e-10):
    gumbel_noise = sample_gumbel(logits.size(), eps=eps)
    if logits.is_cuda:
        gumbel_noise = gumbel_noise.cuda()
    return F.softmax((logits + gumbel_noise) / tau, dim=-1)


model = torch.nn.Linear(10, 10).cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(10):
    for inputs, targets in loader:
        edges = gumbel_softmax_sample(model(inputs.cuda()))
        loss = ((edges - targets.cuda()) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
"""

HIDDEN = """
import torch


class Encoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = torch.nn.GRU(10, 20)

    def init_hidden(self, batch):
        return torch.zeros(1, batch, 20)

    def forward(self, x):
        return self.rnn(x, self.init_hidden(x.size(1)).cuda())[0]
"""

NOISE = """
import torch

device = torch.device("cuda")
actor = torch.nn.Linear(4, 2).to(device)
opt = torch.optim.Adam(actor.parameters())
for step in range(1000):
    batch = buffer.sample(64)
    target = actor(batch.to(device))
    epsilon = torch.normal(mean=0, std=0.2, size=target.size()).to(device)
    loss = ((target + epsilon) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


@pytest.mark.parametrize(
    ("code", "line"),
    [
        (GUMBEL, 7),
        (GUMBEL.replace("    if logits.is_cuda:\n        gumbel_noise = gumbel_noise.cuda()\n", "    gumbel_noise = gumbel_noise.to(logits.device)\n"), 7),
        (GUMBEL.replace("sample_gumbel(logits.size(), eps=eps)", "sample_gumbel(logits.size(), eps=eps).cuda()").replace(
            "    if logits.is_cuda:\n        gumbel_noise = gumbel_noise.cuda()\n", ""), 7),
        (HIDDEN, 11),
    ],
    ids=["later-move", "later-move-to-tensor-device", "moved-at-once", "method-in-forward"],
)
def test_helper_returns_a_host_tensor_its_caller_moves(tmp_path, monkeypatch, code, line):
    assert _findings(code, tmp_path, monkeypatch) == {("train.py", "TL102", line)}


def test_helper_finding_has_no_fix_and_names_the_helper():
    [finding] = lint(HIDDEN, ["TL102"])
    assert finding.fix is None and "init_hidden()" in finding.message


@pytest.mark.parametrize(
    "change",
    [
        # made on the device by the helper
        ("torch.rand(shape).float()", "torch.rand(shape, device='cuda').float()"),
        # read on the host before it is returned
        ("    return - torch.log", "    print(U.sum())\n    return - torch.log"),
        # another path returns something that is not made there
        ("    U = torch.rand(shape).float()\n", "    if CACHE:\n        return CACHE[0]\n    U = torch.rand(shape).float()\n"),
        # a parameter with no number default may be a device tensor
        ("def sample_gumbel(shape, eps=1e-10):", "def sample_gumbel(shape, eps):"),
        # not moved by the caller
        ("    if logits.is_cuda:\n        gumbel_noise = gumbel_noise.cuda()\n", ""),
        # moved to something that is not known to be a device
        ("gumbel_noise = gumbel_noise.cuda()", "gumbel_noise = gumbel_noise.to(dtype)"),
        # read on the host by the caller before the move
        ("    if logits.is_cuda:\n", "    stats.append(gumbel_noise.mean())\n    if logits.is_cuda:\n"),
    ],
)
def test_helper_hard_negatives(tmp_path, monkeypatch, change):
    changed = GUMBEL.replace(*change)
    assert changed != GUMBEL
    assert _findings(changed, tmp_path, monkeypatch) == set()


def test_helper_called_once_or_in_test_code(tmp_path, monkeypatch):
    once = GUMBEL.split("model = ")[0] + "noise = gumbel_softmax_sample(torch.zeros(3, 4).cuda())\n"
    assert _findings(once, tmp_path, monkeypatch) == set()
    (tmp_path / "tests").mkdir()
    assert project_findings(tmp_path, monkeypatch, {"tests/train.py": GUMBEL}, "TL102") == set()


def test_helper_in_a_constructor_is_silent():
    code = HIDDEN.replace("        self.rnn = torch.nn.GRU(10, 20)\n", "        self.rnn = torch.nn.GRU(10, 20)\n        self.h0 = self.init_hidden(4).cuda()\n")
    code = code.replace("self.init_hidden(x.size(1)).cuda()", "self.h0")
    assert lint(code, ["TL102"]) == []


@pytest.mark.parametrize(
    ("code", "fixed"),
    [
        (NOISE, "torch.normal(mean=0, std=0.2, size=target.size(), device=device)"),
        (NOISE.replace("torch.normal(mean=0, std=0.2, size=target.size())", "torch.normal(0.0, 0.2, (64, 2))"), "torch.normal(0.0, 0.2, (64, 2), device=device)"),
        (NOISE.replace("torch.normal(mean=0, std=0.2, size=target.size())", "torch.normal(torch.zeros(64, 2), 0.2)"), None),
    ],
    ids=["size-keyword", "size-positional", "host-mean"],
)
def test_normal_drawn_on_the_host(tmp_path, monkeypatch, code, fixed):
    assert _findings(code, tmp_path, monkeypatch) == {("train.py", "TL102", 10)}
    [finding] = lint(code, ["TL102"])
    if fixed is None:
        assert finding.fix is None  # `normal(mean_tensor, std)` takes no `device=`
    else:
        assert finding.fix is not None and finding.fix.applicability.value == "unsafe"  # random draws
        assert finding.fix.edits[0].content == fixed


@pytest.mark.parametrize(
    "normal",
    [
        "torch.normal(target, 0.2)",  # a mean tensor where the actor's output is
        "torch.normal(mean=target, std=0.2)",
        "torch.normal(torch.zeros_like(target), 0.2)",  # made where `target` is
        "torch.normal(0, 0.2, size=target.size(), device=device)",
    ],
)
def test_normal_hard_negatives(tmp_path, monkeypatch, normal):
    code = NOISE.replace("torch.normal(mean=0, std=0.2, size=target.size())", normal)
    assert _findings(code, tmp_path, monkeypatch) == set()


def test_normal_once_is_silent():
    assert lint("import torch\nnoise = torch.normal(0, 1, size=(4, 4)).cuda()\n", ["TL102"]) == []
