"""`[tool.torchlint]` in pyproject.toml, --config and --isolated."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from torchlint.cli import main
from torchlint.config import ConfigError, Resolver, Settings, parse_torch_version

TRAIN = "import torch\nfor x in loader:\n    total += model(x.cuda()).item()\noptimizer.zero_grad(set_to_none=False)\n"


def check(*args):
    result = CliRunner().invoke(main, ["check", "--output-format", "json", *args])
    codes = sorted({d["code"] for d in json.loads(result.stdout)}) if result.stdout.startswith("[") else None
    return result, codes


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "train.py").write_text(TRAIN)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write_config(project, body):
    (project / "pyproject.toml").write_text("[project]\nname = 'x'\n\n[tool.torchlint]\n" + body)


def test_select_and_ignore_from_pyproject(project):
    write_config(project, 'select = ["TL1"]\n')
    assert check()[1] == ["TL101"]
    write_config(project, 'ignore = ["sync-in-loop"]\n')
    assert check()[1] == ["TL401"]


def test_command_line_is_a_later_layer_as_in_ruff(project):
    write_config(project, 'select = ["TL1"]\nignore = ["TL401"]\n')
    # --select starts the selection over, the configured ignore included.
    assert check("--select", "TL401")[1] == ["TL401"]
    assert check("--select", "ALL")[1] == ["TL101", "TL401"]
    # Without --select the command line adjusts what the configuration chose.
    assert check("--extend-select", "TL4", "--ignore", "TL101")[1] == ["TL401"]
    assert check("--ignore", "TL101")[1] == []


def test_per_file_ignores(project):
    write_config(project, '[tool.torchlint.per-file-ignores]\n"src/*" = ["TL101"]\n"other.py" = ["TL4"]\n')
    assert check()[1] == ["TL401"]


def test_per_file_ignores_bare_file_name_matches_at_any_depth(project):
    write_config(project, '[tool.torchlint.per-file-ignores]\n"train.py" = ["TL1", "TL4"]\n')
    assert check()[1] == []


def test_exclude_and_extend_exclude(project):
    (project / "scripts").mkdir()
    (project / "scripts" / "old.py").write_text(TRAIN)
    write_config(project, 'extend-exclude = ["scripts"]\n')
    result, _ = check("--output-format", "concise")
    assert "scripts/old.py" not in result.stdout and "src/train.py" in result.stdout
    write_config(project, 'exclude = ["src"]\n')
    result, _ = check("--output-format", "concise")
    assert "src/train.py" not in result.stdout and "scripts/old.py" in result.stdout


def test_torch_version_key(project):
    (project / "src" / "train.py").write_text("import torch\noptimizer.zero_grad()\n")
    write_config(project, 'torch-version = "1.13"\n')
    assert check()[1] == ["TL401"]
    assert check("--torch-version", "2.1")[1] == []


def test_nearest_pyproject_with_a_torchlint_table(project, monkeypatch):
    write_config(project, 'select = ["TL4"]\n')
    (project / "src" / "pyproject.toml").write_text("[project]\nname = 'inner'\n")
    monkeypatch.chdir(project / "src")
    assert check()[1] == ["TL401"]


def test_isolated_ignores_configuration(project):
    write_config(project, 'select = ["TL4"]\n')
    assert check("--isolated")[1] == ["TL101", "TL401"]


def test_explicit_config_file(project, tmp_path_factory):
    other = tmp_path_factory.mktemp("cfg") / "torchlint.toml"
    other.write_text('select = ["TL101"]\n')
    assert check("--config", str(other), "src")[1] == ["TL101"]
    result, _ = check("--config", "nope.toml")
    assert result.exit_code == 2 and "configuration file not found" in result.stderr


@pytest.mark.parametrize(
    "body,message",
    [
        ("select = [\n", "invalid TOML"),
        ('select = "TL1"\n', "expected a list of strings"),
        ('colour = "red"\n', "unknown key 'colour'"),
        ('select = ["TL9"]\n', "unknown rule selector 'TL9'"),
        ('torch-version = "two"\n', "invalid torch-version"),
        ("per-file-ignores = 3\n", "expected a table"),
        ("torch-version = 1.10\n", "invalid torch-version 1.1"),
        ('torch-version = "1_13"\n', "invalid torch-version '1_13'"),
        ("select = []\n", "the rule selection is empty"),
        ('[tool.torchlint.per-file-ignores]\n"a.py" = ["TL9"]\n', "per-file-ignores 'a.py': unknown rule selector 'TL9'"),
    ],
)
def test_bad_configuration_is_one_line_and_exit_2(project, body, message):
    write_config(project, body)
    result = CliRunner().invoke(main, ["check"])
    assert result.exit_code == 2
    assert message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_min_severity(project, monkeypatch):
    from torchlint.engine.rule import Rule

    monkeypatch.setattr(Rule._registry["TL401"], "severity", "info")
    assert check()[1] == ["TL101"]  # severity info is advice, which is opt-in
    assert check("--select", "ALL")[1] == ["TL101", "TL401"]
    assert check("--select", "ALL", "--min-severity", "warning")[1] == ["TL101"]
    write_config(project, 'select = ["ALL"]\nmin-severity = "warning"\n')
    assert check()[1] == ["TL101"]
    assert check("--min-severity", "info")[1] == ["TL101", "TL401"]
    write_config(project, 'min-severity = "loud"\n')
    assert CliRunner().invoke(main, ["check"]).exit_code == 2


def test_min_impact(project):
    """TL101 (a sync every step) is high impact, TL401 (zero-filled gradients) medium."""
    assert check("--min-impact", "high")[1] == ["TL101"]
    write_config(project, 'min-impact = "high"\n')
    assert check()[1] == ["TL101"]
    assert check("--min-impact", "medium")[1] == ["TL101", "TL401"]
    assert check("--min-impact", "low")[1] == ["TL101", "TL401"]
    write_config(project, 'min-impact = "huge"\n')
    result = CliRunner().invoke(main, ["check"])
    assert result.exit_code == 2 and "min-impact must be one of low, medium, high" in result.stderr


def test_a_tool_key_that_is_not_a_table(project):
    (project / "pyproject.toml").write_text("tool = 3\n")
    result = CliRunner().invoke(main, ["check"])
    assert result.exit_code == 2 and "`tool` must be a table" in result.stderr


def test_empty_command_line_selection_is_an_error(project):
    result = CliRunner().invoke(main, ["check", "--select", ""])
    assert result.exit_code == 2 and "the rule selection is empty" in result.stderr


def test_per_file_ignores_with_a_dot_directory(project):
    (project / ".github").mkdir()
    (project / ".github" / "train.py").write_text(TRAIN)
    write_config(project, '[tool.torchlint.per-file-ignores]\n"./.github/*.py" = ["ALL"]\n"src/*" = ["ALL"]\n')
    result, found = check(".github/train.py")
    assert found == []


def test_settings_default_without_configuration(tmp_path):
    settings = Resolver(tmp_path).settings_for(tmp_path / "a.py")
    assert settings == Settings(root=tmp_path)
    assert settings.rule_layers[0].select == ("ALL",) and settings.torch_version >= (2, 0)


def test_parse_torch_version():
    assert parse_torch_version("1.13") == (1, 13)
    assert parse_torch_version("2") == (2, 0)
    assert parse_torch_version("2.4.1") == (2, 4)
    with pytest.raises(ConfigError):
        parse_torch_version("latest")
