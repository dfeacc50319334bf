"""make_loader: worker count from the cores, pinning for CUDA only, overrides win."""

import os

import pytest

torch = pytest.importorskip("torch")

from torch.utils.data import TensorDataset

from torchlint.reference import make_loader
from torchlint.reference.loader import (
    MAX_WORKERS,
    PREFETCH_FACTOR,
    default_num_workers,
    loader_settings,
)


@pytest.fixture
def cores(monkeypatch):
    """Pretend this process may run on the given number of cores."""

    def set_cores(count: int) -> None:
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(count)), raising=False)

    return set_cores


@pytest.mark.parametrize(
    ("count", "processes", "workers"),
    [(1, 1, 0), (2, 1, 2), (6, 1, 6), (64, 1, MAX_WORKERS), (8, 2, 4), (4, 4, 0)],
)
def test_workers_follow_the_cores_and_are_capped(cores, count, processes, workers):
    cores(count)
    assert default_num_workers(processes) == workers


def test_cpu_loader_uses_workers_without_pinning(cores):
    cores(4)
    loader = make_loader(TensorDataset(torch.arange(8.0)), 2, device="cpu")
    assert (loader.num_workers, loader.pin_memory, loader.persistent_workers) == (4, False, True)
    assert loader.prefetch_factor == PREFETCH_FACTOR
    assert loader.batch_size == 2


def test_cuda_target_pins_memory(cores):
    cores(4)
    assert loader_settings("cuda")["pin_memory"] is True


def test_without_workers_no_worker_options(cores):
    cores(1)
    loader = make_loader(TensorDataset(torch.arange(8.0)), 2, device="cpu")
    assert (loader.num_workers, loader.persistent_workers, loader.prefetch_factor) == (0, False, None)


def test_overrides_win(cores):
    cores(4)
    settings = loader_settings("cuda", num_workers=1, pin_memory=False, prefetch_factor=2, drop_last=True)
    assert settings == {
        "num_workers": 1,
        "pin_memory": False,
        "persistent_workers": True,
        "prefetch_factor": 2,
        "drop_last": True,
    }
    assert loader_settings("cpu", num_workers=0) == {"num_workers": 0, "pin_memory": False}


def test_loader_yields_every_sample_each_epoch(cores):
    cores(2)
    loader = make_loader(TensorDataset(torch.arange(10.0)), 4, shuffle=True, device="cpu")
    for _ in range(2):
        seen = torch.cat([batch for (batch,) in loader])
        assert sorted(seen.tolist()) == list(map(float, range(10)))
