"""What a function or class receives from the calls the project makes of it: the keywords
that reach its `**kwargs` (`kwargs.setdefault("num_workers", 1)` and the callers'
`num_workers=1`), and the attributes it stores from its `__init__` parameters
(`self.num_workers = num_workers`, or Lightning's `self.save_hyperparameters()` read back as
`self.hparams.num_workers`), which hold the parameter's default unless a call passes another
(`project.calls_given`)."""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass
from typing import Dict, FrozenSet, List, Optional, Set, Tuple

import libcst as cst

from torchlint.semantics.calls import is_literal, positional
from torchlint.semantics.devices import named_like_device
from torchlint.semantics.config_files import configured_values, setting_values
from torchlint.semantics.facts import FileFacts
from torchlint.semantics.names import dotted_name
from torchlint.semantics.project import CUDA, arguments_given, calls_given, launched_values, option_default, project_enables
from torchlint.semantics.tree import descendants, in_source_order, names_bound_by, nodes_of_type, parameter_names, per_module, scope_descendants
from torchlint.semantics.values import DICT_READS, string_key, string_value


def zero_in_every_call(ctx: "FileFacts", value: cst.BaseExpression, called: bool = False, options: bool = False) -> bool:
    """Whether `value` is `0` on every run the project makes, being a parameter as received:
    read in a method from what `__init__` stores (`self.num_workers`,
    `self.hparams.num_workers`, `self.hparams["num_workers"]`), or a parameter of the
    function that reads it (`num_workers` in `__init__` or in a module-level function) that
    it does not rebind. Every call of the class or function in the project passes `0` or
    leaves the parameter to its default, which is then the literal `0` (no call at all: the
    default). A call passing anything else (`num_workers=args.workers`, unless `options` and
    the project's command-line option defaults to `0`, see `default_of_option`), a spread
    `**kwargs`, or a use other than a call (a CLI building the class from a configuration)
    makes it unknown: False; so does a project that never calls it while its configuration
    files set the parameter's name above zero (a class Hydra builds from them). `called`: only
    where the project calls it at all (a library's default is its users' to override)."""
    found = received_parameter(ctx, value) if os.path.isfile(ctx.path) else None
    if found is None:
        return False
    callee, parameter = found
    given = arguments_given(ctx.path, callee, parameter.name.value)
    zero = (lambda item: _is_zero(item) or _zero_option(ctx, item)) if options else _is_zero
    if given is None or (called and not given) or not all(item is None or zero(item) for item in given):
        return False
    if not given and _configured_above_zero(ctx.path, parameter.name.value):
        return False  # never called by name, and configuration files set it: built from them (Hydra)
    defaulted = not given or any(item is None for item in given)
    return not defaulted or (parameter.default is not None and is_literal(parameter.default, "0"))


def _configured_above_zero(path: str, key: str) -> bool:
    """Whether a configuration file of the project sets `key` to a count above zero
    (`num_workers: 8` in the YAML a Hydra `instantiate` builds the data module from)."""
    found = configured_values(path, (key,))
    return found is not None and any(type(item) is int and item > 0 for item in found)


def zero_by_default(ctx: "FileFacts", value: cst.BaseExpression) -> bool:
    """Whether `value` reads a command-line option whose default is `0` wherever the project
    defines it (`args.num_workers` after `parser.add_argument("--num-workers", type=int,
    default=0)`, see `project.option_default`) and that no shell script of the project sets
    to a count above zero (`python train.py --num_workers 2`, `project.launched_values`):
    zero unless the user asks for more."""
    if not _zero(default_of_option(ctx, value)):
        return False
    assert isinstance(value, cst.Attribute)  # an option's value, `args.num_workers`
    return not any(passed.isdigit() and int(passed) > 0 for passed in launched_values(ctx.path, value.attr.value))


