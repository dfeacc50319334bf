#!/usr/bin/env python3
"""Measure how soon `torchlint server` publishes diagnostics after an edit.

Usage::

    python benchmarks/server_latency.py [FILE] [--lines N] [--edits K] [--json]

The server runs as a subprocess (``python -m torchlint server``) driven over stdio by pygls'
client, as an editor drives it. FILE (default: a generated training module of about N lines,
2,000 by default, from ``generate_tree.py``) is opened, then edited K times, one line at a
time, with a pause after each edit as when someone types and stops; the latency of an edit
is the time from sending ``textDocument/didChange`` to receiving the diagnostics for that
version. A burst of edits 20 ms apart is timed from its last edit. The time the engine alone
takes for the text (``lint_text`` in this process, before the server starts) is reported
beside it: the difference is what the server adds (debounce, messages, conversion).

Needs the ``server`` extra (pygls).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Tuple

from lsprotocol import types
from pygls.lsp.client import LanguageClient

from generate_tree import module_text
from measure import machine_info

PAUSE_S = 0.3  # between single edits: longer than the server's debounce
BURST_GAP_S = 0.02


class Client:
    """A pygls client that records when each version's diagnostics arrive."""

    def __init__(self) -> None:
        self.client = LanguageClient("server-latency", "1")
        self.arrived: Dict[Tuple[str, int], Tuple[float, int]] = {}
        self.event = asyncio.Event()

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: types.PublishDiagnosticsParams) -> None:
            if params.version is not None:
                self.arrived[(params.uri, params.version)] = (time.perf_counter(), len(params.diagnostics))
                self.event.set()

    async def wait(self, uri: str, version: int, timeout: float = 60.0) -> Tuple[float, int]:
        """When the diagnostics of `version` arrived (waiting without polling), and how many."""
        while (uri, version) not in self.arrived:
            self.event.clear()
            await asyncio.wait_for(self.event.wait(), timeout)
        return self.arrived[(uri, version)]

    def change(self, uri: str, version: int, text: str) -> float:
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        return time.perf_counter()


def edited(text: str, step: int) -> str:
    """`text` with a comment added to one line in its middle (a different line each step)."""
    lines = text.split("\n")
    index = len(lines) // 2 + step
    lines[index] += f"  # edit {step}"
    return "\n".join(lines)


async def measure(path: Path, edits: int) -> Dict[str, Any]:
    text = path.read_text()
    uri = path.as_uri()
    engine, engine_cpu = engine_time(text, str(path))
    runner = Client()
    await runner.client.start_io(sys.executable, "-m", "torchlint", "server")
    await runner.client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=path.parent.as_uri()))
    runner.client.initialized(types.InitializedParams())
    start = time.perf_counter()
    runner.client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", 1, text)))
    opened, findings = await runner.wait(uri, 1)
    latencies: List[float] = []
    version = 1
    for step in range(edits):
        version += 1
        sent = runner.change(uri, version, edited(text, step))
        latencies.append((await runner.wait(uri, version))[0] - sent)
        await asyncio.sleep(PAUSE_S)
    for step in range(5):
        version += 1
        sent = runner.change(uri, version, edited(text, edits + step))
        await asyncio.sleep(BURST_GAP_S)
    burst = (await runner.wait(uri, version))[0] - sent
    await runner.client.shutdown_async(None)
    runner.client.exit(None)
    await runner.client.stop()
    return {
        "lines": text.count("\n"),
        "findings": findings,
        "open_s": opened - start,
        "edit_median_s": statistics.median(latencies),
        "edit_p90_s": sorted(latencies)[int(0.9 * (len(latencies) - 1))],
        "edit_max_s": max(latencies),
        "burst_s": burst,
        "engine_s": engine,
        "engine_cpu_s": engine_cpu,
        "load_average": os.getloadavg()[0],
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
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as directory:
        path = args.file.resolve() if args.file else Path(directory) / "train_engine.py"
        if args.file is None:
            path.write_text(module_text(random.Random(7), "engine", "project", args.lines, script=True)[0])
        result = {**asyncio.run(measure(path, args.edits)), "machine": machine_info()}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{path.name}: {result['lines']} lines, {result['findings']} findings")
    print(f"  load average {result['load_average']:.1f} on {result['machine']['cores']} cores")
    for key in ("open_s", "edit_median_s", "edit_p90_s", "edit_max_s", "burst_s", "engine_s", "engine_cpu_s"):
        print(f"  {key[:-2].replace('_', ' '):<12} {result[key] * 1000:7.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
