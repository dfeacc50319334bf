"""Where a project's Lightning trainers run.

Before Lightning 2.0 a `Trainer` built without a device option (`gpus=`, `accelerator=`,
`devices=`, ...) trained on the CPU; from 2.0 on it picks the accelerator itself. A project
that pins a 1.x release and builds every trainer without such an option trains on the CPU,
where pinned memory and asynchronous copies buy nothing."""

from __future__ import annotations

import ast
import os
import re
from functools import lru_cache
from typing import Dict, List, Optional

from torchlint.semantics.project import dependency_files, note_listing, project_files, project_root, python_tree, read_module, tree_stamp

# A Lightning requirement and its specifiers: `pytorch-lightning==1.5.10`, `pytorch_lightning~=1.4`,
# `lightning>=1.9,<2.0`, a conda `pytorch-lightning=1.6`.
_LIGHTNING_REQUIREMENT = re.compile(
    r"(?<![\w.-])(?:pytorch[-_]lightning|lightning)\s*(?:\[[^\]]*\])?\s*(?P<spec>[=<>~!][^;#\n\"']*)"
)
_SPECIFIER = re.compile(r"(?P<op>==|~=|<=|>=|!=|<|>|=)\s*(?P<major>\d+)(?:\.(?P<minor>\d+))?")


# Trainer options that choose a device or several processes.
DEVICE_OPTIONS = frozenset(
    {"accelerator", "gpus", "devices", "tpu_cores", "ipus", "hpus", "strategy", "num_processes", "auto_select_gpus", "distributed_backend"}
)


def lightning_on_cpu(path: str) -> bool:
    """Whether the project of the module at `path` trains its Lightning models on the CPU: it
    pins a Lightning release before 2.0 (in a dependency file of the module's directory or one
    above it), and every Lightning `Trainer(...)` of the sub-project that file governs is built
    without a device option, `**` arguments or a command-line constructor
    (`Trainer.from_argparse_args`, `LightningCLI`), which may choose one."""
    path = os.path.abspath(path)
    root = project_root(path)
    stamp = tree_stamp(root)  # the modules and the dependency files: a change to either counts
    note_listing(root, stamp)
    pinned_in = _old_lightning_directory(path, root)
    return pinned_in is not None and _trainers_on_default_device(root, stamp, pinned_in)


def _sub_project(file: str) -> str:
    """The directory a dependency file governs: its own (a `requirements/` directory counts as
    its parent)."""
    directory = os.path.dirname(file)
    return os.path.dirname(directory) if os.path.basename(directory) == "requirements" else directory


def _governs(file: str, module: str) -> bool:
    """Whether the dependency file `file` is in the directory of the module at `module` or one
    above it (see `_sub_project`)."""
    directory = _sub_project(file)
    return os.path.dirname(module).startswith(directory.rstrip(os.sep) + os.sep) or os.path.dirname(module) == directory


def _old_lightning_directory(path: str, root: str) -> Optional[str]:
    """The directory of the sub-project whose dependency files (in the module's directory or one
    above it, up to the project root; the nearest that name a Lightning version decide) bound
    Lightning below 2.0: a pin of a 1.x release (`==`, `~=`, conda's `=`, `<=`) or an upper
    bound of 2.0 or less (`<2`, `<2.0`); None without one."""
    texts: Dict[str, List[str]] = {}
    for file in (item for item in dependency_files(root) if _governs(item, path)):
        text = read_module(file).text
        if _LIGHTNING_REQUIREMENT.search(text):
            texts.setdefault(_sub_project(file), []).append(text)
    if not texts:
        return None
    nearest = max(texts, key=len)  # the innermost directory: a week's own pin over the repository's
    return nearest if any(_bounds_lightning_below_2(text) for text in texts[nearest]) else None


def _bounds_lightning_below_2(text: str) -> bool:
    """Whether a dependency file's text pins Lightning below 2.0 (see `_old_lightning_directory`)."""
    for requirement in _LIGHTNING_REQUIREMENT.finditer(text):
        for specifier in _SPECIFIER.finditer(requirement["spec"]):
            major, minor = int(specifier["major"]), int(specifier["minor"] or 0)
            if specifier["op"] in ("==", "~=", "=", "<=") and major < 2:
                return True
            if specifier["op"] == "<" and (major, minor) <= (2, 0):
                return True
    return False


@lru_cache(maxsize=32)
def _trainers_on_default_device(root: str, stamp: str, directory: str) -> bool:
    """Whether the sub-project in `directory` (the one its dependency file governs: a repository
    of week-by-week copies holds one per week) builds at least one Lightning `Trainer(...)` and
    none with a device option or arguments that may hold one; once per state of the project
    tree (`stamp`)."""
    built = 0
    inside = directory.rstrip(os.sep) + os.sep
    for file in (item for item in project_files(root) if item.startswith(inside)):
        text = read_module(file).text
        if "Trainer" not in text or "lightning" not in text:
            continue
        if "from_argparse_args" in text or "LightningCLI" in text:
            return False
        tree = _parsed(text)
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, ast.Call) and _names_trainer(node.func):
                built += 1
                if any(isinstance(arg, ast.Starred) for arg in node.args):
                    return False
                if any(keyword.arg is None or keyword.arg in DEVICE_OPTIONS for keyword in node.keywords):
                    return False
    return built > 0


def _names_trainer(func: ast.AST) -> bool:
    """`Trainer(...)`, `pl.Trainer(...)`, `lightning.Trainer(...)`."""
    return (isinstance(func, ast.Name) and func.id == "Trainer") or (isinstance(func, ast.Attribute) and func.attr == "Trainer")


def _parsed(text: str) -> Optional[ast.AST]:
    try:
        return python_tree(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None

