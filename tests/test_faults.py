"""Under faults nothing is lost and nothing crashes: concurrent edits during `--fix`, kills,
damaged caches and inputs, file names that are not UTF-8; and findings stay cheap to place."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from torchlint.cli import main
from torchlint.engine import fixer, linter, positions
from torchlint.engine.cache import CACHE_DIR_NAME
from torchlint.engine.context import Options
from torchlint.engine.findings import Finding
from torchlint.engine.rule import all_rules
from torchlint.files.writer import TEMPORARY_PREFIX, remove_abandoned_temporaries
from torchlint.output import FORMATTERS, Report

FIXABLE = "import torch\nscaler = torch.cuda.amp.GradScaler()\nx = 1  # noqa: TL101\n"
FIXED = "import torch\nscaler = torch.amp.GradScaler(\"cuda\")\nx = 1\n"
LOOP = "import torch\nfor x in loader:\n    total += model(x.cuda()).item()\n"


def run(*args):
    result = CliRunner().invoke(main, ["check", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    return result


@pytest.fixture
def cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def temporaries(directory: Path):
    return sorted(path.name for path in directory.rglob(f"{TEMPORARY_PREFIX}*"))


# --- `--fix` and concurrent edits ------------------------------------------------------------


@pytest.mark.parametrize("mode", ["--fix", "--add-noqa"])
def test_an_edit_made_while_fixing_is_kept_and_the_file_skipped(cwd, monkeypatch, mode):
    (cwd / "a.py").write_text(FIXABLE)
    (cwd / "b.py").write_text(FIXABLE)
    edited = "# saved in the editor meanwhile\n" + FIXABLE
    # What --add-noqa and --fix call after reading a file (the runner imports them on use).
    for module, name in ((linter, "lint_text"), (fixer, "fix_text")):
        monkeypatch.setattr(module, name, _editing(getattr(module, name), cwd / "a.py", edited))
    result = run(mode, "a.py", "b.py")
    assert (cwd / "a.py").read_text() == edited
    assert (cwd / "b.py").read_text() != FIXABLE  # the other file is still fixed
    assert result.exit_code == 2
    [line] = [line for line in result.stderr.splitlines() if "a.py" in line]
    assert line == "torchlint: error: a.py: changed while being fixed; left as it is, not fixed"
    assert temporaries(cwd) == []


def _editing(function, path: Path, edited: str):
    """`function`, which first saves `edited` into `path` when called for it (as an editor would)."""

    def wrapper(text, name, *args, **kwargs):
        if name == path.name:
            path.write_text(edited)
        return function(text, name, *args, **kwargs)

    return wrapper


def test_an_unchanged_file_is_fixed_as_before(cwd):
    (cwd / "a.py").write_text(FIXABLE)
    assert run("--fix", "a.py").exit_code == 0
    assert (cwd / "a.py").read_text() == FIXED


# --- Killed during `--fix` ------------------------------------------------------------------


def _tree(root: Path, files: int) -> None:
    root.mkdir()
    for index in range(files):
        (root / f"m{index}.py").write_text(FIXABLE * 20)


def _torchlint(*args: str, cwd: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "torchlint", "check", "--isolated", "--jobs", "1", *args],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def test_a_kill_during_fix_leaves_every_file_whole_and_no_temporary_behind(tmp_path):
    """SIGKILL at random moments: each file is the original or the fully fixed version, and
    the next run removes what the killed one left (a temporary is planted as well, since a
    kill seldom lands in the instant between creating and renaming one)."""
    pristine, fixed = tmp_path / "pristine", tmp_path / "fixed"
    _tree(pristine, 12)
    shutil.copytree(pristine, fixed)
    started = time.monotonic()
    assert _torchlint("--fix", ".", cwd=fixed).wait() in (0, 1)
    duration = time.monotonic() - started
    expected = {path.name: path.read_bytes() for path in fixed.iterdir()}
    original = {path.name: path.read_bytes() for path in pristine.iterdir()}
    assert expected != original
    dead = subprocess.Popen([sys.executable, "-c", ""])
    dead.wait()
    rng = random.Random(18)
    for trial in range(3):
        work = tmp_path / f"trial{trial}"
        shutil.copytree(pristine, work)
        process = _torchlint("--fix", ".", cwd=work)
        time.sleep(rng.uniform(0.3, max(0.4, duration)))
        process.send_signal(signal.SIGKILL)
        process.wait()
        for path in work.glob("*.py"):
            assert path.read_bytes() in (original[path.name], expected[path.name]), path
        (work / f"{TEMPORARY_PREFIX}{dead.pid}-abc123.tmp").write_bytes(b"half written")
        assert _torchlint("--fix", ".", cwd=work).wait() in (0, 1)
        assert temporaries(work) == []
        assert {path.name: path.read_bytes() for path in work.glob("*.py")} == expected


def test_temporaries_of_live_processes_and_other_files_are_kept(tmp_path):
    live = tmp_path / f"{TEMPORARY_PREFIX}{os.getpid()}-abc.tmp"
    foreign = tmp_path / f"{TEMPORARY_PREFIX}notes.tmp"
    for path in (live, foreign):
        path.write_text("")
    remove_abandoned_temporaries([str(tmp_path), str(tmp_path / "missing")])
    assert live.exists() and foreign.exists()


# --- Damaged caches -------------------------------------------------------------------------

FINDING = {
    "code": "TL101", "name": "sync-in-loop", "message": "m", "path": "a.py", "line": 3, "column": 5,
    "end_line": 3, "end_column": 9, "fix": None, "url": "u", "cell": None,
}


def _entry(**changes):
    entry = {"stat": [1, 2], "digest": "0" * 32, "codes": "TL101", "findings": [FINDING], "snippets": {"0:3": "x"}}
    entry.update(changes)
    return entry


def _broken_finding(**changes):
    return _entry(findings=[{**FINDING, **changes}])


CORRUPT_ENTRIES = [
    _entry(stat=None),
    _entry(stat=7),
    _entry(stat="12"),
    _entry(stat=[1, 2, 3]),
    _entry(stat=[1.5, 2]),
    _entry(stat=[None, None]),
    _entry(digest=None),
    _entry(codes=["TL101"]),
    _entry(findings={"0": FINDING}),
    _entry(findings=None),
    _entry(findings=[None]),
    _entry(findings=["TL101"]),
    _entry(snippets=None),
    _entry(snippets={"0:3": 5}),
    _broken_finding(line="3"),
    _broken_finding(line=-1),
    _broken_finding(column=0),
    _broken_finding(end_line=None),
    _broken_finding(cell="x"),
    _broken_finding(fix={"applicability": "bogus", "edits": [], "message": ""}),
    _broken_finding(fix={"applicability": "safe", "edits": [{"location": None}], "message": ""}),
    _broken_finding(fix={"applicability": "safe", "edits": "x", "message": ""}),
    _broken_finding(code=None, line=None),
    {"stat": []},
    [],
    None,
    "entry",
]


def _cache_file(directory: Path) -> Path:
    [file] = (directory / CACHE_DIR_NAME).glob("results-*.json")
    return file


def test_corrupt_cache_entries_of_any_shape_are_misses(cwd):
    (cwd / "a.py").write_text(LOOP)
    expected = json.loads(run("--output-format", "json").stdout)
    file = _cache_file(cwd)
    stat = os.stat(cwd / "a.py")
    document = json.loads(file.read_text())
    for entry in CORRUPT_ENTRIES:
        if isinstance(entry, dict) and entry.get("stat") == [1, 2]:
            entry = {**entry, "stat": [stat.st_mtime_ns, stat.st_size]}  # trusted without reading
        document["entries"] = {"a.py": entry}
        file.write_text(json.dumps(document))
        result = run("--output-format", "json")
        assert (result.exit_code, json.loads(result.stdout)) == (1, expected), entry


@pytest.mark.parametrize(
    "content",
    [b"[" * 100_000 + b"]" * 100_000, b'{"format": 2, "entries": ' + b"[" * 50_000, b"\xff\xfe\x00", b'{"format": 2, "entries": []}'],
    ids=["deeply-nested", "truncated-nesting", "binary", "entries-a-list"],
)
def test_corrupt_cache_files_are_ignored(cwd, content):
    (cwd / "a.py").write_text(LOOP)
    run()
    _cache_file(cwd).write_bytes(content)
    result = run()
    assert result.exit_code == 1 and "TL101" in result.stdout


def test_cache_file_replaced_by_a_directory_is_ignored(cwd):
    (cwd / "a.py").write_text(LOOP)
    run()
    file = _cache_file(cwd)
    file.unlink()
    file.mkdir()
    assert run().exit_code == 1


def test_concurrent_runs_agree_and_leave_a_valid_cache(cwd):
    for index in range(6):
        (cwd / f"m{index}.py").write_text(LOOP)
    runs = [_torchlint("--output-format", "concise", ".", cwd=cwd) for _ in range(3)]
    assert [process.wait() for process in runs] == [1, 1, 1]
    assert len(json.loads(_cache_file(cwd).read_text())["entries"]) == 6
    assert temporaries(cwd) == []


# --- Damaged or unusual inputs --------------------------------------------------------------


def _notebook(source: object) -> str:
    cells = [{"cell_type": "code", "source": source, "metadata": {}, "outputs": [], "execution_count": None}]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


@pytest.mark.parametrize(
    "name, content",
    [
        ("latin.py", b"import torch\nname = '\xe9'\n"),
        ("cookie.py", b"# -*- coding: utf-16 -*-\nimport torch\n"),
        ("nul.py", b"import torch\x00\n"),
        ("deep.py", b"x = " + b"(" * 300 + b"1" + b")" * 300 + b"\n"),
        ("surrogate.ipynb", _notebook(["import torch\n", "\ud800"]).encode()),
        ("cells-not-list.ipynb", b'{"cells": {}, "nbformat": 4}'),
        ("source-number.ipynb", _notebook(5).encode()),
        ("truncated.ipynb", _notebook("import torch\n").encode()[:40]),
        ("nested.ipynb", b"[" * 100_000),
    ],
)
def test_damaged_inputs_give_one_line_diagnostics(cwd, name, content):
    (cwd / name).write_bytes(content)
    result = run("--no-cache", "--output-format", "json")
    assert result.exit_code == 1
    [finding] = json.loads(result.stdout)
    assert finding["code"] == "TL000" and "\n" not in finding["message"]


def test_python_3_12_syntax_is_handled(cwd):
    (cwd / "new.py").write_text("import torch\ntype Vector = list[float]\ndef first[T](items: list[T]) -> T:\n    return items[0]\n" + LOOP)
    result = run("--no-cache", "--output-format", "json")
    # LibCST reads the new syntax even where CPython's own parser (3.11) cannot.
    assert [finding["code"] for finding in json.loads(result.stdout)] == ["TL101"]


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("pyproject.toml", "a = " + "[" * 5000 + "]" * 5000, "nested too deeply"),
        ("pyproject.toml", "\udcff", "cannot read"),
    ],
)
def test_damaged_configuration_is_an_error_line(cwd, name, content, message):
    (cwd / name).write_bytes(content.encode("utf-8", "surrogateescape"))
    (cwd / "a.py").write_text(LOOP)
    result = run()
    assert result.exit_code == 2 and message in result.stderr


def test_damaged_git_file_is_ignored(cwd):
    (cwd / ".git").write_bytes(b"gitdir: /tmp/a\x00b\n")
    (cwd / ".gitignore").write_bytes(b"\xff\xfe[\n\x00**/\\\n")
    (cwd / "a.py").write_text(LOOP)
    assert run().exit_code == 1


# --- File names that are not UTF-8 ----------------------------------------------------------

NAME = os.fsdecode(b"bad\xff name.py")


@pytest.fixture
def odd_report(cwd):
    finding = Finding("TL101", "sync-in-loop", "m", NAME, 3, 23, 3, 29, None, "u")
    return Report([finding], {NAME: {"0:3": "    total += x.item()"}}, unsafe_fixes=False, color=False)


@pytest.mark.parametrize("name", sorted(FORMATTERS))
def test_every_format_writes_names_that_are_not_utf8(odd_report, name):
    text = FORMATTERS[name](odd_report)
    if name in ("full", "concise", "grouped", "pylint", "github"):  # the name's own bytes
        assert b"bad\xff name.py" in text.encode("utf-8", "surrogateescape")
    elif name in ("json", "json-lines", "gitlab"):  # the surrogate escape, which os.fsencode turns back into the bytes
        document = json.loads(text.splitlines()[0] if name == "json-lines" else text)
        item = document if name == "json-lines" else document[0]
        assert (item["location"]["path"] if name == "gitlab" else item["path"]) == NAME
        assert "\\udcff" in text
    elif name == "rdjson":
        document = json.loads(text)
        assert document["diagnostics"][0]["location"]["path"] == NAME and "\\udcff" in text
    elif name == "sarif":  # percent-encoded bytes
        [result] = json.loads(text)["runs"][0]["results"]
        assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "bad%FF%20name.py"
    else:  # XML cannot hold the byte: U+FFFD stands for it
        assert ET.fromstring(text.encode()).find("testsuite/testcase").get("file") == "bad\ufffd name.py"


def test_cli_output_of_a_name_that_is_not_utf8(cwd):
    (cwd / NAME).write_text(LOOP)
    outputs = {}
    for output_format in ("sarif", "concise"):
        completed = subprocess.run(
            [sys.executable, "-m", "torchlint", "check", "--isolated", "--no-cache", "--output-format", output_format],
            cwd=cwd,
            capture_output=True,
        )
        assert completed.returncode == 1 and b"Traceback" not in completed.stderr
        outputs[output_format] = completed.stdout
    assert b'"uri": "bad%FF%20name.py"' in outputs["sarif"]
    assert outputs["concise"].startswith(b"bad\xff name.py:3:")


# --- Placing findings does not grow with the file -------------------------------------------


def test_findings_are_placed_without_rendering_the_rest_of_the_file(monkeypatch):
    filler = "".join(f"def f{index}(x):\n    return x.cuda() + {index}\n\n" for index in range(500))
    loop = "    for x in loader:\n        loss = model(x.cuda()).sum()\n        loss.backward()\n        print(loss.item())\n"
    text = "import torch\n\n# a comment\n" + filler + "@decorated\ndef train(model, loader):\n" + loop
    rules = all_rules()
    fast = linter.lint_text(text, "big.py", rules, Options(preview=True)).findings

    def in_order(*args):
        raise AssertionError("rendered the file from its start")

    monkeypatch.setattr(positions, "_in_order", in_order)
    assert linter.lint_text(text, "big.py", rules, Options(preview=True)).findings == fast
    monkeypatch.undo()
    monkeypatch.setattr(linter, "statement_lines", lambda *args: None)
    assert linter.lint_text(text, "big.py", rules, Options(preview=True)).findings == fast
    assert [(f.code, f.line, f.column) for f in fast] == [("TL101", 1509, 20)]


@pytest.mark.parametrize(
    "text",
    [
        "import torch\r\nfor x in loader:\r\n    total += x.cuda().item()",
        "import torch\rfor x in loader:\r    total += x.cuda().item()\r# footer",
        "import torch\n\x0c\n@(\n  wrap\n)\ndef f(loader):\n    for x in loader:\n        total += x.cuda().item()\n",
        "import torch; import os\nfor x in loader: total += x.cuda().item(); y = 1\n",
    ],
)
def test_statement_starts_agree_with_rendering_in_order(monkeypatch, text):
    rules = all_rules()
    placed = linter.lint_text(text, "a.py", rules, Options(preview=True)).findings
    monkeypatch.setattr(linter, "statement_lines", lambda *args: None)
    assert placed and linter.lint_text(text, "a.py", rules, Options(preview=True)).findings == placed


def test_python_warnings_about_the_checked_code_are_not_printed(cwd):
    (cwd / "escapes.py").write_text('import torch\npattern = "\\d+ 0x1for"\nx = 1if True else 2\n')
    completed = subprocess.run(
        [sys.executable, "-m", "torchlint", "check", "--isolated", "--no-cache"], cwd=cwd, capture_output=True, text=True
    )
    assert completed.returncode == 0 and "Warning" not in completed.stderr


def test_clean_removes_a_temporary_left_in_the_cache(cwd):
    (cwd / "a.py").write_text(LOOP)
    run()
    (cwd / CACHE_DIR_NAME / f"{TEMPORARY_PREFIX}1-abc.tmp").write_text("{")
    assert CliRunner().invoke(main, ["clean"]).exit_code == 0
    assert not (cwd / CACHE_DIR_NAME).exists()
