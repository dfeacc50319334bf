"""Overlap host-to-device copies with compute by prefetching the next batch on a side stream."""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import torch

from torchlint.reference.devices import default_device

Batch = Any


def map_tensors(batch: Batch, fn: Callable[[torch.Tensor], torch.Tensor]) -> Batch:
    """Apply `fn` to every tensor nested in tuples, named tuples, lists and dicts.

    Containers are rebuilt with their own type; any other object (a dataclass, a string,
    a number) is returned as it is.
    """
    if isinstance(batch, torch.Tensor):
        return fn(batch)
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(map_tensors(item, fn) for item in batch))
    if isinstance(batch, (tuple, list)):
        return type(batch)(map_tensors(item, fn) for item in batch)
    if isinstance(batch, dict):
        mapped = copy.copy(batch)  # keeps OrderedDict, defaultdict and other dict subclasses
        for key, value in batch.items():
            mapped[key] = map_tensors(value, fn)
        return mapped
    return batch


def _resolve_device(device: torch.device | str | int | None) -> torch.device:
    resolved = default_device() if device is None else torch.device(device)
    if resolved.type == "cuda" and resolved.index is None:
        resolved = torch.device("cuda", torch.cuda.current_device())
    return resolved


class CUDAPrefetcher:
    """Iterate over `iterable`, copying each batch to a CUDA device one step ahead.

    While the caller computes on batch *i*, batch *i + 1* is pinned on the host and copied
    with `non_blocking=True` on a side stream. Before batch *i* is handed out, the current
    stream waits for the side stream and every device tensor records the current stream,
    so the caching allocator does not reuse its memory while kernels still read it.
    Batches already pinned (a loader from `make_loader`, or `pin_memory=True`) are copied
    as they are; others are pinned here first, on the training thread.

    `device` defaults to the current CUDA device when CUDA is available. For a non-CUDA
    device (a CPU-only machine) batches are passed through unchanged and in order.
    Each `iter()` starts a fresh iterator over `iterable`, so one prefetcher serves every
    epoch; `len()` is that of `iterable`.
    """

    def __init__(self, iterable: Iterable[Batch], device: torch.device | str | int | None = None) -> None:
        self.iterable = iterable
        self.device = _resolve_device(device)

    def __len__(self) -> int:
        return len(self.iterable)  # type: ignore[arg-type]

    def __iter__(self) -> Iterator[Batch]:
        if self.device.type != "cuda":
            return iter(self.iterable)
        return self._prefetch(iter(self.iterable), torch.cuda.Stream(self.device))

    def _prefetch(self, batches: Iterator[Batch], stream: torch.cuda.Stream) -> Iterator[Batch]:
        try:
            pending = self._copy(next(batches), stream)
        except StopIteration:
            return
        for batch in batches:
            # Wait for the side stream before queueing the next copy on it, so the
            # caller's kernels wait for this batch only, not for the one behind it.
            ready = self._hand_over(pending, stream)
            pending = self._copy(batch, stream)
            yield ready
        yield self._hand_over(pending, stream)

    def _copy(self, batch: Batch, stream: torch.cuda.Stream) -> Batch:
        with torch.cuda.stream(stream):
            return map_tensors(batch, self._to_device)

    def _to_device(self, tensor: torch.Tensor) -> torch.Tensor:
        if tensor.device.type == "cpu" and not tensor.is_pinned():
            tensor = tensor.pin_memory()
        return tensor.to(self.device, non_blocking=True)

    def _hand_over(self, batch: Batch, stream: torch.cuda.Stream) -> Batch:
        current = torch.cuda.current_stream(self.device)
        current.wait_stream(stream)
        return map_tensors(batch, lambda tensor: _record(tensor, current))


def _record(tensor: torch.Tensor, stream: torch.cuda.Stream) -> torch.Tensor:
    if tensor.device.type == "cuda":
        tensor.record_stream(stream)
    return tensor
