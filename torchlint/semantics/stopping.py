"""Values that decide whether a loop stops: early stopping on a validation loss.

`if loss_val < best: ... bad_counter = 0 else: bad_counter += 1` followed by `if bad_counter
== patience: break` needs `loss_val` on the host every iteration, whether or not the loop
trains: the Python test that leaves the loop reads it. A value decides the stop when a test
that leaves the loop (`break`, `return`, `raise`), or a `while` loop's own condition, reads it
or a name computed from it, directly or under an `if` that tests it.
"""

from __future__ import annotations

from typing import Iterable, List, Optional, Set, Tuple

import libcst as cst

from torchlint.semantics.tree import descendants, scope_descendants


def decides_stop(loop: cst.CSTNode, names: Set[str], node: Optional[cst.CSTNode] = None) -> bool:
    """Whether `node`'s value (the node itself, or the `names` bound to it in the loop) decides
    a test that leaves `loop`, through names the loop computes from it."""
    items = list(descendants(loop))
    tainted = _computed_from(items, names, node)
    tests: List[cst.BaseExpression] = [item.test for item in items if isinstance(item, cst.If) and _leaves(item.body)]
    if isinstance(loop, cst.While):
        tests.append(loop.test)
    return any(_mentions(test, tainted, node) for test in tests)


def _computed_from(items: List[cst.CSTNode], names: Set[str], node: Optional[cst.CSTNode]) -> Set[str]:
    """`names` and every name the loop assigns from them or under an `if` that tests them
    (`best = loss_val`, `bad_counter += 1` in the `else:` of `if loss_val < best:`)."""
    steps = []  # (what is read, the names it binds)
    for item in items:
        if isinstance(item, (cst.Assign, cst.AugAssign, cst.AnnAssign)) and item.value is not None:
            steps.append((item.value, _bound(item)))
        elif isinstance(item, cst.If):
            bound = set().union(*(_bound(inner) for inner in descendants(item) if isinstance(inner, (cst.Assign, cst.AugAssign))))
            steps.append((item.test, bound))
    tainted = set(names)
    changed = True
    while changed:
        changed = False
        for read, bound in steps:
            if not bound <= tainted and _mentions(read, tainted, node):
                tainted |= bound
                changed = True
    return tainted


def _bound(statement: cst.CSTNode) -> Set[str]:
    """The plain names a statement binds (`a, b = ...`; not `self.best = ...`)."""
    targets = [t.target for t in statement.targets] if isinstance(statement, cst.Assign) else [statement.target]  # type: ignore[attr-defined]
    return set().union(*(_bound_names(target) for target in targets))


def _bound_names(target: cst.BaseExpression) -> Set[str]:
    targets = [target]
    names: Set[str] = set()
    while targets:
        target = targets.pop()
        if isinstance(target, cst.Name):
            names.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            targets.extend(element.value for element in target.elements)
    return names


def _mentions(expression: cst.CSTNode, names: Set[str], node: Optional[cst.CSTNode]) -> bool:
    return any(item is node or (isinstance(item, cst.Name) and item.value in names) for item in descendants(expression))


def _leaves(body: cst.BaseSuite) -> bool:
    """Whether a block leaves the loop (`break`, `return`, `raise`)."""
    return any(isinstance(item, (cst.Break, cst.Return, cst.Raise)) for item in descendants(body))


def returned_to(
    path: Iterable[Tuple[cst.CSTNode, cst.CSTNode]], binding: Optional[cst.CSTNode], function: Optional[cst.FunctionDef] = None
) -> Set[str]:
    """The names a caller binds to what a function returns, when `node` (below the ancestors
    `path`, innermost first) is returned as it is or as one element of a returned tuple, also
    through a name of `function` that a `return` hands back (`loss_val = loss.item()`, then
    `return loss_val, acc`), and `binding` is the caller's assignment of the call (`loss_val,
    acc_val = validate()` for `return loss_val.item(), acc_val.item()`) or a list it appends
    the call's value to (`loss_values.append(train(epoch))`, read as `loss_values[-1]`).
    Every name counts: once one value of the statement reaches the host, the device has done
    the work of the others, whose copies wait for nothing more."""
    names = _binding_names(binding)
    if not names:
        return set()
    for ancestor, child in path:
        if isinstance(ancestor, cst.Return):
            return names
        if isinstance(ancestor, cst.Assign) and child is ancestor.value and function is not None:
            return names if returns_one_of(function, _bound(ancestor)) else set()
        if not isinstance(ancestor, (cst.Tuple, cst.Element, cst.Attribute, cst.Call, cst.Arg)):
            return set()  # the value is computed on, not returned as it is
    return set()


def _binding_names(binding: Optional[cst.CSTNode]) -> Set[str]:
    """The names an assignment of a call binds, or the list `names.append(call)` adds to."""
    if isinstance(binding, cst.Assign):
        return set().union(*(_bound_names(target.target) for target in binding.targets))
    func = binding.func if isinstance(binding, cst.Call) else None
    if isinstance(func, cst.Attribute) and func.attr.value == "append" and isinstance(func.value, cst.Name):
        return {func.value.value}
    return set()


def returns_one_of(function: cst.FunctionDef, names: Set[str]) -> bool:
    """Whether a `return` of `function` (not of a function nested in it) hands back one of
    `names` as it is, alone or as an element of a tuple."""
    for item in scope_descendants(function.body):
        if isinstance(item, cst.Return) and item.value is not None:
            values = [element.value for element in item.value.elements] if isinstance(item.value, cst.Tuple) else [item.value]
            if any(isinstance(value, cst.Name) and value.value in names for value in values):
                return True
    return False
