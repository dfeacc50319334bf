#!/usr/bin/env python3
"""Measure how fast the torchlint CLI checks a directory of Python files.

Usage::

    python benchmarks/lint_speed.py DIRECTORY [--jobs N] [--repeat K] [--json]

The files are found with torchlint's own discovery, so the file and line
counts match what the CLI checks. The CLI then runs K times as a subprocess
(``python -m torchlint check --output-format json --exit-zero ...``) with the
interpreter running this script; the report gives the median and minimum wall
time, throughput, the number of findings and peak memory.

Standard library only; the measuring itself is in ``measure.py`` (POSIX,
with process tree sampling on Linux).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from measure import (
    Measurement,
    add_common_arguments,
    count_lines,
    existing_directory,
    find_files,
    format_rows,
    listed_flags,
    machine_info,
    run_command,
    summarize,
)

OPTIONAL_FLAGS = ("--isolated", "--no-cache")  # passed only when the CLI knows them


@dataclass(frozen=True)
class RunResult:
    """What one CLI run measured, and what it reported."""

    measurement: Measurement
    findings: int
    checked_files: int | None  # as stated in the CLI's summary line, if found


# --- Running the CLI ----------------------------------------------------------


def check_command(directory: Path, jobs: int, cache_dir: Path | None = None) -> list[str]:
    """The command that checks ``directory`` with JSON output and exit status 0 on findings.

    It runs torchlint with the interpreter running this script. Without
    ``cache_dir`` the result cache is off (where the CLI has ``--no-cache``).
    """
    python = sys.executable
    flags = listed_flags([python, "-m", "torchlint", "check", "--help"], OPTIONAL_FLAGS)
    if cache_dir is not None:
        flags = [flag for flag in flags if flag != "--no-cache"] + ["--cache-dir", str(cache_dir)]
    return [
        python, "-m", "torchlint", "check",
        "--output-format", "json", "--exit-zero", "--jobs", str(jobs),
        *flags,
        str(directory),
    ]  # fmt: skip


def run_torchlint(command: Sequence[str], directory: Path, sample_interval_s: float) -> RunResult:
    """Run ``check_command``'s command once from ``directory`` and read its report.

    The CLI takes its discovery root from the working directory, so it runs
    from DIRECTORY: then its excludes match ``find_files``.
    """
    run = run_command(command, directory, sample_interval_s)
    if run.exit_status not in (0, 2):  # 2: some files could not be read or parsed
        raise RuntimeError(f"torchlint exited with status {run.exit_status}:\n{run.stderr}")
    if run.exit_status == 2:
        print(f"warning: torchlint reported errors (status 2):\n{run.stderr.strip()}", file=sys.stderr)
    summary = re.search(r"(\d+) checked files?|(\d+) files? checked", run.stderr)
    return RunResult(
        measurement=run,
        findings=len(json.loads(run.stdout or "[]")),
        checked_files=int(summary.group(1) or summary.group(2)) if summary else None,
    )


# --- Benchmark and report -----------------------------------------------------


def benchmark(directory: Path, jobs: int, repeat: int, sample_interval_s: float) -> dict[str, Any]:
    """Count the input, run the CLI ``repeat`` times and summarise."""
    files = find_files(directory)
    lines = sum(count_lines(path) for path in files)
    command = check_command(directory, jobs)
    runs = [run_torchlint(command, directory, sample_interval_s) for _ in range(repeat)]

    if len({run.findings for run in runs}) > 1:
        print("warning: the number of findings differs between runs", file=sys.stderr)
    checked = {run.checked_files for run in runs} - {None}
    if checked and checked != {len(files)}:
        print(f"warning: the CLI checked {sorted(checked)} files, discovery found {len(files)}", file=sys.stderr)

    stats = summarize([run.measurement for run in runs])
    return {
        "directory": str(directory),
        "command": command,
        "jobs": jobs,
        "repeat": repeat,
        "files": len(files),
        "lines": lines,
        "wall_s_median": stats.wall_s_median,
        "wall_s_min": stats.wall_s_min,
        "wall_s_runs": stats.wall_s_runs,
        "files_per_s": len(files) / stats.wall_s_median,
        "lines_per_s": lines / stats.wall_s_median,
        "findings": runs[-1].findings,
        "peak_rss_mib": stats.peak_rss_mib,
        "peak_tree_rss_mib": stats.peak_tree_rss_mib,
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
    return format_rows(rows)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Benchmark the torchlint CLI on a directory.")
    add_common_arguments(parser, default_repeat=3)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    directory = existing_directory(args.directory)
    if directory is None:
        return 2
    report = benchmark(directory, args.jobs, args.repeat, args.sample_interval)
    print(json.dumps(report, indent=2) if args.json else format_table(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
