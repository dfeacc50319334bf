"""A tree holding a binary file, an undecodable file name and a file that does not parse, in
every combination, with and without good files: each bad file is reported or skipped, every
good file keeps its findings, and nothing is an internal error."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Tuple

import pytest
from click.testing import CliRunner

from torchlint.cli import main

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "train.py"

# Good files that make the rules ask about the whole project: a helper whose callers are
# looked up (`callers_of`) and a model whose mixed precision is found in the script that
# imports it (`project_uses`); both take a stamp of the project's file listing.
GOOD = {
    "helper.py": "import torch\n\n\ndef log_metrics(loss):\n    print(loss.item())\n",
    "model.py": (
        "import torch\nfrom torch import nn\n\n\nclass Net(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.fc = nn.Linear(1001, 1000)\n\n"
        "    def forward(self, x):\n        return self.fc(x)\n"
    ),
    "amp.py": (
        "import torch\nfrom helper import log_metrics\nfrom model import Net\n\nmodel = Net().cuda()\n"
        "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\nfor step in range(10):\n"
        "    with torch.autocast('cuda'):\n        loss = model(torch.randn(7, 1001, device='cuda')).sum()\n"
        "    loss.backward()\n    optimizer.step()\n    log_metrics(loss)\n"
    ),
}

BINARY = "binary.py"
UNDECODABLE = os.fsdecode(b"bad\xff name.py")
BROKEN = "broken.py"
BAD: Dict[str, bytes] = {
    BINARY: b"\x7fELF\x02\x01\x01\x00\x00\x00" + bytes(range(256)) * 4,
    UNDECODABLE: b"value = 1\n",
    BROKEN: b"def train(:\n    pass\n",
}
# What each bad file is reported as: binary and unparsable files are TL000, a strange name is no finding.
BAD_CODES = {BINARY: ["TL000"], UNDECODABLE: [], BROKEN: ["TL000"]}

COMBINATIONS = [
    (bad, good)
    for size in range(1, len(BAD) + 1)
    for bad in itertools.combinations(BAD, size)
    for good in (False, True)
]
Key = Tuple[str, str, int, int]


def _make_tree(root: Path, bad: Tuple[str, ...], good: bool) -> None:
    root.mkdir()
    for name in bad:
        (root / name).write_bytes(BAD[name])
    if good:
        (root / "train.py").write_bytes(EXAMPLE.read_bytes())
        for name, text in GOOD.items():
            (root / name).write_text(text)


def _run(root: Path, *options: str) -> Tuple[int, List[Key], str]:
    """Exit code, findings (path, code, line, column) and standard error of a check of `root`."""
    previous = os.getcwd()
    os.chdir(root)
    try:
        result = CliRunner().invoke(main, ["check", "--isolated", "--preview", "--output-format", "json", *options])
    finally:
        os.chdir(previous)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    found = [(d["path"], d["code"], d["line"], d["column"]) for d in json.loads(result.stdout or "[]")]
    return result.exit_code, found, result.stderr


@pytest.fixture(scope="module")
def good_findings(tmp_path_factory) -> List[Key]:
    """The findings of the good files alone."""
    root = tmp_path_factory.mktemp("good") / "tree"
    _make_tree(root, (), True)
    code, found, errors = _run(root, "--no-cache")
    assert code == 1 and errors.count("internal error") == 0
    assert {path for path, *_ in found} >= {"train.py", "model.py"}
    return found


@pytest.mark.parametrize("bad, good", COMBINATIONS, ids=lambda value: "+".join(value) if isinstance(value, tuple) else str(value))
def test_bad_files_cost_only_themselves(tmp_path, good_findings, bad, good):
    root = tmp_path / "tree"
    _make_tree(root, bad, good)
    expected = sorted(
        [(name, code) for name in bad for code in BAD_CODES[name]] + [(path, code) for path, code, *_ in (good_findings if good else [])]
    )
    for options in (["--no-cache"], [], []):  # uncached, a cold cache, then a warm one
        code, found, errors = _run(root, *options)
        assert "internal error" not in errors and "Traceback" not in errors
        assert sorted((path, code) for path, code, *_ in found) == expected
        assert [key for key in found if key[0] not in BAD] == (good_findings if good else [])
        assert code == (1 if expected else 0)


@pytest.mark.parametrize("content", [BAD[BINARY], b"name = '\xe9t\xe9'\n"], ids=["binary", "latin-1"])
def test_an_undecodable_file_is_reported_when_the_rule_catalog_comes_from_the_cache(tmp_path, content):
    """A fresh process that reads the rule catalog from the cache has not imported the rules:
    reporting TL000 for a file that cannot be decoded must not depend on them."""
    name = "data.py"
    (tmp_path / name).write_bytes(content)
    command = [sys.executable, "-m", "torchlint", "check", "--isolated", "--output-format", "json"]
    subprocess.run(command, cwd=tmp_path, capture_output=True, check=False)  # stores the catalog
    completed = subprocess.run([*command, "--no-cache"], cwd=tmp_path, capture_output=True, text=True)
    assert completed.returncode == 1, completed.stderr
    [finding] = json.loads(completed.stdout)
    assert (finding["path"], finding["code"]) == (name, "TL000")


def test_a_notebook_nested_past_the_json_parser_costs_only_itself(tmp_path, good_findings):
    """The project index reads every notebook of the project: one whose JSON nests deeper
    than the parser's stack is TL000 itself and must not turn the good files into parse errors."""
    root = tmp_path / "tree"
    _make_tree(root, (), True)
    (root / "deep.ipynb").write_text("[" * 100_000 + "]" * 100_000)
    code, found, errors = _run(root, "--no-cache")
    assert "internal error" not in errors and "Traceback" not in errors
    assert [key for key in found if key[0] == "deep.ipynb"] == [("deep.ipynb", "TL000", 1, 1)]
    assert [key for key in found if key[0] != "deep.ipynb"] == good_findings
    assert code == 1
