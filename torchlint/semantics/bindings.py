"""How the file binds a method name: a `def`, an assignment in a class body (`to = _move`), or
one made at run time (`Batch.to = _move`, `setattr(Batch, "to", ...)`, `type(..., {"to": ...})`)."""

from __future__ import annotations

from typing import Callable, Dict, FrozenSet, List, Optional, Tuple, Union

import libcst as cst

from torchlint.semantics.facts import FileFacts
from torchlint.semantics.tree import NESTED_SCOPES, bound_names, children, comprehension_walruses, descendants, descendants_of_type, names_bound_by, nodes_of_type, per_module, scope_descendants
from torchlint.semantics.values import string_value
from torchlint.semantics.escapes import attribute_store, stored_targets
from torchlint.semantics.calls import arguments_by_parameter
from torchlint.semantics.pyast import PARTIALS
from torchlint.semantics.names import NameResolver, dotted_name

Function = Union[cst.FunctionDef, cst.Lambda]


def method_definitions(ctx: FileFacts, name: str) -> List[Optional[Function]]:
    """Every function of the file that may run as the method `name`: each `def name`, and
    for each assignment to `name` in a class body (`to = _move`, `to: Callable = ...`) what it
    binds: a lambda, or the file's functions of the name it assigns; None when it assigns
    anything else, whose signature is unknown (`to = staticmethod(move)`, an imported helper).
    Bindings made at run time count the same (`_run_time_bindings`), and a class with its own
    `__getattr__`/`__getattribute__` (by `def` or by assignment), which may answer any method
    name, adds a None."""
    functions = ctx.frequency.local_functions()
    found: List[Optional[Function]] = list(functions.get(name, []))
    for value in _bindings(ctx, name):
        if isinstance(value, cst.Lambda):
            found.append(value)
        elif isinstance(value, cst.Name) and value.value in functions:
            found.extend(functions[value.value])
        else:
            found.append(None)
    if any(attribute in functions or _bindings(ctx, attribute) for attribute in ("__getattr__", "__getattribute__")):
        found.append(None)
    return found


def _bindings(ctx: FileFacts, name: str) -> List[cst.BaseExpression]:
    """The values the file assigns to the attribute `name`, in class bodies and at run time."""
    values = [value for classes in ctx.frequency.classes().values() for klass in classes for value in _class_assignments(klass, name)]
    return [*values, *_run_time_bindings(ctx.module, name)]


@per_module
def _run_time_bindings(module: cst.Module, name: str) -> List[cst.BaseExpression]:
    """The values the file binds to the attribute `name` outside class bodies: `Batch.to =
    _move`, `setattr(Batch, "to", _move)` (or `type.__setattr__`), and `type("Batch", (),
    {"to": _move})`; a `setattr` or `type` whose attribute names are not string literals, or
    whose arguments are unpacked (`setattr(Batch, *pair)`), may bind any name, `name` too
    (the call itself stands for a value whose signature is unknown). Callers must not change
    the list."""
    values: List[cst.BaseExpression] = []
    for node in nodes_of_type(module, (cst.Assign, cst.Call)):
        if isinstance(node, cst.Assign):
            values.extend(node.value for target in node.targets if isinstance(target.target, cst.Attribute) and target.target.attr.value == name)
        elif isinstance(node, cst.Call) and dotted_name(node.func) in _ATTRIBUTE_BINDERS and any(arg.star for arg in node.args):
            values.append(node)
        elif isinstance(node, cst.Call) and dotted_name(node.func) in ("type.__setattr__", "object.__setattr__") and len(node.args) == 3:
            if string_value(node.args[1].value) in (name, None):
                values.append(node.args[2].value)
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and len(node.args) == 3:
            if node.func.value == "setattr" and string_value(node.args[1].value) in (name, None):
                values.append(node.args[2].value)
            elif node.func.value == "type" and not isinstance(node.args[2].value, cst.Dict):
                values.append(node.args[2].value)
            elif node.func.value == "type":
                values.extend(
                    element.value
                    for element in node.args[2].value.elements
                    if not isinstance(element, cst.DictElement) or string_value(element.key) in (name, None)
                )
    return values


# Calls that bind attributes by the names they are given.
_ATTRIBUTE_BINDERS = frozenset({"setattr", "type", "type.__setattr__", "object.__setattr__"})


def _class_assignments(klass: cst.ClassDef, name: str) -> List[cst.BaseExpression]:
    """The values the class body's own statements assign to `name`, also under an `if` or
    `try` of the body; a loop, `with`, import or `:=` that binds it, or a store through
    `locals()`/`vars()` (which may bind any name), gives the class itself: a value whose
    signature is unknown."""
    values: List[cst.BaseExpression] = []
    for node in scope_descendants(klass.body):
        if isinstance(node, cst.Assign) and any(name in bound_names(t.target) for t in node.targets):
            values.append(node.value)
        elif isinstance(node, cst.AnnAssign) and node.value is not None and name in bound_names(node.target):
            values.append(node.value)
        elif isinstance(node, (cst.For, cst.AsName, cst.NamedExpr)) and name in names_bound_by(node):
            values.append(klass.name)
        elif isinstance(node, (cst.Import, cst.ImportFrom)) and name in _imported_names(node):
            values.append(klass.name)
        elif isinstance(node, cst.Subscript) and isinstance(node.value, cst.Call) and dotted_name(node.value.func) in ("locals", "vars"):
            values.append(klass.name)
    return values


def imported_values(module: cst.Module, name: str) -> List[str]:
    """The qualified names that imports anywhere in the file bind to `name`: `from torch import
    float64 as device` gives `torch.float64`, `import numpy as device` gives `numpy`
    (relative and star imports give none)."""
    found: List[str] = []
    for node in nodes_of_type(module, (cst.Import, cst.ImportFrom)):
        if isinstance(node, cst.ImportFrom):
            if isinstance(node.names, cst.ImportStar) or node.relative or node.module is None:
                continue
            base = dotted_name(node.module)
            found += [f"{base}.{alias.evaluated_name}" for alias in node.names if (alias.evaluated_alias or alias.evaluated_name) == name]
        elif isinstance(node, cst.Import):
            found += [alias.evaluated_name for alias in node.names if alias.evaluated_alias == name]
    return found


