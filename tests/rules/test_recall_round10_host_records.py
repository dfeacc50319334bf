"""The tenth round of issue 25, a false TL101 cause: a helper that an evaluation pass calls
for every batch and that converts predictions with `.tolist()` to build Python records one
element at a time (COCO-style results for an external evaluator) needs the values on the
host; the same conversion whose result is not walked element by element is still reported."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

EVALUATOR = """
import torch


class Evaluator:
    def __init__(self, device="cuda"):
        self.device = device
        self.results = []

    def update(self, predictions):
        for image_id, prediction in predictions.items():
            scores = prediction["scores"].tolist()
            labels = prediction["labels"].tolist()
            {use}
"""

ENGINE = """
import torch
from evaluator import Evaluator


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    evaluator = Evaluator()
    for images, targets in loader:
        outputs = model(images.to(device))
        evaluator.update({{t["image_id"]: o for t, o in zip(targets, outputs)}})
    return evaluator.results


def train(model, loader, val_loader, optimizer, device, epochs):
    for epoch in range(epochs):
        for images, targets in loader:
            loss = model(images.to(device), targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        evaluate(model, val_loader, device)
"""

RECORDS = 'self.results.extend({"image_id": image_id, "label": labels[k], "score": scores[k]} for k in range(len(scores)))'
LOOP = 'for label, score in zip(labels, scores):\n                self.results.append((image_id, label, score))'
TOTALS = "self.results.append(sum(scores) / max(len(labels), 1))"


@pytest.mark.parametrize(
    "use, expected",
    [
        (RECORDS, set()),  # indexed with a comprehension's target: one record per detection
        (LOOP, set()),  # walked by a loop through zip()
        (TOTALS, {12, 13}),  # reduced at once: the sums could be taken on the device
    ],
)
def test_values_made_into_records_one_by_one(tmp_path, monkeypatch, use, expected) -> None:
    files = {"evaluator.py": EVALUATOR.format(use=use), "engine.py": ENGINE}
    found = project_findings(tmp_path, monkeypatch, files, "TL101")
    assert {line for path, _code, line in found if path == "evaluator.py"} == expected
