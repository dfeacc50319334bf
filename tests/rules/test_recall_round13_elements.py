"""Round 13: `.cpu()` and `.tolist()` of each element of a device tensor, in a loop over the
batch, synchronise once per element as `.item()` does (`semantics.elements`), also in a
framework's batch hook (Lightning's `validation_step`), and a loop over the batch dimension of
one tensor (`range(y.size(0))`) walks the elements of every tensor of the batch it indexes."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

LIGHTNING = """
import numpy as np
import pytorch_lightning as pl
import torch


class Restorer(pl.LightningModule):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def training_step(self, batch, batch_idx):
        y, x = batch
        loss = torch.nn.functional.mse_loss(self.net(y), x)
        self.log("loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        y, x = batch
        x_hat = self.net(y)
        psnrs = []
        for j in range(y.size(0)):
            psnrs.append(psnr(x[j].cpu().numpy(), x_hat[j].cpu().numpy()))
        self.log("psnr", float(np.mean(psnrs)))

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters())


pl.Trainer(accelerator="gpu", max_epochs=10).fit(Restorer(torch.nn.Conv2d(1, 1, 3)), loaders)
"""

LOOP = """
import torch


def train(model, optimizer, loader, epochs):
    model = model.cuda()
    for epoch in range(epochs):
        for images, labels in loader:
            images, labels = images.cuda(non_blocking=True), labels.cuda(non_blocking=True)
            out = model(images)
            loss = torch.nn.functional.cross_entropy(out, labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            for i in range(out.shape[0]):
                row = out[i].tolist()
                record(row)
"""


def test_cpu_of_each_element_in_a_lightning_validation_step(tmp_path, monkeypatch):
    found = project_findings(tmp_path, monkeypatch, {"train.py": LIGHTNING}, "TL101")
    assert found == {("train.py", "TL101", 23)}


def test_tolist_of_each_row_in_a_training_step_loop(tmp_path, monkeypatch):
    assert project_findings(tmp_path, monkeypatch, {"train.py": LOOP}, "TL101") == {("train.py", "TL101", 16)}


@pytest.mark.parametrize(
    "change",
    [
        # copied to the host once, before the loop: its elements are host tensors (the copy
        # itself, once per batch, is reported as any sync in the hook)
        ("        x_hat = self.net(y)\n", "        x = x.cpu()\n        x_hat = self.net(y).cpu()\n"),
        # a loop over something else than the batch dimension
        ("for j in range(y.size(0)):", "for j in range(y.size(1)):"),
        ("for j in range(y.size(0)):", "for j in range(len(names)):"),
        # once, not per element
        ("for j in range(y.size(0)):", "for j in range(1):"),
    ],
)
def test_hard_negatives(tmp_path, monkeypatch, change):
    code = LIGHTNING.replace(*change)
    element_line = code.splitlines().index("            psnrs.append(psnr(x[j].cpu().numpy(), x_hat[j].cpu().numpy()))") + 1
    assert ("train.py", "TL101", element_line) not in project_findings(tmp_path, monkeypatch, {"train.py": code}, "TL101")


def test_in_test_code_or_a_cpu_program_it_is_not(tmp_path, monkeypatch):
    test = LOOP + "\n\ndef test_train():\n    train(model, optimizer, loader, 1)\n"
    assert project_findings(tmp_path, monkeypatch, {"test_train.py": test}, "TL101") == set()
    cpu = LOOP.replace("model.cuda()", "model").replace("images.cuda(non_blocking=True), labels.cuda(non_blocking=True)", "images, labels")
    assert project_findings(tmp_path, monkeypatch, {"train.py": cpu}, "TL101") == set()