@per_module
def import_bound_names(module: cst.Module) -> FrozenSet[str]:
    """The names the file's imports bind anywhere (`torch`, `F` of `import
    torch.nn.functional as F`)."""
    return frozenset(name for node in nodes_of_type(module, (cst.Import, cst.ImportFrom)) for name in _imported_names(node))  # type: ignore[arg-type]


def _imported_names(node: Union[cst.Import, cst.ImportFrom]) -> List[str]:
    """The names an import statement binds (none for `from x import *`)."""
    if isinstance(node.names, cst.ImportStar):
        return []
    return [alias.evaluated_alias or alias.evaluated_name.split(".")[0] for alias in node.names]


# What `functools.wraps` copies to a wrapper (or sets on it): reading these of a decorated
# function gives what they gave before.
WRAPPER_COPIES = frozenset({"__name__", "__qualname__", "__doc__", "__module__", "__dict__", "__wrapped__", "__annotations__"})


def wrapper_attribute_read(module: cst.Module, function: cst.FunctionDef, local: Dict[str, List[cst.FunctionDef]]) -> Optional[str]:
    """An attribute of `function`'s function object that the file reads and a wrapping
    decorator would not keep: through its name (`evaluate.__defaults__`, `obj.step.__code__`),
    or in a decorator of the file that `function` already has (`fn.__defaults__` of its
    parameter `fn`), which would get the wrapper."""
    found = _dunder_read(nodes_of_type(module, (cst.Attribute,)), function.name.value) or _introspected(
        nodes_of_type(module, (cst.Call,)), function.name.value
    )
    for decorator in function.decorators:
        name = getattr(decorator.decorator, "value", None)
        for definition in local.get(name, []) if isinstance(name, str) else []:
            parameters = definition.params.params
            if parameters and found is None:
                body = list(descendants(definition.body))
                found = _dunder_read([node for node in body if isinstance(node, cst.Attribute)], parameters[0].name.value) or _introspected(
                    [node for node in body if isinstance(node, cst.Call)], parameters[0].name.value
                )
    return found


# `inspect` functions that read a function object's own code, not the `__wrapped__` one
# (`inspect.signature` follows it).
_CODE_READERS = frozenset(
    "getfullargspec getargspec getcallargs getclosurevars getsource getsourcelines getsourcefile getfile".split()
)


def _introspected(calls: List[cst.CSTNode], name: str) -> Optional[str]:
    """The first of `calls` that hands `name` (or `obj.name`) to an `inspect` function that
    reads the function's own code (`inspect.getfullargspec(fn)`)."""
    for node in calls:
        assert isinstance(node, cst.Call)
        called = dotted_name(node.func) or ""
        parts = called.split(".")
        if parts[-1] not in _CODE_READERS or parts[:-1] not in ([], ["inspect"]):
            continue
        for arg in node.args:
            value = arg.value.attr if isinstance(arg.value, cst.Attribute) else arg.value
            if isinstance(value, cst.Name) and value.value == name:
                return f"{called}(...)"
    return None


def _dunder_read(attributes: List[cst.CSTNode], name: str) -> Optional[str]:
    """The first of `attributes` that reads a dunder of `name` (or of `obj.name`) that
    `functools.wraps` does not copy."""
    for node in attributes:
        assert isinstance(node, cst.Attribute)
        owner = node.value.attr if isinstance(node.value, cst.Attribute) else node.value
        attribute = node.attr.value
        if isinstance(owner, cst.Name) and owner.value == name and attribute.startswith("__") and attribute not in WRAPPER_COPIES:
            return attribute
    return None


def takes_keyword(function: Function, keyword: str) -> bool:
    """Whether `function` accepts the keyword argument `keyword` (by name or through `**kwargs`)."""
    parameters = function.params
    names = {param.name.value for param in (*parameters.params, *parameters.kwonly_params)}
    return keyword in names or isinstance(parameters.star_kwarg, cst.Param)


def acts_on_keyword(function: Function, keyword: str) -> bool:
    """Whether `function` does more with its parameter `keyword` (or the `**kwargs` that would
    receive it) than pass it on under the same keyword (`x.to(device, non_blocking=non_blocking)`,
    `**kwargs`): it may then run differently with the keyword given (`if non_blocking:
    x.pin_memory()`)."""
    parameters = function.params
    names = {param.name.value for param in (*parameters.params, *parameters.kwonly_params) if param.name.value == keyword}
    if isinstance(parameters.star_kwarg, cst.Param):
        names.add(parameters.star_kwarg.name.value)
    forwarded = {
        id(arg.value)
        for arg in descendants(function.body)
        if isinstance(arg, cst.Arg) and (arg.star == "**" or (arg.keyword is not None and arg.keyword.value == keyword))
    }
    return any(isinstance(node, cst.Name) and node.value in names and id(node) not in forwarded for node in descendants(function.body))


def binds_locally(function: cst.FunctionDef, name: str) -> bool:
    """Whether `function` binds `name` anywhere in its own scope, which makes the name local to
    it everywhere (read before the binding, it raises `UnboundLocalError`): a parameter, an
    assignment, loop, `with` or `except` target, an import, a nested `def` or `class`, `del`;
    unless a `global` or `nonlocal` statement declares it."""
    parameters = function.params
    star = [p for p in (parameters.star_arg, parameters.star_kwarg) if isinstance(p, cst.Param)]
    if any(p.name.value == name for p in (*parameters.posonly_params, *parameters.params, *parameters.kwonly_params, *star)):
        return True
    bound = False
    stack: List[cst.CSTNode] = list(children(function.body))
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.Global, cst.Nonlocal)) and any(item.name.value == name for item in node.names):
            return False
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)) and node.name.value == name:
            bound = True
        elif isinstance(node, cst.Del) and name in bound_names(node.target):
            bound = True
        elif isinstance(node, cst.Import) and any(alias.asname is None and (alias.evaluated_name.split(".")[0] == name) for alias in node.names):
            bound = True
        elif isinstance(node, cst.ImportFrom) and not isinstance(node.names, cst.ImportStar):
            bound = bound or any(alias.asname is None and alias.evaluated_name == name for alias in node.names)
        bound = bound or name in names_bound_by(node)
        if not isinstance(node, NESTED_SCOPES):
            stack.extend(children(node))
    return bound or any(name in names_bound_by(walrus) for walrus in comprehension_walruses(function.body))