def default_of_option(ctx: "FileFacts", value: cst.BaseExpression) -> Optional[object]:
    """The constant default of the command-line option `value` reads (`args.find_unused`, or
    `self.args.workers` from a holder the object keeps), when the project's modules that
    define it agree on one; None otherwise (`self.workers` is the object's own)."""
    if not isinstance(value, cst.Attribute):
        return None
    holder = value.value
    if not (isinstance(holder, cst.Name) and holder.value != "self") and not (isinstance(holder, cst.Attribute) and dotted_name(holder.value) == "self"):
        return None
    return option_default(ctx.path, value.attr.value) if os.path.isfile(ctx.path) else None


def device_from_configuration(ctx: "FileFacts") -> bool:
    """Whether the file builds its device from a setting of its configuration
    (`torch.device(hp.device)`, `torch.device(cfg["device"])`, `torch.device(args.device)`, or
    binds a device name to one: `device = args.device`): the
    program runs where its user's configuration puts it, an accelerator for a program that
    moves its batches there, unless a command-line option of the project defaults the setting
    to the CPU (`add_argument("--device", default="cpu")`, see `default_of_option`). A device
    attribute of the object itself (`torch.device(self.device)`) is no setting."""
    if "device" not in ctx.text:
        return False
    for node in nodes_of_type(ctx.module, (cst.Call, cst.Assign)):
        if isinstance(node, cst.Assign):
            if len(node.targets) != 1 or not named_like_device(node.targets[0].target):
                continue
            setting = node.value  # `device = args.device`
        elif len(node.args) != 1 or node.args[0].keyword is not None or ctx.qualified_name(node.func) != "torch.device":
            continue
        else:
            setting = node.args[0].value
        key = setting.attr.value if isinstance(setting, cst.Attribute) else string_key(setting)
        owner = dotted_name(setting.value) if isinstance(setting, (cst.Attribute, cst.Subscript)) else None
        if key is None or "device" not in key.lower() or owner is None or owner.split(".")[0] == "self":
            continue
        default = default_of_option(ctx, setting)
        if not (isinstance(default, str) and default.split(":")[0].lower() in ("cpu", "mps")):
            return True
    return False


def device_from_project_module(ctx: "FileFacts") -> bool:
    """Whether the file moves values to a device that another project module picks
    (`x.to(config.DEVICE)` after `from internal_files import config`, whose `DEVICE =
    torch.device("cuda" if ...)`; `from settings import device`), and a project module it
    imports enables CUDA: the program runs where that module puts it."""
    if ".to(" not in ctx.text or not project_enables(ctx, CUDA):
        return False
    for node in nodes_of_type(ctx.module, (cst.Call,)):
        target = positional(node)[0].value if isinstance(node.func, cst.Attribute) and node.func.attr.value == "to" and positional(node) else None
        if target is not None and named_like_device(target) and not (ctx.names.qualified_name(target) or "torch.").startswith("torch."):
            return True  # an imported name: a project module's (a library's device is no name of this kind)
    return False


def device_given_by_callers(ctx: "FileFacts") -> bool:
    """Whether a module-level function of the file takes its device as a parameter (`def
    train_bpr(model, df, device="cpu")`) that a call in the project passes something other than
    the CPU (`train_bpr(model, df, device=device)`): the function runs where its caller puts it."""
    if not os.path.isfile(ctx.path) or "device" not in ctx.text:
        return False
    for function in ctx.module.body:
        if not isinstance(function, cst.FunctionDef):
            continue
        for parameter in (*function.params.posonly_params, *function.params.params, *function.params.kwonly_params):
            if not named_like_device(parameter.name):
                continue
            given = arguments_given(ctx.path, function.name.value, parameter.name.value)
            if given and any(item is not None and not _names_the_cpu(item) for item in given):
                return True
    return False


def _names_the_cpu(node: ast.AST) -> bool:
    """`"cpu"`, `torch.device("cpu")`."""
    if isinstance(node, ast.Call) and len(node.args) == 1:
        node = node.args[0]
    return isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.split(":")[0] == "cpu"


