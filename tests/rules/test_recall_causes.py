"""The causes of missed findings on unseen code (issue 25), each with a positive and a hard
negative, in the default mode a user runs: step loops decided by effects, framework contracts,
loaders followed through aliases and loop headers, per-N-epoch work, imported `test.py`."""

from __future__ import annotations

import json
import textwrap

import pytest
from click.testing import CliRunner

from conftest import lint
from torchlint.cli import main

pytestmark = pytest.mark.stable_only

HEAD = """
import torch
from torch.utils.data import DataLoader
from tqdm import tqdm
device = torch.device("cuda")
"""


def found(code: str, rule: str) -> list:
    return [finding.line for finding in lint(HEAD + textwrap.dedent(code), [rule])]


def test_a_loop_that_trains_is_a_step_loop_whatever_its_bound_is_named():
    code = """
    def train(loader, iters_per_epoch):
        it = iter(loader)
        for i in range(iters_per_epoch):
            x, y = next(it)
            loss = model(x.to(device)).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
            print(loss.item())
    """
    assert found(code, "TL101") == [15]
    per_epoch = """
    def fit(loader, epochs):
        for epoch in range(epochs):
            for x in loader:
                loss = model(x.to(device)).sum()
                loss.backward()
                opt.step()
            print(evaluate(model).item())
    """
    assert found(per_epoch, "TL101") == []  # once per epoch: the inner loop trains, not this one


def test_validation_every_n_epochs_is_per_epoch_work_and_arithmetic_is_no_guard():
    code = """
    def validate(loader):
        correct = 0
        for x, y in loader:
            correct += (model(x.to(device)).argmax(-1) == y.to(device)).sum().item()
        return correct
    def main(loader, val_loader, epochs, val_freq):
        for epoch in range(epochs):
            for x, y in loader:
                loss = model(x.to(device)).sum()
                loss.backward()
                opt.step()
                if x.size(0) % 2 == 0:
                    print(loss.item())
                if step % log_every == 0:
                    print(loss.item())
            if epoch % val_freq == 0:
                validate(val_loader)
    """
    assert found(code, "TL101") == [10, 19]  # not the one under the step interval (line 21)


def test_a_loader_wrapped_in_a_progress_bar_and_one_built_in_the_loop_header():
    code = """
    def train(loader):
        pbar = tqdm(loader)
        for x, y in pbar:
            loss = model(x.to(device)).sum()
            loss.backward()
            opt.step()
    def main(ds):
        loader = DataLoader(ds, batch_size=64)
        train(loader)
        for epoch in range(10):
            for x, y in DataLoader(ds, batch_size=64, shuffle=True):
                loss = model(x.to(device)).sum()
                loss.backward()
                opt.step()
        unused = DataLoader(ds, batch_size=64)
        bar = tqdm(unused)
    """
    assert found(code, "TL201") == [14, 17]
    assert found(code, "TL202") == [14, 17]


LIGHTNING = """
import torch
import pytorch_lightning as pl
from torch.utils.data import DataLoader

class Base(pl.LightningModule):
    pass

class Model(Base):
    def training_step(self, batch, batch_idx):
        loss = self.net(batch).mean()
        self.log("loss", loss.item())
        return loss

    def validation_step(self, batch, batch_idx):
        preds = self.net(batch).argmax(-1)
        self.outputs.append(preds.cpu().numpy())
        self.log("acc", (preds == 0).float().mean().item())

class Data(pl.LightningDataModule):
    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=32, shuffle=True)

    def test_dataloader(self):
        return DataLoader(self.test_set, batch_size=32)

class Plain:
    def training_step(self, batch):
        return self.net(batch).mean().item()
"""


def test_lightning_batch_hooks_run_every_step():
    assert [f.line for f in lint(LIGHTNING, ["TL101"])] == [12, 18]  # not the `.numpy()` output, nor `Plain`


def test_lightning_training_loaders_feed_every_step():
    assert [f.line for f in lint(LIGHTNING, ["TL201"])] == [22]
    assert [f.line for f in lint(LIGHTNING, ["TL202"])] == [22]


def test_an_ignite_process_function_runs_every_iteration():
    code = """
    import torch
    from ignite.engine import Engine, Events
    def update(engine, batch):
        loss = model(batch.cuda()).sum()
        loss.backward()
        optimizer.step()
        return loss.item()
    def summary(engine, batch):
        return model(batch.cuda()).sum().item()
    trainer = Engine(update)
    """
    assert [f.line for f in lint(textwrap.dedent(code), ["TL101"])] == [8]


def test_eval_without_no_grad_every_epoch_is_reported_by_default():
    code = """
    def validate(loader):
        model.eval()
        return sum(model(x.to(device)).sum() for x in loader)
    def never_called(loader):
        model.eval()
        return sum(model(x.to(device)).sum() for x in loader)
    for epoch in range(10):
        train(model)
        validate(val_loader)
    """
    assert found(code, "TL402") == [8]


TRAIN = """
import torch
from test import evaluate
model = torch.nn.Linear(4, 2).cuda()
for epoch in range(10):
    for x, y in loader:
        loss = model(x.cuda()).sum()
        loss.backward()
        opt.step()
    evaluate(model, val_loader)
"""
EVALUATE = """
import torch
def evaluate(model, loader):
    total = 0
    for x, y in loader:
        total += (model(x.cuda()).argmax(1) == y.cuda()).sum().item()
    return total
"""


