"""What a file's calls of its own functions pass them: `accuracy(out, labels)` in a training
loop, where `labels` was moved to the GPU, hands `accuracy` a device tensor, so
`float((pred == labels).sum())` in its body copies one back. The traversal notes the kind of
each argument as it reaches each call (the kinds known there and then); a rule asks, once the
whole file is walked, whether every call passed a parameter a tensor that may be on the device.

Only calls the file resolves to one of its own definitions count: a module-level function
called by its name (defined once, not shadowed where it is called), and a method called on
`self` from another method of the same class (`self(x)` calls its `forward`). The `forward()`
of a torch module class that no call of the file passes anything is called on the module's
inputs by whoever calls the module, here or in another file: its parameters without a default
are taken to be tensors that may be on the device (`assert (t < self.steps).all()` in a
diffusion process's `forward(x_0, t)`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import AbstractSet, Callable, Dict, FrozenSet, List, Optional, Sequence, Tuple, Union

import libcst as cst

from torchlint.semantics.kinds import MAYBE_DEVICE_KINDS, Kind
from torchlint.semantics.names import Parameter, Scope
from torchlint.semantics.tree import nodes_of_type

# What a call passed a parameter: a kind (None: unknown), or the calling function's own
# parameters the value is a tensor if one of is (the parameter handed on as it was given, or a
# name computed from one: `Scope.open_parameters`, `Scope.derived`).
Passed = Union[Optional[Kind], FrozenSet[Parameter]]


@dataclass
class ArgumentKinds:
    """The kinds each call of the file's own functions passed, by function (by id)."""

    module: cst.Module
    # The names of the file's torch module classes (`ValueInference.module_classes`, filled
    # as the traversal reaches each class).
    module_classes: AbstractSet[str] = frozenset()
    # Module-level functions defined exactly once, by name.
    _functions: Dict[str, cst.FunctionDef] = field(default_factory=dict)
    # Per function (by id), one entry per call: what each parameter was passed (see `Passed`;
    # nothing for a parameter not passed; a call with `*args`/`**kwargs` records nothing).
    _passed: Dict[int, List[Dict[str, Passed]]] = field(default_factory=dict)

    # The functions some call of the file may resolve to, by id (`may_be_called`; found on first use).
    _callable: Optional[FrozenSet[int]] = None

    def __post_init__(self) -> None:
        defined: Dict[str, List[cst.FunctionDef]] = {}
        for statement in self.module.body:
            if isinstance(statement, cst.FunctionDef):
                defined.setdefault(statement.name.value, []).append(statement)
        self._functions = {name: found[0] for name, found in defined.items() if len(found) == 1}

    def may_be_called(self, function: cst.CSTNode) -> bool:
        """Whether some call of the file may resolve to `function` (known before the
        traversal reaches the calls; `always_maybe_on_device` needs one)."""
        if self._callable is None:
            called = {
                node.func.value if isinstance(node.func, cst.Name) else node.func.attr.value
                for node in nodes_of_type(self.module, (cst.Call,)) if isinstance(node, cst.Call) and isinstance(node.func, (cst.Name, cst.Attribute))
            }
            if "self" in called:
                called |= {"forward", "__call__"}
            self._callable = frozenset(
                id(item) for item in (*self._functions.values(), *_methods(self.module)) if item.name.value in called
            )
        return id(function) in self._callable or self._module_forward(function) is not None

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
        if not calls:
            return self._module_input(function, parameter)
        if key in seen:
            return False
        return all(self._maybe_on_device(passed.get(parameter), seen | {key}) for passed in calls)

    def _module_input(self, function: cst.CSTNode, parameter: str) -> bool:
        """Whether `parameter` is an input of a module class's `forward()` without a default."""
        forward = self._module_forward(function)
        return forward is not None and any(param.name.value == parameter and param.default is None for param in _positional_params(forward.params, skip=1))

    def _module_forward(self, function: cst.CSTNode) -> Optional[cst.FunctionDef]:
        """`function`, when it is the `forward()` of a module-level torch module class (a
        decorator such as `@torch.no_grad()` keeps what the module's call hands it)."""
        if not isinstance(function, cst.FunctionDef) or function.name.value != "forward":
            return None
        owner = next(
            (statement for statement in self.module.body if isinstance(statement, cst.ClassDef) and any(item is function for item in statement.body.body)),
            None,
        )
        return function if owner is not None and owner.name.value in self.module_classes else None

    def _maybe_on_device(self, passed: Optional[Passed], seen: FrozenSet[Tuple[int, str]]) -> bool:
        if isinstance(passed, frozenset):
            return any(self.always_maybe_on_device(function, name, seen=seen) for function, name in passed)
        return passed in MAYBE_DEVICE_KINDS

    def _callee(self, func: cst.BaseExpression, scopes: Sequence[Scope]) -> Optional[Tuple[cst.FunctionDef, List[str]]]:
        """The function `func` names and the parameter names its positional arguments fill."""
        method_scope = next((scope for scope in reversed(scopes) if isinstance(scope.node, cst.FunctionDef)), None)
        if isinstance(func, cst.Name) and not (method_scope is not None and _instance_name(method_scope, scopes) == func.value):
            function = self._functions.get(func.value)
            if function is None or any(func.value in scope.bindings for scope in scopes[1:]):
                return None  # not one of the file's functions, or a local name shadows it
            return function, _positional(function.params, skip=0)
        receiver = func.value if isinstance(func, cst.Attribute) else func
        if method_scope is None or not isinstance(receiver, cst.Name) or _instance_name(method_scope, scopes) != receiver.value:
            return None  # not `self.<method>(...)` nor `self(...)` in a method
        klass = scopes[scopes.index(method_scope) - 1].node
        assert isinstance(klass, cst.ClassDef)
        wanted = (func.attr.value,) if isinstance(func, cst.Attribute) else ("__call__", "forward")  # a module's call runs `forward`
        for name in wanted:
            methods = [item for item in klass.body.body if isinstance(item, cst.FunctionDef) and item.name.value == name]
            if methods:
                return (methods[0], _positional(methods[0].params, skip=1)) if len(methods) == 1 and not methods[0].decorators else None
        return None


