"""What an object's attributes hold when they come from its `__init__` parameters:
`self.num_workers = num_workers`, or Lightning's `self.save_hyperparameters()` read back as
`self.hparams.num_workers`. The value is the parameter's default unless a call of the class
in the project passes another (`project.arguments_given`)."""

from __future__ import annotations

import ast
import os
from typing import Optional, Tuple

import libcst as cst

from torchlint.semantics.calls import is_literal, positional
from torchlint.semantics.facts import FileFacts
from torchlint.semantics.names import dotted_name
from torchlint.semantics.project import arguments_given
from torchlint.semantics.tree import descendants
from torchlint.semantics.values import string_value


def zero_in_every_call(ctx: "FileFacts", value: cst.BaseExpression) -> bool:
    """Whether `value`, read in a method (`self.num_workers`, `self.hparams.num_workers`,
    `self.hparams["num_workers"]`), is `0` on every run the project makes: the class's
    `__init__` stores its parameter of that name unchanged, the parameter defaults to the
    literal `0`, and every call of the class in the project leaves it or passes `0`. A call
    passing anything else (`num_workers=args.workers`, whatever the option's default), a
    spread `**kwargs`, or a use of the class other than a call (a CLI building it from a
    configuration) makes it unknown: False."""
    attribute = _attribute(value)
    function = ctx.frequency.enclosing_function(value)
    klass = ctx.frequency.enclosing_class(function) if function is not None else None
    if attribute is None or klass is None or not os.path.isfile(ctx.path):
        return False
    init = next((item for item in klass.body.body if isinstance(item, cst.FunctionDef) and item.name.value == "__init__"), None)
    parameter = _parameter(init, attribute[1]) if init is not None else None
    if parameter is None or parameter.default is None or not is_literal(parameter.default, "0"):
        return False
    if not _stored_unchanged(klass, init, *attribute):
        return False
    given = arguments_given(ctx.path, klass.name.value, attribute[1])
    return given is not None and all(item is None or _is_zero(item) for item in given)


def _attribute(value: cst.BaseExpression) -> Optional[Tuple[str, str]]:
    """("self", name) for `self.name`, ("self.hparams", name) for `self.hparams.name` and
    `self.hparams["name"]`."""
    if isinstance(value, cst.Subscript) and len(value.slice) == 1 and isinstance(value.slice[0].slice, cst.Index):
        key = string_value(value.slice[0].slice.value)
        return ("self.hparams", key) if key is not None and dotted_name(value.value) == "self.hparams" else None
    if isinstance(value, cst.Attribute) and dotted_name(value.value) in ("self", "self.hparams"):
        return dotted_name(value.value), value.attr.value
    return None


def _parameter(init: cst.FunctionDef, name: str) -> Optional[cst.Param]:
    return next((param for param in (*init.params.params, *init.params.kwonly_params) if param.name.value == name), None)


def _stored_unchanged(klass: cst.ClassDef, init: cst.FunctionDef, owner: str, name: str) -> bool:
    """Whether the class holds the parameter `name` as `__init__` received it: `__init__`
    rebinds no such name, and either every assignment of `self.name` in the class is
    `self.name = name` in `__init__`, or (`owner` "self.hparams") `__init__` calls
    `self.save_hyperparameters()` for all its parameters or that one, and nothing assigns
    `self.hparams`."""
    in_init = {id(node) for node in descendants(init)}
    for node in descendants(klass):
        targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target] if isinstance(node, (cst.AugAssign, cst.AnnAssign)) else []
        for target in targets:
            written = dotted_name(target) or dotted_name(getattr(target, "value", target)) or ""
            if id(node) in in_init and written == name:
                return False  # `num_workers = num_workers or 4`
            if owner == "self" and written == f"self.{name}":
                if not (id(node) in in_init and isinstance(node, cst.Assign) and dotted_name(node.value) == name):
                    return False
            if owner == "self.hparams" and written.startswith("self.hparams"):
                return False
    if owner == "self":
        return True
    return any(
        isinstance(node, cst.Call) and dotted_name(node.func) == "self.save_hyperparameters"
        and (not positional(node) or any(string_value(arg.value) == name for arg in positional(node)))
        for node in descendants(init)
    )


def _is_zero(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == 0
