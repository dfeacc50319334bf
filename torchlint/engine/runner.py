"""Checking many files: reading, decoding, per-file rule sets and parallel worker processes."""

from __future__ import annotations

import difflib
import enum
import logging
import os
import sys
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Callable, Dict, FrozenSet, List, Optional, Sequence, Tuple, Type

from torchlint.engine.cache import CachedResult, ResultCache, digest
from torchlint.engine.findings import Finding
from torchlint.engine.options import Options
from torchlint.engine.rule import Rule, all_rules
from torchlint.engine.noqa import UNUSED_NOQA
from torchlint.files.source import SourceText, UndecodableSource, decode_source, physical_lines
from torchlint.files.writer import FileChanged, remove_abandoned_temporaries, write_atomic
from torchlint.semantics import project

if TYPE_CHECKING:
    import multiprocessing.context

    from torchlint.files.notebook import Notebook

_LOG = logging.getLogger(__name__)
# Below this much source, starting worker processes costs more than it saves.
PARALLEL_MIN_BYTES = 256 * 1024
# Passes of `--fix` over the files at most (`check_files`).
FIX_PASSES = 3


class FixMode(enum.Enum):
    """What to do with fixes: only report them, write them, or print them as a diff."""

    CHECK = "check"
    FIX = "fix"
    DIFF = "diff"
    ADD_NOQA = "add-noqa"


@dataclass(frozen=True)
class RunOptions:
    lint: Options = Options()
    mode: FixMode = FixMode.CHECK
    unsafe_fixes: bool = False


@dataclass(frozen=True)
class FileJob:
    """One file to check with the codes enabled for it; `data` is given for standard input."""

    path: str
    codes: FrozenSet[str]
    data: Optional[bytes] = None


@dataclass(frozen=True)
class FileOutcome:
    """What checking one file produced. `snippets` maps each finding's `snippet_key` to its source line."""

    path: str
    findings: Tuple[Finding, ...] = ()
    snippets: Dict[str, str] = field(default_factory=dict)
    error: Optional[str] = None
    fixed: Tuple[Finding, ...] = ()
    diff: str = ""
    warning: Optional[str] = None
    # The fixed source in its encoding, for standard input only (files are written in place).
    fixed_source: Optional[bytes] = None
    # Digest of the bytes that were checked, for the result cache.
    digest: str = ""
    noqa_added: int = 0
    # The project files (and absent paths) the findings were computed from, for the result cache.
    dependencies: Dict[str, Tuple[str, int, int]] = field(default_factory=dict)


@lru_cache(maxsize=None)
def _rules_for(codes: FrozenSet[str]) -> Tuple[Type[Rule], ...]:
    return tuple(rule for rule in all_rules() if rule.code in codes)


def check_file(job: FileJob, options: RunOptions) -> FileOutcome:
    """Read, decode, lint and maybe fix one file; problems become a finding or an error line, never an exception."""
    try:
        return _check_file(job, options)
    except Exception as error:  # a bug must cost one file, not the whole run
        return FileOutcome(job.path, error=f"{job.path}: internal error: {type(error).__name__}: {error} (please report this)")


@dataclass(frozen=True)
class _Document:
    """The Python text of a file, how to write a changed text back, and how to map findings
    on that text to what the user sees (lines within notebook cells)."""

    text: str
    encode: Callable[[str], bytes]
    relocate: Callable[[Finding], Finding]


def _python_document(source: SourceText) -> _Document:
    return _Document(source.text, source.encode, lambda finding: finding)


def _notebook_document(notebook: Notebook) -> _Document:
    def relocate(finding: Finding) -> Finding:
        cell, moved = notebook.relocate(finding)
        return replace(moved, cell=cell)

    return _Document(notebook.source, notebook.with_source, relocate)


