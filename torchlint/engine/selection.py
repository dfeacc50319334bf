"""Rule selection by code, code prefix (`TL1`), rule name (`sync-in-loop`), `ALL` or `ADVICE`.

Selections come in layers (each configuration file of an `extend` chain, then the command
line), applied in order as ruff does: a layer with `select` starts over, one without it
adjusts the rules chosen so far. Within a layer a more specific selector wins (a code or a
name over a prefix, a longer prefix over a shorter one, any of them over `ALL`); between
equally specific ones, `ignore` wins over `select` and `extend-select`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, FrozenSet, Iterable, List, Optional, Protocol, Sequence, Set, Tuple

from torchlint.engine.rule import IMPACTS, SEVERITIES


# The selector of the advice rules (severity `info`): once-per-program settings whose gain
# depends on the model. The default selection leaves them out; `extend-select = ["ADVICE"]`
# (or a code) opts in, and `select = ["ALL"]` includes them.
ADVICE = "ADVICE"


class RuleLike(Protocol):
    code: str
    name: str
    severity: str
    impact: str
    preview: bool


class SelectionError(ValueError):
    """A selector that matches no rule."""


@dataclass(frozen=True)
class Layer:
    """One source's rule selection: `select` (None when not given), additions and removals.
    `origin` names the file (and table) for error messages; "" for the command line."""

    origin: str
    select: Optional[Tuple[str, ...]] = None
    extend_select: Tuple[str, ...] = ()
    ignore: Tuple[str, ...] = ()


def expand(selectors: Iterable[str], rules: Sequence[RuleLike]) -> FrozenSet[str]:
    """The codes the selectors name; raise SelectionError for one that names nothing."""
    codes: Set[str] = set()
    for selector in selectors:
        key = selector.strip()
        matched = {
            rule.code
            for rule in rules
            if key.upper() == "ALL"
            or (key.upper() == ADVICE and rule.severity == "info")
            or rule.code.startswith(key.upper())
            or rule.name == key.lower()
        }
        if not key or not matched:
            raise SelectionError(
                f"unknown rule selector {selector!r} (expected a code such as TL101, a prefix such as TL1, a rule name, ALL or ADVICE)"
            )
        codes |= matched
    return frozenset(codes)


def specificity(selector: str, rules: Sequence[RuleLike]) -> int:
    """0 for `ALL` and `ADVICE`, the prefix length for a code or prefix, above any prefix for a
    rule name."""
    key = selector.strip()
    if key.upper() in ("ALL", ADVICE):
        return 0
    if any(rule.name == key.lower() for rule in rules):
        return 1000
    return len(key)


def resolve(layers: Sequence[Layer], rules: Sequence[RuleLike], keys: Tuple[str, str, str] = ("select", "extend-select", "ignore")) -> FrozenSet[str]:
    """The codes the layers choose. `keys` name the three lists in error messages."""
    chosen: Set[str] = set()
    for layer in layers:
        if layer.select is not None and not layer.select:
            raise SelectionError(f"{_where(layer, keys[0])}: the rule selection is empty (select = [] or --select '')")
        groups = [(keys[0], layer.select or (), True), (keys[1], layer.extend_select, True), (keys[2], layer.ignore, False)]
        updates: Dict[str, bool] = {}
        ranked = sorted(
            ((specificity(selector, rules), not enable, key, selector) for key, selectors, enable in groups for selector in selectors),
            key=lambda item: (item[0], item[1]),
        )
        for _, disable, key, selector in ranked:
            try:
                codes = expand([selector], rules)
            except SelectionError as error:
                raise SelectionError(f"{_where(layer, key)}: {error}") from None
            updates.update(dict.fromkeys(codes, not disable))
        if layer.select is not None:
            chosen = set()
        chosen |= {code for code, on in updates.items() if on}
        chosen -= {code for code, on in updates.items() if not on}
    return frozenset(chosen)


def _where(layer: Layer, key: str) -> str:
    return f"{layer.origin} {key}" if layer.origin else f"--{key}"


def at_least(codes: FrozenSet[str], rules: Sequence[RuleLike], min_severity: str, min_impact: str = IMPACTS[0]) -> FrozenSet[str]:
    """The codes of rules with at least `min_severity` and at least `min_impact`."""
    return frozenset(
        rule.code
        for rule in rules
        if rule.code in codes
        and SEVERITIES.index(rule.severity) >= SEVERITIES.index(min_severity)
        and IMPACTS.index(rule.impact) >= IMPACTS.index(min_impact)
    )


def stable(codes: FrozenSet[str], rules: Sequence[RuleLike], preview: bool) -> FrozenSet[str]:
    """`codes` without the preview rules unless preview mode is on."""
    return codes if preview else codes - {rule.code for rule in rules if rule.preview}


def preview_warnings(layers: Sequence[Layer], rules: Sequence[RuleLike], preview: bool) -> List[str]:
    """One line for each preview rule selected exactly (by code or name) while preview is off."""
    if preview:
        return []
    selectors = [selector for layer in layers for selector in (*(layer.select or ()), *layer.extend_select)]
    named = {selector.strip().upper() for selector in selectors} | {selector.strip().lower() for selector in selectors}
    return [
        f"warning: {rule.code} ({rule.name}) is a preview rule and does not run without --preview (or `preview = true`)"
        for rule in rules
        if rule.preview and (rule.code in named or rule.name in named)
    ]
