"""Code that runs in only some runs or modes of a program: marimo notebook cells (each runs
once per run of the notebook) and branches under an instance's mode flag (`if self.is_test:`
runs only while a method that sets the flag is running)."""

from __future__ import annotations

from typing import Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

import libcst as cst

from torchlint.semantics.names import dotted_name
from torchlint.semantics.tree import children, descendants, nodes_of_type, per_module


def notebook_cell(function: cst.FunctionDef, module: cst.Module) -> bool:
    """A marimo notebook cell: a function decorated `@app.cell` or `@app.cell(...)` where
    `app` is bound at module level to `marimo.App(...)`. Marimo runs each cell once per run."""
    apps = _marimo_apps(module)
    for decorator in function.decorators:
        target = decorator.decorator.func if isinstance(decorator.decorator, cst.Call) else decorator.decorator
        if isinstance(target, cst.Attribute) and target.attr.value == "cell" and dotted_name(target.value) in apps:
            return True
    return False


@per_module
def _marimo_apps(module: cst.Module) -> Set[str]:
    """The module-level names bound to `marimo.App(...)` (once per file)."""
    apps = set()
    for line in module.body:
        for small in line.body if isinstance(line, cst.SimpleStatementLine) else ():
            if isinstance(small, cst.Assign) and isinstance(small.value, cst.Call) and dotted_name(small.value.func) == "marimo.App":
                apps |= {target.target.value for target in small.targets if isinstance(target.target, cst.Name)}
    return apps


def mode_flag(branch: cst.If, method: cst.FunctionDef, owner: cst.ClassDef, module: cst.Module) -> Optional[Tuple[str, List[cst.FunctionDef]]]:
    """The instance flag that `branch` of `method` tests (`if self.is_test:`) and the methods
    of `owner` that set it to True (`test()` with `self.is_test = True`), when `method` itself
    never sets it: the branch runs only on the calls of `method` made while a setter runs.
    The caller checks that the other callers reset the flag (`resets_flag`)."""
    test = branch.test
    params = method.params.params
    if not params or not isinstance(test, cst.Attribute) or dotted_name(test.value) != params[0].name.value:
        return None
    attribute = test.attr.value
    assigned = _flag_assignments(module)
    methods = [item for item in children(owner.body) if isinstance(item, cst.FunctionDef)]
    setters = [item for item in methods if attribute in assigned.get(id(item), _NONE)[0]]
    if not setters or method in setters:
        return None
    return attribute, setters


def resets_flag(function: cst.FunctionDef, attribute: str, module: cst.Module) -> bool:
    """Whether `function` (a method of a class of `module`) sets `self.<attribute> = False`
    (a training loop leaving test mode)."""
    return attribute in _flag_assignments(module).get(id(function), _NONE)[1]


_NONE: Tuple[FrozenSet[str], FrozenSet[str]] = (frozenset(), frozenset())


@per_module
def _flag_assignments(module: cst.Module) -> Dict[int, Tuple[FrozenSet[str], FrozenSet[str]]]:
    """For each method of the module's classes (by id), the instance attributes it sets to
    `True` and those it sets to `False` (`self.is_test = True`): one walk per method, once per
    file, whatever the number of `if self.<flag>:` questions."""
    found = {}
    for owner in nodes_of_type(module, (cst.ClassDef,)):
        for item in children(owner.body):  # type: ignore[attr-defined]
            if isinstance(item, cst.FunctionDef) and item.params.params:
                found[id(item)] = _flags_set(item)
    return found


def _flags_set(function: cst.FunctionDef) -> Tuple[FrozenSet[str], FrozenSet[str]]:
    prefix = function.params.params[0].name.value + "."
    values: Dict[str, Set[str]] = {"True": set(), "False": set()}
    for node in descendants(function.body):
        if isinstance(node, cst.Assign) and isinstance(node.value, cst.Name) and node.value.value in values:
            for target in node.targets:
                name = dotted_name(target.target) or ""
                if name.startswith(prefix) and "." not in name[len(prefix) :]:
                    values[node.value.value].add(name[len(prefix) :])
    return frozenset(values["True"]), frozenset(values["False"])


def switches_to_eval(call: cst.CSTNode) -> bool:
    """Whether `call` puts a module in evaluation mode: `m.eval()`, `m.train(False)` or
    `m.train(mode=False)` (the same switch; `eval()` calls `train(False)`)."""
    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
        return False
    method, args = call.func.attr.value, call.args
    if method == "eval":
        return not args
    if method != "train" or len(args) != 1 or (args[0].keyword is not None and args[0].keyword.value != "mode"):
        return False
    return isinstance(args[0].value, cst.Name) and args[0].value.value == "False"


def branch_no_call_takes(ancestors: Sequence[cst.CSTNode], calls: Sequence[cst.Call]) -> bool:
    """Whether the node below `ancestors` (outermost first) sits in a branch that none of
    `calls` takes: the innermost `if <parameter>:` of its function tests a parameter alone,
    and each call (of that function; at least one) passes it a literal `True`/`False`, by
    keyword or position, or omits it for a literal default, selecting the other branch
    (`make_layers(cfg, batch_norm=True)` never runs the `else:` of `if batch_norm:`)."""
    function = next((node for node in reversed(ancestors) if isinstance(node, cst.FunctionDef)), None)
    if function is None or not calls:
        return False
    for index in range(len(ancestors) - 1, 0, -1):
        branch, child = ancestors[index - 1], ancestors[index]
        if branch is function:
            return False
        if isinstance(branch, cst.If) and child is not branch.test:
            if not isinstance(branch.test, cst.Name):
                return False
            wanted = child is branch.body
            return all(_passed_flag(call, function, branch.test.value) == (not wanted) for call in calls)
    return False


def _passed_flag(call: cst.Call, function: cst.FunctionDef, name: str) -> Optional[bool]:
    """The literal truth value `call` gives the parameter `name` of `function`, or None."""
    params = list(function.params.params)
    position = next((index for index, param in enumerate(params) if param.name.value == name), None)
    given: Optional[cst.BaseExpression] = None
    for index, arg in enumerate(call.args):
        if arg.star:
            return None
        if (arg.keyword is not None and arg.keyword.value == name) or (arg.keyword is None and index == position):
            given = arg.value
    if given is None:
        param = next((param for param in (*params, *function.params.kwonly_params) if param.name.value == name), None)
        given = param.default if param is not None else None
    if isinstance(given, cst.Name) and given.value in ("True", "False"):
        return given.value == "True"
    return None
