"""Equivalence: each rule's stated tolerance and the comparison of two programs' JSON results."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Dict, List, Optional


@dataclass(frozen=True)
class Tolerance:
    """How close before and after results must be: math.isclose(rel_tol=rel, abs_tol=abs_tol)."""

    rel: float
    abs_tol: float
    reason: str


TOLERANCES: Dict[str, Tolerance] = {
    "TL101": Tolerance(1e-5, 1e-7, "the loss is summed on the device in float32, not on the host in float64: rounding"),
    "TL102": Tolerance(1e-6, 1e-7, "tensors are created on the device instead of copied there: the same values"),
    "TL201": Tolerance(1e-6, 1e-7, "worker processes load the same items in the same order: the same batches"),
    "TL301": Tolerance(1e-4, 1e-6, "BatchNorm in training mode cancels the conv bias exactly; float rounding differs"),
    "TL401": Tolerance(1e-6, 1e-7, "gradients set to None are written instead of added to zeros: the same values"),
    "TL402": Tolerance(1e-6, 1e-7, "no_grad records no graph but changes no forward value"),
    "TL501": Tolerance(1e-6, 1e-7, "DDP averages gradients over the processes, a world of one here: the same updates"),
    "TL104": Tolerance(1e-6, 1e-7, "emptying the allocator cache changes no computed value"),
    "TL105": Tolerance(1e-6, 1e-7, "from_numpy wraps the same data that torch.tensor copied"),
    "TL107": Tolerance(1e-6, 1e-7, "one concatenation after the loop joins the same pieces in the same order"),
    "TL108": Tolerance(1e-6, 1e-7, "the model is moved once instead of every step: the same parameters"),
    "TL403": Tolerance(1e-6, 1e-7, "anomaly detection only checks values; it changes none"),
    "TL502": Tolerance(1e-6, 1e-7, "searching for unused parameters changes no gradient when every parameter is used"),
    "TL602": Tolerance(1e-6, 1e-7, "torch.amp.autocast/GradScaler are the same implementation under the new names"),
    "TL103": Tolerance(1e-6, 1e-7, "values read once after the loop instead of every step: float rounding only"),
    "TL106": Tolerance(1e-6, 1e-7, "an asynchronous copy from pinned memory moves the same bytes"),
    "TL202": Tolerance(1e-6, 1e-7, "pinned host memory holds the same batches"),
    "TL203": Tolerance(1e-6, 1e-7, "workers kept between epochs load the same items in the same order"),
    "TL503": Tolerance(1e-6, 1e-7, "no_sync defers the same all-reduce to the last micro-batch: the same gradients"),
    "TL601": Tolerance(1e-6, 1e-7, "mixed precision changes the numbers, so the program compares rounded accuracy"),
    "TL603": Tolerance(
        1e-3, 1e-6, "cuDNN autotuning picks other convolution algorithms, which round differently, and "
        "training steps compound it: on an H200 losses came out 1e-4 apart after 17 steps",
    ),
    "TL604": Tolerance(2e-2, 1e-4, "TF32 matmuls round inputs to 10 mantissa bits: losses agree to about 1e-3"),
    "TL302": Tolerance(1e-4, 1e-6, "the fused attention kernels round the same softmax differently: losses agree to about 1e-6"),
    "TL304": Tolerance(1e-4, 1e-6, "padded logits are sliced off before the loss; a wider GEMM may only round differently"),
    "TL404": Tolerance(1e-4, 1e-6, "the fused AdamW kernel rounds the same update differently: losses agree to about 1e-6"),
    "TL109": Tolerance(1e-6, 1e-7, "saving reads the weights and changes none; the last step is saved either way"),
    "TL110": Tolerance(1e-6, 1e-7, "the profiler only records; it changes no computed value"),
    "TL303": Tolerance(1e-6, 1e-7, "channels-last kernels round differently, so the program compares rounded accuracy"),
    "TL605": Tolerance(1e-4, 1e-6, "compiled kernels fuse pointwise operations and round differently: losses agree to about 1e-6"),
}
DEFAULT_TOLERANCE = Tolerance(1e-6, 1e-7, "a fix must not change results")
# On a GPU two runs of the same program differ (atomics in cuDNN's backward, split-K reductions):
# the tolerance is widened to this many times the largest difference between runs of before.py.
NOISE_FACTOR = 10.0
# On a GPU the kernels a program gets depend on its shapes and schedule, and they order float
# reductions differently: on an H200, TL101's loss came out 1.6e-5 apart before and after its fix
# while two runs of before.py agreed bitwise. There the relative tolerance is at least this much.
GPU_REL_FLOOR = 1e-4


def numbers_close(a: float, b: float, tolerance: Tolerance) -> bool:
    """Whether two numbers agree; NaN matches NaN and infinities match themselves."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=tolerance.rel, abs_tol=tolerance.abs_tol)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _compare_dicts(before: dict, after: dict, tolerance: Tolerance, where: str) -> Optional[str]:
    if before.keys() != after.keys():
        only_before = sorted(map(str, before.keys() - after.keys()))
        only_after = sorted(map(str, after.keys() - before.keys()))
        return f"{where or 'result'}: keys differ (only before: {only_before}, only after: {only_after})"
    for key in before:
        problem = compare(before[key], after[key], tolerance, f"{where}.{key}" if where else str(key))
        if problem:
            return problem
    return None