def reaching_values(
    module: cst.Module, function: Optional[cst.FunctionDef], name: str, partial: bool = False
) -> Optional[List[cst.BaseExpression]]:
    """Every value a plain assignment gives `name` where `function` (None: module level) reads
    it: in `function` when it binds the name itself (and in its nested functions that declare
    it `nonlocal`), else at module level and in the functions that declare it `global`; None
    when something else binds it there (a loop, a parameter, `+=`, `with ... as`, `:=`),
    whose value is unknown, unless `partial` asks for the values it can read all the same
    (what the name may hold, never all of it)."""
    scope: cst.CSTNode = function if function is not None and binds_locally(function, name) else module
    values: List[cst.BaseExpression] = []
    if scope is module:
        through_globals = globals_values(module, name)
        if through_globals is None and not partial:
            return None
        values += through_globals or []
    declaration = cst.Global if scope is module else cst.Nonlocal
    scopes = [scope] + [
        node
        for node in descendants_of_type(module, scope, cst.FunctionDef)  # the module's index, not one of the function
        if node is not scope
        and any(isinstance(item, declaration) and any(n.name.value == name for n in item.names) for item in scope_descendants(node.body))
    ]
    for body in scopes:
        if isinstance(body, cst.FunctionDef) and body is scope:
            parameters = body.params
            if any(p.name.value == name for p in (*parameters.posonly_params, *parameters.params, *parameters.kwonly_params)) and not partial:
                return None
        nodes = list(scope_descendants(body.body if isinstance(body, cst.FunctionDef) else body))
        nodes += comprehension_walruses(body.body if isinstance(body, cst.FunctionDef) else body)
        read_with_targets = {id(item.asname) for node in nodes if isinstance(node, cst.With) for item in node.items}
        for node in nodes:
            if isinstance(node, cst.Assign) and any(name in bound_names(t.target) for t in node.targets):
                for target in node.targets:
                    spelled = spelled_values(module, target.target, node.value, lambda item: isinstance(item, cst.Name) and item.value == name)
                    if spelled is None and not partial:
                        return None  # unpacked from a value it cannot read
                    values += spelled or []
            elif isinstance(node, cst.AnnAssign) and name in bound_names(node.target):
                if node.value is not None:
                    values.append(node.value)
            elif isinstance(node, (cst.For, cst.With)) and name in _loop_or_with_names(node):
                spelled = _loop_or_with_values(module, node, lambda item: isinstance(item, cst.Name) and item.value == name, partial)
                if spelled is None and not partial:
                    return None
                values += spelled or []
            elif not isinstance(node, (cst.AssignTarget, cst.AnnAssign, cst.For)) and id(node) not in read_with_targets and name in names_bound_by(node):
                if not partial:
                    return None  # `except ... as`, `import ... as`, `+=`, `:=`, a `match` capture
                values += [node.value] if isinstance(node, cst.NamedExpr) else []
                values += _comprehension_elements(module, body, node.value) if isinstance(node, cst.NamedExpr) else []
    return values


def _comprehension_elements(module: cst.Module, scope: cst.CSTNode, value: cst.BaseExpression) -> List[cst.BaseExpression]:
    """What a `:=` in a comprehension of `scope` may bind when its value is the name the
    comprehension iterates with (`[d for d in SETTINGS if (device := d)]`): the elements of
    the list or tuple literal it iterates over, spelled out or assigned to the iterated name."""
    if not isinstance(value, cst.Name):
        return []
    found: List[cst.BaseExpression] = []
    for node in descendants(scope):
        if isinstance(node, cst.CompFor) and value.value in bound_names(node.target):
            sources = [node.iter] if not isinstance(node.iter, cst.Name) else reaching_values(module, None, node.iter.value, True) or []
            found += [element.value for source in sources if isinstance(source, (cst.List, cst.Tuple, cst.Set)) for element in source.elements]
    return found


def spelled_values(
    module: cst.Module, target: cst.BaseExpression, value: cst.BaseExpression, wanted: Callable[[cst.BaseExpression], bool]
) -> Optional[List[cst.BaseExpression]]:
    """What the target parts that `wanted` picks get from `value` when the file spells it out:
    the value itself for a plain target; for a tuple target (`model, device = setup()`,
    `run.device, run.steps = torch.float64, 2`) the element at the position, of a tuple
    literal or of every tuple a function of the file returns; None where it cannot be read
    (a starred target, another value)."""
    if wanted(target):
        return [value]
    if not isinstance(target, (cst.Tuple, cst.List)):
        return []
    elements = [element.value for element in target.elements]
    if any(isinstance(element, cst.StarredElement) for element in target.elements):
        return None if any(wanted(item) for element in elements for item in [element, *descendants(element)]) else []
    sources = _tuples_of(module, value, len(elements))
    if sources is None:
        return None if any(wanted(item) for element in elements for item in [element, *descendants(element)]) else []
    found: List[cst.BaseExpression] = []
    for source in sources:
        for element, item in zip(elements, source):
            spelled = spelled_values(module, element, item, wanted)
            if spelled is None:
                return None
            found += spelled
    return found


