"""The tenth round of issue 25, TL402: evaluation that runs the model through a method of its
own other than `forward` (`self.model.finetune(input_ids)`) on the batches of its loop, in a
trainer class whose `valid()` an entry script calls every epoch on an object of a subclass
that inherits it. Hard negatives: bookkeeping calls (`state_dict`), `generate` (libraries run
it without gradients), a call given no batch value, and the same code under `no_grad`."""

from __future__ import annotations

from typing import Dict

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

TRAINERS = """
import torch


class Trainer:
    def __init__(self, model, args):
        self.model = model.cuda()
        self.optim = torch.optim.Adam(model.parameters())

    def train(self, loader):
        self.model.train()
        for batch in loader:
            loss = self.model(batch.cuda()).mean()
            self.optim.zero_grad()
            loss.backward()
            self.optim.step()

    def valid(self, loader):
        {guard}self.model.eval()
        scores = []
        for batch in loader:
            input_ids, labels = batch
            input_ids = input_ids.cuda()
            {call}
        return scores


class FinetuneTrainer(Trainer):
    pass
"""

SCRIPT = """
from trainers import FinetuneTrainer


def main(args, model, train_loader, valid_loader):
    trainer = FinetuneTrainer(model, args)
    for epoch in range(args.epochs):
        trainer.train(train_loader)
        trainer.valid(valid_loader)
"""

EVAL_LINE = 19


def findings(tmp_path, monkeypatch, guard: str, call: str) -> set:
    files: Dict[str, str] = {"trainers.py": TRAINERS.format(guard=guard, call=call), "train.py": SCRIPT}
    return {(path, line) for path, _code, line in project_findings(tmp_path, monkeypatch, files, "TL402")}


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        ("scores.append(self.model.finetune(input_ids))", {("trainers.py", EVAL_LINE)}),
        ("scores.append(self.model.predict(input_ids, labels))", {("trainers.py", EVAL_LINE)}),
        ("scores.append(self.model(input_ids))", {("trainers.py", EVAL_LINE)}),
        ("scores.append(self.model.generate(input_ids))", set()),  # libraries generate without gradients
        ("scores.append(self.model.state_dict())", set()),  # bookkeeping, no data
        ("scores.append(self.model.describe(args_text))", set()),  # given nothing drawn from the batch
    ],
)
def test_model_method_run_on_the_batch_in_eval_mode(tmp_path, monkeypatch, call, expected) -> None:
    assert findings(tmp_path, monkeypatch, "", call) == expected


def test_the_same_under_no_grad_is_silent(tmp_path, monkeypatch) -> None:
    guard = "torch.set_grad_enabled(False)\n        "
    assert findings(tmp_path, monkeypatch, guard, "scores.append(self.model.finetune(input_ids))") == set()
