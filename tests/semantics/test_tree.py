import libcst as cst
import pytest

from torchlint.semantics.tree import descendants, descendants_of_type, iterated_parts, module_nodes


def parts(header: str) -> list:
    loop = cst.parse_statement(f"for {header}:\n    pass\n")
    assert isinstance(loop, cst.For)
    module = cst.Module([])
    return [(module.code_for_node(source), module.code_for_node(target)) for source, target in iterated_parts(loop.iter, loop.target)]


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("x in loader", [("loader", "x")]),
        ("i, (x, y) in enumerate(tqdm(loader))", [("loader", "(x, y)")]),
        ("(xa, ya), xb in zip(a, enumerate(b))", [("a", "(xa, ya)"), ("b", "xb")]),
        ("pair in zip(a, b)", [("a", "pair"), ("b", "pair")]),  # not unpacked: both sources' items
        ("x, *rest in zip(a, b)", [("a", "x, *rest"), ("b", "x, *rest")]),
        ("x, y in zip(a, b, c)", [("a", "x, y"), ("b", "x, y"), ("c", "x, y")]),  # arity differs
        ("x in loaders[0]", [("loaders[0]", "x")]),
    ],
)
def test_each_source_of_a_loop_gets_the_part_of_the_target_bound_to_its_items(header, expected):
    assert parts(header) == expected


def test_descendants_of_type_slices_the_module_index_as_a_walk_finds_them() -> None:
    module = cst.parse_module(
        "def train(loader):\n"
        "    engine = Engine(step)\n"
        "    for batch in loader:\n"
        "        loss = model(batch)\n"
        "        loss.backward()\n"
        "    engine.run(loader)\n"
        "x = f(g(1))\n"
    )
    for node in module_nodes(module).order:
        for kind in (cst.Call, cst.Assign, cst.Name):
            walked = [item for item in descendants(node) if type(item) is kind]
            sliced = descendants_of_type(module, node, kind)
            assert len(sliced) == len(walked) and all(a is b for a, b in zip(sliced, walked))
    assert len(descendants_of_type(module, module, cst.Call)) == 6
    elsewhere = cst.parse_expression("h(k())")  # not a node of the module: walked
    assert [type(node) for node in descendants_of_type(module, elsewhere, cst.Call)] == [cst.Call, cst.Call]
