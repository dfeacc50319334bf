"""Fixes that add code put it where Python allows it, bind what they write, and say why a
fix is downgraded or withheld. The programs in `tests/fixes/` check behaviour; these check
the edits themselves."""

from __future__ import annotations

import json
import textwrap

from click.testing import CliRunner

from torchlint.cli import main
from torchlint.engine.fixer import fix_text
from torchlint.engine.rule import all_rules
from conftest import preview_options


def fixed(code: str, *codes: str, unsafe: bool = True) -> str:
    rules = [rule for rule in all_rules() if rule.code in codes]
    return fix_text(textwrap.dedent(code), "a.py", rules, preview_options(), unsafe).text


def test_import_goes_after_the_last_import_above_the_function_and_is_reused():
    code = '''
    """Docstring."""
    from __future__ import annotations
    import os
    import torch.nn as nn

    def evaluate(model, x):
        model.eval()
        print(model(x).shape)

    def validate(model, x):
        model.eval()
        print(model(x).shape)
    '''
    once = fixed(code, "TL402")
    assert once.count("import torch\n") == 1
    assert once.index("import torch.nn as nn") < once.index("import torch\n") < once.index("@torch.no_grad()\ndef evaluate")
    assert once.count("@torch.no_grad()") == 2
    assert fixed(once, "TL402") == once


def test_a_later_import_is_not_relied_on_and_nothing_stacks():
    code = """
    def evaluate(model, x):
        model.eval()
        print(model(x).shape)

    import torch
    """
    once = fixed(code, "TL402")
    assert once.lstrip().startswith("import torch\n@torch.no_grad()\ndef evaluate") and once.count("@torch.no_grad()") == 1
    assert fixed(once, "TL402") == once


def test_decorator_goes_below_existing_decorators_and_text_never_between_decorator_and_def():
    code = """
    import functools
    import torch

    @functools.lru_cache(None)
    def evaluate(model):
        model.eval()
        model(1)

    def train(loader):
        total = 0.0
        for x in loader:
            total += torch.ones(2).to(x).sum().item()
    @functools.lru_cache(None)
    def other():
        pass
    """
    text = fixed(code, "TL402", "TL101")
    assert "@functools.lru_cache(None)\n@torch.no_grad()\ndef evaluate" in text
    compile(text, "a.py", "exec")


def test_no_import_above_a_notebook_cell_magic(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cells = ["%%capture\n!pip install torch\n", "def evaluate(model, x):\n    model.eval()\n    print(model(x).shape)\n", "import torch.nn as nn\n"]
    notebook = {
        "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": s} for s in cells],
        "metadata": {"language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (tmp_path / "n.ipynb").write_text(json.dumps(notebook))
    result = CliRunner().invoke(main, ["check", "--fix", "--no-cache", "--select", "TL402", "n.ipynb"])
    sources = [cell["source"] for cell in json.loads((tmp_path / "n.ipynb").read_text())["cells"]]
    assert sources[0].startswith("%%capture\n")
    assert sources[:2] == cells[:2]
    assert "fix: none: `torch` cannot be imported above the function" in result.stdout


def test_reasons_are_part_of_the_message():
    code = "import torch\ndevice = torch.device('cuda')\nfor batch in loader:\n    x = torch.zeros(3, **kw).to(device)\n    y = torch.randn(2).to(device)\n"
    result = CliRunner().invoke(main, ["check", "--no-cache", "--select", "TL102", "--output-format", "concise", "-"], input=code)
    assert "(fix: none: the factory call has **kwargs)" in result.stdout
    assert "(fix: unsafe: the device's random generator draws other numbers)" in result.stdout


def test_a_torch_alias_rebound_later_is_not_written():
    code = """
    import torch as th
    from torch.cuda.amp import GradScaler
    th = None
    scaler = GradScaler()
    """
    assert fixed(code, "TL602") == textwrap.dedent(code)
    attribute_set = "import torch\ntorch.backends.cudnn.benchmark = True\nscaler = torch.cuda.amp.GradScaler()\n"
    assert fixed(attribute_set, "TL602").endswith('scaler = torch.amp.GradScaler("cuda")\n')
    typing_only = """
    from typing import TYPE_CHECKING
    from torch.cuda.amp import GradScaler
    if TYPE_CHECKING:
        import torch
    scaler = GradScaler()
    """
    assert 'from torch.cuda.amp import GradScaler\nimport torch\n' in fixed(typing_only, "TL602")


def test_factories_computed_with_rounding_are_moved_only_by_an_unsafe_fix():
    """The device's `linspace`/`arange` kernels round fractional values differently from the
    CPU's, which a CPU-only differential program cannot show."""
    code = (
        "import torch\ndevice = torch.device('cuda')\nfor batch in loader:\n"
        "    a = torch.linspace(0, 1, 7).to(device)\n    b = torch.arange(0, 1, 0.1).to(device)\n"
        "    c = torch.arange(batch.size(0) - 1).to(device)\n"
    )
    safe = fixed(code, "TL102", unsafe=False)
    assert "torch.linspace(0, 1, 7).to(device)" in safe and "torch.arange(0, 1, 0.1).to(device)" in safe
    assert "torch.arange(batch.size(0) - 1, device=device)" in safe
    assert "torch.linspace(0, 1, 7, device=device)" in fixed(code, "TL102")


def test_a_batch_changed_in_place_by_out_or_a_helper_is_not_copied_asynchronously():
    """The copy may still read the pinned memory when the host changes it: a race only a
    GPU would show."""
    code = """
    import torch
    from torch.utils.data import DataLoader

    def clip_(t):
        t.clamp_(0, 1)

    loader = DataLoader(data, batch_size=2, pin_memory=True)
    for epoch in range(9):
        for x, y in loader:
            xg, yg = x.cuda(), y.cuda()
            torch.clamp(x, 0, 1, out=x)
            clip_(y)
            model(xg, yg).backward()
    """
    assert "non_blocking" not in fixed(code, "TL106")
    assert fixed(code.replace("out=x", "out=z").replace("clip_(y)", "clip_(z)"), "TL106").count("non_blocking=True") == 2
