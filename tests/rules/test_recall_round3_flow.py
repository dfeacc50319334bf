"""The third recall round of issue 25, value flow: loaders that reach a training step loop
through another function, object, module or framework. Each cause with positives and hard
negatives, in the default mode a user runs."""

from __future__ import annotations

import json
import textwrap

import pytest
from click.testing import CliRunner

from torchlint.cli import main

pytestmark = pytest.mark.stable_only


def project(tmp_path, monkeypatch, files: dict, rule: str) -> list:
    """(path, line) of one rule's findings on a small project (a marked root), default mode."""
    (tmp_path / "setup.py").write_text("")
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", rule, "--output-format", "json", "."])
    return sorted((item["path"], item["line"]) for item in json.loads(result.stdout))


LINEAR_PROBE = """
import torch
from torch.utils.data import DataLoader

device = "cuda" if torch.cuda.is_available() else "cpu"
train_loader = DataLoader(train_set, batch_size=256, num_workers=8)
test_loader = DataLoader(test_set, batch_size=512, num_workers=8)
for epoch in range(100):
    for x, y in train_loader:
        loss = criterion(model(x.to(device)), y.to(device))
        {update}
    for x, y in test_loader:
        logits = model(x.to(device))
"""


@pytest.mark.parametrize("update, reported", [
    ("optimizer.zero_grad(); loss.backward(); optimizer.step()", True),
    ("print(loss)", False),  # an evaluation program that only evaluates runs once
])
def test_a_program_named_for_evaluation_that_trains_is_a_training_program(tmp_path, monkeypatch, update, reported):
    """A linear evaluation (`feature_eval/probe.py`) fits a classifier for many epochs: its
    loaders feed training, though the directory is named for evaluation."""
    files = {"feature_eval/probe.py": LINEAR_PROBE.format(update=update)}
    expected = [("feature_eval/probe.py", 6), ("feature_eval/probe.py", 7)] if reported else []
    assert project(tmp_path, monkeypatch, files, "TL203") == expected


LISTED = """
import torch
from torch.utils.data import DataLoader

def run(rank, epochs):
    train_loader = DataLoader(train_set, num_workers=8, pin_memory=True, batch_sampler=sampler)
    eval_loader = DataLoader(eval_set, num_workers=8, pin_memory=True)
    model = Net().cuda(rank)
    for epoch in range(epochs):
        train_and_evaluate(epoch, model, [train_loader, eval_loader])

def train_and_evaluate(epoch, model, loaders):
    {unpacking}
    for x, y in train_loader:
        loss = model(x.cuda(rank, non_blocking=True), y.cuda(rank, non_blocking=True))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""


@pytest.mark.parametrize("unpacking, lines", [
    ("train_loader, eval_loader = loaders", [6]),
    ("eval_loader, train_loader = loaders", [7]),  # the loop iterates the other element
    ("train_loader = make_loader(loaders)", []),  # no unpacking: a loader of its own
])
def test_a_loader_in_a_list_argument_unpacked_by_the_callee(tmp_path, monkeypatch, unpacking, lines):
    """`train_and_evaluate(..., [train_loader, eval_loader])` every epoch, and `train_loader,
    eval_loader = loaders` in the callee: the pass over the first element repeats."""
    files = {"train.py": LISTED.format(unpacking=unpacking)}
    assert project(tmp_path, monkeypatch, files, "TL203") == [("train.py", line) for line in lines]


SIMCLR = """
import torch

class SimCLR:
    def __init__(self, model, optimizer, args):
        self.model, self.optimizer, self.args = model.to(args.device), optimizer, args

    def train(self, train_loader):
        for epoch in range(self.args.epochs):
            {body}
"""
TRAIN_BODY = """for images, _ in train_loader:
                loss = self.model(images.to(self.args.device)).sum()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()"""
RUN = """
import torch
from simclr import SimCLR

