"""Keyword dicts built step by step before they are spread into a call (`DataLoader(ds,
**train_kwargs)`): what the dict holds where the call reads it.

The code of the call's own scope (its function, or the module) is read in order up to the
call: a dict display or `dict(...)` starts a dict, `d.update(...)`, `d[key] = value`,
`d.setdefault(key, value)`, `d |= {...}`, `d.pop(key)` and `del d[key]` change it,
`other = dict(d)`, `d.copy()` and `{**d, ...}` copy it, and `other = d` names the same dict.
A branch that asks for the device and nothing else (`if use_cuda:`, see
`values.true_on_cuda`) is taken as a CUDA run takes it: the loader options that matter are
those of the run on the device. Anything else that may change a dict (another branch that
changes it differently, a loop, handing it to a function) makes it unknown, and so does a
dict the scope does not build itself: the rules stay silent on what they cannot read. Which
other functions may change it is read from the module's bindings, once (`_changers`): a
function or lambda that changes, rebinds (`global`, `nonlocal`) or hands on the object its
enclosing scope or the module binds to the dict's name, called in view or not. A fix that
adds keywords next to the dict must know it in every run, not only on CUDA (`every_run`):
`{} if use_cuda else {"num_workers": 0}` holds the keyword on the CPU.
"""

from __future__ import annotations

from typing import AbstractSet, Dict, List, Optional, Set, Tuple

import libcst as cst

from torchlint.semantics.names import NameResolver, dotted_name
from torchlint.semantics.tree import NESTED_SCOPES, bound_names, descendants, module_nodes, names_bound_by, nodes_of_type, per_module
from torchlint.semantics.values import DICT_READS, spread_of, string_key, string_value, true_on_cuda

Keywords = Dict[str, cst.BaseExpression]


def spread_keywords(module: cst.Module, names: NameResolver, call: cst.Call, every_run: bool = False) -> Optional[Keywords]:
    """The keywords the `**name` arguments of `call` supply: a dict the file assigns once and
    never changes (`values.spread_of`), or one its scope builds before the call
    (`built_keywords`); None when one is unknown, and for `*args`. With `every_run`, a choice
    or branch by device is unknown too: what the dicts hold on every run."""
    keywords: Keywords = {}
    for arg in call.args:
        if arg.star == "*":
            return None
        if arg.star != "**":
            continue
        found = built_keywords(module, names, call, arg.value.value, every_run) if isinstance(arg.value, cst.Name) else NOT_BUILT
        if found is NOT_BUILT:
            found = spread_of(module, names, arg, every_run)
        if not isinstance(found, dict):
            return None
        keywords.update(found)
    return keywords


# The scope of the call does not bind the dict's name to a dict it builds.
NOT_BUILT = object()


def built_keywords(module: cst.Module, names: NameResolver, call: cst.Call, name: str, every_run: bool = False) -> "Optional[Keywords] | object":
    """What the dict `name` holds where `call` reads it, when the call's scope builds it (see
    the module's docstring); None when it does but what it holds is unknown (changed by a
    function it is handed to, `configure(kwargs)`, or under a test of something else than
    the device); `NOT_BUILT` when the scope does not build it."""
    parents = module_nodes(module).parents
    path: List[cst.CSTNode] = []
    node: Optional[cst.CSTNode] = call
    while node is not None and not isinstance(node, (cst.FunctionDef, cst.Module)):
        path.append(node)
        node = parents.get(id(node))
    if node is None or any(isinstance(item, (cst.Lambda, cst.ClassDef, cst.CompFor)) for item in path):
        return NOT_BUILT
    body = node.body.body if isinstance(node, cst.FunctionDef) and isinstance(node.body, cst.IndentedBlock) else node.body
    run = _Run(module, names, node, {id(item) for item in path}, parents, every_run)
    if not isinstance(body, (list, tuple)) or not run.statements(body) or name not in run.state:
        return NOT_BUILT
    found = run.state[name]
    return dict(found.keys) if found.keys is not None else None


