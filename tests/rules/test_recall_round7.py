"""The seventh recall round of issue 25: loaders and batches followed where earlier rounds
lost them. A DataLoader subclass that hands its own parameters on to DataLoader, built in a
LightningDataModule's hook; a pinned loader handed to a function of another module that
wraps it (`tqdm.tqdm(train_loader)`) before its loop; a move inside a wrapper call on one
branch of an `if` (`x = Variable(x.cuda())`). Each with positives and hard negatives, in the
default mode a user runs."""

from __future__ import annotations

import json
import textwrap
from typing import Dict

import pytest
from click.testing import CliRunner
from conftest import project_findings

from torchlint.cli import main

pytestmark = pytest.mark.stable_only


def findings(tmp_path, monkeypatch, files: Dict[str, str], rules: str) -> set:
    return project_findings(tmp_path, monkeypatch, files, rules)


# -- a DataLoader subclass that forwards its parameters ------------------------------------

SUBCLASS = """
import torch
from torch.utils.data import DataLoader


class AudioDataLoader(DataLoader):
    def __init__(self, dataset, num_workers, batch_sampler, **kwargs):
        super().__init__(dataset=dataset, num_workers=num_workers, batch_sampler=batch_sampler, **kwargs)
        self.collate_fn = collate


def collate(batch):
    return batch
"""

DATA_MODULE = """
import pytorch_lightning as pl
from data_loader import AudioDataLoader


class SpeechData(pl.LightningDataModule):
    def train_dataloader(self):
        return AudioDataLoader(dataset=self.train_set, num_workers=self.num_workers, batch_sampler=self.sampler)

    def val_dataloader(self):
        return AudioDataLoader(dataset=self.val_set, num_workers=self.num_workers, batch_sampler=self.sampler, pin_memory=True)
"""


def test_a_subclass_that_forwards_its_parameters_is_a_dataloader(tmp_path, monkeypatch):
    files = {"data_loader.py": SUBCLASS, "data_module.py": DATA_MODULE}
    assert findings(tmp_path, monkeypatch, files, "TL202,TL203") == {
        ("data_module.py", "TL202", 8),
        ("data_module.py", "TL203", 8),
        ("data_module.py", "TL203", 11),  # pinned, but its workers still restart every epoch
    }


@pytest.mark.parametrize(
    "change",
    [
        # a default of its own: a call without the argument does not get DataLoader's
        ("def __init__(self, dataset, num_workers, batch_sampler, **kwargs):",
         "def __init__(self, dataset, num_workers=4, batch_sampler=None, **kwargs):"),
        # an option of the loader set after the base's `__init__`
        ("self.collate_fn = collate", "self.pin_memory = True"),
        # a parameter handed on under another value
        ("num_workers=num_workers", "num_workers=batch_sampler.workers"),
    ],
)
def test_a_subclass_that_changes_the_arguments_is_not(tmp_path, monkeypatch, change):
    files = {"data_loader.py": SUBCLASS.replace(*change), "data_module.py": DATA_MODULE}
    assert findings(tmp_path, monkeypatch, files, "TL202,TL203") == set()


# -- a pinned loader wrapped by the function that loops over it ----------------------------

LOADERS = """
from torch.utils.data import DataLoader


def create_dataloader(dataset, batch_size):
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=4, pin_memory=True)
"""

TRAINER = """
import torch
import tqdm


def train(model, optimizer, trainloader, epochs):
    for epoch in range(epochs):
        loader = tqdm.tqdm(trainloader, desc="train")
        for (mel, audio) in loader:
            mel = mel.cuda()
            audio = audio.cuda()
            loss = (model(mel) - audio).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
"""

MAIN = """
import torch
from loaders import create_dataloader
from trainer import train

model = torch.nn.Linear(8, 8).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
train(model, optimizer, create_dataloader(dataset, 16), 10)
"""

MAIN_BOUND = MAIN.replace("train(model, optimizer, create_dataloader(dataset, 16), 10)",
                          "train_loader = create_dataloader(dataset, 16)\ntrain(model, optimizer, train_loader, 10)")


def test_a_wrapped_parameter_of_another_module_is_the_pinned_loader(tmp_path, monkeypatch):
    files = {"loaders.py": LOADERS, "trainer.py": TRAINER, "main.py": MAIN_BOUND}
    assert findings(tmp_path, monkeypatch, files, "TL106") == {("trainer.py", "TL106", 10), ("trainer.py", "TL106", 11)}


@pytest.mark.parametrize(
    "change",
    [
        ("pin_memory=True", "pin_memory=False"),  # not pinned
        ('loader = tqdm.tqdm(trainloader, desc="train")', 'loader = tqdm.tqdm(other_batches, desc="train")'),  # not the parameter
        ("        for (mel, audio) in loader:", "        loader = list(loader)\n        for (mel, audio) in loader:"),  # bound twice
    ],
)
def test_a_wrapped_name_that_is_not_the_pinned_parameter_is_not(tmp_path, monkeypatch, change):
    old, new = change
    files = {"loaders.py": LOADERS.replace(old, new), "trainer.py": TRAINER.replace(old, new), "main.py": MAIN_BOUND}
    # The project also builds a loader that does not pin: no project-wide inference
    # (`project.project_pins_loaders`) stands in for the parameter's calls.
    files["evaluate.py"] = "from torch.utils.data import DataLoader\nloader = DataLoader(dataset, batch_size=64)\n"
    assert findings(tmp_path, monkeypatch, files, "TL106") == set()


