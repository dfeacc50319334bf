"""The measured region of a fixture program: step boundaries marked inside the program itself.

A program calls `mark_step()` first thing in each step of its training loop. Run on its own, the
call does nothing. Under `torchlint verify`, the runner installs a `Recorder` first; each call then
marks the start of a step (a CUDA event on the GPU stream, `perf_counter` on a CPU), so the time of each
step is measured where the program runs, after the model and data are built, and the first
`warmup` steps (allocator growth, cuDNN autotuning, worker start-up) can be left out. The recorder
can also switch CUDA's synchronisation warnings on once the warm-up is over, so that counted
synchronisations are those of the measured steps. This module imports torch only when recording
on CUDA.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import List, Optional


@dataclass
class Recorder:
    """Marks step starts; `cuda` times them with CUDA events, otherwise with perf_counter."""

    cuda: bool
    warmup: int = 0
    count_syncs: bool = False
    marks: List[object] = field(default_factory=list)

    def mark(self) -> None:
        if len(self.marks) == self.warmup and self.count_syncs:
            _sync_warnings(True)
        if self.cuda:
            import torch

            event = torch.cuda.Event(enable_timing=True)
            event.record()
            self.marks.append(event)
        else:
            self.marks.append(time.perf_counter())

    def seconds(self) -> List[float]:
        """Each mark's time in seconds since the first (waits for the GPU to reach the last)."""
        if self.count_syncs:
            _sync_warnings(False)
        if not self.marks:
            return []
        if not self.cuda:
            first = float(self.marks[0])  # type: ignore[arg-type]
            return [float(mark) - first for mark in self.marks]  # type: ignore[arg-type]
        import torch

        torch.cuda.synchronize()
        first = self.marks[0]
        return [first.elapsed_time(mark) / 1000 for mark in self.marks]  # type: ignore[attr-defined]


_recorder: Optional[Recorder] = None


def install(recorder: Optional[Recorder]) -> None:
    """Record the steps of every `timed` loop of this process with `recorder` (None: stop)."""
    global _recorder
    _recorder = recorder


def mark_step() -> None:
    """Mark the start of a step when a recorder is installed."""
    if _recorder is not None:
        _recorder.mark()


def _sync_warnings(on: bool) -> None:
    """CUDA's synchronisation warnings on or off, where torch is loaded and has CUDA."""
    import sys
    import warnings

    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        warnings.simplefilter("always" if on else "default")
        torch.cuda.set_sync_debug_mode("warn" if on else 0)
