"""Round 12: a loop that hands its batch whole to a same-file function (`loss =
self.train_step(batch)`) moves it wherever that function does (`batch[0].to(self.device)`):
TL106 reports the move, with an unsafe fix (other calls may hand the function values that are
no batches of a pinned loader). Hard negatives: a loop that rebinds the batch before handing it
on, a function that receives something else, a function that moves with `non_blocking`."""

from __future__ import annotations

import pytest
from conftest import project_findings

TRAINER = """
import torch
from torch.utils.data import DataLoader


class Trainer:
    def __init__(self, model, dataset, device):
        self.model = model.to(device)
        self.device = device
        self.optimizer = torch.optim.Adam(model.parameters())
        self.loader = DataLoader(dataset, batch_size=32, num_workers=4, pin_memory=True)

    def train_step(self, batch):
        clean = batch[0].to(self.device)
        noisy = batch[1].to(self.device{keyword})
        loss = self.model(noisy, clean).mean()
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss

    def train(self, epochs):
        for epoch in range(epochs):
            for batch in self.loader:
                {body}
"""

CLEAN, NOISY = ("train.py", "TL106", 14), ("train.py", "TL106", 15)


@pytest.mark.parametrize(
    ("keyword", "body", "expected"),
    [
        ("", "self.train_step(batch)", {CLEAN, NOISY}),
        ("", "loss = self.train_step(batch=batch)", {CLEAN, NOISY}),
        (", non_blocking=True", "self.train_step(batch)", {CLEAN}),
        # the loop hands on another value, or rebinds the batch first
        ("", "self.train_step(other)", set()),
        ("", "batch = [t.float() for t in batch]\n                self.train_step(batch)", set()),
    ],
)
def test_a_batch_handed_to_a_step_method_is_moved_there(tmp_path, monkeypatch, keyword, body, expected) -> None:
    files = {"train.py": TRAINER.format(keyword=keyword, body=body)}
    assert project_findings(tmp_path, monkeypatch, files, "TL106") == expected


def test_the_fix_in_a_helper_is_unsafe(tmp_path, monkeypatch) -> None:
    import json

    from click.testing import CliRunner

    from torchlint.cli import main

    (tmp_path / "setup.py").write_text("")
    (tmp_path / "train.py").write_text(TRAINER.format(keyword="", body="self.train_step(batch)"))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", "TL106", "--output-format", "json", "."])
    findings = json.loads(result.stdout)
    assert findings and all(item["fix"]["applicability"] == "unsafe" for item in findings)
    assert all("train_step()" in item["message"] for item in findings)


LOADERS = """
import torch


def load_data(dataset, batch_size):
    train = torch.utils.data.DataLoader(dataset, batch_size=batch_size, num_workers=4{pin})
    test = torch.utils.data.DataLoader(dataset, batch_size=batch_size, num_workers=4{pin})
    return train, test
"""

ENGINE = """
import torch
from data import loaders


class Trainer:
    def __init__(self, train_ds, test_ds, gpu):
        self.train_ds = train_ds
        self.test_ds = test_ds
        self.gpu = gpu

    def train(self, model, opt):
        for epoch in range(10):
            for idx, batch in enumerate(self.train_ds):
                loss = model(batch[0].to(self.gpu)).sum()
                opt.zero_grad()
                loss.backward()
                opt.step()


def main(args, dataset, model, opt):
    train_ds, test_ds = loaders.load_data(dataset, 32)
    Trainer(train_ds, test_ds, 0).train(model, opt)
"""


@pytest.mark.parametrize(("pin", "expected"), [(", pin_memory=True", {("engine.py", "TL106", 15)}), ("", set())])
def test_a_loader_stored_from_the_constructor_in_a_namespace_package(tmp_path, monkeypatch, pin, expected) -> None:
    """`data/` has no `__init__.py`: `from data import loaders` still names `data/loaders.py`,
    and `self.train_ds` holds what the constructor's only call passes."""
    (tmp_path / "data").mkdir()
    files = {"data/loaders.py": LOADERS.format(pin=pin), "engine.py": ENGINE}
    assert project_findings(tmp_path, monkeypatch, files, "TL106") == expected


@pytest.mark.parametrize(
    ("iterated", "source"),
    [
        ("tqdm(loader, desc='epoch') if is_master else loader", "loader"),
        ("enumerate(tqdm(self.loader)) if verbose else enumerate(self.loader)", "self.loader"),
        ("tqdm(train_loader) if is_master else val_loader", "tqdm(train_loader) if is_master else val_loader"),
    ],
)
def test_a_conditional_wrapper_iterates_its_source(iterated, source) -> None:
    import libcst as cst

    from torchlint.semantics.tree import iterated_source

    found = iterated_source(cst.parse_expression(iterated))
    assert cst.Module([]).code_for_node(found) == source