def _changed_elsewhere(module: cst.Module, scope: cst.CSTNode, name: str) -> bool:
    """Whether a function or lambda of the module other than `scope` may change the dict that
    `scope` (a function or the module) binds to `name` (see `_changers`): called at any call
    the run reads (a method by its attribute, `trainer.tune(4)`, too) or never seen called,
    it makes the dict unknown from its binding on, under every name of it and in every copy."""
    owner = module if isinstance(scope, cst.FunctionDef) and name in _declared(module, scope, cst.Global) else scope
    return any(function is not scope and bound is owner for function, bound in _changers(module).get(name, ()))


@per_module
def _changers(module: cst.Module) -> Dict[str, List[Tuple[cst.CSTNode, cst.CSTNode]]]:
    """For each name, the functions and lambdas of the module that may change the object some
    enclosing scope (or the module) binds to it, with that scope, read from the module's
    bindings: a function mentions the name without binding it itself (by its enclosing or
    global name; or it declares it `global` or `nonlocal`), other than to read it (`d[key]`,
    `d.get(...)`, `**d`): it changes an item (`d[key] = value`, `del d[key]`, `d |= ...`),
    calls a method that is not a read (`d.update(...)`), rebinds it, or hands it on (to a
    function, whose parameter it is then, to a return, an attribute or a container)."""
    parents = module_nodes(module).parents
    found: Dict[str, List[Tuple[cst.CSTNode, cst.CSTNode]]] = {}
    bindings: Dict[int, Set[str]] = {}  # `_own_bindings` of each function, once
    for function in nodes_of_type(module, (cst.FunctionDef, cst.Lambda)):
        own = _memoised_bindings(function, bindings)
        declared = _declared(module, function, cst.Global) | _declared(module, function, cst.Nonlocal)
        changed = {
            item.value
            for item in descendants(function.body)
            if isinstance(item, cst.Name) and (item.value not in own or item.value in declared) and _may_change(item, parents)
        }
        for changed_name in changed:
            found.setdefault(changed_name, []).append((function, _binding_scope(module, function, changed_name, parents, bindings)))
    return found


def _own_bindings(function: "cst.FunctionDef | cst.Lambda") -> Set[str]:
    """The names a function or lambda binds: its parameters and what its body assigns (in
    nested scopes too, comprehensions' variables among them: a name they bind is not the
    enclosing scope's)."""
    params = {param.name.value for param in descendants(function.params) if isinstance(param, cst.Param)}
    return params | {bound for item in descendants(function.body) for bound in _bound_names(item)}


def _memoised_bindings(function: "cst.FunctionDef | cst.Lambda", bindings: Dict[int, Set[str]]) -> Set[str]:
    """`_own_bindings(function)`, read once into `bindings` (by the function's id)."""
    found = bindings.get(id(function))
    if found is None:
        found = bindings[id(function)] = _own_bindings(function)
    return found


def _declared(module: cst.Module, function: "cst.FunctionDef | cst.Lambda", kind: type) -> AbstractSet[str]:
    """The names the own body of `function` (of `module`) declares `global` or `nonlocal` (`kind`)."""
    return _declarations(module).get((id(function), kind), frozenset())


@per_module
def _declarations(module: cst.Module) -> Dict[Tuple[int, type], Set[str]]:
    """The names declared `global` or `nonlocal` in each function's own body (not in the
    functions, classes, lambdas and comprehensions nested in it), by the function's id and the
    kind of declaration: each declaration of the module is charged to the scope it stands in."""
    parents = module_nodes(module).parents
    found: Dict[Tuple[int, type], Set[str]] = {}
    for declaration in nodes_of_type(module, (cst.Global, cst.Nonlocal)):
        scope = parents.get(id(declaration))
        while scope is not None and not isinstance(scope, NESTED_SCOPES):
            scope = parents.get(id(scope))
        if isinstance(scope, cst.FunctionDef):
            found.setdefault((id(scope), type(declaration)), set()).update(item.name.value for item in declaration.names)  # type: ignore[attr-defined]
    return found