def _tuples_of(module: cst.Module, value: cst.BaseExpression, size: int, calling: FrozenSet[str] = frozenset()) -> Optional[List[List[cst.BaseExpression]]]:
    """The element lists of the tuples `value` may be: a tuple or list literal of `size`
    elements, or a call of a function of the file each of whose returns is one; else None
    (also for a call of a function `calling`, being read: a recursive helper)."""
    if isinstance(value, (cst.Tuple, cst.List)):
        items = [element.value for element in value.elements]
        return [items] if len(items) == size and not any(isinstance(e, cst.StarredElement) for e in value.elements) else None
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value not in calling:
        functions = [node for node in nodes_of_type(module, (cst.FunctionDef,)) if isinstance(node, cst.FunctionDef) and node.name.value == value.func.value]
        returns = [item.value for function in functions for item in scope_descendants(function.body) if isinstance(item, cst.Return)]
        if functions and returns and all(item is not None for item in returns):
            found = [_tuples_of(module, item, size, calling | {value.func.value}) for item in returns]  # type: ignore[arg-type]
            return None if any(item is None for item in found) else [items for item in found for items in item or []]
    return None


def _loop_or_with_names(node: Union[cst.For, cst.With]) -> List[str]:
    if isinstance(node, cst.For):
        return bound_names(node.target)
    return [name for item in node.items if item.asname is not None for name in bound_names(item.asname.name)]


def _loop_or_with_values(
    module: cst.Module, node: Union[cst.For, cst.With], wanted: Callable[[cst.BaseExpression], bool], partial: bool = False
) -> Optional[List[cst.BaseExpression]]:
    """What a loop over a literal (`for device in ("cpu", torch.float64)`; with `partial`, also
    over a module-level name assigned literals, `for device in placements`, which other code
    may extend) or a `with` over a generator-based context manager of the file (what it
    yields) gives the target parts `wanted` picks; None when the file does not spell it out."""
    if isinstance(node, cst.For):
        literals = _module_assignments(module, node.iter.value) if partial and isinstance(node.iter, cst.Name) else [node.iter]
        if not literals or not all(isinstance(item, (cst.Tuple, cst.List, cst.Set)) for item in literals):
            return None
        elements = [element for literal in literals for element in literal.elements]  # type: ignore[attr-defined]
        if any(isinstance(e, cst.StarredElement) for e in elements):
            return None
        found: List[cst.BaseExpression] = []
        for element in elements:
            spelled = spelled_values(module, node.target, element.value, wanted)
            if spelled is None:
                return None
            found += spelled
        return found
    found = []
    for item in node.items:
        if item.asname is None:
            continue
        target = item.asname.name
        if not any(wanted(part) for part in [target, *descendants(target)]):
            continue
        call = item.item
        functions = [f for f in nodes_of_type(module, (cst.FunctionDef,)) if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and isinstance(f, cst.FunctionDef) and f.name.value == call.func.value]
        yielded = [y.value for f in functions for y in scope_descendants(f.body) if isinstance(y, cst.Yield)]
        if not functions or not yielded or any(value is None or isinstance(value, cst.From) for value in yielded):
            return None
        for value in yielded:
            spelled = spelled_values(module, target, value, wanted)  # type: ignore[arg-type]
            if spelled is None:
                return None
            found += spelled
    return found


# Methods of the `globals()` dict that only read it.
_DICT_READS = frozenset({"get", "items", "keys", "values", "copy", "__contains__", "__getitem__"})


def globals_values(module: cst.Module, name: str) -> Optional[List[cst.BaseExpression]]:
    """What the file gives the module-level `name` through the `globals()` dict:
    `globals().update(SETTINGS)` of a dict literal (or a module-level name of one) or with
    keywords, `globals()["name"] = value`; None when it binds names there that it does not
    spell out (another method, a key that is not a literal, a dict it cannot read), also by
    running code of a string in them (`exec("device = torch.float64")`)."""
    if execs_in_globals(module):
        return None
    values: List[cst.BaseExpression] = []
    for node in descendants(module):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and _globals_dict(node.func.value):
            if node.func.attr.value in _DICT_READS:
                continue
            if node.func.attr.value != "update":
                return None
            for arg in node.args:
                entries = _dict_entries(module, arg)
                if entries is None:
                    return None
                values += [value for key, value in entries if key == name]
        elif isinstance(node, cst.Assign):
            for target in node.targets:
                for stored in stored_targets(target.target):
                    if not (isinstance(stored, cst.Subscript) and _globals_dict(stored.value)):
                        continue
                    key = string_value(stored.slice[0].slice.value) if isinstance(stored.slice[0].slice, cst.Index) else None
                    if key is None or (key == name and stored is not target.target):
                        return None
                    values += [node.value] if key == name else []
    return values


def module_level_bindings(module: cst.Module, name: str) -> Optional[int]:
    """How many times the file binds the module-level `name` to a value other than by importing
    or defining it: assignments, loops, `as` clauses, walruses and `match` captures in
    module-level code or in a function that declares it `global` (a `def` there too); None when `globals()`
    entries or `exec` code may bind it too (`globals_values`)."""
    if globals_values(module, name) != []:
        return None
    scopes: List[cst.CSTNode] = [module, *(
        function for function in nodes_of_type(module, (cst.FunctionDef,))
        if any(isinstance(item, cst.Global) and any(n.name.value == name for n in item.names) for item in descendants(function))
    )]
    assigned = sum(
        name in names_bound_by(node) and not isinstance(node, cst.AsName)
        for scope in scopes for node in scope_descendants(scope.body if isinstance(scope, cst.FunctionDef) else scope)
    )
    defined = sum(
        isinstance(node, (cst.FunctionDef, cst.ClassDef)) and node.name.value == name
        for scope in scopes[1:] for node in descendants(scope.body)  # type: ignore[attr-defined]
    )
    return assigned + defined


def bound_besides_imports(module: cst.Module, name: str) -> bool:
    """Whether the file may bind the module-level `name` other than by importing or defining it
    (see `module_level_bindings`)."""
    return module_level_bindings(module, name) != 0


@per_module
def execs_in_globals(module: cst.Module) -> bool:
    """Whether the file runs code of a string among its module-level names (`exec(source)`,
    `exec(source, globals())`), which may bind any of them to anything."""
    return any(
        isinstance(node, cst.Call) and dotted_name(node.func) == "exec" and (len(node.args) < 2 or _globals_dict(node.args[1].value))
        for node in descendants(module)
    )