def test_a_loop_over_a_conditional_progress_bar_moves_the_batch(tmp_path, monkeypatch) -> None:
    body = "self.train_step(batch)"
    trainer = TRAINER.format(keyword="", body=body).replace("for batch in self.loader:", "for batch in tqdm(self.loader) if self.verbose else self.loader:")
    assert project_findings(tmp_path, monkeypatch, {"train.py": "from tqdm import tqdm\n" + trainer}, "TL106") == {
        ("train.py", "TL106", 15),
        ("train.py", "TL106", 16),
    }


EVALUATOR = """
import torch


class Trainer:
    def __init__(self, model, train_loader, test_loader):
        self.model = model.cuda()
        self.optimizer = torch.optim.Adam(model.parameters())
        self.train_loader = train_loader
        self.test_loader = test_loader

    @torch.no_grad()
    def test_step(self, batch):
        loss = self.model(batch.cuda(non_blocking=True)).mean()
        return loss.item()

    def train(self, epochs):
        for epoch in range(epochs):
            for batch in self.train_loader:
                loss = self.model(batch.cuda(non_blocking=True)).mean()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            {evaluation}
"""


@pytest.mark.parametrize(
    ("evaluation", "expected"),
    [
        ("total = 0.0\n            for batch in self.test_loader:\n                total += self.test_step(batch)", {("train.py", "TL101", 15)}),
        # one batch per epoch: the method is called once per epoch, not in a step loop
        ("print(self.test_step(next(iter(self.test_loader))))", set()),
    ],
)
def test_an_evaluation_step_method_runs_as_often_as_its_loop(tmp_path, monkeypatch, evaluation, expected) -> None:
    """`test_step` (a step method's name) that runs no backward pass: its call site's loop over
    the evaluation batches is why it runs every step."""
    files = {"train.py": EVALUATOR.format(evaluation=evaluation)}
    assert project_findings(tmp_path, monkeypatch, files, "TL101") == expected


def test_a_batch_handed_on_twice_is_moved_where_the_second_function_moves_it(tmp_path, monkeypatch) -> None:
    trainer = TRAINER.format(keyword="", body="self.step(batch)").replace(
        "    def train(self, epochs):",
        "    def step(self, batch):\n        return self.train_step(batch)\n\n    def train(self, epochs):",
    )
    assert project_findings(tmp_path, monkeypatch, {"train.py": trainer}, "TL106") == {CLEAN, NOISY}
    rebound = trainer.replace("        return self.train_step(batch)", "        batch = [t.float() for t in batch]\n        return self.train_step(batch)")
    assert project_findings(tmp_path, monkeypatch, {"train.py": rebound}, "TL106") == set()


STORED = """
import torch
from torch.utils.data import DataLoader, TensorDataset


class Trainer:
    def __init__(self, model, train_ds):
        self.model = model
        self.train_ds = train_ds
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def train(self, device):
        for epoch in range(2):
            for idx, (x, y) in enumerate(self.train_ds):
                loss = (self.model(x.to(device)) - y.to(device)).pow(2).mean()
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
        print([round(float(p.sum()), 6) for p in self.model.parameters()])


def main():
    torch.manual_seed(0)
    data = TensorDataset(torch.randn(16, 3), torch.randn(16, 1))
    train_ds = DataLoader(data, batch_size=4, pin_memory=True)
    Trainer(torch.nn.Linear(3, 1), train_ds).train(torch.device("cuda" if torch.cuda.is_available() else "cpu"))


if __name__ == "__main__":
    main()
"""


def test_the_safe_fix_on_a_loader_stored_from_the_constructor_keeps_the_result(tmp_path, monkeypatch) -> None:
    """Differential: the safe fix (`non_blocking=True` on a loader stored from the
    constructor, collated by default) leaves what the program computes unchanged."""
    import subprocess
    import sys

    pytest.importorskip("torch")
    from click.testing import CliRunner

    from torchlint.cli import main

    (tmp_path / "setup.py").write_text("")
    program = tmp_path / "engine.py"
    program.write_text(STORED)
    monkeypatch.chdir(tmp_path)
    before = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, check=True).stdout
    CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", "TL106", "--fix", "."])
    fixed = program.read_text()
    assert fixed.count("non_blocking=True") == 2
    after = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, check=True).stdout
    assert after == before
