"""The second recall round of issue 25: causes of misses on the development halves, each
with positives and hard negatives, in the default mode a user runs."""

from __future__ import annotations

import json
import textwrap

import pytest
from click.testing import CliRunner

from conftest import lint
from torchlint.cli import main

# The four lines every snippet starts with; the expected line numbers count them.
HEAD = '\nimport torch\nfrom torch import nn\ndevice = torch.device("cuda")\n'
pytestmark = pytest.mark.stable_only


def found(code: str, rule: str) -> list:
    """Lines of one rule's findings in the snippet after `HEAD`."""
    return [finding.line for finding in lint(HEAD + textwrap.dedent(code), [rule])]


def test_a_host_tensor_moved_by_a_later_statement():
    code = """
    class MaskConv(nn.Module):
        def forward(self, x):
            for module in self.seq:
                x = module(x)
                mask = torch.BoolTensor(x.size()).fill_(0)
                if x.is_cuda:
                    mask = mask.cuda()
                x = x.masked_fill(mask, 0)
            return x
    for real in loader:
        eta = torch.FloatTensor(64, 1, 1, 1).uniform_(0, 1)
        eta = eta.expand(64, 3, 32, 32)
        eta = eta.cuda(0)
        loss = model(real.cuda() * eta).sum()
        loss.backward()
    """
    assert found(code, "TL102") == [10, 16]


def test_a_host_tensor_moved_later_by_a_helper_that_returns_it_moved():
    code = """
    class Trainer:
        def to_var(self, arg):
            return arg.cuda()
        def train(self, loader):
            for images in loader:
                z = torch.randn((64, 100, 1, 1))
                images, z = self.to_var(images), self.to_var(z)
                loss = self.D(images, self.G(z)).mean()
                loss.backward()
    """
    assert found(code, "TL102") == [11]


def test_mirror_a_host_tensor_used_on_the_host_before_its_move_or_created_once():
    code = """
    steady = torch.zeros(64)
    for x in loader:
        idx = torch.arange(64)
        picked = table[idx]
        idx = idx.cuda()
        once = steady.cuda()
        half = torch.zeros(64)
        half = half.to(torch.float16)
        ids = torch.LongTensor(tokens).cuda()
        loss = model(x.cuda(), idx, picked, once, half, ids).sum()
        loss.backward()
    """
    assert found(code, "TL102") == []


def test_a_legacy_constructor_given_a_size_and_moved():
    code = """
    for x in loader:
        noise = torch.FloatTensor(x.size(0), 100).normal_().cuda()
        data = torch.FloatTensor(values).cuda()
        loss = model(x.cuda(), noise, data).sum()
        loss.backward()
    """
    assert found(code, "TL102") == [7]


def test_a_parameter_that_defaults_to_none_is_the_default_path_not_a_lazy_initialisation():
    code = """
    class SupConLoss(nn.Module):
        def forward(self, features, labels=None, mask=None):
            if labels is None and mask is None:
                mask = torch.eye(features.shape[0], dtype=torch.float32).to(device)
            if self.cache is None:
                self.cache = torch.eye(8).to(device)
            return (features @ features.T * mask).sum() + self.cache.sum()
    """
    assert found(code, "TL102") == [9]


def test_an_attribute_that_only_ever_holds_a_module_is_one_and_its_output_a_tensor():
    code = """
    class Critic(nn.Module):
        def forward(self, x):
            return x
    class Trainer:
        def __init__(self):
            self.D = Critic()
            self.D = nn.DataParallel(self.D)
            self.head = make_head()
            self.opt = torch.optim.Adam(self.D.parameters())
        def train(self, data):
            for step in range(self.iters):
                images = next(data).cuda()
                d_loss = self.D(images).mean()
                d_loss.backward()
                self.opt.step()
                print(f"critic loss {d_loss}")
                other = self.head(images).mean()
                print(f"head {other}")
    """
    assert found(code, "TL103") == [21]  # `self.head` may hold anything: its output is unknown


def project(tmp_path, monkeypatch, files: dict, rule: str) -> list:
    """(path, line) of one rule's findings on a small project, default mode."""
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", rule, "--output-format", "json", "."])
    return sorted((item["path"], item["line"]) for item in json.loads(result.stdout))