def _binding_scope(
    module: cst.Module, function: cst.CSTNode, name: str, parents: Dict[int, cst.CSTNode], bindings: Dict[int, Set[str]]
) -> cst.CSTNode:
    """The scope whose binding of `name` a mention in `function` (which does not bind it) reads:
    the nearest enclosing function that binds it (class bodies are skipped, as Python does), or
    the module, also for a name the function declares `global`. `bindings`: `_own_bindings`
    of the functions seen so far, by id."""
    if isinstance(function, cst.FunctionDef) and name in _declared(module, function, cst.Global):
        return module
    node = parents.get(id(function))
    while node is not None and not isinstance(node, cst.Module):
        if isinstance(node, (cst.FunctionDef, cst.Lambda)) and name in _memoised_bindings(node, bindings):
            return module if isinstance(node, cst.FunctionDef) and name in _declared(module, node, cst.Global) else node
        node = parents.get(id(node))
    return module


def _may_change(name: cst.Name, parents: Dict[int, cst.CSTNode]) -> bool:
    """Whether a mention of a name may change or hand on its object: any mention of the value
    other than a read of it (`_reads`); not the name of an attribute, a keyword or a definition."""
    parent = parents.get(id(name))
    if isinstance(parent, cst.Attribute) and parent.attr is name:
        return False
    if isinstance(parent, cst.Arg) and parent.keyword is name:
        return False
    if isinstance(parent, (cst.Param, cst.FunctionDef, cst.ClassDef, cst.NameItem, cst.ImportAlias, cst.AsName)) or parent is None:
        return False
    return not _reads(name, parents)


def _reads(name: cst.Name, parents: Dict[int, cst.CSTNode]) -> bool:
    """Whether `name` is read where it stands: spread (`**d`, `{**d}`), a read method
    (`d.get(...)`), an item read (`d[key]`, not an item assignment or `del`)."""
    parent = parents.get(id(name))
    if isinstance(parent, (cst.Arg, cst.StarredDictElement)):
        return isinstance(parent, cst.StarredDictElement) or parent.star == "**"
    if isinstance(parent, cst.Attribute) and parent.value is name:
        return parent.attr.value in DICT_READS
    if isinstance(parent, cst.Subscript) and parent.value is name:
        holder = parents.get(id(parent))
        return not isinstance(holder, (cst.AssignTarget, cst.AugAssign, cst.Del, cst.AnnAssign))
    return False


class _Dict:
    """A dict object of the run: its keywords, or None once unknown."""

    def __init__(self, keys: Optional[Keywords]) -> None:
        self.keys = keys


