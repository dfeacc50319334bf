"""The README's commands and snippets parse and name hooks, flags and files that exist."""

from __future__ import annotations

import re
import shlex
import sys
from importlib import metadata
from pathlib import Path
from typing import List, Tuple

import click
from click.testing import CliRunner
import pytest
import yaml

from torchlint import __version__
from torchlint.cli import main
from torchlint.config import DEFAULT_DOCS_URL, REPOSITORY
from torchlint.engine.rule import all_rules
from torchlint.files.syntax import MAX_NESTING

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text()
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())


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


def test_the_version_is_written_once():
    """pyproject.toml reads it from torchlint/__init__.py; the installed metadata agrees."""
    assert "version" not in PYPROJECT["project"] and "version" in PYPROJECT["project"]["dynamic"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "torchlint.__version__"}
    assert metadata.version("torchlint") == __version__
    assert PYPROJECT["project"]["urls"]["Repository"] == REPOSITORY


def test_pre_commit_snippet_runs_the_hook_the_repository_defines():
    """A local hook (no release tag exists for `rev`) with the same command and file types
    as the hook in .pre-commit-hooks.yaml, run from the environment torchlint is installed in."""
    (defined,) = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    (config,) = pre_commit_configs()
    (repo,) = config["repos"]
    assert repo["repo"] == "local" and "rev" not in repo
    (hook,) = repo["hooks"]
    assert hook["language"] == "system"
    assert {key: value for key, value in hook.items() if key != "language"} == {
        key: value for key, value in defined.items() if key not in ("language", "description")
    }


def pre_commit_configs() -> List[dict]:
    return [yaml.safe_load(block) for block in blocks("yaml") if "repos:" in block]


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


# What users read: the README and every page in docs/ (the rule pages included).
PAGES = [REPO / "README.md", REPO / "CHANGELOG.md", *sorted((REPO / "docs").rglob("*.md"))]
# Pages the README links to before they exist: written by a command, never by hand.
NOT_WRITTEN_YET = {REPO / "docs" / "gpu-results.md"}


def _prose(page: Path) -> str:
    """The page without its fenced code blocks (where `#` lines are no headings) and inline code
    (where `layers[i](x)` is no link)."""
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL | re.MULTILINE)
    return re.sub(r"`[^`\n]*`", "", text)


def _torchlint_requirements(page: Path) -> List[str]:
    """What each `pip install` on the page (code blocks, inline code, messages in code) asks
    for under the name torchlint; paths such as `/path/to/torchlint[server]` are not names."""
    return [
        requirement
        for line in re.findall(r"pip install ([^`\n]+)", page.read_text(encoding="utf-8"))
        for requirement in re.findall(
            r"(?<![\w/.-])(torchlint(?:\[[a-z,]+\])?(?: @ [^\s'\"`]+|==[\w.]+)?)", re.split(r"\s(?:&&|;|#|\|)", line)[0]
        )
    ]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(REPO)))
def test_install_snippets_name_only_what_exists_before_a_release(page: Path):
    """torchlint is not on PyPI and has no tag: a requirement named torchlint installs the
    `main` branch of the repository, with extras the package defines. Only the release
    checklist speaks of later versions, as `X.Y.Z`."""
    extras = set(PYPROJECT["project"]["optional-dependencies"])
    requirements = _torchlint_requirements(page)
    assert requirements or page != REPO / "README.md"
    for requirement in requirements:
        if "X.Y.Z" in requirement:
            assert page.name == "release.md", requirement
            continue
        match = re.fullmatch(rf"torchlint(?:\[([a-z,]+)\])? @ git\+{re.escape(REPOSITORY)}@main", requirement)
        assert match, f"{page.name}: pip install {requirement}"
        assert set((match[1] or "").split(",")) - {""} <= extras, requirement


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(REPO)))
def test_no_page_names_a_release_tag(page: Path):
    text = page.read_text(encoding="utf-8")
    assert not re.findall(r"(?:torchlint@|rev:\s*|--ref\s+|torchlint/(?:blob|tree|releases/tag)/)v\d", text)
    assert "v" + __version__ not in text


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _links() -> List[Tuple[Path, str]]:
    return [(page, link) for page in PAGES for link in re.findall(r"\]\(([^)\s]+)\)", _prose(page))
            if not re.match(r"[a-z]+:", link)]


