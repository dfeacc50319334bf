"""The one test of an epoch loop's names, shared by the LibCST analysis of a file
(`heuristics.names_epoch`) and the `ast` index of the project (kept free of LibCST: the
project index is read on cached runs, which import no parser)."""

from __future__ import annotations

from typing import Iterable


def mentions_epoch(identifiers: Iterable[str]) -> bool:
    """Whether one of `identifiers` (`epoch`, `args.epochs`, `n_epoch`) mentions an epoch."""
    return any("epoch" in name.lower() for name in identifiers)
