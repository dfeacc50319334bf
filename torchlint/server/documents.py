"""Linting what the editor holds: a Python file's buffer, or the cells of a notebook.

A notebook's cells are linted together, as `torchlint check` lints an `.ipynb` file: they are
written into an in-memory notebook (markdown cells included, so cell numbers match) that
`Notebook` turns into one Python text, and findings are moved back into their cells.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

from torchlint.engine.cache import CachedResult, ResultCache, digest, engine_fingerprint
from torchlint.engine.findings import Finding
from torchlint.engine.fixer import fix_text
from torchlint.engine.linter import lint_text
from torchlint.engine.reparse import Reparser
from torchlint.engine.runner import _rules_for
from torchlint.files.notebook import Notebook
from torchlint.files.source import UndecodableSource, decode_source
from torchlint.semantics import project
from torchlint.server.settings import FileSetup


@dataclass(frozen=True)
class Part:
    """One text document the user edits: a file, or a notebook cell (`code` false for markdown)."""

    uri: str
    text: str
    version: Optional[int]
    code: bool = True


@dataclass(frozen=True)
class Snapshot:
    """What one lint run checks: a file's text, or all cells of a notebook, at fixed versions."""

    path: Path
    parts: Tuple[Part, ...]
    notebook: bool = False

    def _notebook(self) -> Notebook:
        cells = [{"cell_type": "code" if part.code else "markdown", "metadata": {}, "source": part.text} for part in self.parts]
        for cell in cells:
            if cell["cell_type"] == "code":
                cell.update(execution_count=None, outputs=[])
        document = {"cells": cells, "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
        return Notebook.parse(json.dumps(document).encode())


Results = Dict[str, Tuple[Finding, ...]]
# The files (or notebooks) whose last tree is kept for re-parsing their next edit.
TREES_KEPT = 4


def lint(snapshot: Snapshot, setup: FileSetup, caches: "Caches", stale: Optional[Callable[[], bool]] = None) -> Results:
    """The findings of each code part of `snapshot`, positioned within that part. Facts about
    project modules are kept between runs (by each module's text); which paths exist is asked
    anew. `stale` says when the snapshot is out of date (then `walker.Stale` is raised)."""
    project.forget_paths()
    path = str(snapshot.path)
    rules = _rules_for(setup.codes)
    if not snapshot.notebook:
        text = snapshot.parts[0].text
        cache = caches.for_setup(setup) if setup.cache_dir is not None and _matches_disk(snapshot.path, text) else None
        hit = cache.lookup(path, setup.codes) if cache else None
        if hit is not None:
            return {snapshot.parts[0].uri: hit.findings}
        findings = lint_text(text, path, rules, setup.options, caches.reparser(snapshot), stale).findings
        if cache is not None:
            cache.store(path, setup.codes, digest(snapshot.path.read_bytes()), CachedResult(findings, {}))
            cache.save()
        return {snapshot.parts[0].uri: findings}
    notebook = snapshot._notebook()
    results: Dict[str, List[Finding]] = {part.uri: [] for part in snapshot.parts if part.code}
    for finding in lint_text(notebook.source, path, rules, setup.options, caches.reparser(snapshot), stale).findings:
        cell, moved = notebook.relocate(finding)
        results[snapshot.parts[cell - 1].uri].append(replace(moved, cell=cell))
    return {uri: tuple(found) for uri, found in results.items()}


def fix_all(snapshot: Snapshot, setup: FileSetup) -> Dict[str, str]:
    """The new text of each part that fixing every applicable finding changes, as `--fix` would."""
    project.forget_paths()
    rules = _rules_for(setup.codes)
    if not snapshot.notebook:
        part = snapshot.parts[0]
        result = fix_text(part.text, str(snapshot.path), rules, setup.options, setup.unsafe_fixes)
        return {part.uri: result.text} if result.text != part.text else {}
    notebook = snapshot._notebook()
    result = fix_text(notebook.source, str(snapshot.path), rules, setup.options, setup.unsafe_fixes)
    cells = json.loads(notebook.with_source(result.text))["cells"]
    return {part.uri: cell["source"] for part, cell in zip(snapshot.parts, cells) if cell["source"] != part.text}


def _matches_disk(path: Path, text: str) -> bool:
    """Whether the buffer holds what the file on disk holds (then the result cache applies)."""
    try:
        return decode_source(path.read_bytes()).text == text
    except (OSError, UndecodableSource):
        return False


class Caches:
    """The result caches `torchlint check` uses, one per project root and engine fingerprint,
    and the last trees of the units linted last (an edit re-parses only what it changed)."""

    def __init__(self) -> None:
        self._caches: Dict[Tuple[Path, object], ResultCache] = {}
        self._reparsers: "OrderedDict[Tuple[Path, bool], Reparser]" = OrderedDict()

    def reparser(self, snapshot: Snapshot) -> Reparser:
        key = (snapshot.path, snapshot.notebook)
        found = self._reparsers.pop(key, None) or Reparser()
        self._reparsers[key] = found
        while len(self._reparsers) > TREES_KEPT:
            self._reparsers.popitem(last=False)
        return found

    def for_setup(self, setup: FileSetup) -> ResultCache:
        assert setup.cache_dir is not None
        key = (setup.cache_dir, setup.options)
        if key not in self._caches:
            self._caches[key] = ResultCache(setup.cache_dir, engine_fingerprint(setup.options))
        return self._caches[key]
