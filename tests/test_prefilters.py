"""Files and rules skipped before LibCST parses a file, and the shortcuts of textual facts:
each skip must be one where nothing could have been reported."""

from __future__ import annotations

import pytest

from conftest import codes

from torchlint.engine import linter
from torchlint.engine.context import FileContext, mentions_device
from torchlint.engine.options import Options
from torchlint.engine.rule import Rule, all_rules
from torchlint.files.syntax import text_facts
from torchlint.semantics import project

LOOP = "for x in loader:\n    loss = model(x.cuda()).sum()\n    loss.backward()\n    print(loss.item())\n"


def _parses(monkeypatch, text: str) -> bool:
    """Whether linting `text` with every rule hands it to LibCST."""
    handed = []
    parse = linter._parse_valid
    monkeypatch.setattr(linter, "_parse_valid", lambda source: handed.append(source) or parse(source))
    linter.lint_text(text, "train.py", all_rules(), Options(preview=True))
    return bool(handed)


def test_imported_packages_are_read_from_every_block():
    text = (
        "from . import torch\nfrom .torch import nn\nimport os.path\n"
        "try:\n    import numpy as np\nexcept ImportError:\n    from scipy import linalg\n"
        "class A:\n    def f(self):\n        if x:\n            import lightning.pytorch as pl\n"
        "match y:\n    case 1:\n        from torchvision.models import resnet18\n"
        "x = 'import torch'\n"
    )
    assert text_facts(text).imported == {"os", "numpy", "scipy", "lightning", "torchvision"}


def test_a_file_that_does_not_import_torch_is_not_parsed(monkeypatch):
    text = "# torch is optional here\n" + LOOP.replace("loss.backward()", "loss.sum()")
    assert not _parses(monkeypatch, text)
    assert codes(text) == []
    # A backward pass is PyTorch training code, imported or not (a trainer subclass whose
    # tensors come from its base class's module), unless another autograd library is imported.
    assert _parses(monkeypatch, LOOP) and codes(LOOP, ["TL101"]) == ["TL101"]
    assert codes("import mxnet as mx\n" + LOOP, ["TL101"]) == []
    assert codes(LOOP + "torch.cuda.empty_cache()\n", ["TL101"]) == []  # `torch` never imported: a NameError
    commented = LOOP.replace("loss.backward()", "loss.sum()  # then loss.backward() in the trainer")
    assert codes(commented, ["TL101"]) == []  # a backward pass only in a comment makes no PyTorch code
    nested = "def train():\n    import torch\n" + "".join(f"    {line}\n" for line in LOOP.splitlines())
    assert _parses(monkeypatch, nested)
    assert codes(nested, ["TL101"]) == ["TL101"]


def test_implicit_sync_in_a_file_that_names_no_device():
    """No text rules TL103 out (a helper that names no device may serve a CUDA training
    step), but a lone file that names no device runs on the CPU: nothing to report."""
    text = "import torch\nfor x in loader:\n    print(float(torch.relu(x)))\n"
    assert not mentions_device(text) and Rule._registry["TL103"].may_apply(text)
    assert codes(text, ["TL103"]) == []
    assert codes(text.replace("(x)", "(x.cuda())"), ["TL103"]) == ["TL103"]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("import torch\nx = 1  # cuda\n", False),
        ("import torch\n# torch.cuda.synchronize()\n", False),
        ("import torch\ns = '#'; torch.cuda.synchronize()\n", True),  # a `#` in a string: the tokenizer decides
        ("import torch\ndevice = 'cuda'  # the GPU\n", True),
        ("import torch\n'''\n# not a comment: cuda\n'''\n", True),
    ],
)
def test_cuda_mentions_in_code_not_in_comments(text, expected):
    import libcst as cst

    assert FileContext(cst.parse_module(text), text, "a.py", Options()).uses_cuda is expected


def test_callers_are_found_by_whole_words(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "helpers.py").write_text("def train(model):\n    pass\n")
    (tmp_path / "main.py").write_text("from helpers import train\nfor epoch in range(3):\n    train(model)\n")
    (tmp_path / "other.py").write_text("train_loader = make()\n")
    project.clear()
    sites = project.callers_of(str(tmp_path / "helpers.py"), "train")
    assert [(site.path.rsplit("/", 1)[-1], site.line, site.in_epoch_loop) for site in sites] == [("main.py", 3, True)]
