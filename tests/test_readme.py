"""The README's commands and snippets parse and name hooks, flags and files that exist."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path
from typing import List, Tuple

import click
from click.testing import CliRunner
import pytest
import yaml

from torchlint import __version__
from torchlint.cli import main
from torchlint.config import REPOSITORY

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text()
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
TAG = f"v{__version__}"


def blocks(language: str) -> List[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", README, flags=re.DOTALL | re.MULTILINE)


def torchlint_commands() -> List[List[str]]:
    """Every `torchlint ...` command line in the README's shell, text and YAML blocks."""
    lines = [line for language in ("bash", "text") for block in blocks(language) for line in block.splitlines()]
    for block in blocks("yaml"):
        lines += [step["run"] for job in (yaml.safe_load(block) or {}).get("jobs", {}).values() for step in job["steps"] if "run" in step]
    commands = []
    for line in lines:
        for part in re.split(r"&&|;", line.split(" #")[0]):
            words = shlex.split(part.split(" > ")[0].split(" < ")[0])
            # Synopses such as `torchlint check [PATHS]...` are covered by the flag test.
            if words and words[0] == "torchlint" and not any(word.startswith("[") for word in words):
                commands.append(words[1:])
    return commands


def test_version_is_the_same_everywhere():
    assert PYPROJECT["project"]["version"] == __version__
    assert PYPROJECT["project"]["urls"]["Repository"] == REPOSITORY


def test_pre_commit_snippet_names_the_repository_a_release_tag_and_an_existing_hook():
    hooks = {hook["id"] for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    configs = [yaml.safe_load(block) for block in blocks("yaml") if "repos:" in block]
    assert configs
    for config in configs:
        for repo in config["repos"]:
            assert repo["repo"] == REPOSITORY and repo["rev"] == TAG
            assert {hook["id"] for hook in repo["hooks"]} <= hooks


def test_install_commands_use_the_git_tag_until_the_package_is_published():
    installs = re.findall(r"pip install (.+)", README)
    assert installs
    for install in installs:
        words = shlex.split(install.split(" #")[0].split(" && ")[0])
        for word in words:
            if word.startswith("torchlint"):
                assert re.fullmatch(rf"torchlint(\[[a-z,]+\])? @ git\+{re.escape(REPOSITORY)}@{re.escape(TAG)}", word), install
    assert "not published on PyPI" in README


def test_constraints_claim_is_true():
    assert "torch==2.13.0" in (REPO / "constraints.txt").read_text().split()
    assert "`torch==2.13.0`" in README and "CPU build of torch pinned" not in README


@pytest.mark.parametrize("words", torchlint_commands(), ids=lambda words: " ".join(words)[:60])
def test_readme_commands_parse(words: List[str]):
    command = main.commands[words[0]]
    with click.Context(main, info_name="torchlint") as parent:
        command.make_context(words[0], list(words[1:]), parent=parent)


def _all_options() -> set:
    names = {"--help", "-h"}
    for command in (main, *main.commands.values()):
        for parameter in command.params:
            if isinstance(parameter, click.Option):
                names.update(parameter.opts + parameter.secondary_opts)
    return names


def test_every_flag_the_readme_mentions_exists():
    mentioned = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", README))
    mentioned -= {"--index-url", "--extra-index-url", "--ref", "--all-files"}
    assert mentioned - _all_options() == set()


def _paths() -> List[Tuple[str, str]]:
    candidates = re.findall(r"\]\(((?:docs|benchmarks|examples|fixtures|tests|rules|torchlint)/[^)#]*)\)", README)
    candidates += re.findall(r"`((?:docs|benchmarks|examples)/[\w./-]+)`", README)
    candidates += re.findall(r"`([\w-]+\.(?:txt|toml|yaml|md))`", README)
    return [(path, path) for path in candidates if not path.startswith("docs/rules/TL") and "*" not in path]


@pytest.mark.parametrize("path", sorted({path for path, _ in _paths()}))
def test_files_the_readme_names_exist(path: str):
    if path in ("pyproject.toml", "torchlint.toml", ".torchlint.toml", "requirements.txt", "gpu-results.md", "docs/gpu-results.md", ".pre-commit-config.yaml"):
        pytest.skip("a file of the user's project, or one the README says does not exist yet")
    assert (REPO / path).exists(), path


def test_the_finding_shown_is_what_check_prints(monkeypatch):
    """The README's example finding (code, severity, message, source line, caret, impact)."""
    (example,) = [block for block in blocks("text") if block.startswith("examples/train.py:")]
    monkeypatch.chdir(REPO)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--color", "never", "examples/"])
    assert example in result.stdout
