"""`--fix`: exact rewrites, atomic faithful writes, idempotence, and never breaking code."""

from __future__ import annotations

import os
import stat
import sys
from dataclasses import replace

import pytest
from click.testing import CliRunner

from torchlint.cli import main
from torchlint.engine.context import Options
from torchlint.engine.findings import Applicability, Edit, Finding, Fix
from torchlint.engine.fixer import apply_fixes, fix_text
from torchlint.engine.rule import all_rules

SAFE = "import torch\nscaler = torch.cuda.amp.GradScaler()\nwhile True:\n    x = torch.zeros(3).cuda()\n"
SAFE_FIXED = 'import torch\nscaler = torch.amp.GradScaler("cuda")\nwhile True:\n    x = torch.zeros(3, device="cuda")\n'
UNSAFE = "from torch.utils.data import DataLoader\nloader = DataLoader(ds, batch_size=8)\n"


def run(*args, input=None):
    return CliRunner().invoke(main, ["check", *args], input=input)


@pytest.fixture
def cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_fix_rewrites_safe_fixes_and_reports_counts(cwd):
    (cwd / "a.py").write_text(SAFE)
    result = run("--fix", "a.py")
    assert result.exit_code == 0
    assert (cwd / "a.py").read_text() == SAFE_FIXED
    assert "Found 2 findings (2 fixed, 0 remaining)" in result.stderr


def test_unsafe_fixes_need_the_flag(cwd):
    (cwd / "a.py").write_text(UNSAFE)
    result = run("--fix", "a.py")
    assert result.exit_code == 1 and (cwd / "a.py").read_text() == UNSAFE
    result = run("--fix", "--unsafe-fixes", "a.py")
    assert result.exit_code == 0
    assert (cwd / "a.py").read_text() == (
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, batch_size=8, num_workers=4, persistent_workers=True)\n"
    )


def test_remaining_findings_keep_exit_1(cwd):
    (cwd / "a.py").write_text("import torch.nn as nn\nm = nn.DataParallel(net, device_ids=[0, 1])\n" + SAFE)
    result = run("--fix", "a.py", "--output-format", "concise")
    assert result.exit_code == 1
    assert "TL501" in result.stdout and "(2 fixed, 1 remaining)" in result.stderr


def test_files_without_fixes_are_not_written(cwd):
    path = cwd / "a.py"
    path.write_text("import torch.nn as nn\nm = nn.DataParallel(net, device_ids=[0, 1])\n")
    os.utime(path, (1_000_000, 1_000_000))
    run("--fix", "--unsafe-fixes", "a.py")
    assert path.stat().st_mtime == 1_000_000


def test_write_keeps_mode_encoding_bom_crlf_and_missing_final_newline(cwd):
    latin = b"# -*- coding: latin-1 -*-\nimport torch\nname = '\xe9'\ns = torch.cuda.amp.GradScaler()"
    bom = b"\xef\xbb\xbfimport torch\r\ns = torch.cuda.amp.GradScaler()\r\n"
    (cwd / "latin.py").write_bytes(latin)
    (cwd / "bom.py").write_bytes(bom)
    os.chmod(cwd / "bom.py", 0o751)
    assert run("--fix", ".").exit_code == 0
    new = b'torch.amp.GradScaler("cuda")'
    assert (cwd / "latin.py").read_bytes() == latin.replace(b"torch.cuda.amp.GradScaler()", new)
    assert (cwd / "bom.py").read_bytes() == bom.replace(b"torch.cuda.amp.GradScaler()", new)
    assert stat.S_IMODE((cwd / "bom.py").stat().st_mode) == 0o751
    assert [p.name for p in cwd.iterdir() if p.name.startswith(".torchlint-")] == []


def test_inserted_lines_follow_the_file_newlines(cwd):
    source = "import torch\r\ndef evaluate(model, x):\r\n    model.eval()\r\n    print(model(x).shape)\r\n"
    (cwd / "e.py").write_bytes(source.encode())
    run("--fix", "e.py")
    assert (cwd / "e.py").read_bytes() == (
        b"import torch\r\n@torch.no_grad()\r\ndef evaluate(model, x):\r\n    model.eval()\r\n    print(model(x).shape)\r\n"
    )


def test_symlinked_file_is_fixed_through_the_link(cwd):
    (cwd / "real.py").write_text(SAFE)
    os.symlink("real.py", cwd / "link.py")
    run("--fix", "link.py")
    assert os.path.islink(cwd / "link.py")
    assert (cwd / "real.py").read_text() == SAFE_FIXED


