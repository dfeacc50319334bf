"""semantics.elements: the loop that walks the tensor a read-back's receiver is an element of
(round 22: a zip of indexes and errors in a prioritized replay buffer)."""

from __future__ import annotations

import libcst as cst
import pytest

from torchlint.semantics.elements import element_loop, walked_tensor
from torchlint.semantics.names import dotted_name


@pytest.mark.parametrize("header, name, walked", [
    ("for error in errors:", "error", "errors"),
    ("for i, error in enumerate(errors):", "error", "errors"),
    ("for index, error in zip(indexes, errors):", "error", "errors"),
    ("for index, error in zip(indexes, self.errors):", "error", "self.errors"),
    ("for index, error in zip(indexes, errors):", "index", "indexes"),
    ("for index, (error, _) in zip(indexes, errors):", "error", None),
    ("for index, error in zip(indexes, errors.tolist()):", "error", None),
    ("for pair in zip(indexes, errors):", "pair", None),
])
def test_walked_tensor_of_a_loop_target(header, name, walked):
    loop = cst.parse_statement(f"{header}\n    {name}.item()\n")
    assert isinstance(loop, cst.For)
    receiver = cst.Name(name)
    found = element_loop(receiver, [loop])
    assert (dotted_name(walked_tensor(loop, receiver)) if found is not None else None) == walked