def _dict_entries(module: cst.Module, arg: cst.Arg) -> Optional[List[Tuple[str, cst.BaseExpression]]]:
    """The (key, value) pairs an argument of `dict.update` gives: a keyword, or the entries
    of a dict literal (or of the module-level assignments of a name to one); None otherwise."""
    if arg.keyword is not None:
        return [(arg.keyword.value, arg.value)]
    if arg.star:
        return None
    literals = _module_assignments(module, arg.value.value) if isinstance(arg.value, cst.Name) else [arg.value]
    if not literals or not all(isinstance(item, cst.Dict) for item in literals):
        return None
    entries: List[Tuple[str, cst.BaseExpression]] = []
    for literal in literals:
        for element in literal.elements:  # type: ignore[attr-defined]
            key = string_value(element.key) if isinstance(element, cst.DictElement) else None
            if key is None:
                return None
            entries.append((key, element.value))
    return entries


def captured_values(module: cst.Module, name: str) -> List[cst.BaseExpression]:
    """Values a `match` case may capture into `name` under a mapping key (`case {"device":
    device}`): the entries under that key of the file's dict literals. They show what the
    name may hold, never all of it."""
    keys = {
        string_value(element.key)
        for node in nodes_of_type(module, (cst.MatchMapping,))
        for element in node.elements  # type: ignore[attr-defined]
        if isinstance(element.pattern, cst.MatchAs) and element.pattern.pattern is None
        and isinstance(element.pattern.name, cst.Name) and element.pattern.name.value == name
    }
    return [
        element.value
        for node in nodes_of_type(module, (cst.Dict,))
        for element in node.elements  # type: ignore[attr-defined]
        if isinstance(element, cst.DictElement) and string_value(element.key) in keys - {None}
    ]


def _module_assignments(module: cst.Module, name: str) -> List[cst.BaseExpression]:
    """The values module-level statements assign to `name` by a plain assignment."""
    return [
        small.value
        for line in module.body
        if isinstance(line, cst.SimpleStatementLine)
        for small in line.body
        if isinstance(small, cst.Assign) and any(isinstance(t.target, cst.Name) and t.target.value == name for t in small.targets)
    ]


def _globals_dict(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Call) and not node.args and dotted_name(node.func) in ("globals", "vars")


def parameter_values(module: cst.Module, function: cst.FunctionDef, name: str) -> List[cst.BaseExpression]:
    """The values the file gives parameter `name` of `function`: its default and what the
    file's calls of the function by its name (`fn(...)`, `obj.fn(...)`) pass for it. Callers
    in other modules are not seen, so these show what the parameter may hold, never all."""
    parameters = [*function.params.posonly_params, *function.params.params, *function.params.kwonly_params]
    values = [p.default for p in parameters if p.name.value == name and p.default is not None]
    if not any(p.name.value == name for p in parameters):
        return values
    # A decorator called with a keyword of the parameter's name may bind it (`@with_placement(device=...)`
    # returning a `functools.partial` of the function).
    values += [arg.value for d in function.decorators if isinstance(d.decorator, cst.Call) for arg in d.decorator.args if arg.keyword is not None and arg.keyword.value == name]
    values += _wrapper_arguments(module, function, name)
    for node in descendants(module):
        if isinstance(node, cst.Call) and getattr(getattr(node.func, "attr", node.func), "value", None) == function.name.value:
            values += [argument for argument, parameter in arguments_by_parameter(node, function) if parameter == name]
            values += [value for arg in node.args if arg.star == "**" for value in _keyed_values(module, arg.value, name)]
            values += _starred_values(module, node, function, name)
        elif isinstance(node, cst.Call) and dotted_name(node.func) in PARTIALS and node.args and dotted_name(node.args[0].value) == function.name.value:
            bound = node.with_changes(func=node.args[0].value, args=node.args[1:])  # `partial(step, device=...)` binds as a call
            values += [argument for argument, parameter in arguments_by_parameter(bound, function) if parameter == name]
    # A name passed is followed to what module-level code assigns it (`make(4, target)` with
    # `target = torch.float64 if ... else "cpu"`).
    return values + [item for value in values if isinstance(value, cst.Name) for item in reaching_values(module, None, value.value) or []]


def _wrapper_arguments(module: cst.Module, function: cst.FunctionDef, name: str) -> List[cst.BaseExpression]:
    """What decorators of the file pass for parameter `name` when their wrapper calls the
    function they wrap (`def placed(fn): def run(x): return fn(x, torch.float64)`, then
    `@placed` on `step`)."""
    found: List[cst.BaseExpression] = []
    for decorator in function.decorators:
        called = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
        for deco in nodes_of_type(module, (cst.FunctionDef,)):
            if not isinstance(deco, cst.FunctionDef) or deco.name.value != dotted_name(called) or not deco.params.params:
                continue
            wrapped = deco.params.params[0].name.value
            for call in descendants(deco.body):
                if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == wrapped:
                    found += [argument for argument, parameter in arguments_by_parameter(call, function) if parameter == name]
    return found


def _starred_values(module: cst.Module, call: cst.Call, function: cst.FunctionDef, name: str, bound: Optional[bool] = None) -> List[cst.BaseExpression]:
    """What a `*args` argument of `call` passes for parameter `name` of `function`: the element
    at its position of the tuple or list literals the starred value is (or a module-level name
    of it is assigned): `smooth(*args)` with `args = (2, 4, torch.float64)`. `bound`: whether
    the call fills `self` itself (by default, when called on an object)."""
    parameters = [param.name.value for param in (*function.params.posonly_params, *function.params.params)]
    if parameters and parameters[0] in ("self", "cls") and (isinstance(call.func, cst.Attribute) if bound is None else bound):
        parameters = parameters[1:]
    if name not in parameters:
        return []
    found: List[cst.BaseExpression] = []
    before = 0  # plain positional arguments before the starred one
    for arg in call.args:
        if arg.keyword is not None or arg.star == "**":
            break
        if arg.star != "*":
            before += 1
            continue
        value = arg.value
        literals = (reaching_values(module, None, value.value) or []) if isinstance(value, cst.Name) else [value]
        index = parameters.index(name) - before
        for literal in literals:
            if isinstance(literal, (cst.Tuple, cst.List)) and 0 <= index < len(literal.elements) and not any(isinstance(e, cst.StarredElement) for e in literal.elements[: index + 1]):
                found.append(literal.elements[index].value)
        break
    return found


