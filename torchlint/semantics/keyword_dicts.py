"""Keyword dicts built step by step before they are spread into a call (`DataLoader(ds,
**train_kwargs)`): what the dict holds where the call reads it.

The code of the call's own scope (its function, or the module) is read in order up to the
call: a dict display or `dict(...)` starts a dict, `d.update(...)`, `d[key] = value`,
`d.setdefault(key, value)`, `d |= {...}`, `d.pop(key)` and `del d[key]` change it,
`other = dict(d)`, `d.copy()` and `{**d, ...}` copy it, and `other = d` names the same dict.
A branch that asks for the device and nothing else (`if use_cuda:`, see
`values.true_on_cuda`) is taken as a CUDA run takes it: the loader options that matter are
those of the run on the device. Anything else that may change a dict (another branch that
changes it differently, a loop, handing it to a function, a nested function, a function of
the file that changes it by its global or enclosing name, wherever it is defined) makes it
unknown, and so does a dict the scope does not build itself: the rules stay silent on what
they cannot read. A fix that adds keywords next to the dict must know it in every run, not
only on CUDA (`every_run`): `{} if use_cuda else {"num_workers": 0}` holds the keyword on
the CPU.
"""

from __future__ import annotations

from typing import Dict, FrozenSet, List, Optional, Set, Tuple

import libcst as cst

from torchlint.semantics.names import NameResolver, dotted_name
from torchlint.semantics.tree import descendants, module_nodes, names_bound_by, nodes_of_type, per_module
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
    run = _Run(module, names, {id(item) for item in path}, parents, every_run)
    if not isinstance(body, (list, tuple)) or not run.statements(body) or name not in run.state:
        return NOT_BUILT
    found = run.state[name]
    if found.keys is None or name in _changed_by_other_functions(module, node):
        return None
    return dict(found.keys)


def _changed_by_other_functions(module: cst.Module, scope: cst.CSTNode) -> Set[str]:
    """The names that a function or lambda of the module other than `scope` changes the object
    of (`loader_kwargs[key] = value`, `options.update(...)`) without binding them itself: by
    their global or enclosing name. Called before the dict is built, such a function was
    never seen by the run, and may run at any call."""
    return {name for function, names in _free_changes(module) if function is not scope for name in names}


@per_module
def _free_changes(module: cst.Module) -> List[Tuple[cst.CSTNode, FrozenSet[str]]]:
    """Each function and lambda of the module with the names `_changed_by_other_functions` finds in it."""
    found = []
    for function in descendants(module):
        if not isinstance(function, (cst.FunctionDef, cst.Lambda)):
            continue
        nodes = list(descendants(function.body))
        own = {bound for item in nodes for bound in names_bound_by(item)} | {param.name.value for param in descendants(function.params) if isinstance(param, cst.Param)}
        declared = {n.name.value for item in nodes if isinstance(item, (cst.Global, cst.Nonlocal)) for n in item.names}
        changed = {target for item in nodes for target in [_changed_object(item)] if target is not None and (target not in own or target in declared)}
        if changed:
            found.append((function, frozenset(changed)))
    return found


def _changed_object(node: cst.CSTNode) -> Optional[str]:
    """The name whose object `node` changes: `d[key] = ...`, `del d[key]`, `d |= ...`, `d.update(...)`
    (a method other than a read)."""
    targets: List[cst.BaseExpression] = []
    if isinstance(node, cst.AssignTarget):
        targets = [node.target]
    elif isinstance(node, (cst.AugAssign, cst.Del)):
        targets = [node.target]
    for target in targets:
        if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
            return target.value.value
        if isinstance(node, cst.AugAssign) and isinstance(target, cst.Name):
            return target.value
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and isinstance(node.func.value, cst.Name):
        return node.func.value.value if node.func.attr.value not in DICT_READS else None
    return None


class _Dict:
    """A dict object of the run: its keywords, or None once unknown."""

    def __init__(self, keys: Optional[Keywords]) -> None:
        self.keys = keys


