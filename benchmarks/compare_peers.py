#!/usr/bin/env python3
"""Compare the speed and memory of torchlint with TorchFix and Fixit on one directory.

Usage::

    python benchmarks/compare_peers.py DIRECTORY [--jobs N] [--repeat K]
        [--torchfix PATH] [--fixit PATH] [--json]

Each of the K repeats runs, in this order and on the same cores:

* torchlint cold: the result cache (a temporary ``--cache-dir``) removed first;
* torchlint warm: the cache populated, nothing changed;
* torchlint one-changed: ``# torchlint benchmark`` appended to one file (the
  median one by lines), which is restored, bytes and times, afterwards;
* TorchFix with its performance rule (``torchfix --select TOR401 -j N``);
* Fixit (``fixit lint``; it has no jobs option, so it uses its default pool).

The peers have no cache, so their one run per repeat is reported as both cold
and warm. A peer's exit status is only reported, not judged (TorchFix exits 1
when it failed on a file, Fixit sets bit 1 for findings and bit 2 for files it
failed on); a peer counts as crashed only when its stderr holds a Python
traceback, and it is then left out of the later repeats. Times are medians
over the repeats; lines/s divides the lines of the files torchlint discovers
by that median, for every tool, while "files" is what each tool says it
checked (TorchFix skips the files that do not mention ``torch``).

TorchFix and Fixit are found on PATH unless ``--torchfix``/``--fixit`` say
where they are. Standard library only; the measuring is in ``measure.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from lint_speed import RunResult, check_command, run_torchlint
from measure import (
    add_common_arguments,
    count_lines,
    existing_directory,
    find_files,
    format_rows,
    interpreter_info,
    listed_flags,
    machine_info,
    run_command,
    script_interpreter,
    summarize,
)

CHANGE = "\n# torchlint benchmark\n"
TRACEBACK = "Traceback (most recent call last)"
TORCHLINT_MODES = ("cold", "warm", "one-changed")


@dataclass(frozen=True)
class Peer:
    """How to run another linter and read its output."""

    name: str
    package: str  # its distribution name, for the version
    executable: str
    command: list[str]
    workers: int  # how many worker processes it uses
    workers_how: str  # where that number comes from
    files_pattern: str  # the number of checked files in its stderr summary (group 1)
    finding_pattern: str  # one finding, a line of its stdout


@dataclass
class Series:
    """The runs of one tool in one mode, or why it has none."""

    tool: str
    mode: str
    runs: list[RunResult] = field(default_factory=list)
    error: str | None = None


class PeerCrashed(RuntimeError):
    """A peer ended with a Python traceback."""


# --- The tools ----------------------------------------------------------------


def locate(name: str, given: str | None) -> str:
    """The absolute path of the executable ``given`` or, without it, of ``name`` on PATH."""
    found = shutil.which(given or name)
    if found is None:
        raise SystemExit(f"error: {given or name} not found; pass --{name} PATH")
    return os.path.abspath(found)


def torchfix_peer(executable: str, directory: Path, jobs: int) -> Peer:
    """TorchFix with only its performance rule, TOR401 (DataLoader without workers)."""
    return Peer(
        name="TorchFix",
        package="TorchFix",
        executable=executable,
        command=[executable, "--select", "TOR401", "-j", str(jobs), str(directory)],
        workers=jobs,
        workers_how="-j",
        files_pattern=r"Finished checking (\d+) files?",
        finding_pattern=r"^.+:\d+:\d+: TOR\d+ ",
    )


def fixit_peer(executable: str, directory: Path, jobs: int) -> Peer:
    """Fixit with ``--jobs`` where a version has it (2.2 has none: its pool has ``os.cpu_count()`` workers)."""
    workers, workers_how = jobs, "--jobs"
    if listed_flags([executable, "lint", "--help"], ("--jobs",)):
        command = [executable, "lint", "--jobs", str(jobs), str(directory)]
    elif listed_flags([executable, "--help"], ("--jobs",)):
        command = [executable, "--jobs", str(jobs), "lint", str(directory)]
    else:
        command = [executable, "lint", str(directory)]
        workers, workers_how = os.cpu_count() or 1, "no jobs option: os.cpu_count()"
    return Peer(
        name="Fixit",
        package="fixit",
        executable=executable,
        command=command,
        workers=workers,
        workers_how=workers_how,
        files_pattern=r"(\d+) files? (?:checked|clean)",
        finding_pattern=r"^.+@\d+:\d+ \w+: ",
    )


def peer_versions(peer: Peer) -> dict[str, str | None]:
    """Python, libcst and the peer's own version, from the interpreter of its script."""
    python = script_interpreter(peer.executable)
    if python is None:
        return {}
    return interpreter_info(python, (peer.package, "libcst"))