@per_module
def stored_parameter_values(module: cst.Module, dotted: str) -> List[cst.BaseExpression]:
    """What the file passes to the parameter a method stores in the attribute `dotted` (`self.device
    = device`): the parameter's values (`parameter_values`) and, for `__init__`, what the file's
    calls of the class pass for it: by its name, by a name bound to it (`cls = Trainer`) or
    through a dict literal holding it (`TRAINERS["base"](...)`), by position, keyword, starred
    tuple or `**` dict literal. These show what the attribute may hold, never all."""
    owner, _, attribute = dotted.rpartition(".")
    if owner != "self":
        return []
    values: List[cst.BaseExpression] = []
    for klass in nodes_of_type(module, (cst.ClassDef,)):
        for method in klass.body.body:
            if not isinstance(method, cst.FunctionDef):
                continue
            parameters = {param.name.value for param in (*method.params.posonly_params, *method.params.params, *method.params.kwonly_params)}
            for node in scope_descendants(method.body):
                if not (isinstance(node, cst.Assign) and isinstance(node.value, cst.Name) and node.value.value in parameters):
                    continue
                if any(dotted_name(target.target) == dotted for target in node.targets):
                    values += parameter_values(module, method, node.value.value)
                    if method.name.value == "__init__":
                        values += _constructed_values(module, klass, method, node.value.value)
    return values


def _constructed_values(module: cst.Module, klass: cst.ClassDef, init: cst.FunctionDef, name: str) -> List[cst.BaseExpression]:
    """What the file's calls of `klass` (see `stored_parameter_values`) pass for parameter `name` of its `__init__`."""
    parameters = [param.name.value for param in (*init.params.posonly_params, *init.params.params)][1:]
    values: List[cst.BaseExpression] = []
    for call in nodes_of_type(module, (cst.Call,)):
        assert isinstance(call, cst.Call)
        if not _names_class(module, call.func, klass.name.value):
            continue
        for index, arg in enumerate(call.args):
            if arg.star:
                break
            if (arg.keyword.value if arg.keyword is not None else parameters[index] if index < len(parameters) else None) == name:
                values.append(arg.value)
        values += _starred_values(module, call, init, name, bound=True)
        values += [value for arg in call.args if arg.star == "**" for value in _keyed_values(module, arg.value, name)]
    return values + [item for value in values if isinstance(value, cst.Name) for item in reaching_values(module, None, value.value) or []]


def _names_class(module: cst.Module, func: cst.BaseExpression, klass: str) -> bool:
    """Whether a call's `func` is the class `klass`: its name, a module-level name bound to it,
    or an item of a dict literal that holds it."""
    if isinstance(func, cst.Name) and func.value == klass:
        return True
    held = (reaching_values(module, None, func.value) or []) if isinstance(func, cst.Name) else subscript_values(module, func)
    return any(isinstance(value, cst.Name) and value.value == klass for value in held)


def subscript_values(module: cst.Module, node: cst.BaseExpression) -> List[cst.BaseExpression]:
    """What `NAME["key"]` or `NAME.get("key", default)` reads when `NAME` is a dict literal
    (or a `dict(key=...)` call) the module assigns (`SETTINGS = {"device": ...}`), what
    `NAME[i]` reads from a list or tuple literal, and what `getattr(owner, "key", default)`
    reads (what the file assigns to `owner.key`, and `owner.key` itself), defaults included;
    nothing for any other expression. These show what the value may be, never all of it."""
    if isinstance(node, cst.Call) and node.args and not any(arg.star or arg.keyword for arg in node.args):
        values = [arg.value for arg in node.args]
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "get" and isinstance(node.func.value, cst.Name) and len(values) <= 2:
            key = string_value(values[0])
            return (_keyed_values(module, node.func.value, key) if key is not None else []) + values[1:]
        if dotted_name(node.func) == "getattr" and len(values) in (2, 3):
            key, owner = string_value(values[1]), dotted_name(values[0])
            assigned = attribute_assignments(module, f"{owner}.{key}") if key is not None and owner is not None else []
            # the attribute itself, spelled out (`getattr(torch, "float64")` is `torch.float64`)
            spelled = [cst.Attribute(values[0], cst.Name(key))] if key is not None and key.isidentifier() and owner is not None else []
            return [value for value in assigned if value is not None] + spelled + values[2:]
        return []
    if not isinstance(node, cst.Subscript) or len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return []
    index = node.slice[0].slice.value
    key = string_value(index)
    if key is not None:
        return _keyed_values(module, node.value, key) if isinstance(node.value, cst.Name) else []
    return _indexed_values(module, node.value, index)


def _indexed_values(module: cst.Module, sequence: cst.BaseExpression, index: cst.BaseExpression) -> List[cst.BaseExpression]:
    """What `NAME[i]` reads when `NAME` is a list or tuple literal the module assigns
    (`PLACES = ["cpu", torch.float64]`): the element at a literal integer index, every
    element for another index."""
    literals = (reaching_values(module, None, sequence.value, partial=True) or []) if isinstance(sequence, cst.Name) else [sequence]
    found: List[cst.BaseExpression] = []
    for literal in literals:
        if not isinstance(literal, (cst.List, cst.Tuple)) or any(isinstance(e, cst.StarredElement) for e in literal.elements):
            continue
        elements = [element.value for element in literal.elements]
        position = int(index.value) if isinstance(index, cst.Integer) and index.value.isdigit() else None
        found += elements if position is None else elements[position : position + 1]
    return found