class _Run:
    """Reads a scope's statements in order up to the statement holding the call."""

    def __init__(
        self, module: cst.Module, names: NameResolver, scope: cst.CSTNode, on_path: Set[int], parents: Dict[int, cst.CSTNode], every_run: bool
    ) -> None:
        self.module = module
        self.scope = scope
        self.every_run = every_run
        self.parents = parents
        self.names = names
        self.on_path = on_path
        self.state: Dict[str, _Dict] = {}

    def statements(self, statements) -> bool:
        """Run `statements`; True once the statement holding the call is reached."""
        for statement in statements:
            if id(statement) in self.on_path:
                return self._enter(statement)
            self._execute(statement)
        return False

    def _enter(self, statement: cst.CSTNode) -> bool:
        """Go into the compound statement that holds the call, as far as the call."""
        if isinstance(statement, cst.SimpleStatementLine):
            return True
        if isinstance(statement, (cst.For, cst.While)):
            self._forget(statement.body)  # an earlier iteration may have changed the dicts
        elif isinstance(statement, cst.Try):
            self._forget(statement)
        for block in _blocks(statement):
            if id(block) in self.on_path:
                inner = block.body if isinstance(block, (cst.IndentedBlock, cst.Else, cst.Finally, cst.ExceptHandler)) else None
                if isinstance(block, cst.If):
                    return self.statements([block])
                if isinstance(inner, cst.IndentedBlock):
                    return self.statements(inner.body)
                if isinstance(inner, (list, tuple)):
                    return self.statements(inner)
                return False
        return False

    def _execute(self, statement: cst.CSTNode) -> None:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                self._small(small)
        elif isinstance(statement, cst.If):
            taken = self._on_cuda(statement.test)
            if taken is True:
                self._block(statement.body)
            elif taken is False:
                if statement.orelse is not None:
                    self._block(statement.orelse)
            else:
                self._forget(statement)
        elif isinstance(statement, cst.With):
            self._block(statement.body)
        elif isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            self._define(statement)
        else:
            self._forget(statement)  # loops, `try`, `match`

    def _define(self, definition: "cst.FunctionDef | cst.ClassDef") -> None:
        """A definition runs its decorators, defaults and bases (and a class its body's
        statements) and binds its name; what a function's body may change, wherever it is
        called, is `_changed_elsewhere`'s."""
        parts: List[cst.CSTNode] = [*definition.decorators]
        if isinstance(definition, cst.FunctionDef):
            parts.append(definition.params)
        else:
            parts += [*definition.bases, *definition.keywords]
            for statement in definition.body.body if isinstance(definition.body, cst.IndentedBlock) else [definition.body]:
                if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                    self._define(statement)
                else:
                    parts.append(statement)
        for part in parts:
            self._forget(part)
        self.state.pop(definition.name.value, None)

    def _block(self, block: cst.CSTNode) -> None:
        if isinstance(block, cst.If):
            self._execute(block)
        elif isinstance(block, cst.Else):
            self._block(block.body)
        elif isinstance(block, cst.IndentedBlock):
            for statement in block.body:
                self._execute(statement)
        else:
            self._forget(block)

    def _small(self, small: cst.CSTNode) -> None:
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            target = small.targets[0].target
            if isinstance(target, cst.Name):
                found = self._value(small.value)  # a display, a copy or the same dict: reads only
                if found is not None:
                    self.state[target.value] = found
                    if _changed_elsewhere(self.module, self.scope, target.value):
                        found.keys = None  # another function may change it under this name, at any call
                else:
                    self._forget(small.value)
                    self.state.pop(target.value, None)
                return
            if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) and target.value.value in self.state:
                self._forget(small.value)
                self._set(self.state[target.value.value], string_key(target), small.value)
                return
        if isinstance(small, cst.Assign) and len(small.targets) > 1 and self._chained(small):
            return
        if isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name) and small.target.value in self.state:
            added = self._value(small.value) if isinstance(small.operator, cst.BitOrAssign) else None
            self._merge(self.state[small.target.value], added)
            return
        if isinstance(small, cst.Del) and isinstance(small.target, cst.Subscript) and isinstance(small.target.value, cst.Name):
            found = self.state.get(small.target.value.value)
            if found is not None:
                self._remove(found, string_key(small.target))
                return
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) and self._method(small.value):
            return
        self._forget(small)

    def _method(self, call: cst.Call) -> bool:
        """`d.update(...)`, `d.setdefault(key, value)`, `d.pop(key)`, `d.clear()` on a dict of
        the run; False for any other call."""
        if not (isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name) and call.func.value.value in self.state):
            return False
        found, method = self.state[call.func.value.value], call.func.attr.value
        positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
        if method == "update" and all(not arg.star for arg in call.args) and len(positional) <= 1:
            if positional:
                self._merge(found, self._value(positional[0].value))
            self._merge(found, _Dict({arg.keyword.value: arg.value for arg in call.args if arg.keyword is not None}))
        elif method == "setdefault" and len(positional) == 2 and len(call.args) == 2:
            key = string_value(positional[0].value)
            if found.keys is not None and key is not None:
                found.keys.setdefault(key, positional[1].value)
            elif key is None:
                found.keys = None
        elif method == "pop" and positional and len(call.args) <= 2:
            self._remove(found, string_value(positional[0].value))
        elif method == "clear" and not call.args:
            found.keys = {} if found.keys is not None else None
        elif method not in DICT_READS:
            found.keys = None
            self._forget(call)
        return True

    def _value(self, value: cst.BaseExpression) -> Optional[_Dict]:
        """The dict object `value` evaluates to: a new one for a display, `dict(...)` or
        `d.copy()`, the same one for a name of the run; None for anything else."""
        if isinstance(value, cst.Name) and value.value in self.state:
            return self.state[value.value]
        if isinstance(value, cst.IfExp):
            taken = self._on_cuda(value.test)
            if taken is not None:
                return self._value(value.body if taken else value.orelse)
            return None
        if isinstance(value, cst.Dict):
            keys: Optional[Keywords] = {}
            for element in value.elements:
                if isinstance(element, cst.StarredDictElement):
                    keys = _merged(keys, self._value(element.value))
                else:
                    key = string_value(element.key)
                    keys = _merged(keys, _Dict({key: element.value} if key is not None else None))
            return _Dict(keys)
        if isinstance(value, cst.Call) and dotted_name(value.func) == "dict" and self.names.lookup("dict") is None:
            keys = {}
            for arg in value.args:
                if arg.keyword is not None:
                    keys = _merged(keys, _Dict({arg.keyword.value: arg.value}))
                else:
                    keys = _merged(keys, self._value(arg.value))
            return _Dict(keys)
        if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "copy" and not value.args:
            found = self._value(value.func.value)
            return _Dict(dict(found.keys) if found.keys is not None else None) if found is not None else None
        return None

    def _on_cuda(self, test: cst.BaseExpression) -> Optional[bool]:
        """Whether a CUDA run passes `test` (see `values.true_on_cuda`); None with `every_run`."""
        return None if self.every_run else true_on_cuda(test, self.module)

    def _set(self, found: _Dict, key: Optional[str], value: cst.BaseExpression) -> None:
        if found.keys is not None and key is not None:
            found.keys[key] = value
        else:
            found.keys = None

    def _remove(self, found: _Dict, key: Optional[str]) -> None:
        if found.keys is not None and key is not None:
            found.keys.pop(key, None)
        else:
            found.keys = None

    def _merge(self, found: _Dict, added: Optional[_Dict]) -> None:
        found.keys = _merged(found.keys, added)

    def _chained(self, small: cst.Assign) -> bool:
        """A chained assignment that sets a key of a known dict and binds plain names to the
        same value (`kwargs["sampler"] = sampler = DistributedSampler(ds)`): each key is set,
        each name forgotten. False (nothing done) for other targets."""
        targets = [target.target for target in small.targets]
        keyed = [t for t in targets if isinstance(t, cst.Subscript) and isinstance(t.value, cst.Name) and t.value.value in self.state]
        if not keyed or any(not isinstance(t, cst.Name) for t in targets if not any(t is k for k in keyed)):
            return False
        self._forget(small.value)
        for target in targets:
            if isinstance(target, cst.Name):
                self.state.pop(target.value, None)
        for target in keyed:
            found = self.state.get(target.value.value)
            if found is not None:
                self._set(found, string_key(target), small.value)
        return True

    def _forget(self, node: cst.CSTNode) -> None:
        """Forget what the dicts of the run hold where `node` mentions them other than to read
        them (`**d`, `{**d}`, `d.get(...)`, `d[key]`; `len(d)` hands it on), and the names it
        binds. (Functions that change them by their names: `_changed_elsewhere`.)"""
        for item in [node, *descendants(node)]:
            if isinstance(item, cst.Name) and item.value in self.state and _may_change(item, self.parents):
                self.state[item.value].keys = None
            for bound in _bound_names(item):
                if bound in self.state:
                    self.state[bound] = _Dict(None)


def _bound_names(node: cst.CSTNode) -> List[str]:
    """The plain names a node binds: assignment, loop and comprehension targets, `as` names,
    definitions (not `a.b = ...` or `a[k] = ...`, which change an object)."""
    if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        return [node.name.value]
    return bound_names(node.target) if isinstance(node, cst.CompFor) else names_bound_by(node)


def _blocks(statement: cst.CSTNode) -> List[cst.CSTNode]:
    """The blocks of a compound statement, in order (an `elif` is its `If`)."""
    found: List[cst.CSTNode] = []
    for field in ("body", "handlers", "orelse", "finalbody"):
        value = getattr(statement, field, None)
        if isinstance(value, (list, tuple)):
            found += list(value)
        elif isinstance(value, cst.CSTNode):
            found.append(value)
    return found




def _merged(keys: Optional[Keywords], added: Optional[_Dict]) -> Optional[Keywords]:
    if keys is None or added is None or added.keys is None:
        return None
    return {**keys, **added.keys}
