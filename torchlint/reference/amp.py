"""A mixed-precision training step with gradient scaling, clipping and accumulation."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel

LossFn = Callable[[nn.Module, Any], torch.Tensor]


def autocast_dtype(device_type: str) -> torch.dtype:
    """The autocast dtype for a device: bf16 where supported, else fp16.

    bf16 keeps fp32's exponent range, so it needs no loss scaling; the CPU and CUDA
    devices from Ampere on support it. Older CUDA devices get fp16 (with a GradScaler).
    """
    if device_type == "cpu":
        return torch.bfloat16
    if device_type == "cuda":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
    raise ValueError(f"no default autocast dtype for device type {device_type!r}: pass dtype")


@dataclass(frozen=True)
class StepResult:
    """What one `AmpStep.step` call did.

    `loss` is the micro-batch loss, detached and still on its device (reading it syncs).
    `updated` is True when the call closed an accumulation window and stepped the
    optimizer (with fp16 the GradScaler still skips steps whose gradients overflowed).
    """

    loss: torch.Tensor
    updated: bool


class AmpStep:
    """One optimizer step per `accumulation_steps` calls of `step`, under autocast.

    Per call: forward and loss under `torch.amp.autocast(device_type, dtype)`, backward of
    the loss divided by `accumulation_steps` (scaled by a GradScaler for fp16 only). On the
    last micro-batch of a window: if `max_grad_norm` is given, unscale and clip; then step
    and `zero_grad(set_to_none=True)`. A DistributedDataParallel model runs the other
    micro-batches under `no_sync()`, so gradients are all-reduced once per window.
    Windows run across epochs: micro-batches left over at the end of one open the next.
    `enabled=False` runs the same step in full precision, as a baseline.
    """

    def __init__(
        self,
        model: nn.Module,
        optimizer: torch.optim.Optimizer,
        *,
        device_type: str,
        dtype: torch.dtype | None = None,
        max_grad_norm: float | None = None,
        accumulation_steps: int = 1,
        enabled: bool = True,
    ) -> None:
        if accumulation_steps < 1:
            raise ValueError("accumulation_steps must be at least 1")
        self.model = model
        self.optimizer = optimizer
        self.device_type = device_type
        self.dtype = dtype if dtype is not None else autocast_dtype(device_type)
        self.max_grad_norm = max_grad_norm
        self.accumulation_steps = accumulation_steps
        self.enabled = enabled
        use_scaler = enabled and self.dtype == torch.float16
        self.scaler = torch.amp.GradScaler(device_type) if use_scaler else None
        self._micro_batch = 0

    def step(self, batch: Any, loss_fn: LossFn) -> StepResult:
        """Forward and backward one micro-batch; `loss_fn(model, batch)` returns the loss."""
        self._micro_batch += 1
        last = self._micro_batch == self.accumulation_steps
        with self._sync_context(last):
            with torch.amp.autocast(self.device_type, dtype=self.dtype, enabled=self.enabled):
                loss = loss_fn(self.model, batch)
            scaled = loss / self.accumulation_steps
            (self.scaler.scale(scaled) if self.scaler is not None else scaled).backward()
        if last:
            self._apply()
            self._micro_batch = 0
        return StepResult(loss.detach(), last)

    def _sync_context(self, last: bool) -> AbstractContextManager[Any]:
        if not last and isinstance(self.model, DistributedDataParallel):
            return self.model.no_sync()
        return contextlib.nullcontext()

    def _apply(self) -> None:
        if self.max_grad_norm is not None:
            if self.scaler is not None:
                self.scaler.unscale_(self.optimizer)  # clip the true gradients, not the scaled ones
            nn.utils.clip_grad_norm_(self.model.parameters(), self.max_grad_norm)
        if self.scaler is not None:
            self.scaler.step(self.optimizer)
            self.scaler.update()
        else:
            self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
