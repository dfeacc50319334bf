"""Round 14 of TL106: a batch's elements are moved in a nested loop over the batch (`for mel
in dvec_mels: mel = mel.cuda()`), or by a lambda handed along with the batch to the function
that applies it (`features = _nested_map(features, lambda x: x.to(device))`); and a loop over
a loader parameter is checked in a file that names no loader (`for features in self.dataset:`).
Hard negatives: host tensors, moves with `non_blocking`, elements changed in place, lambdas
handed something else, loaders that do not pin memory, test code."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from conftest import lint, project_findings

from torchlint.cli import main

NESTED = """
import torch
from torch.utils.data import DataLoader

loader = DataLoader(dataset, batch_size=8, num_workers=4, pin_memory={pin})
for epoch in range(10):
    for mels, target in loader:
        target = target.cuda()
        vectors = []
        for mel in {iterated}:
            {body}
            vectors.append(embedder(mel))
        loss = model(torch.stack(vectors), target)
        loss.backward()
        optimizer.step()
"""


def nested(pin: str = "True", iterated: str = "mels", body: str = "mel = mel.cuda()") -> set:
    code = NESTED.format(pin=pin, iterated=iterated, body=body)
    return {f.line for f in lint(code, ["TL106"])}


@pytest.mark.parametrize(
    ("iterated", "body", "expected"),
    [
        ("mels", "mel = mel.cuda()", {8, 11}),
        ("mels", "mel = mel.to(device)", {8, 11}),
        ("tqdm(mels)", "mel = mel.cuda()", {8, 11}),
        # already asynchronous, or a cast on the host
        ("mels", "mel = mel.cuda(non_blocking=True)", {8}),
        ("mels", "mel = mel.to(torch.float16)", {8}),
        # a loop over something else, or an element rebound to a new host tensor first
        ("others", "mel = mel.cuda()", {8}),
        ("mels", "mel = mel.float()\n            mel = mel.cuda()", {8}),
        # an element changed in place on the host: an asynchronous copy could read it half-written
        ("mels", "mel.mul_(2)\n            mel = mel.cuda()", {8}),
    ],
)
def test_elements_moved_in_a_nested_loop(iterated, body, expected) -> None:
    assert nested(iterated=iterated, body=body) == expected


def test_elements_of_an_unpinned_loader_are_not_reported() -> None:
    assert nested(pin="False") == set()


def test_values_of_a_mapping_batch_in_a_nested_loop() -> None:
    code = """
import torch
from torch.utils.data import DataLoader

loader = DataLoader(dataset, batch_size=8, num_workers=4, pin_memory=True)
for epoch in range(10):
    for batch in loader:
        inputs = {}
        for key, value in batch.items():
            inputs[key] = value.to(device)
        for key in batch.keys():
            print(key.to(device))
        loss = model(**inputs)
        loss.backward()
        optimizer.step()
"""
    assert {f.line for f in lint(code, ["TL106"])} == {10}


MAPPED = """
import torch
from torch.utils.data import DataLoader


def nested_map(struct, fn):
    if isinstance(struct, dict):
        return {{k: nested_map(v, fn) for k, v in struct.items()}}
    return fn(struct)


loader = DataLoader(dataset, batch_size=8, num_workers=4, pin_memory=True)
for epoch in range(10):
    for features in loader:
        {line}
        loss = model(features)
        loss.backward()
        optimizer.step()
"""


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("features = nested_map(features, lambda x: x.to(device) if isinstance(x, torch.Tensor) else x)", {15}),
        ("features = list(map(lambda t: t.cuda(), features))", {15}),
        ("features = nested_map(struct=features, fn=lambda x: x.cuda())", {15}),
        # asynchronous already; a lambda that moves something else; a lambda handed something else
        ("features = nested_map(features, lambda x: x.to(device, non_blocking=True))", set()),
        ("features = nested_map(features, lambda x: weights.cuda())", set()),
        ("other = nested_map(other, lambda x: x.cuda())", set()),
        # the batch rebound to a new host value before it is handed on
        ("features = features.float()\n        features = nested_map(features, lambda x: x.cuda())", set()),
    ],
)
def test_a_lambda_handed_along_with_the_batch_moves_it(line, expected) -> None:
    assert {f.line for f in lint(MAPPED.format(line=line), ["TL106"])} == expected


LEARNER = """
import torch


class Learner:
    def __init__(self, model, dataset, optimizer):
        self.model = model
        self.dataset = dataset
        self.optimizer = optimizer

    def train(self, device):
        while True:
            for features in self.dataset:
                features = {{k: v.{move} for k, v in features.items()}}
                loss = self.model(**features)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
"""

MAIN = """
import torch
from learner import Learner


def main(dataset, model):
    loader = torch.utils.data.DataLoader(dataset, batch_size=16, num_workers=4, pin_memory={pin})
    Learner(model, loader, torch.optim.Adam(model.parameters())).train("cuda")
"""


@pytest.mark.parametrize(
    ("move", "pin", "expected"),
    [
        ("to(device)", "True", {("learner.py", "TL106", 14)}),
        ("cuda()", "True", {("learner.py", "TL106", 14)}),
        ("to(device)", "False", set()),
        ("to(device, non_blocking=True)", "True", set()),
    ],
)
def test_a_file_naming_no_loader_is_checked(tmp_path, monkeypatch, move, pin, expected) -> None:
    files = {"learner.py": LEARNER.format(move=move), "main.py": MAIN.format(pin=pin)}
    assert project_findings(tmp_path, monkeypatch, files, "TL106") == expected


def test_a_learner_in_test_code_is_not_reported(tmp_path, monkeypatch) -> None:
    test_module = "import pytest\n" + LEARNER.format(move="to(device)")  # a test suite's module, not a training script
    files = {"test_learner.py": test_module, "main.py": MAIN.format(pin="True").replace("from learner", "from test_learner")}
    assert project_findings(tmp_path, monkeypatch, files, "TL106") == set()


def test_the_fix_in_a_lambda_is_unsafe(tmp_path, monkeypatch) -> None:
    (tmp_path / "setup.py").write_text("")
    (tmp_path / "train.py").write_text(MAPPED.format(line="features = nested_map(features, lambda x: x.cuda())"))
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", "TL106", "--output-format", "json", "."])
    findings = json.loads(result.stdout)
    assert len(findings) == 1 and findings[0]["fix"]["applicability"] == "unsafe"
    result = CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", "TL106", "--output-format", "concise", "."])
    assert "fix: unsafe: the batch is moved in a lambda" in result.stdout