def _compare_lists(before: list, after: list, tolerance: Tolerance, where: str) -> Optional[str]:
    if len(before) != len(after):
        return f"{where or 'result'}: {len(before)} items before, {len(after)} after"
    for index, (a, b) in enumerate(zip(before, after)):
        problem = compare(a, b, tolerance, f"{where}[{index}]")
        if problem:
            return problem
    return None


def compare(before: object, after: object, tolerance: Tolerance, where: str = "") -> Optional[str]:
    """None when two JSON results agree within `tolerance`, else where and how they first differ."""
    if isinstance(before, dict) and isinstance(after, dict):
        return _compare_dicts(before, after, tolerance, where)
    if isinstance(before, list) and isinstance(after, list):
        return _compare_lists(before, after, tolerance, where)
    if _is_number(before) and _is_number(after):
        if numbers_close(float(before), float(after), tolerance):  # type: ignore[arg-type]
            return None
        limits = f"rel {tolerance.rel:g}, abs {tolerance.abs_tol:g}"
        return f"{where or 'result'}: {before!r} before, {after!r} after ({limits})"
    if type(before) is not type(after) or before != after:
        return f"{where or 'result'}: {before!r} before, {after!r} after"
    return None


def tolerance_for(code: str) -> Tolerance:
    return TOLERANCES.get(code, DEFAULT_TOLERANCE)


def _numbers(value: object) -> List[float]:
    """The numbers of a JSON result, in order."""
    if isinstance(value, dict):
        return [number for key in sorted(value, key=str) for number in _numbers(value[key])]
    if isinstance(value, list):
        return [number for item in value for number in _numbers(item)]
    return [float(value)] if _is_number(value) else []  # type: ignore[arg-type]


def relative_noise(first: object, second: object) -> float:
    """The largest relative difference between the numbers of two results of the same program
    (0 when they are identical; inf when their shapes differ)."""
    a, b = _numbers(first), _numbers(second)
    if len(a) != len(b):
        return math.inf
    differences = [abs(x - y) / max(abs(x), abs(y)) for x, y in zip(a, b) if x != y and math.isfinite(x - y)]
    return max(differences, default=0.0)


def calibrated(tolerance: Tolerance, noise: float) -> Tolerance:
    """`tolerance`, widened to NOISE_FACTOR times the run-to-run `noise` of the program itself."""
    if not math.isfinite(noise) or NOISE_FACTOR * noise <= tolerance.rel:
        return tolerance
    reason = f"{tolerance.reason}; widened to {NOISE_FACTOR:g}x the run-to-run difference of before.py"
    return Tolerance(NOISE_FACTOR * noise, tolerance.abs_tol, reason)


def for_device(tolerance: Tolerance, device: str) -> Tolerance:
    """`tolerance`, at least GPU_REL_FLOOR relative on a GPU."""
    if device != "cuda" or tolerance.rel >= GPU_REL_FLOOR:
        return tolerance
    return Tolerance(GPU_REL_FLOOR, tolerance.abs_tol, f"{tolerance.reason}; at least {GPU_REL_FLOOR:g} on a GPU")
