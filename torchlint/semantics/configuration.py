"""Where a value a test looks a key up in comes from: a run's configuration or not.

A configuration holder is a value the program reads its settings from: a command-line
namespace (`args = parser.parse_args()`), a loaded YAML, JSON or TOML file (`cfg =
yaml.safe_load(f)`), an OmegaConf or Hydra configuration (`OmegaConf.load(path)`, the
parameter of a `@hydra.main` function, a parameter annotated `DictConfig` or `Namespace`), the
environment (`os.environ`), a Lightning module's `self.hparams`, or a part of one of these
(`train_cfg = cfg["train"]`). A parameter annotated with another type (`out: Tensor`) is no
configuration. Where the file does not show the origin (a parameter without annotation, a
value handed over by another module), the answer is unknown and the caller decides by the
holder's name.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Union

import libcst as cst

from torchlint.semantics.names import dotted_name
from torchlint.semantics.tree import bound_names, module_nodes, names_bound_by, nodes_of_type, per_module, scope_descendants

# Library callables that return a configuration (by qualified name).
LOADERS = frozenset(
    {
        "yaml.load", "yaml.safe_load", "yaml.full_load", "yaml.unsafe_load",
        "json.load", "json.loads", "toml.load", "toml.loads", "tomllib.load", "tomllib.loads",
        "omegaconf.OmegaConf.load", "omegaconf.OmegaConf.create", "omegaconf.OmegaConf.merge",
        "omegaconf.OmegaConf.to_container", "omegaconf.OmegaConf.from_cli",
        "hydra.compose", "argparse.Namespace",
    }
)
# Methods of an `argparse.ArgumentParser` (or a subclass) that return the parsed namespace.
PARSER_METHODS = frozenset({"parse_args", "parse_known_args", "parse_intermixed_args"})
# Types whose annotation makes a parameter a configuration.
CONFIG_TYPES = frozenset({"omegaconf.DictConfig", "omegaconf.dictconfig.DictConfig", "argparse.Namespace"})
# Annotations that say nothing of the origin: a configuration may be a plain dict.
UNTYPED = frozenset({"typing.Dict", "typing.Mapping", "typing.MutableMapping", "typing.Any", "collections.abc.Mapping"})
# Builtin types no configuration is written as.
SCALAR_TYPES = frozenset({"str", "int", "float", "bool", "bytes", "list", "tuple", "set"})
# Attributes that hold a configuration by a framework's contract (Lightning's saved hyperparameters).
FRAMEWORK_HOLDERS = frozenset({"self.hparams"})

Scope = Union[cst.Module, cst.FunctionDef]


def configuration_holder(module: cst.Module, holder: cst.BaseExpression) -> Optional[bool]:
    """Whether `holder` (a name or attribute a test looks a key up in) holds a configuration:
    True when the file shows it comes from one (see the module's docstring), False when it
    shows it does not (a parameter annotated with another type), None when it does not show."""
    return _origin(module, holder, 3)


def _origin(module: cst.Module, holder: cst.BaseExpression, depth: int) -> Optional[bool]:
    dotted = dotted_name(holder)
    if dotted is None or depth == 0:
        return None
    if dotted in FRAMEWORK_HOLDERS or _qualified(module, dotted) == "os.environ":
        return True
    if not isinstance(holder, cst.Name):
        values = _attribute_values(module).get(dotted, [])
        if not values and isinstance(holder, cst.Attribute):
            return _origin(module, holder.value, depth - 1) or None  # `cfg.train`: a part of `cfg`
        found = [_value_origin(module, value, depth) for value in values]
        return True if found and all(found) else None
    scope = _scope_of(module, holder)
    while scope is not None:
        answer = _bound_in(module, scope, holder.value, depth)
        if answer is not _UNBOUND:
            return answer  # type: ignore[return-value]
        scope = _enclosing_function(module, scope)
    return None


_UNBOUND = object()


def _bound_in(module: cst.Module, scope: Scope, name: str, depth: int) -> "Optional[bool] | object":
    """The origin of `name` as `scope` binds it: by a parameter or by assignments (all of them
    configurations for True); `_UNBOUND` when the scope does not bind it."""
    if isinstance(scope, cst.FunctionDef):
        for param in (*scope.params.params, *scope.params.kwonly_params, *scope.params.posonly_params):
            if param.name.value == name:
                return _parameter_origin(module, scope, param)
    values: List[Optional[cst.BaseExpression]] = []
    for node in scope_descendants(scope.body if isinstance(scope, cst.FunctionDef) else scope):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                if isinstance(target.target, cst.Name) and target.target.value == name:
                    values.append(node.value)
                elif name in bound_names(target.target):
                    values.append(None)  # unpacked: `args, rest = parser.parse_known_args()`
        elif isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name) and node.target.value == name:
            values.append(node.value)
        elif not isinstance(node, cst.AssignTarget) and name in names_bound_by(node):
            values.append(None)  # a loop, `with ... as`, `+=`, `:=`
    if not values:
        return _UNBOUND
    if any(value is None for value in values):
        return None
    found = [_value_origin(module, value, depth) for value in values]  # type: ignore[arg-type]
    return True if all(found) else None


def _parameter_origin(module: cst.Module, function: cst.FunctionDef, param: cst.Param) -> Optional[bool]:
    """A parameter of a `@hydra.main` function, or one annotated with a configuration type,
    holds a configuration; one annotated with another type does not; unknown otherwise."""
    if any(_qualified(module, dotted_name(_callee(d.decorator)) or "") == "hydra.main" for d in function.decorators):
        return True
    if param.annotation is None:
        return None
    annotation = param.annotation.annotation
    written = dotted_name(annotation.value if isinstance(annotation, cst.Subscript) else annotation)
    if written is None or written.rpartition(".")[2] in ("Optional", "Union"):
        return None
    qualified = _qualified(module, written)
    if qualified in CONFIG_TYPES:
        return True
    if qualified is None:  # a builtin, or a class of the project (a settings dataclass, say)
        return False if written in SCALAR_TYPES else None
    return None if qualified in UNTYPED else False


def _value_origin(module: cst.Module, value: cst.BaseExpression, depth: int) -> Optional[bool]:
    """True for a value read from a configuration: a loader's result, a parsed namespace (also
    as a dict, `vars(args)`), or a part of a configuration (`cfg["train"]`, `cfg.train`)."""
    if depth == 0:
        return None
    if isinstance(value, cst.Call):
        callee = dotted_name(value.func) or ""
        if _qualified(module, callee) in LOADERS:
            return True
        if isinstance(value.func, cst.Attribute) and value.func.attr.value in PARSER_METHODS:
            return True
        if callee in ("vars", "dict") and len(value.args) == 1 and not value.args[0].star and _import_aliases(module).get(callee) is None:
            return _value_origin(module, value.args[0].value, depth - 1)  # `vars(parser.parse_args())`
        return None
    if isinstance(value, cst.Subscript) or (isinstance(value, cst.Attribute) and dotted_name(value) is None):
        return _value_origin(module, value.value, depth - 1)  # `OmegaConf.load(path).train`
    if isinstance(value, (cst.Name, cst.Attribute)):
        return _origin(module, value, depth - 1)
    return None


def _callee(node: cst.BaseExpression) -> cst.BaseExpression:
    return node.func if isinstance(node, cst.Call) else node


def _scope_of(module: cst.Module, node: cst.CSTNode) -> Optional[Scope]:
    """The function whose own scope `node` is in, or the module."""
    parents = module_nodes(module).parents
    current = parents.get(id(node))
    while current is not None:
        if isinstance(current, cst.FunctionDef):
            return current
        if isinstance(current, (cst.Lambda, cst.ClassDef)):
            return None
        current = parents.get(id(current))
    return module


def _enclosing_function(module: cst.Module, scope: Scope) -> Optional[Scope]:
    """The scope a function's free names are read from: its enclosing function or the module."""
    if isinstance(scope, cst.Module):
        return None
    parents = module_nodes(module).parents
    current = parents.get(id(scope))
    while current is not None:
        if isinstance(current, cst.FunctionDef):
            return current
        current = parents.get(id(current))
    return module


