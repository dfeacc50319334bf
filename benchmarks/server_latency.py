#!/usr/bin/env python3
"""Measure how soon `torchlint server` publishes diagnostics after an edit, beside `ruff server`.

Usage::

    python benchmarks/server_latency.py [FILE] [--lines N] [--edits K] [--ruff PATH] [--core C] [--json]

Each server runs as a subprocess (``python -m torchlint server``, then ``ruff server`` when
``--ruff`` names it or it is on PATH) driven over stdio by a minimal LSP client, as an editor
drives it, pinned to one core (``--core``, default 0; ``--core -1`` leaves it unpinned). FILE
(default: a generated training module of about N lines, 2,000 by default, from
``generate_tree.py``) is opened, then edited K times, one line at a time, with a pause after
each edit as when someone types and stops; the latency of an edit is the time from sending
``textDocument/didChange`` to receiving the diagnostics for that version, and the server's CPU
time (user + system, from ``/proc``) in that interval is reported beside it. A burst of edits
20 ms apart is timed from its last edit. The time torchlint's engine alone takes for the text
(``lint_text`` in this process, before the servers start) is reported too: the difference is
what the server adds (debounce, messages, conversion).

Needs the ``server`` extra (pygls) for torchlint's server.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from generate_tree import module_text
from measure import machine_info

PAUSE_S = 0.3  # between single edits: longer than the server's debounce
BURST_GAP_S = 0.02


class Client:
    """A minimal LSP client over a server's stdio (JSON-RPC with `Content-Length` headers) that
    records when each version's diagnostics arrive. Requests from the server (settings,
    registrations) are answered with null."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.arrived: Dict[Tuple[str, int], Tuple[float, int]] = {}
        self.answers: Dict[int, "asyncio.Future[Any]"] = {}
        self.event = asyncio.Event()
        self.next_id = 0
        self.reader = asyncio.ensure_future(self._read())

    @classmethod
    async def start(cls, command: Sequence[str]) -> "Client":
        process = await asyncio.create_subprocess_exec(
            *command, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL
        )
        return cls(process)

    def send(self, message: Dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def notify(self, method: str, params: Any) -> None:
        self.send({"method": method, "params": params})

    async def request(self, method: str, params: Any) -> Any:
        self.next_id += 1
        answer = self.answers[self.next_id] = asyncio.get_running_loop().create_future()
        self.send({"id": self.next_id, "method": method, "params": params})
        return await asyncio.wait_for(answer, 60.0)

    async def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = 0
            while (line := await stream.readline()) not in (b"\r\n", b"\n", b""):
                name, _, value = line.decode().partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value)
            if not length:
                return
            message = json.loads(await stream.readexactly(length))
            if "id" in message and "method" in message:
                self.send({"id": message["id"], "result": None})
            elif "id" in message and message["id"] in self.answers:
                self.answers.pop(message["id"]).set_result(message.get("result"))
            elif message.get("method") == "textDocument/publishDiagnostics":
                params = message["params"]
                if params.get("version") is not None:
                    self.arrived[(params["uri"], params["version"])] = (time.perf_counter(), len(params["diagnostics"]))
                    self.event.set()

    async def wait(self, uri: str, version: int, timeout: float = 60.0) -> Tuple[float, int]:
        """When the diagnostics of `version` arrived (waiting without polling), and how many."""
        while (uri, version) not in self.arrived:
            self.event.clear()
            await asyncio.wait_for(self.event.wait(), timeout)
        return self.arrived[(uri, version)]

    def change(self, uri: str, version: int, text: str) -> float:
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]})
        return time.perf_counter()

    async def stop(self) -> None:
        await self.request("shutdown", None)
        self.notify("exit", None)
        await self.process.wait()
        self.reader.cancel()


def edited(text: str, step: int) -> str:
    """`text` with a comment added to one line in its middle (a different line each step)."""
    lines = text.split("\n")
    index = len(lines) // 2 + step
    lines[index] += f"  # edit {step}"
    return "\n".join(lines)


def cpu_seconds(pid: int) -> float:
    """The CPU time (user + system) process `pid` has used so far (Linux; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: Sequence[float], fraction: float) -> float:
    """The value below which `fraction` of `values` lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(fraction * len(ordered) + 0.5) - 1))]