def _check_file(job: FileJob, options: RunOptions) -> FileOutcome:
    # Imported here, not at the top: a run answered from the cache never needs LibCST.
    from torchlint.engine.fixer import fix_text
    from torchlint.engine.linter import PARSE_ERROR, lint_text, parse_error_finding
    from torchlint.files.notebook import Notebook, NotebookError

    # Importing the rules registers them, TL000 included: a run whose rule catalog came from
    # the cache has not imported them yet, and an undecodable file needs TL000 below.
    rules = _rules_for(job.codes)
    try:
        data = job.data if job.data is not None else _read(job.path)
    except OSError as error:
        return FileOutcome(job.path, error=f"{job.path}: cannot read: {error.strerror or error}")
    content_digest = digest(data)
    try:
        if job.path.endswith(".ipynb"):
            document = _notebook_document(Notebook.parse(data))
        else:
            document = _python_document(decode_source(data))
    except (UndecodableSource, NotebookError) as error:
        found = (parse_error_finding(job.path, 1, 1, str(error)),) if PARSE_ERROR in job.codes else ()
        echo = data if job.data is not None and options.mode is FixMode.FIX else None
        return FileOutcome(job.path, found, digest=content_digest, fixed_source=echo)
    if options.mode is FixMode.CHECK:
        with project.recording() as consulted:
            findings = lint_text(document.text, job.path, rules, options.lint).findings
        outcome = _outcome(job.path, document, document.text, findings)
        return replace(outcome, digest=content_digest, dependencies=consulted.states)
    if options.mode is FixMode.ADD_NOQA:
        return _add_noqa(job, data, document, rules, options)
    result = fix_text(document.text, job.path, rules, options.lint, options.unsafe_fixes)
    outcome = replace(
        _outcome(job.path, document, result.text, result.remaining),
        fixed=tuple(document.relocate(f) for f in result.fixed),
        warning=result.warning,
    )
    if result.text == document.text:
        return replace(outcome, fixed_source=data if job.data is not None else None)
    try:
        new_data = document.encode(result.text)
    except NotebookError as error:
        return FileOutcome(job.path, error=f"{job.path}: left as it is, not fixed: {error}")
    if options.mode is FixMode.DIFF:
        return replace(outcome, diff=_diff(job.path, data, new_data))
    if job.data is not None:
        return replace(outcome, fixed_source=new_data)
    return _write(outcome, new_data, data)


def _outcome(path: str, document: _Document, text: str, findings: Sequence[Finding]) -> FileOutcome:
    """Findings on `text` as the user sees them, with the source line of each."""
    lines = physical_lines(text) if findings else []
    snippets: Dict[str, str] = {}
    shown = []
    for finding in findings:
        moved = document.relocate(finding)
        if 0 < finding.line <= len(lines):
            snippets[moved.snippet_key] = lines[finding.line - 1]
        shown.append(moved)
    return FileOutcome(path, tuple(shown), snippets)


def _write(outcome: FileOutcome, data: bytes, original: bytes) -> FileOutcome:
    """Write `data` unless the file no longer holds `original` (an edit made meanwhile wins)."""
    try:
        write_atomic(outcome.path, data, expected=original)
    except FileChanged:
        return FileOutcome(outcome.path, error=f"{outcome.path}: changed while being fixed; left as it is, not fixed")
    except OSError as error:
        return FileOutcome(outcome.path, error=f"{outcome.path}: cannot write: {error}")
    project.forget_paths()  # the project's stamp changed: the next file's answers see the fix
    return outcome


def _add_noqa(job: FileJob, data: bytes, document: _Document, rules: Sequence[Type[Rule]], options: RunOptions) -> FileOutcome:
    """Suppress the file's current findings with `# noqa` comments; report what could not be."""
    from torchlint.engine.add_noqa import add_noqa
    from torchlint.engine.linter import lint_text

    findings = [f for f in lint_text(document.text, job.path, rules, options.lint).findings if f.code != UNUSED_NOQA]
    text = add_noqa(document.text, findings)
    remaining = lint_text(text, job.path, rules, options.lint).findings
    outcome = replace(_outcome(job.path, document, text, remaining), noqa_added=len(findings) - len(remaining))
    return _write(outcome, document.encode(text), data) if text != document.text else outcome


def _diff(path: str, before: bytes, after: bytes) -> str:
    """A unified diff of two versions of a file (decoded leniently: it is only for display)."""
    lines = difflib.unified_diff(
        physical_lines(before.decode("utf-8", "replace"), keepends=True),
        physical_lines(after.decode("utf-8", "replace"), keepends=True),
        fromfile=path if os.path.isabs(path) else f"a/{path}",
        tofile=path if os.path.isabs(path) else f"b/{path}",
    )
    return "".join(line if line.endswith(("\n", "\r")) else line + "\n\\ No newline at end of file\n" for line in lines)