# -- a move inside a wrapper, on one branch of an `if` --------------------------------------

HAND_DRAWN = """
import torch
from torch.autograd import Variable
from torch.utils.data import DataLoader


def train(args, net, optimizer, dataset):
    loader = DataLoader(dataset, args.batch_size, num_workers=4, shuffle=True, pin_memory=True)
    batches = iter(loader)
    for iteration in range(args.max_iter):
        images, targets = next(batches)
        if args.cuda:
            images = Variable(images.cuda())
        else:
            images = Variable(images)
        loss = net(images, targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""


def test_a_move_wrapped_on_one_branch_blocks(tmp_path, monkeypatch):
    assert findings(tmp_path, monkeypatch, {"train.py": HAND_DRAWN}, "TL106") == {("train.py", "TL106", 13)}


def test_a_batch_rebound_before_the_move_on_its_branch_is_not_the_pinned_batch(tmp_path, monkeypatch):
    code = HAND_DRAWN.replace("            images = Variable(images.cuda())", "            images = images.float()\n            images = Variable(images.cuda())")
    assert findings(tmp_path, monkeypatch, {"train.py": code}, "TL106") == set()


# -- a step function returned by a factory and called every batch ---------------------------

FACTORY = """
import torch


def make_train_step(model, loss_fn, optimizer):
    def perform_train_step(x, y):
        model.train()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        return loss.item()
    return perform_train_step


model = torch.nn.Linear(2, 1).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
train_step = make_train_step(model, torch.nn.MSELoss(), optimizer)
for epoch in range(10):
    for x, y in loader:
        loss = train_step(x.cuda(), y.cuda())
"""

KEPT_ON_SELF = """
import torch


