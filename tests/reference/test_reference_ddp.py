"""DDP reference with the gloo backend: two real processes, and the one-process defaults."""

import importlib.util
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
dist = pytest.importorskip("torch.distributed")
if not dist.is_available():
    pytest.skip("torch.distributed is not available", allow_module_level=True)

from torch import nn

from torchlint.reference import distributed

WORKER = Path(__file__).with_name("ddp_worker.py")
WORLD_SIZE = 2


def load_worker():
    """The worker module, for its dataset, loss and learning rate."""
    spec = importlib.util.spec_from_file_location("ddp_worker", WORKER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def ranks(tmp_path_factory) -> list:
    """What each of two torchrun-like worker processes saved."""
    folder = tmp_path_factory.mktemp("ddp")
    outputs: list = []
    for _attempt in range(3):  # a free port can be taken again before the workers bind it
        outputs = _run_workers(folder, str(free_port()))
        if all(code == 0 for code, _ in outputs):
            return [torch.load(folder / f"rank{rank}.pt") for rank in range(WORLD_SIZE)]
    raise AssertionError("\n".join(output for _, output in outputs))


def _run_workers(folder: Path, port: str) -> list:
    """Start the two workers on `port`; each one's exit code and output."""
    processes = []
    for rank in range(WORLD_SIZE):
        env = dict(
            os.environ,
            RANK=str(rank),
            LOCAL_RANK=str(rank),
            WORLD_SIZE=str(WORLD_SIZE),
            LOCAL_WORLD_SIZE=str(WORLD_SIZE),
            MASTER_ADDR="127.0.0.1",
            MASTER_PORT=port,
            CUDA_VISIBLE_DEVICES="",
        )
        command = [sys.executable, str(WORKER), str(folder / f"rank{rank}.pt")]
        processes.append(
            subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        )
    results = []
    for process in processes:
        output, _ = process.communicate(timeout=120)
        results.append((process.returncode, output))
    return results


def test_context_comes_from_the_environment(ranks):
    assert [rank["context"] for rank in ranks] == [(0, 0, 2, 2, "cpu"), (1, 1, 2, 2, "cpu")]


def test_ranks_start_and_end_with_identical_parameters(ranks):
    first, second = ranks
    for key in ("initial", "final"):
        assert all(torch.equal(a, b) for a, b in zip(first[key], second[key], strict=True))
    assert not any(torch.equal(a, b) for a, b in zip(first["initial"], first["final"], strict=True))


def test_no_sync_keeps_micro_batch_gradients_local(ranks):
    first, second = (rank["first_grads"] for rank in ranks)
    assert not any(torch.equal(a, b) for a, b in zip(first, second, strict=True))


def test_step_equals_one_process_over_the_whole_dataset(ranks):
    """Averaged over ranks and micro-batches, the gradient is that of the mean loss over all 16."""
    worker = load_worker()
    model = nn.Linear(4, 1)
    with torch.no_grad():
        for parameter, initial in zip(model.parameters(), ranks[0]["initial"], strict=True):
            parameter.copy_(initial)
    worker.loss_fn(model, worker.dataset().tensors).backward()
    for parameter, final in zip(model.parameters(), ranks[0]["final"], strict=True):
        torch.testing.assert_close(parameter.detach() - worker.LR * parameter.grad, final)


def test_sampler_splits_the_data_and_reshuffles_per_epoch(ranks):
    for epoch in range(2):
        shards = [set(rank["indices"][epoch]) for rank in ranks]
        assert len(shards[0]) == len(shards[1]) == 8
        assert shards[0] | shards[1] == set(range(16))
    assert ranks[0]["indices"][0] != ranks[0]["indices"][1]


def test_one_process_defaults(monkeypatch):
    for name in ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR"):
        monkeypatch.setenv(name, "")  # remembered, so monkeypatch restores the original state
        monkeypatch.delenv(name)
    monkeypatch.setenv("MASTER_PORT", str(free_port()))
    device, backend = (torch.device("cuda", 0), "nccl") if torch.cuda.is_available() else (torch.device("cpu"), "gloo")
    with distributed() as ctx:
        assert (ctx.rank, ctx.local_rank, ctx.world_size, ctx.local_world_size, ctx.device) == (0, 0, 1, 1, device)
        assert ctx.is_main
        assert (dist.get_backend(), dist.get_world_size()) == (backend, 1)
        assert os.environ["MASTER_ADDR"] == "127.0.0.1"
    assert not dist.is_initialized()
