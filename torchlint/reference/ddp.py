"""DistributedDataParallel setup for processes started by `torchrun`.

Pattern::

    with distributed() as ctx:
        model = wrap_model(build_model(), ctx)
        loader = distributed_loader(dataset, batch_size, ctx, drop_last=True)
        for epoch in range(epochs):
            set_epoch(loader, epoch)  # a different shuffle each epoch, the same on every rank
            for batch in loader:
                ...

Run it with `torchrun --nproc-per-node=N train.py`, or plainly as one process.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, Dataset, DistributedSampler

from torchlint.reference.loader import make_loader


@dataclass(frozen=True)
class DistContext:
    """This process's place in the job and the device it owns."""

    rank: int
    local_rank: int
    world_size: int
    local_world_size: int
    device: torch.device

    @property
    def is_main(self) -> bool:
        """Whether this is rank 0, the process that logs and saves checkpoints."""
        return self.rank == 0


def _env_int(name: str, default: int) -> int:
    return int(os.environ.get(name, default))


def setup_distributed() -> DistContext:
    """Join the process group described by torchrun's environment variables.

    Without them (a plain `python train.py`) this is rank 0 of a one-process group on
    127.0.0.1:29500. Each process takes the CUDA device of its local rank and uses NCCL;
    without CUDA it uses the CPU and Gloo.
    """
    rank = _env_int("RANK", 0)
    local_rank = _env_int("LOCAL_RANK", 0)
    world_size = _env_int("WORLD_SIZE", 1)
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29500")
    if torch.cuda.is_available():
        torch.cuda.set_device(local_rank)  # before any CUDA work, so nothing lands on device 0
        device, backend = torch.device("cuda", local_rank), "nccl"
    else:
        device, backend = torch.device("cpu"), "gloo"
    if not dist.is_initialized():
        dist.init_process_group(backend, rank=rank, world_size=world_size)
    return DistContext(rank, local_rank, world_size, _env_int("LOCAL_WORLD_SIZE", world_size), device)


def teardown() -> None:
    """Leave and destroy the process group, if one was set up."""
    if dist.is_initialized():
        dist.destroy_process_group()


@contextlib.contextmanager
def distributed() -> Iterator[DistContext]:
    """`setup_distributed()` on entry and `teardown()` on exit, also on errors."""
    try:
        yield setup_distributed()
    finally:
        teardown()


def wrap_model(model: nn.Module, ctx: DistContext) -> DistributedDataParallel:
    """Move `model` to this process's device and wrap it for gradient all-reduce."""
    model = model.to(ctx.device)
    if ctx.device.type == "cuda":
        return DistributedDataParallel(model, device_ids=[ctx.local_rank], output_device=ctx.local_rank)
    return DistributedDataParallel(model)


def distributed_loader(
    dataset: Dataset[Any],
    batch_size: int,
    ctx: DistContext,
    *,
    shuffle: bool = True,
    seed: int = 0,
    drop_last: bool = False,
    **overrides: Any,
) -> DataLoader[Any]:
    """A `make_loader` loader reading this rank's shard of `dataset` through a DistributedSampler.

    `batch_size` is per process. `shuffle`, `seed` and `drop_last` go to the sampler (with
    `drop_last=False` it pads the shards to equal length by repeating samples); other
    DataLoader arguments in `overrides` win over the loader defaults. Call
    `set_epoch(loader, epoch)` at the start of every epoch.
    """
    sampler = DistributedSampler(
        dataset, num_replicas=ctx.world_size, rank=ctx.rank, shuffle=shuffle, seed=seed, drop_last=drop_last
    )
    return make_loader(
        dataset, batch_size, device=ctx.device, processes_per_node=ctx.local_world_size, sampler=sampler, **overrides
    )


def set_epoch(loader: DataLoader[Any], epoch: int) -> None:
    """Reseed the loader's DistributedSampler so each epoch shuffles differently."""
    if isinstance(loader.sampler, DistributedSampler):
        loader.sampler.set_epoch(epoch)
