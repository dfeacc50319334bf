"""A persistent result cache: unchanged files are not parsed again.

Results are stored per file, keyed by the file's content digest and the rule codes enabled
for it, in one JSON file per engine fingerprint (torchlint's version and code, and the
settings that change results). A file whose size and modification time are unchanged is
trusted without reading it; otherwise its content digest decides. The JSON file is replaced
atomically, so concurrent runs never corrupt it (the last writer wins), and a truncated or
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
from torchlint.files.writer import write_atomic

CACHE_DIR_NAME = ".torchlint_cache"
MARKER = "CACHEDIR.TAG"
# The Cache Directory Tagging Specification's signature, which backup tools honour.
MARKER_TEXT = "Signature: 8a477f597d28d172789f06886806bc55\n# This directory is a cache created by torchlint.\n"
_FORMAT = 2
_RACY_NS = 2_000_000_000


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


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
        if tuple(entry.get("stat", ())) != stat_key:
            try:
                with open(path, "rb") as handle:
                    current = digest(handle.read())
            except OSError:
                return None
            if current != entry.get("digest"):
                return None
            entry["stat"] = list(stat_key)
            self.changed = True
        return _decode_result(entry)

    def store(self, path: str, codes: FrozenSet[str], content_digest: str, result: CachedResult) -> None:
        """Remember a fresh result; `content_digest` is the digest of the bytes that were checked."""
        stat_key = self.stats.get(path)
        if stat_key is None or not content_digest:
            return
        # A file modified within the clock's granularity of now could change again without
        # its (mtime, size) changing: store no stat so that the next run compares digests.
        recent = time.time_ns() - stat_key[0] < _RACY_NS
        self.entries[path] = {
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


def _codes_key(codes: FrozenSet[str]) -> str:
    return ",".join(sorted(codes))


def _load(file: Path) -> Dict[str, Dict[str, Any]]:
    """The entries of a cache file; an unreadable, truncated or foreign file counts as empty."""
    try:
        with open(file, "rb") as handle:
            document = json.loads(handle.read())
        if isinstance(document, dict) and document.get("format") == _FORMAT and isinstance(document.get("entries"), dict):
            return {key: value for key, value in document["entries"].items() if isinstance(value, dict)}
    except (OSError, ValueError):
        pass
    return {}


def _decode_result(entry: Dict[str, Any]) -> Optional[CachedResult]:
    try:
        findings = tuple(_decode_finding(item) for item in entry["findings"])
        snippets = {str(key): str(text) for key, text in entry["snippets"].items()}
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    return CachedResult(findings, snippets)


def _decode_finding(item: Dict[str, Any]) -> Finding:
    fix = None
    if item["fix"] is not None:
        edits = tuple(
            Edit(e["location"]["line"], e["location"]["column"], e["end_location"]["line"], e["end_location"]["column"], str(e["content"]))
            for e in item["fix"]["edits"]
        )
        fix = Fix(Applicability(item["fix"]["applicability"]), edits, str(item["fix"]["message"]))
    return Finding(
        str(item["code"]),
        str(item["name"]),
        str(item["message"]),
        str(item["path"]),
        int(item["line"]),
        int(item["column"]),
        int(item["end_line"]),
        int(item["end_column"]),
        fix,
        str(item["url"]),
        None if item.get("cell") is None else int(item["cell"]),
    )


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
        if child.name in (MARKER, ".gitignore") or (child.name.startswith(("results-", "rules-")) and child.suffix == ".json"):
            child.unlink()
    try:
        directory.rmdir()
    except OSError:
        pass
    return True
