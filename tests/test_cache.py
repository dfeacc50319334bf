"""The persistent result cache: warm runs, invalidation, concurrency and corrupt files."""

from __future__ import annotations

import json
import multiprocessing
import os

import pytest
from click.testing import CliRunner

from torchlint.engine.cache import CACHE_DIR_NAME, ResultCache, engine_fingerprint
from torchlint.cli import main

BAD = "import torch\nfor x in loader:\n    total += model(x.cuda()).item()\n"
CLEAN = "import torch\nx = torch.zeros(3)\n"


def run(*args):
    return CliRunner().invoke(main, ["check", "--output-format", "json", *args])


def codes(result):
    return [(d["path"], d["code"]) for d in json.loads(result.stdout)]


@pytest.fixture
def cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text(BAD)
    (tmp_path / "b.py").write_text(CLEAN)
    return tmp_path


def old(path, seconds=10_000):
    """Backdate a file so the cache trusts its (mtime, size)."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns - seconds * 10**9))


def test_warm_run_answers_from_the_cache_without_parsing(cwd, monkeypatch):
    old(cwd / "a.py"), old(cwd / "b.py")
    cold = run()
    assert (cwd / CACHE_DIR_NAME / ".gitignore").read_text().strip().endswith("*")

    def fail(*args, **kwargs):
        raise AssertionError("parsed a cached file")

    monkeypatch.setattr("torchlint.engine.linter.lint_text", fail)
    warm = run()
    assert warm.stdout == cold.stdout and warm.exit_code == cold.exit_code == 1


def test_changed_content_is_checked_again(cwd):
    run()
    (cwd / "b.py").write_text(BAD)
    assert codes(run()) == [("a.py", "TL101"), ("b.py", "TL101")]


def test_recently_modified_file_is_compared_by_content(cwd):
    """Same size and mtime, new content: a file stored within the clock's granularity of its
    last change is compared by digest, so the edit is seen."""
    before = "import torch\nx = torch.zeros(3)\n"
    after = "import torch.nn as nn\nm = nn.DataParallel(n, device_ids=[0, 1])\n"
    before = before + "#" * (len(after) - len(before) - 1) + "\n"
    assert len(before) == len(after)
    (cwd / "b.py").write_text(before)
    stat = (cwd / "b.py").stat()
    assert codes(run()) == [("a.py", "TL101")]
    (cwd / "b.py").write_text(after)
    os.utime(cwd / "b.py", ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert codes(run()) == [("a.py", "TL101"), ("b.py", "TL501")]


def test_selection_and_settings_are_part_of_the_key(cwd):
    assert codes(run()) == [("a.py", "TL101")]
    assert codes(run("--ignore", "TL101")) == []
    assert codes(run("--select", "TL101")) == [("a.py", "TL101")]
    (cwd / "b.py").write_text("import torch\nopt.zero_grad()\n")
    assert codes(run()) == [("a.py", "TL101")]
    assert codes(run("--torch-version", "1.13")) == [("a.py", "TL101"), ("b.py", "TL401")]


def test_no_cache_and_cache_dir(cwd, tmp_path_factory):
    run("--no-cache")
    assert not (cwd / CACHE_DIR_NAME).exists()
    elsewhere = tmp_path_factory.mktemp("cache")
    run("--cache-dir", str(elsewhere))
    assert list(elsewhere.glob("results-*.json")) and not (cwd / CACHE_DIR_NAME).exists()


@pytest.mark.parametrize("garbage", [b"", b"{", b"\x00\xff garbage", b'{"format": 1, "entries": {"a.py": {"findings": 3}}}', b"[]"])
def test_corrupt_cache_files_are_ignored_and_rebuilt(cwd, garbage):
    expected = run().stdout
    [cache_file] = (cwd / CACHE_DIR_NAME).glob("results-*.json")
    cache_file.write_bytes(garbage)
    result = run()
    assert result.stdout == expected and "Traceback" not in result.output
    assert json.loads(cache_file.read_text())["format"] == 2


def test_truncated_cache_entry_is_rebuilt(cwd):
    old(cwd / "a.py")
    expected = run().stdout
    [cache_file] = (cwd / CACHE_DIR_NAME).glob("results-*.json")
    document = json.loads(cache_file.read_text())
    del document["entries"]["a.py"]["findings"][0]["line"]
    cache_file.write_text(json.dumps(document))
    assert run().stdout == expected


def test_clean(cwd):
    run()
    assert (cwd / CACHE_DIR_NAME).is_dir()
    result = CliRunner().invoke(main, ["clean"])
    assert result.exit_code == 0 and not (cwd / CACHE_DIR_NAME).exists()
    assert "No cache" in CliRunner().invoke(main, ["clean"]).stderr


def _hammer(directory: str, round_: int) -> None:
    os.chdir(directory)
    for _ in range(5):
        CliRunner().invoke(main, ["check", "--output-format", "json", "--jobs", "1"])


def test_concurrent_runs_never_corrupt_the_cache(cwd):
    for index in range(20):
        (cwd / f"m{index}.py").write_text(BAD if index % 2 else CLEAN)
    context = multiprocessing.get_context("fork")
    processes = [context.Process(target=_hammer, args=(str(cwd), n)) for n in range(4)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(60)
        assert process.exitcode == 0
    [cache_file] = (cwd / CACHE_DIR_NAME).glob("results-*.json")
    assert len(json.loads(cache_file.read_text())["entries"]) == 22
    assert [p for p in (cwd / CACHE_DIR_NAME).iterdir() if p.name.startswith(".torchlint-")] == []


def test_fingerprint_depends_on_settings():
    assert engine_fingerprint("a") != engine_fingerprint("b")
    assert engine_fingerprint("a") == engine_fingerprint("a")


def test_unwritable_cache_directory_is_skipped(cwd, tmp_path_factory):
    blocked = tmp_path_factory.mktemp("blocked") / "file"
    blocked.write_text("not a directory")
    result = run("--cache-dir", str(blocked / "cache"))
    assert result.exit_code == 1 and codes(result) == [("a.py", "TL101")]
    ResultCache(blocked / "cache", "x").save()