class StepByStep:
    def __init__(self, model, loss_fn, optimizer):
        self.model = model.to("cuda")
        self.loss_fn = loss_fn
        self.optimizer = optimizer
        self.train_step_fn = self._make_train_step_fn()

    def _make_train_step_fn(self):
        def perform_train_step_fn(x, y):
            self.model.train()
            loss = self.loss_fn(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            self.optimizer.zero_grad()
            return loss.item()
        return perform_train_step_fn

    def _mini_batch(self):
        step_fn = self.train_step_fn
        losses = []
        for x, y in self.train_loader:
            losses.append(step_fn(x.to("cuda"), y.to("cuda")))
        return losses

    def train(self, n_epochs):
        for epoch in range(n_epochs):
            self._mini_batch()
"""


@pytest.mark.parametrize("code, line", [(FACTORY, 12), (KEPT_ON_SELF, 19)])
def test_a_returned_step_function_runs_as_often_as_its_calls(tmp_path, monkeypatch, code, line):
    assert findings(tmp_path, monkeypatch, {"train.py": code}, "TL101") == {("train.py", "TL101", line)}


@pytest.mark.parametrize(
    "change",
    [
        # called once, after training, not in a loop
        ("for epoch in range(10):\n    for x, y in loader:\n        loss = train_step(x.cuda(), y.cuda())",
         "loss = train_step(x.cuda(), y.cuda())"),
        # called only every 100 steps
        ("        loss = train_step(x.cuda(), y.cuda())", "        if step % args.log_interval == 0:\n            loss = train_step(x.cuda(), y.cuda())"),
    ],
)
def test_a_returned_function_called_rarely_or_not_at_all_is_not(tmp_path, monkeypatch, change):
    assert findings(tmp_path, monkeypatch, {"train.py": FACTORY.replace(*change)}, "TL101") == set()


def test_a_returned_step_function_handed_elsewhere_is_a_step_by_its_effects(tmp_path, monkeypatch):
    """The factory's result is never called here: whoever calls the inner function runs a
    backward pass and an optimizer step with each call."""
    code = FACTORY.replace("train_step = make_train_step(model, torch.nn.MSELoss(), optimizer)", "register(make_train_step)")
    assert findings(tmp_path, monkeypatch, {"train.py": code}, "TL101") == {("train.py", "TL101", 12)}


# -- a loss function of another module that reads its components back every step ----------

UTILS = """
def to_cpu(tensor):
    return tensor.detach().cpu()
"""

LOSS = """
import torch
from utils import to_cpu


def compute_loss(predictions, targets):
    lbox = (predictions - targets).abs().mean()
    lobj = (predictions * targets).mean()
    loss = lbox + lobj
    return loss, to_cpu(torch.stack((lbox, lobj, loss)))
"""

TRAIN = """
import torch
import tqdm
from loss import compute_loss

model = torch.nn.Linear(4, 4).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(1, 10):
    for i, (x, y) in enumerate(tqdm.tqdm(loader, desc=f"Training Epoch {epoch}")):
        loss, components = compute_loss(model(x.cuda()), y.cuda())
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
"""


def test_a_read_back_in_a_loss_function_called_every_step_is_reported(tmp_path, monkeypatch):
    files = {"utils.py": UTILS, "loss.py": LOSS, "train.py": TRAIN}
    assert findings(tmp_path, monkeypatch, files, "TL101") == {("loss.py", "TL101", 10)}


@pytest.mark.parametrize(
    "change",
    [
        # an evaluation loop: no backward pass, no optimizer step
        ("        loss.backward()\n        optimizer.step()\n        optimizer.zero_grad()\n", ""),
        # only when a step fails
        ("        loss, components = compute_loss(model(x.cuda()), y.cuda())",
         "        try:\n            loss = model(x.cuda()).sum()\n        except RuntimeError:\n            loss, components = compute_loss(model(x.cuda()), y.cuda())"),
    ],
)
def test_a_loss_function_called_rarely_is_not(tmp_path, monkeypatch, change):
    files = {"utils.py": UTILS, "loss.py": LOSS, "train.py": TRAIN.replace(*change)}
    assert ("loss.py", "TL101", 10) not in findings(tmp_path, monkeypatch, files, "TL101")


# -- names unpacked from a module's outputs are tensors -------------------------------------

UNPACKED = """
import torch
import model

net = model.resnet50(num_classes=80)
if torch.cuda.is_available():
    net = torch.nn.DataParallel(net).cuda()
else:
    net = torch.nn.DataParallel(net)
optimizer = torch.optim.Adam(net.parameters())
for epoch in range(10):
    for data in loader:
        optimizer.zero_grad()
        classification_loss, regression_loss = net([data["img"].cuda(), data["annot"]])
        loss = classification_loss.mean() + regression_loss.mean()
        if bool(loss == 0):
            continue
        loss.backward()
        optimizer.step()
        history.append(float(loss))
"""


def test_names_unpacked_from_a_modules_outputs_are_tensors(tmp_path, monkeypatch):
    assert findings(tmp_path, monkeypatch, {"train.py": UNPACKED}, "TL103") == {("train.py", "TL103", 16), ("train.py", "TL103", 20)}


@pytest.mark.parametrize(
    "line",
    [
        "        height, width = loss.shape\n        history.append(float(height))\n",  # sizes, not tensors
        "        mean, scale = statistics(data)\n        history.append(float(mean))\n",  # an unknown function's values
        "        first, *rest = loss.unbind()\n        history.append(float(len(rest)))\n",  # a starred name holds a list
    ],
)
def test_unpacked_names_that_are_not_tensors_are_not(tmp_path, monkeypatch, line):
    code = UNPACKED.replace("        loss.backward()\n", line + "        loss.backward()\n")
    assert findings(tmp_path, monkeypatch, {"train.py": code}, "TL103") == {("train.py", "TL103", 16), ("train.py", "TL103", 22)}


# -- `.item()` of each element of a tensor, in a loop over its elements --------------------

ELEMENTS = """
import numpy as np
import torch


def validate(model, val_loader, device):
    for batch in val_loader:
        mels, lengths = [b.to(device) for b in batch]
        with torch.no_grad():
            out = model(mels)
        clips = []
        for i in range(len(lengths)):
            length = int(lengths[i].item())
            start = np.random.randint(0, length)
            clips.append(out[i, :, start:])


def train(model, optimizer, train_loader, val_loader, device, epochs):
    for epoch in range(epochs):
        for mels, lengths in train_loader:
            loss = model(mels.to(device)).mean()
            loss.backward()
            optimizer.step()
        validate(model, val_loader, device)
"""

MASKED = """
import torch
from torch import nn


class MaskConv(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.layers = layers

    def forward(self, inputs, seq_lengths):
        for layer in self.layers:
            output = layer(inputs)
            mask = torch.zeros(output.size(), dtype=torch.bool).to(output.device)
            for idx, length in enumerate(seq_lengths):
                length = length.item()
                mask[idx, :, length:] = True
            inputs = output.masked_fill(mask, 0)
        return inputs
"""


def test_item_of_each_element_of_a_device_tensor_every_step(tmp_path, monkeypatch):
    assert findings(tmp_path, monkeypatch, {"train.py": ELEMENTS}, "TL101") == {("train.py", "TL101", 13)}


def test_item_of_each_element_in_a_forward_alone_is_not(tmp_path, monkeypatch):
    # the lengths a forward receives may be on the host (`lengths.cpu()` for packing)
    assert findings(tmp_path, monkeypatch, {"train.py": MASKED}, "TL101") == set()


@pytest.mark.parametrize(
    "change",
    [
        # the lengths stay on the host: only the features are moved
        ("        mels, lengths = [b.to(device) for b in batch]\n", "        mels, lengths = batch\n        mels = mels.to(device)\n"),
        # validation never runs: the training function does not call it
        ("        validate(model, val_loader, device)\n", ""),
        # the loop walks another tensor's indices
        ("for i in range(len(lengths)):", "for i in range(len(mels)):"),
    ],
)
def test_item_of_elements_once_or_on_the_host_is_not(tmp_path, monkeypatch, change):
    assert findings(tmp_path, monkeypatch, {"train.py": ELEMENTS.replace(*change)}, "TL101") == set()


def test_item_of_each_element_in_test_code_is_not(tmp_path, monkeypatch):
    code = ELEMENTS + "\n\ndef test_validate():\n    validate(model, loader, 'cuda')\n"
    assert findings(tmp_path, monkeypatch, {"test_validation.py": code}, "TL101") == set()


# -- a loader cycled by a generator and drawn with next() ----------------------------------

CYCLED = """
import torch
from torch.utils import data


def sample_data(loader):
    while True:
        for batch in loader:
            yield batch


def train(args, loader, generator, g_optim, device):
    loader = sample_data(loader)
    for idx in range(args.iter):
        real_img = next(loader)
        real_img = real_img.to(device)
        loss = generator(real_img).mean()
        g_optim.zero_grad()
        loss.backward()
        g_optim.step()


if __name__ == "__main__":
    device = "cuda"
    loader = data.DataLoader(dataset, batch_size=args.batch, shuffle=True, drop_last=True)
    train(args, loader, generator, g_optim, device)
"""


def test_a_loader_cycled_by_a_generator_feeds_every_step(tmp_path, monkeypatch):
    assert findings(tmp_path, monkeypatch, {"train.py": CYCLED}, "TL201,TL202") == {("train.py", "TL201", 25), ("train.py", "TL202", 25)}


@pytest.mark.parametrize(
    "change",
    [
        ("            yield batch", "            yield len(batch)"),  # yields something else
        ("        for batch in loader:", "        for batch in [1, 2]:"),  # walks another iterable
        ("        real_img = next(loader)\n", "        real_img = torch.randn(4, 3)\n"),  # never drawn
    ],
)
def test_a_generator_that_does_not_hand_out_the_batches_is_not(tmp_path, monkeypatch, change):
    assert findings(tmp_path, monkeypatch, {"train.py": CYCLED.replace(*change)}, "TL201,TL202") == set()


# -- a Lightning loader hook bound with `functools.partial` --------------------------------

PARTIAL_HOOK = """
from functools import partial

import pytorch_lightning as pl
from torch.utils.data import DataLoader


class DataModuleFromConfig(pl.LightningDataModule):
    def __init__(self, batch_size, train=None, validation=None, num_workers=4):
        super().__init__()
        self.batch_size = batch_size
        self.num_workers = num_workers
        if train is not None:
            self.train_dataloader = self._train_dataloader
        if validation is not None:
            self.val_dataloader = partial(self._val_dataloader, shuffle=False)

    def _train_dataloader(self):
        return DataLoader(self.datasets["train"], batch_size=self.batch_size, num_workers=self.num_workers, shuffle=True)

    def _val_dataloader(self, shuffle=False):
        return DataLoader(self.datasets["validation"], batch_size=self.batch_size, num_workers=self.num_workers, shuffle=shuffle)

    def _test_dataloader(self, shuffle=False):
        return DataLoader(self.datasets["test"], batch_size=self.batch_size, num_workers=self.num_workers, shuffle=shuffle)
"""


def test_a_loader_hook_bound_with_partial_feeds_every_epoch(tmp_path, monkeypatch):
    assert findings(tmp_path, monkeypatch, {"data.py": PARTIAL_HOOK}, "TL202,TL203") == {
        ("data.py", code, line) for code in ("TL202", "TL203") for line in (19, 22)
    }


# -- a Lightning 1.x project whose trainers choose no device trains on the CPU --------------

LIGHTNING_DATA = """
import pytorch_lightning as pl
from torch.utils.data import DataLoader


class Data(pl.LightningDataModule):
    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=32, shuffle=True, num_workers=4)
"""

LIGHTNING_MAIN = """
import pytorch_lightning as pl
from data import Data
from model import Model

trainer = pl.Trainer(max_epochs=10)
trainer.fit(Model(), datamodule=Data())
"""


@pytest.mark.parametrize(
    "requirements, main, reported",
    [
        ("pytorch-lightning==1.5.10\n", LIGHTNING_MAIN, False),  # 1.x: no device option, the CPU
        ("pytorch-lightning==1.5.10\n", LIGHTNING_MAIN.replace("max_epochs=10", "max_epochs=10, gpus=1"), True),
        ("pytorch-lightning==1.5.10\n", LIGHTNING_MAIN.replace("max_epochs=10", "**config.trainer"), True),
        ("pytorch-lightning>=1.5\n", LIGHTNING_MAIN, True),  # 2.x may be installed: it picks the GPU
        ("lightning==2.2.0\n", LIGHTNING_MAIN, True),
        ("", LIGHTNING_MAIN, True),  # no declared version
    ],
)
def test_a_lightning_1_project_without_a_device_option_trains_on_the_cpu(tmp_path, monkeypatch, requirements, main, reported):
    (tmp_path / "requirements.txt").write_text(requirements)
    files = {"data.py": LIGHTNING_DATA, "main.py": main}
    assert (("data.py", "TL202", 8) in findings(tmp_path, monkeypatch, files, "TL202")) is reported


def test_a_changed_requirement_changes_cached_results(tmp_path, monkeypatch):
    (tmp_path / "setup.py").write_text("")
    (tmp_path / "requirements.txt").write_text("pytorch-lightning>=1.5\n")
    (tmp_path / "data.py").write_text(textwrap.dedent(LIGHTNING_DATA))
    (tmp_path / "main.py").write_text(textwrap.dedent(LIGHTNING_MAIN))
    monkeypatch.chdir(tmp_path)

    def reported() -> bool:
        result = CliRunner().invoke(main, ["check", "--isolated", "--cache-dir", "cache", "--select", "TL202", "--output-format", "json", "."])
        return bool(json.loads(result.stdout))

    assert reported()
    (tmp_path / "requirements.txt").write_text("pytorch-lightning==1.5.10\n")
    assert not reported()


# -- a Lightning callback's batch hooks; an interval read from a configuration -------------

CALLBACK = """
import pytorch_lightning as pl
import torch


class LossHistory(pl.Callback):
    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        self.history.append(outputs["loss"].item())

    def on_train_epoch_end(self, trainer, pl_module):
        print(trainer.callback_metrics["loss"].item())
"""


def test_a_lightning_callback_batch_hook_runs_every_batch(tmp_path, monkeypatch):
    assert findings(tmp_path, monkeypatch, {"callbacks.py": CALLBACK}, "TL101") == {("callbacks.py", "TL101", 8)}


INTERVAL = """
import torch

model = torch.nn.Linear(2, 2).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
seen = 0
for x, y in loader:
    loss = model(x.cuda()).sum()
    loss.backward()
    optimizer.step()
    seen += len(x)
    if seen % cfg["train"]["log_every"] == 0:
        print(loss.item())
    if seen % cfg["train"]["chunk"] == 0:
        print(loss.item())
"""


def test_an_interval_read_from_a_configuration_is_rare(tmp_path, monkeypatch):
    assert findings(tmp_path, monkeypatch, {"train.py": INTERVAL}, "TL101") == {("train.py", "TL101", 15)}


# -- `find_unused_parameters` from an option that is on unless turned off ------------------

DDP = """
import argparse
import torch
from torch.nn.parallel import DistributedDataParallel as DDP

parser = argparse.ArgumentParser()
parser.add_argument("--find-unused", type=bool, default=True)
args = parser.parse_args()
model = DDP(torch.nn.Linear(2, 2).cuda(), device_ids=[0], find_unused_parameters=args.find_unused)
"""


@pytest.mark.parametrize("default, reported", [("True", True), ("False", False), ("None", False)])
def test_find_unused_parameters_on_by_default(tmp_path, monkeypatch, default, reported):
    code = DDP.replace("default=True", f"default={default}")
    assert bool(findings(tmp_path, monkeypatch, {"train.py": code}, "TL502")) is reported


# -- DataParallel that never runs the model -------------------------------------------------

CONVERSION = """
import argparse
import torch

parser = argparse.ArgumentParser()
parser.add_argument("--gpus", type=int, default=2)


def train(net, loader, optimizer):
    model = torch.nn.DataParallel(net).cuda()
    for x in loader:
        model(x.cuda()).sum().backward()
        optimizer.step()


if __name__ == "__main__":
    wrapped = torch.nn.DataParallel(net)
    wrapped.load_state_dict(torch.load("old.pt"))
    torch.save(wrapped.module.state_dict(), "new.pt")
    torch.save(torch.nn.DataParallel(net).state_dict(), "prefixed.pt")
"""


def test_a_wrapper_only_for_its_weights_is_not_data_parallel_training(tmp_path, monkeypatch):
    assert findings(tmp_path, monkeypatch, {"train.py": CONVERSION}, "TL501") == {("train.py", "TL501", 10)}


def test_a_wrapper_that_is_also_run_is(tmp_path, monkeypatch):
    code = CONVERSION.replace('    torch.save(wrapped.module.state_dict(), "new.pt")\n', '    wrapped(torch.zeros(1, 2)).sum().backward()\n')
    code += "    train(net, loader, optimizer)\n"  # a function nothing calls never runs
    assert findings(tmp_path, monkeypatch, {"train.py": code}, "TL501") == {("train.py", "TL501", 10), ("train.py", "TL501", 17)}


# -- branches that no call in the project takes --------------------------------------------

OPTIONAL_MODEL = """
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self, use_mask=False, scale=None):
        super().__init__()
        self.use_mask = use_mask
        self.scale = scale
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        if self.use_mask:
            x = x * torch.ones(x.shape).cuda()
        if self.scale is None:
            s = torch.ones(1).cuda()
        else:
            s = torch.zeros(1).cuda()
        return self.fc(x) * s