@pytest.mark.parametrize(("page", "link"), _links(), ids=lambda value: value if isinstance(value, str) else value.name)
def test_every_relative_link_resolves(page: Path, link: str):
    """To a file or folder of the repository and, with `#anchor`, to a heading of that page."""
    path, _, anchor = link.partition("#")
    target = (page.parent / path).resolve() if path else page
    if target in NOT_WRITTEN_YET and not target.exists():
        pytest.skip(f"{target.name} is written by a command that has not run yet")
    assert target.exists(), f"{page.name}: {link}"
    if anchor:
        headings = re.findall(r"^#+ (.+)$", _prose(target), flags=re.MULTILINE)
        assert anchor in {_slug(heading) for heading in headings}, f"{page.name}: {link}"


def _claimed_pythons() -> List[str]:
    prefix = "Programming Language :: Python :: "
    return [c[len(prefix):] for c in PYPROJECT["project"]["classifiers"] if re.fullmatch(re.escape(prefix) + r"3\.\d+", c)]


def test_the_supported_pythons_are_those_ci_tests_and_the_readme_names():
    """The classifiers are the list: `.ci/run` tests the versions they name, the README names
    the same ones, and `requires-python` starts at the first."""
    claimed = _claimed_pythons()
    assert claimed == sorted(claimed, key=lambda version: int(version.split(".")[1])) and len(claimed) >= 2
    assert PYPROJECT["project"]["requires-python"] == f">={claimed[0]}"
    assert "classifiers" in (REPO / ".ci" / "run").read_text()
    named = ", ".join(claimed[:-1]) + f" and {claimed[-1]}"
    assert f"torchlint supports Python {named}, and CI runs the test suite on each" in " ".join(README.split())


def _actions_workflow() -> dict:
    (workflow,) = [yaml.safe_load(block) for block in blocks("yaml") if "jobs:" in block]
    return workflow


def test_actions_snippet_grants_what_checkout_and_the_sarif_upload_need():
    (job,) = _actions_workflow()["jobs"].values()
    assert job["permissions"] == {"contents": "read", "security-events": "write", "actions": "read"}


def test_actions_snippet_gives_forks_annotations_and_uploads_sarif_from_the_repository_only():
    """A pull request from a fork gets a read-only token that cannot upload SARIF: the
    annotation step runs for every event, the SARIF steps not for forks."""
    (job,) = _actions_workflow()["jobs"].values()
    annotations = [step for step in job["steps"] if "--output-format github" in step.get("run", "")]
    sarif = [step for step in job["steps"] if "sarif" in step.get("run", "") or "upload-sarif" in step.get("uses", "")]
    assert len(annotations) == 1 and "if" not in annotations[0]
    assert len(sarif) == 2 and all(step["if"] == "always() && !github.event.pull_request.head.repo.fork" for step in sarif)


def test_release_workflow_builds_checks_and_publishes_a_version_tag():
    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "release.yml").read_text())
    assert workflow[True] == {"push": {"tags": ["v*"]}}  # YAML reads the key `on` as true
    build, publish = workflow["jobs"]["build"], workflow["jobs"]["publish"]
    runs = [step.get("run", "") for step in build["steps"]]
    assert any(".ci/artifacts dist" in run for run in runs)
    assert any('dist/torchlint-${GITHUB_REF_NAME#v}.tar.gz' in run for run in runs)
    artifacts = (REPO / ".ci" / "artifacts").read_text()
    assert "-m build" in artifacts and "twine check --strict" in artifacts
    assert publish["needs"] == "build" and publish["permissions"] == {"id-token": "write"}
    assert publish["steps"][-1]["uses"] == "pypa/gh-action-pypi-publish@release/v1"


def test_changelog_and_readme_counts_are_true():
    changelog = " ".join((REPO / "CHANGELOG.md").read_text().split())
    assert f"{len(all_rules())} rules" in changelog
    assert f"nested more than {MAX_NESTING:,} levels" in changelog
    assert f"nests more than {MAX_NESTING:,} levels deep (an operator chain of {MAX_NESTING:,} terms" in " ".join(README.split())


def test_finding_urls_point_at_pages_on_main():
    """JSON `url`, SARIF `helpUri` and the language server's links: a page of docs/rules on the
    default branch (no tag exists to name)."""
    for rule in all_rules():
        url = DEFAULT_DOCS_URL.format(code=rule.code)
        assert url == f"{REPOSITORY}/blob/main/{rule.doc_url()}" and (REPO / rule.doc_url()).is_file()
