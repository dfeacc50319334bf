"""Loops over the elements of a tensor: `for length in lengths:` and `for i in
range(len(lengths)):` reading `lengths[i]`. Each element read back to the host (`.item()`,
`.cpu()`) is a synchronisation of its own, where one conversion before the loop would read
them all."""

from __future__ import annotations

from typing import Iterator, Optional, Sequence, Union

import libcst as cst

from torchlint.semantics.names import dotted_name
from torchlint.semantics.tree import bound_names, iterated_parts

Header = Union[cst.For, cst.CompFor]
COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)


def element_loop(receiver: cst.BaseExpression, loops: Sequence[cst.CSTNode]) -> Optional[cst.CSTNode]:
    """The loop among `loops` (innermost first; a `for` statement or a comprehension) that
    walks the tensor whose element `receiver` is: the loop's target itself (`for length in
    lengths:`, `for i, length in enumerate(lengths):`, `for index, error in zip(indexes,
    errors):`, `[int(n) for n in counts]`), a part of it (`row[0]` in `for row in x:`), or a
    subscript of the tensor by the loop's index (`lengths[i]` in `for i in
    range(len(lengths)):`, `range(lengths.size(0))`, `range(lengths.shape[0])`; `x[i]` in
    `range(y.size(0))` or `for i, vec in enumerate(batch)`, a loop over the batch). None for
    anything else."""
    row = _row_of(receiver)
    for loop in loops:
        for header in _headers(loop):
            if row is not None and _walked_by(header, row) is not None:
                return loop
            if isinstance(receiver, cst.Subscript) and len(receiver.slice) == 1 and isinstance(header, cst.For):
                index = receiver.slice[0].slice
                tensor = dotted_name(receiver.value)
                if tensor and isinstance(index, cst.Index) and isinstance(index.value, cst.Name):
                    if _counts_over(header, index.value.value, tensor):
                        return loop
    return None


def walked_tensor(loop: cst.CSTNode, receiver: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """The tensor whose elements `loop` walks, as `element_loop` matched it for `receiver`."""
    row = _row_of(receiver)
    for header in _headers(loop) if row is not None else ():
        walked = _walked_by(header, row)
        if walked is not None:
            return walked
    return receiver.value if isinstance(receiver, cst.Subscript) else None


def _headers(loop: cst.CSTNode) -> Iterator[Header]:
    """The `for` headers of a loop: the statement itself, or each `for` of a comprehension."""
    if isinstance(loop, cst.For):
        yield loop
    elif isinstance(loop, COMPREHENSIONS):
        header: Optional[cst.CompFor] = loop.for_in
        while header is not None:
            yield header
            header = header.inner_for_in


def _row_of(receiver: cst.BaseExpression) -> Optional[str]:
    """The name `receiver` reads, itself or through subscripts and methods called without
    arguments (`row`, `row[0]`, `t[2:4]`, `t.long()`)."""
    while isinstance(receiver, cst.Subscript) or (isinstance(receiver, cst.Call) and isinstance(receiver.func, cst.Attribute) and not receiver.args):
        receiver = receiver.value if isinstance(receiver, cst.Subscript) else receiver.func.value  # type: ignore[union-attr]
    return receiver.value if isinstance(receiver, cst.Name) else None


def _walked_by(loop: Header, name: str) -> Optional[cst.BaseExpression]:
    """The name or attribute whose items `loop` binds to the name `name`, if it binds them
    alone, and only them (see `iterated_parts`; `for pair in zip(a, b)` binds both)."""
    sources = [_reshaped(source) for source, target in iterated_parts(loop.iter, loop.target) if bound_names(target) == [name]]
    if len(sources) == 1 and isinstance(sources[0], (cst.Name, cst.Attribute)) and dotted_name(sources[0]) is not None:
        return sources[0]
    return None


# Methods that give a tensor's elements in another shape or dtype: walking `y.view(-1)`
# walks `y`'s elements.
_RESHAPES = frozenset({"view", "reshape", "flatten", "ravel", "squeeze", "long", "int", "float", "detach"})


def _reshaped(source: cst.BaseExpression) -> cst.BaseExpression:
    """`y` for `y.view(-1)`, `y.flatten().long()`; `source` itself otherwise."""
    while isinstance(source, cst.Call) and isinstance(source.func, cst.Attribute) and source.func.attr.value in _RESHAPES:
        source = source.func.value
    return source


def _counts_over(loop: cst.For, index: str, tensor: str) -> bool:
    """`for index in range(len(tensor))`, or a loop over the first dimension of a tensor, this
    one or another of the batch (`range(y.size(0))`, `range(y.shape[0])`, reading `x[index]`)."""
    if _enumerates(loop, index):
        return True
    if not (isinstance(loop.target, cst.Name) and loop.target.value == index):
        return False
    bound = loop.iter
    if not (isinstance(bound, cst.Call) and dotted_name(bound.func) == "range" and len(bound.args) == 1):
        return False
    size = bound.args[0].value
    if isinstance(size, cst.Call) and dotted_name(size.func) == "len" and len(size.args) == 1:
        return dotted_name(size.args[0].value) == tensor
    if isinstance(size, cst.Call) and isinstance(size.func, cst.Attribute) and size.func.attr.value == "size":
        return dotted_name(size.func.value) is not None and _first_dimension(size.args)
    if isinstance(size, cst.Subscript) and isinstance(size.value, cst.Attribute) and size.value.attr.value == "shape":
        return dotted_name(size.value.value) is not None and len(size.slice) == 1 and _zero(size.slice[0].slice)
    return False


def _enumerates(loop: cst.For, index: str) -> bool:
    """`for index, item in enumerate(batch)` over a name or attribute (a tensor or list of the
    batch): its index counts over the first dimension, as `range(len(batch))` does."""
    target, bound = loop.target, loop.iter
    if not (isinstance(target, cst.Tuple) and len(target.elements) == 2):
        return False
    first = target.elements[0].value
    if not (isinstance(first, cst.Name) and first.value == index):
        return False
    if not (isinstance(bound, cst.Call) and dotted_name(bound.func) == "enumerate" and len(bound.args) == 1 and not bound.args[0].keyword):
        return False
    return isinstance(bound.args[0].value, (cst.Name, cst.Attribute)) and dotted_name(bound.args[0].value) is not None


def _first_dimension(args: Sequence[cst.Arg]) -> bool:
    return len(args) == 1 and isinstance(args[0].value, cst.Integer) and args[0].value.value == "0"


def _zero(index: cst.BaseSlice) -> bool:
    return isinstance(index, cst.Index) and isinstance(index.value, cst.Integer) and index.value.value == "0"