@pytest.mark.parametrize("imported", [True, False])
def test_a_test_module_the_training_script_imports_is_not_test_code(tmp_path, monkeypatch, imported):
    (tmp_path / "train.py").write_text(TRAIN if imported else TRAIN.replace("from test import", "from metrics import"))
    (tmp_path / "test.py").write_text(EVALUATE)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", "TL101", "--output-format", "json", "."])
    paths = [item["path"].rsplit("/", 1)[-1] for item in json.loads(result.stdout)]
    assert paths == (["test.py"] if imported else [])


def test_a_dataset_of_random_tensors_made_in_its_init_has_no_loading_work():
    code = LIGHTNING.replace("DataLoader(self.train_set,", "DataLoader(RandomDataset(32, 64),") + (
        "\nclass RandomDataset(torch.utils.data.Dataset):\n"
        "    def __init__(self, size, length):\n        self.data = torch.randn(length, size)\n"
        "    def __getitem__(self, index):\n        return self.data[index]\n"
    )
    assert [f.line for f in lint(code, ["TL201"])] == []


def test_a_demo_module_that_only_tests_import_is_still_a_demo(tmp_path, monkeypatch):
    (tmp_path / "demos").mkdir()
    (tmp_path / "demos" / "boring.py").write_text(LIGHTNING)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_boring.py").write_text("from demos.boring import Data\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", "TL201", "--output-format", "json", "."])
    assert json.loads(result.stdout) == []


def test_a_factory_moved_after_a_conversion_a_wrapper_or_arithmetic():
    code = """
    from torch.autograd import Variable
    for x in loader:
        a = torch.arange(10).long().to(device)
        b = Variable(torch.ones(4, 1)).cuda()
        c = (torch.randn(4, 8) * 0.1).cuda()
        d = torch.randn(4, 8).view(2, 16).cuda()
        e = (torch.randn(4, 8) * x).cuda()
        f = torch.randn(4, 8).numpy()
        loss = model(x.cuda())
        loss.backward()
        opt.step()
    """
    findings = [f for f in lint(HEAD + textwrap.dedent(code), ["TL102"])]
    assert [f.line for f in findings] == [9, 10, 11, 12]  # not `* x` (a batch, maybe on the device)
    assert all(f.fix is None for f in findings)  # the rewrite through a conversion is the user's


def test_batches_moved_under_a_derived_name_need_pinned_memory():
    code = """
    from torch.autograd import Variable
    loader = DataLoader(ds, batch_size=64, num_workers=4)
    for epoch in range(10):
        for data in loader:
            img, label = data
            img = img.view(img.size(0), -1)
            out = model(Variable(img).cuda())
            loss = out.sum()
            loss.backward()
            opt.step()
    other = DataLoader(ds, batch_size=64, num_workers=4)
    for data in other:
        img = preprocess(data)
        out = model(img.cuda())
    """
    assert found(code, "TL202") == [8]  # not `other`: `preprocess` may return anything


def test_lightning_training_step_gets_the_advice_unless_the_trainer_sets_it():
    assert [(f.code, f.line) for f in lint(LIGHTNING, ["TL601"])] == [("TL601", 10)]
    chosen = LIGHTNING + '\ntrainer = pl.Trainer(precision="bf16-mixed")\n'
    assert lint(chosen, ["TL601"]) == []
    assert lint(LIGHTNING.replace("pl.LightningModule", "torch.nn.Module"), ["TL601"]) == []


def test_a_dataset_that_reads_files_is_not_in_memory_though_it_makes_tensors():
    code = LIGHTNING.replace("DataLoader(self.train_set,", "DataLoader(Speech(path),") + (
        "\nclass Speech(torch.utils.data.Dataset):\n"
        "    def __init__(self, path):\n        self.lines = open(path).readlines()\n        self.stats = torch.zeros(2)\n"
        "    def __getitem__(self, index):\n        return open(self.lines[index].strip()).read()\n"
    )  # (a file read per item: only a list of its lines read once would be in memory)
    assert [f.line for f in lint(code, ["TL201"])] == [22]


def test_a_subset_of_a_made_up_dataset_held_in_an_attribute_is_in_memory():
    code = LIGHTNING.replace(
        "DataLoader(self.train_set,", "DataLoader(self.random_train,"
    ).replace(
        "class Data(pl.LightningDataModule):",
        "class Data(pl.LightningDataModule):\n    def setup(self, stage):\n"
        "        self.random_full = RandomDataset(32, 256)\n"
        "        self.random_train = torch.utils.data.Subset(self.random_full, range(64))\n",
    ) + (
        "\nclass RandomDataset(torch.utils.data.Dataset):\n"
        "    def __init__(self, size, length):\n        self.data = torch.randn(length, size)\n"
        "    def __getitem__(self, index):\n        return self.data[index]\n"
    )
    assert lint(code, ["TL201"]) == []


BUILDERS = """
from torch.utils.data import DataLoader

def build_loaders(train_set, val_set):
    train_loader = DataLoader(train_set, batch_size=64, shuffle=True)
    return train_loader, DataLoader(val_set, batch_size=64)

def build_unused(ds):
    return DataLoader(ds)
"""
SCRIPT = """
import torch
from data import build_loaders
model = torch.nn.Linear(4, 2).cuda()
train_loader, val_loader = build_loaders(a, b)
for x, y in train_loader:
    model(x.cuda()).sum().backward()
    opt.step()
"""


