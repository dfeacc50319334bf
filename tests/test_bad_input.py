"""Nothing a user can feed torchlint produces a traceback."""

from __future__ import annotations

import ast
import json
import os

import pytest
from click.testing import CliRunner

from torchlint.cli import main
from torchlint.files.syntax import MAX_NESTING, ast_children, nested_too_deeply

LOOP_BODY = "for x in loader:\n    total += x.cuda().item()\n"


def check(*args):
    result = CliRunner().invoke(main, ["check", "--output-format", "json", *args])
    assert "Traceback" not in result.output and result.exception is None or isinstance(result.exception, SystemExit)
    return result


def findings(result):
    return [(d["path"], d["code"], d["line"]) for d in json.loads(result.stdout)] if result.stdout else []


@pytest.fixture
def cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_syntax_error_is_tl000_and_other_files_are_still_checked(cwd):
    (cwd / "broken.py").write_text("import torch\ndef train(:\n    pass\n")
    (cwd / "good.py").write_text("import torch\n" + LOOP_BODY)
    result = check()
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert [(d["path"], d["code"]) for d in data] == [("broken.py", "TL000"), ("good.py", "TL101")]
    assert data[0]["line"] == 2 and data[0]["message"].startswith("cannot parse:")
    assert "\n" not in data[0]["message"]


def test_syntax_error_in_a_file_without_torch_is_reported_too(cwd):
    (cwd / "util.py").write_text("x = (\n")
    [finding] = json.loads(check().stdout)
    assert (finding["code"], finding["line"], finding["message"]) == ("TL000", 1, "cannot parse: '(' was never closed")


def test_indentation_cpython_accepts_but_libcst_rejects_is_analysed_without_fixes(cwd):
    # A body indented by eight spaces then three tabs under a line of two tabs: CPython reads
    # tabs to columns of eight; LibCST's tokenizer finds no matching block at the dedent.
    source = "import torch\nfor x in loader:\n\twith ctx:\n\t\twith ctx2:\n        \t\t\ttotal += x.cuda().item()\n\t\ty = 1\n"
    ast.parse(source)
    (cwd / "mixed.py").write_text(source)
    data = json.loads(check("--no-cache", "--unsafe-fixes").stdout)
    assert [(d["code"], d["line"], d["fix"]) for d in data] == [("TL101", 5, None)]


def test_parse_errors_can_be_ignored(cwd):
    (cwd / "broken.py").write_text("def train(:\n")
    assert check("--ignore", "TL000").exit_code == 0


def test_non_utf8_without_cookie(cwd):
    (cwd / "latin.py").write_bytes(b"import torch\nname = '\xe9t\xe9'\n")
    result = check()
    [finding] = json.loads(result.stdout)
    assert finding["code"] == "TL000" and "not valid utf-8" in finding["message"]


def test_coding_cookie_bom_and_crlf_are_read(cwd):
    (cwd / "cookie.py").write_bytes(b"# -*- coding: latin-1 -*-\nimport torch\nname = '\xe9'\n" + LOOP_BODY.encode())
    (cwd / "bom.py").write_bytes(b"\xef\xbb\xbfimport torch\n" + LOOP_BODY.encode())
    (cwd / "crlf.py").write_bytes(("import torch\n" + LOOP_BODY).replace("\n", "\r\n").encode())
    result = check()
    assert findings(result) == [("bom.py", "TL101", 3), ("cookie.py", "TL101", 5), ("crlf.py", "TL101", 3)]
    columns = {d["path"]: d["column"] for d in json.loads(result.stdout)}
    assert columns == {"bom.py": 23, "cookie.py": 23, "crlf.py": 23}


def test_unknown_encoding_cookie(cwd):
    (cwd / "odd.py").write_bytes(b"# -*- coding: klingon -*-\nimport torch\n")
    [finding] = json.loads(check().stdout)
    assert finding["code"] == "TL000" and "klingon" in finding["message"]


def test_empty_and_whitespace_files(cwd):
    (cwd / "empty.py").write_bytes(b"")
    (cwd / "blank.py").write_bytes(b"\n\n   \n")
    (cwd / "comment.py").write_bytes(b"# torch")
    result = check()
    assert result.exit_code == 0 and findings(result) == []


def test_binary_file(cwd):
    (cwd / "blob.py").write_bytes(b"\x00\x01\x02torch\xff\xfe")
    [finding] = json.loads(check().stdout)
    assert finding["code"] == "TL000" and "binary" in finding["message"]


def test_missing_path_exit_2(cwd):
    result = check("nope.py")
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines()[0] == "torchlint: error: nope.py: no such file or directory"