def test_noqa_lines_are_not_rewritten(cwd):
    source = "import torch\ns = torch.cuda.amp.GradScaler()  # noqa: TL602\nx = torch.zeros(3).cuda()  # noqa\n"
    (cwd / "a.py").write_text(source)
    assert run("--fix", "a.py").exit_code == 0
    assert (cwd / "a.py").read_text() == source


def test_fix_twice_equals_fix_once(cwd):
    source = (cwd / "a.py")
    source.write_text(SAFE + UNSAFE + "def ev(m, x):\n    m.eval()\n    return m(x)\n")
    run("--fix", "--unsafe-fixes", "a.py")
    once = source.read_text()
    result = run("--fix", "--unsafe-fixes", "a.py")
    assert source.read_text() == once
    assert "fixed" not in result.stderr


def test_diff_prints_and_writes_nothing(cwd):
    (cwd / "a.py").write_text(SAFE)
    result = run("--diff", "a.py")
    assert result.exit_code == 1
    assert (cwd / "a.py").read_text() == SAFE
    assert "\n-scaler = torch.cuda.amp.GradScaler()\n" in result.stdout
    assert '\n+scaler = torch.amp.GradScaler("cuda")\n' in result.stdout
    assert result.stdout.startswith("--- a/a.py\n+++ b/a.py\n")
    assert "Would fix 2 findings in 1 file." in result.stderr
    (cwd / "a.py").write_text(SAFE_FIXED)
    assert run("--diff", "a.py").exit_code == 0


def test_show_fixes(cwd):
    (cwd / "a.py").write_text(SAFE)
    result = run("--fix", "--show-fixes", "a.py")
    assert "Fixed 2 findings:" in result.stderr
    assert "a.py: 1 x TL102 (device-after-creation)" in result.stderr


def test_new_arguments_follow_the_call_layout(cwd):
    source = (
        "from torch.utils.data import DataLoader\n"
        "def build(ds):\n"
        "    if ds:\n"
        "        return DataLoader(\n"
        "            ds,\n"
        "            batch_size=4\n"
        "        )\n"
        "    return DataLoader(\n"
        "        ds,\n"
        "        shuffle=True,\n"
        "    )\n"
    )
    (cwd / "a.py").write_text(source)
    run("--fix", "--unsafe-fixes", "a.py")
    assert (cwd / "a.py").read_text() == (
        "from torch.utils.data import DataLoader\n"
        "def build(ds):\n"
        "    if ds:\n"
        "        return DataLoader(\n"
        "            ds,\n"
        "            batch_size=4,\n"
        "            num_workers=4,\n"
        "            persistent_workers=True\n"
        "        )\n"
        "    return DataLoader(\n"
        "        ds,\n"
        "        shuffle=True,\n"
        "        num_workers=4,\n"
        "        persistent_workers=True,\n"
        "    )\n"
    )


def test_unsafe_fixes_without_fix_only_mark_findings(cwd):
    (cwd / "a.py").write_text(UNSAFE)
    result = run("--unsafe-fixes", "a.py", "--output-format", "concise")
    assert "TL201 [*]" in result.stdout and (cwd / "a.py").read_text() == UNSAFE


def test_stdin_fix_writes_source_to_stdout(cwd):
    result = run("--fix", "-", "--stdin-filename", "train.py", input=SAFE)
    assert result.exit_code == 0
    assert result.stdout == SAFE_FIXED
    assert "2 fixed" in result.stderr


def test_stdin_fix_echoes_source_it_cannot_decode(cwd):
    data = b"import torch\nx = '\xff'\n"
    result = CliRunner().invoke(main, ["check", "--fix", "-"], input=data)
    assert result.stdout_bytes == data
    assert result.exit_code == 1 and "TL000" in result.stderr


def test_stdin_fix_keeps_the_declared_encoding(cwd):
    data = b"# -*- coding: latin-1 -*-\nimport torch\nname = '\xe9'\ns = torch.cuda.amp.GradScaler()\n"
    result = CliRunner().invoke(main, ["check", "--fix", "-"], input=data)
    assert result.stdout_bytes == data.replace(b"torch.cuda.amp.GradScaler()", b'torch.amp.GradScaler("cuda")')


