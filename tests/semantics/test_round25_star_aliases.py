"""Round 25, revised in round 26: a name reached only through a star import of a project
module stands for what that module's imports bind it to (`from model import *`, where
model.py does `import torch.nn as nn`), so `class KeywordSpotter(nn.Module)` is a module class
and `self.to(device)` in its training loop moves a module every step. The conventional
aliases are not assumed: a module that binds `nn` to another library gives no torch module,
nor does a star import the project cannot resolve, and a name the file binds itself keeps its
own meaning."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

TRAIN = """
import torch
from model import *
{shadow}

class Spotter(nn.Module):
    def fit(self, loader, optimizer, device):
        for x, y in loader:
            self.to(device)
            loss = F.cross_entropy(self(x.to(device)), y.to(device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
"""

TORCH_MODEL = "import torch\nimport torch.nn as nn\nfrom torch.nn import functional as F\n"
OTHER_MODEL = "import torch\nimport mylib.nn as nn\nimport mylib.functional as F\n"


@pytest.mark.parametrize(
    "files, shadow, found",
    [
        ({"model.py": TORCH_MODEL}, "", {("train.py", "TL108", 9)}),
        # Through a package module that star-imports the module with the imports.
        ({"model/__init__.py": "from model.layers import *\n", "model/layers.py": TORCH_MODEL}, "", {("train.py", "TL108", 9)}),
        ({"model.py": TORCH_MODEL}, "import mylib.nn as nn", set()),
        ({"model.py": OTHER_MODEL}, "", set()),
        ({}, "", set()),
    ],
)
def test_names_bound_by_a_star_imported_modules_imports(tmp_path, monkeypatch, files, shadow, found):
    files = {**files, "train.py": TRAIN.format(shadow=shadow)}
    assert project_findings(tmp_path, monkeypatch, files, "TL108") == found