DECODER = """
import torch

class BeamDecoder:
    def decode(self, probs, sizes):
        return self._decoder.decode(probs, sizes)  # another object's method of the same name

class GreedyDecoder:
    def __init__(self, labels):
        self.int_to_char = dict(enumerate(labels))

    def decode(self, probs, sizes):
        _, best = torch.max(probs, 2)
        strings = []
        for x in range(len(best)):
            strings.append(self.process_string(best[x], sizes[x]))
        return strings

    def process_string(self, sequence, size):
        string = ''
        for i in range(size):
            string += self.int_to_char[sequence[i].item()]
        return string
"""
HOOK = """
import pytorch_lightning as pl
from decoder import GreedyDecoder

class SpeechModel(pl.LightningModule):
    def __init__(self, labels):
        super().__init__()
        self.decoder = GreedyDecoder(labels)

    def {hook}(self, batch, batch_idx):
        inputs, sizes = batch
        out = self(inputs)
        return self.decoder.decode(out, sizes)
"""
FIT = """
import torch
import pytorch_lightning as pl
from model import SpeechModel
trainer = pl.Trainer(accelerator="gpu" if torch.cuda.is_available() else "cpu")
trainer.fit(SpeechModel("abc"))
"""


@pytest.mark.parametrize("hook, reported", [("validation_step", True), ("test_step", False)])
def test_a_loop_in_a_helper_that_a_fit_hook_of_another_module_runs(tmp_path, monkeypatch, hook, reported):
    files = {"decoder.py": DECODER, "model.py": HOOK.format(hook=hook), "train.py": FIT}
    assert project(tmp_path, monkeypatch, files, "TL101") == ([("decoder.py", 22)] if reported else [])


METRICS = """
import torch

def metrics(model, loader):
    hits = []
    for user, item in loader:
        hits.append(model(user.cuda(), item.cuda()))
    return hits
"""
EPOCHS = """
import torch
import evaluate

for epoch in range(epochs):
    {switch}
    for user, item, label in train_loader:
        loss = loss_function(model(user.cuda(), item.cuda()), label.cuda())
        loss.backward()
        optimizer.step()
    model.eval()
    evaluate.metrics(model, test_loader)
"""


@pytest.mark.parametrize("switch, reported", [("model.train()", True), ("pass", True)])
def test_evaluation_after_a_training_pass_that_switched_to_training_mode_first(tmp_path, monkeypatch, switch, reported):
    """The batch loop's backward pass differentiates a graph recorded in training mode when
    the epoch loop calls `model.train()` before it; without that switch too, since round 9:
    its loss is computed anew in every iteration of the batch loop, so no later backward
    differentiates the evaluation's forward (see `test_recall_round9_eval`)."""
    files = {"evaluate.py": METRICS, "main.py": EPOCHS.format(switch=switch)}
    assert project(tmp_path, monkeypatch, files, "TL402") == ([("main.py", 11)] if reported else [])


DATA_SETUP = """
from torch.utils.data import DataLoader

def create_dataloaders(train_data, test_data, batch_size, num_workers=4):
    train_dataloader = DataLoader(train_data, batch_size=batch_size, shuffle=True, num_workers=num_workers, pin_memory=True)
    test_dataloader = DataLoader(test_data, batch_size=batch_size, num_workers=num_workers, pin_memory=True)
    return train_dataloader, test_dataloader, train_data.classes
"""
ENGINE = """
import torch

def train_step(model, dataloader, loss_fn, optimizer, device):
    for X, y in dataloader:
        loss = loss_fn(model(X.to(device)), y.to(device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

def train(model, train_dataloader, loss_fn, optimizer, epochs, device):
    for epoch in range(epochs):
        train_step(model, train_dataloader, loss_fn, optimizer, device)
"""
ENTRY = """
import torch
import data_setup, engine

device = "cuda" if torch.cuda.is_available() else "cpu"
train_dataloader, test_dataloader, class_names = data_setup.create_dataloaders(train_data, test_data, 32)
engine.{function}(model=model, train_dataloader=train_dataloader, loss_fn=loss_fn, optimizer=optimizer, epochs=5, device=device)
"""


@pytest.mark.parametrize("function, reported", [("train", True), ("summary", False)])
def test_loaders_a_builder_module_returns_to_a_script_that_hands_them_to_training(tmp_path, monkeypatch, function, reported):
    """The builder, the entry script and the training loop in three modules: the loaders
    feed training when the script hands them to a function that trains (`engine.train`,
    whose epoch loop runs `train_step`'s backward pass); not when it only shows them."""
    engine = ENGINE + "\ndef summary(model, train_dataloader, **kwargs):\n    print(len(train_dataloader))\n"
    files = {"data_setup.py": DATA_SETUP, "engine.py": engine, "train.py": ENTRY.format(function=function)}
    assert project(tmp_path, monkeypatch, files, "TL203") == ([("data_setup.py", 5)] if reported else [])  # the test loader is not handed on