@pytest.mark.parametrize("trains", [True, False])
def test_a_loader_a_builder_returns_to_a_training_script(tmp_path, monkeypatch, trains):
    (tmp_path / "data.py").write_text(BUILDERS)
    (tmp_path / "train.py").write_text(SCRIPT if trains else SCRIPT.replace(".backward()", ".item()"))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", "TL201", "--output-format", "json", "data.py"])
    assert [item["line"] for item in json.loads(result.stdout)] == ([5, 6] if trains else [])


def test_evaluation_after_the_training_step_of_the_same_function():
    code = """
    def train(epoch):
        optimizer.zero_grad()
        loss = model(features.to(device)).sum()
        loss.backward()
        optimizer.step()
        model.eval()
        val = model(features.to(device))
        return val
    def saliency(x):
        model.eval()
        out = model(x.to(device))
        out.sum().backward()
    def stepwise(batches):
        for x in batches:
            model.eval()
            out = model(x.to(device))
            out.sum().backward()
    for epoch in range(10):
        train(epoch)
        saliency(x)
        stepwise(batches)
    """
    findings = lint(HEAD + textwrap.dedent(code), ["TL402"])
    assert [f.line for f in findings] == [12] and findings[0].fix is None  # the fix would stop the backward


def test_lightning_loaders_with_workers_are_iterated_again_every_epoch():
    code = LIGHTNING.replace("DataLoader(self.train_set, batch_size=32, shuffle=True)", "DataLoader(self.train_set, batch_size=32, num_workers=8)")
    assert [f.line for f in lint(code, ["TL203"])] == [22]
    kept = code.replace("num_workers=8)", "num_workers=8, persistent_workers=True)")
    assert lint(kept, ["TL203"]) == []


def test_lightning_loaders_of_a_trainer_told_to_run_on_the_cpu_or_of_made_up_data():
    assert lint(LIGHTNING + '\ntrainer = pl.Trainer(accelerator="cpu")\n', ["TL202"]) == []
    assert lint(LIGHTNING + '\nsettings = {"accelerator": "cpu"}\n', ["TL202"]) == []
    made_up = LIGHTNING.replace("DataLoader(self.train_set,", "DataLoader(Tokens(),") + (
        "\nclass Tokens(torch.utils.data.IterableDataset):\n"
        "    def __iter__(self):\n        yield torch.randint(0, 100, (32,))\n"
    )
    assert lint(made_up, ["TL202"]) == []


def test_a_lightning_loader_hook_bound_by_assignment():
    code = LIGHTNING.replace(
        "    def train_dataloader(self):",
        "    def __init__(self):\n        self.train_dataloader = self._train\n\n    def _train(self):",
    )
    assert [f.line for f in lint(code, ["TL201"])] == [25]
    assert lint(code.replace("self.train_dataloader = self._train", "self.other = self._train"), ["TL201"]) == []


def test_a_loop_over_a_literal_range_of_one_runs_once():
    code = """
    def test(loader):
        for x, y in loader:
            print(model(x.to(device)).sum().item())
    for epoch in range(0, 1):
        train(model)
        test(test_loader)
    for epoch in range(2):
        test(val_loader)
    """
    assert found(code, "TL101") == [9]
    assert found(code.replace("range(2)", "range(1)"), "TL101") == []


def test_batches_drawn_by_next_a_prefetcher_loop_a_generator_and_the_second_loader_of_zip():
    code = """
    class Trainer:
        def __init__(self, loader):
            self.data = iter(loader)
        def step(self, batch):
            loss = self.model(batch.to(device)).sum()
            loss.backward()
            self.opt.step()
            return loss
        def fit(self, iters):
            for i in range(iters):
                batch = next(self.data)
                print(self.step(batch).item())
    def prefetch_loop(prefetcher):
        batch = prefetcher.next()
        while batch is not None:
            loss = model(batch).sum()
            loss.backward()
            opt.step()
            total = loss.item()
            batch = prefetcher.next()
    def gen_loop(gen):
        for x, y in gen:
            loss = model(x.to(device)).sum()
            loss.backward()
            opt.step()
            print(loss.item())
    def zipped(source_loader, target_loader):
        for (xs, ys), (xt, _) in zip(source_loader, target_loader):
            loss = model(xs.to(device)).sum() + model(xt.to(device)).sum()
            loss.backward()
            opt.step()
    def main(ds, ds2):
        a = DataLoader(ds, batch_size=8)
        b = DataLoader(ds2, batch_size=8)
        for epoch in range(10):
            zipped(a, b)
    """
    assert found(code, "TL101") == [18, 25, 32]
    assert found(code, "TL201") == [39, 40]
    assert found(code, "TL202") == [39, 40]