class _Run:
    """Reads a scope's statements in order up to the statement holding the call."""

    def __init__(self, module: cst.Module, names: NameResolver, on_path: Set[int], parents: Dict[int, cst.CSTNode], every_run: bool) -> None:
        self.module = module
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
            self._forget_callees(statement.test)
            taken = self._on_cuda(statement.test)
            if taken is True:
                self._block(statement.body)
            elif taken is False:
                if statement.orelse is not None:
                    self._block(statement.orelse)
            else:
                self._forget(statement)
        elif isinstance(statement, cst.With):
            for item in statement.items:
                self._forget_callees(item)
            self._block(statement.body)
        else:
            self._forget(statement)  # loops, `try`, definitions, `match`

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
        self._forget_callees(small)
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            target = small.targets[0].target
            if isinstance(target, cst.Name):
                found = self._value(small.value)  # a display, a copy or the same dict: reads only
                if found is not None:
                    self.state[target.value] = found
                else:
                    self._forget(small.value)
                    self.state.pop(target.value, None)
                return
            if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name) and target.value.value in self.state:
                self._forget(small.value)
                self._set(self.state[target.value.value], string_key(target), small.value)
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

    def _forget_callees(self, node: cst.CSTNode) -> None:
        """Forget what the dicts of the run hold that a function of the file called in `node`
        mentions (`tune(4)` after `def tune(n): kwargs["num_workers"] = n`, a method by its
        name, `trainer.tune(4)`): it may change them through the enclosing or the global
        scope."""
        mentions = _function_mentions(self.module)
        for item in [node, *descendants(node)]:
            callee = item.func.value if isinstance(item, cst.Call) and isinstance(item.func, cst.Name) else None
            if isinstance(item, cst.Call) and isinstance(item.func, cst.Attribute):
                callee = item.func.attr.value  # a method of the file (`trainer.tune(4)`), by its name
            for name in mentions.get(callee or "", frozenset()) & set(self.state):
                self.state[name].keys = None

    def _forget(self, node: cst.CSTNode) -> None:
        """Forget what the dicts of the run hold where `node` mentions them other than to read
        them (`**d`, `{**d}`, `d.get(...)`, `d[key]`, `len(d)`), or a function of the file it
        calls mentions them (`_forget_callees`), and the names it binds."""
        self._forget_callees(node)
        for item in [node, *descendants(node)]:
            if isinstance(item, cst.Name) and item.value in self.state and not self._read_only(item):
                self.state[item.value].keys = None
            for bound in _bound_names(item):
                if bound in self.state:
                    self.state[bound] = _Dict(None)

    def _read_only(self, name: cst.Name) -> bool:
        """Whether `name` is read where it stands: spread (`**d`, `{**d}`), a read method
        (`d.get(...)`), an item read (`d[key]`, not an item assignment or `del`)."""
        parent = self.parents.get(id(name))
        if isinstance(parent, (cst.Arg, cst.StarredDictElement)):
            return isinstance(parent, cst.StarredDictElement) or parent.star == "**"
        if isinstance(parent, cst.Attribute) and parent.value is name:
            return parent.attr.value in DICT_READS
        if isinstance(parent, cst.Subscript) and parent.value is name:
            holder = self.parents.get(id(parent))
            return not isinstance(holder, (cst.AssignTarget, cst.AugAssign, cst.Del, cst.AnnAssign))
        return False


def _bound_names(node: cst.CSTNode) -> List[str]:
    """Names a binding node binds: assignment and loop targets, `as` names, definitions."""
    targets: List[cst.CSTNode] = []
    if isinstance(node, cst.AssignTarget):
        targets = [node.target]
    elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor)):
        targets = [node.target]
    elif isinstance(node, cst.AsName):
        targets = [node.name]
    elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        return [node.name.value]
    elif isinstance(node, cst.NamedExpr):
        targets = [node.target]
    found = []
    for target in targets:
        found += [item.value for item in [target, *descendants(target)] if isinstance(item, cst.Name)]
    return found


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




@per_module
def _function_mentions(module: cst.Module) -> Dict[str, FrozenSet[str]]:
    """For each name of a function the module defines (at any depth), the names its bodies
    mention."""
    found: Dict[str, Set[str]] = {}
    for function in nodes_of_type(module, (cst.FunctionDef,)):
        if isinstance(function, cst.FunctionDef):
            found.setdefault(function.name.value, set()).update(item.value for item in descendants(function.body) if isinstance(item, cst.Name))
    return {name: frozenset(names) for name, names in found.items()}


def _merged(keys: Optional[Keywords], added: Optional[_Dict]) -> Optional[Keywords]:
    if keys is None or added is None or added.keys is None:
        return None
    return {**keys, **added.keys}
