"""The device a reference helper targets when none is given."""

from __future__ import annotations

import torch


def default_device() -> torch.device:
    """The CUDA device when CUDA is available, else the CPU."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")
