"""Round 13: a class another module imports but never uses is still never built
(`instantiation`): the words of import statements name nothing that runs, nor do the words of
prose strings (a log message "Mel PostNet Loss"). An alias that is used, a module with
`__all__` that spells the name, and a string that spells the name keep it; a package
`__init__` that a program (not a package packaged for installation) imports hands on only
what its importers use (round 21)."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

LAYERS = """
import torch.nn as nn


class PostNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv1d(80, 512, 5), nn.BatchNorm1d(512))

    def forward(self, x):
        return self.net(x)


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(512, 80)

    def forward(self, x):
        return self.fc(x)
"""

MODEL = """
import torch.nn as nn
{imports}


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = Head()
        {extra}

    def forward(self, x):
        return self.head(x)
"""

TRAIN = """
import torch
from model import Model

model = Model().cuda()
opt = torch.optim.Adam(model.parameters())
for epoch in range(10):
    for x in loader:
        loss = model(x.cuda(non_blocking=True)).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print("epoch {} Mel PostNet Loss: {:.4f}".format(epoch, loss))
"""

BUILT = {("layers.py", "TL301", 8)}


@pytest.mark.parametrize(
    ("imports", "extra", "expected"),
    [
        # imported with the class the model builds, never used: never built
        ("from layers import Head, PostNet", "", set()),
        ("from layers import (Head,\n                    PostNet)", "", set()),
        ("import layers\nfrom layers import Head", "", set()),
        # built, directly or through an alias
        ("from layers import Head, PostNet", "self.post = PostNet()", BUILT),
        ("from layers import Head, PostNet as Post", "self.post = Post()", BUILT),
        ("import layers\nfrom layers import Head", "self.post = layers.PostNet()", BUILT),
        # a string that spells the name (a registry a factory reads)
        ("from layers import Head", "self.kind = 'PostNet'", BUILT),
        # handed on to whoever imports this module
        ("from layers import Head, PostNet\n__all__ = ['Model', 'PostNet']", "", BUILT),
    ],
)
def test_an_imported_class_counts_only_where_used(tmp_path, monkeypatch, imports, extra, expected) -> None:
    files = {"layers.py": LAYERS, "model.py": MODEL.format(imports=imports, extra=extra), "train.py": TRAIN}
    assert project_findings(tmp_path, monkeypatch, files, "TL301") == expected


@pytest.mark.parametrize(
    ("marker", "imports", "extra", "expected"),
    [
        # round 21: a program's package hands on to its importers what they use, no more
        (".git", "from nets import Head", "", set()),
        (".git", "from nets import Head, PostNet", "", set()),
        (".git", "from nets import Head, PostNet", "self.post = PostNet()", BUILT),
        # an installable package's exports are for its users outside the project
        ("setup.py", "from nets import Head", "", BUILT),
    ],
)
def test_a_package_init_hands_on_what_its_importers_use(tmp_path, monkeypatch, marker, imports, extra, expected) -> None:
    (tmp_path / "nets").mkdir()
    files = {
        "nets/layers.py": LAYERS,
        "nets/__init__.py": "from .layers import Head, PostNet\n",
        "model.py": MODEL.format(imports=imports, extra=extra),
        "train.py": TRAIN,
    }
    assert project_findings(tmp_path, monkeypatch, files, "TL301", marker) == expected
