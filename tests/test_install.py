"""The README's install snippets, run as written against a local clone of this repository.

Nothing comes from the network: the repository URL is replaced by the path of a clone that
has a `main` branch at this checkout's HEAD (committed changes only), pip is told by its
environment to use no index and to build without an isolated environment, and the fresh
virtual environment reaches torchlint's dependencies through a `.pth` file naming the test
environment's site-packages (their `.pth` files, among them this checkout's editable install,
are not read, so the torchlint that runs is the one the snippet installed).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path
from typing import Dict, List

import pytest
import yaml
from test_readme import blocks, pre_commit_configs

from torchlint.config import REPOSITORY

REPO = Path(__file__).resolve().parent.parent
BAD = "import torch\n\nfor batch in loader:\n    x = torch.zeros(3).cuda()\n"

pytestmark = pytest.mark.skipif(
    not (REPO / ".git").exists() or shutil.which("git") is None, reason="needs git and a git checkout of torchlint"
)


def run(command: str, cwd: Path, env: Dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def remote(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A stand-in for the GitHub repository: a clone with `main` at this checkout's HEAD."""
    clone = tmp_path_factory.mktemp("github") / "torchlint"
    subprocess.run(["git", "clone", "--quiet", "--bare", str(REPO), str(clone)], check=True)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, check=True, capture_output=True, text=True).stdout.strip()
    subprocess.run(["git", "update-ref", "refs/heads/main", head], cwd=clone, check=True)
    return f"file://localhost{clone}"  # pip's requirement syntax needs a host


def fresh_environment(root: Path) -> Dict[str, str]:
    """A new virtual environment at `root/venv` and the process environment that activates it
    and keeps pip offline."""
    venv.create(root / "venv", with_pip=True)
    python = root / "venv" / "bin" / "python"
    # Its own setuptools (3.11's is too old for the license field) would shadow the test environment's.
    subprocess.run([str(python), "-m", "pip", "uninstall", "--yes", "--quiet", "setuptools"], capture_output=True)
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             check=True, capture_output=True, text=True).stdout.strip()
    ours = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    (Path(purelib) / "test-dependencies.pth").write_text("\n".join(sorted(ours)) + "\n")
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PIP_", "PYTHON"))}
    env.update(
        PATH=f"{root / 'venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}",
        VIRTUAL_ENV=str(root / "venv"),
        PIP_CONFIG_FILE=os.devnull,
        PIP_NO_INDEX="1",
        PIP_NO_BUILD_ISOLATION="0",  # pip reads "0" here as "do not isolate"
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )
    return env


def installed_from(root: Path, env: Dict[str, str]) -> str:
    done = run('python3 -c "import torchlint; print(torchlint.__file__)"', root, env)
    return done.stdout.strip()


def local(command: str, remote: str) -> str:
    assert REPOSITORY in command, command
    return command.replace(REPOSITORY, remote)


def project(root: Path) -> Path:
    """A git repository with one file that has a finding."""
    path = root / "project"
    path.mkdir()
    (path / "train.py").write_text(BAD)
    subprocess.run(["git", "init", "--quiet"], cwd=path, check=True)
    subprocess.run(["git", "add", "."], cwd=path, check=True)
    return path


def test_quick_start_clones_installs_and_checks_the_example(tmp_path: Path, remote: str):
    (quick_start, _test_command) = blocks("bash")[:2]
    assert quick_start.startswith("git clone ") and quick_start.count("\n") == 1
    env = fresh_environment(tmp_path)
    done = run(local(quick_start.strip(), remote), tmp_path, env)
    assert done.returncode == 1, done.stdout + done.stderr  # the example has findings
    assert "examples/train.py:" in done.stdout and " TL101 " in done.stdout
    assert installed_from(tmp_path, env).startswith(str(tmp_path / "venv"))


def _actions_steps() -> List[str]:
    (workflow,) = [yaml.safe_load(block) for block in blocks("yaml") if "jobs:" in block]
    (job,) = workflow["jobs"].values()
    return [step["run"] for step in job["steps"] if "run" in step]


def test_actions_steps_install_from_main_and_report(tmp_path: Path, remote: str):
    install, *checks = _actions_steps()
    assert install.startswith("pip install ") and "@main" in install
    env = fresh_environment(tmp_path)
    done = run(local(install, remote), tmp_path, env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert installed_from(tmp_path, env).startswith(str(tmp_path / "venv"))
    workdir = project(tmp_path)
    annotations, sarif = (run(check, workdir, env) for check in checks)
    assert annotations.returncode == 1 and "file=train.py,line=4" in annotations.stdout
    assert sarif.returncode == 0, sarif.stderr
    log = json.loads((workdir / "torchlint.sarif").read_text())
    assert log["version"] == "2.1.0" and [r["ruleId"] for r in log["runs"][0]["results"]] == ["TL102"]


def test_pre_commit_configuration_runs_the_installed_torchlint(tmp_path: Path):
    pre_commit = Path(sys.executable).with_name("pre-commit")
    if not pre_commit.exists():
        pytest.skip("pre-commit is not installed")
    workdir = project(tmp_path)
    (config,) = pre_commit_configs()
    (workdir / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "home"), "PATH": f"{pre_commit.parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run([str(pre_commit), "run", "--all-files"], cwd=workdir, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "train.py:4:9: TL102" in done.stdout