def received_parameter(ctx: "FileFacts", value: cst.BaseExpression) -> Optional[Tuple[str, cst.Param]]:
    """The callable (as `project.callers_of` names it) and the parameter whose argument
    `value` holds unchanged (see `zero_in_every_call`), or None."""
    function = ctx.frequency.enclosing_function(value)
    klass = ctx.frequency.enclosing_class(function) if function is not None else None
    if function is None or (klass is not None and not any(statement is klass for statement in ctx.module.body)):
        return None
    if isinstance(value, cst.Name):
        parameter = _parameter(function, value.value)
        if parameter is None or any(value.value in names_bound_by(node) for node in scope_descendants(function.body)):
            return None
        if klass is None:
            return function.name.value, parameter
        return (klass.name.value, parameter) if function.name.value == "__init__" else None
    attribute = _attribute(value)
    if klass is None or attribute is None:
        return None
    init = next((item for item in klass.body.body if isinstance(item, cst.FunctionDef) and item.name.value == "__init__"), None)
    parameter = _parameter(init, attribute[1]) if init is not None else None
    if init is None or parameter is None or not _stored_unchanged(ctx.module, klass, *attribute):
        return None
    return klass.name.value, parameter


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


def _stored_unchanged(module: cst.Module, klass: cst.ClassDef, owner: str, name: str) -> bool:
    """Whether the class holds the parameter `name` as `__init__` received it: `__init__`
    rebinds no such name, and either every assignment of `self.name` in the class is
    `self.name = name` in `__init__`, or (`owner` "self.hparams") `__init__` calls
    `self.save_hyperparameters()` for all its parameters or that one, and nothing assigns
    `self.hparams`. Read from the class's writes, indexed once per module (`_class_writes`)."""
    writes = _class_writes(module).get(id(klass))
    if writes is None or name in writes.rebound_in_init:
        return False  # `num_workers = num_workers or 4`
    if owner == "self":
        return name not in writes.changed
    return not writes.hparams_written and (writes.saves_all or name in writes.saved)


@dataclass(frozen=True)
class _ClassWrites:
    """What the code of a module-level class writes, for `_stored_unchanged`."""

    # Names its `__init__` assigns (`num_workers = num_workers or 4`).
    rebound_in_init: FrozenSet[str]
    # Attributes `self.X` assigned other than `self.X = X` in `__init__`.
    changed: FrozenSet[str]
    # Something assigns `self.hparams` or an attribute or item of it.
    hparams_written: bool
    # `__init__` calls `self.save_hyperparameters()` (every parameter), or names these.
    saves_all: bool
    saved: FrozenSet[str]


@per_module
def _class_writes(module: cst.Module) -> Dict[int, _ClassWrites]:
    """`_ClassWrites` of each module-level class with an `__init__`, by the class's id."""
    found: Dict[int, _ClassWrites] = {}
    for klass in module.body:
        init = next((item for item in klass.body.body if isinstance(item, cst.FunctionDef) and item.name.value == "__init__"), None) if isinstance(klass, cst.ClassDef) else None
        if init is None:
            continue
        in_init = {id(node) for node in descendants(init)}
        rebound: Set[str] = set()
        changed: Set[str] = set()
        hparams = False
        for node in descendants(klass):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target] if isinstance(node, (cst.AugAssign, cst.AnnAssign)) else []
            for target in targets:
                written = dotted_name(target) or dotted_name(getattr(target, "value", target)) or ""
                if id(node) in in_init:
                    rebound.add(written)
                attribute = written[len("self."):] if written.startswith("self.") else None
                if attribute and not (id(node) in in_init and isinstance(node, cst.Assign) and dotted_name(node.value) == attribute):
                    changed.add(attribute)
                hparams = hparams or written.startswith("self.hparams")
        saves = [node for node in descendants(init) if isinstance(node, cst.Call) and dotted_name(node.func) == "self.save_hyperparameters"]
        saved = frozenset(filter(None, (string_value(arg.value) for node in saves for arg in positional(node))))
        found[id(klass)] = _ClassWrites(frozenset(rebound), frozenset(changed), hparams, any(not positional(node) for node in saves), saved)
    return found


