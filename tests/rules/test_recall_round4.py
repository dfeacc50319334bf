"""The fourth recall round of issue 25: loaders drawn by hand with `iter()`/`next()`, step
functions that an engine runs every batch, and loader arguments from a dictionary chosen by
device. Each cause with positives and hard negatives, in the default mode a user runs."""

from __future__ import annotations

import json
import textwrap

import pytest
from click.testing import CliRunner

from torchlint.cli import main

pytestmark = pytest.mark.stable_only


def findings(tmp_path, monkeypatch, text: str, rules: str) -> list:
    """(code, line) of the findings of `rules` on one training script, default mode."""
    (tmp_path / "setup.py").write_text("")
    (tmp_path / "train.py").write_text(textwrap.dedent(text))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", rules, "--output-format", "json", "."])
    return sorted((item["code"], item["line"]) for item in json.loads(result.stdout))


# -- loaders drawn by hand ------------------------------------------------------------------

SEMI_SUPERVISED = """
import torch
from torch.utils.data import DataLoader


def train(model, optimizer, labeled_loader, unlabeled_loader, device, epochs, eval_step):
    labeled_iter = iter(labeled_loader)
    unlabeled_iter = iter(unlabeled_loader)
    for epoch in range(epochs):
        for step in range(eval_step):
            try:
                x, y = labeled_iter.next()
            except StopIteration:
                {relabel}
                x, y = next(labeled_iter)
            try:
                u, _ = next(unlabeled_iter)
            except StopIteration:
                {reunlabel}
                u, _ = next(unlabeled_iter)
            loss = model(x.to(device), u.to(device)).sum() + y.to(device).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


def main():
    device = torch.device("cuda")
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    labeled = DataLoader(labeled_set, batch_size=64, num_workers=4, drop_last=True)
    unlabeled = DataLoader(unlabeled_set, batch_size=448, num_workers=4, drop_last=True)
    train(model, optimizer, labeled, unlabeled, device, 100, 1024)


if __name__ == "__main__":
    main()
"""


@pytest.mark.parametrize("relabel, reunlabel, restarted", [
    ("labeled_iter = iter(labeled_loader)", "unlabeled_iter = iter(unlabeled_loader)", [31, 32]),
    ("labeled_iter = iter(labeled_loader)", "raise", [31]),
    ("raise", "raise", []),  # each iterator opened once: the workers start once
])
def test_loaders_drawn_by_hand_and_recreated_when_exhausted(tmp_path, monkeypatch, relabel, reunlabel, restarted):
    """`it = iter(loader)`, `next(it)` every step of a same-file training function, and the
    iterator re-created when the data runs out (two loaders of different lengths): the workers
    start again every time (TL203), and every batch drawn is moved from pageable memory
    (TL202)."""
    text = SEMI_SUPERVISED.format(relabel=relabel, reunlabel=reunlabel)
    expected = sorted([("TL202", 31), ("TL202", 32)] + [("TL203", line) for line in restarted])
    assert findings(tmp_path, monkeypatch, text, "TL202,TL203") == expected


PER_STEP_ITERATOR = """
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda")
model = Net().to(device)
optimizer = torch.optim.Adam(model.parameters())
loader = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=4{options})
for step in range(100000):
    x, y = next(iter(loader))
    loss = criterion(model(x.to(device)), y.to(device))
    {update}
"""


@pytest.mark.parametrize("options, update, expected", [
    ("", "optimizer.zero_grad(); loss.backward(); optimizer.step()", [("TL202", 8), ("TL203", 8)]),
    (", pin_memory=True, persistent_workers=True", "optimizer.zero_grad(); loss.backward(); optimizer.step()", []),
    ("", "print(loss)", []),  # a loop that draws batches to look at them does not train
])
def test_next_of_a_new_iterator_every_step_restarts_the_workers(tmp_path, monkeypatch, options, update, expected):
    """`next(iter(loader))` in the step loop opens a new pass every step: its workers start
    every step, and its batches reach the device from pageable memory."""
    text = PER_STEP_ITERATOR.format(options=options, update=update)
    assert findings(tmp_path, monkeypatch, text, "TL202,TL203") == expected


