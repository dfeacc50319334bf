#!/usr/bin/env python3
"""Measure how fast the torchlint CLI checks a directory of Python files.

Usage::

    python benchmarks/lint_speed.py DIRECTORY [--jobs N] [--repeat K] [--json]

The files are found with torchlint's own discovery, so the file and line
counts match what the CLI checks. The CLI then runs K times as a subprocess
(``python -m torchlint check --output-format json --exit-zero ...``) with the
interpreter running this script; the report gives the median and minimum wall
time, throughput, the number of findings and peak memory.

Standard library only; needs a POSIX system (``os.wait4``). The per-process
tree memory sampling only works where ``/proc`` exists (Linux).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from torchlint.discovery import DEFAULT_EXCLUDE, discover

OPTIONAL_FLAGS = ("--isolated", "--no-cache")  # passed only when the CLI knows them
MIB = 1024 * 1024


@dataclass(frozen=True)
class RunResult:
    """What one CLI run measured."""

    wall_s: float
    max_rss_bytes: int  # largest single process of the tree, exact (from wait4)
    tree_rss_bytes: int | None  # largest sampled sum over the tree, None if not sampled
    findings: int
    checked_files: int | None  # as stated in the CLI's summary line, if found
    exit_status: int


# --- Input ------------------------------------------------------------------


def find_files(directory: Path) -> list[Path]:
    """The files torchlint checks in ``directory``, with the default excludes."""
    return discover([directory], root=directory, exclude=DEFAULT_EXCLUDE).files


def count_lines(path: Path) -> int:
    """Number of lines, counting a last line without a newline."""
    data = path.read_bytes()
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def supported_flags(python: str) -> list[str]:
    """The flags of ``OPTIONAL_FLAGS`` that ``torchlint check --help`` lists."""
    help_text = subprocess.run(
        [python, "-m", "torchlint", "check", "--help"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [flag for flag in OPTIONAL_FLAGS if re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", help_text)]


# --- Memory -----------------------------------------------------------------


def _maxrss_bytes(ru_maxrss: int) -> int:
    """``ru_maxrss`` is in KiB on Linux and in bytes on macOS."""
    return ru_maxrss if sys.platform == "darwin" else ru_maxrss * 1024


def _tree_rss_bytes(root: int) -> int:
    """Sum of the resident set sizes of ``root`` and its descendants (Linux ``/proc``)."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", "rb") as stat_file:
                stat = stat_file.read()
        except OSError:  # the process is gone
            continue
        ppid = int(stat.rsplit(b")", 1)[1].split()[1])  # the name may contain spaces
        children.setdefault(ppid, []).append(int(entry.name))
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        stack.extend(children.get(pid, ()))
        try:
            with open(f"/proc/{pid}/statm", "rb") as statm:
                total += int(statm.read().split()[1]) * resource.getpagesize()
        except (OSError, IndexError):
            pass
    return total


class TreeSampler(threading.Thread):
    """Samples the summed RSS of a process tree until stopped; keeps the peak.

    Forked workers share the parent's pages copy-on-write, and each process
    counts those pages in its own RSS, so the sum is an upper bound on the
    memory the tree really uses. Short peaks between samples are missed.
    """

    def __init__(self, root: int, interval_s: float) -> None:
        super().__init__(daemon=True)
        self.root = root
        self.interval_s = interval_s
        self.peak_bytes = 0
        self._stop_event = threading.Event()

    def run(self) -> None:
        while True:
            self.peak_bytes = max(self.peak_bytes, _tree_rss_bytes(self.root))
            if self._stop_event.wait(self.interval_s):
                return

    def stop(self) -> int:
        """Stop sampling and return the peak."""
        self._stop_event.set()
        self.join()
        return self.peak_bytes


# --- Running the CLI ----------------------------------------------------------


