import libcst as cst
import pytest

from torchlint.semantics.tree import iterated_parts


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