def test_one_batch_drawn_to_look_at_is_no_pass_of_a_step_loop(tmp_path, monkeypatch):
    text = """
    import torch
    from torch.utils.data import DataLoader

    loader = DataLoader(train_set, batch_size=64, num_workers=4)
    images, labels = next(iter(loader))
    show(images.cuda())
    """
    assert findings(tmp_path, monkeypatch, text, "TL202,TL203") == []


ENDLESS = """
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda")
model = Net().to(device)
optimizer = torch.optim.Adam(model.parameters())
loader = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=4, pin_memory=True)
it = iter(loader)
while True:
    try:
        x, y = next(it)
    except StopIteration:
        it = iter(loader)
        continue
    x = x.to(device{blocking})
    y = y.to(device{blocking})
    loss = criterion(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
"""


@pytest.mark.parametrize("blocking, expected", [
    ("", [("TL106", 16), ("TL106", 17), ("TL203", 8)]),
    (", non_blocking=True", [("TL203", 8)]),
])
def test_an_endless_loop_drawing_from_a_pinned_loader(tmp_path, monkeypatch, blocking, expected):
    """`while True:` drawing with `next()` from a pinned loader: the batches drawn are moved
    without `non_blocking` (TL106), and the iterator opened again when exhausted restarts the
    workers (TL203)."""
    assert findings(tmp_path, monkeypatch, ENDLESS.format(blocking=blocking), "TL106,TL203") == expected


def test_a_sampler_told_its_length_may_never_run_out(tmp_path, monkeypatch):
    """`RandomSampler(ds, replacement=True, num_samples=int(1e10))`: the iterator re-created
    after `StopIteration` is not known to be re-created at all."""
    text = ENDLESS.format(blocking=", non_blocking=True").replace(
        "shuffle=True,", "sampler=RandomSampler(train_set, replacement=True, num_samples=int(1e10)),"
    )
    assert findings(tmp_path, monkeypatch, text, "TL106,TL203") == []


# -- loader arguments from a dictionary chosen by device ------------------------------------

BY_DEVICE = """
import torch
from torch.utils.data import DataLoader

use_cuda = torch.cuda.is_available()
device = torch.device("cuda" if use_cuda else "cpu")
kwargs = {choice}
train_loader = DataLoader(train_set, batch_size=64, shuffle=True, **kwargs)
model = Net().to(device)
for epoch in range(10):
    for data, target in train_loader:
        loss = model(data.to(device), target.to(device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""


@pytest.mark.parametrize("choice, expected", [
    ("{'num_workers': 1, 'pin_memory': True} if use_cuda else {}", [("TL106", 12), ("TL106", 12), ("TL203", 8)]),
    ("{} if args.no_cuda else {'num_workers': 1, 'pin_memory': True}", [("TL106", 12), ("TL106", 12), ("TL203", 8)]),
    ("{'num_workers': 2} if use_cuda else {}", [("TL202", 8), ("TL203", 8)]),
    ("{'pin_memory': True} if use_cuda else {}", [("TL106", 12), ("TL106", 12), ("TL201", 8)]),
    ("{'num_workers': 1, 'pin_memory': True} if use_accel else {}", [("TL106", 12), ("TL106", 12), ("TL203", 8)]),
    ("{'num_workers': 1, 'pin_memory': True} if args.fast else {}", []),  # not a question of the device
    ("{'num_workers': 0} if use_cuda else {'num_workers': 4, 'pin_memory': True}", [("TL201", 8), ("TL202", 8)]),
])
def test_loader_arguments_from_a_dictionary_chosen_by_device(tmp_path, monkeypatch, choice, expected):
    """`kwargs = {...} if use_cuda else {}` then `DataLoader(ds, **kwargs)`: the options are
    those of the branch a CUDA run takes; a run without workers or pinning on the CPU branch
    is no finding when the CUDA branch has them."""
    assert findings(tmp_path, monkeypatch, BY_DEVICE.format(choice=choice), "TL106,TL201,TL202,TL203") == expected


@pytest.mark.parametrize("test, expected", [
    ("use_cuda", [("TL106", 13), ("TL106", 13), ("TL203", 10)]),
    ("args.fast", []),  # not a question of the device: unknown
])
def test_a_dictionary_the_file_changes(tmp_path, monkeypatch, test, expected):
    """`train_kwargs.update(cuda_kwargs)` under `if use_cuda:` adds workers and pinning on the
    run that matters (read since round 9, `semantics.keyword_dicts`); under any other test the
    dict stays unknown."""
    text = """
    import torch
    from torch.utils.data import DataLoader

    use_cuda = torch.cuda.is_available()
    device = torch.device("cuda" if use_cuda else "cpu")
    train_kwargs = {'batch_size': 64}
    if TEST:
        train_kwargs.update({'num_workers': 1, 'pin_memory': True})
    train_loader = DataLoader(train_set, **train_kwargs)
    for epoch in range(10):
        for data, target in train_loader:
            loss = model(data.to(device), target.to(device))
            loss.backward()
            optimizer.step()
    """.replace("TEST", test)
    assert findings(tmp_path, monkeypatch, text, "TL106,TL201,TL202,TL203") == expected


# -- step functions an engine runs every batch ----------------------------------------------

TORCHNET = """
import torch
import torchnet as tnt
from torch.utils.data import DataLoader
from torchnet.engine import Engine


