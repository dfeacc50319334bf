"""The seventh round of issue 25 on two founding rules, each cause with positives and hard
negatives in the default mode a user runs: TL301 in model classes that nothing in the
project builds (`semantics.instantiation`), TL402 in an evaluation function whose every
caller already runs it without gradients (`project.runs_without_grad`), and TL402 after a
training loop of the same function."""

from __future__ import annotations

import os
import textwrap
from typing import Dict

import pytest
from conftest import project_findings, write

from torchlint.semantics.instantiation import unbuilt_definitions
from torchlint.semantics.project import clear, runs_without_grad

pytestmark = pytest.mark.stable_only


def findings(tmp_path, monkeypatch, files: Dict[str, str], rules: str, marker: str = "setup.py") -> set:
    """Findings on a project whose files may live in subdirectories."""
    for name, text in files.items():
        write(tmp_path, name, text)
    return project_findings(tmp_path, monkeypatch, {}, rules, marker)


# -- TL301: classes that nothing in the project builds ------------------------------------

BLOCKS = """
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8))


class NetXL(nn.Module):
    def __init__(self):
        super(NetXL, self).__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8))
"""

TRAIN = """
import torch
from models.blocks import Net

model = Net().cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x in loader:
    model(x.cuda()).sum().backward()
    opt.step()
"""

NET, NET_XL = ("blocks.py", "TL301", 8), ("blocks.py", "TL301", 14)


@pytest.mark.parametrize("package, marker", [("", "setup.py"), ("from .blocks import Net, NetXL\n", ".git")])
def test_a_variant_nothing_builds_is_silent(tmp_path, monkeypatch, package, marker):
    """Also when a program's package re-exports it: nothing in the project uses that export
    (round 21)."""
    files = {"models/__init__.py": package, "models/blocks.py": BLOCKS, "train.py": TRAIN}
    assert findings(tmp_path, monkeypatch, files, "TL301", marker) == {NET}


@pytest.mark.parametrize(
    "where, text",
    [
        ("models/__init__.py", "from .blocks import Net, NetXL\n"),  # exported by an installable package
        ("models/xl.py", "from models.blocks import NetXL\nclass Wide(NetXL):\n    pass\n"),  # a subclass
        ("zoo.py", "from models import blocks\nMODELS = {'xl': blocks.NetXL}\n"),  # a registry dict
        ("zoo.py", "ARCHS = ['Net', 'NetXL']\n"),  # a name a factory reads
        ("zoo.py", "from models import blocks\ndef build(arch):\n    return getattr(blocks, arch)()\n"),
        ("zoo.py", "from models.blocks import *\n"),  # a star import exports it unnamed
        ("zoo.py", "import importlib\ndef build(name):\n    return importlib.import_module(name)\n"),
        ("zoo.py", "from hydra.utils import instantiate\nmodel = instantiate(cfg.model)\n"),
        ("tests/test_models.py", "from models.blocks import NetXL\ndef test_xl():\n    NetXL()\n"),
    ],
)
def test_a_class_anything_may_build_is_reported(tmp_path, monkeypatch, where, text):
    files = {"models/__init__.py": "", "models/blocks.py": BLOCKS, "train.py": TRAIN, where: text}
    assert findings(tmp_path, monkeypatch, files, "TL301") == {NET, NET_XL}


@pytest.mark.parametrize(
    "added",
    [
        "\nif __name__ == '__main__':\n    print(NetXL())\n",  # the module's own demo builds it
        "\ndef build():\n    return NetXL()\n\nMODEL = build()\n",  # a module-level factory it calls
        "\nclass Wrapper(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.inner = NetXL()\n"
        "\nMODEL = Wrapper()\n",  # a class that is built builds it
        "\ndef build(name):\n    return globals()[name]()\n",  # looked up in its own module
    ],
)
def test_a_class_its_own_module_may_build_is_reported(tmp_path, monkeypatch, added):
    files = {"models/__init__.py": "", "models/blocks.py": BLOCKS + added, "train.py": TRAIN}
    assert NET_XL in findings(tmp_path, monkeypatch, files, "TL301")