def true_in_every_call(ctx: "FileFacts", value: cst.BaseExpression) -> bool:
    """Whether `value`, a parameter as received (see `zero_in_every_call`), is `True` on every
    run the project makes: every call passes the literal `True` or leaves a `True` default (no
    call at all: the default)."""
    found = received_parameter(ctx, value) if os.path.isfile(ctx.path) else None
    if found is None:
        return False
    callee, parameter = found
    given = arguments_given(ctx.path, callee, parameter.name.value)
    if given is None:
        return False
    values = [_python_value(item) if item is not None else _default_value(parameter) for item in given or [None]]
    return all(item is True for item in values)


def branch_never_taken(ctx: "FileFacts", branch: cst.If, body: bool) -> bool:
    """Whether no run the project makes takes the body (`body`) or the `else` of `branch`,
    whose test reads a parameter as received (see `zero_in_every_call`): `if use_gpu:` when
    every call passes `False` or leaves a `False` default, `if mask is None:` when every call
    passes a value that cannot be None (a constant, a display, arithmetic), `if len(gpu_ids) >
    1:` when every call passes or leaves a shorter list display, `if self.stage == "test":`
    when every call leaves `stage="train"`, and the `else` of those; the body of `if a and b:`
    when either side's body is never taken. Unknown calls (spreads, a use other than a call)
    and no call at all: False. A constant test decides by itself: `if False:` (or `0`,
    `None`) never runs its body, `if True:` never its `else`, and `if use_cuda and
    torch.cuda.device_count() > 1 and False:` switches a branch off; so does a name bound once
    to such a literal, by the function or at module level, also compared with an integer
    (`intra_list = 1`, then `if intra_list:`; `ngpu = 1`, then `if ngpu > 1:`)."""
    return _never_taken(ctx, branch.test, body, _constants(ctx, branch))


def _never_taken(ctx: "FileFacts", test: cst.BaseExpression, body: bool, constants: Dict[str, cst.BaseExpression]) -> bool:
    """`branch_never_taken` of a test (`constants`: the names bound once to literals there)."""
    constant = _constant_truth(test, constants)
    if constant is not None:
        return constant is not body
    if body and isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return any(_never_taken(ctx, side, True, constants) for side in (test.left, test.right))
    configured = _configured_truth(ctx, test)
    if configured is not None:
        return configured is not body
    read = _tested_parameter(test)
    if read is None or not os.path.isfile(ctx.path):
        return False
    value, wanted = read
    found = received_parameter(ctx, value)
    if found is None:
        return False
    callee, parameter = found
    given = arguments_given(ctx.path, callee, parameter.name.value)
    if not given:
        return False
    runs = [_runs_body(_python_value(item) if item is not None else _default_value(parameter), wanted) for item in given]
    return all(answer is (not body) for answer in runs)


# Python's comparisons of two integers, by LibCST's operator node.
_COMPARE = {
    cst.LessThan: int.__lt__, cst.LessThanEqual: int.__le__, cst.GreaterThan: int.__gt__,
    cst.GreaterThanEqual: int.__ge__, cst.Equal: int.__eq__, cst.NotEqual: int.__ne__,
}


