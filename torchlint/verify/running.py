"""Running one fixture program: a child process forked from a server that has imported torch once,
its environment, its JSON result, and what the program's clock recorded (step starts, peak device
memory, and in its output the CUDA synchronisation warnings of the measured steps).

Each run is its own process, so no global setting of one program (anomaly detection, cuDNN flags)
reaches the next; only the import of torch is shared, which is what makes a full verification
take minutes rather than an hour. Where `fork` is not available the runs are spawned instead.
"""

from __future__ import annotations

import json
import os
import runpy
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import traceback
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Dict, Optional, Tuple

from torchlint.verify import clock

# Python prints "file:line: UserWarning: <message>", c10's own handler "[W...] Warning: <message>".
SYNC_WARNING = "Warning: called a synchronizing CUDA operation"


class ProgramFailure(Exception):
    """A fixture program failed; the message becomes the rule's detail."""


class ProgramTimeout(ProgramFailure):
    """A fixture program outlasted its time limit (it was killed)."""


@dataclass(frozen=True)
class Job:
    """One run of a fixture program: its environment, and what its clock records. `record` marks
    step starts, `warmup` steps are left out of the measurement, `count_syncs` turns CUDA's
    synchronisation warnings on after them; `threads` caps torch's intra-op threads."""

    program: Path
    env: Dict[str, str]
    device: str
    record: bool = False
    warmup: int = 0
    count_syncs: bool = False
    threads: Optional[int] = None

    @property
    def name(self) -> str:
        return self.program.name


@dataclass(frozen=True)
class ProgramRun:
    """One finished run: exit status, output, the step starts (seconds since the first) and the
    peak of allocated device memory."""

    returncode: int
    stdout: str
    stderr: str
    marks: Tuple[float, ...] = ()
    peak_bytes: Optional[int] = None


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


def _torch_cuda() -> Tuple[Optional[object], bool]:
    """torch, where the fork server preloaded it (None otherwise), and whether it sees a GPU."""
    torch = sys.modules.get("torch")
    return torch, bool(torch is not None and torch.cuda.is_available())  # type: ignore[attr-defined]


def _child(job: Job, base: str) -> None:
    """In the child: become the program's process (environment, directory, argv, output files),
    run it as __main__, write what its clock recorded to `base`.json, and exit with its status
    (SystemExit, so that the interpreter shuts down as after any program: atexit, workers)."""
    os.environ.clear()
    os.environ.update(job.env)
    os.chdir(job.program.parent)
    with open(os.devnull, "rb") as empty:
        os.dup2(empty.fileno(), 0)
    for descriptor, suffix in ((1, ".out"), (2, ".err")):
        with open(base + suffix, "wb") as file:
            os.dup2(file.fileno(), descriptor)
    sys.argv = [str(job.program)]
    sys.path.insert(0, str(job.program.parent))
    torch, cuda = _torch_cuda()
    if torch is not None and job.threads is not None:
        torch.set_num_threads(job.threads)  # type: ignore[attr-defined]
    on_gpu = job.device == "cuda" and cuda
    recorder = clock.Recorder(on_gpu, job.warmup, job.count_syncs) if job.record or job.count_syncs else None
    clock.install(recorder)
    code = 0
    try:
        runpy.run_path(str(job.program), run_name="__main__")
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        if isinstance(stop.code, str):
            print(stop.code, file=sys.stderr)
    except BaseException:  # the program's own failure, reported like an interpreter would
        traceback.print_exc()
        code = 1
    marks = recorder.seconds() if recorder is not None and code == 0 else []
    peak = torch.cuda.max_memory_allocated() if on_gpu else None  # type: ignore[attr-defined]
    with open(base + ".json", "w", encoding="utf-8") as file:
        json.dump({"marks": marks, "peak_bytes": peak}, file)
    sys.stdout.flush()
    sys.stderr.flush()
    raise SystemExit(code)


def _job_text(job: Job, base: str) -> str:
    data = asdict(job)
    data["program"] = str(job.program)
    return json.dumps({"job": data, "base": base})


def _job_from(text: str) -> Tuple[Job, str]:
    data = json.loads(text)
    fields = dict(data["job"], program=Path(data["job"]["program"]))
    return Job(**fields), data["base"]