def create_iterator(mode):
    return DataLoader(make_set(mode), batch_size=128, shuffle=mode, num_workers=4, pin_memory=torch.cuda.is_available())


def main():
    model = Net().cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    {loader} = create_iterator(True)
    test_loader = create_iterator(False)
    meter_loss = tnt.meter.AverageValueMeter()

    def h(sample):
        {unpack}
        inputs = inputs.cuda()
        targets = targets.cuda()
        y = model(inputs)
        loss = torch.nn.functional.cross_entropy(y, targets)
        meter_loss.add(loss.item())
        return loss, y

    def on_forward(state):
        meter_loss.add(state['loss'].item())

    def on_end_epoch(state):
        print(meter_loss.value()[0], state['loss'].item())
        engine.test(h, {test})

    engine = Engine()
    engine.hooks['on_forward'] = on_forward
    engine.hooks['on_end_epoch'] = on_end_epoch
    engine.train(h, {loader}, 200, optimizer)


if __name__ == '__main__':
    main()
"""


@pytest.mark.parametrize("loader, unpack", [
    ("train_loader", "inputs, targets = sample[0], sample[1]"),
    ("iter_train", "inputs, targets = sample"),  # named for what it is, built by a loader builder
])
def test_a_step_function_and_hooks_an_engine_runs_every_batch(tmp_path, monkeypatch, loader, unpack):
    """torchnet's `engine.train(h, train_loader, epochs, optimizer)` runs `h` and the
    `on_forward` hook every batch: their `.item()` (TL101) and the blocking moves of the batch
    from a pinned loader (TL106) cost every step, and the engine passes over the loaders every
    epoch (TL203). The `on_end_epoch` hook runs once per epoch."""
    expected = [("TL101", 25), ("TL101", 29), ("TL106", 21), ("TL106", 22), ("TL203", 9)]
    text = TORCHNET.format(loader=loader, test="test_loader", unpack=unpack)
    assert findings(tmp_path, monkeypatch, text, "TL101,TL106,TL203") == expected


def test_an_engine_of_a_program_on_the_host_syncs_nothing(tmp_path, monkeypatch):
    """The same engine in a program that never mentions a device runs on the CPU."""
    text = TORCHNET.format(loader="train_loader", test="test_loader", unpack="inputs, targets = sample")
    text = text.replace(", pin_memory=torch.cuda.is_available()", "").replace(".cuda()", "")
    assert findings(tmp_path, monkeypatch, text, "TL101") == []


def test_a_function_handed_on_without_a_loader_is_no_step(tmp_path, monkeypatch):
    """`engine.train(h, samples, ...)` of something that is not a data loader says nothing of
    how often `h` runs."""
    assert findings(tmp_path, monkeypatch, TORCHNET.format(loader="samples", test="test_samples", unpack="inputs, targets = sample").replace(
        "samples = create_iterator(True)", "samples = make_set(True)"
    ), "TL101,TL106") == []


TRAINER_CLASS = """
import torch
from torch.utils.data import DataLoader