def _configured_truth(ctx: "FileFacts", test: cst.BaseExpression) -> Optional[bool]:
    """The truth that every configuration file of the project gives a test of one setting (see
    `config_files.setting_values`): `if p["loss_coeff"]["superpixel"] > 0:` where each file
    sets `superpixel: 0`, `if cfg.use_head:` where each sets `false`, `not` of those; None when
    a file gives another truth or a value the test cannot be decided on."""
    negated = False
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test, negated = test.expression, not negated
    if isinstance(test, cst.Comparison):
        if len(test.comparisons) != 1 or type(test.comparisons[0].operator) not in _COMPARE:
            return None
        bound = _literal(test.comparisons[0].comparator)
        values = setting_values(ctx, test.left) if type(bound) is int else None
        if not values or not all(type(value) in (int, bool) for value in values):
            return None
        truths = {_COMPARE[type(test.comparisons[0].operator)](int(value), bound) for value in values}  # type: ignore[arg-type]
    elif isinstance(test, (cst.Attribute, cst.Subscript)):
        values = setting_values(ctx, test)
        if not values or not all(value is None or type(value) in (int, bool) for value in values):
            return None
        truths = {bool(value) for value in values}
    else:
        return None
    return truths.pop() != negated if len(truths) == 1 else None


def _constant_truth(test: cst.BaseExpression, constants: Optional[Dict[str, cst.BaseExpression]] = None) -> Optional[bool]:
    """The truth of a literal test (`True`, `False`, `None`, an integer, `not` of one), also
    of a name bound to one (`constants`, see `_constants`), and of a comparison of two
    integers so known (`ngpu > 1`)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _constant_truth(test.expression, constants)
        return None if inner is None else not inner
    if isinstance(test, cst.Name) and test.value in ("True", "False", "None"):
        return test.value == "True"
    if isinstance(test, cst.Integer):
        return int(test.value, 0) != 0
    if isinstance(test, cst.Name) and constants and test.value in constants:
        return _constant_truth(constants[test.value])
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and type(test.comparisons[0].operator) in _COMPARE:
        left, right = _integer(test.left, constants), _integer(test.comparisons[0].comparator, constants)
        if left is not None and right is not None:
            return _COMPARE[type(test.comparisons[0].operator)](left, right)
    return None


def _integer(node: cst.BaseExpression, constants: Optional[Dict[str, cst.BaseExpression]]) -> Optional[int]:
    """An integer literal, or a name bound to one (`constants`)."""
    if isinstance(node, cst.Name) and constants and node.value in constants:
        node = constants[node.value]
    return int(node.value, 0) if isinstance(node, cst.Integer) else None


def _constants(ctx: "FileFacts", branch: cst.If) -> Dict[str, cst.BaseExpression]:
    """The names bound exactly once to a literal where `branch` tests them: by the function
    around it (`intra_list = 1` just above `if intra_list:`), or else at module level by a
    module that never rebinds them (`ngpu = 1` at the top of a script): whatever runs the
    test, the name holds the literal (or is not bound yet)."""
    if not any(isinstance(node, cst.Name) for node in descendants(branch.test)):
        return {}  # only names are read as literals (`_constant_truth`)
    module = _scope_constants(ctx.module, ctx.module)
    function = ctx.frequency.enclosing_function(branch)
    if function is None:
        return module
    own = _scope_constants(ctx.module, function)
    bound = _bound_in(ctx.module, function)
    return {**{name: value for name, value in module.items() if name not in bound}, **own}


@per_module
def _scope_constants(module: cst.Module, scope: cst.CSTNode) -> Dict[str, cst.BaseExpression]:
    """The names `scope` (a function, or the module) binds exactly once, by a plain
    assignment of a literal, and declares neither `global` nor `nonlocal`, nor takes as
    parameters; for the module, also never declared `global` in any function."""
    body = scope.body if isinstance(scope, cst.FunctionDef) else scope
    counts: Dict[str, int] = {}
    literals: Dict[str, cst.BaseExpression] = {}
    for node in scope_descendants(body):
        for name in names_bound_by(node):
            counts[name] = counts.get(name, 0) + 1
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name) and _constant_truth(node.value) is not None:
            literals[node.targets[0].target.value] = node.value
    within = descendants(body) if isinstance(scope, cst.Module) else scope_descendants(body)
    declared = {item.name.value for node in within if isinstance(node, (cst.Global, cst.Nonlocal)) for item in node.names}
    parameters = set(parameter_names(scope.params)) if isinstance(scope, cst.FunctionDef) else set()
    return {name: value for name, value in literals.items() if counts.get(name) == 1 and name not in declared | parameters}


@per_module
def _bound_in(module: cst.Module, function: cst.FunctionDef) -> FrozenSet[str]:
    """The names `function` binds itself (parameters included): they hide the module's."""
    names = {name for node in scope_descendants(function.body) for name in names_bound_by(node)}
    return frozenset(names | set(parameter_names(function.params)))