def _qualified(module: cst.Module, dotted: str) -> Optional[str]:
    """`dotted` with its head replaced by what the module's absolute imports bind it to."""
    head, dot, rest = dotted.partition(".")
    target = _import_aliases(module).get(head)
    return f"{target}{dot}{rest}" if target else None


@per_module
def _import_aliases(module: cst.Module) -> Dict[str, str]:
    """Local name -> qualified name for the module's absolute imports, at any depth."""
    found: Dict[str, str] = {}
    for node in nodes_of_type(module, (cst.Import, cst.ImportFrom)):
        if isinstance(node.names, cst.ImportStar):  # type: ignore[attr-defined]
            continue
        if isinstance(node, cst.ImportFrom):
            if node.relative or node.module is None:
                continue
            source = dotted_name(node.module) or ""
            for alias in node.names:  # type: ignore[union-attr]
                found[alias.evaluated_alias or alias.evaluated_name] = f"{source}.{alias.evaluated_name}"
        else:
            for alias in node.names:  # type: ignore[attr-defined]
                name = alias.evaluated_name
                found[alias.evaluated_alias or name.split(".")[0]] = name if alias.evaluated_alias else name.split(".")[0]
    return found


@per_module
def _attribute_values(module: cst.Module) -> Dict[str, List[cst.BaseExpression]]:
    """For each attribute the module assigns (`self.config = ...`), the values assigned."""
    found: Dict[str, List[cst.BaseExpression]] = {}
    for node in nodes_of_type(module, (cst.Assign,)):
        assert isinstance(node, cst.Assign)
        for target in node.targets:
            dotted = dotted_name(target.target) if isinstance(target.target, cst.Attribute) else None
            if dotted is not None:
                found.setdefault(dotted, []).append(node.value)
    return found