train_loader = torch.utils.data.DataLoader(train_dataset, batch_size=256, num_workers=12, pin_memory=True)
simclr = SimCLR(model=model, optimizer=optimizer, args=args)
simclr.train(train_loader)
"""


@pytest.mark.parametrize("body, reported", [
    (TRAIN_BODY, True),
    (TRAIN_BODY.replace("loss.backward()", "print(loss)"), False),  # passes again and again, but trains nothing
    ("pass\n        for images, _ in train_loader:\n            loss = self.model(images).sum(); loss.backward()", False),  # once
    (TRAIN_BODY.replace("loss.backward()", "loss.backward(); train_loader.reset()"), False),  # changes the loader
])
def test_a_loader_handed_to_a_method_of_a_class_of_another_module_that_trains_every_epoch(tmp_path, monkeypatch, body, reported):
    """`simclr.train(train_loader)` with `simclr = SimCLR(...)` imported from another module,
    whose `train` passes over its parameter in every epoch and runs a backward pass."""
    files = {"simclr.py": SIMCLR.format(body=body), "run.py": RUN}
    assert project(tmp_path, monkeypatch, files, "TL203") == ([("run.py", 5)] if reported else [])


IGNITE = """
import torch
from torch.utils.data import DataLoader
from ignite.engine import Engine, Events

def get_data_loaders(args):
    train_loader = DataLoader(train_dataset, batch_size=args.batch_size, shuffle=True, num_workers=4)
    valid_loader = DataLoader(valid_dataset, batch_size=args.batch_size, num_workers=4)
    return train_loader, valid_loader

def train(args):
    args.device = "cuda" if torch.cuda.is_available() else "cpu"
    model.to(args.device)
    train_loader, val_loader = get_data_loaders(args)

    def update(engine, batch):
        model.train()
        batch = tuple(t.to(args.device) for t in batch)
        loss = model(*batch)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        return loss

    def inference(engine, batch):
        with torch.no_grad():
            x, y = batch
            return model(x.to(args.device)), y.to(args.device)

    trainer = Engine(update)
    evaluator = Engine(inference)
    trainer.add_event_handler(Events.{event}, lambda _: evaluator.run(val_loader))
    trainer.run(train_loader, max_epochs={epochs})
"""


@pytest.mark.parametrize("event, epochs, pinned, persistent", [
    ("EPOCH_COMPLETED", "args.n_epochs", [7, 8], [7, 8]),
    ("COMPLETED", "args.n_epochs", [7], [7]),  # the evaluator runs once, after training
    ("EPOCH_COMPLETED", "1", [7, 8], [8]),  # one pass over the training data
])
def test_loaders_an_ignite_engine_runs(tmp_path, monkeypatch, event, epochs, pinned, persistent):
    """`trainer.run(train_loader, max_epochs=n)` of `trainer = Engine(update)`: `update(engine,
    batch)` runs every batch and moves it; the evaluator runs every epoch when an epoch event
    starts it."""
    files = {"train.py": IGNITE.format(event=event, epochs=epochs)}
    assert project(tmp_path, monkeypatch, files, "TL202") == [("train.py", line) for line in pinned]
    assert project(tmp_path, monkeypatch, files, "TL203") == [("train.py", line) for line in persistent]


def test_an_ignite_step_that_keeps_batches_on_the_host_pins_nothing(tmp_path, monkeypatch):
    code = IGNITE.format(event="EPOCH_COMPLETED", epochs="5").replace(".to(args.device)", "")
    assert project(tmp_path, monkeypatch, {"train.py": code}, "TL202") == []


def test_in_memory_datasets_assigned_as_a_tuple_need_no_workers(tmp_path, monkeypatch):
    code = IGNITE.format(event="EPOCH_COMPLETED", epochs="5").replace(
        "    train_loader = DataLoader", "    train_dataset, valid_dataset = TensorDataset(a), TensorDataset(b)\n    train_loader = DataLoader"
    ).replace(", num_workers=4", "").replace("from torch.utils.data import DataLoader", "from torch.utils.data import DataLoader, TensorDataset")
    assert project(tmp_path, monkeypatch, {"train.py": code}, "TL201") == []
    assert project(tmp_path, monkeypatch, {"train.py": code.replace("TensorDataset(b)", "ImageFolder(b)")}, "TL201") == [("train.py", 9)]


@pytest.mark.parametrize("move, reported", [("t.to(device)", True), ("t.float()", False)])
def test_batches_moved_element_by_element_in_a_comprehension(tmp_path, monkeypatch, move, reported):
    code = f"""
    import torch
    from torch.utils.data import DataLoader
    device = "cuda"
    loader = DataLoader(ds, batch_size=4, num_workers=4)
    for batch in loader:
        batch = tuple({move} for t in batch)
        loss = model(*batch)
        loss.backward()
        optimizer.step()
    """
    assert project(tmp_path, monkeypatch, {"train.py": code}, "TL202") == ([("train.py", 5)] if reported else [])


FIT = """
import pytorch_lightning as pl
from torch.utils.data import DataLoader

