"""Discovery checks the files git tracks even where a `.gitignore` pattern names them (ignore
rules apply to untracked files only); the index is read without running git. Untracked
files in an ignored directory stay skipped, and an unreadable index changes nothing."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from torchlint.files.discovery import discover
from torchlint.files.git_index import tracked_paths

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git to build an index")

FILES = ("main.py", "src/model.py", "src/deep/layers.py", "data/__init__.py", "sp ace/é.py")


def _git(repo: Path, *args: str) -> str:
    command = ["git", "-c", "core.quotepath=off", "-c", "user.name=t", "-c", "user.email=t@t", *args]
    return subprocess.run(command, cwd=repo, check=True, capture_output=True, text=True).stdout


def _repository(tmp_path: Path) -> Path:
    for name in FILES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("import torch\n")
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "-A")
    # An allow-list `.gitignore` written after the files were added, as in a project whose
    # `*` then `!src` leaves the committed `src/model.py` ignored for new files.
    (tmp_path / ".gitignore").write_text("*\n!main.py\n!src\ndata/\n")
    return tmp_path


@pytest.mark.parametrize("version", ["2", "3", "4"])
def test_the_index_lists_what_git_tracks(tmp_path, version):
    repo = _repository(tmp_path)
    _git(repo, "update-index", "--index-version", version)
    _git(repo, "update-index", "--skip-worktree", "main.py")  # an extended flag in version 3
    tracked = tracked_paths(str(repo / ".git"))
    assert list(tracked.paths) == sorted(_git(repo, "ls-files").splitlines())
    assert tracked.tracks("src", True) and tracked.tracks("src/deep", True) and not tracked.tracks("sr", True)
    assert tracked.tracks("src/model.py", False) and not tracked.tracks("src/new.py", False)


def test_tracked_files_are_checked_though_ignored_and_untracked_ones_are_not(tmp_path):
    repo = _repository(tmp_path)
    for untracked in ("src/new.py", "data/cache.py", "build_me.py"):
        (repo / untracked).write_text("x = 1\n")
    found = [path.relative_to(repo).as_posix() for path in discover([repo], root=repo).files]
    assert found == sorted(FILES)


def test_an_unreadable_index_leaves_the_ignore_files_in_charge(tmp_path):
    repo = _repository(tmp_path)
    (repo / ".git" / "index").write_bytes(b"DIRC\x00\x00\x00\x09garbage")
    found = [path.relative_to(repo).as_posix() for path in discover([repo], root=repo).files]
    assert found == ["main.py"]