# What an `if` test asks of the value it reads for its body to run.
_TRUTHY, _FALSY, _NONE, _NOT_NONE = "truthy", "falsy", "none", "not none"
_NEGATED = {_TRUTHY: _FALSY, _FALSY: _TRUTHY}
# A value known not to be None whose truth is unknown (a call, a display); a value unknown.
_SOMETHING = object()
_UNKNOWN = object()


def _tested_parameter(test: cst.BaseExpression) -> Optional[Tuple[cst.BaseExpression, object]]:
    """The value an `if` test reads and what its body needs of it: `x` (truthy), `not x`
    (falsy), `x is None`, `x is not None`, `len(x) > n` (a length above `n`), `x == "test"`
    and `x != 0` (equal to a string or number literal, or not)."""
    longer = _length_test(test)
    if longer is not None:
        return longer
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _tested_parameter(test.expression)
        return (inner[0], _NEGATED[inner[1]]) if inner is not None and inner[1] in _NEGATED else None
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and is_literal(test.comparisons[0].comparator, "None"):
        operator = test.comparisons[0].operator
        if isinstance(operator, (cst.Is, cst.IsNot)):
            return test.left, _NONE if isinstance(operator, cst.Is) else _NOT_NONE
        return None
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(test.comparisons[0].operator, (cst.Equal, cst.NotEqual)):
        literal = _literal(test.comparisons[0].comparator)  # `self.stage == "test"`
        if literal is not _UNKNOWN:
            return test.left, _Equals(literal, isinstance(test.comparisons[0].operator, cst.NotEqual))
        return None
    return (test, _TRUTHY) if isinstance(test, (cst.Name, cst.Attribute, cst.Subscript)) else None


def _length_test(test: cst.BaseExpression) -> Optional[Tuple[cst.BaseExpression, object]]:
    """`len(x) > n` or `len(x) >= n`: (`x`, the shortest length that passes)."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1 and isinstance(test.comparisons[0].comparator, cst.Integer)):
        return None
    left, operator = test.left, test.comparisons[0].operator
    if not (isinstance(left, cst.Call) and isinstance(left.func, cst.Name) and left.func.value == "len" and len(left.args) == 1):
        return None
    bound = int(test.comparisons[0].comparator.value, 0)
    if isinstance(operator, cst.GreaterThan):
        return left.args[0].value, _Longer(bound + 1)
    return (left.args[0].value, _Longer(bound)) if isinstance(operator, cst.GreaterThanEqual) else None


@dataclass(frozen=True)
class _Longer:
    """What `len(x) > n` wants of `x`: at least `length` items."""

    length: int


def _runs_body(value: object, wanted: object) -> Optional[bool]:
    """Whether a test that wants `wanted` passes for `value`; None when the value does not tell."""
    if value is _UNKNOWN:
        return None
    if isinstance(wanted, _Equals):
        if value is _SOMETHING or isinstance(value, _Display):
            return None
        return (value == wanted.value) != wanted.negated
    if isinstance(wanted, _Longer):
        return len(value) >= wanted.length if isinstance(value, _Display) else None
    if wanted in (_NONE, _NOT_NONE):
        return (value is None) == (wanted == _NONE)
    if value is _SOMETHING:
        return None
    return bool(value) == (wanted == _TRUTHY)


@dataclass(frozen=True)
class _Equals:
    """A test that wants the value equal to a literal (`== "test"`), or not (`!=`)."""

    value: object
    negated: bool


def _literal(node: cst.BaseExpression) -> object:
    """The value of a string or number literal, `_UNKNOWN` for anything else."""
    if isinstance(node, (cst.SimpleString, cst.Integer, cst.Float)):
        try:
            return ast.literal_eval(node.value)
        except (ValueError, SyntaxError):
            return _UNKNOWN
    return _UNKNOWN


@dataclass(frozen=True)
class _Display:
    """A list or tuple display of a known number of items (never None, truthy when not empty)."""

    items: int

    def __len__(self) -> int:
        return self.items

    def __bool__(self) -> bool:
        return self.items > 0


def _python_value(node: ast.AST) -> object:
    """The value of a constant argument; a `_Display` for a list or tuple of known length;
    `_SOMETHING` for another display, arithmetic or a lambda (never None); `_UNKNOWN` for a
    name, a call (which may return None) or anything else."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple)) and not any(isinstance(item, ast.Starred) for item in node.elts):
        return _Display(len(node.elts))
    if isinstance(node, (ast.List, ast.Tuple, ast.Dict, ast.Set, ast.BinOp, ast.Lambda)):
        return _SOMETHING
    return _UNKNOWN