def test_registered_classes_and_libraries_are_reported(tmp_path, monkeypatch):
    decorated = BLOCKS.replace("class NetXL", "@register\nclass NetXL")
    files = {"models/__init__.py": "", "models/blocks.py": "from zoo import register\n" + decorated, "train.py": TRAIN}
    assert ("blocks.py", "TL301", 16) in findings(tmp_path, monkeypatch, files, "TL301")


def test_libraries_keep_every_class(tmp_path):
    write(tmp_path, "setup.py", "")
    path = write(tmp_path, "models/blocks.py", BLOCKS)
    write(tmp_path, "models/__init__.py", "")
    assert unbuilt_definitions(path, open(path).read()) == frozenset()
    write(tmp_path, "train.py", TRAIN)
    clear()  # the project's listing is read once per run
    assert unbuilt_definitions(path, open(path).read()) == frozenset({"NetXL"})
    # A directory of modules that nothing in the project imports is a model zoo its users
    # import module by module (`from zoo.xcit import XCiT`): its classes stay live.
    write(tmp_path, "models/xcit.py", "class XCiT:\n    pass\n")
    write(tmp_path, "models/cait.py", "class CaiT:\n    pass\n")
    clear()
    assert unbuilt_definitions(path, open(path).read()) == frozenset()
    write(tmp_path, "models/__init__.py", "from .xcit import XCiT\n")
    clear()
    assert unbuilt_definitions(path, open(path).read()) == frozenset({"NetXL"})


def test_classes_built_only_by_unbuilt_classes_are_unbuilt(tmp_path):
    write(tmp_path, "setup.py", "")
    write(tmp_path, "train.py", TRAIN)
    text = BLOCKS + "\nclass Stem(nn.Module):\n    pass\n\nclass Tower(nn.Module):\n    def __init__(self):\n        self.stem = Stem()\n"
    path = write(tmp_path, "models/blocks.py", text)
    assert unbuilt_definitions(path, text) == frozenset({"NetXL", "Stem", "Tower"})
    # Commented-out code builds nothing; a text that is not a file is never judged.
    assert unbuilt_definitions(path, text + "# model = Tower()\n") == frozenset({"NetXL", "Stem", "Tower"})
    assert unbuilt_definitions(os.path.join(str(tmp_path), "missing.py"), text) == frozenset()


# -- TL402: callers that already turn gradients off ---------------------------------------

EVALUATION = """
import torch


def validate(model, loader):
    model.eval()
    for x in loader:
        out = model(x)


class Evaluator:
    def run(self, model, loader):
        model.eval()
        for x in loader:
            out = model(x)
"""

FIT = """
import torch
from evaluation import validate, Evaluator


def fit(model, loader, opt):
    evaluator = Evaluator()
    for epoch in range(10):
        for x in loader:
            model(x).sum().backward()
            opt.step()
        {guard}
            validate(model, loader)
            evaluator.run(model, loader)
"""

VALIDATE, RUN = ("evaluation.py", "TL402", 6), ("evaluation.py", "TL402", 13)


@pytest.mark.parametrize(
    "guard",
    ["with torch.no_grad():", "with torch.inference_mode():", "with torch.no_grad(), open('log') as log:", "with torch.set_grad_enabled(False):"],
)
def test_callers_under_no_grad_cover_the_function(tmp_path, monkeypatch, guard):
    fit = FIT.format(guard=guard)
    assert findings(tmp_path, monkeypatch, {"evaluation.py": EVALUATION, "fit.py": fit}, "TL402") == set()


@pytest.mark.parametrize("guard", ["if True:", "with torch.inference_mode(False):", "with torch.enable_grad():"])
def test_callers_with_gradients_on_leave_it_reported(tmp_path, monkeypatch, guard):
    fit = FIT.format(guard=guard)
    assert findings(tmp_path, monkeypatch, {"evaluation.py": EVALUATION, "fit.py": fit}, "TL402") == {VALIDATE, RUN}


def test_every_caller_must_turn_gradients_off(tmp_path, monkeypatch):
    fit = FIT.format(guard="with torch.no_grad():") + "        validate(model, loader)\n"
    assert findings(tmp_path, monkeypatch, {"evaluation.py": EVALUATION, "fit.py": fit}, "TL402") == {VALIDATE}


