"""Round 13: a loader a project factory returns to a module global, which a function of that
module passes over and module-level code calls every epoch (`eval_training(epoch)` reading
`test_loader`), is re-iterated every epoch: TL203 reports the factory's DataLoader
(`project.FunctionFacts.iterated_globals`)."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

UTILS = """
from torch.utils.data import DataLoader


def get_test_dataloader(dataset, batch_size=16, num_workers=2):
    test_loader = DataLoader(dataset, shuffle=False, num_workers=num_workers, batch_size=batch_size, pin_memory=True)
    return test_loader
"""

TRAIN = """
import torch
from utils import get_test_dataloader

net = torch.nn.Linear(4, 2).cuda()
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)


def train(epoch):
    net.train()
    for images, labels in train_loader:
        loss = torch.nn.functional.cross_entropy(net(images.cuda(non_blocking=True)), labels.cuda(non_blocking=True))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


@torch.no_grad()
def eval_training(epoch):
    net.eval()
    correct = 0
    for images, labels in test_loader:
        images, labels = images.cuda(non_blocking=True), labels.cuda(non_blocking=True)
        correct = correct + (net(images).argmax(1) == labels).sum()
    return correct


if __name__ == "__main__":
    train_loader = torch.utils.data.DataLoader(train_set, num_workers=4, pin_memory=True, persistent_workers=True)
    test_loader = get_test_dataloader(test_set, num_workers=4)
    for epoch in range(200):
        train(epoch)
        acc = eval_training(epoch)
"""

FOUND = {("utils.py", "TL203", 6)}


def test_a_global_loader_a_function_passes_over_every_epoch(tmp_path, monkeypatch):
    assert project_findings(tmp_path, monkeypatch, {"utils.py": UTILS, "train.py": TRAIN}, "TL203") == FOUND


@pytest.mark.parametrize(
    "change",
    [
        # evaluated once, after training
        ("        acc = eval_training(epoch)\n", "    acc = eval_training(0)\n"),
        # the function iterates its own parameter of the same name, which no call passes
        ("def eval_training(epoch):", "def eval_training(epoch, test_loader=()):"),
        # the function builds its own loader of that name
        ("    correct = 0\n", "    correct = 0\n    test_loader = []\n"),
        # a local of `main()`, not a global the function can read
        ('if __name__ == "__main__":', "def main():"),
    ],
)
def test_hard_negatives(tmp_path, monkeypatch, change):
    assert project_findings(tmp_path, monkeypatch, {"utils.py": UTILS, "train.py": TRAIN.replace(*change)}, "TL203") == set()
