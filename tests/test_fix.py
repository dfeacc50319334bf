"""`--fix`: exact rewrites, atomic faithful writes, idempotence, and never breaking code."""

from __future__ import annotations

import os
import stat
import sys

import pytest
from click.testing import CliRunner

from torchlint.cli import main
from torchlint.engine.context import Options
from torchlint.engine.findings import Applicability, Edit, Finding, Fix
from torchlint.engine.fixer import apply_fixes, fix_text
from torchlint.engine.rule import all_rules

SAFE = "import torch\noptimizer.zero_grad(set_to_none=False)\nwhile True:\n    x = torch.zeros(3).cuda()\n"
SAFE_FIXED = "import torch\noptimizer.zero_grad()\nwhile True:\n    x = torch.zeros(3, device=\"cuda\")\n"
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
    (cwd / "a.py").write_text("import torch.nn as nn\nm = nn.DataParallel(net)\n" + SAFE)
    result = run("--fix", "a.py", "--output-format", "concise")
    assert result.exit_code == 1
    assert "TL501" in result.stdout and "(2 fixed, 1 remaining)" in result.stderr


def test_files_without_fixes_are_not_written(cwd):
    path = cwd / "a.py"
    path.write_text("import torch.nn as nn\nm = nn.DataParallel(net)\n")
    os.utime(path, (1_000_000, 1_000_000))
    run("--fix", "--unsafe-fixes", "a.py")
    assert path.stat().st_mtime == 1_000_000


def test_write_keeps_mode_encoding_bom_crlf_and_missing_final_newline(cwd):
    latin = b"# -*- coding: latin-1 -*-\nimport torch\nname = '\xe9'\noptimizer.zero_grad(set_to_none=False)"
    bom = b"\xef\xbb\xbfimport torch\r\noptimizer.zero_grad(set_to_none=False)\r\n"
    (cwd / "latin.py").write_bytes(latin)
    (cwd / "bom.py").write_bytes(bom)
    os.chmod(cwd / "bom.py", 0o751)
    assert run("--fix", ".").exit_code == 0
    assert (cwd / "latin.py").read_bytes() == latin.replace(b"set_to_none=False", b"")
    assert (cwd / "bom.py").read_bytes() == bom.replace(b"set_to_none=False", b"")
    assert stat.S_IMODE((cwd / "bom.py").stat().st_mode) == 0o751
    assert [p.name for p in cwd.iterdir() if p.name.startswith(".torchlint-")] == []


def test_inserted_lines_follow_the_file_newlines(cwd):
    source = "import torch\r\ndef evaluate(model, x):\r\n    model.eval()\r\n    print(model(x))\r\n"
    (cwd / "e.py").write_bytes(source.encode())
    run("--fix", "e.py")
    assert (cwd / "e.py").read_bytes() == (
        b"import torch\r\n@torch.no_grad()\r\ndef evaluate(model, x):\r\n    model.eval()\r\n    print(model(x))\r\n"
    )


def test_symlinked_file_is_fixed_through_the_link(cwd):
    (cwd / "real.py").write_text(SAFE)
    os.symlink("real.py", cwd / "link.py")
    run("--fix", "link.py")
    assert os.path.islink(cwd / "link.py")
    assert (cwd / "real.py").read_text() == SAFE_FIXED


def test_noqa_lines_are_not_rewritten(cwd):
    source = "import torch\noptimizer.zero_grad(set_to_none=False)  # noqa: TL401\nx = torch.zeros(3).cuda()  # noqa\n"
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
    assert "\n-optimizer.zero_grad(set_to_none=False)\n" in result.stdout
    assert "\n+optimizer.zero_grad()\n" in result.stdout
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
    data = b"# -*- coding: latin-1 -*-\nimport torch\nname = '\xe9'\noptimizer.zero_grad(set_to_none=False)\n"
    result = CliRunner().invoke(main, ["check", "--fix", "-"], input=data)
    assert result.stdout_bytes == data.replace(b"set_to_none=False", b"")


def test_stdin_check_uses_the_filename_for_messages_and_config(cwd):
    (cwd / "pyproject.toml").write_text('[tool.torchlint.per-file-ignores]\n"gen_*.py" = ["TL401"]\n')
    result = run("-", "--stdin-filename", "train.py", "--output-format", "concise", input=SAFE)
    assert result.stdout.startswith("train.py:2:1: TL401")
    result = run("-", "--stdin-filename", "gen_x.py", "--output-format", "concise", input=SAFE)
    assert "TL401" not in result.stdout and "TL102" in result.stdout
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


def test_a_fix_that_would_break_the_file_is_dropped(monkeypatch):
    import torchlint.engine.fixer as fixer

    monkeypatch.setattr(fixer, "apply_fixes", lambda text, findings: ("def (:\n", list(findings)))
    result = fix_text(SAFE, "a.py", all_rules(), Options(), unsafe=False)
    assert result.text == SAFE and result.fixed == ()
    assert "would not parse" in result.warning
    assert {f.code for f in result.remaining} == {"TL401", "TL102"}


def test_dropped_fix_is_reported_and_file_untouched(cwd, monkeypatch):
    import torchlint.engine.fixer as fixer

    monkeypatch.setattr(fixer, "apply_fixes", lambda text, findings: ("def (:\n", list(findings)))
    (cwd / "a.py").write_text(SAFE)
    result = run("--fix", "a.py", "--jobs", "1")
    assert (cwd / "a.py").read_text() == SAFE
    assert "torchlint: warning: a.py: fixes (TL102, TL401) were dropped" in result.stderr
    assert result.exit_code == 1


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
