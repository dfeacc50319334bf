"""Opt-in switches: flags that are off unless the user turns them on.

Code under such a flag (`if args.use_optimizer:`, `Adam(...) if fine_tune_encoder else None`)
runs only for users who ask for it; rules that report a default cost stay silent there.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torchlint.semantics.calls import keyword, positional
from torchlint.semantics.tree import nodes_of_type
from torchlint.semantics.values import only_assigned_value, string_value

_OFF = ("False", "None")


def only_when_switched_on(test: cst.BaseExpression, module: cst.Module, scope: Optional[cst.CSTNode] = None) -> bool:
    """Whether `test` can hold only when an opt-in flag is on: the flag itself, `flag is
    True`, `flag == True`, or `flag and ...`. A flag is off by default when it is a parameter
    of `scope` defaulting to `False`/`None`/`0`, a name whose only assignment in the file is
    such a constant (`fine_tune_encoder = False`), or an argparse option of the file stored as
    `store_true` without a true default (`args.use_optimizer`)."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return only_when_switched_on(test.left, module, scope) or only_when_switched_on(test.right, module, scope)
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        operator, right = test.comparisons[0].operator, test.comparisons[0].comparator
        if isinstance(operator, (cst.Is, cst.Equal)) and isinstance(right, cst.Name) and right.value == "True":
            test = test.left
    return _off_by_default(test, module, scope)


def _off_by_default(flag: cst.BaseExpression, module: cst.Module, scope: Optional[cst.CSTNode]) -> bool:
    if isinstance(flag, cst.Name):
        if isinstance(scope, cst.FunctionDef):
            for param in (*scope.params.params, *scope.params.kwonly_params):
                if param.name.value == flag.value:
                    return param.default is not None and _off(param.default)
        value = only_assigned_value(module, flag)
        return value is not None and _off(value)
    if isinstance(flag, cst.Attribute):
        return _store_true_option(module, flag.attr.value)
    return False


def _off(value: cst.BaseExpression) -> bool:
    return (isinstance(value, cst.Name) and value.value in _OFF) or (isinstance(value, cst.Integer) and value.value == "0")


def _store_true_option(module: cst.Module, dest: str) -> bool:
    """`parser.add_argument("--use-optimizer", action="store_true")` for `dest` `use_optimizer`."""
    for node in nodes_of_type(module, (cst.Call,)):
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "add_argument"):
            continue
        names = [string_value(arg.value) or "" for arg in positional(node)]
        if not any(name.lstrip("-").replace("-", "_") == dest for name in names if name.startswith("--")):
            continue
        action = keyword(node, "action")
        default = keyword(node, "default")
        stored_true = action is not None and string_value(action.value) == "store_true"
        return stored_true and (default is None or _off(default.value))
    return False
