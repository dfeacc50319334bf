#!/usr/bin/env python3
"""Does a finding make a big file slower? One large file checked with and without findings.

Usage::

    python benchmarks/large_file.py [--lines 50000] [--findings 10] [--repeat 3] [--json]

Writes these files into a temporary directory and checks each K times with
``python -m torchlint check --no-cache --isolated`` (median wall time):

* ``clean.py``: about LINES lines of small functions that use torch, ending with
  ten training loops that print the loss tensor (no finding, but the trigger
  words make torchlint analyse the whole file);
* ``findings.py``: the same file where FINDINGS of the loops print
  ``loss.item()`` instead (one TL101 finding each, at the end of the file,
  where placing them used to cost the most);
* ``spread.py``: the same findings spread evenly through the file;
* ``long-line.py`` and ``long-line-finding.py``: one 1 MiB line, then a line
  wrapping a model in ``DistributedDataParallel`` (no finding) or in
  ``DataParallel`` (a TL501 finding);
* ``plain.py`` and ``plain-findings.py``: LINES lines of assignments that give
  no rule anything to look at, so torchlint does not parse the file at all,
  and the same with FINDINGS training loops appended. This pair measures the
  cost of analysing a file at all, not of its findings.

The ratio of each file with findings to its counterpart without is what the
benchmark is about: the work per finding should not grow with the file.

Standard library only; the measuring is in ``measure.py``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from measure import machine_info, positive_int, run_command, summarize

LOOPS = 10
LONG_LINE_BYTES = 1024 * 1024


def _function(index: int) -> str:
    return f"def f{index}(x):\n    y = x.cuda() + {index}\n    return y * 2\n\n"


def _loop(index: int, finding: bool) -> str:
    shown = "loss.item()" if finding else "loss"
    return (
        f"def train{index}(model, loader):\n    for x in loader:\n"
        f"        loss = model(x.cuda()).sum()\n        loss.backward()\n        print({shown})\n\n"
    )


def large_file(lines: int, findings: int, spread: bool) -> str:
    """About `lines` lines with `findings` TL101 findings, at the end or spread through the file."""
    functions = [_function(index) for index in range(max(1, (lines - 6 * LOOPS) // 4))]
    loops = [_loop(index, index < findings) for index in range(LOOPS)]
    if not spread:
        return "import torch\n\n" + "".join(functions) + "".join(loops)
    step = len(functions) // LOOPS
    parts = []
    for index, loop in enumerate(loops):
        parts.extend(functions[index * step : (index + 1) * step])
        parts.append(loop)
    parts.extend(functions[LOOPS * step :])
    return "import torch\n\n" + "".join(parts)


def long_line_file(finding: bool) -> str:
    items = "1, " * (LONG_LINE_BYTES // 3)
    last = "torch.nn.DataParallel(model)" if finding else "torch.nn.parallel.DistributedDataParallel(model)"
    return f"import torch\nsizes = [{items}]\n{last}\n"


def plain_file(lines: int, findings: int) -> str:
    assignments = "".join(f"value_{index} = compute({index}, 'x')\n" for index in range(lines))
    if not findings:
        return assignments
    return "import torch\n" + assignments + "".join(_loop(index, True) for index in range(findings))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=positive_int, default=50_000, help="lines of the large file (default: 50000)")
    parser.add_argument("--findings", type=positive_int, default=10, help=f"findings, at most {LOOPS} (default: 10)")
    parser.add_argument("--repeat", type=positive_int, default=3, help="timed runs per file (default: 3)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = parser.parse_args(argv)
    findings = min(args.findings, LOOPS)
    files = {
        "clean.py": large_file(args.lines, 0, spread=False),
        "findings.py": large_file(args.lines, findings, spread=False),
        "spread.py": large_file(args.lines, findings, spread=True),
        "long-line.py": long_line_file(finding=False),
        "long-line-finding.py": long_line_file(finding=True),
        "plain.py": plain_file(args.lines, 0),
        "plain-findings.py": plain_file(args.lines, findings),
    }
    results = {}
    with tempfile.TemporaryDirectory(prefix="torchlint-large-file-") as directory:
        for name, text in files.items():
            Path(directory, name).write_text(text)
        for name in files:
            command = [sys.executable, "-m", "torchlint", "check", "--no-cache", "--isolated", "--exit-zero", "--output-format", "concise", name]
            runs = [run_command(command, Path(directory), sample_interval_s=0) for _ in range(args.repeat)]
            results[name] = {
                "lines": files[name].count("\n"),
                "findings": sum(1 for line in runs[0].stdout.splitlines() if f"{name}:" in line),
                "median_s": round(summarize(runs).wall_s_median, 3),
            }
    ratios = {
        "findings.py / clean.py": results["findings.py"]["median_s"] / results["clean.py"]["median_s"],
        "spread.py / clean.py": results["spread.py"]["median_s"] / results["clean.py"]["median_s"],
        "long-line-finding.py / long-line.py": results["long-line-finding.py"]["median_s"] / results["long-line.py"]["median_s"],
        "plain-findings.py / plain.py": results["plain-findings.py"]["median_s"] / results["plain.py"]["median_s"],
    }
    if args.json:
        print(json.dumps({"machine": machine_info(), "files": results, "ratios": ratios}, indent=2))
        return 0
    for name, row in results.items():
        print(f"{name:<22} {row['lines']:>7} lines {row['findings']:>3} findings {row['median_s']:>8.2f} s")
    for label, ratio in ratios.items():
        print(f"{label:<38} {ratio:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