def run_peer(peer: Peer, directory: Path, sample_interval_s: float) -> RunResult:
    """Run ``peer`` once from ``directory``; any exit status is fine unless it crashed."""
    run = run_command(peer.command, directory, sample_interval_s)
    if TRACEBACK in run.stderr:
        raise PeerCrashed(f"{peer.name} crashed (exit status {run.exit_status}):\n{run.stderr[-3000:]}")
    checked = re.search(peer.files_pattern, run.stderr)
    return RunResult(
        measurement=run,
        findings=len(re.findall(peer.finding_pattern, run.stdout, re.MULTILINE)),
        checked_files=int(checked.group(1)) if checked else None,
    )


def clean_cache(cache_dir: Path, directory: Path) -> None:
    """Remove torchlint's result cache with ``torchlint clean``."""
    python = sys.executable
    flags = listed_flags([python, "-m", "torchlint", "clean", "--help"], ("--isolated",))
    subprocess.run(
        [python, "-m", "torchlint", "clean", *flags, "--cache-dir", str(cache_dir)],
        cwd=directory,
        capture_output=True,
        check=True,
    )
    if cache_dir.exists():
        raise RuntimeError(f"torchlint clean left {cache_dir} behind")


@contextlib.contextmanager
def appended(path: Path, text: str) -> Iterator[None]:
    """Append ``text`` to ``path`` for the duration of the block, then restore its bytes and times."""
    original = path.read_bytes()
    status = path.stat()
    try:
        with open(path, "ab") as file:
            file.write(text.encode())
        yield
    finally:
        path.write_bytes(original)
        os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))


# --- Benchmark ----------------------------------------------------------------


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def run_all(
    directory: Path, changed: Path, peers: Sequence[Peer], jobs: int, repeat: int, sample_interval_s: float
) -> tuple[list[str], list[Series]]:
    """Run every tool ``repeat`` times, interleaved; return torchlint's command and the series."""
    series = {("torchlint", mode): Series("torchlint", mode) for mode in TORCHLINT_MODES}
    series.update({(peer.name, "cold"): Series(peer.name, "cold") for peer in peers})
    with tempfile.TemporaryDirectory(prefix="torchlint-bench-") as temporary:
        cache_dir = Path(temporary) / "cache"
        command = check_command(directory, jobs, cache_dir)
        for index in range(1, repeat + 1):
            clean_cache(cache_dir, directory)
            for mode in TORCHLINT_MODES:
                with appended(changed, CHANGE) if mode == "one-changed" else contextlib.nullcontext():
                    result = run_torchlint(command, directory, sample_interval_s)
                series["torchlint", mode].runs.append(result)
                progress(f"repeat {index}/{repeat}: torchlint {mode} {result.measurement.wall_s:.2f} s")
            for peer in peers:
                cold = series[peer.name, "cold"]
                if cold.error:
                    continue
                try:
                    cold.runs.append(run_peer(peer, directory, sample_interval_s))
                except PeerCrashed as crash:
                    cold.error = str(crash)
                    progress(f"warning: {crash}")
                    continue
                progress(f"repeat {index}/{repeat}: {peer.name} {cold.runs[-1].measurement.wall_s:.2f} s")
    listed = [series["torchlint", mode] for mode in TORCHLINT_MODES]
    for peer in peers:  # no cache: the same runs under warm
        cold = series[peer.name, "cold"]
        listed += [cold, Series(peer.name, "warm", cold.runs, cold.error)]
    return command, listed


def describe(item: Series, lines: int, files: int) -> dict[str, Any]:
    """One series as a JSON-ready summary."""
    entry: dict[str, Any] = {"tool": item.tool, "mode": item.mode, "error": item.error}
    if item.runs:
        stats = summarize([run.measurement for run in item.runs])
        entry.update(asdict(stats))
        entry.update(
            lines_per_s=lines / stats.wall_s_median,
            files_per_s=files / stats.wall_s_median,
            checked_files=item.runs[-1].checked_files,
            findings=item.runs[-1].findings,
            exit_statuses=sorted({run.measurement.exit_status for run in item.runs}),
        )
    if item.tool != "torchlint" and item.mode == "warm":
        entry["note"] = "no cache: the cold runs again"
    return entry


def speedups(results: Sequence[dict[str, Any]]) -> dict[str, float]:
    """Ratios of median wall times: torchlint cold over each peer, warm and one-changed over cold."""
    median = {(entry["tool"], entry["mode"]): entry.get("wall_s_median") for entry in results}
    cold = median["torchlint", "cold"]
    ratios = {
        f"torchlint cold vs {tool}": seconds / cold
        for (tool, mode), seconds in median.items()
        if tool != "torchlint" and mode == "cold" and seconds is not None
    }
    for mode in ("warm", "one-changed"):
        ratios[f"torchlint {mode} vs torchlint cold"] = cold / median["torchlint", mode]
    return ratios


