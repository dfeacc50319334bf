"""The pre-commit hook, run for real by pre-commit against this checkout."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
BAD = "import torch\n\nfor batch in loader:\n    x = torch.zeros(3).cuda()\n"
PRE_COMMIT = shutil.which("pre-commit") or str(Path(sys.executable).with_name("pre-commit"))

pytestmark = pytest.mark.skipif(
    not Path(PRE_COMMIT).exists() or not (REPO / ".git").exists() or shutil.which("git") is None,
    reason="needs pre-commit, git and a git checkout of torchlint",
)


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    git("init", "-q", cwd=project)
    git("config", "user.email", "dev@example.com", cwd=project)
    git("config", "user.name", "Dev", cwd=project)
    (project / "train.py").write_text(BAD)
    (project / "vendored").mkdir()
    (project / "vendored" / "old.py").write_text(BAD)
    (project / "pyproject.toml").write_text('[tool.torchlint]\nextend-exclude = ["vendored"]\n')
    git("add", ".", cwd=project)
    return project


def pre_commit(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    return subprocess.run([PRE_COMMIT, *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=600)


@pytest.fixture(scope="module")
def hook_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One pre-commit home for the module, so the hook's environment is built once."""
    return tmp_path_factory.mktemp("pre-commit-home")


def test_hook_fails_on_the_anti_pattern_and_honours_excludes(project: Path, hook_home: Path):
    done = pre_commit("try-repo", str(REPO), "torchlint", "--all-files", cwd=project, home=hook_home)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "train.py:4:9: TL102" in done.stdout
    assert "vendored" not in done.stdout


def test_hook_with_fix_rewrites_the_file(project: Path, hook_home: Path):
    revision = git("rev-parse", "HEAD", cwd=REPO)
    (project / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {REPO}\n  rev: {revision}\n  hooks:\n  - id: torchlint\n    args: [--fix]\n"
    )
    git("add", ".", cwd=project)
    done = pre_commit("run", "--all-files", cwd=project, home=hook_home)
    assert done.returncode == 1, done.stdout + done.stderr  # pre-commit fails when a hook changes files
    assert (project / "train.py").read_text() == 'import torch\n\nfor batch in loader:\n    x = torch.zeros(3, device="cuda")\n'
    assert (project / "vendored" / "old.py").read_text() == BAD
    again = pre_commit("run", "--all-files", cwd=project, home=hook_home)
    assert again.returncode == 0, again.stdout + again.stderr
