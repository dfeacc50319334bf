"""Values a class keeps on its instances for its training loop: `self.train_loader =
self.get_train_loader(config)` in a base trainer's `__init__`, whose subclass overrides the
builder and loops over `self.train_loader` in `_train_epoch`, which the base's `train()` calls
every epoch. The call's result is then passed over again every epoch, though no function is
ever handed it (`project.hands_result_to_training` follows only arguments)."""

from __future__ import annotations

import ast
import os
from functools import lru_cache
from typing import FrozenSet, Iterator, List, Optional, Set, Tuple

from torchlint.files.syntax import python_tree
from torchlint.semantics.project import WHOLE_RETURN, CallSite, project_files, project_root, read_code

# The passes over a loader that iterate it as it is (`tqdm(self.loader)`, `enumerate(...)`).
WRAPPERS = frozenset({"tqdm", "enumerate", "iter", "zip", "trange"})


def stores_result_for_training(site: CallSite, slot: int = WHOLE_RETURN) -> bool:
    """Whether the call at `site` stores its result (at index `slot` of a tuple target, or
    whole) on the instance (`self.train_loader = self.get_train_loader(config)`), and a method
    of that class or of a project subclass of it loops over the attribute, in a loop of the
    class or its subclasses that also runs a training pass (`for epoch in ...:
    self._train_epoch(epoch); self._val_epoch(epoch)`, where `_train_epoch` loops over batches
    running a backward pass): each epoch passes over the stored value again."""
    tree = _tree(read_code(site.path).text)
    if tree is None:
        return False
    found = _stored_at(tree, site.line, slot)
    if found is None:
        return False
    klass, attribute = found
    methods = [method for family in _family(site.path, klass, attribute) for method in _methods(family)]
    passes = {method.name for method in methods if _loops_over(method, attribute, backward=False)}
    training = {method.name for method in methods if _loops_over(method, None, backward=True)}
    return bool(passes and training) and any(_called_together(method, passes, training) for method in methods)


def _stored_at(tree: ast.Module, line: int, slot: int) -> Optional[Tuple[str, str]]:
    """(class, attribute) where a method of a module-level class assigns the call on `line`
    to `self.<attribute>` (or the element at `slot` of a tuple target)."""
    for klass in tree.body:
        if not (isinstance(klass, ast.ClassDef) and klass.lineno <= line <= (klass.end_lineno or klass.lineno)):
            continue
        for node in ast.walk(klass):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and node.value.lineno == line and len(node.targets) == 1:
                target = node.targets[0]
                if isinstance(target, ast.Tuple) and 0 <= slot < len(target.elts):
                    target = target.elts[slot]
                elif slot != WHOLE_RETURN:
                    return None
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                    return klass.name, target.attr
        return None
    return None


def _family(path: str, klass: str, attribute: str) -> Iterator[ast.ClassDef]:
    """The class `klass` of the module at `path` and the project's direct subclasses of it (bases
    matched by name) in modules that read `self.<attribute>`."""
    needle = f"self.{attribute}"
    here = os.path.abspath(path)
    for file in project_files(project_root(here)):
        text = read_code(file).text
        if os.path.abspath(file) != here and needle not in text:
            continue
        tree = _tree(text)
        for node in tree.body if tree is not None else ():
            if isinstance(node, ast.ClassDef) and (
                (node.name == klass and os.path.abspath(file) == here) or klass in _base_names(node)
            ):
                yield node


def _base_names(node: ast.ClassDef) -> Set[str]:
    return {base.attr if isinstance(base, ast.Attribute) else getattr(base, "id", "") for base in node.bases}


def _methods(klass: ast.ClassDef) -> List[ast.FunctionDef]:
    return [item for item in klass.body if isinstance(item, ast.FunctionDef)]


def _loops_over(method: ast.FunctionDef, attribute: Optional[str], backward: bool) -> bool:
    """Whether a `for` loop of `method` iterates `self.<attribute>` (as it is or through a
    wrapper, also one bound to a name first: `pbar = tqdm(self.train_loader)`; any iterable
    for None), running a backward pass in its body where `backward` asks for one."""
    wrapped = frozenset(
        target.id
        for node in ast.walk(method) if attribute is not None and isinstance(node, ast.Assign) and _iterates(node.value, attribute, frozenset())
        for target in node.targets if isinstance(target, ast.Name)
    )
    return any(
        isinstance(node, ast.For) and (attribute is None or _iterates(node.iter, attribute, wrapped)) and (not backward or _runs_backward(node))
        for node in ast.walk(method)
    )


def _iterates(value: ast.AST, attribute: str, names: FrozenSet[str]) -> bool:
    """`self.<attribute>`, a name in `names`, or a wrapper call whose first argument is one."""
    if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == "self":
        return value.attr == attribute
    if isinstance(value, ast.Name):
        return value.id in names
    if isinstance(value, ast.Call) and value.args:
        func = value.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        return name in WRAPPERS and _iterates(value.args[0], attribute, names)
    return False


def _runs_backward(loop: ast.For) -> bool:
    return any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "backward"
        for statement in loop.body for node in ast.walk(statement)
    )


def _called_together(method: ast.FunctionDef, passes: Set[str], training: Set[str]) -> bool:
    """Whether a loop of `method` calls `self.<p>(...)` for one of `passes` and `self.<t>(...)`
    for one of `training` (the same method or two)."""
    for loop in ast.walk(method):
        if isinstance(loop, (ast.For, ast.While)):
            called = {
                node.func.attr for statement in loop.body for node in ast.walk(statement)
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and isinstance(node.func.value, ast.Name) and node.func.value.id == "self"
            }
            if called & passes and called & training:
                return True
    return False


@lru_cache(maxsize=256)
def _tree(text: str) -> Optional[ast.Module]:
    try:
        return python_tree(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None