def _default_value(parameter: cst.Param) -> object:
    """What a call that leaves `parameter` out passes (`_UNKNOWN` for a required one)."""
    if parameter.default is None:
        return _UNKNOWN
    try:
        return _python_value(ast.parse(cst.Module([]).code_for_node(parameter.default), mode="eval").body)
    except SyntaxError:
        return _UNKNOWN


def _is_zero(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value == 0


def _zero_option(ctx: "FileFacts", node: ast.AST) -> bool:
    """`args.workers` handed on by a call, where the project's command-line option defaults to `0`."""
    if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)) or not os.path.isfile(ctx.path):
        return False
    return _zero(option_default(ctx.path, node.attr))


def _zero(default: Optional[object]) -> bool:
    """An option's default that is the int `0` (not `False`)."""
    return type(default) is int and default == 0


# Loader options whose value is falsy when left out (`pin_memory`, `num_workers`,
# `persistent_workers`): of the values callers give, the one that is not is what matters.
_FALSY = ("0", "False")


def received_spreads(ctx: "FileFacts", call: cst.Call) -> Optional[Dict[str, cst.BaseExpression]]:
    """The keywords all the `**name` arguments of `call` spread (see `received_keywords`); None
    when one is unknown or the call spreads `*args`."""
    keywords: Dict[str, cst.BaseExpression] = {}
    for arg in call.args:
        if arg.star == "*" or (arg.star == "**" and not isinstance(arg.value, cst.Name)):
            return None
        received = received_keywords(ctx, call, arg.value.value) if arg.star == "**" else {}
        if received is None:
            return None
        keywords.update(received)
    return keywords


