"""How the file binds a method name: a `def`, or an assignment in a class body (`to = _move`)."""

from __future__ import annotations

from typing import List, Optional, Union

import libcst as cst

from torchlint.semantics.facts import FileFacts
from torchlint.semantics.tree import bound_names

Function = Union[cst.FunctionDef, cst.Lambda]


def method_definitions(ctx: FileFacts, name: str) -> List[Optional[Function]]:
    """Every function of the file that may run as the method `name`: each `def name`, and
    for each assignment to `name` in a class body (`to = _move`, `to: Callable = ...`) what it
    binds: a lambda, or the file's functions of the name it assigns; None when it assigns
    anything else, whose signature is unknown (`to = staticmethod(move)`, an imported helper)."""
    functions = ctx.frequency.local_functions()
    found: List[Optional[Function]] = list(functions.get(name, []))
    for classes in ctx.frequency.classes().values():
        for klass in classes:
            for value in _class_assignments(klass, name):
                if isinstance(value, cst.Lambda):
                    found.append(value)
                elif isinstance(value, cst.Name) and value.value in functions:
                    found.extend(functions[value.value])
                else:
                    found.append(None)
    return found


def _class_assignments(klass: cst.ClassDef, name: str) -> List[cst.BaseExpression]:
    """The values the class body's own statements assign to `name`."""
    values: List[cst.BaseExpression] = []
    for line in klass.body.body if isinstance(klass.body, cst.IndentedBlock) else [klass.body]:
        for small in getattr(line, "body", ()) if isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) else ():
            if isinstance(small, cst.Assign) and any(name in bound_names(t.target) for t in small.targets):
                values.append(small.value)
            elif isinstance(small, cst.AnnAssign) and small.value is not None and name in bound_names(small.target):
                values.append(small.value)
    return values


def takes_keyword(function: Function, keyword: str) -> bool:
    """Whether `function` accepts the keyword argument `keyword` (by name or through `**kwargs`)."""
    parameters = function.params
    names = {param.name.value for param in (*parameters.params, *parameters.kwonly_params)}
    return keyword in names or isinstance(parameters.star_kwarg, cst.Param)