def serve() -> None:
    """The fork server's loop: for each job read from standard input, fork a child that runs it,
    print the child's pid, wait for it and print its exit status (one JSON line each)."""
    for line in sys.stdin:
        job, base = _job_from(line)
        pid = os.fork()
        if pid == 0:
            _child(job, base)  # raises SystemExit: the child's interpreter ends with the program
        print(json.dumps({"pid": pid}), flush=True)
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"status": os.waitstatus_to_exitcode(status)}), flush=True)


# Modules the fork server imports once, so that its children start with them imported: torch,
# and what a training step imports lazily (an optimizer's first step imports TorchDynamo, which
# takes longer than importing torch itself).
DEFAULT_PRELOAD: Tuple[str, ...] = ("torch", "torch._dynamo", "torch.distributed")
PRELOAD = DEFAULT_PRELOAD
SERVER = """\
import importlib, sys
for name in sys.argv[1:]:
    try:
        importlib.import_module(name)
    except ImportError:
        pass
from torchlint.verify.running import serve
serve()
"""
# Where there is no fork: one interpreter per run.
SPAWNED = "import sys\nfrom torchlint.verify.running import _child, _job_from\n_child(*_job_from(sys.argv[1]))\n"


class Runner:
    """Runs jobs one at a time, each in a child process of a fork server (spawned where there is
    no fork). Use as a context manager; one Runner per thread."""

    def __init__(self) -> None:
        self._server: Optional[subprocess.Popen] = None

    def __enter__(self) -> "Runner":
        if hasattr(os, "fork"):
            self._server = subprocess.Popen(
                [sys.executable, "-c", SERVER, *PRELOAD], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
            )
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            assert self._server.stdin is not None
            self._server.stdin.close()
            self._server.wait()

    def run(self, job: Job, timeout: float) -> ProgramRun:
        """Run `job` to completion; ProgramFailure when it outlasts `timeout`."""
        with tempfile.TemporaryDirectory(prefix="torchlint-run-") as directory:
            base = os.path.join(directory, "run")
            code = self._forked(job, base, timeout) if self._server else self._spawned(job, base, timeout)
            try:
                recorded = json.loads(_read(base + ".json") or "{}")
            except ValueError:
                recorded = {}
            marks = tuple(float(mark) for mark in recorded.get("marks", ()))
            return ProgramRun(code, _read(base + ".out"), _read(base + ".err"), marks, recorded.get("peak_bytes"))

    def _forked(self, job: Job, base: str, timeout: float) -> int:
        server = self._server
        assert server is not None and server.stdin is not None and server.stdout is not None
        server.stdin.write(_job_text(job, base) + "\n")
        server.stdin.flush()
        pid = json.loads(server.stdout.readline())["pid"]
        expired = threading.Event()

        def expire() -> None:
            expired.set()
            os.kill(pid, signal.SIGKILL)

        timer = threading.Timer(timeout, expire)
        timer.start()
        status = json.loads(server.stdout.readline())["status"]
        timer.cancel()
        if expired.is_set():
            raise ProgramTimeout(f"{job.name} timed out after {timeout:g} s")
        return int(status)

    def _spawned(self, job: Job, base: str, timeout: float) -> int:
        command = [sys.executable, "-c", SPAWNED, _job_text(job, base)]
        try:
            return subprocess.run(command, timeout=timeout, capture_output=True).returncode
        except subprocess.TimeoutExpired:
            raise ProgramTimeout(f"{job.name} timed out after {timeout:g} s") from None


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as file:
            return file.read()
    except OSError:
        return ""


def checked(run: ProgramRun, name: str) -> ProgramRun:
    """`run` itself, or ProgramFailure with the last line of its error output."""
    if run.returncode != 0:
        message = last_line(run.stderr) or "no error output"
        raise ProgramFailure(f"{name} exited with status {run.returncode}: {message}")
    return run


def parse_result(run: ProgramRun, name: str) -> object:
    """The JSON object a fixture program prints as its last line of output."""
    line = last_line(run.stdout)
    try:
        return json.loads(line)
    except json.JSONDecodeError:
        shown = line if len(line) <= 80 else line[:77] + "..."
        raise ProgramFailure(f"{name} did not print a JSON result as its last line: {shown!r}") from None


def sync_count(run: ProgramRun) -> int:
    """Host-device synchronisations the run's CUDA sync-debug warnings report."""
    return sum(SYNC_WARNING in line for line in run.stderr.splitlines())
