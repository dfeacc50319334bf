"""The lint options that change what rules report (kept free of LibCST so that start-up is cheap)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple

# The PyTorch release the code is assumed to target when no `torch-version` is configured.
DEFAULT_TORCH_VERSION = (2, 13)


@dataclass(frozen=True)
class Options:
    """Settings that change what rules report."""

    torch_version: Tuple[int, int] = DEFAULT_TORCH_VERSION
    # Rules whose fixes are dropped (`unfixable`): their findings are reported without a fix.
    # Sorted, so that the repr (part of the cache key) is the same in every process.
    unfixable: Tuple[str, ...] = ()
