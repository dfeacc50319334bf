"""`# noqa` suppression."""

from __future__ import annotations

from conftest import codes

from torchlint.noqa import BLANKET, comment_start, noqa_codes

LOOP = "import torch\nfor x in loader:\n    {line}\nmodel.cuda()\n"


def test_blanket_and_specific_codes():
    assert codes(LOOP.format(line="a = x.item()  # noqa")) == []
    assert codes(LOOP.format(line="a = x.item()  # noqa: TL101")) == []
    assert codes(LOOP.format(line="a = x.item()  # NOQA:TL201,TL101")) == []
    assert codes(LOOP.format(line="a = x.item()  # noqa: TL201")) == ["TL101"]


def test_noqa_inside_a_string_does_not_count():
    assert codes(LOOP.format(line="a = x.item(); s = '# noqa'")) == ["TL101"]


def test_noqa_applies_to_the_reported_line_of_a_multiline_call():
    code = "from torch.utils.data import DataLoader\nloader = DataLoader(  # noqa: TL201\n    ds,\n)\n"
    assert codes(code) == []
    code = "from torch.utils.data import DataLoader\nloader = DataLoader(\n    ds,  # noqa: TL201\n)\n"
    assert codes(code) == ["TL201"]


def test_parsing():
    assert noqa_codes("x = 1") is None
    assert noqa_codes("x = 1  # noqa") is BLANKET
    assert noqa_codes("x = 1  # noqa: TL101, E501 because reasons") == {"TL101", "E501"}
    assert noqa_codes("x = '#'  # comment") is None
    assert comment_start("s = '''#''' # c") == 12
    assert comment_start('s = "a\\"#"') is None
