"""`bindings.reaching_values` in a function reads the module's index, not one of its own: an
index of the function would take a slot of the per-module memo (evicting the module's facts)
and replace the statements kept for the next parse."""

from __future__ import annotations

import libcst as cst

from torchlint.semantics import tree
from torchlint.semantics.bindings import reaching_values

FUNCTIONS = "import torch\n" + "".join(
    f"\ndef f{i}(n):\n    device = torch.device('cuda')\n    return torch.zeros(n).to(device)\n" for i in range(12)
)

NONLOCAL = """
def outer():
    device = "cpu"

    def switch():
        nonlocal device
        device = "cuda"

    switch()
    return device
"""


def test_values_in_functions_do_not_read_the_module_again(monkeypatch) -> None:
    module = cst.parse_module(FUNCTIONS)
    functions = [statement for statement in module.body if isinstance(statement, cst.FunctionDef)]
    tree.module_nodes(module)
    read = []
    original = tree._statement_nodes
    monkeypatch.setattr(tree, "_statement_nodes", lambda statement: read.append(statement) or original(statement))
    for function in functions:
        assert [cst.Module([]).code_for_node(value) for value in reaching_values(module, function, "device") or []] == ["torch.device('cuda')"]
        tree.nodes_of_type(module, (cst.Call,))
    assert read == []


def test_a_nested_function_that_rebinds_the_name_nonlocal_still_counts() -> None:
    module = cst.parse_module(NONLOCAL)
    outer = module.body[0]
    assert isinstance(outer, cst.FunctionDef)
    values = reaching_values(module, outer, "device") or []
    assert sorted(cst.Module([]).code_for_node(value) for value in values) == ['"cpu"', '"cuda"']