"""


@pytest.mark.parametrize(
    "build, lines",
    [
        ("Net(scale=2.0)", {19}),  # no mask; a scale: only the `else` runs
        ("Net(use_mask=True, scale=2.0)", {15, 19}),
        ("Net()", {17}),  # neither
        ("Net(use_mask=flags.mask, scale=flags.scale)", {15, 17, 19}),  # options: any branch
        ("Net(**config)", {15, 17, 19}),  # unknown arguments
    ],
)
def test_a_branch_no_call_takes_is_not_reported(tmp_path, monkeypatch, build, lines):
    files = {"model.py": OPTIONAL_MODEL, "train.py": f"import torch\nfrom model import Net\nnet = {build}.cuda()\n"}
    assert {line for _, _, line in findings(tmp_path, monkeypatch, files, "TL102")} == lines


def test_a_branch_of_a_class_nothing_builds_is_reported(tmp_path, monkeypatch):
    files = {"model.py": OPTIONAL_MODEL, "train.py": "import torch\nfrom model import Net\n"}
    assert {line for _, _, line in findings(tmp_path, monkeypatch, files, "TL102")} == {15, 17, 19}


# -- a loader an evaluation script builds and passes over once, which training re-iterates --

EVALUATION = """
import torch
import tqdm
from torch.utils.data import DataLoader