def _keyed_values(module: cst.Module, mapping: cst.BaseExpression, key: str) -> List[cst.BaseExpression]:
    """What a `**mapping` argument passes for keyword `key`: the values under the key of the
    dict literals `mapping` is (or a module-level name of it is assigned)."""
    literals = reaching_values(module, None, mapping.value) or [] if isinstance(mapping, cst.Name) else [mapping]
    return [
        *(
            element.value
            for literal in literals
            if isinstance(literal, cst.Dict)
            for element in literal.elements
            if isinstance(element, cst.DictElement) and string_value(element.key) == key
        ),
        *(  # `dict(train="cpu", precise=torch.float64)`
            arg.value
            for literal in literals
            if isinstance(literal, cst.Call) and dotted_name(literal.func) == "dict"
            for arg in literal.args
            if arg.keyword is not None and arg.keyword.value == key
        ),
    ]


def attribute_assignments(module: cst.Module, dotted: str) -> List[Optional[cst.BaseExpression]]:
    """Every value the file assigns to the attribute `dotted` (`self.device = ...`), with None
    for an assignment whose value it cannot read: a tuple target, `+=`, a loop or `with`
    target, `setattr(owner, "attr", ...)`; and, for any owner, what a class body of the file
    binds to the attribute: an assigned value, what a `def` of the name returns (a property
    computes it when read; None besides, a method may be called), and None for an annotated
    field (a dataclass's constructor may set it)."""
    owner, _, attribute = dotted.rpartition(".")
    values: List[Optional[cst.BaseExpression]] = []
    for klass in nodes_of_type(module, (cst.ClassDef,)):
        for node in [*klass.body.body, *scope_descendants(klass.body)]:
            if isinstance(node, cst.FunctionDef) and node.name.value == attribute:
                values += [None, *(item.value for item in scope_descendants(node.body) if isinstance(item, cst.Return))]
            elif isinstance(node, cst.Assign) and any(attribute in bound_names(t.target) for t in node.targets):
                values.append(node.value)
            elif isinstance(node, cst.AnnAssign) and attribute in bound_names(node.target):
                # a field a dataclass's constructor may set: what the file's calls of the class pass
                values += [None, *class_keyword_values(module, klass.name.value, attribute)]
        if any(attribute_store(node) and string_value(node.args[1].value) is None for node in descendants(klass.body)):
            # `setattr(self, name, value)` over the constructor's `**overrides`
            values += class_keyword_values(module, klass.name.value, attribute)
    for node in nodes_of_type(module, (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.For, cst.AsName, cst.Call)):
        if isinstance(node, (cst.Assign, cst.AnnAssign)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            for target in targets:
                if dotted_name(target) == dotted:
                    values.append(node.value)
                elif any(dotted_name(item) == dotted for item in stored_targets(target)):
                    spelled = spelled_values(module, target, node.value, lambda item: dotted_name(item) == dotted) if node.value is not None else None
                    values += [None] if spelled is None else spelled
        elif isinstance(node, (cst.AugAssign, cst.For, cst.AsName)):
            target = node.name if isinstance(node, cst.AsName) else node.target
            if any(dotted_name(item) == dotted for item in stored_targets(target)):
                values.append(None)
        elif attribute_store(node):
            if dotted_name(node.args[0].value) == owner and string_value(node.args[1].value) in (attribute, None):
                values.append(None)
    return values


def field_values_anywhere(module: cst.Module, names: NameResolver, field: str) -> List[Optional[cst.BaseExpression]]:
    """What the file may give the attribute `field` of any object, whichever name it is
    reached by (`self.device` of one method is `trainer.device` elsewhere): an assignment to
    `<any>.field` (also in a tuple target, annotated, or as a loop's target, see
    `_bound_field_values`), or through `vars(obj)["field"]`/`obj.__dict__["field"]`, `setattr(obj,
    "field", ...)` or `object.__setattr__(obj, "field", ...)` (None for a name it cannot
    read); a keyword of a
    call that is not torch's (`SimpleNamespace(device=...)`, `Config(device=...)`); a dict
    literal's entry (an attribute dict built from it); and the positional argument of a call
    of a `namedtuple`/`NamedTuple` class that declares the field, by the functional form or
    by a class body (`class Config(NamedTuple): device: ...`, also a dataclass), None where
    the position cannot be read: `*args`, a field list that is not a literal, a dataclass
    with base classes (whose fields come first), `Config._make(values)` of anything but a
    literal; and what a class of the file returns from `__getattr__` or `__getattribute__`,
    which may answer for any field."""
    values: List[Optional[cst.BaseExpression]] = []
    tuples: Dict[str, List[str]] = {}
    names_field = lambda item: _names_field(item, field)  # noqa: E731
    for node in nodes_of_type(module, (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.For, cst.WithItem)):
        if not isinstance(node, cst.Assign):
            values += _bound_field_values(node, names_field)
            continue
        for t in node.targets:
            if any(names_field(item) for item in stored_targets(t.target)):
                spelled = spelled_values(module, t.target, node.value, names_field)
                values += [None] if spelled is None else spelled
        if isinstance(node.value, cst.Call) and len(node.targets) == 1:
            declared = _tuple_fields(node.value, names)
            if declared is not None and isinstance(node.targets[0].target, cst.Name):
                tuples[node.targets[0].target.value] = declared
    for klass in nodes_of_type(module, (cst.ClassDef,)):
        assert isinstance(klass, cst.ClassDef)
        declared = _class_fields(klass, names)
        if declared is not None:
            tuples[klass.name.value] = declared
        for method in klass.body.body:
            if isinstance(method, cst.FunctionDef) and method.name.value in _DYNAMIC_ATTRIBUTES:  # it may answer for any field
                values += [node.value for node in descendants(method.body) if isinstance(node, cst.Return)] or [None]
    for node in nodes_of_type(module, (cst.Call, cst.Dict)):
        if isinstance(node, cst.Dict):
            values += [e.value for e in node.elements if isinstance(e, cst.DictElement) and string_value(e.key) == field]
            continue
        assert isinstance(node, cst.Call)
        if attribute_store(node) and string_value(node.args[1].value) in (field, None):
            # `setattr(trainer, "device", ...)`, `object.__setattr__(self, "device", ...)`;
            # a name it cannot read may be the field
            values.append(node.args[2].value if string_value(node.args[1].value) == field else None)
            continue
        if (names.qualified_name(node.func) or "").startswith("torch."):
            continue
        made = tuples.get(dotted_name(node.func.value) or "") if isinstance(node.func, cst.Attribute) and node.func.attr.value == "_make" else None
        if made is not None and field in made:  # `Run._make([torch.float64, 2])`: fields in the iterable's order
            given = node.args[0].value if node.args else None
            elements = given.elements if isinstance(given, (cst.List, cst.Tuple)) else []
            readable = made[:1] != _UNREADABLE_POSITIONS and not any(isinstance(e, cst.StarredElement) for e in elements)
            values.append(elements[made.index(field)].value if readable and made.index(field) < len(elements) else None)
        values += [arg.value for arg in node.args if arg.keyword is not None and arg.keyword.value == field]
        declared = tuples.get(getattr(node.func, "value", None))
        if declared is None or field not in declared:
            continue
        positional = [arg for arg in node.args if arg.keyword is None]
        if positional and (declared[:1] == _UNREADABLE_POSITIONS or any(arg.star for arg in positional)):
            values.append(None)
        elif declared.index(field) < len(positional):
            values.append(positional[declared.index(field)].value)
    return values + [None for fields in tuples.values() if fields is _UNREADABLE]


# Methods through which a class answers attributes it never assigns.
_DYNAMIC_ATTRIBUTES = frozenset({"__getattr__", "__getattribute__"})


def _bound_field_values(
    node: Union[cst.AnnAssign, cst.AugAssign, cst.For, cst.WithItem], names_field: Callable[[cst.BaseExpression], bool]
) -> List[Optional[cst.BaseExpression]]:
    """What a binding other than `=` gives the field that `names_field` picks: the value of
    `obj.field: T = value`; each element of the literal a loop runs over for `for obj.field
    in ("cpu", torch.float64)`; None where it cannot be read (`+=`, another loop, `with ...
    as obj.field`)."""
    if isinstance(node, cst.AnnAssign):
        return [node.value] if node.value is not None and names_field(node.target) else []
    target = node.target if isinstance(node, (cst.AugAssign, cst.For)) else (node.asname.name if node.asname else None)
    if target is None or not any(names_field(item) for item in stored_targets(target)):
        return []
    if isinstance(node, cst.For) and names_field(target) and isinstance(node.iter, (cst.Tuple, cst.List)):
        return [element.value for element in node.iter.elements if not isinstance(element, cst.StarredElement)] or [None]
    return [None]


def _names_field(target: cst.BaseExpression, field: str) -> bool:
    """`obj.field`, `vars(obj)["field"]` or `obj.__dict__["field"]` as an assignment target."""
    if isinstance(target, cst.Attribute):
        return target.attr.value == field
    if not isinstance(target, cst.Subscript) or len(target.slice) != 1 or not isinstance(target.slice[0].slice, cst.Index):
        return False
    holder = target.value
    namespace = (isinstance(holder, cst.Call) and getattr(holder.func, "value", None) == "vars") or (
        isinstance(holder, cst.Attribute) and holder.attr.value == "__dict__"
    )
    return namespace and string_value(target.slice[0].slice.value) == field


# A `namedtuple` whose field list is not a literal: any field may be among them.
_UNREADABLE: List[str] = []


# Put first in the field list of a class whose fields' positions are not its own order.
_UNREADABLE_POSITIONS = ["*"]


def _class_fields(klass: cst.ClassDef, names: NameResolver) -> Optional[List[str]]:
    """The fields, in order, that the constructor of a `NamedTuple` subclass or a dataclass
    takes by position: the names its body annotates; for a dataclass with base classes (their
    fields come first) they follow `_UNREADABLE_POSITIONS`. None for any other class."""
    bases = [names.qualified_name(base.value) or "" for base in klass.bases]
    dataclass = any(
        (names.qualified_name(d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator) or "") == "dataclasses.dataclass"
        for d in klass.decorators
    )
    if "typing.NamedTuple" not in bases and not dataclass:
        return None
    fields = [
        node.target.value
        for line in klass.body.body
        if isinstance(line, cst.SimpleStatementLine)
        for node in line.body
        if isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name)
    ]
    return [*_UNREADABLE_POSITIONS, *fields] if dataclass and klass.bases else fields


