#!/usr/bin/env python3
"""Cold analysis in CPU time, next to the parsers and TorchFix on the same files.

Usage::

    python benchmarks/cold_cpu.py DIRECTORY [DIRECTORY ...] [--torchfix PATH] [--repeat N] [--json]

On the files torchlint discovers in the directories (one process, one core
each), this measures the CPU time (user + system of the child process) of:

* ``python -m torchlint check --no-cache --jobs 1`` on each directory (cold:
  nothing cached; start-up included, once per directory);
* LibCST's ``parse_module`` of every file, and CPython's ``ast.parse``, in a
  child process that times only the parsing (the files read first);
* TorchFix with its performance rule, ``torchfix --select TOR401 -j 1``, when
  it is given or on PATH.

It reports lines per CPU-second for each, torchlint's time over LibCST's
parse time, and TorchFix's time over torchlint's. Bytecode caching is turned on
and each command runs once untimed first (see ``startup.py``). With
``--repeat N`` the tools are measured in N interleaved rounds and each tool's
least CPU time is kept: on a machine other jobs share, the time a process is
charged grows with the load, and the rounds give every tool the same chances.

Standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from measure import count_lines, existing_directory, find_files, machine_info, positive_int

# Run in a child process: CPU time of parsing every file named on standard input.
PARSE_TIMER = """
import ast, sys, time, warnings
import libcst
warnings.simplefilter("ignore")
texts = []
for name in sys.stdin.read().splitlines():
    with open(name, "rb") as handle:
        texts.append(handle.read().decode("utf-8", "replace"))

def seconds(parse):
    start = time.process_time()
    for text in texts:
        try:
            parse(text)
        except Exception:
            pass
    return time.process_time() - start

print(seconds(libcst.parse_module), seconds(ast.parse))
"""


def cpu_seconds(command: list[str], stdin: str = "") -> tuple[float, str]:
    """The CPU time (user + system) of running `command`, and its standard output."""
    before = os.times()
    completed = subprocess.run(command, input=stdin, capture_output=True, text=True, check=False)
    after = os.times()
    return (after.children_user - before.children_user) + (after.children_system - before.children_system), completed.stdout


def warm_cpu_seconds(command: list[str], stdin: str = "") -> tuple[float, str]:
    """`cpu_seconds` of the second of two runs (the first writes the bytecode caches)."""
    cpu_seconds(command, stdin)
    return cpu_seconds(command, stdin)


def _round(directories: list[Path], files: list[Path], torchfix: str | None) -> dict[str, float]:
    """CPU seconds of each tool on the files, measured once."""
    torchlint = sum(
        warm_cpu_seconds([sys.executable, "-m", "torchlint", "check", "--no-cache", "--jobs", "1", "--exit-zero", "-q", str(directory)])[0]
        for directory in directories
    )
    _, parsed = warm_cpu_seconds([sys.executable, "-c", PARSE_TIMER], "\n".join(map(str, files)))
    libcst_s, ast_s = (float(value) for value in parsed.split())
    seconds = {"torchlint": torchlint, "libcst.parse_module": libcst_s, "ast.parse": ast_s}
    if torchfix:
        seconds["torchfix --select TOR401"] = sum(
            warm_cpu_seconds([torchfix, "--select", "TOR401", "-j", "1", str(directory)])[0] for directory in directories
        )
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directories", nargs="+", type=Path, metavar="DIRECTORY")
    parser.add_argument("--torchfix", metavar="PATH", help="the torchfix executable (default: on PATH, else skipped)")
    parser.add_argument("--repeat", type=positive_int, default=1, help="interleaved rounds; the least CPU time counts (default 1)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    args = parser.parse_args(argv)
    directories = [existing_directory(directory) for directory in args.directories]
    if None in directories:
        return 2
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    files = [path for directory in directories for path in find_files(directory) if path.suffix == ".py"]
    lines = sum(count_lines(path) for path in files)
    torchfix = args.torchfix or shutil.which("torchfix")
    rounds = [_round(directories, files, torchfix) for _ in range(args.repeat)]
    seconds = {tool: min(measured[tool] for measured in rounds) for tool in rounds[0]}
    torchlint, libcst_s = seconds["torchlint"], seconds["libcst.parse_module"]
    report = {
        "files": len(files),
        "lines": lines,
        "rounds": args.repeat,
        "cpu_s": {tool: round(value, 2) for tool, value in seconds.items()},
        "lines_per_cpu_s": {tool: round(lines / value) for tool, value in seconds.items() if value},
        "torchlint_over_libcst_parse": round(torchlint / libcst_s, 2),
    }
    if torchfix:
        report["torchfix_over_torchlint"] = round(seconds["torchfix --select TOR401"] / torchlint, 1)
    if args.json:
        print(json.dumps({"machine": machine_info(), **report}, indent=2))
        return 0
    print(f"{report['files']} files, {lines:,} lines")
    for tool, value in seconds.items():
        print(f"{tool:<26} {value:7.2f} s CPU {report['lines_per_cpu_s'].get(tool, 0):>9,} lines/s")
    print(f"torchlint / LibCST parse: {report['torchlint_over_libcst_parse']}x")
    if torchfix:
        print(f"TorchFix / torchlint: {report['torchfix_over_torchlint']}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