def _read(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def check_cached(
    jobs: Sequence[FileJob], options: RunOptions, workers: int, cache: ResultCache, progress: Optional[Callable[[], None]] = None
) -> List[FileOutcome]:
    """Like `check_files`, answering unchanged files from `cache` and storing fresh results."""
    _remove_abandoned_temporaries(jobs)
    project.clear()
    outcomes: List[Optional[FileOutcome]] = []
    pending: List[int] = []
    for index, job in enumerate(jobs):
        hit = cache.lookup(job.path, job.codes)
        outcomes.append(FileOutcome(job.path, hit.findings, hit.snippets) if hit else None)
        if hit is None:
            pending.append(index)
        else:
            _LOG.debug("unchanged, from the cache: %s", job.path)
            if progress is not None:
                progress()
    _LOG.debug("cache %s answered %d of %d files", cache.directory, len(jobs) - len(pending), len(jobs))
    for index, outcome in zip(pending, _check_files([jobs[i] for i in pending], options, workers, progress)):
        outcomes[index] = outcome
        if outcome.error is None:
            result = CachedResult(outcome.findings, outcome.snippets)
            cache.store(outcome.path, jobs[index].codes, outcome.digest, result, outcome.dependencies)
    cache.save()
    return [outcome for outcome in outcomes if outcome is not None]


def check_files(
    jobs: Sequence[FileJob], options: RunOptions, workers: int, progress: Optional[Callable[[], None]] = None
) -> List[FileOutcome]:
    """Check `jobs`, in parallel processes when there is enough work; results keep job order.
    `progress` is called once per checked file. With `--fix`, a fix in one file can change
    what the other files know of the project (a loader pinned by one fix makes the moves of
    its batches fixable): the files are checked again, up to `FIX_PASSES` times in all, until
    a pass fixes nothing, so that a second run has nothing left to fix."""
    _remove_abandoned_temporaries(jobs)
    outcomes = _check_files(jobs, options, workers, progress)
    latest = outcomes
    for _ in range(FIX_PASSES - 1):
        if options.mode is not FixMode.FIX or any(job.data is not None for job in jobs) or not any(o.fixed for o in latest):
            break
        # a file left as it is for an error (changed while being fixed) is not checked again
        again = [index for index, outcome in enumerate(outcomes) if outcome.error is None]
        latest = _check_files([jobs[index] for index in again], options, workers)
        for index, new in zip(again, latest):
            outcomes[index] = replace(new, fixed=outcomes[index].fixed + new.fixed)
    return outcomes


def _remove_abandoned_temporaries(jobs: Sequence[FileJob]) -> None:
    """What a killed `--fix` left behind goes on the next run in those directories."""
    remove_abandoned_temporaries({os.path.dirname(job.path) for job in jobs if job.data is None})


def _check_files(
    jobs: Sequence[FileJob], options: RunOptions, workers: int, progress: Optional[Callable[[], None]] = None
) -> List[FileOutcome]:
    workers = max(1, min(workers, len(jobs)))
    tick = progress or (lambda: None)
    project.clear()
    if workers == 1 or _total_size(jobs) < PARALLEL_MIN_BYTES:
        return [_ticking(check_file(job, options), tick) for job in jobs]
    # Largest files first so that no worker is left with a big file at the end.
    order = sorted(range(len(jobs)), key=lambda i: -_size(jobs[i].path))
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=workers, mp_context=_context()) as pool:
        outcomes = [_ticking(o, tick) for o in pool.map(check_file, [jobs[i] for i in order], [options] * len(order), chunksize=4)]
    result: List[Optional[FileOutcome]] = [None] * len(jobs)
    for index, outcome in zip(order, outcomes):
        result[index] = outcome
    return [outcome for outcome in result if outcome is not None]


def _ticking(outcome: FileOutcome, tick: Callable[[], None]) -> FileOutcome:
    tick()
    return outcome


def _context() -> multiprocessing.context.BaseContext:
    import multiprocessing

    method = "fork" if sys.platform.startswith("linux") else "spawn"
    return multiprocessing.get_context(method)


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _total_size(jobs: Sequence[FileJob]) -> int:
    total = 0
    for job in jobs:
        total += _size(job.path)
        if total >= PARALLEL_MIN_BYTES:
            break
    return total


def default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
