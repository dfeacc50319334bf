"""What ruff users reach for: file-level noqa, show-settings/show-files, fixable, output options."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from torchlint.cli import main

TRAIN = "import torch\nfor x in loader:\n    total += model(x.cuda()).item()\noptimizer.zero_grad(set_to_none=False)\n"


@pytest.fixture
def project(src_project) -> Path:
    return src_project(TRAIN)


def run(*args: str, env=None):
    return CliRunner().invoke(main, ["check", "--no-cache", *args], env=env)


def codes(*args: str, env=None):
    result = run("--output-format", "json", *args, env=env)
    return sorted({d["code"] for d in json.loads(result.stdout)})


@pytest.mark.parametrize(
    "header,expected",
    [
        ("# torchlint: noqa\n", []),
        ("# torchlint: noqa: TL101\n", ["TL401"]),
        ("# TorchLint: NOQA: tl101, TL401\n", []),
        ("x = 1  # torchlint: noqa\n", ["TL101", "TL401"]),
        ('"""\n# torchlint: noqa\n"""\n', ["TL101", "TL401"]),
        ("# torchlint: noqa: TL201\n", ["TL101", "TL401"]),
    ],
)
def test_file_level_noqa(project: Path, header: str, expected):
    (project / "src" / "train.py").write_text(header + TRAIN)
    assert codes() == expected


def test_show_settings_and_show_files(project: Path):
    (project / "pyproject.toml").write_text('[tool.torchlint]\nignore = ["TL401"]\nextend-exclude = ["gen"]\n')
    (project / "gen").mkdir()
    (project / "gen" / "made.py").write_text(TRAIN)
    shown = CliRunner().invoke(main, ["check", "--show-settings", "--torch-version", "1.13", "src/train.py"])
    assert shown.exit_code == 0
    lines = {line.split()[0]: line for line in shown.stdout.splitlines()}
    assert str(project / "pyproject.toml") in lines["configuration"]
    assert "ignore=['TL401']" in lines["rules"] and str(project / "pyproject.toml") in lines["rules"]
    assert lines["torch-version"].split()[1] == "1.13" and "[command line]" in lines["torch-version"]
    assert "[default]" in lines["min-severity"]
    assert "TL101" in lines["enabled"].split() and "TL401" not in lines["enabled"].split()
    files = CliRunner().invoke(main, ["check", "--show-files"])
    assert files.exit_code == 0 and files.stdout.split() == ["src/train.py"]


def test_unfixable_and_fixable(project: Path):
    listing = run("--output-format", "concise", "--unsafe-fixes", "--unfixable", "TL401").stdout
    assert "TL401 [*]" not in listing and "TL401 warning: `zero_grad" in listing
    (project / "pyproject.toml").write_text('[tool.torchlint]\nfixable = ["TL1"]\n')
    assert run("--fix").exit_code == 1
    assert (project / "src" / "train.py").read_text() == TRAIN
    assert "TL401 [*]" in run("--output-format", "concise", "--unsafe-fixes", "--extend-fixable", "TL401").stdout


def test_per_file_ignores_on_the_command_line(project: Path):
    (project / "pyproject.toml").write_text('[tool.torchlint.per-file-ignores]\n"src/*" = ["TL101"]\n')
    assert codes() == ["TL401"]
    assert codes("--per-file-ignores", "src/*:TL401") == ["TL101"]
    assert codes("--extend-per-file-ignores", "train.py:TL401") == []
    result = run("--per-file-ignores", "TL401")
    assert result.exit_code == 2 and "expected PATTERN:CODES" in result.stderr


def test_extend_per_file_ignores_adds_to_the_extended_table(project: Path):
    (project / "base.toml").write_text('[per-file-ignores]\n"src/*" = ["TL101"]\n')
    (project / "pyproject.toml").write_text('[tool.torchlint]\nextend = "base.toml"\n[tool.torchlint.extend-per-file-ignores]\n"train.py" = ["TL401"]\n')
    assert codes() == []
    (project / "pyproject.toml").write_text('[tool.torchlint]\nextend = "base.toml"\n[tool.torchlint.per-file-ignores]\n"train.py" = ["TL401"]\n')
    assert codes() == ["TL101"]


def test_output_format_from_configuration_environment_and_command_line(project: Path):
    (project / "pyproject.toml").write_text('[tool.torchlint]\noutput-format = "concise"\n')
    assert run().stdout.startswith("src/train.py:3:")
    assert run(env={"TORCHLINT_OUTPUT_FORMAT": "json"}).stdout.startswith("[")
    assert run("--output-format", "json-lines", env={"TORCHLINT_OUTPUT_FORMAT": "json"}).stdout.startswith('{"code"')
    shown = CliRunner().invoke(main, ["check", "--show-settings"], env={"TORCHLINT_OUTPUT_FORMAT": "json"}).stdout
    assert "[environment (TORCHLINT_OUTPUT_FORMAT)]" in shown
    (project / "pyproject.toml").write_text('[tool.torchlint]\noutput-format = "fancy"\n')
    result = run()
    assert result.exit_code == 2 and "output-format: must be one of" in result.stderr


def test_output_file_quiet_and_silent(project: Path):
    written = run("--output-format", "json", "-o", "report.json")
    assert written.exit_code == 1 and written.stdout == ""
    assert {d["code"] for d in json.loads((project / "report.json").read_text())} == {"TL101", "TL401"}
    quiet = run("-q", "--output-format", "concise")
    assert quiet.exit_code == 1 and "TL101" in quiet.stdout and quiet.stderr == ""
    silent = run("-s")
    assert silent.exit_code == 1 and silent.stdout == "" and silent.stderr == ""
    unwritable = run("-o", str(project / "missing" / "dir" / "report.txt"))
    assert unwritable.exit_code == 2 and "cannot write" in unwritable.stderr


def test_fix_only_and_exit_non_zero_on_fix(project: Path):
    result = run("--fix-only", "--unsafe-fixes")
    assert result.exit_code == 0 and "TL101" not in result.stdout
    assert "Fixed 1 finding" in result.stderr
    assert "zero_grad()" in (project / "src" / "train.py").read_text()
    (project / "src" / "zg.py").write_text("import torch\noptimizer.zero_grad(set_to_none=False)\n")
    assert run("--fix", "--unsafe-fixes", "src/zg.py").exit_code == 0
    (project / "src" / "zg.py").write_text("import torch\noptimizer.zero_grad(set_to_none=False)\n")
    assert run("--fix", "--unsafe-fixes", "--exit-non-zero-on-fix", "src/zg.py").exit_code == 1
    assert run("--fix", "--unsafe-fixes", "--exit-non-zero-on-fix", "src/zg.py").exit_code == 0


def test_environment_variables_for_cache_config_and_output_file(project: Path):
    (project / "only.toml").write_text('select = ["TL4"]\n')
    env = {"TORCHLINT_CACHE_DIR": "envcache", "TORCHLINT_CONFIG": "only.toml", "TORCHLINT_OUTPUT_FILE": "out.txt"}
    result = CliRunner().invoke(main, ["check", "--output-format", "concise"], env=env)
    assert result.exit_code == 1 and result.stdout == ""
    assert "TL401" in (project / "out.txt").read_text() and "TL101" not in (project / "out.txt").read_text()
    assert list((project / "envcache").glob("results-*.json"))
    CliRunner().invoke(main, ["check"], env={"TORCHLINT_NO_CACHE": "1"})
    assert not (project / ".torchlint_cache").exists()
