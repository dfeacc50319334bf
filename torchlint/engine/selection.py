"""Rule selection by code, code prefix (`TL1`), rule name (`sync-in-loop`) or `ALL`."""

from __future__ import annotations

from typing import FrozenSet, Iterable, List, Sequence, Type

from torchlint.engine.rule import SEVERITIES, Rule


class SelectionError(ValueError):
    """A selector that matches no rule."""


def expand(selectors: Iterable[str], rules: Sequence[Type[Rule]]) -> FrozenSet[str]:
    """The codes the selectors name; raise SelectionError for one that names nothing."""
    codes = set()
    for selector in selectors:
        key = selector.strip()
        matched = {
            rule.code
            for rule in rules
            if key.upper() == "ALL" or rule.code.startswith(key.upper()) or rule.name == key.lower()
        }
        if not key or not matched:
            raise SelectionError(f"unknown rule selector {selector!r} (expected a code such as TL101, a prefix such as TL1, or a rule name)")
        codes |= matched
    return frozenset(codes)


def enabled_codes(
    rules: Sequence[Type[Rule]],
    select: Sequence[str],
    extend_select: Sequence[str],
    ignore: Sequence[str],
    min_severity: str = SEVERITIES[0],
    preview: bool = False,
) -> FrozenSet[str]:
    """(select ∪ extend-select) − ignore, keeping rules of at least `min_severity`, and
    preview rules only in preview mode. An empty selection is an error, not a silent no-op."""
    if not select:
        raise SelectionError("the rule selection is empty (select = [] or --select '')")
    chosen = (expand(select, rules) | expand(extend_select, rules)) - expand(ignore, rules)
    floor = SEVERITIES.index(min_severity)
    return frozenset(
        rule.code
        for rule in rules
        if rule.code in chosen and SEVERITIES.index(rule.severity) >= floor and (preview or not rule.preview)
    )


def preview_warnings(selectors: Iterable[str], rules: Sequence[Type[Rule]], preview: bool) -> List[str]:
    """One line for each preview rule named exactly (by code or name) while preview is off."""
    if preview:
        return []
    named = {selector.strip().upper() for selector in selectors} | {selector.strip().lower() for selector in selectors}
    return [
        f"warning: {rule.code} ({rule.name}) is a preview rule and does not run without --preview (or `preview = true`)"
        for rule in rules
        if rule.preview and (rule.code in named or rule.name in named)
    ]
