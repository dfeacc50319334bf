"""Baselines: record today's findings once, then report only new ones.

A finding's fingerprint is its rule code, its file's path relative to the baseline file, the
flagged source line with whitespace normalised, and the qualified name of the function (or
class) around it. Line numbers are left out, so edits elsewhere in the file keep every
fingerprint; the same fingerprint may occur several times, and a run reports the
occurrences beyond the recorded count.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
from collections import Counter
from pathlib import Path
from typing import Dict, List, Mapping, Sequence, Tuple

from torchlint.engine.findings import Finding
from torchlint.files.source import UndecodableSource, decode_source
from torchlint.files.writer import write_atomic

FORMAT = 1


class BaselineError(ValueError):
    """A baseline file that cannot be read; one line, exit code 2."""


def enclosing_scopes(text: str) -> List[Tuple[int, int, str]]:
    """(first line, last line, qualified name) of every function and class, outermost first."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    scopes: List[Tuple[int, int, str]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                scopes.append((child.lineno, child.end_lineno or child.lineno, name))
                visit(child, name + ".")
            else:
                visit(child, prefix)

    visit(tree, "")
    return scopes


def _scope_of(line: int, scopes: Sequence[Tuple[int, int, str]]) -> str:
    inside = [name for first, last, name in scopes if first <= line <= last]
    return inside[-1] if inside else ""


class Fingerprinter:
    """Fingerprints of findings; each checked file is read at most once for its scopes."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self._scopes: Dict[str, List[Tuple[int, int, str]]] = {}

    def __call__(self, finding: Finding, snippets: Mapping[str, Mapping[str, str]]) -> str:
        line = snippets.get(finding.path, {}).get(finding.snippet_key, "")
        scope = "" if finding.cell is not None else _scope_of(finding.line, self._file_scopes(finding.path))
        material = "\0".join((finding.code, self.relative(finding.path), " ".join(line.split()), scope))
        return hashlib.sha256(material.encode("utf-8", "surrogatepass")).hexdigest()[:24]

    def relative(self, path: str) -> str:
        try:
            return Path(os.path.relpath(os.path.abspath(path), self.base)).as_posix()
        except ValueError:
            return Path(path).as_posix()

    def _file_scopes(self, path: str) -> List[Tuple[int, int, str]]:
        if path not in self._scopes:
            try:
                with open(path, "rb") as handle:
                    self._scopes[path] = enclosing_scopes(decode_source(handle.read()).text)
            except (OSError, UndecodableSource):
                self._scopes[path] = []
        return self._scopes[path]


def load(path: Path) -> Counter[str]:
    """The recorded fingerprints and how often each occurs."""
    try:
        document = json.loads(path.read_bytes())
        if not isinstance(document, dict) or document.get("torchlint-baseline") != FORMAT:
            raise ValueError("not a torchlint baseline")
        return Counter({str(item["fingerprint"]): int(item["count"]) for item in document["findings"]})
    except FileNotFoundError:
        raise BaselineError(f"{path}: baseline not found (create it with --update-baseline)") from None
    except OSError as error:
        raise BaselineError(f"{path}: cannot read: {error.strerror or error}") from None
    except (ValueError, KeyError, TypeError) as error:
        raise BaselineError(f"{path}: not a torchlint baseline ({error})") from None


def new_findings(findings: Sequence[Finding], snippets: Mapping[str, Mapping[str, str]], baseline: Counter[str], base: Path) -> List[Finding]:
    """The findings beyond those the baseline records."""
    fingerprint = Fingerprinter(base)
    remaining = Counter(baseline)
    new = []
    for finding in findings:
        key = fingerprint(finding, snippets)
        if remaining[key] > 0:
            remaining[key] -= 1
        else:
            new.append(finding)
    return new


def save(path: Path, findings: Sequence[Finding], snippets: Mapping[str, Mapping[str, str]]) -> None:
    """Write the baseline of `findings` (sorted, so that it diffs well under version control)."""
    fingerprint = Fingerprinter(path.absolute().parent)
    counts: Counter[Tuple[str, str, str]] = Counter(
        (fingerprint.relative(f.path), f.code, fingerprint(f, snippets)) for f in findings
    )
    items = [{"path": p, "code": c, "fingerprint": k, "count": n} for (p, c, k), n in sorted(counts.items())]
    text = json.dumps({"torchlint-baseline": FORMAT, "findings": items}, indent=2) + "\n"
    try:
        write_atomic(str(path), text.encode())
    except OSError as error:
        raise BaselineError(f"{path}: cannot write: {error.strerror or error}") from None
