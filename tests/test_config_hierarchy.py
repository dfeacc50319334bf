"""Configuration resolved per checked file: nested configurations, `extend`, the working directory."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from torchlint.cli import main
from torchlint.config import CACHE_DIR_NAME

TRAIN = "import torch\nmodel = torch.nn.DataParallel(model, device_ids=[0, 1])\nfor x in loader:\n    total += model(x.cuda()).item()\noptimizer.zero_grad(set_to_none=False)\n"


def check(cwd: Path, *args: str):
    """Run `torchlint check` in `cwd`; return the result and the sorted (absolute path, code) pairs."""
    previous = os.getcwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(main, ["check", "--output-format", "json", *args])
    finally:
        os.chdir(previous)
    if not result.stdout.startswith("["):
        return result, None
    found = sorted(((cwd / d["path"]).resolve().as_posix(), d["code"]) for d in json.loads(result.stdout))
    return result, found


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """repo/pyproject.toml ignores TL401; repo/sub/pyproject.toml ignores TL501 as well."""
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    (repo / "pyproject.toml").write_text('[tool.torchlint]\nignore = ["TL401"]\n')
    (repo / "sub" / "pyproject.toml").write_text('[project]\nname = "sub"\n\n[tool.torchlint]\nignore = ["TL401", "TL501"]\n')
    (repo / "top.py").write_text(TRAIN)
    (repo / "sub" / "a.py").write_text(TRAIN)
    (tmp_path / "elsewhere").mkdir()
    return repo


def codes_of(found, name):
    return [code for path, code in found if path.endswith(name)]


def test_same_findings_from_any_directory(tree: Path):
    outside = tree.parent / "elsewhere"
    runs = [
        check(tree, "sub/a.py"),
        check(tree / "sub", "a.py"),
        check(outside, "../repo/sub/a.py"),
        check(outside, str(tree / "sub" / "a.py")),
    ]
    assert all(result.exit_code == 1 for result, _ in runs)
    assert {tuple(found) for _, found in runs} == {tuple(runs[0][1])}
    assert codes_of(runs[0][1], "a.py") == ["TL101"]


def test_each_file_follows_its_closest_configuration(tree: Path):
    _, found = check(tree)
    assert codes_of(found, "top.py") == ["TL101", "TL501"]
    assert codes_of(found, "sub/a.py") == ["TL101"]
    _, again = check(tree.parent / "elsewhere", str(tree))
    assert again == found


def test_a_pyproject_without_a_torchlint_table_is_passed_over(tree: Path):
    (tree / "sub" / "pyproject.toml").write_text('[project]\nname = "sub"\n')
    _, found = check(tree, "sub")
    assert codes_of(found, "a.py") == ["TL101", "TL501"]


def test_torchlint_toml_wins_over_pyproject_in_the_same_directory(tree: Path):
    (tree / "sub" / ".torchlint.toml").write_text('select = ["TL5"]\n')
    _, found = check(tree, "sub")
    assert codes_of(found, "a.py") == ["TL501"]


def test_extend_chains_configurations(tree: Path):
    (tree / "pyproject.toml").write_text(
        '[tool.torchlint]\nignore = ["TL401"]\ntorch-version = "1.13"\n[tool.torchlint.per-file-ignores]\n"a.py" = ["TL101"]\n'
    )
    (tree / "sub" / "pyproject.toml").write_text('[tool.torchlint]\nextend = "../pyproject.toml"\nextend-select = ["TL401"]\n')
    result, found = check(tree, "sub")
    # TL401 comes back (a later layer), TL101 stays ignored for a.py by the extended table.
    assert codes_of(found, "a.py") == ["TL401", "TL501"]
    settings = CliRunner().invoke(main, ["check", "--show-settings", str(tree / "sub" / "a.py")]).stdout
    assert "torch-version      1.13  [" + str(tree / "pyproject.toml") + "]" in settings
    assert f"configuration      {tree / 'sub' / 'pyproject.toml'}" in settings


def test_extend_cycle_and_missing_target_are_errors(tree: Path):
    (tree / "sub" / "pyproject.toml").write_text('[tool.torchlint]\nextend = "torchlint.toml"\n')
    (tree / "sub" / "torchlint.toml").write_text('extend = "pyproject.toml"\n')
    result, _ = check(tree, "sub/a.py")
    assert result.exit_code == 2 and "forms a cycle" in result.stderr
    (tree / "sub" / "torchlint.toml").unlink()
    (tree / "sub" / "pyproject.toml").write_text('[tool.torchlint]\nextend = "../nowhere.toml"\n')
    result, _ = check(tree, "sub/a.py")
    assert result.exit_code == 2 and "extend:" in result.stderr and "nowhere.toml not found" in result.stderr


@pytest.mark.parametrize(
    "body,message",
    [
        ("[tool.torchlint\n", "invalid TOML"),
        ('[tool.torchlint]\ncolour = "red"\n', "[tool.torchlint]: unknown key 'colour'"),
        ('[tool.torchlint]\nignore = ["TL9"]\n', "[tool.torchlint] ignore: unknown rule selector 'TL9'"),
        ('[tool.torchlint]\ndocs-url = "https://x"\n', "[tool.torchlint] docs-url: must contain {code}"),
    ],
)
def test_malformed_nested_configuration_names_file_and_key(tree: Path, body: str, message: str):
    (tree / "sub" / "pyproject.toml").write_text(body)
    result, _ = check(tree)
    assert result.exit_code == 2
    assert str(tree / "sub" / "pyproject.toml") in result.stderr and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_nested_excludes_apply_to_the_files_they_govern(tree: Path):
    (tree / "sub" / "gen").mkdir()
    (tree / "sub" / "gen" / "made.py").write_text(TRAIN)
    (tree / "sub" / "pyproject.toml").write_text('[tool.torchlint]\nextend-exclude = ["gen"]\n')
    _, found = check(tree)
    assert not [path for path, _ in found if "gen/" in path] and codes_of(found, "a.py")


def test_cache_lives_beside_the_governing_configuration(tree: Path):
    outside = tree.parent / "elsewhere"
    check(outside, str(tree))
    assert (tree / CACHE_DIR_NAME).is_dir() and (tree / "sub" / CACHE_DIR_NAME).is_dir()
    assert not (outside / CACHE_DIR_NAME).exists()
    check(outside, str(tree), "--cache-dir", "c")
    assert list((outside / "c").glob("results-*.json"))


def test_config_option_governs_every_file(tree: Path):
    (tree.parent / "only.toml").write_text('select = ["TL4"]\n')
    _, found = check(tree, "--config", "../only.toml")
    assert {code for _, code in found} == {"TL401"}


@pytest.mark.parametrize(
    "body,expected",
    [
        ('ignore = ["TL1"]\nextend-select = ["TL101"]\n', ["TL101", "TL501"]),
        ('ignore = ["TL101"]\nextend-select = ["TL1"]\n', ["TL501"]),
        ('select = ["TL1", "TL5"]\nignore = ["data-parallel"]\n', ["TL101"]),
        ('ignore = ["ALL"]\nextend-select = ["TL5"]\n', ["TL501"]),
    ],
)
def test_the_more_specific_selector_wins(tree: Path, body: str, expected):
    (tree / "sub" / "pyproject.toml").write_text("[tool.torchlint]\n" + body.replace('ignore = ["', 'ignore = ["TL401", "'))
    _, found = check(tree, "sub")
    assert codes_of(found, "a.py") == expected
