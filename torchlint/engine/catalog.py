"""Rule metadata without the rules: what selection, cached runs and reports need.

Importing the rules imports LibCST, which costs more than a fully cached run does in total.
The metadata is therefore stored in the result cache beside the results (see `cache.py`)
and taken from the rule classes only when no cache holds it for this build of torchlint.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple


@dataclass(frozen=True)
class RuleInfo:
    """A rule's code, name, severity, fix applicability, one-line summary, tier and impact."""

    code: str
    name: str
    severity: str
    fix_applicability: str
    summary: str
    # When a rule whose fix is safe by default offers an unsafe one instead ("" if never).
    unsafe_when: str = ""
    # A preview rule runs only with `--preview` (or `preview = true`).
    preview: bool = False
    # What a finding costs: "low", "medium" or "high" (`rule.IMPACTS`).
    impact: str = "medium"
    # A stable rule's findings of a kind measured below the bar, reported only in preview mode.
    preview_variant: str = ""


Catalog = Tuple[RuleInfo, ...]


def from_rules() -> Catalog:
    """The metadata of every registered rule (imports the rules)."""
    from torchlint.engine.rule import all_rules

    return infos(all_rules())


def infos(rules: Sequence[Any]) -> Catalog:
    """The metadata of the given rule classes."""
    return tuple(
        RuleInfo(r.code, r.name, r.severity, r.fix_applicability.value, r.summary, r.unsafe_when, r.preview, r.impact, r.preview_variant)
        for r in rules
    )


def to_json(catalog: Sequence[RuleInfo]) -> List[Dict[str, Any]]:
    return [asdict(info) for info in catalog]


def from_json(items: object) -> Optional[Catalog]:
    """A catalog read back from JSON; None when it is damaged."""
    try:
        return tuple(RuleInfo(**item) for item in items)  # type: ignore[union-attr, arg-type]
    except TypeError:
        return None
