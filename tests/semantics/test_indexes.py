"""Whole-module indexes that replaced walks: each must answer what the walk answered, for
every scope of a module with nested functions, classes, lambdas and comprehensions."""

from __future__ import annotations

import libcst as cst

from torchlint.semantics import keyword_dicts
from torchlint.semantics.tree import in_source_order, nodes_of_type, scope_descendants, source_order

SCOPES = """
counter = 0
def outer():
    global counter, total
    counter += 1
    def inner():
        nonlocal_value = 1
        def deepest():
            nonlocal nonlocal_value
            global deep
        class Local:
            global in_class
            def method(self):
                global in_method
        return [lambda: counter for _ in range(3)]
    if counter:
        global late
    squares = {k: (lambda v: v) for k in range(2)}
    return inner
def plain():
    return counter
handler = lambda event: event
class Top:
    def method(self):
        try:
            pass
        except Exception:
            global failed
"""


def _walked(function: cst.CSTNode, kind: type) -> set:
    """What `keyword_dicts._declared` answered with a walk of the function's own body."""
    return {item.name.value for node in scope_descendants(function.body) if isinstance(node, kind) for item in node.names}


def test_declarations_are_those_of_the_function_s_own_body():
    module = cst.parse_module(SCOPES)
    functions = nodes_of_type(module, (cst.FunctionDef, cst.Lambda))
    assert len(functions) == 9
    for function in functions:
        for kind in (cst.Global, cst.Nonlocal):
            assert keyword_dicts._declared(module, function, kind) == _walked(function, kind)
    outer = next(f for f in functions if isinstance(f, cst.FunctionDef) and f.name.value == "outer")
    assert keyword_dicts._declared(module, outer, cst.Global) == {"counter", "total", "late"}



LOOPS = """
for epoch in range(3):
    while running:
        for batch in loader:
            step(batch)
    squares = [x for x in range(4) for y in range(x)]
def train():
    for x in data:
        pass
    run = lambda: [i for i in range(2)]
    class Inner:
        def method(self):
            while True:
                break
    for a, b in zip(p, q):
        for c in b:
            pass
    else:
        while done():
            pass
if flag:
    for item in items:
        pass
"""


def test_source_order_is_the_order_of_a_walk_in_source_order():
    module = cst.parse_module(LOOPS)
    for kinds in ((cst.For, cst.While), (cst.CompFor,), (cst.Name,), (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.ListComp)):
        nodes = nodes_of_type(module, kinds)
        walked = [id(node) for node in in_source_order(module) if isinstance(node, kinds)]
        assert len(nodes) > 1 and [id(node) for node in nodes] != walked  # the index holds them in another order
        assert [id(node) for node in source_order(module, nodes)] == walked
