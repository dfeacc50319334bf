"""Round 12: a guard made of `or` is rare only when every side is (`if epoch == last or
epoch % val_interval == 0:` runs an evaluation every few epochs, per-epoch work); a guard made
of `and` is rare when one side is (`if args.verbose and step % 100 == 0:`)."""

from __future__ import annotations

import libcst as cst
import pytest
from conftest import project_findings

from torchlint.semantics.frequency import UNDER_INTERVAL, rare_test


@pytest.mark.parametrize(
    ("test", "expected"),
    [
        ("epoch == args.epochs or epoch % args.val_interval == 0", ""),
        ("epoch == start + 1 or epoch == last or epoch % cfg['val_interval'] == 0", ""),
        ("epoch % args.val_interval == 0 or ready", ""),
        ("step % 250 == 0 or last_step", UNDER_INTERVAL),
        ("step % 250 == 0 or not self.running", UNDER_INTERVAL),
        ("ready or done", ""),
        ("step % 250 == 0 or len(queue) > 4", ""),
        ("step % args.log_every == 0 or step == 0", UNDER_INTERVAL),
        ("args.debug or step % 100 == 0", UNDER_INTERVAL),
        ("args.debug or args.verbose", "under `debug`"),
        ("ready and step % args.log_every == 0", UNDER_INTERVAL),
        ("epoch % args.val_interval == 0 and args.debug", "under `debug`"),
        ("epoch % args.val_interval == 0 and ready", ""),
    ],
)
def test_or_needs_every_side_rare_and_needs_one(test, expected):
    assert rare_test(cst.parse_expression(test), {"step", "epoch"}) == expected


TRAIN = """
import torch
from torch.utils.data import DataLoader
from running import Evaluator, validate


def main(args, dataset, model, opt):
    val_loader = DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True)
    train_loader = DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True)
    evaluator = Evaluator(model, val_loader, torch.device("cuda"))
    for epoch in range(1, args.epochs + 1):
        for x, y in train_loader:
            loss = model(x.cuda(non_blocking=True)).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
        if {guard}:
            validate(evaluator, epoch)


if __name__ == "__main__":
    main(parse(), load(), build(), make())
"""

RUNNING = """
import torch


class Evaluator:
    def __init__(self, model, dataloader, device):
        self.model = model
        self.dataloader = dataloader
        self.device = device

    def evaluate(self):
        total = 0.0
        for X, targets in self.dataloader:
            targets = targets.to(self.device)
            total += self.model(X.to(self.device), targets).sum()
        return total


def validate(evaluator, epoch):
    metrics = evaluator.evaluate()
    print(epoch, metrics)
"""

MOVES = {("running.py", "TL106", 14), ("running.py", "TL106", 15)}


@pytest.mark.parametrize(
    ("guard", "expected"),
    [
        ("epoch == args.epochs or epoch % args.val_interval == 0", MOVES),
        ("epoch == 1 or epoch % args.val_interval == 0", MOVES),
        ("(epoch == config['epochs']) or (epoch == start + 1) or (epoch % config['val_interval'] == 0)", MOVES),
        ("epoch % args.val_interval == 0", MOVES),
    ],
)
def test_evaluation_every_few_epochs_is_per_epoch_work(tmp_path, monkeypatch, guard, expected):
    files = {"train.py": TRAIN.format(guard=guard), "running.py": RUNNING}
    assert project_findings(tmp_path, monkeypatch, files, "TL106") == expected


EVALUATION = """
import numpy as np
import torch


def evaluate(model, user_batches, device):
    results = []
    for users in user_batches:
        with torch.no_grad():
            scores = model(users.to(device))
        scores = scores.cpu()
        {use}
    return results


def train(model, loader, opt, user_batches, device):
    for epoch in range(100):
        for x in loader:
            loss = model(x.to(device)).sum()
            opt.zero_grad()
            loss.backward()
            opt.step()
        if epoch % args.eval_every == 0 or epoch == 99:
            evaluate(model, user_batches, device)
"""


@pytest.mark.parametrize(
    ("use", "expected"),
    [
        ("results.append(ranking(scores.numpy()))", set()),
        # a NumPy conversion of a scalar is no output: the value could stay on the device
        ("results.append(np.float64(scores.sum()))", {("train.py", "TL101", 11)}),
        ("results.append(scores.tolist())", set()),
        # a host copy that nothing hands to NumPy, a file or Python: the sync buys nothing
        ("results.append(scores.sum())", {("train.py", "TL101", 11)}),
        ("results.append(other.numpy())", {("train.py", "TL101", 11)}),
    ],
)
def test_a_host_copy_a_later_line_hands_to_numpy_is_needed(tmp_path, monkeypatch, use, expected):
    files = {"train.py": EVALUATION.format(use=use)}
    assert project_findings(tmp_path, monkeypatch, files, "TL101") == expected
