"""The effect-based training step (`FrequencyAnalysis.takes_a_step`) asks the project whether
another module calls the function only for a function that takes a step: that question scans
every module of the project."""

from __future__ import annotations

from typing import List

import libcst as cst

from torchlint.semantics.execution import Frequency
from torchlint.semantics.frequency import FrequencyAnalysis

CODE = """
class Agent:
    def update(self, batch):
        loss = self.net(batch).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        marker_update = 1

    def describe(self, batch):
        marker_describe = self.net(batch)
"""


def _analysis(asked: List[str]) -> FrequencyAnalysis:
    def called_in_project(function: cst.FunctionDef) -> bool:
        asked.append(function.name.value)
        return False

    return FrequencyAnalysis(cst.parse_module(CODE), trains=lambda: False, called_in_project=called_in_project)


def _find(module: cst.Module, name: str) -> cst.CSTNode:
    found: List[cst.CSTNode] = []

    class Finder(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            if any(isinstance(t.target, cst.Name) and t.target.value == name for t in node.targets):
                found.append(node)

    module.visit(Finder())
    return found[0]


def test_a_method_that_takes_no_step_does_not_ask_the_project() -> None:
    asked: List[str] = []
    analysis = _analysis(asked)
    assert analysis.execution(_find(analysis.module, "marker_describe")).frequency is Frequency.UNKNOWN
    assert asked == []


def test_a_method_that_takes_a_step_asks_once_and_runs_every_step() -> None:
    asked: List[str] = []
    analysis = _analysis(asked)
    assert analysis.execution(_find(analysis.module, "marker_update")).frequency is Frequency.PER_STEP
    assert asked == ["update"]