def test_evaluation_through_a_helper_that_runs_the_module():
    code = """
    class Experiment:
        def _process_one_batch(self, x):
            return self.model(x.to(device))
        @torch.no_grad()
        def _quiet(self, x):
            return self.model(x.to(device))
        def vali(self, loader):
            self.model.eval()
            return [self._process_one_batch(x) for x in loader]
        def vali_quiet(self, loader):
            self.model.eval()
            return [self._quiet(x) for x in loader]
        def fit(self):
            for epoch in range(10):
                self.train_epoch()
                self.vali(self.val_loader)
                self.vali_quiet(self.val_loader)
    def run_model(net, x):
        return net(x.to(device))
    def validate(loader):
        model.eval()
        def run_validate(loader):
            with torch.no_grad():
                return [model(x.to(device)) for x in loader]
        return run_validate(loader)
    def evaluate(model, loader):
        model.eval()
        return [run_model(model, x) for x in loader]
    for epoch in range(10):
        evaluate(model, val_loader)
        validate(val_loader)
    """
    assert found(code, "TL402") == [14, 33]


LOSSES = """
import torch

def discriminator_loss(real_outputs, fake_outputs):
    loss, values = 0, []
    for real, fake in zip(real_outputs, fake_outputs):
        term = torch.mean((1 - real) ** 2) + torch.mean(fake ** 2)
        loss += term
        values.append(term.item())
    return loss, values
"""
TRAINER = """
import torch
from losses import generator_loss,\\
    discriminator_loss

def train(loader, epochs):
    for epoch in range(epochs):
        for x in loader:
            loss, _ = discriminator_loss(D(x.cuda()), D(G(x.cuda())))
            loss.backward()
            optimizer.step()
"""


@pytest.mark.parametrize("per_step", [True, False])
def test_a_helper_of_another_module_called_every_training_step(tmp_path, monkeypatch, per_step):
    (tmp_path / "losses.py").write_text(LOSSES)
    once = "def check(x):\n    loss, _ = discriminator_loss(D(x.cuda()), D(G(x.cuda())))\n"
    trainer = TRAINER if per_step else TRAINER.split("def train")[0] + once
    (tmp_path / "train.py").write_text(trainer)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", "TL101", "--output-format", "json", "losses.py"])
    assert [item["line"] for item in json.loads(result.stdout)] == ([9] if per_step else [])


def test_the_first_few_steps_are_rare_and_a_larger_bound_is_not():
    code = """
    for ni, (x, y) in enumerate(loader):
        loss = model(x.to(device)).sum()
        loss.backward()
        opt.step()
        if ni < 3:
            plot(x.cpu())
        if ni < n_warmup:
            print(loss.item())
    """
    assert found(code, "TL101") == [14]


def test_mirror_causes_a_placeholder_made_when_a_value_is_missing_and_plots():
    code = """
    def dummy(device):
        return torch.zeros(2, 3).to(device)
    for ni, x in enumerate(loader):
        if ignore_grad and x is None:
            x = dummy(device)
        if plots:
            show(x.cpu())
        loss = model(x.to(device)).sum()
        loss.backward()
        opt.step()
    """
    assert found(code, "TL102") == [] and found(code, "TL101") == []


@pytest.mark.parametrize("name", ["bench.py", "benchmark_step.py", "training.py"])
def test_benchmark_scripts_are_benchmark_code(tmp_path, monkeypatch, name):
    (tmp_path / name).write_text(TRAIN.replace("        opt.step()\n", "        opt.step()\n        print(loss.item())\n"))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", "TL101", "--output-format", "json", name])
    assert len(json.loads(result.stdout)) == (1 if name == "training.py" else 0)


def test_evaluation_that_switches_back_to_training_at_its_end():
    code = """
    def vali(loader):
        model.eval()
        losses = [model(x.to(device)).sum() for x in loader]
        model.train()
        return losses
    def toggled(x):
        model.eval()
        model.train()
        return model(x.to(device))
    for epoch in range(10):
        vali(val_loader)
        toggled(x)
    """
    assert found(code, "TL402") == [8]


UTILS = """
def accuracy(scores, targets, k):
    _, ind = scores.topk(k, 1, True, True)
    return ind.eq(targets.view(-1, 1)).float().sum().item() * 100.0 / targets.size(0)

def mean(values):
    return sum(values) / len(values)
"""
STEP = """
import torch
from utils import *
for epoch in range(10):
    for imgs, caps in loader:
        scores = decoder(imgs.cuda())
        loss = criterion(scores, caps.cuda())
        loss.backward()
        optimizer.step()
        top5 = accuracy(scores, caps, 5)
        average = mean([1.0, 2.0])
"""


def test_a_metric_helper_of_another_module_that_returns_a_host_value(tmp_path, monkeypatch):
    (tmp_path / "utils.py").write_text(UTILS)
    (tmp_path / "train.py").write_text(STEP)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", "TL101", "--output-format", "json", "train.py"])
    assert [item["line"] for item in json.loads(result.stdout)] == [10]


def test_a_hugging_face_trainer_subclass_computes_its_loss_every_step():
    code = """
    import torch
    from transformers import Trainer
    class DistillTrainer(Trainer):
        def compute_loss(self, model, inputs, return_outputs=False):
            loss = model(**inputs).loss
            self.history.append(loss.item())
            return loss
    class Report:
        def compute_loss(self, model, inputs):
            return model(**inputs).loss.item()
    """
    assert [f.line for f in lint(textwrap.dedent(code), ["TL101"])] == [7]


