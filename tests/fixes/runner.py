"""Runs programs for the differential fix tests, all in this one process (one torch import).

Reads a JSON list of sources on stdin; writes, for each, what it printed and the name of the
exception it raised (None if it ran through; `ProgramTimeout` after 20 seconds). Every program starts from the same state: a
fresh namespace run as `__main__`, seeded random generators, torch's default dtype, grad
mode and autocast dtypes, one thread. `show(...)` prints tensors, modules and numbers
exactly: dtype, shape, device, values, and whether the tensor records a graph.
"""

from __future__ import annotations

import contextlib
import gc
import io
import json
import random
import signal
import sys
import warnings
from typing import Any, Dict, List, Optional

import numpy as np
import torch


def _text(value: Any) -> str:
    if isinstance(value, torch.Tensor):
        data = value.detach().cpu()
        values = data.double().tolist() if data.is_floating_point() else data.tolist()
        graph = " grad" if value.requires_grad else ""
        return f"tensor({data.dtype}, {tuple(data.shape)}, {value.device.type}{graph}, {values!r})"
    if isinstance(value, torch.nn.Module):
        return "module(" + ", ".join(f"{name}={_text(p)}" for name, p in value.state_dict().items()) + ")"
    if isinstance(value, (list, tuple)):
        return type(value).__name__ + "(" + ", ".join(_text(item) for item in value) + ")"
    return repr(value)


def show(*values: Any) -> None:
    print(*(_text(value) for value in values))


def _reset() -> None:
    random.seed(0)
    np.random.seed(0)
    torch.manual_seed(0)
    torch.set_default_dtype(torch.float32)
    torch.set_grad_enabled(True)
    torch.set_autocast_dtype("cpu", torch.bfloat16)


class ProgramTimeout(Exception):
    """A program ran longer than `TIMEOUT_S` (a loader that restarts itself forever)."""


TIMEOUT_S = 20


def _timeout(signum: int, frame: Any) -> None:
    raise ProgramTimeout()


def run(source: str) -> Dict[str, Optional[str]]:
    _reset()
    out = io.StringIO()
    error = None
    namespace: Dict[str, Any] = {"__name__": "__main__", "show": show}
    signal.signal(signal.SIGALRM, _timeout)
    signal.alarm(TIMEOUT_S)
    try:
        with contextlib.redirect_stdout(out), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(compile(source, "<program>", "exec"), namespace)
    except BaseException as raised:  # the program's own failure is part of its output
        error = type(raised).__name__
    finally:
        signal.alarm(0)
        # The program's functions keep its namespace in a cycle: collect it now, so that the
        # persistent workers of its loaders exit before the next program forks its own.
        namespace.clear()
        gc.collect()
    return {"stdout": out.getvalue(), "error": error}


def main() -> None:
    torch.set_num_threads(1)
    sources: List[str] = json.load(sys.stdin)
    json.dump([run(source) for source in sources], sys.stdout)


if __name__ == "__main__":
    main()
