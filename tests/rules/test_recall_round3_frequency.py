"""The third recall round of issue 25, how often code runs: causes of misses on the
development halves decided from effects (what a loop or a guard runs), each with positives and
hard negatives, in the default mode a user runs."""

from __future__ import annotations

import pytest

from test_recall_round2 import found, project

pytestmark = pytest.mark.stable_only


def test_an_interval_test_around_the_training_step_paces_training_and_is_not_a_logging_guard():
    """`if global_step % policy_frequency == 0:` around a backward pass and an optimizer step
    (a delayed actor update) is training; the logging interval beside it stays rare."""
    code = """
    model = nn.Linear(4, 2).to(device)
    opt = torch.optim.Adam(model.parameters())
    for global_step in range(100000):
        obs = env_step()
        if global_step % args.policy_frequency == 0:
            for _ in range(args.policy_frequency):
                loss = model(obs.to(device)).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
                alpha = loss.item()
        if global_step % args.log_interval == 0:
            print(loss.item())
    """
    assert found(code, "TL101") == [16]


def test_gradient_accumulation_gates_the_optimizer_step_and_what_runs_with_it():
    code = """
    model = nn.Linear(4, 2).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for i, (x, y) in enumerate(loader):
        loss = (model(x.to(device)) - y.to(device)).pow(2).mean()
        loss.backward()
        if (i + 1) % args.accumulate == 0:
            opt.step()
            opt.zero_grad()
            losses.append(loss.item())
        if (i + 1) % args.save_every == 0:
            history.append(loss.item())
    """
    assert found(code, "TL101") == [14]


AGENT = """
import torch


class Agent:
    def __init__(self, net, optimiser):
        self.net = net
        self.optimiser = optimiser

    def learn(self, mem):
        states, actions = mem.sample(32)
        offset = torch.linspace(0, 100, 32).unsqueeze(1).to(states.device)
        loss = (self.net(states) + offset).mean()
        self.optimiser.zero_grad()
        loss.backward()
        self.optimiser.step()

    def log_stats(self, mem):
        states, actions = mem.sample(32)
        offset = torch.linspace(0, 100, 32).unsqueeze(1).to(states.device)
        return (self.net(states) + offset).mean()
"""
AGENT_LOOP = """
import torch
from agent import Agent

device = torch.device("cuda")
dqn = Agent(net.to(device), opt)
for T in range(1, args.T_max + 1):
    state = env.step(dqn.act(state))
    if T % args.replay_frequency == 0:
        dqn.learn(mem)
    if T % args.log_interval == 0:
        print(dqn.log_stats(mem))
"""


def test_a_training_step_of_another_module_called_every_few_environment_steps_runs_every_step(tmp_path, monkeypatch):
    """`if T % replay_frequency == 0: dqn.learn(mem)`: the interval paces training (the callee
    runs a backward pass); `log_stats` under the logging interval stays rare."""
    files = {"agent.py": AGENT, "main.py": AGENT_LOOP}
    assert project(tmp_path, monkeypatch, files, "TL102") == [("agent.py", 12)]


COMMONS = """
import torch


def rand_slice_segments(x, x_lengths, segment_size=4):
    b, d, t = x.size()
    ids_str = (torch.rand([b]).to(device=x.device) * (x_lengths - segment_size)).long()
    return ids_str


def mel_spectrogram(y, n_fft):
    if torch.min(y) < -1.0:
        print("min value is ", torch.min(y))
    return torch.stft(y, n_fft, window=torch.hann_window(n_fft, device=y.device))


def init_noise(x):
    return torch.randn([4]).to(device=x.device)
"""
MODELS = """
import torch
from torch import nn
import commons


class Synth(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.noise = commons.init_noise(self.proj.weight)

    def forward(self, x, lengths):
        z = self.proj(x)
        return z, commons.rand_slice_segments(z, lengths)
"""
TRAIN = """
import torch
from models import Synth
from commons import mel_spectrogram

device = torch.device("cuda")
net = Synth().to(device)
opt = torch.optim.AdamW(net.parameters())


def train(loader):
    for step, (x, lengths, y) in enumerate(loader):
        y_hat, ids = net(x.to(device), lengths)
        mel = y_hat
        {check}
        loss = (mel - y.to(device)).abs().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


for epoch in range(100):
    train(train_loader)
"""


def test_a_helper_that_a_forward_of_another_module_calls_runs_every_step(tmp_path, monkeypatch):
    """`commons.rand_slice_segments(z, ...)` in a model's `forward()`; `commons.init_noise(...)`
    in its `__init__` runs once."""
    files = {"commons.py": COMMONS, "models.py": MODELS, "train.py": TRAIN.format(check="pass")}
    assert project(tmp_path, monkeypatch, files, "TL102") == [("commons.py", 7)]


@pytest.mark.parametrize(
    "check, reported",
    [
        ("mel = mel_spectrogram(y_hat, 1024)", [("commons.py", 12)]),  # the test, not the warning's print under it
        ("if step % args.log_every == 0: print(mel_spectrogram(y_hat, 1024))", []),
        ("pass", []),
    ],
)
def test_a_tensor_test_in_a_function_another_modules_training_step_calls(tmp_path, monkeypatch, check, reported):
    files = {"commons.py": COMMONS, "models.py": MODELS, "train.py": TRAIN.format(check=check)}
    assert project(tmp_path, monkeypatch, files, "TL103") == reported