def test_directory_symlink_loop(cwd):
    (cwd / "pkg").mkdir()
    (cwd / "pkg" / "train.py").write_text("import torch\n" + LOOP_BODY)
    os.symlink("..", cwd / "pkg" / "loop")
    result = check()
    assert result.exit_code == 1
    assert findings(result) == [("pkg/train.py", "TL101", 3)]
    assert "pkg/loop: symbolic link loop, skipped" in result.stderr


def test_unreadable_file(cwd):
    target = cwd / "secret.py"
    target.write_text("import torch\n")
    target.chmod(0)
    try:
        if os.access(target, os.R_OK):
            pytest.skip("running as a user who can read any file")
        result = check("secret.py")
        assert result.exit_code == 2 and "secret.py: cannot read" in result.stderr
    finally:
        target.chmod(0o644)


@pytest.mark.parametrize(
    "source",
    [
        "import torch\nx = " + "(" * 300 + "1" + ")" * 300 + "\n",
        "x = " + "[" * 5000 + "]" * 5000 + "\n",
        "import torch\nx = torch.zeros(3).cuda() + " + " + ".join(["1"] * 30000) + "\n",
        "import torch\nx = (torch.zeros(3).cuda()\n" + "".join(["    + 1\n"] * 30000) + ")\n",
    ],
    ids=["parentheses", "brackets", "very-long-sum", "very-long-sum-over-lines"],
)
def test_deeply_nested_code_is_a_parse_error_not_a_crash(cwd, source):
    (cwd / "deep.py").write_text(source)
    (cwd / "good.py").write_text("import torch\n" + LOOP_BODY)
    result = check()
    codes = [code for _, code, _ in findings(result)]
    assert codes == ["TL000", "TL101"] and result.exit_code == 1


@pytest.mark.parametrize("terms", [450, 3000])
def test_long_expressions_are_analysed(cwd, terms):
    """Unless this Python's own parser refuses them: CPython 3.12.1's `compile()` raises
    RecursionError on 3,000 terms, where 3.10, 3.11 and 3.13 accept them."""
    source = "import torch\nwhile True:\n    x = torch.zeros(3).cuda() + " + " + ".join(["1"] * terms) + "\n"
    (cwd / "long.py").write_text(source)
    expected = ("long.py", "TL000", 1) if _python_refuses(source) else ("long.py", "TL102", 3)
    assert findings(check()) == [expected]


def _python_refuses(source: str) -> bool:
    """Whether this Python's own parser refuses `source` as too deep (at torchlint's
    recursion limit, which importing the CLI set)."""
    try:
        compile(source, "<test>", "exec", ast.PyCF_ONLY_AST)
    except RecursionError:
        return True
    return False


@pytest.mark.parametrize(
    "shape",
    [
        lambda levels: "x = a" + ".b" * levels,
        lambda levels: "x = " + "-" * levels + "1",
        lambda levels: "x = (0\n" + "  + 1\n" * levels + ")",
        lambda levels: "def f():\n    return a" + ".b" * levels,
    ],
    ids=["attributes", "unary", "sum-over-lines", "in-a-function"],
)
def test_nesting_is_measured_on_one_line_and_over_many(shape):
    deep, shallow = shape(MAX_NESTING + 10), shape(MAX_NESTING - 100)
    if _python_refuses(deep):
        pytest.skip("this Python's parser refuses the code itself")
    assert nested_too_deeply(ast.parse(deep)) and not nested_too_deeply(ast.parse(shallow))


def test_an_internal_error_costs_one_file(cwd, monkeypatch):
    def broken(*args, **kwargs):
        raise ValueError("boom")

    (cwd / "a.py").write_text("import torch\n" + LOOP_BODY)
    monkeypatch.setattr("torchlint.engine.runner.decode_source", broken)
    result = check("--no-cache")
    assert result.exit_code == 2
    assert "a.py: internal error: ValueError: boom" in result.stderr


def test_unknown_rule_code_for_rule_command():
    result = CliRunner().invoke(main, ["rule", "TL123"])
    assert result.exit_code == 2 and "unknown rule 'TL123'" in result.stderr


EVERY_KIND_OF_FIELD = """
global counter
def f(a, /, b=1, *args, c, d=2, **kw) -> int:
    nonlocal_free = {**kw, "x": a}
    match a:
        case Point(x=0, y=yy) if yy > 1:
            pass
    return [i async for i in g()] if not a < b <= c else f"{a!r:>{b}}" + (lambda q=1: q)(a)
"""


def test_child_nodes_read_from_the_grammar_are_iter_child_nodes_without_expression_contexts():
    for node in ast.walk(ast.parse(EVERY_KIND_OF_FIELD)):
        expected = [child for child in ast.iter_child_nodes(node) if not isinstance(child, ast.expr_context)]
        assert ast_children(node) == expected, ast.dump(node)