def test_a_caller_decorated_or_covered_itself_covers_it(tmp_path, monkeypatch):
    fit = textwrap.dedent(
        """
    import torch
    from evaluation import validate


    @torch.no_grad()
    def check(model, loader):
        validate(model, loader)


    def check_all(model, loader):
        validate(model, loader)


    def fit(model, loader, opt):
        for epoch in range(10):
            for x in loader:
                model(x).sum().backward()
                opt.step()
            check(model, loader)
            with torch.no_grad():
                check_all(model, loader)
    """
    )
    evaluation = EVALUATION.split("class Evaluator")[0]
    assert findings(tmp_path, monkeypatch, {"evaluation.py": evaluation, "fit.py": fit}, "TL402") == set()
    assert runs_without_grad(str(tmp_path / "evaluation.py"), "validate")
    write(tmp_path, "fit.py", fit.replace("        with torch.no_grad():\n            check_all", "        check_all"))
    assert not runs_without_grad(str(tmp_path / "evaluation.py"), "validate")


# -- TL402: evaluation after a training loop of the same function -------------------------

MODEL = """
import torch


def to_device(value):
    if torch.cuda.is_available():
        return value.cuda()
    return value


def forward(model, batch):
    return model(to_device(batch))


def train_test(model, train_data, test_data):
    model.train()
    for batch in train_data:
        model.optimizer.zero_grad()
        loss = forward(model, batch).sum()
        loss.backward()
        model.optimizer.step()
    model.eval()
    scores = []
    for batch in test_data:
        scores.append(forward(model, batch).topk(20)[1].cpu().numpy())
    return scores
"""

MAIN = """
import torch
from model import Net, to_device, train_test

model = to_device(Net())
for epoch in range(30):
    hit = train_test(model, train_data, test_data)
"""


def test_evaluation_after_the_training_loop_is_reported(tmp_path, monkeypatch):
    found = findings(tmp_path, monkeypatch, {"model.py": MODEL, "main.py": MAIN}, "TL402")
    assert found == {("model.py", "TL402", 22)}


def test_a_backward_that_may_follow_the_switch_silences_it(tmp_path, monkeypatch):
    # The loop that runs the backward also switches to eval mode: a later iteration's
    # backward may go through the evaluation's graph (`out` of the previous iteration).
    looped = """
    import torch


    def train_test(model, data):
        out = None
        for batch in data:
            if out is not None:
                out.sum().backward()
            model.eval()
            out = model(batch)
    """
    main = "from model import train_test\nfor epoch in range(30):\n    train_test(model, data)\n"
    assert findings(tmp_path, monkeypatch, {"model.py": looped, "main.py": main}, "TL402") == set()


# -- TL203: workers over tensors in memory, in a program that never uses a device ---------

TOY = """
import torch
import torch.utils.data as Data

x = torch.linspace(1, 10, 10)
y = torch.linspace(10, 1, 10)
loader = Data.DataLoader(dataset={dataset}, batch_size=5, shuffle=True, num_workers=2)
net = torch.nn.Linear(1, 1){move}
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for epoch in range(3):
    for batch_x, batch_y in loader:
        loss = (net(batch_x{move}) - batch_y{move}).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
"""


@pytest.mark.parametrize(
    "dataset, move, reported",
    [
        ("Data.TensorDataset(x, y)", "", False),  # CPU only, items in memory: no workers needed
        ("list(zip(x, y))", "", False),
        ("Data.TensorDataset(x, y)", ".cuda()", True),  # the batches go to the GPU
        ("Data.TensorDataset(x, y)", ".to(device)", True),
        ("ImageFolder('data/train')", "", True),  # items are read and decoded by the workers
    ],
)
def test_workers_over_tensors_in_memory_on_the_cpu(tmp_path, monkeypatch, dataset, move, reported):
    toy = TOY.format(dataset=dataset, move=move)
    expected = {("toy.py", "TL203", 7)} if reported else set()
    assert findings(tmp_path, monkeypatch, {"toy.py": toy}, "TL203") == expected