def evaluate(model, dataloader):
    model.eval()
    for images, targets in tqdm.tqdm(dataloader, desc="Validating"):
        with torch.no_grad():
            outputs = model(images.cuda())


def create_validation_loader(path, batch_size, n_cpu):
    dataloader = DataLoader(ListDataset(path), batch_size=batch_size, shuffle=False, num_workers=n_cpu, pin_memory=True)
    return dataloader


def run():
    model = load_model().cuda()
    evaluate(model, create_validation_loader("val.txt", 8, 4))


if __name__ == "__main__":
    run()
"""

TRAINING = """
import torch
from test import create_validation_loader, evaluate

model = Model().cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
validation_loader = create_validation_loader("val.txt", 8, 4)
for epoch in range(1, 100):
    for images, targets in train_loader:
        model(images.cuda()).sum().backward()
        optimizer.step()
    if epoch % args.evaluation_interval == 0:
        evaluate(model, validation_loader)
"""


def test_a_loader_training_evaluates_every_few_epochs_restarts_its_workers(tmp_path, monkeypatch):
    files = {"test.py": EVALUATION, "train.py": TRAINING}
    assert ("test.py", "TL203", 15) in findings(tmp_path, monkeypatch, files, "TL203")


def test_a_loader_only_its_own_script_passes_over_once_does_not(tmp_path, monkeypatch):
    files = {"test.py": EVALUATION, "train.py": TRAINING.replace("validation_loader = create_validation_loader(\"val.txt\", 8, 4)\n", "").replace("evaluate(model, validation_loader)", "pass")}
    assert ("test.py", "TL203", 15) not in findings(tmp_path, monkeypatch, files, "TL203")


# -- a metric helper of another module, called for every batch of a per-epoch validation ----

METRICS = """
import torch


