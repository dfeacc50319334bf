"""Shared helpers: lint a snippet with chosen rules."""

from __future__ import annotations

import json
import os
import textwrap
from typing import Dict, List, Optional, Sequence, Tuple

import pytest
from click.testing import CliRunner

from torchlint.engine.context import Options
from torchlint.engine.findings import Finding
from torchlint.engine.linter import lint_text
from torchlint.cli import main
from torchlint.engine.rule import all_rules


def lint(code: str, select: Optional[Sequence[str]] = None, torch_version: Tuple[int, int] = (2, 13)) -> List[Finding]:
    """Findings of the selected rules (all by default) in a dedented snippet."""
    rules = [rule for rule in all_rules() if select is None or rule.code in select]
    return list(lint_text(textwrap.dedent(code), "snippet.py", rules, preview_options(torch_version)).findings)


def preview_options(*args: object, **kwargs: object) -> Options:
    """Lint options in the tests' mode: preview variants of stable rules report, as preview
    rules run, unless the test is marked `stable_only` (see `_preview_rules_on`)."""
    kwargs.setdefault("preview", bool(os.environ.get("TORCHLINT_PREVIEW")))
    return Options(*args, **kwargs)  # type: ignore[arg-type]


def codes(code: str, select: Optional[Sequence[str]] = None, **kwargs: object) -> List[str]:
    return [finding.code for finding in lint(code, select, **kwargs)]  # type: ignore[arg-type]


def lines(code: str, rule: str) -> List[int]:
    """Line numbers of one rule's findings."""
    return [finding.line for finding in lint(code, [rule])]


def in_step_loop(code: str) -> str:
    """The snippet as the body of a step loop; its first (blank) line becomes the loop
    header, so line numbers stay as written."""
    body = textwrap.dedent(code)
    assert body.startswith("\n")
    return "for batch in loader:" + textwrap.indent(body, "    ")


@pytest.fixture
def lint_code():
    return lint


@pytest.fixture
def src_project(tmp_path, monkeypatch):
    """A function that writes `src/train.py` with the given source, changes into the
    project directory and returns it."""

    def make(source: str):
        (tmp_path / "src").mkdir(exist_ok=True)
        (tmp_path / "src" / "train.py").write_text(source)
        monkeypatch.chdir(tmp_path)
        return tmp_path

    return make


def _cuda_available() -> bool:
    try:
        import torch
    except ImportError:
        return False
    return bool(torch.cuda.is_available())


def pytest_collection_modifyitems(config: pytest.Config, items: List[pytest.Item]) -> None:
    """Tests marked `gpu` need a CUDA device: skipped where torch sees none (or is not installed)."""
    gpu_tests = [item for item in items if item.get_closest_marker("gpu")]
    if gpu_tests and not _cuda_available():
        for item in gpu_tests:
            item.add_marker(pytest.mark.skip(reason="needs a CUDA device"))


@pytest.fixture(autouse=True)
def _preview_rules_on(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rule tests exercise every rule, preview ones included: the command line (and the
    processes tests start) run with `TORCHLINT_PREVIEW=1`. Tests marked `stable_only` see
    the default selection, as a user does."""
    if request.node.get_closest_marker("stable_only") is None:
        monkeypatch.setenv("TORCHLINT_PREVIEW", "1")
    else:
        monkeypatch.delenv("TORCHLINT_PREVIEW", raising=False)


def write(root, relative: str, text: str) -> str:
    """Write the dedented `text` to `root/relative` (making directories) and return the path."""
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return str(path)


def project_findings(tmp_path, monkeypatch, files: Dict[str, str], rules: str, marker: str = "setup.py") -> set:
    """(file name, code, line) of the default-mode findings of `rules` on a small project
    made of `files` (`marker` marks its root: an installable package's `setup.py`, or a
    program's `.git` directory), checked from the command line."""
    if marker == ".git":
        (tmp_path / ".git").mkdir(exist_ok=True)
    else:
        (tmp_path / marker).write_text("")
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", rules, "--output-format", "json", "."])
    return {(item["path"].split("/")[-1], item["code"], item["line"]) for item in json.loads(result.stdout)}
