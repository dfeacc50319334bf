"""Round 13 of issue 29: bindings a comprehension's `:=` or an import makes, and the names a
chain that views a tensor's memory writes to."""

from __future__ import annotations

import libcst as cst

from torchlint.semantics.bindings import binds_locally, imported_values, reaching_values
from torchlint.semantics.escapes import viewed_name
from torchlint.semantics.tree import comprehension_walruses


def _function(module: cst.Module) -> cst.FunctionDef:
    return next(node for node in module.body if isinstance(node, cst.FunctionDef))


def test_a_walrus_in_a_comprehension_binds_the_enclosing_scope():
    module = cst.parse_module("def f(xs):\n    ys = [d for d in xs if (device := d)]\n    return [(lambda: (z := 1))() for _ in xs]\n")
    function = _function(module)
    assert [walrus.target.value for walrus in comprehension_walruses(function.body)] == ["device"]  # not the lambda's `z`
    assert binds_locally(function, "device") and not binds_locally(function, "z")


def test_reaching_values_read_a_comprehension_walrus_over_a_literal():
    module = cst.parse_module('import torch\nPLACES = ["cpu", torch.float64]\ndevice = "cpu"\nkept = [d for d in PLACES if (device := d)]\n')
    assert reaching_values(module, None, "device") is None  # not every value can be read
    values = [module.code_for_node(v) for v in reaching_values(module, None, "device", partial=True) or []]
    assert '"cpu"' in values and "torch.float64" in values


def test_imported_values_name_what_an_import_binds():
    module = cst.parse_module("import numpy as device\nif X:\n    from torch import float64 as device\nfrom torch import zeros\nfrom . import device\n")
    assert sorted(imported_values(module, "device")) == ["numpy", "torch.float64"]
    assert imported_values(module, "zeros") == ["torch.zeros"] and imported_values(module, "other") == []


def test_viewed_name_follows_chains_that_view_memory_only():
    def root(code: str):
        return viewed_name(cst.parse_expression(code))

    assert root("x.numpy()") == "x" and root("x.data") == "x" and root("x.view(-1)[0]") == "x"
    assert root("x.clone()") is None and root("f(x)") is None and root("x.float().data") is None
