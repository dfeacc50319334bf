"""A persistent result cache: unchanged files are not parsed again.

Results are stored per file, keyed by the file's content digest and the rule codes enabled
for it, in one JSON file per engine fingerprint (torchlint's version and code, and the
settings that change results). A file whose size and modification time are unchanged is
trusted without reading it; otherwise its content digest decides. An entry also lists the
project files its findings were computed from (modules it imports, and paths whose absence
decided an import), validated the same way: by stat first, then by digest. The JSON file is
replaced atomically, so concurrent runs never corrupt it (the last writer wins), and a truncated or
garbage file is ignored and rebuilt. JSON rather than pickle: a cache directory found in a
checkout must not be able to run code.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from functools import lru_cache
from typing import Any, Dict, FrozenSet, Iterable, Optional, Tuple

import torchlint
from torchlint.engine.catalog import Catalog
from torchlint.engine.catalog import from_json as catalog_from_json
from torchlint.engine.catalog import to_json as catalog_to_json
from torchlint.engine.findings import Applicability, Edit, Finding, Fix
from torchlint.output import finding_json
from torchlint.engine.rule import rules_package
from torchlint.files.writer import TEMPORARY_PREFIX, write_atomic
from torchlint.semantics.project import ABSENT, DIRECTORY, PRESENT, TREE, digest, path_state, tree_stamp

CACHE_DIR_NAME = ".torchlint_cache"
MARKER = "CACHEDIR.TAG"
# The Cache Directory Tagging Specification's signature, which backup tools honour.
MARKER_TEXT = "Signature: 8a477f597d28d172789f06886806bc55\n# This directory is a cache created by torchlint.\n"
_FORMAT = 2
_RACY_NS = 2_000_000_000


@lru_cache(maxsize=None)
def code_fingerprint() -> str:
    """A key that changes with torchlint's version and its code on disk (rules included)."""
    package = Path(torchlint.__file__).parent
    sources = sorted(
        (str(path), path.stat().st_mtime_ns, path.stat().st_size)
        for directory in {package, *map(Path, rules_package().__path__)}
        for path in directory.rglob("*.py")
    )
    material = json.dumps([_FORMAT, torchlint.__version__, sources])
    return hashlib.blake2b(material.encode(), digest_size=12).hexdigest()


def engine_fingerprint(*settings: object) -> str:
    """A key that changes with torchlint's code and the given settings."""
    material = json.dumps([code_fingerprint(), [repr(item) for item in settings]])
    return hashlib.blake2b(material.encode(), digest_size=12).hexdigest()


def load_catalog(directories: Iterable[Path]) -> Optional[Catalog]:
    """The rule metadata a previous run of this build stored in one of the cache directories."""
    for directory in directories:
        try:
            with open(directory / f"rules-{code_fingerprint()}.json", "rb") as handle:
                catalog = catalog_from_json(json.loads(handle.read()))
        except (OSError, ValueError):
            continue
        if catalog:
            return catalog
    return None


def save_catalog(directory: Path, catalog: Catalog) -> None:
    """Store the rule metadata beside the results (only in a cache directory that exists)."""
    file = directory / f"rules-{code_fingerprint()}.json"
    if directory.is_dir() and not file.exists():
        try:
            write_atomic(str(file), json.dumps(catalog_to_json(catalog)).encode())
        except OSError:
            pass


@dataclass(frozen=True)
class CachedResult:
    findings: Tuple[Finding, ...]
    snippets: Dict[str, str]


class ResultCache:
    """Per-file results of one engine fingerprint, loaded once and saved once per run."""

    def __init__(self, directory: Path, fingerprint: str) -> None:
        self.directory = directory
        self.file = directory / f"results-{fingerprint}.json"
        self.entries: Dict[str, Dict[str, Any]] = _load(self.file)
        self.stats: Dict[str, Tuple[int, int]] = {}
        self.changed = False
        # Dependencies found unchanged in this run, and project listing stamps, computed once.
        self.valid: Dict[str, bool] = {}
        self.stamps: Dict[str, str] = {}

    def lookup(self, path: str, codes: FrozenSet[str]) -> Optional[CachedResult]:
        """The cached result for `path` if its content and enabled codes are unchanged."""
        try:
            status = os.stat(path)
        except OSError:
            return None
        stat_key = (status.st_mtime_ns, status.st_size)
        self.stats[path] = stat_key
        entry = self.entries.get(path)
        if entry is None or entry.get("codes") != _codes_key(codes):
            return None
        if tuple(entry["stat"]) != stat_key:
            try:
                with open(path, "rb") as handle:
                    current = digest(handle.read())
            except OSError:
                return None
            if current != entry["digest"]:
                return None
            entry["stat"] = list(stat_key)
            self.changed = True
        dependencies = entry.get("dependencies", {})
        if not all(self._unchanged(dependency, *state) for dependency, state in dependencies.items()):
            return None
        return _decode_result(entry)

    def _unchanged(self, path: str, state: str, mtime_ns: int = 0, size: int = 0) -> bool:
        """Whether a dependency is still in the state an entry recorded (answered once per run)."""
        key = f"{path}\0{state}\0{mtime_ns}\0{size}"
        known = self.valid.get(key)
        if known is None:
            known = self.valid[key] = _dependency_unchanged(path, state, mtime_ns, size, self.stamps)
        return known

    def store(
        self,
        path: str,
        codes: FrozenSet[str],
        content_digest: str,
        result: CachedResult,
        dependencies: Optional[Dict[str, Tuple[str, int, int]]] = None,
    ) -> None:
        """Remember a fresh result; `content_digest` is the digest of the bytes that were checked,
        `dependencies` the project paths the result was computed from (see `semantics.project`)."""
        stat_key = self.stats.get(path)
        if stat_key is None or not content_digest:
            return
        # A file modified within the clock's granularity of now could change again without
        # its (mtime, size) changing: store no stat so that the next run compares digests.
        now = time.time_ns()
        recent = now - stat_key[0] < _RACY_NS
        self.entries[path] = {
            "dependencies": {
                dependency: [state, 0, -1] if now - mtime_ns < _RACY_NS else [state, mtime_ns, size]
                for dependency, (state, mtime_ns, size) in (dependencies or {}).items()
            },
            "stat": [] if recent else list(stat_key),
            "digest": content_digest,
            "codes": _codes_key(codes),
            "findings": [finding_json(f) for f in result.findings],
            "snippets": dict(result.snippets),
        }
        self.changed = True

    def save(self) -> None:
        """Write the cache atomically; a cache that cannot be written is skipped silently."""
        if not self.changed:
            return
        try:
            if not self.directory.exists():
                # Only a directory torchlint creates gets a `.gitignore` and the marker.
                self.directory.mkdir(parents=True)
                (self.directory / ".gitignore").write_text("# Created by torchlint.\n*\n")
                (self.directory / MARKER).write_text(MARKER_TEXT)
            payload = json.dumps({"format": _FORMAT, "entries": self.entries}, separators=(",", ":"))
            write_atomic(str(self.file), payload.encode())
        except OSError:
            pass