train_loader = DataLoader(train_set, batch_size=32, shuffle=True)
val_loader = DataLoader(val_set, batch_size=32, num_workers=4)
trainer = {trainer}
trainer.{method}(model, train_dataloaders=train_loader, val_dataloaders=val_loader)
"""


@pytest.mark.parametrize("trainer, method, reported", [
    ('pl.Trainer(max_epochs=10, accelerator="gpu")', "fit", True),
    ('pl.Trainer(max_epochs=10, accelerator="cpu")', "fit", False),  # told to run on the CPU
    ("Forest(n_estimators=10)", "fit", False),  # not a Lightning trainer
    ('pl.Trainer(accelerator="gpu")', "predict", False),  # one pass, no training
])
def test_loaders_handed_to_a_lightning_trainers_fit(tmp_path, monkeypatch, trainer, method, reported):
    files = {"train.py": FIT.format(trainer=trainer, method=method)}
    assert project(tmp_path, monkeypatch, files, "TL201") == ([("train.py", 5)] if reported else [])
    assert project(tmp_path, monkeypatch, files, "TL202") == ([("train.py", 5), ("train.py", 6)] if reported else [])
    assert project(tmp_path, monkeypatch, files, "TL203") == ([("train.py", 6)] if reported else [])


TRAINER = """
import torch

class Trainer:
    def __init__(self, model, optimizer, train_loader, device):
        self.model, self.optimizer, self.device = model.to(device), optimizer, device
        self.train_loader = train_loader

    def train(self, epochs):
        for epoch in range(epochs):
            for x, y in self.train_loader:
                loss = self.model({x}, {y})
                self.optimizer.zero_grad()
                {backward}
                self.optimizer.step()
"""
ENTRY_SCRIPT = """
import torch
from torch.utils.data import DataLoader
from engine.trainer import Trainer

device = torch.device("cuda")
train_loader = DataLoader(train_set, batch_size=32, num_workers=4)
Trainer(model, optimizer, train_loader, device).train(10)
"""


@pytest.mark.parametrize("x, y, backward, pinned, persistent", [
    ("x.to(self.device)", "y.to(self.device)", "loss.backward()", True, True),
    ("x", "y", "loss.backward()", False, True),  # the batches stay where they are
    ("x.to(torch.float16)", "y", "loss.backward()", False, True),  # a dtype, not a device
    ("x.to(self.device)", "y.to(self.device)", "print(loss)", False, False),  # trains nothing
])
def test_a_loader_handed_to_a_trainer_class_of_another_module(tmp_path, monkeypatch, x, y, backward, pinned, persistent):
    """`Trainer(model, optimizer, train_loader, device)` stores the loader in `__init__`
    (`self.train_loader = train_loader`) and its `train` passes over it every epoch."""
    files = {"engine/__init__.py": "", "engine/trainer.py": TRAINER.format(x=x, y=y, backward=backward), "train.py": ENTRY_SCRIPT}
    assert project(tmp_path, monkeypatch, files, "TL202") == ([("train.py", 7)] if pinned else [])
    assert project(tmp_path, monkeypatch, files, "TL203") == ([("train.py", 7)] if persistent else [])


PREPARED = """
import torch
{imports}
from torch.utils.data import DataLoader