async def measure(path: Path, edits: int, command: Sequence[str], core: int) -> Dict[str, Any]:
    """Latencies of the server started by `command` on `path`."""
    text = path.read_text()
    uri = path.as_uri()
    runner = await Client.start(command)
    pid = runner.process.pid
    if core >= 0 and hasattr(os, "sched_setaffinity"):
        for task in os.listdir(f"/proc/{pid}/task"):  # every thread of the server
            os.sched_setaffinity(int(task), {core})
    root = path.parent.as_uri()
    await runner.request("initialize", {"processId": os.getpid(), "rootUri": root, "capabilities": {}, "workspaceFolders": [{"uri": root, "name": "root"}]})
    runner.notify("initialized", {})
    start = time.perf_counter()
    runner.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}})
    opened, findings = await runner.wait(uri, 1)
    latencies: List[float] = []
    cpu: List[float] = []
    version = 1
    for step in range(edits):
        version += 1
        before = cpu_seconds(pid)
        sent = runner.change(uri, version, edited(text, step))
        latencies.append((await runner.wait(uri, version))[0] - sent)
        cpu.append(cpu_seconds(pid) - before)
        await asyncio.sleep(PAUSE_S)
    for step in range(5):
        version += 1
        sent = runner.change(uri, version, edited(text, edits + step))
        await asyncio.sleep(BURST_GAP_S)
    burst = (await runner.wait(uri, version))[0] - sent
    await runner.stop()
    return {
        "findings": findings,
        "open_s": opened - start,
        "edit_median_s": statistics.median(latencies),
        "edit_p95_s": percentile(latencies, 0.95),
        "edit_max_s": max(latencies),
        "burst_s": burst,
        "edit_cpu_median_s": statistics.median(cpu),
        "edit_cpu_p95_s": percentile(cpu, 0.95),
    }


def engine_time(text: str, path: str) -> Tuple[float, float]:
    """The median wall and CPU time of the engine alone on `text`, in this process. On a busy
    machine the CPU time tells what the wall time would be on an idle core."""
    from torchlint.engine.context import Options
    from torchlint.engine.linter import lint_text
    from torchlint.engine.rule import all_rules

    rules = all_rules()
    wall, cpu = [], []
    for _ in range(5):
        start, start_cpu = time.perf_counter(), time.process_time()
        lint_text(text, path, rules, Options())
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return statistics.median(wall), statistics.median(cpu)


def main(argv: List[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", type=Path, help="the file to open (default: a generated training module)")
    parser.add_argument("--lines", type=int, default=2000, help="lines of the generated module (default: 2000)")
    parser.add_argument("--edits", type=int, default=20, help="single edits to time (default: 20)")
    parser.add_argument("--ruff", help="the ruff executable to compare with (default: ruff on PATH, if any)")
    parser.add_argument("--core", type=int, default=0, help="the core to pin each server to (-1: no pinning)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    ruff: Optional[str] = args.ruff or shutil.which("ruff")
    with tempfile.TemporaryDirectory() as directory:
        path = args.file.resolve() if args.file else Path(directory) / "train_engine.py"
        if args.file is None:
            path.write_text(module_text(random.Random(7), "engine", "project", args.lines, script=True)[0])
        text = path.read_text()
        engine, engine_cpu = engine_time(text, str(path))
        servers = {"torchlint": asyncio.run(measure(path, args.edits, [sys.executable, "-m", "torchlint", "server"], args.core))}
        if ruff:
            servers["ruff"] = asyncio.run(measure(path, args.edits, [ruff, "server"], args.core))
    result = {
        "file": path.name,
        "lines": text.count("\n"),
        "servers": servers,
        "engine_s": engine,
        "engine_cpu_s": engine_cpu,
        "load_average": os.getloadavg()[0],
        "machine": machine_info(),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{path.name}: {result['lines']} lines; load average {result['load_average']:.1f} on {result['machine']['cores']} cores")
    print(f"  torchlint engine alone: {engine * 1000:.0f} ms wall, {engine_cpu * 1000:.0f} ms CPU")
    for name, found in servers.items():
        print(f"  {name} server ({found['findings']} diagnostics):")
        for key in ("open_s", "edit_median_s", "edit_p95_s", "edit_max_s", "burst_s", "edit_cpu_median_s", "edit_cpu_p95_s"):
            print(f"    {key[:-2].replace('_', ' '):<16} {found[key] * 1000:7.0f} ms")
    if not ruff:
        print("  ruff: not found (install it or pass --ruff PATH to compare)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