def test_a_loader_name_rebound_before_training_belongs_to_the_new_loader():
    code = """
    loader = DataLoader(ds, batch_size=8, num_workers=4)
    x, y = next(iter(loader))
    loader = DataLoader(ds, batch_size=32, num_workers=4)
    loader = fabric.setup_dataloaders(loader)
    def train(data):
        for x, y in data:
            loss = model(x.to(device)).sum()
            loss.backward()
            opt.step()
    for epoch in range(10):
        train(loader)
    """
    assert found(code, "TL202") == [9] and found(code, "TL203") == [9]


def test_a_loader_returned_by_a_builder_of_the_same_file_is_iterated_every_epoch():
    code = """
    def set_loader(opt):
        train_loader = DataLoader(train_set, batch_size=64, num_workers=16)
        val_loader = DataLoader(val_set, batch_size=64, num_workers=8)
        probe = DataLoader(val_set, batch_size=1, num_workers=2)
        return train_loader, val_loader, probe
    def train(loader):
        for x, y in loader:
            loss = model(x.to(device)).sum()
            loss.backward()
            opt.step()
    def main(opt):
        train_loader, val_loader, probe = set_loader(opt)
        for epoch in range(10):
            train(train_loader)
            train(val_loader)
        x = next(iter(probe))
    """
    assert found(code, "TL203") == [8, 9]


def test_code_under_the_profiler_runs_to_be_measured():
    code = """
    def train_step(loader):
        with torch.profiler.profile(on_trace_ready=handler):
            for x, y in loader:
                loss = model(x.to(device)).sum()
                loss.backward()
                opt.step()
                total = loss.item()
        for x, y in loader:
            loss = model(x.to(device)).sum()
            loss.backward()
            opt.step()
            total = loss.item()
    """
    assert found(code, "TL101") == [18]


METRICS = """
import torch

def metrics(model, loader):
    return [model(user, item) for user, item in loader]

@torch.no_grad()
def quiet_metrics(model, loader):
    return [model(user, item) for user, item in loader]

def save(model, path):
    torch.save(model.state_dict(), path)
"""
MAIN = """
import torch
import evaluate
model = Net().cuda()
for epoch in range(10):
    train(model)
    model.eval()
    HR = evaluate.{name}(model, {second})
"""


@pytest.mark.parametrize("name, reported", [("metrics", True), ("quiet_metrics", False), ("save", False)])
def test_evaluation_run_by_a_function_of_another_module(tmp_path, monkeypatch, name, reported):
    (tmp_path / "evaluate.py").write_text(METRICS)
    (tmp_path / "main.py").write_text(MAIN.format(name=name, second="'model.pt'" if name == "save" else "test_loader"))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", "TL402", "--output-format", "json", "main.py"])
    assert [item["line"] for item in json.loads(result.stdout)] == ([7] if reported else [])


def test_a_parameter_of_the_same_name_shadows_a_loader_shown_once():
    code = """
    train_dataloader = DataLoader(ds, batch_size=1, num_workers=1)
    img, label = next(iter(train_dataloader))
    def train(model, train_dataloader):
        for x, y in train_dataloader:
            loss = model(x.to(device)).sum()
            loss.backward()
            opt.step()
    simple = DataLoader(ds, batch_size=32, num_workers=1)
    for epoch in range(5):
        train(model, simple)
    """
    assert found(code, "TL202") == [14] and found(code, "TL203") == [14]


# A training step over the loader it is handed, shared by the tests below.
TRAIN_STEP = """
    def train_step(model, dataloader):
        for x, y in dataloader:
            loss = model(x.to(device)).sum()
            loss.backward()
            opt.step()
"""


def test_a_function_started_indirectly_with_the_loader_still_iterates_it():
    code = TRAIN_STEP + """
    import torch.multiprocessing as mp
    def run_worker(rank, train_loader):
        for epoch in range(3):
            train_step(model, train_loader)
    train_loader = DataLoader(ds, batch_size=32)
    mp.spawn(run_worker, args=(train_loader,), nprocs=2)
    """
    assert found(code, "TL201") == [17]


def test_a_loader_handed_once_to_a_function_that_loops_over_epochs():
    code = TRAIN_STEP + """
    def train(model, train_dataloader, epochs):
        for epoch in range(epochs):
            train_step(model=model, dataloader=train_dataloader)
    train_dataloader = DataLoader(ds, batch_size=32, num_workers=4)
    train(model, train_dataloader=train_dataloader, epochs=5)
    """
    assert found(code, "TL203") == [16]


def test_a_test_loader_handed_once_to_a_function_that_evaluates_every_epoch():
    code = TRAIN_STEP + """
    def test_step(model, dataloader):
        with torch.inference_mode():
            for x, y in dataloader:
                out = model(x.to(device))
    def evaluate_once(model, dataloader):
        with torch.inference_mode():
            for x, y in dataloader:
                out = model(x.to(device))
    def train(model, train_dataloader, test_dataloader, epochs):
        for epoch in range(epochs):
            train_step(model=model, dataloader=train_dataloader)
            test_step(model=model, dataloader=test_dataloader)
    train_dataloader = DataLoader(ds, batch_size=32)
    test_dataloader = DataLoader(ds, batch_size=32)
    final_dataloader = DataLoader(ds, batch_size=32)
    train(model, train_dataloader, test_dataloader, epochs=5)
    evaluate_once(model, final_dataloader)
    """
    assert found(code, "TL202") == [25, 26]


