"""What the semantics read of the file being checked: its parsed module and text, its names,
and how often its nodes run. The engine's `FileContext` provides these; the semantics only
name this interface, so they never import the engine."""

from __future__ import annotations

from typing import Dict, List, Optional, Protocol

import libcst as cst

from torchlint.semantics.execution import Execution
from torchlint.semantics.kinds import Kind
from torchlint.semantics.names import NameResolver


class Structure(Protocol):
    """The file's functions, classes and nesting, indexed once (`frequency.FrequencyAnalysis`)."""

    one_off: bool

    def local_functions(self) -> Dict[str, List[cst.FunctionDef]]: ...

    def classes(self) -> Dict[str, List[cst.ClassDef]]: ...

    def runs_backward(self, node: cst.CSTNode) -> bool: ...

    def enclosing_function(self, node: cst.CSTNode) -> Optional[cst.FunctionDef]: ...

    def enclosing_class(self, node: cst.CSTNode) -> Optional[cst.ClassDef]: ...

    def calls_named(self, name: str) -> List[cst.Call]: ...

    def lightning_elsewhere(self, klass: cst.ClassDef) -> bool: ...

    def trains_nothing(self, klass: cst.ClassDef) -> bool: ...

    def parent(self, node: cst.CSTNode) -> Optional[cst.CSTNode]: ...


class FileFacts(Protocol):
    """One checked file, as the semantics see it."""

    module: cst.Module
    text: str
    path: str
    names: NameResolver

    @property
    def uses_cuda(self) -> bool: ...

    @property
    def frequency(self) -> Structure: ...

    def execution(self, node: cst.CSTNode) -> Execution: ...

    def qualified_name(self, node: cst.BaseExpression) -> Optional[str]: ...

    def kind_of(self, node: cst.BaseExpression) -> Optional[Kind]: ...