class Trainer:
    def __init__(self, model, optimizer, device):
        self.model = model
        self.optimizer = optimizer
        self.device = device

    def {method}(self, batch):
        x, y = batch
        loss = self.model(x.to(self.device), y.to(self.device))
        {update}
        return loss.item()


def main():
    device = torch.device("cuda")
    model = Net().to(device)
    trainer = Trainer(model, torch.optim.Adam(model.parameters()), device)
    loader = DataLoader(train_set, batch_size=32, num_workers=4, pin_memory=True, persistent_workers=True)
    for epoch in range(10):
        for batch in loader:
            trainer.{method}(batch)


main()
"""


@pytest.mark.parametrize("method, update, expected", [
    ("train_step", "self.optimizer.zero_grad(); loss.backward(); self.optimizer.step()", [("TL101", 16)]),
    ("step", "self.optimizer.zero_grad(); loss.backward(); self.optimizer.step()", [("TL101", 16)]),
    ("step", "self.steps += 1", []),  # an environment's `step()`: its value goes to the caller
])
def test_a_training_method_called_in_the_step_loop_runs_every_step(tmp_path, monkeypatch, method, update, expected):
    """A trainer class's `train_step(batch)` that runs the backward pass and the optimizer step
    itself, called once per batch of the script's loop: its `.item()` syncs every step."""
    text = TRAINER_CLASS.format(method=method, update=update)
    assert findings(tmp_path, monkeypatch, text, "TL101") == expected


# -- batches moved by a function the loop hands them to -------------------------------------

LOSS_STEP = """
import torch
from torch.utils.data import DataLoader


def loss_step(batch, unet, noise):
    latents = {moved}
    return unet(latents).mean()


def train(unet, loader, optimizer, epochs):
    for epoch in range(epochs):
        for batch in loader:
            loss = loss_step(batch, unet, torch.randn(4, device="cuda"))
            loss.backward()
            optimizer.step()


def main():
    unet = UNet().cuda()
    loader = DataLoader(ds, batch_size=4, shuffle=True, num_workers=2, persistent_workers=True)
    train(unet, loader, torch.optim.AdamW(unet.parameters()), 10)


main()
"""


@pytest.mark.parametrize("moved, expected", [
    ('batch["pixel_values"].to(unet.device)', [("TL202", 21)]),
    ("noise.to(unet.device) + batch", []),  # the callee moves another argument
    ('batch["pixel_values"].to(dtype=torch.float16).to(unet.device)', []),  # a host cast first: new, unpinned memory
])
def test_batches_moved_by_a_function_the_loop_hands_them_to(tmp_path, monkeypatch, moved, expected):
    """`loss_step(batch, unet)` moving `batch["pixel_values"]` to the device every step: the
    loader's batches reach the device from pageable memory, though the loop body moves nothing."""
    assert findings(tmp_path, monkeypatch, LOSS_STEP.format(moved=moved), "TL202") == expected


def test_a_dataset_cached_from_device_computation_is_not_pinned(tmp_path, monkeypatch):
    """A list of latents encoded on the device (`cached.append(batch)` in a loop that moves
    to `vae.device`): its items are device tensors, which `pin_memory=True` cannot pin."""
    text = LOSS_STEP.format(moved='batch["pixel_values"].to(unet.device)').replace(
        "    loader = DataLoader(ds,",
        "    cached = []\n    for item in ds:\n        item[\"pixel_values\"] = vae.encode(item[\"pixel_values\"].to(unet.device))\n"
        "        cached.append(item)\n    loader = DataLoader(cached,",
    )
    assert findings(tmp_path, monkeypatch, text, "TL202") == []
