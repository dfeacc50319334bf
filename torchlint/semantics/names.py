"""Import and alias resolution: map local names to fully qualified names such as `torch.nn.Conv2d`."""

from __future__ import annotations

import sys

from dataclasses import dataclass, field
from typing import Callable, Dict, FrozenSet, List, Optional, Set, Tuple, Union

import libcst as cst

from torchlint.semantics.framework_names import TORCH_PACKAGES
from torchlint.semantics.kinds import Kind

# The value bound to a name that shadows an import (a local assignment, a parameter, ...).
LOCAL = ""


def dotted_name(node: cst.BaseExpression) -> Optional[str]:
    """`a.b.c` as a string for a Name/Attribute chain, else None."""
    parts: List[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


# A function's parameter: the function and the parameter's name.
Parameter = Tuple[cst.CSTNode, str]


@dataclass
class Scope:
    """A module, class or function scope with the names bound in it so far."""

    node: cst.CSTNode
    is_class: bool = False
    bindings: Dict[str, str] = field(default_factory=dict)
    values: Dict[str, Kind] = field(default_factory=dict)
    # A function's parameters of unknown kind that nothing walked so far has bound again: what
    # the callers pass decides their kind (`semantics.argument_kinds`).
    open_parameters: Set[str] = field(default_factory=set)
    # Names of unknown kind bound to a value that is a tensor if one of these parameters is
    # (`actual = scores[i].argmax()` with `scores` open).
    derived: Dict[str, FrozenSet["Parameter"]] = field(default_factory=dict)


class NameResolver:
    """Tracks imports per scope during the single traversal and resolves expressions.

    Names are resolved in source order: a name bound by an import resolves to the imported
    qualified name until a later plain assignment in the same scope shadows it. Class scopes
    are skipped when resolving from inside a method, as Python does.
    """

    def __init__(
        self, star_bindings: Callable[[], Dict[str, str]] = dict, reexported: Callable[[str, str], Optional[str]] = lambda module, name: None
    ) -> None:
        self.scopes: List[Scope] = []
        # What the names a star import of a project module brings stand for, asked only when
        # a name is bound nowhere else (`project.star_bindings`).
        self._star_bindings = star_bindings
        # What a name imported from a project module stands for when that module imports it
        # from torch (`project.torch_reexport`): `data.dataset.DataLoader` is torch's.
        self._reexported = reexported
        self._star_bound: Optional[Dict[str, str]] = None
        self.star_modules: List[str] = []
        self.imports_torch = False

    def push(self, node: cst.CSTNode, is_class: bool = False) -> None:
        self.scopes.append(Scope(node, is_class))

    def pop(self) -> None:
        self.scopes.pop()

    def bind_import(self, node: Union[cst.Import, cst.ImportFrom]) -> None:
        """Record the names an import statement binds in the current scope."""
        scope = self.scopes[-1].bindings
        if isinstance(node, cst.Import):
            for alias in node.names:
                module = dotted_name(alias.name) or ""
                self._note_module(module)
                if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                    scope[alias.asname.name.value] = module
                else:
                    top = module.split(".")[0]
                    scope[top] = top
            return
        if node.relative and isinstance(node.names, cst.ImportStar):
            # `from .conv import *`: a package module whose names (torch among them) it brings.
            self.star_modules.append("." * len(node.relative) + ((dotted_name(node.module) or "") if node.module else ""))
            return
        if node.relative or node.module is None:
            return
        module = dotted_name(node.module) or ""
        self._note_module(module)
        if isinstance(node.names, cst.ImportStar):
            self.star_modules.append(module)
            return
        for alias in node.names:
            name = dotted_name(alias.name) or ""
            local = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else name
            own = module.split(".")[0] not in TORCH_PACKAGES and module.split(".")[0] not in sys.stdlib_module_names
            scope[local] = (self._reexported(module, name) if own else None) or f"{module}.{name}"

    def _note_module(self, module: str) -> None:
        """torch, or a training framework built on it whose modules hand torch objects to the
        file (a `LightningDataModule` returning loaders, a `LightningModule`)."""
        if module.split(".")[0] in TORCH_PACKAGES:
            self.imports_torch = True

    def bind_alias(self, name: str, qualified: str) -> None:
        """`name` stands for `qualified` in the current scope (`Tensor = torch.FloatTensor`)."""
        self.scopes[-1].bindings[name] = qualified

    def bind_local(self, name: str) -> None:
        """A non-import binding in the current scope shadows any import of the same name."""
        self.scopes[-1].bindings[name] = LOCAL

    def lookup(self, name: str) -> Optional[str]:
        """The qualified name bound to `name`, LOCAL for a local value, None if unbound here."""
        scope = self._binding_scope(name)
        return scope.bindings[name] if scope is not None else None

    def _binding_scope(self, name: str) -> Optional[Scope]:
        """The innermost visible scope that binds `name` (class scopes only from directly inside)."""
        innermost = len(self.scopes) - 1
        for index in range(innermost, -1, -1):
            scope = self.scopes[index]
            if scope.is_class and index != innermost:
                continue
            if name in scope.bindings:
                return scope
        return None

    def storage_key(self, node: cst.BaseExpression, binding: bool, owner: Optional[cst.CSTNode]) -> Optional[Tuple[int, str]]:
        """Where the value `node` names lives, the same for every mention of it: (scope, name)
        for a plain name (the current scope when the mention binds it, else the scope that
        binds it) and (class, `self.name`) for an attribute of `self` in the class `owner`;
        None for anything else."""
        if isinstance(node, cst.Name):
            scope = self.scopes[-1] if binding else self._binding_scope(node.value)
            return (id(scope.node), node.value) if scope is not None else None
        dotted = dotted_name(node)
        if dotted is not None and dotted.count(".") == 1 and dotted.startswith("self.") and owner is not None:
            return id(owner), dotted
        return None

    def qualified_name(self, node: cst.BaseExpression) -> Optional[str]:
        """Resolve `nn.Conv2d` to `torch.nn.Conv2d` when `nn` is `torch.nn`; None if unknown."""
        dotted = dotted_name(node)
        if dotted is None:
            return None
        head, _, rest = dotted.partition(".")
        target = self.lookup(head)
        if target == LOCAL:
            return None
        if target is None:
            if not self.star_modules or head in _BUILTINS:
                return None
            target = self._star_bound_name(head)
        qualified = f"{target}.{rest}" if rest else target
        for alias, module in _REEXPORTS.items():
            if qualified == alias or qualified.startswith(alias + "."):
                return module + qualified[len(alias):]
        return qualified

    def _star_bound_name(self, head: str) -> str:
        """What `head`, bound only by a star import, stands for: what the star-imported project
        module's imports bind it to (`import torch.nn as nn` there), a torch package itself, or
        else a name the last star-imported module defines."""
        if self._star_bound is None:
            self._star_bound = self._star_bindings()
        found = self._star_bound.get(head)
        if found is not None:
            return found
        return head if head in _PACKAGES else f"{self.star_modules[-1]}.{head}"

    def resolves_to(self, node: cst.BaseExpression, *names: str) -> bool:
        return self.qualified_name(node) in names


# Modules that torch re-exports under another path: `from torch.functional import F` is
# `torch.nn.functional` (torch/functional.py imports it as `F`).
_REEXPORTS = {"torch.functional.F": "torch.nn.functional"}
# Packages a name reached only through a star import stands for (`from utils import *`, where
# utils.py does `import torch`): their own names, not attributes of the star-imported module.
_PACKAGES = frozenset({"torch", "torchvision", "torchaudio"})
_BUILTINS = frozenset(
    "print len range float int bool str list dict set tuple super isinstance getattr setattr "
    "hasattr type object enumerate zip map filter sorted min max sum abs any all open iter next".split()
)