def benchmark(
    directory: Path, peers: Sequence[Peer], jobs: int, repeat: int, sample_interval_s: float
) -> dict[str, Any]:
    """Count the input, run all tools and summarise."""
    sizes = sorted((count_lines(path), str(path)) for path in find_files(directory))
    if not sizes:
        raise SystemExit(f"error: torchlint finds no files to check in {directory}")
    lines = sum(size for size, _ in sizes)
    changed_lines, changed = sizes[len(sizes) // 2]
    command, series = run_all(directory, Path(changed), peers, jobs, repeat, sample_interval_s)

    findings = {item.mode: {run.findings for run in item.runs} for item in series if item.tool == "torchlint"}
    for mode in ("warm", "one-changed"):
        if findings[mode] != findings["cold"]:
            progress(f"warning: torchlint {mode} reports other findings than cold")

    results = [describe(item, lines, len(sizes)) for item in series]
    return {
        "directory": str(directory),
        "jobs": jobs,
        "repeat": repeat,
        "files": len(sizes),
        "lines": lines,
        "changed_file": {"path": changed, "lines": changed_lines, "appended": CHANGE},
        "tools": {
            "torchlint": {"command": command, "workers": jobs, "workers_how": "--jobs"},
            **{
                peer.name: {
                    "command": peer.command,
                    "workers": peer.workers,
                    "workers_how": peer.workers_how,
                    "versions": peer_versions(peer),
                }
                for peer in peers
            },
        },
        "results": results,
        "speedups": speedups(results),
        "machine": machine_info(),
    }


# --- Report -------------------------------------------------------------------


def _mib(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}"


def format_table(report: dict[str, Any]) -> str:
    """The report as a table of runs, then the speed-ups, commands and versions."""
    header = ["tool", "mode", "median s", "min s", "lines/s", "RSS max MiB", "RSS tree MiB", "files", "findings", "exit"]
    rows = [header]
    for entry in report["results"]:
        mode = entry["mode"] + ("*" if "note" in entry else "")
        if "wall_s_median" not in entry:
            rows.append([entry["tool"], mode, "crashed", *[""] * 7])
            continue
        rows.append([
            entry["tool"], mode,
            f"{entry['wall_s_median']:.3f}", f"{entry['wall_s_min']:.3f}", f"{entry['lines_per_s']:,.0f}",
            _mib(entry["peak_rss_mib"]), _mib(entry["peak_tree_rss_mib"]),
            "?" if entry["checked_files"] is None else f"{entry['checked_files']:,}",
            f"{entry['findings']:,}", ",".join(map(str, entry["exit_statuses"])),
        ])  # fmt: skip
    machine, changed = report["machine"], report["changed_file"]
    sections = [
        format_rows([
            ["directory", f"{report['directory']} ({report['files']:,} files, {report['lines']:,} lines)"],
            ["jobs / repeat", f"{report['jobs']} / {report['repeat']} (times: median and min over the repeats)"],
            ["one-changed", f"{changed['path']} ({changed['lines']:,} lines), a comment line appended"],
            ["cpu", f"{machine['cpu']} ({machine['cores']} usable cores)"],
        ]),
        format_rows(rows, right=range(2, len(header))),
        (
            "* no cache: the cold runs again. lines/s: the lines torchlint discovers / median;\n"
            "  files: as the tool reports them; RSS max: the largest process; RSS tree: sampled sum."
        ),
        "speed-up (median wall time)\n"
        + format_rows([[f"  {name}", f"{ratio:.1f}x"] for name, ratio in report["speedups"].items()], right=[1]),
    ]
    tools = report["tools"]
    versions = {"torchlint": {key: machine[key] for key in ("python", "libcst", "torchlint")}}
    versions.update({name: tool["versions"] for name, tool in tools.items() if name != "torchlint"})
    sections.append(
        "tools\n"
        + format_rows([
            [f"  {name}", "versions: " + (", ".join(f"{k} {v}" for k, v in versions[name].items()) or "unknown"),
             f"workers: {tool['workers']} ({tool['workers_how']})"]
            for name, tool in tools.items()
        ])
        + "\n"
        + "\n".join(f"  {name}: {' '.join(tool['command'])}" for name, tool in tools.items())
    )
    for entry in report["results"]:
        if entry["error"] and entry["mode"] == "cold":
            sections.append(entry["error"])
    return "\n\n".join(sections)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Compare torchlint with TorchFix and Fixit on a directory.")
    add_common_arguments(parser, default_repeat=3)
    parser.add_argument("--torchfix", metavar="PATH", help="the torchfix executable (default: on PATH)")
    parser.add_argument("--fixit", metavar="PATH", help="the fixit executable (default: on PATH)")
    parser.add_argument("--no-peers", action="store_true", help="measure torchlint alone (cold, warm, one changed)")
    return parser.parse_args(argv)


def _exit_on_sigterm(signum: int, _frame: object) -> None:
    sys.exit(128 + signum)  # unwinds, so the changed file is restored


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    directory = existing_directory(args.directory)
    if directory is None:
        return 2
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    peers = [] if args.no_peers else [
        torchfix_peer(locate("torchfix", args.torchfix), directory, args.jobs),
        fixit_peer(locate("fixit", args.fixit), directory, args.jobs),
    ]
    for peer in peers:
        if peer.workers != args.jobs:
            progress(f"warning: {peer.name} runs {peer.workers} workers ({peer.workers_how}), torchlint {args.jobs}")
    report = benchmark(directory, peers, args.jobs, args.repeat, args.sample_interval)
    print(json.dumps(report, indent=2) if args.json else format_table(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