def recall_at_k(scores, labels, ks):
    metrics = {}
    for k in sorted(ks, reverse=True):
        hits = labels.float().gather(1, scores.argsort(dim=1)[:, :k])
        metrics["Recall@%d" % k] = hits.sum(1).mean().cpu().item()
    return metrics
"""

SUBCLASS_TRAINER = """
from base import BaseTrainer
from metrics import recall_at_k


class SeqTrainer(BaseTrainer):
    def calculate_metrics(self, batch):
        seqs, labels = batch
        return recall_at_k(self.model(seqs), labels, self.metric_ks)
"""

BASE_TRAINER = """
import torch


class BaseTrainer:
    def __init__(self, model):
        self.device = torch.device("cuda")
        self.model = model.to(self.device)

    def train(self):
        for epoch in range(self.num_epochs):
            for batch in self.train_loader:
                loss = self.calculate_loss([x.to(self.device) for x in batch])
                loss.backward()
                self.optimizer.step()
            self.validate()

    def validate(self):
        self.model.eval()
        with torch.no_grad():
            for batch in self.val_loader:
                metrics = self.calculate_metrics([x.to(self.device) for x in batch])
"""


def test_a_metric_helper_called_every_validation_batch_syncs_every_batch(tmp_path, monkeypatch):
    files = {"metrics.py": METRICS, "seq.py": SUBCLASS_TRAINER, "base.py": BASE_TRAINER}
    assert findings(tmp_path, monkeypatch, files, "TL101") == {("metrics.py", "TL101", 9)}


@pytest.mark.parametrize(
    "change",
    [
        ("            self.validate()\n", ""),  # validation never runs in training
        ("            self.validate()\n", "            if epoch == self.num_epochs - 1:\n                self.validate()\n"),  # once, at the end
    ],
)
def test_a_metric_helper_of_an_evaluation_that_does_not_repeat_is_not(tmp_path, monkeypatch, change):
    files = {"metrics.py": METRICS, "seq.py": SUBCLASS_TRAINER, "base.py": BASE_TRAINER.replace(*change)}
    assert findings(tmp_path, monkeypatch, files, "TL101") == set()


# -- an agent's update in an environment loop: its loss is not the action -------------------

AGENT = """
import torch


class DQNAgent:
    def __init__(self, env, net, optimizer, memory):
        self.env, self.net, self.optimizer, self.memory = env, net.cuda(), optimizer, memory

    def q_value(self, state):
        return self.net(torch.as_tensor(state).cuda()).argmax().item()

    def update_model(self):
        loss = self.net(self.memory.sample().cuda()).pow(2).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def train(self, num_frames):
        state = self.env.reset()
        losses = []
        for frame_idx in range(num_frames):
            best = self.q_value(state)
            action = best if frame_idx > 100 else self.env.action_space.sample()
            next_state, reward, done, info = self.env.step(action)
            self.memory.store(state, action, reward, next_state, done)
            state = next_state
            if len(self.memory) >= 32:
                loss = self.update_model()
                losses.append(loss)
"""


def test_an_update_helpers_loss_in_an_environment_loop_syncs_every_update(tmp_path, monkeypatch):
    # the loss is reported; the Q-value becomes the action the environment takes
    assert findings(tmp_path, monkeypatch, {"agent.py": AGENT}, "TL101") == {("agent.py", "TL101", 17)}


# -- a read-back in the branch that runs only without CUDA ---------------------------------

CPU_BRANCH = """
import torch

