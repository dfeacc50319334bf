"""A DataLoader factory with worker, pinning and prefetch settings chosen for the machine.

Choices, each overridable by passing the DataLoader argument explicitly:

- `num_workers`: one worker per CPU core this process may run on (`os.sched_getaffinity`,
  which honours container and `taskset` limits, unlike `os.cpu_count`), divided among the
  processes sharing the node and capped at `MAX_WORKERS`: more workers rarely help and
  each holds a copy of the dataset. With a single core, workers would only add
  inter-process overhead, so the main process loads (0 workers).
- `pin_memory`: only when batches go to a CUDA device; page-locked buffers make the
  host-to-device copy faster and allow `non_blocking=True` copies to overlap compute.
- `persistent_workers`: with workers, keep them alive between epochs instead of forking
  and re-initialising them at every epoch start.
- `prefetch_factor`: with workers, `PREFETCH_FACTOR` batches queued per worker (the
  default is 2) to absorb uneven per-item CPU work; it costs that many batches of memory.
"""

from __future__ import annotations

import os
from typing import Any

import torch
from torch.utils.data import DataLoader, Dataset

from torchlint.reference.devices import default_device

MAX_WORKERS = 8
PREFETCH_FACTOR = 4


def available_cores() -> int:
    """CPU cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def default_num_workers(processes_per_node: int = 1) -> int:
    """Loader workers for one of `processes_per_node` training processes on this machine."""
    cores = available_cores() // max(1, processes_per_node)
    return min(MAX_WORKERS, cores) if cores > 1 else 0


def loader_settings(
    device: torch.device | str | None = None, processes_per_node: int = 1, **overrides: Any
) -> dict[str, Any]:
    """The DataLoader keyword arguments `make_loader` uses, with `overrides` applied last."""
    target = torch.device(device) if device is not None else default_device()
    workers = overrides.get("num_workers", default_num_workers(processes_per_node))
    settings: dict[str, Any] = {"num_workers": workers, "pin_memory": target.type == "cuda"}
    if workers > 0:
        settings.update(persistent_workers=True, prefetch_factor=PREFETCH_FACTOR)
    settings.update(overrides)
    return settings


def make_loader(
    dataset: Dataset[Any],
    batch_size: int,
    *,
    shuffle: bool = False,
    device: torch.device | str | None = None,
    processes_per_node: int = 1,
    **overrides: Any,
) -> DataLoader[Any]:
    """A DataLoader over `dataset` for training on `device` (CUDA when available by default).

    `shuffle` defaults to False as in DataLoader (it must stay False with a `sampler`).
    `processes_per_node` training processes share the cores (see the module docstring).
    Any other DataLoader argument may be given in `overrides` and wins over the defaults.
    """
    settings = loader_settings(device, processes_per_node, **overrides)
    return DataLoader(dataset, batch_size=batch_size, shuffle=shuffle, **settings)
