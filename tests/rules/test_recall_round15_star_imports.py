"""Round 15 of issue 25: a training script that gets torch from a star import of a project
module (`from pyHGT.model import *`, where that module does `import torch`) is a PyTorch
program; the rules that need torch run on it. A star import of a module that does not import
torch, or of a module outside the project, does not make a file a PyTorch program."""

from __future__ import annotations

import pytest

from test_recall_round2 import project

pytestmark = pytest.mark.stable_only

HELPERS = """
import torch
import torch.nn as nn

def batches():
    return [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(100)]
"""

TRAIN = """
{imports}
device = torch.device("cuda")
model = nn.Linear(4, 1).to(device)
optimizer = torch.optim.Adam(model.parameters())
losses = []
for epoch in range(10):
    for x, y in batches():
        loss = (model(x.to(device)) - y.to(device)).pow(2).mean()
        optimizer.zero_grad()
        torch.cuda.empty_cache()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
"""

NO_BACKWARD = TRAIN.replace("loss.backward()", "optimizer.zero_grad()")


@pytest.mark.parametrize(
    "files, reported",
    [
        # torch reaches the script only through the star import of the project's helpers.
        ({"helpers.py": HELPERS, "train.py": TRAIN.format(imports="from helpers import *")}, [("train.py", 11), ("train.py", 14)]),
        # The same through a package and a second star import.
        (
            {
                "pkg/__init__.py": "",
                "pkg/model.py": HELPERS,
                "pkg/data.py": "from pkg.model import *\n",
                "train.py": TRAIN.format(imports="from pkg.data import *"),
            },
            [("train.py", 11), ("train.py", 14)],
        ),
        # A project module that does not import torch brings no torch: nothing is a torch call
        # (in a script without a backward pass, which alone makes PyTorch code since round 24).
        ({"helpers.py": "def batches():\n    return []\n", "train.py": NO_BACKWARD.format(imports="from helpers import *")}, []),
        # A module outside the project (a star import of an installed package) is not read.
        ({"train.py": NO_BACKWARD.format(imports="from somewhere_else import *")}, []),
    ],
)
def test_torch_through_a_star_import_of_a_project_module(tmp_path, monkeypatch, files, reported):
    for name in files:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    found = project(tmp_path, monkeypatch, files, "TL101,TL104")
    assert found == reported


def test_torch_through_a_relative_star_import_in_a_package(tmp_path, monkeypatch):
    (tmp_path / "pkg").mkdir()
    files = {
        "pkg/__init__.py": "",
        "pkg/conv.py": "import torch\nimport torch.nn as nn\n",
        "pkg/model.py": """
            from .conv import *

            class GNN(nn.Module):
                def forward(self, x):
                    res = torch.zeros(x.size(0), 8).to(x.device)
                    return res + x
            """,
        "train.py": TRAIN.format(imports="from pkg.model import *\nfrom pkg.conv import *").replace(
            "model = nn.Linear(4, 1)", "model = GNN()"
        ),
    }
    assert ("pkg/model.py", 6) in project(tmp_path, monkeypatch, files, "TL102")
    # `from . import *` in a package's __init__ is read without error.
    files["pkg/__init__.py"] = "from . import *\n"
    assert ("pkg/model.py", 6) in project(tmp_path, monkeypatch, files, "TL102")