model = torch.nn.Linear(4, 4).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x in loader:
    if torch.cuda.is_available():
        x = x.cuda()
    else:
        x = x.cpu()
    loss = model(x).sum()
    loss.backward()
    optimizer.step()
    if not x.is_cuda:
        print(loss.cpu())
    else:
        print(loss.cpu())
"""


def test_a_read_back_only_without_cuda_is_not_a_sync(tmp_path, monkeypatch):
    assert findings(tmp_path, monkeypatch, {"train.py": CPU_BRANCH}, "TL101") == {("train.py", "TL101", 17)}


# -- a conv whose bias is a block's parameter left at its `True` default ----------------------

CONV_BLOCK = """
import torch
from torch import nn


class ConvBN(nn.Module):
    def __init__(self, cin, cout, kernel, bias=True):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, kernel, padding=1, bias=bias)
        self.bn = nn.BatchNorm2d(cout)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(ConvBN(3, 16, 3), ConvBN(16, 32, 3))

    def forward(self, x):
        return self.features(x)


model = Net().cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    model(x.cuda()).sum().backward()
    optimizer.step()
"""


@pytest.mark.parametrize("build, reported", [("ConvBN(16, 32, 3)", True), ("ConvBN(16, 32, 3, bias=False)", False), ("ConvBN(16, 32, 3, bias=flags.bias)", False)])
def test_a_bias_parameter_left_at_true_before_a_norm(tmp_path, monkeypatch, build, reported):
    code = CONV_BLOCK.replace("ConvBN(16, 32, 3)", build)
    assert bool(findings(tmp_path, monkeypatch, {"model.py": code}, "TL301")) is reported


# -- a value read back for the environment, then again ---------------------------------------

TWICE = """
import torch

policy = torch.nn.Linear(4, 2).cuda()
optimizer = torch.optim.SGD(policy.parameters(), lr=0.1)
for episode in range(100):
    state = env.reset()
    for t in range(200):
        action = policy(torch.as_tensor(state).cuda()).argmax()
        next_state, reward, done, info = env.step(action.item())
        taken.append(action.item())
        action = action * 2
        doubled.append(action.item())
        state = next_state
        loss = policy(memory.sample().cuda()).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""


def test_a_value_already_read_back_for_the_environment_waits_for_nothing(tmp_path, monkeypatch):
    assert findings(tmp_path, monkeypatch, {"agent.py": TWICE}, "TL101") == {("agent.py", "TL101", 13)}


# -- a training script named like a test, with its own `test()` evaluation -----------------

TEST_NAMED = """
import torch

model = torch.nn.Linear(4, 2).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def test():
    correct = 0
    for x, y in test_loader:
        correct += (model(x.cuda()).argmax(1) == y.cuda()).sum().item()
    return correct


for epoch in range(10):
    for x, y in train_loader:
        loss = model(x.cuda()).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    test()
"""


@pytest.mark.parametrize(
    "change, reported",
    [
        (("", ""), True),  # its own `test()`, called after every epoch
        (("    test()\n", ""), False),  # a test function nobody calls: a test module
        (("import torch\n", "import torch\nimport pytest\n"), False),
    ],
)
def test_a_training_script_named_like_a_test(tmp_path, monkeypatch, change, reported):
    code = TEST_NAMED.replace(*change) if change[0] else TEST_NAMED
    assert bool(findings(tmp_path, monkeypatch, {"pmnist_test.py": code}, "TL101")) is reported


# -- numbers a module's forward returns -----------------------------------------------------

FORWARD_NUMBERS = """
import torch
from torch import nn


class NVIL(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(4, 1)

    def forward(self, x):
        d = self.net(x).pow(2)
        r = self.net(x).abs()
        width = int(x.shape[1])
        loss = (d + r).mean()
        return {"loss": loss, "D": d.mean().item(), "R": r.mean().item(), "cpu": r.cpu()}


model = NVIL().cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x in loader:
    out = model(x.cuda())
    out["loss"].backward()
    optimizer.step()
"""


def test_item_of_values_forward_returns_every_step(tmp_path, monkeypatch):
    assert findings(tmp_path, monkeypatch, {"model.py": FORWARD_NUMBERS}, "TL101") == {("model.py", "TL101", 16)}


def test_item_in_forward_of_a_class_nothing_builds_is_not(tmp_path, monkeypatch):
    code = FORWARD_NUMBERS.replace("model = NVIL().cuda()", "model = nn.Linear(4, 1).cuda()").replace('out["loss"]', "out.sum()")
    assert findings(tmp_path, monkeypatch, {"model.py": code}, "TL101") == set()


LIGHTNING_PREDICT = """
import pytorch_lightning as pl
import torch


class Classifier(pl.LightningModule):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        return self.net(x).argmax(-1).tolist()

    def training_step(self, batch, batch_idx):
        x, y = batch
        return torch.nn.functional.cross_entropy(self.net(x), y)
"""


