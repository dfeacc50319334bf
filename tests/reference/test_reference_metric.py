"""RunningSum / RunningMean equal the eager `.item()` accumulation exactly."""

import math

import pytest

torch = pytest.importorskip("torch")

from torchlint.reference import RunningMean, RunningSum


def scalars(count: int = 500) -> list:
    generator = torch.Generator().manual_seed(0)
    # Magnitudes spread over six decades so float32 and float64 accumulation would differ.
    scales = 10.0 ** torch.randint(-3, 3, (count,), generator=generator)
    return [torch.randn((), generator=generator) * scale for scale in scales]


def batches(count: int = 100) -> list:
    generator = torch.Generator().manual_seed(1)
    return [torch.randn(int(torch.randint(1, 9, (), generator=generator)), generator=generator) for _ in range(count)]


def test_scalar_sum_and_mean_equal_eager_item_exactly():
    values = scalars()
    total_metric, mean_metric = RunningSum(), RunningMean()
    total = 0.0
    for value in values:
        total += value.item()
        total_metric.update(value)
        mean_metric.update(value)
    assert total_metric.compute() == total
    assert mean_metric.compute() == total / len(values)
    assert total_metric.count == mean_metric.count == len(values)


def test_float64_accumulation_is_what_makes_it_exact():
    values = scalars()
    float32_total = torch.zeros(())
    for value in values:
        float32_total += value
    assert float32_total.item() != sum(value.item() for value in values)


def test_batched_values_sum_every_element():
    metric = RunningMean()
    total, count = 0.0, 0
    for value in batches():
        total += value.sum().item()
        count += value.numel()
        metric.update(value)
    assert metric.compute() == total / count
    assert metric.count == count


def test_weights_as_numbers_and_tensors():
    metric = RunningMean()
    total, count = 0.0, 0.0
    for value in batches():
        weights = torch.arange(1.0, value.numel() + 1)
        total += (value * weights).sum().item()
        count += weights.sum().item()
        metric.update(value, weight=weights)
    for value in scalars(20):
        total += (value * 32).item()
        count += 32
        metric.update(value, weight=32)
    assert metric.compute() == total / count
    assert metric.count == count


def test_low_precision_values_match_eager():
    metric = RunningSum()
    total = 0.0
    for value in batches():
        half = value.to(torch.bfloat16)
        total += half.sum().item()
        metric.update(half)
    assert metric.item() == total


def test_detaches_values_that_require_grad():
    weight = torch.ones(3, requires_grad=True)
    metric = RunningSum()
    metric.update((weight * 2).sum())
    assert metric.compute() == 6.0


def test_empty_and_reset():
    mean, total = RunningMean(), RunningSum()
    assert math.isnan(mean.compute())
    assert total.compute() == 0.0 and total.count == 0.0
    for metric in (mean, total):
        metric.update(torch.tensor([1.0, 2.0]))
        metric.reset()
        metric.update(torch.tensor(5.0))
    assert mean.compute() == 5.0 and mean.count == 1
    assert total.compute() == 5.0


@pytest.mark.gpu
def test_updates_on_cuda_do_not_sync():
    metric = RunningMean()
    values = [torch.randn((), device="cuda") for _ in range(10)]
    torch.cuda.set_sync_debug_mode("error")
    try:
        for value in values:
            metric.update(value, weight=4)
    finally:
        torch.cuda.set_sync_debug_mode("default")
    assert metric.compute() == pytest.approx(sum(value.item() for value in values) / 10)
