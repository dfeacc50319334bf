"""What a file's calls of its own functions pass them: `accuracy(out, labels)` in a training
loop, where `labels` was moved to the GPU, hands `accuracy` a device tensor, so
`float((pred == labels).sum())` in its body copies one back. The traversal notes the kind of
each argument as it reaches each call (the kinds known there and then); a rule asks, once the
whole file is walked, whether every call passed a parameter a tensor that may be on the device.

Only calls the file resolves to one of its own definitions count: a module-level function
called by its name (defined once, not shadowed where it is called), and a method called on
`self` from another method of the same class."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Dict, FrozenSet, List, Optional, Sequence, Tuple, Union

import libcst as cst

from torchlint.semantics.kinds import MAYBE_DEVICE_KINDS, Kind
from torchlint.semantics.names import Scope

# What a call passed a parameter: a kind (None: unknown), or the calling function and its own
# parameter that the call hands on as it was given.
Passed = Union[Optional[Kind], Tuple[cst.CSTNode, str]]


@dataclass
class ArgumentKinds:
    """The kinds each call of the file's own functions passed, by function (by id)."""

    module: cst.Module
    # Module-level functions defined exactly once, by name.
    _functions: Dict[str, cst.FunctionDef] = field(default_factory=dict)
    # Per function (by id), one entry per call: what each parameter was passed (see `Passed`;
    # nothing for a parameter not passed; a call with `*args`/`**kwargs` records nothing).
    _passed: Dict[int, List[Dict[str, Passed]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        defined: Dict[str, List[cst.FunctionDef]] = {}
        for statement in self.module.body:
            if isinstance(statement, cst.FunctionDef):
                defined.setdefault(statement.name.value, []).append(statement)
        self._functions = {name: found[0] for name, found in defined.items() if len(found) == 1}

    def note_call(self, call: cst.Call, scopes: Sequence[Scope], kind_of: Callable[[cst.BaseExpression], Optional[Kind]]) -> None:
        """Record the kinds `call` passes, when it calls one of the file's own functions."""
        resolved = self._callee(call.func, scopes)
        if resolved is None:
            return
        function, parameters = resolved
        passed: Dict[str, Passed] = {}
        if not any(arg.star for arg in call.args):
            for index, arg in enumerate(call.args):
                name = arg.keyword.value if arg.keyword is not None else (parameters[index] if index < len(parameters) else None)
                if name is not None:
                    passed[name] = _passed_value(arg.value, scopes, kind_of)
        self._passed.setdefault(id(function), []).append(passed)

    def always_maybe_on_device(self, function: cst.CSTNode, parameter: str, seen: FrozenSet[Tuple[int, str]] = frozenset()) -> bool:
        """Whether the file calls `function` and every call passes `parameter` a tensor that
        may live on the device, or a parameter of the caller that every call of the caller
        passes one (`step(out, y)` handing its `y` on to `accuracy(out, y)`)."""
        key = (id(function), parameter)
        calls = self._passed.get(id(function), ())
        if not calls or key in seen:
            return False
        return all(self._maybe_on_device(passed.get(parameter), seen | {key}) for passed in calls)

    def _maybe_on_device(self, passed: Optional[Passed], seen: FrozenSet[Tuple[int, str]]) -> bool:
        if isinstance(passed, tuple):
            return self.always_maybe_on_device(*passed, seen=seen)
        return passed in MAYBE_DEVICE_KINDS

    def _callee(self, func: cst.BaseExpression, scopes: Sequence[Scope]) -> Optional[Tuple[cst.FunctionDef, List[str]]]:
        """The function `func` names and the parameter names its positional arguments fill."""
        if isinstance(func, cst.Name):
            function = self._functions.get(func.value)
            if function is None or any(func.value in scope.bindings for scope in scopes[1:]):
                return None  # not one of the file's functions, or a local name shadows it
            return function, _positional(function.params, skip=0)
        if not (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)):
            return None
        method_scope = next((scope for scope in reversed(scopes) if isinstance(scope.node, cst.FunctionDef)), None)
        if method_scope is None:
            return None
        index = scopes.index(method_scope)
        klass = scopes[index - 1].node if index > 0 and scopes[index - 1].is_class else None
        own = _positional(method_scope.node.params, skip=0)
        if not isinstance(klass, cst.ClassDef) or not own or own[0] != func.value.value:
            return None  # not `self.<method>(...)` in a method
        methods = [item for item in klass.body.body if isinstance(item, cst.FunctionDef) and item.name.value == func.attr.value]
        if len(methods) != 1 or methods[0].decorators:
            return None
        return methods[0], _positional(methods[0].params, skip=1)


def _passed_value(value: cst.BaseExpression, scopes: Sequence[Scope], kind_of: Callable[[cst.BaseExpression], Optional[Kind]]) -> Passed:
    """The kind of `value`; for an open parameter of the calling function
    (`Scope.open_parameters`), that function and the parameter's name."""
    kind = kind_of(value)
    if kind is None and isinstance(value, cst.Name):
        owner = next((scope for scope in reversed(scopes) if value.value in scope.bindings or value.value in scope.values), None)
        if owner is not None and value.value in owner.open_parameters:
            return owner.node, value.value
    return kind


def _positional(params: cst.Parameters, skip: int) -> List[str]:
    return [param.name.value for param in (*params.posonly_params, *params.params)][skip:]
