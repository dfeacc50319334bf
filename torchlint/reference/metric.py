"""Running sums and means that stay on the device until read (the TL101 remedy).

`total += loss.item()` in a training loop waits for the device at every step. These
accumulators add on the device instead, queued behind the step like any other kernel,
and synchronise once, when `compute()` (or `item()`) is called.

Each update reduces its value in the value's own dtype (as `value.sum().item()` would)
and adds the result to a float64 running total (as a Python float would), so the result
equals the eager `.item()` accumulation exactly. Pass `dtype=torch.float32` on devices
without float64 support (MPS).
"""

from __future__ import annotations

import torch

Weight = torch.Tensor | float | int


class RunningSum:
    """The sum of every element passed to `update`, and how many there were."""

    def __init__(self, dtype: torch.dtype = torch.float64) -> None:
        self.dtype = dtype
        self._total: torch.Tensor | None = None
        self._count: torch.Tensor | None = None

    def update(self, value: torch.Tensor, weight: Weight | None = None) -> None:
        """Add the elements of `value` (a 0-d or batched tensor) without syncing.

        `weight` (a number or a tensor broadcastable to `value`) multiplies each element
        and counts as that many elements: `update(batch_mean, weight=batch_size)`.
        """
        value = value.detach()
        if weight is None:
            total, count = value.sum(), value.numel()
        elif isinstance(weight, torch.Tensor):
            weights = torch.broadcast_to(weight.detach(), value.shape)
            total, count = (value * weights).sum(), weights.sum()
        else:
            total, count = (value * weight).sum(), weight * value.numel()
        if self._total is None or self._count is None:
            self._total = torch.zeros((), dtype=self.dtype, device=value.device)
            self._count = torch.zeros((), dtype=self.dtype, device=value.device)
        self._total.add_(total.to(self.dtype))
        self._count.add_(count)

    def compute(self) -> float:
        """The sum so far, as a Python float (one host-device sync; 0.0 before any update)."""
        return 0.0 if self._total is None else self._total.item()

    def item(self) -> float:
        """Same as `compute()`."""
        return self.compute()

    @property
    def count(self) -> float:
        """How many elements (or how much weight) were added (one sync)."""
        return 0.0 if self._count is None else self._count.item()

    def reset(self) -> None:
        """Forget every update."""
        self._total = None
        self._count = None


class RunningMean(RunningSum):
    """The (weighted) mean of every element passed to `update`."""

    def compute(self) -> float:
        """The mean so far, as a Python float (one sync; NaN before any update)."""
        if self._total is None or self._count is None:
            return float("nan")
        return (self._total / self._count).item()