@pytest.mark.parametrize("step, reported", [("self.net(x)", False), ("self(x)", True)])
def test_a_lightning_forward_counts_when_its_training_step_calls_it(tmp_path, monkeypatch, step, reported):
    code = LIGHTNING_PREDICT.replace("cross_entropy(self.net(x), y)", f"cross_entropy({step}, y)")
    files = {"module.py": code, "train.py": "import torch\nfrom module import Classifier\nmodel = Classifier(torch.nn.Linear(2, 2)).cuda()\nloss = model.training_step(batch, 0)\nloss.backward()\n"}
    assert bool(findings(tmp_path, monkeypatch, files, "TL101")) is reported


def test_a_wrapper_rebinding_the_models_name_only_for_its_weights(tmp_path, monkeypatch):
    code = CONVERSION.replace(
        '    wrapped = torch.nn.DataParallel(net)\n    wrapped.load_state_dict(torch.load("old.pt"))\n    torch.save(wrapped.module.state_dict(), "new.pt")\n',
        '    out = net(torch.zeros(1, 2))\n    net = torch.nn.DataParallel(net)\n    torch.save({"model_state": net.state_dict()}, "new.pt")\n',
    ).replace('    torch.save(torch.nn.DataParallel(net).state_dict(), "prefixed.pt")\n', "")
    assert findings(tmp_path, monkeypatch, {"train.py": code}, "TL501") == {("train.py", "TL501", 10)}


REPLAY = """
import torch

policy = torch.nn.Linear(4, 2).cuda()
optimizer = torch.optim.SGD(policy.parameters(), lr=0.1)
for episode in range(100):
    for step in range(collect_steps):
        loss = policy(memory.sample(32).cuda()).sum()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        stats.append(loss.cpu())
    with torch.no_grad():
        for t in range(200):
            action = policy(obs.cuda())
            memory.append(obs, action.cpu())
"""


def test_an_action_stored_in_a_replay_memory_other_loops_sample_is_needed(tmp_path, monkeypatch):
    assert findings(tmp_path, monkeypatch, {"agent.py": REPLAY}, "TL101") == {("agent.py", "TL101", 12)}


def test_a_requirements_file_of_the_modules_own_directory_counts(tmp_path, monkeypatch):
    (tmp_path / "week_1").mkdir()
    (tmp_path / "week_1" / "requirements.txt").write_text("pytorch-lightning==1.2.10\n")
    (tmp_path / "week_2").mkdir()
    (tmp_path / "week_2" / "requirements.txt").write_text("lightning==2.2.0\n")
    (tmp_path / "setup.py").write_text("")
    for week in ("week_1", "week_2"):
        (tmp_path / week / "data.py").write_text(textwrap.dedent(LIGHTNING_DATA))
        (tmp_path / week / "main.py").write_text(textwrap.dedent(LIGHTNING_MAIN))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", "TL202", "--output-format", "json", "."])
    # week 1 pins Lightning 1.2, whose trainer without a device option runs on the CPU; week 2's picks the GPU
    assert [item["path"].replace("\\", "/") for item in json.loads(result.stdout)] == ["week_2/data.py"]


def test_only_the_trainers_of_the_sub_project_a_requirements_file_governs_count(tmp_path, monkeypatch):
    (tmp_path / "setup.py").write_text("")
    mains = {"week_0": LIGHTNING_MAIN.replace("max_epochs=10", "max_epochs=10, gpus=1"), "week_1": LIGHTNING_MAIN}
    for week, trainer in mains.items():
        (tmp_path / week).mkdir()
        (tmp_path / week / "requirements.txt").write_text("pytorch-lightning==1.2.10\n")
        (tmp_path / week / "data.py").write_text(textwrap.dedent(LIGHTNING_DATA))
        (tmp_path / week / "main.py").write_text(textwrap.dedent(trainer))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", "TL202", "--output-format", "json", "."])
    # week 0's trainer asks for a GPU; week 1's, a separate copy with its own pin, runs on the CPU
    assert [item["path"].replace("\\", "/") for item in json.loads(result.stdout)] == ["week_0/data.py"]



@pytest.mark.parametrize("root_pin, week_pin, reported", [
    ("pytorch-lightning==1.2.10\n", "lightning==2.2.0\n", True),
    ("lightning==2.2.0\n", "pytorch-lightning==1.2.10\n", False),
    ("pytorch-lightning==1.2.10\n", "torchvision\n", False),
])
def test_the_nearest_dependency_file_that_names_lightning_decides(tmp_path, monkeypatch, root_pin, week_pin, reported):
    """A week's own pin decides over the repository's (Lightning 2's trainer picks the GPU,
    1.2's runs on the CPU); a week file silent on Lightning defers to the repository's."""
    (tmp_path / "setup.py").write_text("")
    (tmp_path / "requirements.txt").write_text(root_pin)
    (tmp_path / "week_1").mkdir()
    (tmp_path / "week_1" / "requirements.txt").write_text(week_pin)
    (tmp_path / "week_1" / "data.py").write_text(textwrap.dedent(LIGHTNING_DATA))
    (tmp_path / "week_1" / "main.py").write_text(textwrap.dedent(LIGHTNING_MAIN))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", "TL202", "--output-format", "json", "."])
    assert [item["path"].replace("\\", "/") for item in json.loads(result.stdout)] == (["week_1/data.py"] if reported else [])
