"""Names that hold a device by convention, for the LibCST tier (`devices`) and the project
index (`dataset_items`), which must not load LibCST."""

from __future__ import annotations

import re

# A device as a string: a device type, maybe with an index (`"cuda:0"`, `"mps"`).
DEVICE_STRING = re.compile(r"^(cuda|cpu|mps|xpu|xla|meta|hpu|npu|privateuseone)(:\d+)?$")
# Ranks and GPU ids are CUDA ordinals; matched case-insensitively (`DEVICE` too).
DEVICE_NAME = re.compile(r"^(device|dev|.*_device|device_.*|(local_)?rank|gpu|gpu_id)$", re.IGNORECASE)


# Words of a test or flag that ask for an accelerator, and words that turn it down.
CUDA_WORDS = frozenset({"cuda", "gpu", "accel", "accelerator"})
HOST_WORDS = frozenset({"cpu", "no", "disable", "without"})


def cuda_by_words(words: "set[str]", negated: bool = False) -> "bool | None":
    """Whether a test whose lower-case words are `words` holds on a CUDA run, by its words
    alone (a tie-breaker where no effect shows it): True for `use_cuda`, `args.gpu`,
    `use_accel`; False for `args.no_cuda`, `device == "cpu"`; None for others. `negated`
    for a `not` in front of it."""
    device = bool(CUDA_WORDS & words)
    host = bool(HOST_WORDS & words)
    if device and not host:
        return not negated
    if "cpu" in words or (device and host):  # `device == "cpu"`, `args.no_cuda`
        return negated
    return None


def words_of(text: str) -> "set[str]":
    """The lower-case words of a name or text: `args.use_gpu` gives args, use and gpu."""
    return {word for word in re.split(r"[^a-z0-9]+", text.lower()) if word}
