#!/usr/bin/env python3
"""Does the work per finding grow with the file? Training modules dense with findings, of growing size.

Usage::

    python benchmarks/dense_file.py [--blocks 8,16,32,64] [--repeat 3] [--json]

Each module is BLOCKS copies (with their own names) of a 63-line block: a model
class whose convolution keeps a bias before its BatchNorm, a learning-rate
schedule, a configuration merge, an evaluation function that calls `.eval()`
without `no_grad`, and a training function with a DataLoader without pinned
memory, `nn.DataParallel`, a tensor created on the CPU and moved, a zeroed
gradient and `.item()`/`.cpu()` in the step loop: 9 findings per block, most
with a fix whose preconditions ask about the whole file. The module's `__main__`
runs every block's training (a block no code runs is quiet: code that never
runs), one line per block. 32 blocks make the 2,060-line, 288-finding module of
issue 28 (2,028 lines before the calls were added).

Each module is checked with ``python -m torchlint check --no-cache --isolated
--jobs 1`` in a directory of its own (so the project holds only that file), and
the CPU time of the process (user + system, start-up included) is measured;
the median of REPEAT runs is shown, after one untimed run with bytecode caching
on (as an installed torchlint runs; see ``startup.py``). With the work per
finding independent of the file's size, the CPU time per line stays flat as
the module grows, apart from the fixed start-up.

Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from measure import machine_info, positive_int

HEADER = '''"""A training module dense with findings."""

import os

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

'''

BLOCK = '''
class Net{i}(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, padding=1)
        self.bn = nn.BatchNorm2d(16)
        self.head = nn.Linear(16, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.relu(self.bn(self.conv(x))).mean(dim=(2, 3)))


def schedule{i}(step: int, total: int, warmup: int = 100, base: float = 0.1) -> float:
    """A learning rate: linear warm-up, then cosine decay."""
    if step < warmup:
        return base * (step + 1) / warmup
    progress = (step - warmup) / max(1, total - warmup)
    value = 0.5 * base * (1.0 + torch.cos(torch.tensor(progress * 3.14159)).item())
    return max(value, base * 0.01)


def merge{i}(base: dict, override: dict) -> dict:
    """`base` with the values of `override`, merged key by key.

    Nested dictionaries are merged in turn; any other value replaces the one in `base`.
    """
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge{i}(merged[key], value)
        else:
            merged[key] = value
    return merged


def evaluate{i}(model: nn.Module, loader: DataLoader, device: torch.device) -> float:
    model.eval()
    correct = 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        correct += (model(x).argmax(1) == y).sum().item()
    return correct / len(loader.dataset)


def train{i}(device: torch.device) -> None:
    data = TensorDataset(torch.randn(256, 3, 8, 8), torch.randint(0, 10, (256,)))
    loader = DataLoader(data, batch_size=32, shuffle=True)
    model = Net{i}().to(device)
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        model.train()
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            optimizer.zero_grad(set_to_none=False)
            noise = torch.randn(images.shape).to(device)
            loss = nn.functional.cross_entropy(model(images + 0.01 * noise), labels)
            loss.backward()
            optimizer.step()
            print(loss.item(), loss.cpu())
        torch.save(model.state_dict(), os.path.join("ckpt", f"{{epoch}}.pt"))
        print(evaluate{i}(model, loader, device))
'''

FOOTER = '''

if __name__ == "__main__":
    device = torch.device("cuda")
'''
# Every block's training runs (a block no code calls is code that never runs, and quiet).
CALL = "    train{i}(device)\n"


def dense_module(blocks: int) -> str:
    """A training module of `blocks` blocks (64 lines with its call, and 9 findings each)."""
    indexes = range(blocks)
    return HEADER + "".join(BLOCK.format(i=index) for index in indexes) + FOOTER + "".join(CALL.format(i=index) for index in indexes)


def cpu_seconds(command: list[str], cwd: Path) -> tuple[float, str]:
    """The CPU time (user + system) of running `command`, and its standard output."""
    before = os.times()
    completed = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    after = os.times()
    return (after.children_user - before.children_user) + (after.children_system - before.children_system), completed.stdout


def measure(blocks: int, repeat: int) -> dict[str, float]:
    text = dense_module(blocks)
    with tempfile.TemporaryDirectory(prefix="torchlint-dense-") as directory:
        Path(directory, "train.py").write_text(text)
        command = [sys.executable, "-m", "torchlint", "check", "--no-cache", "--isolated", "--jobs", "1", "--exit-zero", "--output-format", "concise", "train.py"]
        runs = [cpu_seconds(command, Path(directory)) for _ in range(repeat + 1)][1:]
    lines = text.count("\n")
    cpu = statistics.median(seconds for seconds, _ in runs)
    findings = sum(1 for line in runs[0][1].splitlines() if line.startswith("train.py:"))
    return {"blocks": blocks, "lines": lines, "findings": findings, "cpu_s": round(cpu, 3), "ms_per_100_lines": round(100_000 * cpu / lines, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--blocks", default="8,16,32,64", help="module sizes in blocks, comma-separated (default: 8,16,32,64)")
    parser.add_argument("--repeat", type=positive_int, default=3, help="timed runs per module (default: 3)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = parser.parse_args(argv)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    rows = [measure(int(blocks), args.repeat) for blocks in args.blocks.split(",")]
    if args.json:
        print(json.dumps({"machine": machine_info(), "modules": rows}, indent=2))
        return 0
    print(f"{'blocks':>6} {'lines':>6} {'findings':>8} {'CPU s':>7} {'ms/100 lines':>12}")
    for row in rows:
        print(f"{row['blocks']:>6} {row['lines']:>6} {row['findings']:>8} {row['cpu_s']:>7.2f} {row['ms_per_100_lines']:>12.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