AGENT = """
import torch

class Agent:
    def __init__(self, critic, policy):
        self.critic = critic.cuda()
        self.policy = policy
        self.opt = torch.optim.Adam(critic.parameters())

    def act(self, state):
        return self.policy(torch.as_tensor(state).cuda()).detach().cpu().numpy()

    def update(self, memory):
        state, target = memory.sample()
        loss = ((self.critic(state.cuda()) - target.cuda()) ** 2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item()

    def score(self, states):
        return self.critic(states.cuda()).mean().item()

class Baseline:
    def update(self, memory):
        return memory.mean().item()
"""
RUNNER = """
import itertools
from agent import Agent

agent = Agent(critic, policy)
for episode in itertools.count(1):
    state, done = env.reset(), False
    while not done:
        action = agent.act(state)
        if len(memory) > batch_size:
            loss = agent.update(memory)
        state, reward, done, _ = env.step(action)
    print(agent.score(states))
"""


def _check(tmp_path, monkeypatch, files: dict, target: str, rule: str = "TL101") -> list:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", rule, "--output-format", "json", target])
    return [item["line"] for item in json.loads(result.stdout)]


@pytest.mark.parametrize("constructed", [True, False])
def test_a_method_of_a_project_class_called_on_an_instance_every_step(tmp_path, monkeypatch, constructed):
    # `agent.update(memory)` runs a backward pass itself: each call in the episode's inner
    # loop is a training step, so its `.item()` syncs every step. `act` hands NumPy to the
    # environment, `score` runs once per episode and trains nothing, `Baseline.update` is
    # never called on an instance. An agent of unknown class (`make_agent()`): `update()`
    # takes an optimizer step, so each call is a training step all the same.
    runner = RUNNER if constructed else RUNNER.replace("agent = Agent(critic, policy)", "agent = make_agent()")
    assert _check(tmp_path, monkeypatch, {"agent.py": AGENT, "main.py": runner}, "agent.py") == [19]


BPR = """
import torch

class PairLoss:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.Adam(model.parameters())

    def train_pair(self, users, items):
        loss = self.model.loss(users, items)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.cpu().item()

    def report(self, users, items):
        return self.model.loss(users, items).cpu().item()

def accuracy(outputs, targets):
    with torch.no_grad():
        correct = outputs.argmax(1).eq(targets).float().sum().item()
        return correct / targets.size(0)
"""
PROCEDURE = """
import torch
import losses
from losses import accuracy

def train_one_epoch(loader, loss_object):
    pair: losses.PairLoss = loss_object
    for users, items in loader:
        total = pair.train_pair(users.cuda(), items.cuda())

def fit(loader, model, opt):
    for x, y in loader:
        out = model(x.cuda())
        acc = accuracy(out, y.cuda())
        out.sum().backward()
        opt.step()

def inspect(loader, loss_object):
    pair: losses.PairLoss = loss_object
    for users, items in loader:
        print(pair.report(users.cuda(), items.cuda()))
        print(accuracy(users.cuda(), items.cuda()))
"""


def test_an_annotated_receiver_and_a_metric_helper_of_another_module(tmp_path, monkeypatch):
    # `pair.train_pair(...)` steps itself (annotated receiver), `accuracy(...)` is called in a loop
    # that trains; `report` and the call of `accuracy` in `inspect` run in a loop that does not.
    assert _check(tmp_path, monkeypatch, {"losses.py": BPR, "procedure.py": PROCEDURE}, "losses.py") == [14, 21]


LOADING = """
from torch.utils.data import DataLoader

class AudioDataLoader(DataLoader):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.collate_fn = collate

class BucketLoader(AudioDataLoader):
    pass

class ShardLoader(DataLoader):
    def __init__(self, shards, size):
        super().__init__(shards, batch_size=size)

class StreamLoader:
    def __init__(self, dataset, num_workers=0, batch_size=1):
        self.dataset = dataset
"""
DATA_MODULE = """
import pytorch_lightning as pl
from loading import {name}

class Data(pl.LightningDataModule):
    def train_dataloader(self):
        loader = {name}(dataset=self.train_set, num_workers=4, batch_size=32)
        return loader
"""


@pytest.mark.parametrize(
    "name, reported", [("AudioDataLoader", True), ("BucketLoader", True), ("ShardLoader", False), ("StreamLoader", False)]
)
def test_a_project_subclass_of_dataloader_is_a_dataloader(tmp_path, monkeypatch, name, reported):
    # A subclass that keeps DataLoader's signature (no `__init__`, or one forwarding `*args,
    # **kwargs`), directly or through a project base, is a DataLoader in another module; one
    # with its own signature (positions and keywords may mean something else) or a class that
    # is not a DataLoader at all is not.
    files = {"loading.py": LOADING, "data_module.py": DATA_MODULE.format(name=name)}
    for rule in ("TL202", "TL203"):
        assert _check(tmp_path, monkeypatch, files, "data_module.py", rule) == ([7] if reported else [])


