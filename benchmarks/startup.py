#!/usr/bin/env python3
"""Measure torchlint's start-up: the cost a pre-commit hook or an editor pays per call.

Usage::

    python benchmarks/startup.py [--repeat K] [--json]

Runs, K times each, with the interpreter running this script:

* ``torchlint --version`` and ``torchlint --help``;
* a one-file check of ``examples/train.py`` without the cache (parses with LibCST) and
  with a warm cache;
* a warm run over a generated project of 300 small training modules (the cache answers
  every file), the case of a pre-commit hook or CI job on an unchanged tree.

It also reports whether LibCST or any rule module was imported (``python -X importtime``)
for ``--version`` and the warm runs: they must not be. Standard library only.

Every case runs once untimed first, with bytecode caching on, as an installed torchlint runs
(pip writes the ``.pyc`` files at install time): an environment that sets
``PYTHONDONTWRITEBYTECODE`` would otherwise add compiling every module to every call.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from measure import format_rows, machine_info, positive_int, run_command, summarize

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "train.py"
MODULE = '''"""Training module {index}."""
import torch
from torch import nn


class Block{index}(nn.Module):
    def __init__(self, width: int) -> None:
        super().__init__()
        self.linear = nn.Linear(width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.linear(x)) + x


def step(model, batch, optimizer):
    optimizer.zero_grad(set_to_none=True)
    loss = model(batch).pow(2).mean()
    loss.backward()
    optimizer.step()
    return loss.detach()
'''


def make_project(directory: Path, files: int = 300) -> Path:
    """A project of `files` modules in ten packages."""
    for index in range(files):
        package = directory / f"pkg{index % 10}"
        package.mkdir(parents=True, exist_ok=True)
        (package / f"module{index}.py").write_text(MODULE.format(index=index))
    return directory


def imports_heavy(command: Sequence[str], cwd: Path) -> bool:
    """Whether `command` (a `python -m torchlint ...` call) imports LibCST or a rule module."""
    measured = run_command([command[0], "-X", "importtime", *command[1:]], cwd)
    modules = [line.rsplit("|", 1)[-1].strip() for line in measured.stderr.splitlines() if line.startswith("import time:")]
    return any(name == "libcst" or name.startswith(("libcst.", "torchlint.rules.")) for name in modules)


def benchmark(repeat: int) -> dict[str, Any]:
    python = sys.executable
    torchlint = [python, "-m", "torchlint"]
    with tempfile.TemporaryDirectory() as scratch:
        project = make_project(Path(scratch) / "project")
        one_file_cache = Path(scratch) / "one-file-cache"
        cases = {
            "--version": (torchlint + ["--version"], REPO),
            "--help": (torchlint + ["--help"], REPO),
            "one file, no cache": (torchlint + ["check", "--exit-zero", "--no-cache", str(EXAMPLE)], REPO),
            "one file, cached": (torchlint + ["check", "--exit-zero", "--cache-dir", str(one_file_cache), str(EXAMPLE)], REPO),
            "300 files, cached": (torchlint + ["check", "--exit-zero", "."], project),
        }
        for command, cwd in cases.values():
            run_command(command, cwd)  # fill the result caches and the modules' bytecode
        rows = {}
        for name, (command, cwd) in cases.items():
            summary = summarize([run_command(command, cwd) for _ in range(repeat)])
            rows[name] = {"median_s": summary.wall_s_median, "min_s": summary.wall_s_min}
        for name in ("--version", "one file, cached", "300 files, cached"):
            rows[name]["imports_libcst_or_rules"] = imports_heavy(*cases[name])
    return {"machine": machine_info(), "repeat": repeat, "cases": rows}


def format_table(report: dict[str, Any]) -> str:
    rows = [["case", "median", "min", "LibCST/rules imported"]]
    for name, row in report["cases"].items():
        imported = row.get("imports_libcst_or_rules")
        rows.append([name, f"{row['median_s']:.3f} s", f"{row['min_s']:.3f} s", "-" if imported is None else ("yes" if imported else "no")])
    return format_rows(rows, right=(1, 2))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=positive_int, default=10, help="number of timed runs (default: 10)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = parser.parse_args(argv)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    report = benchmark(args.repeat)
    print(json.dumps(report, indent=2) if args.json else format_table(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
