"""The command line: output formats, selection, exit codes, statistics, colour."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from torchlint.config import DEFAULT_DOCS_URL
from torchlint.cli import main

BAD = "import torch\nfor x in loader:\n    total += model(x.cuda()).item()\n"
ZERO_GRAD = "import torch\noptimizer.zero_grad(set_to_none=False)\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    (tmp_path / "train.py").write_text(BAD)
    (tmp_path / "clean.py").write_text("import torch\nx = torch.zeros(3)\n")
    return tmp_path


def run(*args: str):
    return CliRunner().invoke(main, ["check", *args])


def test_findings_exit_1_with_full_output(project):
    result = run("train.py")
    assert result.exit_code == 1
    assert result.stdout.startswith("train.py:3:30: TL101 ")
    assert "3 |     total += model(x.cuda()).item()" in result.stdout
    assert "^^^^^^" in result.stdout
    assert "\n  = impact: high\n" in result.stdout
    assert "Found 1 finding" in result.stderr


def test_clean_exit_0(project):
    result = run("clean.py")
    assert result.exit_code == 0
    assert result.stdout == ""
    assert "All checks passed" in result.stderr


def test_default_path_is_the_current_directory(project):
    result = run("--output-format", "concise")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [f"train.py:3:30: TL101 warning: {json.loads(run('--output-format', 'json').stdout)[0]['message']}"]


def test_exit_zero(project):
    assert run("--exit-zero").exit_code == 0


def test_json_output_fields(project):
    (project / "zg.py").write_text(ZERO_GRAD)
    data = json.loads(run("--output-format", "json").stdout)
    assert [(d["path"], d["code"]) for d in data] == [("train.py", "TL101"), ("zg.py", "TL401")]
    finding = data[1]
    assert set(finding) == {"code", "name", "message", "path", "line", "column", "end_line", "end_column", "fix", "url", "cell", "severity", "impact"}
    assert (data[0]["impact"], finding["impact"]) == ("high", "medium")
    assert data[0]["severity"] == finding["severity"] == "warning"
    assert finding["cell"] is None
    assert (finding["line"], finding["column"], finding["end_line"], finding["end_column"]) == (2, 1, 2, 39)
    assert finding["fix"]["applicability"] == "unsafe"
    assert finding["fix"]["edits"] == [
        {"content": "optimizer.zero_grad()", "location": {"line": 2, "column": 1}, "end_location": {"line": 2, "column": 39}}
    ]
    assert data[0]["fix"] is None
    assert finding["url"] == DEFAULT_DOCS_URL.format(code="TL401")
    assert finding["url"].startswith("https://") and finding["url"].endswith("/docs/rules/TL401.md")


def test_fixable_marker_and_summary(project):
    (project / "zg.py").write_text(ZERO_GRAD)
    result = run("zg.py", "--unsafe-fixes", "--output-format", "concise")
    assert "TL401 [*] " in result.stdout
    assert "1 fixable with --fix" in result.stderr


def test_unsafe_fixes_are_counted_separately(project):
    (project / "dl.py").write_text("from torch.utils.data import DataLoader\nx = DataLoader(ds)\n")
    result = run("dl.py", "--output-format", "concise")
    assert "[*]" not in result.stdout and "1 more with --unsafe-fixes" in result.stderr
    result = run("dl.py", "--output-format", "concise", "--unsafe-fixes")
    assert "TL201 [*]" in result.stdout and "1 fixable with --fix" in result.stderr


@pytest.mark.parametrize(
    "args,expected",
    [
        (["--select", "TL401"], ["TL401"]),
        (["--select", "TL4"], ["TL401"]),
        (["--select", "sync-in-loop"], ["TL101"]),
        (["--select", "TL101,TL401"], ["TL101", "TL401"]),
        (["--ignore", "TL1"], ["TL401"]),
        (["--select", "TL101", "--extend-select", "grad-zeroing"], ["TL101", "TL401"]),
        (["--select", "ALL", "--ignore", "TL101", "--ignore", "TL401"], []),
    ],
)
def test_selection(project, args, expected):
    (project / "zg.py").write_text(ZERO_GRAD)
    data = json.loads(run("--output-format", "json", *args).stdout)
    assert sorted({d["code"] for d in data}) == expected


def test_unknown_selector_is_a_usage_error(project):
    result = run("--select", "TL999")
    assert result.exit_code == 2
    assert result.stderr.strip().startswith("torchlint: error: --select: unknown rule selector 'TL999'")


def test_statistics(project):
    (project / "zg.py").write_text(ZERO_GRAD + "model.zero_grad(set_to_none=False)\n")
    result = run("--statistics", "--unsafe-fixes")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == ["    1  TL101  sync-in-loop", "    2  TL401  grad-zeroing  [*]"]


def test_torch_version_option(project):
    (project / "old.py").write_text("import torch\noptimizer.zero_grad()\n")
    assert run("old.py").exit_code == 0
    result = run("old.py", "--torch-version", "1.13", "--output-format", "concise")
    assert result.exit_code == 1 and "TL401" in result.stdout
    assert run("old.py", "--torch-version", "abc").exit_code == 2


def test_color(project, monkeypatch):
    assert "\x1b[" in run("train.py", "--color", "always").stdout
    assert "\x1b[" not in run("train.py", "--color", "never").stdout
    assert "\x1b[" not in run("train.py").stdout  # not a terminal


def test_no_color_environment_variable(project, monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    from torchlint.cli import _use_color

    assert _use_color("auto") is False
    monkeypatch.delenv("NO_COLOR")
    assert _use_color("auto") is True


def test_jobs_give_the_same_result(project, monkeypatch):
    monkeypatch.setattr("torchlint.engine.runner.PARALLEL_MIN_BYTES", 0)
    for index in range(12):
        (project / f"m{index}.py").write_text(BAD * (index + 1))
    single = run("--jobs", "1", "--output-format", "json").stdout
    parallel = run("--jobs", "2", "--output-format", "json").stdout
    assert single == parallel and len(json.loads(single)) == sum(range(1, 13)) + 1


def test_missing_path_is_an_error_but_other_files_are_checked(project):
    result = run("train.py", "missing.py", "--output-format", "concise")
    assert result.exit_code == 2
    assert "missing.py: no such file or directory" in result.stderr
    assert "TL101" in result.stdout


def test_rule_command():
    result = CliRunner().invoke(main, ["rule", "TL101"])
    assert result.exit_code == 0
    assert result.stdout.startswith("# TL101 sync-in-loop")
    assert "## Why is this slow?" in result.stdout
    assert CliRunner().invoke(main, ["rule", "grad-zeroing"]).stdout.startswith("# TL401 grad-zeroing")
    listing = CliRunner().invoke(main, ["rule", "--all"]).stdout.splitlines()
    codes = [line.split()[0] for line in listing]
    assert codes == sorted(codes) and len(codes) == len(set(codes))
    assert {"TL000", "TL001", "TL101", "TL102", "TL201", "TL301", "TL401", "TL402", "TL501"} <= set(codes)
    assert listing[codes.index("TL101")].split()[1:5] == ["sync-in-loop", "warning", "high", "unsafe"]
    assert "Impact: high." in result.stdout
    assert CliRunner().invoke(main, ["rule", "TL999"]).exit_code == 2


def test_python_dash_m_and_no_torch_import(tmp_path):
    """Linting works where torch cannot be imported, and never imports it."""
    (tmp_path / "train.py").write_text(BAD)
    blocker = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'torch' or name.startswith('torch.'):\n"
        "            raise ImportError('torch is blocked')\n"
        "sys.meta_path.insert(0, Block())\n"
        "import runpy\n"
        "sys.argv = ['torchlint', 'check', '--jobs', '1', 'train.py']\n"
        "try:\n"
        "    runpy.run_module('torchlint', run_name='__main__')\n"
        "finally:\n"
        "    assert 'torch' not in sys.modules\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    result = subprocess.run([sys.executable, "-c", blocker], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert result.returncode == 1, result.stderr
    assert "TL101" in result.stdout


def test_exclude_options_on_the_command_line(project):
    (project / "gen").mkdir()
    (project / "gen" / "model.py").write_text(BAD)
    (project / "venv").mkdir()
    (project / "venv" / "lib.py").write_text(BAD)

    def paths(*args):
        return sorted({d["path"] for d in json.loads(run("--output-format", "json", "--no-cache", *args).stdout)})

    assert paths() == ["gen/model.py", "train.py"]
    assert paths("--extend-exclude", "gen") == ["train.py"]
    assert paths("--exclude", "train.py") == ["gen/model.py", "venv/lib.py"]
    assert paths("--extend-exclude", "gen", "gen/model.py") == ["gen/model.py"]
    assert paths("--extend-exclude", "gen", "--force-exclude", "gen/model.py", "train.py") == ["train.py"]