SEGMENTATION = """
import numpy as np

class Segments:
    palette = np.zeros((256, 3))

    @classmethod
    def decode_target(cls, mask):
        return cls.palette[mask]

    @classmethod
    def recolour(cls, seed):
        cls.palette = np.random.default_rng(seed).random((256, 3))

    def rescale(self, scale):
        self.scale = scale
"""
DISPLAY = """
import torch
from torch.utils import data
from segments import Segments

def main():
    train_dst = Segments()
    train_loader = data.DataLoader(train_dst, batch_size=8, shuffle=True, num_workers=2)
    step = 0
    while True:
        for images, labels in train_loader:
            step += 1
            optimizer.zero_grad()
            loss = criterion(model(images.cuda()), labels.cuda())
            loss.backward()
            optimizer.step()
            if step % val_interval == 0:
                samples = validate(model)
                for k, (image, target) in enumerate(samples):
                    show(k, train_dst.{call})
"""


@pytest.mark.parametrize(
    "call, reported", [("decode_target(target)", True), ("recolour(k)", False), ("rescale(k)", False), ("refresh()", False)]
)
def test_a_display_loop_that_decodes_samples_keeps_the_epoch_loop(tmp_path, monkeypatch, call, reported):
    # A display loop nested in the step loop under the validation interval calls a class
    # method of the dataset that changes nothing: the training loader is still passed over
    # again every iteration of `while True:`. A method that changes the dataset's class or the
    # dataset itself, or one the project does not define, may change what the workers load.
    files = {"segments.py": SEGMENTATION, "train.py": DISPLAY.format(call=call)}
    assert _check(tmp_path, monkeypatch, files, "train.py", "TL203") == ([8] if reported else [])


def test_gradient_accumulation_makes_the_update_loop_a_step_loop():
    # Backward runs in the micro-batch loop, `optimizer.step()` once per iteration of the
    # update loop: each update is a training step, so its `.item()` syncs every step.
    code = """
    def train(loader, updates, accumulation):
        batches = iter(loader)
        for _ in range(updates):
            micro = [next(batches) for _ in range(accumulation)]
            count = sum(b["labels"].ne(-100).sum() for b in micro).item()
            for batch in micro:
                loss = model(batch["input"].to(device)).sum() / count
                loss.backward()
            optimizer.step()
            optimizer.zero_grad()
    """
    assert found(code, "TL101") == [11]
    rounds = """
    def train(loader, rounds):
        done = 0
        while done < rounds:
            for x in loader:
                optimizer.zero_grad()
                model(x.to(device)).sum().backward()
                optimizer.step()
            done += 1
            print(evaluate(model).item())
    """
    assert found(rounds, "TL101") == []  # each round runs a whole training loop: once per many steps


WRAPPER = """
import torch

class Progress:
    def wrap(self, iterable):
        seen = torch.zeros(1, device="cuda")
        for item in iterable:
            seen += 1
            yield item
        print(seen.item())
"""
WRAPPED_LOOP = """
from progress import Progress

def train(loader):
    progress = Progress()
    for x in progress.wrap(loader):
        loss = model(x.cuda()).sum()
        loss.backward()
        optimizer.step()
"""


def test_the_iterable_of_a_step_loop_is_called_once_per_pass(tmp_path, monkeypatch):
    # `progress.wrap(loader)` in the loop's header runs once per pass, not every step: its
    # own code after the loop is not per-step work (the body of its loop is another matter).
    assert _check(tmp_path, monkeypatch, {"progress.py": WRAPPER, "train.py": WRAPPED_LOOP}, "progress.py") == []


EPOCH_FUNCTIONS = """
def train_epoch(epoch, data_loader, model, optimizer):
    for inputs, targets in data_loader:
        loss = model(inputs.cuda(), targets.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

def describe(data_loader):
    return len(data_loader)
"""
ENTRY = """
import torch
from training import train_epoch, describe

def get_train_utils(opt):
    train_loader = torch.utils.data.DataLoader(opt.data, batch_size=opt.batch_size, num_workers=4, pin_memory=True)
    return (train_loader, opt.logger)

def main(opt, model, optimizer):
    train_loader, logger = get_train_utils(opt)
    for epoch in range(opt.n_epochs):
        {call}

main(opt, model, optimizer)
"""


@pytest.mark.parametrize(
    "call, reported",
    [("train_epoch(epoch, train_loader, model, optimizer)", True), ("describe(train_loader)", False), ("pass", False)],
)
def test_a_loader_returned_in_a_tuple_and_iterated_by_another_module_every_epoch(tmp_path, monkeypatch, call, reported):
    # The builder returns the loader in a tuple; the training script hands it to a function
    # of another module that loops over it, every epoch. Handing it to a function that does
    # not iterate it, or not at all, is no pass over it.
    files = {"training.py": EPOCH_FUNCTIONS, "main.py": ENTRY.format(call=call)}
    assert _check(tmp_path, monkeypatch, files, "main.py", "TL203") == ([6] if reported else [])


SCORES = """
import torch

class Scorer:
    def score(self, logits, target):
        correct = (logits.argmax(-1) == target).sum()
        return correct.item() / target.numel()

def agreement(logits, target):
    return (logits.argmax(-1) == target).float().mean().item()
"""
LIGHTNING_MODULE = """
import pytorch_lightning as pl
from scores import Scorer, agreement

class Classifier(pl.{base}):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.scorer = Scorer()

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self.net(x)
        self.log("acc", self.scorer.score(logits, y))
        self.log("agree", agreement(logits, y))
        return logits.sum()
"""


