"""Round 12: a program that picks the CPU (`device = torch.device("cpu")`, no accelerator named
anywhere in its code) runs its tensors on the host: `.item()` in its loop waits for nothing
(`host_programs.picks_only_the_cpu`). Hard negatives: the usual CUDA-if-available choice, a
device from a setting, a `.cuda()` anywhere, a `--device` option."""

from __future__ import annotations

import pytest
from conftest import project_findings

from torchlint.semantics.host_programs import picks_only_the_cpu

PROGRAM = """
import torch

{choice}
model = torch.nn.Linear(4, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(10):
    for x, y in loader:
        loss = (model(x.to(device)) - y.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(loss.item())
"""



@pytest.mark.parametrize(
    ("choice", "expected"),
    [
        ('device = torch.device("cpu")', False),
        ("device = 'cpu'", False),
        ('DEVICE = "cpu:0"\ndevice = torch.device(DEVICE)', True),  # a device made from a name is not followed
        ('device = torch.device("cuda" if torch.cuda.is_available() else "cpu")', True),
        ("device = torch.device(args.device)", True),
        ('device = torch.device("cpu")\nif args.gpu:\n    device = torch.device("cuda")', True),
        ('device = torch.device("cpu")  # switch to cuda for speed', False),  # a comment names nothing
    ],
)
def test_a_program_that_picks_the_cpu_syncs_nothing(tmp_path, monkeypatch, choice, expected) -> None:
    found = project_findings(tmp_path, monkeypatch, {"train.py": PROGRAM.format(choice=choice)}, "TL101")
    assert found == ({("train.py", "TL101", 13 + choice.count("\n"))} if expected else set())


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('device = torch.device("cpu")\n', True),
        ('self.device = "cpu"\n', True),
        ('device = torch.device("cpu")\nx = x.cuda()\n', False),
        ('device = torch.device("cpu")\nuse_gpu = False\n', False),
        ('device = torch.device("cpu")\ndevice = pick()\n', False),
        ("x = torch.zeros(3)\n", False),  # no device chosen at all: not this module's decision
        ('device = torch.device("cpu")\nlocal_rank = 0\n', False),  # a rank is a CUDA ordinal
    ],
)
def test_picks_only_the_cpu(text, expected) -> None:
    import libcst as cst

    assert picks_only_the_cpu(cst.parse_module(text), text) is expected
