"""Workload shapes for each `--size`, read by the fixture programs from TORCHLINT_SIZE.

`tiny` only proves equivalence (every pair in seconds on a CPU); `small` and `large` are the shapes
of real training steps: a ResNet-style conv net at batch 64 and 256, a transformer block at sequence
512 and 2048, and a loader whose items cost CPU time to decode and augment. This module does not
import torch, so verify can report the shapes it ran.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Dict, Tuple

SIZE_VARIABLE = "TORCHLINT_SIZE"
DEFAULT_SIZE = "small"


@dataclass(frozen=True)
class Workload:
    """The shapes of one size: every fixture program takes its dimensions from here."""

    batch: int  # images per conv-net step, items per loader batch
    image: int  # side of the square input image
    widths: Tuple[int, ...]  # channels of the ResNet stages (one residual block per stage and depth)
    depth: int  # residual blocks per stage
    sequences: int  # sequences per transformer step
    sequence: int  # tokens per sequence
    model_dim: int  # transformer width
    heads: int  # attention heads
    features: int  # input width of the small multi-layer perceptrons
    hidden: int  # hidden width of those perceptrons
    rows: int  # rows per step of the mixed-precision MLP: enough to make its matmuls compute-bound
    decoded: int  # side of a loader item after decoding, before the random crop

    def describe(self) -> str:
        """One line naming the shapes, for reports."""
        return (
            f"conv net batch {self.batch} at {self.image}x{self.image}, widths {'/'.join(map(str, self.widths))}; "
            f"transformer {self.sequences}x{self.sequence} tokens, width {self.model_dim}; "
            f"MLP {self.features}->{self.hidden} (mixed precision: {self.rows} rows); loader items decoded at {self.decoded}x{self.decoded}"
        )


WORKLOADS: Dict[str, Workload] = {
    "tiny": Workload(
        batch=8, image=16, widths=(8, 16), depth=1, sequences=2, sequence=16, model_dim=32, heads=2,
        features=32, hidden=64, rows=8, decoded=20,
    ),
    "small": Workload(
        batch=64, image=32, widths=(16, 32, 64), depth=1, sequences=4, sequence=512, model_dim=256, heads=4,
        features=512, hidden=1024, rows=1024, decoded=40,
    ),
    "large": Workload(
        batch=256, image=64, widths=(64, 128, 256, 512), depth=2, sequences=8, sequence=2048, model_dim=1024,
        heads=16, features=2048, hidden=8192, rows=8192, decoded=72,
    ),
}
SIZES = tuple(WORKLOADS)


def current_size() -> str:
    """The size named by TORCHLINT_SIZE (`small` when unset)."""
    size = os.environ.get(SIZE_VARIABLE, DEFAULT_SIZE)
    if size not in WORKLOADS:
        raise ValueError(f"{SIZE_VARIABLE}={size!r}; choose one of {', '.join(SIZES)}")
    return size


def workload() -> Workload:
    """The shapes for the size the program runs with."""
    return WORKLOADS[current_size()]
