"""What ruff users reach for: file-level noqa, show-settings/show-files, fixable, output
options, --fix --diff, --ignore-noqa, --no-respect-gitignore, --config KEY=VALUE, -v,
--watch and shell completion."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from torchlint import cli
from torchlint.cli import main
from torchlint.watch import Watcher

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


# --- --fix --diff, --ignore-noqa, --no-respect-gitignore ---


def test_fix_with_diff_prints_the_diff_and_writes_nothing(project: Path):
    """As ruff: `--diff` shows what `--fix` (or `--fix-only`) would change; exit 1 when it would."""
    for fix in ("--fix", "--fix-only"):
        result = run(fix, "--diff", "--unsafe-fixes")
        assert result.exit_code == 1
        assert "-optimizer.zero_grad(set_to_none=False)\n+optimizer.zero_grad()\n" in result.stdout
        assert "Would fix 1 finding in 1 file." in result.stderr
        assert (project / "src" / "train.py").read_text() == TRAIN
    nothing = run("--fix", "--diff")  # TL401's fix is unsafe: nothing to change
    assert (nothing.exit_code, nothing.stdout) == (0, "")


def test_add_noqa_is_not_combined_with_fixing(project: Path):
    for other in ("--fix", "--diff", "--ignore-noqa"):
        result = run("--add-noqa", other)
        assert result.exit_code == 2 and "--add-noqa cannot be combined" in result.stderr
    assert (project / "src" / "train.py").read_text() == TRAIN


def test_ignore_noqa_reports_what_noqa_comments_suppress(project: Path):
    suppressed = TRAIN.replace("set_to_none=False)\n", "set_to_none=False)  # noqa: TL401\n")
    (project / "src" / "train.py").write_text(suppressed + "x = 1  # noqa: TL102\n")
    assert codes("--extend-select", "TL001") == ["TL001", "TL101"]
    # Every comment is ignored: TL401 comes back, and no directive is judged unused.
    assert codes("--extend-select", "TL001", "--ignore-noqa") == ["TL101", "TL401"]


def test_no_respect_gitignore_checks_ignored_files(project: Path):
    (project / ".git").mkdir()
    (project / ".gitignore").write_text("generated/\n")
    (project / "generated").mkdir()
    (project / "generated" / "gen.py").write_text(TRAIN)
    listed = run("--show-files").stdout.splitlines()
    assert listed == ["src/train.py"]
    listed = run("--show-files", "--no-respect-gitignore").stdout.splitlines()
    assert listed == ["generated/gen.py", "src/train.py"]
    (project / "pyproject.toml").write_text("[tool.torchlint]\nrespect-gitignore = false\n")
    assert len(run("--show-files").stdout.splitlines()) == 2
    assert "respect-gitignore  false  [command line]" in run("--show-settings", "--no-respect-gitignore").stdout


# --- --config KEY=VALUE ---


def test_config_pairs_override_keys_of_the_configuration(project: Path):
    (project / "pyproject.toml").write_text('[tool.torchlint]\nselect = ["TL1"]\noutput-format = "concise"\n')
    assert codes() == ["TL101"]
    assert codes("--config", 'select = ["TL4"]') == ["TL401"]
    # A later pair wins; the options beside them apply on top.
    assert codes("--config", 'select=["TL4"]', "--config", 'select=["TL1", "TL4"]', "--ignore", "TL1") == ["TL401"]
    settings = run("--show-settings", "--config", "min-impact = 'high'").stdout
    assert "min-impact         high  [command line (--config)]" in settings


def test_config_pair_beside_a_configuration_file(project: Path):
    (project / "only.toml").write_text('select = ["TL4"]\n')
    assert codes("--config", "only.toml") == ["TL401"]
    assert codes("--config", "only.toml", "--config", "extend-select = ['TL1']") == ["TL101", "TL401"]
    (project / "other.toml").write_text('select = ["TL1"]\n')
    twice = run("--config", "only.toml", "--config", "other.toml")
    assert twice.exit_code == 2 and "give at most one" in twice.stderr


@pytest.mark.parametrize(
    "pair, message",
    [
        ("colour = 'red'", "--config: unknown key 'colour' (known: cache-dir,"),
        ("output-format = 'fancy'", "--config output-format: must be one of concise, full, github, gitlab, grouped, json"),
        ("min-severity = 'loud'", "--config: min-severity must be one of info, warning, error"),
        ("preview = 'yes'", "--config preview: expected true or false"),
        ("extend = 'other.toml'", "--config: unknown key 'extend'"),
        ("select = ", "--config 'select = ': neither a configuration file nor a TOML `KEY = VALUE` pair"),
    ],
)
def test_config_pair_errors_name_the_key_and_the_valid_values(project: Path, pair: str, message: str):
    result = run("--config", pair)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"torchlint: error: {message}") and len(result.stderr.splitlines()) == 1


# --- -v/--verbose ---


def test_verbose_logs_configuration_files_cache_and_timings(project: Path):
    (project / "pyproject.toml").write_text("[tool.torchlint]\n")
    quiet = CliRunner().invoke(main, ["check", "--output-format", "concise"])
    assert "[" not in quiet.stderr.splitlines()[0]
    log = CliRunner().invoke(main, ["check", "-v", "--output-format", "concise"]).stderr
    assert f"configuration {project / 'pyproject.toml'} (root {project}) governs 1 file" in log
    assert "to check: src/train.py (" in log
    assert re.search(r"found 1 file in \d+\.\d{3} s", log) and re.search(r"checked 1 file in \d+\.\d{3} s", log)
    assert "answered 1 of 1 files" in log  # the first run above filled the cache
    assert "Found 2 findings" in log


# --- --watch ---


def test_watch_checks_again_after_a_change(project: Path, monkeypatch: pytest.MonkeyPatch):
    """The watcher polls; the test's sleep edits the file once, and the loop is bounded."""
    sleeps = []

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        if len(sleeps) == 2:
            (project / "src" / "train.py").write_text("import torch\nx = 1\n")

    monkeypatch.setattr(cli, "WATCHER", Watcher(interval=0.25, polls=4, sleep=sleep))
    result = run("--watch", "--output-format", "concise")
    assert result.exit_code == 0 and len(sleeps) == 4
    assert result.stdout.count("TL101") == 1  # the first report; the second run finds nothing
    assert result.stderr.count("change detected; checking again") == 1
    assert "Found 2 findings" in result.stderr and "All checks passed (1 file checked)." in result.stderr


