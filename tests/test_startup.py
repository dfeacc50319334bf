"""Start-up: `--version`, `--help` and a fully cached run import neither LibCST nor the rules."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import List

TRAIN = "import torch\nfor x in loader:\n    total += model(x.cuda()).item()\n"


def imported(args: List[str], cwd: Path) -> List[str]:
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "torchlint", *args], cwd=cwd, capture_output=True, text=True)
    return [line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")]


def heavy(modules: List[str]) -> List[str]:
    return [name for name in modules if name == "libcst" or name.startswith(("libcst.", "torchlint.rules."))]


def test_version_and_help_import_no_libcst_and_no_rules(tmp_path: Path):
    assert heavy(imported(["--version"], tmp_path)) == []
    assert heavy(imported(["check", "--help"], tmp_path)) == []


def test_a_fully_cached_run_imports_no_libcst_and_no_rules(tmp_path: Path):
    (tmp_path / "train.py").write_text(TRAIN)
    (tmp_path / "notes.ipynb").write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    cold = imported(["check", "--exit-zero", "."], tmp_path)
    assert "libcst" in cold and any(name.startswith("torchlint.rules.") for name in cold)
    for output_format in ("full", "json", "github", "junit"):
        assert heavy(imported(["check", "--exit-zero", "--output-format", output_format, "."], tmp_path)) == []


def test_the_cache_key_is_the_same_in_every_process(tmp_path: Path):
    (tmp_path / "train.py").write_text(TRAIN)
    options = ["check", "--exit-zero", "--unfixable", "TL101,TL401,TL201", "--extend-per-file-ignores", "x.py:TL1,TL2", "."]
    imported(options, tmp_path)
    assert heavy(imported(options, tmp_path)) == []
