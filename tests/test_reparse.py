"""Re-parsing an edited text gives the tree a whole parse gives, reusing the untouched statements."""

from __future__ import annotations

import ast
import random

import libcst as cst
import pytest

from torchlint.engine.linter import _parse_valid
from torchlint.engine.reparse import Reparser

MODULE = '''"""A module."""

import torch

LIMIT = 3


def first(x):
    return x + 1
    # a comment indented as the body


def middle(loader, model):
    for batch in loader:
        if batch:
            model(batch)

        # deeper than the next statement
    return model

# a comment at column 0

class Last:
    def step(self):
        pass
'''


def _reparsed(old: str, new: str) -> tuple[cst.Module, cst.Module]:
    reparser = Reparser()
    before = reparser.parse(old, ast.parse(old), _parse_valid)
    return before, reparser.parse(new, ast.parse(new), _parse_valid)


def _edit(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("            model(batch)\n", "            model(batch)\n            model.step()\n"),  # inside a function
        ("    return model\n", "    return model\n    # now a footer of the function\n"),  # a block's footer
        ("# a comment at column 0\n", "    # indented now\n"),  # the lines between two statements
        ("        pass\n", "        return 1\n"),  # the last statement
        ("def middle(loader, model):\n", "def middle(loader, model, extra):\n"),
        ("class Last:\n", "def added():\n    pass\n\n\nclass Last:\n"),  # a new statement
    ],
)
def test_an_edit_reparses_to_the_tree_of_a_whole_parse(old: str, new: str) -> None:
    edited = _edit(MODULE, old, new)
    before, after = _reparsed(MODULE, edited)
    assert after.deep_equals(cst.parse_module(edited))
    assert after.code == edited
    assert any(a is b for a, b in zip(after.body, before.body))  # statements before the edit are reused


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('"""A module."""\n', '"""A module, edited."""\n'),  # the first statement
        ("    return x + 1\n", "    return x + 2\n"),  # the first indented block (the module's indentation)
        ("            model(batch)\n", "\t\t\tmodel(batch)\n"),  # another indentation than the module's
        ("    for batch in loader:\n", "    for batch in loader:  \\\n"),  # a continued line
    ],
)
def test_an_edit_that_cannot_be_shown_safe_is_parsed_whole(old: str, new: str) -> None:
    edited = _edit(MODULE, old, new)
    try:
        ast.parse(edited)
    except SyntaxError:
        return  # the linter does not re-parse texts CPython rejects
    before, after = _reparsed(MODULE, edited)
    assert after.deep_equals(cst.parse_module(edited))
    assert not any(a is b for a, b in zip(after.body, before.body))


def test_random_line_edits_of_a_real_file_reparse_exactly() -> None:
    pieces = ["    # c\n", "# c\n", "\n", "x = 1\n", "def h():\n    pass\n", "    y = 2\n", "        # deep\n", "@dec\n", "\tz\n"]
    rng = random.Random(3)
    reparser = Reparser()
    text = MODULE * 3
    reparser.parse(text, ast.parse(text), _parse_valid)
    reused = 0
    for _ in range(200):
        lines = text.splitlines(True)
        index = rng.randrange(len(lines))
        if rng.random() < 0.6:
            lines.insert(index, rng.choice(pieces))
        else:
            del lines[index]
        new = "".join(lines)
        try:
            tree = ast.parse(new)
        except SyntaxError:
            continue
        last = reparser.last
        module = reparser.parse(new, tree, _parse_valid)
        assert module.deep_equals(cst.parse_module(new)), new
        reused += last is not None and any(a is b for a, b in zip(module.body, last.module.body))
        text = new
    assert reused > 20
