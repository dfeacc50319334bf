"""The target PyTorch version inferred from the project's declared dependencies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from torchlint.cli import main

# TL401 reports a plain `zero_grad()` only below torch 2.0.
ZERO_GRAD = "import torch\noptimizer.zero_grad()\n"


@pytest.fixture
def project(src_project) -> Path:
    return src_project(ZERO_GRAD)


def target(*args: str) -> str:
    shown = CliRunner().invoke(main, ["check", "--show-settings", *args, "src/train.py"]).stdout
    return [line for line in shown.splitlines() if line.startswith("torch-version")][0]


def reports_old_zero_grad(*args: str) -> bool:
    result = CliRunner().invoke(main, ["check", "--no-cache", "--output-format", "json", *args])
    return [d["code"] for d in json.loads(result.stdout)] == ["TL401"]


@pytest.mark.parametrize(
    "name,body,version",
    [
        ("pyproject.toml", '[project]\nname = "x"\ndependencies = ["numpy", "torch[opt] >= 1.13, <3"]\n', "1.13"),
        ("requirements.txt", "# pins\ntorchvision>=0.20\n-r base.txt\ntorch==1.12.1  # old cluster\n", "1.12"),
        ("requirements-dev.txt", "torch~=1.11.0\n", "1.11"),
        ("setup.cfg", "[options]\ninstall_requires =\n    numpy\n    torch>1.10\n", "1.10"),
    ],
)
def test_declared_lower_bound_is_the_target(project: Path, name: str, body: str, version: str):
    (project / name).write_text(body)
    line = target()
    assert line.split()[1] == version and f"inferred from {project / name}" in line
    assert reports_old_zero_grad()


def test_no_lower_bound_or_only_other_packages_keeps_the_default(project: Path):
    (project / "requirements.txt").write_text("torch<3\ntorchvision>=0.1\ntorch-geometric>=1.0\n")
    assert "[default]" in target() and not reports_old_zero_grad()


def test_configured_and_command_line_versions_win(project: Path):
    (project / "pyproject.toml").write_text('[project]\ndependencies = ["torch>=1.13"]\n[tool.torchlint]\ntorch-version = "2.1"\n')
    assert target().split()[1] == "2.1" and not reports_old_zero_grad()
    (project / "pyproject.toml").write_text('[project]\ndependencies = ["torch>=1.13"]\n')
    assert target("--torch-version", "2.4").split()[1] == "2.4" and not reports_old_zero_grad("--torch-version", "2.4")
