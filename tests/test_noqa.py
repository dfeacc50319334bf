"""`# noqa` suppression, TL001 unused-noqa and `--add-noqa`."""

from __future__ import annotations

import textwrap

from click.testing import CliRunner
from conftest import codes, lint, preview_options

from torchlint.engine.add_noqa import add_noqa
from torchlint.cli import main
from torchlint.engine.findings import Finding
from torchlint.engine.noqa import noqa_comments

LOOP = "import torch\nfor x in loader:\n    {line}\nmodel.cuda()\n"


def test_blanket_and_specific_codes():
    assert codes(LOOP.format(line="a = x.cuda().item()  # noqa")) == []
    assert codes(LOOP.format(line="a = x.cuda().item()  # noqa: TL101")) == []
    assert codes(LOOP.format(line="a = x.cuda().item()  # NOQA:TL201,TL101")) == ["TL001"]
    assert codes(LOOP.format(line="a = x.cuda().item()  # noqa: TL201")) == ["TL101", "TL001"]


def test_noqa_inside_a_string_does_not_count():
    assert codes(LOOP.format(line="a = x.cuda().item(); s = '# noqa'")) == ["TL101"]
    text = 'import torch\ns = """\n# noqa: TL101\n"""\n'
    assert noqa_comments(text) == {}
    assert codes(text) == []


def test_noqa_applies_to_the_reported_line_of_a_multiline_call():
    code = "from torch.utils.data import DataLoader\nloader = DataLoader(  # noqa: TL201\n    ds,\n)\n"
    assert codes(code) == []
    code = "from torch.utils.data import DataLoader\nloader = DataLoader(\n    ds,  # noqa: TL201\n)\n"
    assert codes(code) == ["TL201", "TL001"]


def test_parsing():
    [comment] = noqa_comments("x = 1  # noqa: TL101, E501 because reasons\n").values()
    assert comment.codes == ("TL101", "E501") and (comment.line, comment.start) == (1, 7)
    [blanket] = noqa_comments("x = 1  # NoQA\n").values()
    assert blanket.codes is None and blanket.suppresses("TL999")
    assert noqa_comments("x = '#'  # comment\n") == {}
    assert noqa_comments("x = 1\n") == {}


def test_unused_and_unknown_codes():
    [finding] = lint("x = 1  # noqa: TL101\n", ["TL001", "TL101"])
    assert (finding.code, finding.message, finding.column, finding.end_column) == ("TL001", "unused `noqa` code TL101", 8, 21)
    [finding] = lint("x = 1  # noqa: TL999, TL101\n", ["TL001", "TL101"])
    assert finding.message == "unused `noqa` code TL101; unknown code TL999"


def test_unused_noqa_leaves_other_linters_blanket_and_disabled_rules_alone():
    assert lint("x = 1  # noqa: E501\n") == []
    assert lint("x = 1  # noqa\n") == []
    assert lint("x = 1  # noqa: TL101\n", ["TL001"]) == []
    assert lint("x = 1  # noqa: TL101, TL001\n") == []


def test_unused_noqa_fix():
    from torchlint.engine.fixer import fix_text
    from torchlint.engine.rule import all_rules

    def fixed(text):
        return fix_text(textwrap.dedent(text), "a.py", all_rules(), preview_options(), unsafe=False).text

    assert fixed("x = 1  # noqa: TL101\n") == "x = 1\n"
    assert fixed("x = 1  # noqa: TL101, E501\n") == "x = 1  # noqa: E501\n"
    assert fixed("x = 1  # type: ignore  # noqa: TL999\n") == "x = 1  # type: ignore\n"
    assert fixed("x = 1  # noqa: TL999  # type: ignore\n") == "x = 1  # type: ignore\n"
    assert fixed("x = 1  # noqa: TL999  # noqa: TL998\n") == "x = 1\n"
    kept = "import torch\nopt.zero_grad(set_to_none=False)  # noqa: TL401, TL102\n"
    assert fixed(kept) == "import torch\nopt.zero_grad(set_to_none=False)  # noqa: TL401\n"


def test_add_noqa_function():
    text = "import torch\nopt.zero_grad(set_to_none=False)\nm = x  # noqa: E501\ns = '''\nend'''\n"
    assert add_noqa(text, []) == text
    fake = [Finding("TL501", "n", "m", "a.py", line, 1, line, 2) for line in (2, 3, 4)]
    assert add_noqa(text, fake) == (
        "import torch\nopt.zero_grad(set_to_none=False)  # noqa: TL501\nm = x  # noqa: E501, TL501\ns = '''\nend'''\n"
    )


def test_add_noqa_command(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    source = "import torch\r\nfor x in loader:\r\n    total += model(x.cuda()).item()\r\nopt.zero_grad(set_to_none=False)\r\n"
    (tmp_path / "a.py").write_bytes(source.encode())
    result = CliRunner().invoke(main, ["check", "--add-noqa", "a.py"])
    assert result.exit_code == 0, result.output
    assert "Added 2 noqa directives" in result.stderr
    assert (tmp_path / "a.py").read_bytes().decode() == source.replace(
        ".item()\r\n", ".item()  # noqa: TL101\r\n"
    ).replace("False)\r\n", "False)  # noqa: TL401\r\n")
    assert CliRunner().invoke(main, ["check", "a.py"]).exit_code == 0


def test_comments_after_the_last_noqa_are_not_read():
    text = "x = 1  # noqa: TL101\ny = 2  # NOQA\ns = '''unterminated\n"
    assert sorted(noqa_comments(text)) == [1, 2]
    assert noqa_comments("s = 'noqa'\nx = 1  # a comment\n") == {}