def _passed_value(value: cst.BaseExpression, scopes: Sequence[Scope], kind_of: Callable[[cst.BaseExpression], Optional[Kind]]) -> Passed:
    """The kind of `value`; for a name of unknown kind that stands for parameters of the
    calling function (`Scope.open_parameters`, `Scope.derived`), those parameters."""
    kind = kind_of(value)
    if kind is None and isinstance(value, cst.Name):
        owner = next((scope for scope in reversed(scopes) if value.value in scope.bindings or value.value in scope.values), None)
        if owner is not None and value.value in owner.open_parameters:
            return frozenset({(owner.node, value.value)})
        if owner is not None and value.value in owner.derived:
            return owner.derived[value.value]
    return kind


def _methods(module: cst.Module) -> List[cst.FunctionDef]:
    """The methods of the module-level classes."""
    return [
        item for statement in module.body if isinstance(statement, cst.ClassDef)
        for item in statement.body.body if isinstance(item, cst.FunctionDef)
    ]


def _instance_name(method_scope: Scope, scopes: Sequence[Scope]) -> Optional[str]:
    """The name of the instance parameter of the method whose scope is `method_scope` (a
    function directly in a class, undecorated), else None."""
    index = scopes.index(method_scope)
    method = method_scope.node
    if index == 0 or not scopes[index - 1].is_class or not isinstance(method, cst.FunctionDef) or method.decorators:
        return None
    own = _positional(method.params, skip=0)
    return own[0] if own else None


def _positional(params: cst.Parameters, skip: int) -> List[str]:
    return [param.name.value for param in _positional_params(params, skip)]


def _positional_params(params: cst.Parameters, skip: int) -> List[cst.Param]:
    return [*params.posonly_params, *params.params][skip:]
