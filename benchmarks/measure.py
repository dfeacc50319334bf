"""Shared machinery of the benchmark scripts: run a command and measure it.

* ``run_command`` runs a command as a subprocess and returns its wall time,
  its peak memory (exact for the largest process, sampled for the whole
  process tree), its exit status and its output.
* ``find_files`` and ``count_lines`` count the input the way torchlint does.
* ``machine_info`` and ``interpreter_info`` describe where it all ran.

Standard library only; needs a POSIX system (``os.wait4``). The process tree
sampling only works where ``/proc`` exists (Linux).
"""

from __future__ import annotations

import argparse
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

from torchlint.files.discovery import DEFAULT_EXCLUDE, discover

MIB = 1024 * 1024


@dataclass(frozen=True)
class Measurement:
    """What one run of a command measured."""

    command: tuple[str, ...]
    wall_s: float
    max_rss_bytes: int  # largest single process of the tree, exact (from wait4)
    tree_rss_bytes: int | None  # largest sampled sum over the tree, None if not sampled
    exit_status: int
    stdout: str
    stderr: str


@dataclass(frozen=True)
class Summary:
    """Wall times and memory peaks of repeated runs of one command."""

    wall_s_median: float
    wall_s_min: float
    wall_s_runs: list[float]
    peak_rss_mib: float  # the largest over the runs
    peak_tree_rss_mib: float | None


# --- Input ------------------------------------------------------------------


def find_files(directory: Path) -> list[Path]:
    """The files torchlint checks in ``directory``, with the default excludes."""
    return discover([directory], root=directory, exclude=DEFAULT_EXCLUDE).files


def count_lines(path: Path) -> int:
    """Number of lines, counting a last line without a newline."""
    data = path.read_bytes()
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def listed_flags(help_command: Sequence[str], flags: Sequence[str]) -> list[str]:
    """The ``flags`` that the output of ``help_command`` mentions."""
    help_text = subprocess.run(help_command, capture_output=True, text=True, check=True).stdout
    return [flag for flag in flags if re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", help_text)]


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


# --- Running ----------------------------------------------------------------


def run_command(command: Sequence[str], cwd: Path, sample_interval_s: float = 0.05) -> Measurement:
    """Run ``command`` once in ``cwd``; time it and measure its memory.

    Memory: ``os.wait4`` returns the rusage of this one child, and on Linux
    its ``ru_maxrss`` is the largest RSS of the child *or* of any descendant
    it waited for. Worker pools are joined before their parent exits, so this
    is the exact peak RSS of the largest single process in the tree (not the
    sum over the workers). Unlike ``getrusage(RUSAGE_CHILDREN)`` it does not
    carry over the high-water mark of earlier runs. The concurrent total is
    estimated separately by ``TreeSampler`` (``sample_interval_s`` of 0 turns
    it off).
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
        stdout, stderr = out.read().decode(errors="replace"), err.read().decode(errors="replace")
    return Measurement(
        command=tuple(command),
        wall_s=wall_s,
        max_rss_bytes=_maxrss_bytes(usage.ru_maxrss),
        tree_rss_bytes=tree_rss,
        exit_status=process.returncode,
        stdout=stdout,
        stderr=stderr,
    )


def summarize(runs: Sequence[Measurement]) -> Summary:
    """Median and minimum wall time and the memory peaks over ``runs`` (at least one)."""
    walls = [run.wall_s for run in runs]
    tree_peaks = [run.tree_rss_bytes for run in runs if run.tree_rss_bytes is not None]
    return Summary(
        wall_s_median=statistics.median(walls),
        wall_s_min=min(walls),
        wall_s_runs=walls,
        peak_rss_mib=max(run.max_rss_bytes for run in runs) / MIB,
        peak_tree_rss_mib=max(tree_peaks) / MIB if tree_peaks else None,
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


_VERSIONS_SCRIPT = """
import importlib.metadata, json, platform, sys
versions = {"python": platform.python_version()}
for name in sys.argv[1:]:
    try:
        versions[name] = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        versions[name] = None
print(json.dumps(versions))
"""


def interpreter_info(python: str, packages: Sequence[str]) -> dict[str, str | None]:
    """The Python version of the interpreter ``python`` and the versions of ``packages`` it has."""
    result = subprocess.run([python, "-c", _VERSIONS_SCRIPT, *packages], capture_output=True, text=True, check=True)
    return json.loads(result.stdout)


def script_interpreter(script: str) -> str | None:
    """The interpreter named by the ``#!`` line of an installed console script, if any."""
    try:
        with open(script, "rb") as file:
            first = file.readline().decode(errors="replace")
    except OSError:
        return None
    if not first.startswith("#!"):
        return None
    words = first[2:].split()
    return words[0] if words and os.path.isfile(words[0]) else None


def machine_info() -> dict[str, Any]:
    """CPU, usable cores, and the versions of Python, libcst and torchlint running the benchmark."""
    return {"cpu": cpu_model(), "cores": usable_cores(), **interpreter_info(sys.executable, ("libcst", "torchlint"))}


# --- Output -------------------------------------------------------------------


def format_rows(rows: Sequence[Sequence[str]], right: Sequence[int] = ()) -> str:
    """Rows of cells as aligned columns two spaces apart; the columns in ``right`` align right."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = [cell.rjust(width) if i in right else cell.ljust(width) for i, (cell, width) in enumerate(zip(row, widths))]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


# --- Command line -------------------------------------------------------------


def positive_int(text: str) -> int:
    """An ``argparse`` type: an integer of at least 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def add_common_arguments(parser: argparse.ArgumentParser, default_repeat: int) -> None:
    """The arguments every benchmark script takes: DIRECTORY, --jobs, --repeat, --json, --sample-interval."""
    parser.add_argument("directory", type=Path, help="directory to check")
    parser.add_argument("--jobs", type=positive_int, default=usable_cores(), help="worker processes (default: usable cores)")
    parser.add_argument(
        "--repeat", type=positive_int, default=default_repeat, help=f"number of timed runs (default: {default_repeat})"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    parser.add_argument(
        "--sample-interval",
        type=float,
        default=0.05,
        metavar="SECONDS",
        help="how often to sample the process tree's RSS; 0 turns sampling off (default: 0.05)",
    )


def existing_directory(path: Path) -> Path | None:
    """``path`` made absolute, or None (after printing an error) if it is not a directory."""
    if not path.is_dir():
        print(f"error: {path} is not a directory", file=sys.stderr)
        return None
    return path.resolve()