def _tuple_fields(call: cst.Call, names: NameResolver) -> Optional[List[str]]:
    """The field names of `namedtuple("C", ["a", "b"])`, `namedtuple("C", "a b")` or
    `NamedTuple("C", [("a", int), ...])`; `_UNREADABLE` when they are not literals; None for
    any other call."""
    if (names.qualified_name(call.func) or "") not in ("collections.namedtuple", "typing.NamedTuple"):
        return None
    if len(call.args) < 2:
        return _UNREADABLE
    spec = call.args[1].value
    text = string_value(spec)
    if text is not None:
        return text.replace(",", " ").split()
    if isinstance(spec, (cst.List, cst.Tuple)):
        fields = [string_value(e.value.elements[0].value) if isinstance(e.value, cst.Tuple) and e.value.elements else string_value(e.value) for e in spec.elements]
        if all(fields):
            return fields  # type: ignore[return-value]
    return _UNREADABLE


def class_keyword_values(module: cst.Module, klass: str, keyword: str) -> List[cst.BaseExpression]:
    """What the file's calls of class `klass` by its name pass as `keyword=`."""
    return [
        arg.value
        for call in nodes_of_type(module, (cst.Call,))
        if isinstance(call, cst.Call) and getattr(call.func, "value", None) == klass
        for arg in call.args
        if arg.keyword is not None and arg.keyword.value == keyword
    ]
