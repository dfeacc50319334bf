"""The work per finding does not grow with the file: a module four times as large, with four
times the findings, costs about four times the tree reading, not sixteen times."""

from __future__ import annotations

import abc
import sys
from pathlib import Path

import libcst as cst
import pytest

from torchlint.engine.linter import lint_text
from torchlint.engine.options import Options
from torchlint.engine.rule import all_rules
from torchlint.semantics import tree

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from dense_file import dense_module  # noqa: E402


def _nodes_read(monkeypatch, blocks: int) -> tuple:
    """(findings, how many times a node's children were read) for a dense module of `blocks`."""
    reads = [0]
    fields = tree._child_fields

    def counting(kind: type) -> tuple:
        reads[0] += 1
        return fields(kind)

    monkeypatch.setattr(tree, "_child_fields", counting)
    rules = all_rules()
    findings = lint_text(dense_module(blocks), f"dense{blocks}.py", rules, Options(preview=True)).findings
    monkeypatch.setattr(tree, "_child_fields", fields)
    advice = {rule.code for rule in rules if rule.severity == "info"}  # reported once per file
    return sum(finding.code not in advice for finding in findings), reads[0]


def test_tree_reading_grows_linearly_with_a_finding_dense_module(monkeypatch):
    small_findings, small_reads = _nodes_read(monkeypatch, 4)
    large_findings, large_reads = _nodes_read(monkeypatch, 16)
    assert small_findings >= 36 and large_findings == 4 * small_findings
    assert large_reads < 5 * small_reads, (small_reads, large_reads)


def test_node_classes_are_checked_as_plain_classes_with_the_same_answers():
    name = cst.Name("x")
    assert all(type(kind) is not abc.ABCMeta for kind in (cst.CSTNode, cst.BaseExpression, cst.Name, cst.BaseComp))
    assert isinstance(name, cst.BaseExpression) and isinstance(name, cst.CSTNode)
    assert not isinstance(name, (cst.Call, cst.BaseSmallStatement)) and not isinstance("x", cst.CSTNode)
    assert issubclass(cst.ListComp, cst.BaseComp) and not issubclass(cst.Name, cst.BaseStatement)
    with pytest.raises(TypeError):
        cst.BaseExpression()  # type: ignore[abstract]


def test_a_file_analysis_reads_each_node_s_children_about_once(monkeypatch):
    module = cst.parse_module(dense_module(4))
    nodes = len(tree.module_nodes(module).order)
    _, reads = _nodes_read(monkeypatch, 4)
    assert reads < 1.2 * nodes, (reads, nodes)
