"""What verify runs on: torch, CUDA and GPU, asked of a fresh interpreter (verify never imports torch)."""

from __future__ import annotations

import json
import platform
import subprocess
import sys
from dataclasses import dataclass
from typing import Optional

PROBE = """\
import json, torch
cuda = torch.cuda.is_available()
print(json.dumps({
    "torch": torch.__version__,
    "cuda": torch.version.cuda,
    "gpu": torch.cuda.get_device_name(0) if cuda else None,
    "cuda_available": cuda,
}))
"""


@dataclass(frozen=True)
class Environment:
    """The versions and the device a verification ran with."""

    python: str
    torch: Optional[str]
    cuda: Optional[str]
    gpu: Optional[str]
    cuda_available: bool


def probe(timeout: float = 120.0) -> Environment:
    """The environment of `sys.executable`; torch None when it cannot be imported."""
    python = platform.python_version()
    try:
        done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=timeout)
        data = json.loads(done.stdout.strip().splitlines()[-1]) if done.returncode == 0 else None
    except (subprocess.TimeoutExpired, ValueError, IndexError):
        data = None
    if data is None:
        return Environment(python, None, None, None, False)
    return Environment(python, data["torch"], data["cuda"], data["gpu"], bool(data["cuda_available"]))