@pytest.mark.parametrize("base, reported", [("LightningModule", True), ("Callback", False)])
def test_helpers_of_another_module_called_from_a_lightning_step(tmp_path, monkeypatch, base, reported):
    # `training_step` of a LightningModule runs every batch, and so do the method and the
    # function of another module it calls; the same method of a class that is not one is not
    # a step hook.
    files = {"scores.py": SCORES, "model.py": LIGHTNING_MODULE.format(base=base)}
    assert _check(tmp_path, monkeypatch, files, "scores.py") == ([7, 10] if reported else [])


def test_each_loader_of_a_zip_in_the_same_scope_owns_its_part_of_the_target():
    code = """
    def train(ds_a, ds_b):
        la = DataLoader(ds_a, batch_size=32, num_workers=4, pin_memory=True)
        lb = DataLoader(ds_b, batch_size=32, num_workers=4)
        for epoch in range(10):
            for (xa, ya), (xb, yb) in zip(la, lb):
                loss = model(xa.cuda()).sum() + model(xb.cuda()).sum()
                opt.zero_grad()
                loss.backward()
                opt.step()
    """
    assert found(code, "TL202") == [9]  # the second loader, whose batches are moved too
    assert found(code, "TL106") == [12]  # `xa` only: `xb` comes from pageable memory



ONE_LOADER = """
from torch.utils.data import DataLoader

def build_train(ds):
    return DataLoader(ds, batch_size=64, shuffle=True)

def build_pair(a, b):
    return DataLoader(a), DataLoader(b)
"""


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        (SCRIPT, [5]),  # the training script of a CUDA program moves every batch of the one loader
        (SCRIPT.replace(".cuda()", ""), []),  # a program that never uses CUDA copies nothing to a device
        (SCRIPT.replace(".backward()", ".item()"), []),  # the script does not train
    ],
)
def test_a_builder_s_loader_needs_pinned_memory_when_a_cuda_training_script_gets_it(tmp_path, monkeypatch, script, expected):
    """Of a pair the caller may train on one only: only a loader returned alone is reported."""
    (tmp_path / "data.py").write_text(ONE_LOADER)
    (tmp_path / "train.py").write_text(script.replace("import build_loaders", "import build_pair, build_train").replace("train_loader, val_loader = build_loaders(a, b)", "train_loader = build_train(a)\nval_loader, test_loader = build_pair(b, c)"))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", "TL202", "--output-format", "json", "data.py"])
    assert [item["line"] for item in json.loads(result.stdout)] == expected


LIST_DATASETS = """
model = torch.nn.Linear(4, 2).cuda()
feats = [(torch.randn(4), 1) for _ in range(100)]
pairs = list(zip(inputs, labels))
{other}
a = DataLoader(feats, batch_size=8)
b = DataLoader(pairs, batch_size=8)
for epoch in range(3):
    for x, y in a:
        loss = model(x.cuda()).sum() + model(next(iter(b))[0].cuda()).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
"""


def test_a_list_of_items_made_before_the_loader_has_no_loading_work_for_workers():
    assert found(LIST_DATASETS.format(other=""), "TL201") == []


@pytest.mark.parametrize("other", ["feats = ImageFolder(root)", "if fast:\n    feats = AudioSet(files)"])
def test_a_name_that_also_holds_a_dataset_class_is_not_known_to_be_in_memory(other):
    code = LIST_DATASETS.format(other=other)
    line = (HEAD + code).splitlines().index("a = DataLoader(feats, batch_size=8)") + 1
    assert found(code, "TL201") == [line]  # the loader over `feats`; the one over `pairs` stays silent


FINAL_TEST = """
def test(model, loader):
    model.eval()
    correct = 0
    for x, y in loader:
        correct += (model(x.to(device)).argmax(1) == y.to(device)).sum()
    return correct

for epoch in range(10):
    for x, y in train_loader:
        loss = model(x.to(device)).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    {per_epoch}
test(model, test_loader)
"""


EVALUATION_ONLY = FINAL_TEST[: FINAL_TEST.index("for epoch")] + "test(model, test_loader)\n"


@pytest.mark.parametrize(
    ("code", "reported"),
    [
        (FINAL_TEST.format(per_epoch="pass"), False),  # once, after training
        (EVALUATION_ONLY, False),  # a program that only evaluates, once
        (FINAL_TEST.format(per_epoch="test(model, val_loader)"), True),  # every epoch
    ],
)
def test_a_final_test_pass_is_not_every_epoch_work(code, reported):
    assert found(code, "TL402") == ([HEAD.count("\n") + 3] if reported else [])


RETURNED_HERE = """
def get_loaders(batch_size=256):
    train_loader = DataLoader(train_set, batch_size=batch_size, num_workers=4, pin_memory={pinned})
    test_loader = DataLoader(test_set, batch_size=batch_size, num_workers=4, pin_memory={pinned})
    return train_loader, test_loader

train_loader, test_loader = get_loaders()
for epoch in range(100):
    for counter, (x, y) in enumerate(train_loader):
        loss = model(x.to(device)).sum() + y.to(device).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
"""


def test_loaders_a_builder_of_the_same_file_returns_are_followed_into_the_loop_that_moves_them():
    assert found(RETURNED_HERE.format(pinned=False), "TL202") == [8]  # the test loader is never moved
    assert found(RETURNED_HERE.format(pinned=True), "TL106") == [15, 15]