def run_once(command: Sequence[str], cwd: Path, sample_interval_s: float) -> RunResult:
    """Run the CLI once; time it and measure its memory.

    Memory: ``os.wait4`` returns the rusage of this one child, and on Linux
    its ``ru_maxrss`` is the largest RSS of the child *or* of any descendant
    it waited for. The pool workers are forked by the torchlint process and
    joined before it exits, so this is the exact peak RSS of the largest
    single process in the torchlint tree (not the sum over the workers).
    Unlike ``getrusage(RUSAGE_CHILDREN)`` it does not carry over the
    high-water mark of earlier runs. The concurrent total is estimated
    separately by ``TreeSampler``.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        process = subprocess.Popen(command, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        sampler = None
        if sample_interval_s > 0 and os.path.isdir("/proc"):
            sampler = TreeSampler(process.pid, sample_interval_s)
            sampler.start()
        _, wait_status, usage = os.wait4(process.pid, 0)
        wall_s = time.perf_counter() - start
        tree_rss = sampler.stop() if sampler else None
        process.returncode = os.waitstatus_to_exitcode(wait_status)  # reaped by wait4, not by Popen
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode(errors="replace")

    if process.returncode not in (0, 2):  # 2: some files could not be read or parsed
        raise RuntimeError(f"torchlint exited with status {process.returncode}:\n{stderr}")
    if process.returncode == 2:
        print(f"warning: torchlint reported errors (status 2):\n{stderr.strip()}", file=sys.stderr)
    summary = re.search(r"(\d+) checked files?|(\d+) files? checked", stderr)
    return RunResult(
        wall_s=wall_s,
        max_rss_bytes=_maxrss_bytes(usage.ru_maxrss),
        tree_rss_bytes=tree_rss,
        findings=len(json.loads(stdout or "[]")),
        checked_files=int(summary.group(1) or summary.group(2)) if summary else None,
        exit_status=process.returncode,
    )


# --- Machine ----------------------------------------------------------------


def cpu_model() -> str:
    """CPU model name from ``/proc/cpuinfo``, else what ``platform`` knows."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def usable_cores() -> int:
    """Cores this process may run on (respects CPU affinity where supported)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def package_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def machine_info() -> dict[str, Any]:
    return {
        "cpu": cpu_model(),
        "cores": usable_cores(),
        "python": platform.python_version(),
        "libcst": package_version("libcst"),
        "torchlint": package_version("torchlint"),
    }


# --- Benchmark and report -----------------------------------------------------


def benchmark(directory: Path, jobs: int, repeat: int, sample_interval_s: float) -> dict[str, Any]:
    """Count the input, run the CLI ``repeat`` times and summarise."""
    files = find_files(directory)
    lines = sum(count_lines(path) for path in files)
    command = [
        sys.executable, "-m", "torchlint", "check",
        "--output-format", "json", "--exit-zero", "--jobs", str(jobs),
        *supported_flags(sys.executable),
        str(directory),
    ]  # fmt: skip
    # The CLI takes its discovery root from the working directory, so run it from
    # DIRECTORY: then its excludes match the counting above.
    runs = [run_once(command, directory, sample_interval_s) for _ in range(repeat)]

    if len({run.findings for run in runs}) > 1:
        print("warning: the number of findings differs between runs", file=sys.stderr)
    checked = {run.checked_files for run in runs} - {None}
    if checked and checked != {len(files)}:
        print(f"warning: the CLI checked {sorted(checked)} files, discovery found {len(files)}", file=sys.stderr)

    walls = [run.wall_s for run in runs]
    median_s = statistics.median(walls)
    tree_peaks = [run.tree_rss_bytes for run in runs if run.tree_rss_bytes is not None]
    return {
        "directory": str(directory),
        "command": command,
        "jobs": jobs,
        "repeat": repeat,
        "files": len(files),
        "lines": lines,
        "wall_s_median": median_s,
        "wall_s_min": min(walls),
        "wall_s_runs": walls,
        "files_per_s": len(files) / median_s,
        "lines_per_s": lines / median_s,
        "findings": runs[-1].findings,
        "peak_rss_mib": max(run.max_rss_bytes for run in runs) / MIB,
        "peak_tree_rss_mib": max(tree_peaks) / MIB if tree_peaks else None,
        "machine": machine_info(),
    }


def format_table(report: dict[str, Any]) -> str:
    """The report as aligned ``label  value`` lines."""
    machine = report["machine"]
    tree = report["peak_tree_rss_mib"]
    rows = [
        ("directory", report["directory"]),
        ("command", " ".join(report["command"])),
        ("jobs / repeat", f"{report['jobs']} / {report['repeat']}"),
        ("files", f"{report['files']:,}"),
        ("lines", f"{report['lines']:,}"),
        ("wall time median", f"{report['wall_s_median']:.3f} s"),
        ("wall time min", f"{report['wall_s_min']:.3f} s"),
        ("files/s (median)", f"{report['files_per_s']:,.1f}"),
        ("lines/s (median)", f"{report['lines_per_s']:,.0f}"),
        ("findings", f"{report['findings']:,}"),
        ("peak RSS, largest process", f"{report['peak_rss_mib']:.1f} MiB"),
        ("peak RSS, tree sum (sampled)", "n/a" if tree is None else f"{tree:.1f} MiB"),
        ("cpu", f"{machine['cpu']} ({machine['cores']} usable cores)"),
        ("python / libcst / torchlint", f"{machine['python']} / {machine['libcst']} / {machine['torchlint']}"),
    ]
    width = max(len(label) for label, _ in rows)
    return "\n".join(f"{label:<{width}}  {value}" for label, value in rows)


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Benchmark the torchlint CLI on a directory.")
    parser.add_argument("directory", type=Path, help="directory to check")
    parser.add_argument("--jobs", type=positive_int, default=usable_cores(), help="worker processes (default: usable cores)")
    parser.add_argument("--repeat", type=positive_int, default=3, help="number of timed runs (default: 3)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.add_argument(
        "--sample-interval",
        type=float,
        default=0.05,
        metavar="SECONDS",
        help="how often to sample the process tree's RSS; 0 turns sampling off (default: 0.05)",
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    directory = args.directory.resolve()
    if not directory.is_dir():
        print(f"error: {args.directory} is not a directory", file=sys.stderr)
        return 2
    report = benchmark(directory, args.jobs, args.repeat, args.sample_interval)
    print(json.dumps(report, indent=2) if args.json else format_table(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