def test_watch_sees_a_new_file_and_survives_a_broken_configuration(project: Path, monkeypatch: pytest.MonkeyPatch):
    steps = iter(
        [
            lambda: (project / "src" / "new.py").write_text("import torch\noptimizer.zero_grad(set_to_none=False)\n"),
            lambda: (project / "pyproject.toml").write_text("[tool.torchlint]\nselect = 3\n"),
            lambda: (project / "pyproject.toml").write_text('[tool.torchlint]\nselect = ["TL4"]\n'),
        ]
    )
    monkeypatch.setattr(cli, "WATCHER", Watcher(interval=0, polls=3, sleep=lambda _: next(steps)()))
    result = run("--watch", "--output-format", "concise")
    assert result.exit_code == 0
    assert result.stderr.count("change detected; checking again") == 3
    assert "select: expected a list of strings" in result.stderr
    summaries = [line.split(".")[0] for line in result.stderr.splitlines() if line.startswith("Found")]
    # The new file's TL401 joins TL101 and TL401; the broken configuration stops one run;
    # the repaired one selects TL4 only.
    assert summaries == ["Found 2 findings in 1 checked file", "Found 3 findings in 2 checked files", "Found 2 findings in 2 checked files"]


def test_watch_runs_until_interrupted(project: Path):
    """The real command: a second report after the file changes, then Ctrl-C ends it with 0."""
    out = project / "watch.err"
    with open(out, "wb") as stderr:
        # A job started in the background by a non-interactive shell (as CI may start the suite)
        # inherits SIGINT ignored, and Python then installs no KeyboardInterrupt handler: a
        # terminal's Ctrl-C is what is tested, so the child starts with the default disposition.
        process = subprocess.Popen(
            [sys.executable, "-m", "torchlint", "check", "--no-cache", "--watch"],
            cwd=project,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        try:
            _wait_for(out, "Found 2 findings", process)
            (project / "src" / "train.py").write_text("import torch\nx = 1\n")
            _wait_for(out, "All checks passed", process)
        finally:
            process.send_signal(signal.SIGINT)
            status = process.wait(timeout=30)
    assert status == 0 and "Traceback" not in out.read_text()


def _wait_for(path: Path, text: str, process: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while text not in path.read_text():
        assert process.poll() is None and time.monotonic() < deadline, path.read_text()
        time.sleep(0.1)


# --- shell completion ---


def test_shell_completion_scripts_generate_and_complete_options():
    """The README's `_TORCHLINT_COMPLETE=bash_source torchlint` (click's completion)."""
    for shell, marker in (("bash", "complete -o nosort -F _torchlint_completion torchlint"), ("zsh", "#compdef torchlint"), ("fish", "complete --no-files --command torchlint")):
        result = CliRunner().invoke(main, [], prog_name="torchlint", env={"_TORCHLINT_COMPLETE": f"{shell}_source"})
        assert result.exit_code == 0 and marker in result.stdout
    env = {"_TORCHLINT_COMPLETE": "bash_complete", "COMP_WORDS": "torchlint check --output-format gi", "COMP_CWORD": "3"}
    result = CliRunner().invoke(main, [], prog_name="torchlint", env=env)
    assert result.stdout.split() == ["plain,github", "plain,gitlab"]