MELS = """
import torch

mel_basis = {{}}
hann_window = {{}}


def mel_spectrogram(y, n_fft, fmax):
    if {key} not in mel_basis:
        mel_basis[str(fmax) + "_" + str(y.device)] = torch.ones(80, n_fft).to(y.device)
        hann_window[str(y.device)] = torch.hann_window(n_fft).to(y.device)
    return mel_basis[str(fmax) + "_" + str(y.device)] @ torch.stft(y, n_fft, window=hann_window[str(y.device)])


for x, y in loader:
    y_hat = model(x.cuda())
    loss = (mel_spectrogram(y_hat, 1024, 8000) - y.cuda()).abs().mean()
    loss.backward()
    optimizer.step()
"""


@pytest.mark.parametrize(
    "key, reported",
    [
        ("fmax", [14, 15]),  # tested under one key, written under another: the branch runs every call
        ('str(fmax) + "_" + str(y.device)', []),  # a cache of the tested key: built once
    ],
)
def test_a_cache_written_under_another_key_than_the_tested_one_is_rebuilt_every_call(key, reported):
    assert found(MELS.format(key=key), "TL102") == reported


def test_window_functions_are_factories_that_take_a_device():
    code = """
    for x in loader:
        spec = torch.stft(x.to(device), 512, window=torch.hann_window(512).to(device))
        loss = spec.abs().mean()
        loss.backward()
    """
    assert found(code, "TL102") == [7]


FOLDS = """
import torch
import torch.nn.functional as F


def train_epoch(model, loader, optimizer):
    for data, target in loader:
        optimizer.zero_grad()
        loss = F.nll_loss(model(data.cuda()), target.cuda())
        loss.backward()
        optimizer.step()


def validate(model, loader):
    loss = 0
    with torch.no_grad():
        for data, target in loader:
            loss += F.nll_loss(model(data.cuda()), target.cuda(), reduction="sum").item()
    return loss


def run(model, optimizer, folds):
    for fold, (train_loader, val_loader) in enumerate(folds):
        train_epoch(model, train_loader, optimizer)
        accuracy = validate(model, val_loader)
        print(torch.tensor(accuracy).cuda().item())
"""


def test_an_outer_loop_whose_iterations_run_a_training_loop_is_not_a_step_loop(tmp_path, monkeypatch):
    """`for fold, ... in enumerate(folds):` calls `train_epoch`, whose own loop trains: each
    iteration runs a whole training loop, so `validate()` runs per epoch (its per-batch
    `.item()` is reported) and the fold's own `.item()` is per-epoch work."""
    files = {"folds.py": FOLDS}
    assert project(tmp_path, monkeypatch, files, "TL101") == [("folds.py", 18)]


RUNS = """
import torch


def train_and_evaluate(model, loader, valid_loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        for data, target in loader:
            optimizer.zero_grad()
            loss = torch.nn.functional.nll_loss(model(data.cuda()), target.cuda())
            loss.backward()
            optimizer.step()
    model.eval()
    correct = 0
    for data, target in valid_loader:
        correct += (model(data.cuda()).argmax(1) == target.cuda()).sum()
    return correct


def compare(models, loader, valid_loader):
    for model, label in models:
        print(label, train_and_evaluate(model.cuda(), loader, valid_loader))
"""


def test_a_loop_over_models_each_trained_for_epochs_runs_the_final_evaluation_once_per_run(tmp_path, monkeypatch):
    """Each item of `for model, label in models:` is a whole training run (its own epochs):
    the evaluation after it runs once per run, not every epoch."""
    assert project(tmp_path, monkeypatch, {"compare.py": RUNS}, "TL402") == []


def test_a_step_loop_whose_optimizer_step_is_in_a_called_method_is_still_a_step_loop():
    """`run_step()` accumulates gradients over micro-batches and steps the optimizer in
    `optimize()`: each iteration of `run_loop()` is one training step, so the per-parameter
    `.item()` of the gradient norm runs every step."""
    code = """
    class Trainer:
        def run_loop(self):
            while True:
                batch = next(self.data)
                self.run_step(batch)

        def run_step(self, batch):
            for i in range(0, batch.shape[0], self.microbatch):
                loss = self.model(batch[i : i + self.microbatch].to(device)).mean()
                loss.backward()
            self.optimize()

        def optimize(self):
            sqsum = 0.0
            for p in self.params:
                sqsum += (p.grad ** 2).sum().item()
            self.opt.step()
    """
    assert found(code, "TL101") == [21]


def test_priorities_handed_to_the_replay_buffer_the_loop_samples_from_must_reach_the_host():
    """Under the training-frequency test the update is a training step; the per-sample TD
    errors go to the buffer that draws the next batch (prioritised replay), while the same
    values kept for a plot could stay on the device."""
    code = """
    q_network = QNetwork().to(device)
    for global_step in range(args.total_timesteps):
        obs = envs.step(actions)
        if global_step % args.train_frequency == 0:
            data = rb.sample(args.batch_size)
            loss_per_sample = (q_network(data.observations) - data.targets).pow(2).sum(1)
            loss = loss_per_sample.mean()
            new_priorities = loss_per_sample.detach().cpu().numpy()
            rb.update_priorities(data.indices, new_priorities)
            history.append(loss_per_sample.detach().cpu().numpy())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    """
    assert found(code, "TL101") == [15]