def received_keywords(ctx: "FileFacts", call: cst.Call, name: str) -> Optional[Dict[str, cst.BaseExpression]]:
    """The keywords that `**name` spreads into `call`, where `name` is the `**` parameter of the
    module-level function making the call: those the function sets (`name.setdefault(key,
    value)`, `name[key] = value`, less `name.pop(key)`) and those every call of the function in
    the project passes beyond its named parameters (`get10(batch_size=64, num_workers=1)`).
    Where callers disagree, a value other than `0`/`False` wins: some call builds the loader
    with it. Calls through a handle of the function (`return dataset.get100`) are not seen:
    what is found holds for the loaders that the calls by name build, which are those the
    loader rules follow. None when not known: a method, another change of the dict
    (`name.update(...)`, handing it to a function), no call by name, or a call that spreads
    `*args`/`**kwargs` (`project.calls_given`)."""
    function = ctx.frequency.enclosing_function(call)
    star = function.params.star_kwarg if function is not None else None
    if function is None or not isinstance(star, cst.Param) or star.name.value != name or ctx.frequency.enclosing_class(function) is not None:
        return None
    own = _own_keywords(function, name)
    calls = calls_given(ctx.path, function.name.value, handles=False) if own is not None and os.path.isfile(ctx.path) else None
    if own is None or not calls:
        return None
    named = {param.name.value for param in (*function.params.posonly_params, *function.params.params, *function.params.kwonly_params)}
    values: Dict[str, List[cst.BaseExpression]] = {}
    for arguments in calls:
        for key in set(own) | (set(arguments) - named):
            value, forced = own.get(key, (None, False))
            if key in arguments and key not in named and not forced:
                value = _expression(arguments[key])
            if value is not None:
                values.setdefault(key, []).append(value)
    return {key: next((value for value in found if not any(is_literal(value, falsy) for falsy in _FALSY)), found[0]) for key, found in values.items()}


def bare_call_keywords(ctx: "FileFacts", call: cst.Call) -> Optional[Dict[str, cst.BaseExpression]]:
    """The keywords the `**name` arguments of `call` spread when the method or function making
    it is called with no keywords beyond its named parameters (a framework calling its hook:
    Lightning's `train_dataloader()`): those it sets in its own `**name` dict
    (`kwargs.setdefault(...)`, `kwargs[key] = value`, less `kwargs.pop(key)`). None when
    `call` spreads anything else or the dict is changed or handed on otherwise."""
    function = ctx.frequency.enclosing_function(call)
    star = function.params.star_kwarg if function is not None else None
    if not isinstance(star, cst.Param):
        return None
    if any(arg.star == "*" or (arg.star == "**" and dotted_name(arg.value) != star.name.value) for arg in call.args):
        return None
    own = _own_keywords(function, star.name.value)
    return None if own is None else {key: value for key, (value, _) in own.items() if value is not None}


def _own_keywords(function: cst.FunctionDef, name: str) -> Optional[Dict[str, Tuple[Optional[cst.BaseExpression], bool]]]:
    """The keywords `function` sets in its `**name` dict: key -> (value, whether it replaces a
    caller's): `name.setdefault(key, value)` (the caller's wins), `name[key] = value` (it
    replaces), `name.pop(key)` (removed: None). None when the function changes or hands on
    the dict otherwise."""
    own: Dict[str, Tuple[Optional[cst.BaseExpression], bool]] = {}
    for node in in_source_order(function.body):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and dotted_name(node.func.value) == name:
            method, args = node.func.attr.value, positional(node)
            key = string_value(args[0].value) if args else None
            if method == "setdefault" and key is not None and len(args) == 2:
                own.setdefault(key, (args[1].value, False))
            elif method == "pop" and key is not None:
                own[key] = (None, True)
            elif method not in DICT_READS:
                return None  # `kwargs.update(...)`
        elif isinstance(node, cst.Arg) and node.star != "**" and dotted_name(node.value) == name:
            return None  # handed to a function that may change it
        elif isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Del)):
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            for target in targets:
                if dotted_name(target) == name:
                    return None  # rebound
                if isinstance(target, cst.Subscript) and dotted_name(target.value) == name:
                    index = target.slice[0].slice if len(target.slice) == 1 else None
                    key = string_value(index.value) if isinstance(index, cst.Index) else None
                    if key is None or not isinstance(node, cst.Assign):
                        return None
                    own[key] = (node.value, True)
    return own


def _expression(node: ast.AST) -> Optional[cst.BaseExpression]:
    """A caller's argument (in another module's tree) as an expression of this one."""
    try:
        return cst.parse_expression(ast.unparse(node))
    except (cst.ParserSyntaxError, ValueError, RecursionError):
        return None
