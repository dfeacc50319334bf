"""What an expression holds, as far as the local inference can tell."""

from __future__ import annotations

import enum


class Kind(enum.Enum):
    TENSOR = "tensor"  # a tensor on an unknown device
    DEVICE_TENSOR = "device tensor"  # a tensor known to be on an accelerator
    HOST_TENSOR = "host tensor"  # a tensor known to be in host memory
    NDARRAY = "ndarray"
    MODULE = "module"
    NUMBER = "number"
    DEVICE = "device"
    OTHER = "other"


# Host-side kinds: values that never live on an accelerator.
HOST_KINDS = frozenset({Kind.HOST_TENSOR, Kind.NDARRAY, Kind.NUMBER, Kind.OTHER, Kind.DEVICE})
TENSOR_KINDS = frozenset({Kind.TENSOR, Kind.DEVICE_TENSOR, Kind.HOST_TENSOR})
# Tensors that may live on an accelerator.
MAYBE_DEVICE_KINDS = frozenset({Kind.TENSOR, Kind.DEVICE_TENSOR})
