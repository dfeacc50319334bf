"""What rules hand to the engine: findings and fixes expressed on syntax tree nodes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, Protocol, Tuple, Union

from torchlint.engine.findings import Applicability

if TYPE_CHECKING:
    import libcst as cst


class RuleInfo(Protocol):
    """What the engine reads of the rule behind a report."""

    code: str
    name: str
    requires_torch: bool

    def doc_url(self) -> str: ...


@dataclass(frozen=True)
class NodeEdit:
    """An edit expressed on the tree: replace `node`, insert text just before or after it, or
    (`delete_lines`) delete the whole lines a statement occupies."""

    node: cst.CSTNode
    content: Union[str, cst.CSTNode]
    insert_before: bool = False
    insert_after: bool = False
    delete_lines: bool = False


@dataclass(frozen=True)
class PendingFix:
    """A fix as a rule proposes it; the engine turns it into positioned text edits."""

    applicability: Applicability
    edits: Tuple[NodeEdit, ...]
    message: str


@dataclass(frozen=True)
class Report:
    """A finding before positions are known."""

    rule: RuleInfo
    node: cst.CSTNode
    message: str
    fix: Optional[PendingFix]
    start: Optional[cst.CSTNode] = None
