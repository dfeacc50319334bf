"""AmpStep: dtype choice, bf16 autocast on CPU, GradScaler for fp16, clipping, accumulation."""

import pytest

torch = pytest.importorskip("torch")

from torch import nn

from torchlint.reference import AmpStep, autocast_dtype

LR = 0.05


def make_model() -> "nn.Module":
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))


def make_data(count: int = 16) -> tuple:
    generator = torch.Generator().manual_seed(0)
    inputs = torch.randn(count, 8, generator=generator)
    return inputs, inputs.sum(dim=1, keepdim=True) * 0.5


class RecordingLoss:
    """MSE of the model's output, remembering the output dtypes it saw."""

    def __init__(self) -> None:
        self.dtypes: list = []

    def __call__(self, model, batch):
        inputs, targets = batch
        outputs = model(inputs)
        self.dtypes.append(outputs.dtype)
        return nn.functional.mse_loss(outputs.float(), targets)


def fp16_device() -> str:
    """A device where fp16 autocast and GradScaler work, or skip the test."""
    if torch.cuda.is_available():
        return "cuda"
    try:
        with torch.amp.autocast("cpu", dtype=torch.float16):
            ok = nn.Linear(2, 2)(torch.ones(1, 2)).dtype == torch.float16
        torch.amp.GradScaler("cpu")
    except (RuntimeError, ValueError, TypeError):
        ok = False
    if not ok:
        pytest.skip("no fp16-capable autocast device")
    return "cpu"


def snapshot(model: "nn.Module") -> list:
    return [parameter.detach().clone() for parameter in model.parameters()]


def change_norm(model: "nn.Module", before: list) -> float:
    """How far the parameters moved since `before`, as one vector norm."""
    after = snapshot(model)
    return torch.cat([(new - old).flatten() for new, old in zip(after, before, strict=True)]).norm().item()


def train(step: AmpStep, batch, loss_fn, steps: int = 30) -> list:
    return [float(step.step(batch, loss_fn).loss) for _ in range(steps)]


@pytest.mark.parametrize(("supported", "expected"), [(True, torch.bfloat16), (False, torch.float16)])
def test_cuda_dtype_follows_bf16_support(monkeypatch, supported, expected):
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *args, **kwargs: supported)
    assert autocast_dtype("cuda") == expected


def test_cpu_dtype_is_bf16_and_unknown_devices_need_a_dtype():
    assert autocast_dtype("cpu") == torch.bfloat16
    with pytest.raises(ValueError):
        autocast_dtype("meta")


def test_bf16_autocast_on_cpu_trains():
    model = make_model()
    loss_fn = RecordingLoss()
    step = AmpStep(model, torch.optim.SGD(model.parameters(), lr=LR), device_type="cpu")
    losses = train(step, make_data(), loss_fn)
    assert step.dtype == torch.bfloat16 and step.scaler is None
    assert set(loss_fn.dtypes) == {torch.bfloat16}
    assert all(torch.isfinite(torch.tensor(losses)))
    assert losses[-1] < losses[0] * 0.5
    assert all(parameter.dtype == torch.float32 and parameter.grad is None for parameter in model.parameters())


def test_disabled_runs_in_full_precision():
    model = make_model()
    loss_fn = RecordingLoss()
    step = AmpStep(model, torch.optim.SGD(model.parameters(), lr=LR), device_type="cpu", enabled=False)
    step.step(make_data(), loss_fn)
    assert loss_fn.dtypes == [torch.float32]


@pytest.mark.parametrize(("enabled", "tolerance"), [(False, 1e-6), (True, 2e-2)])
def test_two_accumulated_halves_equal_one_full_batch(enabled, tolerance):
    inputs, targets = make_data()
    accumulated, full = make_model(), make_model()
    loss_fn = RecordingLoss()
    optimizer = torch.optim.SGD(accumulated.parameters(), lr=LR)
    accumulating = AmpStep(accumulated, optimizer, device_type="cpu", accumulation_steps=2, enabled=enabled)
    single = AmpStep(full, torch.optim.SGD(full.parameters(), lr=LR), device_type="cpu", enabled=enabled)
    for _ in range(3):
        first = accumulating.step((inputs[:8], targets[:8]), loss_fn)
        assert not first.updated and all(parameter.grad is not None for parameter in accumulated.parameters())
        assert accumulating.step((inputs[8:], targets[8:]), loss_fn).updated
        assert single.step((inputs, targets), loss_fn).updated
    for mine, reference in zip(accumulated.parameters(), full.parameters(), strict=True):
        torch.testing.assert_close(mine, reference, atol=tolerance, rtol=tolerance)
        assert mine.grad is None


def test_gradients_are_clipped_to_max_norm():
    model = make_model()
    before = snapshot(model)
    step = AmpStep(model, torch.optim.SGD(model.parameters(), lr=LR), device_type="cpu", max_grad_norm=1e-3)
    step.step(make_data(), RecordingLoss())
    assert change_norm(model, before) == pytest.approx(LR * 1e-3, rel=1e-3)


def test_fp16_uses_grad_scaler_and_unscales_before_clipping():
    device = fp16_device()
    model = make_model().to(device)
    batch = tuple(tensor.to(device) for tensor in make_data())
    loss_fn = RecordingLoss()
    step = AmpStep(model, torch.optim.SGD(model.parameters(), lr=LR), device_type=device, dtype=torch.float16)
    losses = train(step, batch, loss_fn)
    assert step.scaler is not None and step.scaler.get_scale() > 1
    assert set(loss_fn.dtypes) == {torch.float16}
    assert all(torch.isfinite(torch.tensor(losses))) and losses[-1] < losses[0] * 0.5

    # The scale has settled (the first steps overflow and back it off), so the next step is
    # applied; it moves the weights by exactly lr * max_norm only if clipping saw true gradients.
    step.max_grad_norm = 1e-3
    scale = step.scaler.get_scale()
    before = snapshot(model)
    step.step(batch, loss_fn)
    assert step.scaler.get_scale() == scale
    assert change_norm(model, before) == pytest.approx(LR * 1e-3, rel=1e-2)


@pytest.mark.gpu
def test_bf16_on_cuda_trains_without_a_scaler():
    model = make_model().to("cuda")
    batch = tuple(tensor.to("cuda") for tensor in make_data())
    loss_fn = RecordingLoss()
    step = AmpStep(model, torch.optim.SGD(model.parameters(), lr=LR), device_type="cuda", dtype=torch.bfloat16)
    losses = train(step, batch, loss_fn)
    assert step.scaler is None and set(loss_fn.dtypes) == {torch.bfloat16}
    assert all(torch.isfinite(torch.tensor(losses))) and losses[-1] < losses[0] * 0.5


def test_accumulation_steps_must_be_positive():
    model = make_model()
    with pytest.raises(ValueError):
        AmpStep(model, torch.optim.SGD(model.parameters(), lr=LR), device_type="cpu", accumulation_steps=0)
