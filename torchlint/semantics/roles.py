"""Code role: whether code is test or benchmark code rather than code a model trains with.

Performance rules skip test code by default: a unit test that builds a tensor on the CPU
and moves it, or loops over a few cases calling `.item()`, runs once in CI and costs no
one a training step. A file is test code by its path (`test_paths.DEFAULT_TEST_PATHS`, replaced by
`test-paths` in the configuration) or because it imports `pytest`; inside any file,
`unittest.TestCase` subclasses and pytest-style test functions are test code too.
"""

from __future__ import annotations

import ast
from typing import Iterable, List, Set

import libcst as cst

from torchlint.files.syntax import python_tree
from torchlint.semantics.heuristics import EVALUATION_SCRIPT_WORDS, ONE_OFF_SCRIPT_WORDS, PROFILING_WORDS, has_word
from torchlint.semantics.names import NameResolver

TEST_CASE_BASES = frozenset({"unittest.TestCase", "unittest.case.TestCase", "unittest.IsolatedAsyncioTestCase"})
TEST_FRAMEWORKS = ("pytest", "unittest")


def trains_with_a_test_name(text: str) -> bool:
    """Whether a file that is test code only by its file name (`mnist_test.py`, outside any test
    directory) is a training program instead: one of its loops runs `backward()` and an `.step()`
    (an optimizer's) in its body, and it imports no test framework and defines no test function
    or test class, other than ones the file calls itself (`def test():` run after every epoch of
    the script's own loop: no test suite calls its tests). Read from CPython's tree (the parse
    the syntax check shares): the engine asks before deciding which rules run."""
    try:
        tree = python_tree(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    trains = False
    tests: Set[str] = set()
    called: Set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            if any(module.partition(".")[0] in TEST_FRAMEWORKS for module in modules):
                return False
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name.lower().startswith("test"):
            tests.add(node.name)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            called.add(node.func.id)
        if isinstance(node, (ast.For, ast.While)) and not trains:
            methods = {inner.func.attr for inner in ast.walk(node) if isinstance(inner, ast.Call) and isinstance(inner.func, ast.Attribute)}
            trains = {"backward", "step"} <= methods
    return trains and tests <= called


def imports_test_framework(module: cst.Module) -> bool:
    """Whether the module imports pytest at its top level (a test module)."""
    for statement in module.body:
        if not isinstance(statement, cst.SimpleStatementLine):
            continue
        for item in statement.body:
            if isinstance(item, cst.Import) and any(_root(alias.name) == "pytest" for alias in item.names):
                return True
            if isinstance(item, cst.ImportFrom) and item.module is not None and _root(item.module) == "pytest":
                return True
    return False


def _root(node: cst.BaseExpression) -> str:
    while isinstance(node, cst.Attribute):
        node = node.value
    return node.value if isinstance(node, cst.Name) else ""


def is_test_case(node: cst.ClassDef, names: NameResolver) -> bool:
    """A `unittest.TestCase` subclass, or a pytest class (`class TestModel:`)."""
    if any(names.qualified_name(base.value) in TEST_CASE_BASES for base in node.bases):
        return True
    return node.name.value.startswith("Test") and not node.bases


def is_test_function(node: cst.FunctionDef) -> bool:
    """A pytest-style test outside a test class: `test_*` taking no arguments. A
    `test_epoch(model, loader)` helper of a training script is not one (its file may still
    be test code by its path)."""
    params = node.params
    return node.name.value.startswith("test_") and not params.params and not params.posonly_params


def inside_test_code(ancestors: Iterable[cst.CSTNode], names: NameResolver) -> bool:
    """Whether a node with these ancestors sits in a test class or a test function."""
    for ancestor in ancestors:
        if isinstance(ancestor, cst.ClassDef) and is_test_case(ancestor, names):
            return True
        if isinstance(ancestor, cst.FunctionDef) and is_test_function(ancestor):
            return True
    return False


def is_one_off_script(path: str) -> bool:
    """A conversion or export program (`convert_weights.py`, `export/onnx.py`): it runs once
    per use, so nothing in it is a per-step cost."""
    return any(has_word(name, ONE_OFF_SCRIPT_WORDS) for name in _script_names(path))


def is_evaluation_script(path: str) -> bool:
    """A program named for evaluation (`evaluate.py`, `feature_eval/`): one-off unless its own
    loops train (a linear evaluation that fits a classifier for many epochs is training)."""
    return any(has_word(name, EVALUATION_SCRIPT_WORDS) for name in _script_names(path))


def is_profiling_script(path: str) -> bool:
    """A program that exists to measure (`profile_model.py`, `bench/speed.py`,
    `tools/profiling/run.py`): profiling every step is its purpose."""
    return any(is_profiling_name(name) for name in _script_names(path))


def is_profiling_name(name: str) -> bool:
    """A file, directory or function named for measuring: `profile_step`, `benchmark`, `timing`."""
    return has_word(name, PROFILING_WORDS)


def _script_names(path: str) -> List[str]:
    """The names that say what a program is: its file name without the suffix, and its directory."""
    parts = [part for part in path.replace("\\", "/").split("/") if part not in ("", ".")]
    return [part.rsplit(".", 1)[0] for part in parts[-2:]]