{maker}
train_loader = DataLoader(train_set, batch_size=32, num_workers=4)
{prepare}
for epoch in range(10):
    for x, y in train_loader:
        loss = model(x, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""
ACCELERATE = ("from accelerate import Accelerator", "accelerator = Accelerator()")
FABRIC = ("import lightning as L", 'fabric = L.Fabric(accelerator="{device}")')


@pytest.mark.parametrize("framework, prepare, reported", [
    (ACCELERATE, "model, optimizer, train_loader = accelerator.prepare(model, optimizer, train_loader)", True),
    (ACCELERATE, "model, optimizer = accelerator.prepare(model, optimizer)", False),  # the loader is not prepared
    (("from mylib import Accelerator", "accelerator = Accelerator()"), "train_loader = accelerator.prepare(train_loader)", False),
    ((FABRIC[0], FABRIC[1].format(device="cuda")), "train_loader = fabric.setup_dataloaders(train_loader)", True),
    ((FABRIC[0], FABRIC[1].format(device="cpu")), "train_loader = fabric.setup_dataloaders(train_loader)", False),
])
def test_loaders_whose_batches_a_framework_object_moves(tmp_path, monkeypatch, framework, prepare, reported):
    """Accelerate's `prepare` and Fabric's `setup_dataloaders` move every batch to the device."""
    code = PREPARED.format(imports=framework[0], maker=framework[1], prepare=prepare)
    assert project(tmp_path, monkeypatch, {"train.py": code}, "TL202") == ([("train.py", 7)] if reported else [])


PINNED_SETUP = """
from torch.utils.data import DataLoader

def create_dataloaders(train_data, test_data, batch_size):
    train_dataloader = DataLoader(train_data, batch_size=batch_size, shuffle=True, num_workers=4, pin_memory={pinned})
    test_dataloader = DataLoader(test_data, batch_size=batch_size, num_workers=4, pin_memory={pinned})
    return train_dataloader, test_dataloader
"""
STEP_ENGINE = """
import torch

def train_step(model, dataloader, optimizer, device):
    for X, y in dataloader:
        loss = model(X.to(device), y.to(device{asynchronous}))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

def train(model, train_dataloader, optimizer, epochs, device):
    for epoch in range(epochs):
        train_step(model, train_dataloader, optimizer, device)
"""
STEP_SCRIPT = """
import torch
import data_setup, engine

device = "cuda" if torch.cuda.is_available() else "cpu"
train_dataloader, test_dataloader = data_setup.create_dataloaders(train_data, test_data, 32)
engine.train(model=model, train_dataloader={handed}, optimizer=optimizer, epochs=5, device=device)
"""


@pytest.mark.parametrize("pinned, asynchronous, handed, moves", [
    ("True", "", "train_dataloader", [("engine.py", 6), ("engine.py", 6)]),
    ("True", ", non_blocking=True", "train_dataloader", [("engine.py", 6)]),  # one move blocks
    ("False", "", "train_dataloader", []),  # pageable memory: nothing to overlap
    # not the loader itself, but a list of its batches: pinned all the same, as every loader
    # the project builds pins (`project.project_pins_loaders`)
    ("True", "", "list(train_dataloader)", [("engine.py", 6), ("engine.py", 6)]),
])
def test_batches_of_a_pinned_loader_another_module_hands_to_a_function(tmp_path, monkeypatch, pinned, asynchronous, handed, moves):
    """The builder pins memory, the script hands its first loader to `engine.train`, which
    hands it to `train_step`: the moves there block on pinned batches (TL106)."""
    files = {
        "data_setup.py": PINNED_SETUP.format(pinned=pinned),
        "engine.py": STEP_ENGINE.format(asynchronous=asynchronous),
        "train.py": STEP_SCRIPT.format(handed=handed),
    }
    assert project(tmp_path, monkeypatch, files, "TL106") == moves


AGENT = """
import torch

class Agent:
    def act(self, state):
        with torch.no_grad():
            return self.net(state.cuda()).argmax(1).item()

    def learn(self, memory):
        loss = self.net(memory.sample()).mean()
        loss.backward()
        self.optimiser.step()
"""
ACTING = """
import torch
from agent import Agent

dqn = Agent()
for T in range(100000):
    action = dqn.act(state)
    {use}
    loss = dqn.net(batch.cuda()).mean()
    loss.backward()
    optimizer.step()
"""


@pytest.mark.parametrize("use, reported", [
    ("state, reward, done = env.step(action)", False),  # the environment takes a host action
    ("actions.append(action)", True),
])
def test_a_method_of_an_instance_of_a_project_class_that_reads_back(tmp_path, monkeypatch, use, reported):
    """`dqn.act(state)` with `dqn = Agent()` resolves to the method of another module; its
    `.item()` is what an environment needs, not a cost."""
    files = {"agent.py": AGENT, "main.py": ACTING.format(use=use)}
    found = [finding for finding in project(tmp_path, monkeypatch, files, "TL101") if finding[0] == "main.py"]
    assert found == ([("main.py", 7)] if reported else [])


BUILDER = """
from torch.utils.data import DataLoader

def get_loaders(cfg):
    train_loader = DataLoader(train_set, batch_size=cfg.batch_size, shuffle=True, num_workers=4)
    test_loader = DataLoader(test_set, batch_size=cfg.batch_size, num_workers=4)
    return train_loader, test_loader
"""
LOOPING_SCRIPT = """
import torch
from data import get_loaders

device = torch.device("cuda")
train_loader, test_loader = get_loaders(cfg)
for epoch in range(cfg.epochs):
    for x, y in train_loader:
        loss = model(x.to(device), y.to(device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
for x, y in test_loader:
    print(model(x.to(device)))
"""


@pytest.mark.parametrize("script, lines", [
    (LOOPING_SCRIPT, [5]),  # the test loader is moved once, after training
    (LOOPING_SCRIPT.replace("x.to(device), y.to(device)", "x, y"), []),  # nothing moved
    (LOOPING_SCRIPT.replace("for epoch in range(cfg.epochs):\\n    for x, y in train_loader:", "for x, y in train_loader:\\n    if True:"), [5]),  # trains
])
def test_loaders_a_builder_module_returns_in_a_tuple_to_a_script_that_moves_their_batches(tmp_path, monkeypatch, script, lines):
    files = {"data.py": BUILDER, "train.py": script}
    assert project(tmp_path, monkeypatch, files, "TL202") == [("data.py", line) for line in lines]


DATASET_CLASS = """
from torch.utils.data import DataLoader, Dataset

class SeriesDataset(Dataset):
    def to_dataloader(self, train=True, batch_size=64, **kwargs):
        defaults = dict(shuffle=train, batch_size=batch_size{extra})
        defaults.update(kwargs)
        return DataLoader(self, **defaults)
"""
FORECAST = """
import lightning.pytorch as pl
from series import SeriesDataset

training = SeriesDataset(data)
train_dataloader = training.to_dataloader(train=True, batch_size=64, num_workers={workers})
trainer = pl.Trainer(max_epochs=10, accelerator="gpu")
trainer.fit(model, train_dataloaders=train_dataloader)
"""


@pytest.mark.parametrize("extra, workers, unworked, unpinned, respawned", [
    ("", "0", [6], [6], []),
    ("", "2", [], [6], [6]),
    (", pin_memory=True, persistent_workers=True", "2", [], [], []),  # the factory sets them itself
])
def test_a_loader_factory_method_handed_to_a_lightning_fit(tmp_path, monkeypatch, extra, workers, unworked, unpinned, respawned):
    """`training.to_dataloader(..., num_workers=0)`: a method of a dataset class of another
    module that returns `DataLoader(self, **kwargs)` with the keywords it is given."""
    files = {"series.py": DATASET_CLASS.format(extra=extra), "train.py": FORECAST.format(workers=workers)}
    for rule, lines in (("TL201", unworked), ("TL202", unpinned), ("TL203", respawned)):
        assert project(tmp_path, monkeypatch, files, rule) == [("train.py", line) for line in lines]


def test_a_function_that_does_not_forward_its_keywords_is_no_loader_factory(tmp_path, monkeypatch):
    dataset = DATASET_CLASS.format(extra="").replace("return DataLoader(self, **defaults)", "return DataLoader(self, batch_size=batch_size)")
    files = {"series.py": dataset, "train.py": FORECAST.format(workers="0")}
    # Not the call in train.py: its `num_workers=0` reaches no loader. The loader the method
    # builds itself is returned to the trainer's `fit` (round 19), without workers.
    assert project(tmp_path, monkeypatch, files, "TL201") == [("series.py", 8)]


@pytest.mark.parametrize("limits, respawned", [("max_steps=100", []), ("max_steps=100, max_epochs=5", [6]), ("", [6])])
def test_a_trainer_limited_by_steps_alone_may_never_start_a_second_epoch(tmp_path, monkeypatch, limits, respawned):
    files = {"train.py": FIT.format(trainer=f'pl.Trainer({limits})', method="fit")}
    assert project(tmp_path, monkeypatch, files, "TL203") == [("train.py", line) for line in respawned]
    assert project(tmp_path, monkeypatch, files, "TL202") == [("train.py", 5), ("train.py", 6)]


RANDOM_TOKENS = """
import torch
from torch.utils.data import Dataset

class RandomTokenDataset(Dataset):
    def __init__(self, vocab_size, seq_length):
        self.tokens = torch.randint(vocab_size, size=(1000, seq_length + 1))
    def __len__(self):
        return len(self.tokens)
    def __getitem__(self, index):
        return self.tokens[index]
"""


@pytest.mark.parametrize("dataset, reported", [
    (RANDOM_TOKENS, False),  # made-up data: nothing to load or pin
    # a whole-file load in `__init__` is one-time: the items are in memory (`dataset_items`)
    (RANDOM_TOKENS.replace("self.tokens = torch.randint(vocab_size, size=(1000, seq_length + 1))", "self.tokens = torch.load(path)"), False),
    # a memory-mapped load is read item by item
    (RANDOM_TOKENS.replace("self.tokens = torch.randint(vocab_size, size=(1000, seq_length + 1))", "self.tokens = torch.load(path, mmap=True)"), True),
])
def test_a_dataset_class_of_another_module_that_makes_its_data_up(tmp_path, monkeypatch, dataset, reported):
    script = FIT.format(trainer='pl.Trainer(accelerator="gpu")', method="fit").replace(
        "from torch.utils.data import DataLoader", "from torch.utils.data import DataLoader\nfrom data import RandomTokenDataset"
    ).replace("DataLoader(train_set,", "DataLoader(RandomTokenDataset(100, 128),")
    files = {"data.py": dataset, "train.py": script}
    assert project(tmp_path, monkeypatch, files, "TL201") == ([("train.py", 6)] if reported else [])
    assert (("train.py", 6) in project(tmp_path, monkeypatch, files, "TL202")) == reported


@pytest.mark.parametrize("check, reported", [
    # an `assert` runs unless Python is started with `-O` (round 23)
    ("assert torch.equal(state[k].cpu(), reference[k]), k", True),
    ("same = torch.equal(state[k].cpu(), reference[k])", True),
])
def test_a_read_back_in_an_assert_is_a_read_back(tmp_path, monkeypatch, check, reported):
    code = f"""
    import torch
    device = torch.device("cuda")
    for epoch in range(100):
        for x, y in train_loader:
            loss = model(x.to(device), y.to(device))
            loss.backward()
            optimizer.step()
        for k in reference:
            {check}
    """
    assert project(tmp_path, monkeypatch, {"train.py": code}, "TL101") == ([("train.py", 10)] if reported else [])


def test_loaders_handed_to_training_in_test_code_are_not_reported(tmp_path, monkeypatch):
    """The same hand-offs in a test module (`tests/test_fit.py`) run once in CI."""
    fit = FIT.format(trainer='pl.Trainer(max_epochs=10, accelerator="gpu")', method="fit")
    trainer = {"engine/__init__.py": "", "engine/trainer.py": TRAINER.format(x="x.to(self.device)", y="y", backward="loss.backward()")}
    files = {"tests/test_fit.py": fit, "tests/test_trainer.py": ENTRY_SCRIPT, **trainer}
    for rule in ("TL201", "TL202", "TL203"):
        assert project(tmp_path, monkeypatch, files, rule) == []
