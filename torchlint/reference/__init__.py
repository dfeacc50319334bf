"""Runnable reference implementations that torchlint's rule messages point to.

Install with the `verify` extra (it needs torch); `torchlint check` never imports this
package.

- `RunningMean`, `RunningSum` (`metric`): on-device running metrics that sync once,
  when read, instead of at every `.item()` in the loop. Answers TL101.
- `make_loader` (`loader`): a DataLoader with worker processes, pinned memory,
  persistent workers and a prefetch factor chosen for the machine. Answers TL201.
- `CUDAPrefetcher` (`prefetcher`): copies the next batch to the GPU on a side stream
  while the current step computes. Answers TL201 together with `make_loader`.
- `setup_distributed`, `distributed`, `teardown`, `wrap_model`, `distributed_loader`,
  `set_epoch`, `DistContext` (`ddp`): one-process-per-device DistributedDataParallel
  under `torchrun`. Answers TL501 (DataParallel).
- `AmpStep`, `StepResult`, `autocast_dtype` (`amp`): a mixed-precision training step
  with GradScaler for fp16, clipping and gradient accumulation. For the planned TL601.
"""

from torchlint.reference.amp import AmpStep, StepResult, autocast_dtype
from torchlint.reference.ddp import (
    DistContext,
    distributed,
    distributed_loader,
    set_epoch,
    setup_distributed,
    teardown,
    wrap_model,
)
from torchlint.reference.loader import make_loader
from torchlint.reference.metric import RunningMean, RunningSum
from torchlint.reference.prefetcher import CUDAPrefetcher

__all__ = [
    "AmpStep",
    "CUDAPrefetcher",
    "DistContext",
    "RunningMean",
    "RunningSum",
    "StepResult",
    "autocast_dtype",
    "distributed",
    "distributed_loader",
    "make_loader",
    "set_epoch",
    "setup_distributed",
    "teardown",
    "wrap_model",
]