def test_reading_the_length_of_a_loaders_dataset_changes_nothing():
    code = """
    from torch.utils.data import DataLoader
    train_loader = DataLoader(train_set, batch_size=32, num_workers=4)
    mined_loader = DataLoader(mined_set, batch_size=32, num_workers=4)
    for epoch in range(10):
        for x in train_loader:
            loss = model(x.to(device)).sum()
            loss.backward()
            opt.step()
        print(loss.item() / len(train_loader.dataset))
        for x in mined_loader:
            loss = model(x.to(device)).sum()
            loss.backward()
            opt.step()
        mined_loader.dataset.resample()
    """
    assert found(code, "TL203") == [7]  # the mined loader's dataset changes every epoch


def test_evaluation_every_n_epochs_is_per_epoch_work_and_a_dropped_host_copy_is_no_output():
    code = """
    def test(model, users):
        with torch.no_grad():
            for batch in minibatch(users, batch_size=100):
                rating = model.get_users_rating(batch.to(device))
                top = torch.topk(rating, k=20)
                rating = rating.cpu().numpy()
                del rating
                kept = top.indices.cpu().numpy()
                results.append(kept)
    for epoch in range(100):
        if epoch % 10 == 0:
            test(model, users)
        for x in loader:
            loss = model(x.to(device)).sum()
            loss.backward()
            opt.step()
    """
    assert found(code, "TL101") == [11]  # `kept` (line 13) is the evaluation's output


MLP = """
class MLP(nn.Module):
    def __init__(self, num_layers, input_dim, hidden_dim, output_dim):
        super().__init__()
        self.linears = nn.ModuleList()
        self.batch_norms = nn.ModuleList()
        self.linears.append(nn.Linear(input_dim, hidden_dim{bias}))
        for layer in range(num_layers - 2):
            self.linears.append(nn.Linear(hidden_dim, hidden_dim))
        self.linears.append(nn.Linear(hidden_dim, output_dim))
        for layer in range(num_layers - 1):
            self.batch_norms.append(nn.{norm}(hidden_dim))

    def forward(self, x):
        h = x
        for layer in range(self.num_layers - 1):
            h = torch.relu(self.batch_norms[layer](self.linears[layer](h)))
        return self.linears[self.num_layers - 1](h)
"""


@pytest.mark.parametrize(
    "bias, norm, reported",
    [("", "BatchNorm1d", True), (", bias=False", "BatchNorm1d", False), ("", "LayerNorm", False)],
)
def test_layers_of_module_lists_applied_by_the_same_index(bias, norm, reported):
    """Element 0 of `linears` feeds element 0 of `batch_norms` whenever the loop runs; the
    other elements' indices are not known (appended in loops), so only the first is reported,
    without a fix. A bias already off, or a LayerNorm (which does not cancel it), is silent."""
    assert found(MLP.format(bias=bias, norm=norm), "TL301") == ([11] if reported else [])


def test_every_n_epochs_of_a_loop_whose_iterations_are_steps_is_a_logging_interval():
    code = """
    model = nn.Linear(3, 1).to(device)
    for epoch in range(1000):
        loss = model(X_train.to(device)).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if {test}:
            print(f"Epoch: {{epoch}} | Loss: {{loss}}")
    """
    assert found(code.format(test="epoch % 10 == 0"), "TL103") == []
    assert found(code.format(test="True"), "TL103") == [13]


def test_a_running_total_read_back_in_an_evaluation_loop_is_no_output():
    code = """
    def evaluate(loader):
        model.eval()
        acc = 0
        outputs = []
        for x, y in loader:
            out = model(x.to(device))
            acc += (out.argmax(1) == y.to(device)).cpu().numpy().mean()
            outputs.append(out.cpu().numpy())
        return acc, outputs
    for epoch in range(10):
        for x, y in train_loader:
            loss = model(x.to(device)).sum()
            loss.backward()
            opt.step()
        evaluate(valid_loader)
    """
    assert found(code, "TL101") == [12]  # the outputs (line 13) are what the pass produces


METRIC = """
import torch

class CharErrorRate:
    def compute(self):
        cer = float(self.errors) / self.n_chars
        return cer.item() * 100

def run_evaluation(cer):
    return cer.compute()
"""
LOGGING_HOOK = """
import pytorch_lightning as pl
from metric import CharErrorRate

class SpeechModel(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.cer = CharErrorRate()

    def validation_step(self, batch, batch_idx):
        self.log("cer", self.cer.compute())
"""


def test_a_method_this_file_calls_rarely_may_run_every_batch_from_another_module(tmp_path, monkeypatch):
    """`cer.compute()` in this file is called from a function of unknown frequency, and `compute`
    may be any object's method: another module's `validation_step` calls it every batch."""
    files = {"metric.py": METRIC, "model.py": LOGGING_HOOK, "train.py": FIT}
    assert project(tmp_path, monkeypatch, files, "TL101") == [("metric.py", 7)]
