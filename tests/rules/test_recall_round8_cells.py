"""The eighth recall round of issue 25 (lead): marimo notebooks, whose cells are functions
decorated `@app.cell`. A cell's imports reach every other cell whatever the order of the
cells in the file, and a cell's parameters are the names other cells define (`torch`), not
new local values: the code of a class defined in a cell is checked like the same class at
module level. Positives and hard negatives, in the default mode a user runs."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

IMPORTS_CELL = """

@app.cell
def _():
    import torch
    import torch.nn as nn
    return nn, torch
"""

AGENT_CELL = """

@app.cell
def _(nn, torch):
    class Agent:
        def __init__(self):
            self.device = torch.device("cuda")
            self.net = nn.Linear(4, 4).to(self.device)
            self.opt = torch.optim.Adam(self.net.parameters())

        def _loss(self, x):
            offset = torch.arange(8).to(self.device)
            return (self.net(x) + offset).sum()

        def update(self, x):
            loss = self._loss(x)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            return loss.item()

        def train(self, n):
            for i in range(n):
                self.update(torch.randn(8, 4, device=self.device))
    return (Agent,)


@app.cell
def _(Agent):
    agent = Agent()
    agent.train(100)
    return
"""

HEADER = "import marimo\n\napp = marimo.App()\n"


GUARDED_IMPORTS_CELL = """

@app.cell
def _():
    try:
        import torch
        import torch.nn as nn
    except ImportError:
        raise SystemExit("needs torch")
    return nn, torch
"""


@pytest.mark.parametrize("cells", [IMPORTS_CELL + AGENT_CELL, AGENT_CELL + IMPORTS_CELL, AGENT_CELL + GUARDED_IMPORTS_CELL])
def test_a_class_in_a_marimo_cell_is_checked_with_the_imports_of_another_cell(tmp_path, monkeypatch, cells):
    code = HEADER + cells
    found = project_findings(tmp_path, monkeypatch, {"notebook.py": code}, "TL101,TL102")
    assert found == {("notebook.py", "TL102", _line(code, "torch.arange")), ("notebook.py", "TL101", _line(code, "loss.item()"))}


def _line(code: str, text: str) -> int:
    return code[: code.index(text)].count("\n") + 1


def test_without_an_import_of_torch_anywhere_nothing_is_reported(tmp_path, monkeypatch):
    # (A backward pass alone makes PyTorch code since round 24: the agent here runs none.)
    cells = AGENT_CELL.replace("loss.backward()", "loss.sum()")
    assert project_findings(tmp_path, monkeypatch, {"notebook.py": HEADER + cells}, "TL101,TL102") == set()


def test_a_parameter_of_an_ordinary_decorated_function_still_shadows_the_import(tmp_path, monkeypatch):
    """Only marimo cells share names: a `torch` parameter of another function is its own value."""
    code = "import torch\n" + (HEADER + AGENT_CELL).replace("app = marimo.App()", "app = Router()")
    found = project_findings(tmp_path, monkeypatch, {"notebook.py": code}, "TL102")
    assert found == set()
