"""Running one fixture program in a fresh interpreter: its environment, its JSON result, and on CUDA
its time (CUDA events around the whole program), peak memory and host-device synchronisations."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Mapping, Optional, Sequence, Tuple

# Python prints "file:line: UserWarning: <message>", c10's own handler "[W...] Warning: <message>".
SYNC_WARNING = "Warning: called a synchronizing CUDA operation"

# Runs a fixture program with CUDA sync debugging on; every synchronisation prints a warning.
SYNC_WRAPPER = """\
import os, runpy, sys, warnings
import torch
warnings.simplefilter("always")
torch.cuda.set_sync_debug_mode("warn")
path = sys.argv[1]
sys.argv = [path]
sys.path.insert(0, os.path.dirname(path))
runpy.run_path(path, run_name="__main__")
"""

# Runs a fixture program between two CUDA events (after torch and CUDA are initialised) and writes
# the elapsed milliseconds and the peak of allocated device memory as JSON to the file argv[1].
MEASURE_WRAPPER = """\
import json, os, runpy, sys
import torch
out, path = sys.argv[1], sys.argv[2]
sys.argv = [path]
sys.path.insert(0, os.path.dirname(path))
torch.cuda.init()
torch.cuda.reset_peak_memory_stats()
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
start.record()
runpy.run_path(path, run_name="__main__")
end.record()
torch.cuda.synchronize()
with open(out, "w") as file:
    json.dump({"ms": start.elapsed_time(end), "peak_bytes": torch.cuda.max_memory_allocated()}, file)
"""


class ProgramFailure(Exception):
    """A fixture program failed; the message becomes the rule's detail."""


@dataclass(frozen=True)
class ProgramRun:
    """One finished subprocess: wall time, exit status and output."""

    seconds: float
    returncode: int
    stdout: str
    stderr: str



def free_port() -> int:
    """A TCP port that is free right now, for programs that start a process group."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def program_env(device: str, steps: int, size: str, threads: Optional[int] = None) -> Dict[str, str]:
    """The environment every fixture program runs with: same seeds, steps, device and size, and
    `threads` intra-op threads when several programs share the CPU (unless the user chose)."""
    env = dict(os.environ)
    env.update(
        TORCHLINT_STEPS=str(steps),
        TORCHLINT_DEVICE=device,
        TORCHLINT_SIZE=size,
        PYTHONHASHSEED="0",
        MASTER_ADDR="127.0.0.1",
        MASTER_PORT=str(free_port()),
    )
    if threads is not None:
        env.setdefault("OMP_NUM_THREADS", str(threads))
    return env


def last_line(text: str) -> str:
    """The last non-empty line of `text`, or '' when there is none."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def run_program(command: Sequence[str], env: Mapping[str, str], cwd: Path, timeout: float) -> ProgramRun:
    """Run `command` to completion and time it with perf_counter; raise ProgramFailure on timeout."""
    start = time.perf_counter()
    try:
        done = subprocess.run(list(command), cwd=cwd, env=dict(env), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise ProgramFailure(f"{Path(command[-1]).name} timed out after {timeout:g} s") from None
    return ProgramRun(time.perf_counter() - start, done.returncode, done.stdout, done.stderr)


def checked(run: ProgramRun, label: str) -> ProgramRun:
    """`run` itself, or ProgramFailure with the last line of its error output."""
    if run.returncode != 0:
        message = last_line(run.stderr) or "no error output"
        raise ProgramFailure(f"{label}.py exited with status {run.returncode}: {message}")
    return run


def parse_result(run: ProgramRun, label: str) -> object:
    """The JSON object a fixture program prints as its last line of output."""
    line = last_line(run.stdout)
    try:
        return json.loads(line)
    except json.JSONDecodeError:
        shown = line if len(line) <= 80 else line[:77] + "..."
        raise ProgramFailure(f"{label}.py did not print a JSON result as its last line: {shown!r}") from None


@dataclass(frozen=True)
class Measurement:
    """What the measuring wrapper saw: seconds between the CUDA events and peak allocated bytes."""

    seconds: float
    peak_bytes: Optional[int]


def measured_run(
    program: Path, label: str, env: Mapping[str, str], timeout: float
) -> Tuple[ProgramRun, Measurement]:
    """One run of `program` under MEASURE_WRAPPER: its output and its measurement."""
    out = program.with_name(f"{label}.measure.json")
    command = [sys.executable, "-c", MEASURE_WRAPPER, str(out), str(program)]
    run = checked(run_program(command, env, program.parent, timeout), label)
    try:
        data = json.loads(out.read_text(encoding="utf-8"))
        measurement = Measurement(float(data["ms"]) / 1000, data.get("peak_bytes"))
    except (OSError, ValueError, KeyError, TypeError):
        raise ProgramFailure(f"{label}.py ran, but its measurement could not be read") from None
    finally:
        out.unlink(missing_ok=True)
    return run, measurement


def count_syncs(program: Path, label: str, env: Mapping[str, str], timeout: float) -> int:
    """Host-device synchronisations of one run, counted from CUDA sync-debug warnings."""
    command = [sys.executable, "-c", SYNC_WRAPPER, str(program)]
    run = checked(run_program(command, env, program.parent, timeout), label)
    return sum(SYNC_WARNING in line for line in run.stderr.splitlines())
