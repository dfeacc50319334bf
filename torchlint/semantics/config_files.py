"""The values a setting takes in the project's configuration files.

Projects configure their loaders from files: `DataLoader(ds, num_workers=cfg.data.num_workers)`
after `cfg = OmegaConf.load("configs/train.yaml")`, a Hydra configuration, `json.load(f)`,
Lightning's `self.hparams` filled from a YAML file. The project's configuration files (YAML
anywhere under its root, JSON whose name or directory says it configures: see
`project.configuration_file`) are read as text (`files.config_text`, never executed, no YAML
library) into one index per state of the project tree, and a setting read from a
configuration holder (`configuration.configuration_holder`) is answered with every value the
files give it: matched by its key path (`data.num_workers` matches the settings whose path
ends so, in whichever file and section), else by its last key alone (`num_workers` anywhere),
with the default a `.get(key, default)` gives. The answer is unknown (None) when no file sets
the key, when one sets it to a value the reader does not know (an interpolation, a list), when
a region the reader skips writes the key, for a command-line option the project defines with
`add_argument` (the option's default then decides: `passed_values.zero_by_default`), and for
`self.hparams` of a class the project builds by name (its arguments are the hyperparameters).
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import TYPE_CHECKING, List, Optional, Set, Tuple

import libcst as cst

from torchlint.files.config_text import UNKNOWN, ConfigText, Setting, normal_key, read_json, read_yaml
from torchlint.semantics.configuration import configuration_holder
from torchlint.semantics.names import dotted_name
from torchlint.semantics.project import calls_given, config_files, defines_option, note_listing, project_root, read_module, tree_stamp
from torchlint.semantics.values import string_key, string_value

if TYPE_CHECKING:
    from torchlint.semantics.facts import FileFacts

# Files larger than this are data, not settings, and are not read.
MAX_CONFIG_BYTES = 512 * 1024
# How many configuration files of one project are read at most.
MAX_CONFIG_FILES = 2000

Values = Tuple[object, ...]


def configured_values(path: str, keys: Tuple[str, ...]) -> Optional[Values]:
    """The values the configuration files of the project of the file at `path` give the
    setting `keys` (a key path, last key last; see the module's docstring), or None."""
    root = project_root(os.path.abspath(path))
    stamp = tree_stamp(root)
    note_listing(root, stamp)
    index = _index(root, stamp)
    keys = tuple(normal_key(key) for key in keys)
    if keys[-1] in index.hidden:
        return None
    found = [value for key_path, value in index.settings if key_path[-len(keys):] == keys]
    if not found and len(keys) > 1:
        found = [value for key_path, value in index.settings if key_path[-1] == keys[-1]]
    if not found or any(value is UNKNOWN for value in found):
        return None
    return _distinct(found)


@lru_cache(maxsize=8)
def _index(root: str, stamp: str) -> ConfigText:
    """The settings of every configuration file of the project, once per state of its tree."""
    settings: List[Setting] = []
    hidden: Set[str] = set()
    for file in config_files(root)[:MAX_CONFIG_FILES]:
        try:
            if os.path.getsize(file) > MAX_CONFIG_BYTES:
                continue
        except OSError:
            continue
        text = read_module(file).text
        read = read_json(text) if file.lower().endswith(".json") else read_yaml(text)
        settings.extend(read.settings)
        hidden.update(read.hidden)
    return ConfigText(tuple(settings), frozenset(hidden))


def _distinct(values: List[object]) -> Values:
    """The values without repeats, `0` and `False` (equal in Python) kept apart."""
    seen = {}
    for value in values:
        seen.setdefault((type(value), value), value)
    return tuple(seen.values())


def setting_values(ctx: "FileFacts", value: cst.BaseExpression) -> Optional[Values]:
    """The values the project's configuration files give the setting `value` reads
    (`cfg.data.num_workers`, `config["num_workers"]`, `self.hparams.num_workers`,
    `cfg.get("workers", 4)`), or None (see the module's docstring). A holder the file shows is
    no configuration (`out: Tensor`) and an attribute of the object itself (`self.workers`) are
    no settings."""
    read = _setting(value)
    if read is None or not os.path.isfile(ctx.path):
        return None
    holder, keys, defaults = read
    if configuration_holder(ctx.module, holder) is False or defines_option(ctx.path, keys[-1]):
        return None
    if dotted_name(holder) == "self.hparams" and _built_by_name(ctx, value):
        return None  # `self.hparams.num_workers` of a class the project builds with its arguments
    found = configured_values(ctx.path, keys)
    return None if found is None else _distinct([*found, *defaults])


def _built_by_name(ctx: "FileFacts", value: cst.BaseExpression) -> bool:
    """Whether the class whose method reads `value` is built by name somewhere in the project
    (`DataModule(num_workers=4)`): its saved hyperparameters are then those arguments, not a
    configuration file's (see `project.calls_given`)."""
    function = ctx.frequency.enclosing_function(value)
    klass = ctx.frequency.enclosing_class(function) if function is not None else None
    return klass is not None and bool(calls_given(ctx.path, klass.name.value, handles=False))


def configured_zero(ctx: "FileFacts", value: cst.BaseExpression) -> bool:
    """Whether every configuration file that sets what `value` reads sets it to the int `0`."""
    found = setting_values(ctx, value)
    return bool(found) and all(type(item) is int and item == 0 for item in found)  # type: ignore[union-attr]


def configured_false(ctx: "FileFacts", value: cst.BaseExpression) -> bool:
    """Whether every configuration file that sets what `value` reads sets it to `false`."""
    return _configured_as(ctx, value, False)


def configured_true(ctx: "FileFacts", value: cst.BaseExpression) -> bool:
    """Whether every configuration file that sets what `value` reads sets it to `true`."""
    return _configured_as(ctx, value, True)


def _configured_as(ctx: "FileFacts", value: cst.BaseExpression, flag: bool) -> bool:
    found = setting_values(ctx, value)
    return bool(found) and all(item is flag for item in found)  # type: ignore[union-attr]


def _setting(value: cst.BaseExpression) -> Optional[Tuple[cst.BaseExpression, Tuple[str, ...], Tuple[object, ...]]]:
    """The holder, the key path and the `.get` defaults of a setting read from a holder named
    by a name (`cfg`) or an attribute of `self` (`self.hparams`, `self.cfg`)."""
    keys: List[str] = []
    defaults: List[object] = []
    chain: List[cst.BaseExpression] = []
    node = value
    while True:
        chain.append(node)
        if isinstance(node, cst.Attribute):
            keys.append(node.attr.value)
            node = node.value
        elif isinstance(node, cst.Subscript) and string_key(node) is not None:
            keys.append(string_key(node))  # type: ignore[arg-type]
            node = node.value
        elif _get_call(node):
            assert isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
            keys.append(string_value(node.args[0].value))  # type: ignore[arg-type]
            default = _literal(node.args[1].value) if len(node.args) == 2 else None
            if default is UNKNOWN:
                return None
            defaults.append(default)
            node = node.func.value
        else:
            break
    if not isinstance(node, cst.Name) or not keys:
        return None
    keys.reverse()
    if node.value != "self":
        return node, tuple(keys), tuple(defaults)
    holder = chain[-2]  # `self.hparams` in `self.hparams.num_workers`
    if len(keys) < 2 or not isinstance(holder, cst.Attribute):
        return None
    return holder, tuple(keys[1:]), tuple(defaults)


def _get_call(node: cst.BaseExpression) -> bool:
    """`holder.get("key")` or `holder.get("key", default)`."""
    return (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "get"
        and 1 <= len(node.args) <= 2
        and all(arg.keyword is None and not arg.star for arg in node.args)
        and string_value(node.args[0].value) is not None
    )


def _literal(node: cst.BaseExpression) -> object:
    """The value of an int, bool or `None` literal (`-1` too), else `UNKNOWN`."""
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[node.value]
    if isinstance(node, cst.Integer):
        return node.evaluated_value
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) and isinstance(node.expression, cst.Integer):
        return -node.expression.evaluated_value
    return UNKNOWN