def _dependency_unchanged(path: str, state: str, mtime_ns: int, size: int, stamps: Dict[str, str]) -> bool:
    """Whether `path` is still as recorded: absent, a directory, a file, a project listing with
    the same stamp, or a module with the same (mtime, size) or, failing that, content."""
    if state in (ABSENT, DIRECTORY, PRESENT):
        return path_state(path) == state
    if state.startswith(TREE):
        if path not in stamps:
            stamps[path] = tree_stamp(path)
        return stamps[path] == state
    try:
        status = os.stat(path)
        if (status.st_mtime_ns, status.st_size) == (mtime_ns, size):
            return True
        with open(path, "rb") as handle:
            return digest(handle.read()) == state
    except OSError:
        return False


def _codes_key(codes: FrozenSet[str]) -> str:
    return ",".join(sorted(codes))


def _load(file: Path) -> Dict[str, Dict[str, Any]]:
    """The entries of a cache file; an unreadable, truncated or foreign file counts as empty,
    and an entry of the wrong shape is dropped (its file is checked again)."""
    try:
        with open(file, "rb") as handle:
            document = json.loads(handle.read())
        if isinstance(document, dict) and document.get("format") == _FORMAT and isinstance(document.get("entries"), dict):
            return {key: value for key, value in document["entries"].items() if _valid_entry(value)}
    except (OSError, ValueError, RecursionError):
        pass
    return {}


def _valid_entry(entry: object) -> bool:
    """Whether `entry` has the fields `lookup` reads, with their types; the findings are
    checked when they are decoded."""
    if not isinstance(entry, dict):
        return False
    stat = entry.get("stat")
    return (
        isinstance(stat, list)
        and len(stat) in (0, 2)
        and all(type(value) is int for value in stat)
        and isinstance(entry.get("digest"), str)
        and isinstance(entry.get("codes"), str)
        and isinstance(entry.get("findings"), list)
        and isinstance(entry.get("snippets"), dict)
    )


def _decode_result(entry: Dict[str, Any]) -> Optional[CachedResult]:
    try:
        findings = tuple(_decode_finding(item) for item in entry["findings"])
        snippets = dict(entry["snippets"])
        if not all(isinstance(text, str) for text in snippets.values()):
            return None
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        return None
    return CachedResult(findings, snippets)


def _decode_finding(item: Dict[str, Any]) -> Finding:
    fix = None
    if item["fix"] is not None:
        edits = tuple(
            Edit(*_span(e["location"]), *_span(e["end_location"]), str(e["content"])) for e in item["fix"]["edits"]
        )
        fix = Fix(Applicability(item["fix"]["applicability"]), edits, str(item["fix"]["message"]))
    return Finding(
        str(item["code"]),
        str(item["name"]),
        str(item["message"]),
        str(item["path"]),
        *(_position(item[key]) for key in ("line", "column", "end_line", "end_column")),
        fix,
        str(item["url"]),
        None if item.get("cell") is None else _position(item["cell"]),
    )


def _span(location: Dict[str, Any]) -> Tuple[int, int]:
    return _position(location["line"]), _position(location["column"])


def _position(value: object) -> int:
    """A 1-based line, column or cell number as stored; anything else is a corrupt entry."""
    if type(value) is not int or value < 1:
        raise ValueError(f"not a position: {value!r}")
    return value


def clean_cache(directory: Path) -> bool:
    """Remove a cache directory that torchlint created (it holds torchlint's marker file);
    anything else is left alone. True if a cache was removed."""
    marker = directory / MARKER
    try:
        if marker.read_text() != MARKER_TEXT:
            return False
    except (OSError, UnicodeDecodeError):
        return False
    for child in directory.iterdir():
        name = child.name
        if name in (MARKER, ".gitignore") or name.startswith(TEMPORARY_PREFIX) or (name.startswith(("results-", "rules-")) and child.suffix == ".json"):
            child.unlink()
    try:
        directory.rmdir()
    except OSError:
        pass
    return True