def test_stdin_check_uses_the_filename_for_messages_and_config(cwd):
    (cwd / "pyproject.toml").write_text('[tool.torchlint.per-file-ignores]\n"gen_*.py" = ["TL602"]\n')
    result = run("-", "--stdin-filename", "train.py", "--output-format", "concise", input=SAFE)
    assert result.stdout.startswith("train.py:2:10: TL602")
    result = run("-", "--stdin-filename", "gen_x.py", "--output-format", "concise", input=SAFE)
    assert "TL602" not in result.stdout and "TL102" in result.stdout
    assert run("-", "other.py", input=SAFE).exit_code == 2


def _finding(line: int, column: int, end_column: int, content: str) -> Finding:
    edit = Edit(line, column, line, end_column, content)
    return Finding("TL999", "x", "m", "p.py", line, column, line, end_column, Fix(Applicability.SAFE, (edit,)))


def test_overlapping_edits_are_never_applied_together():
    text = "abcdef\n"
    first, overlapping, later = _finding(1, 1, 4, "X"), _finding(1, 3, 5, "Y"), _finding(1, 5, 7, "Z")
    fixed, applied = apply_fixes(text, [later, overlapping, first])
    assert fixed == "XdZ\n"
    assert applied == [first, later]
    inserts = [_finding(1, 2, 2, "1"), _finding(1, 2, 2, "2")]
    assert apply_fixes(text, inserts)[0] == "a1bcdef\n"


def _break_first_fix(monkeypatch):
    """Make every TL602 fix produce code that does not parse."""
    import torchlint.engine.fixer as fixer

    original = fixer.apply_fixes

    def apply(text, findings):
        broken = {
            id(f): replace(f, fix=replace(f.fix, edits=(replace(f.fix.edits[0], content="def (:"),))) if f.code == "TL602" else f
            for f in findings
        }
        originals = {id(new): f for f in findings for new in [broken[id(f)]]}
        fixed, applied = original(text, list(broken.values()))
        return fixed, [originals[id(f)] for f in applied]

    monkeypatch.setattr(fixer, "apply_fixes", apply)


def test_a_fix_that_would_break_the_file_is_dropped_alone(monkeypatch):
    _break_first_fix(monkeypatch)
    result = fix_text(SAFE, "a.py", all_rules(), Options(preview=True), unsafe=False)
    assert result.text == SAFE.replace("torch.zeros(3).cuda()", 'torch.zeros(3, device="cuda")')
    assert [f.code for f in result.fixed] == ["TL102"]
    assert result.warning == "fix dropped (TL602 at line 2): the result would not parse"
    assert [f.code for f in result.remaining] == ["TL602"]


def test_dropped_fix_is_reported_and_counted(cwd, monkeypatch):
    _break_first_fix(monkeypatch)
    (cwd / "a.py").write_text(SAFE)
    result = run("--fix", "a.py", "--jobs", "1")
    assert (cwd / "a.py").read_text() == SAFE.replace("torch.zeros(3).cuda()", 'torch.zeros(3, device="cuda")')
    assert "torchlint: warning: a.py: fix dropped (TL602 at line 2): the result would not parse" in result.stderr
    assert "Found 2 findings (1 fixed, 1 remaining)" in result.stderr
    assert result.exit_code == 1


def test_real_fixes_that_would_break_parsing_are_dropped_one_by_one(cwd):
    """Two empty_cache calls alone in a loop: removing both would leave an empty block."""
    source = "import torch\nfor x in loader:\n    torch.cuda.empty_cache()\n    torch.cuda.empty_cache()\n"
    (cwd / "a.py").write_text(source)
    result = run("--fix", "--unsafe-fixes", "a.py")
    assert (cwd / "a.py").read_text() == "import torch\nfor x in loader:\n    pass\n    pass\n"
    assert "warning" not in result.stderr and "(2 fixed, 0 remaining)" in result.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_unwritable_directory_is_an_error_not_a_traceback(cwd):
    (cwd / "ro").mkdir()
    (cwd / "ro" / "a.py").write_text(SAFE)
    os.chmod(cwd / "ro", 0o555)
    try:
        if os.access(cwd / "ro", os.W_OK):
            pytest.skip("running as a user who can write anywhere")
        result = run("--fix", "ro/a.py")
        assert result.exit_code == 2 and "cannot write fixes" in result.stderr
    finally:
        os.chmod(cwd / "ro", 0o755)
