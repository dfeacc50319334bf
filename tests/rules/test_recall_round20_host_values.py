"""Round 20 (batch 28, TL101 and TL202 false findings): values that are on the host or on
the device already. A function of a host-only library (scikit-learn, SciPy, pandas) returns
a host value, so `.item()` of it waits for nothing; a name copied to the host that the loop
then converts to NumPy through torch calls (`torch.flatten(pred_cpu).detach().numpy()`) is
host output; and a dataset whose `__getitem__` moves each item to the device gives batches
that `pin_memory` cannot pin."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

EVALUATION = """
import torch
from sklearn.metrics import r2_score


def evaluate(model, loader):
    scores = []
    for x, y in loader:
        pred = model(x.cuda())
        {body}
    return scores


for epoch in range(10):
    for x, y in train_loader:
        torch.nn.functional.mse_loss(model(x.cuda()), y.cuda()).backward()
        optimizer.step()
    evaluate(model, val_loader)
"""


def check(body: str) -> list:
    return lines(EVALUATION.format(body=body), "TL101")


def test_item_of_a_scikit_learn_result_is_a_host_read():
    assert check("scores.append(r2_score(y.numpy(), pred.detach().cpu().numpy()).item())") == []


def test_item_of_a_torch_result_still_waits():
    assert check("scores.append(torch.mean(pred).item())") == [10]


def test_a_host_copy_converted_to_numpy_through_torch_calls_is_output():
    body = "pred_cpu = pred.cpu()\n        scores.append(r2_score(y.numpy(), torch.flatten(pred_cpu).detach().numpy()))"
    assert check(body) == []


def test_a_host_copy_kept_as_a_tensor_still_waits():
    body = "pred_cpu = pred.cpu()\n        scores.append(torch.flatten(pred_cpu).detach())"
    assert check(body) == [10]


PINNING = """
import torch
from torch.utils.data import DataLoader, Dataset


class Clips(Dataset):
    def __init__(self, paths, device):
        self.paths = paths
        self.device = device

    def __getitem__(self, index):
        audio = load_audio(self.paths[index])
        return {move}, index

    def __len__(self):
        return len(self.paths)


device = "cuda" if torch.cuda.is_available() else "cpu"
loader = DataLoader(Clips(paths, device), batch_size=32, num_workers=0)
for epoch in range(10):
    for audio, label in loader:
        loss = model(audio.to(device), label.to(device))
"""


@pytest.mark.parametrize("move, reported", [
    ("audio.to(self.device)", []),
    ("audio.cuda()", []),
    ('audio.to("cuda:0")', []),
    ("audio.to(torch.float32)", [20]),  # a dtype cast: the item stays on the host
    ("audio", [20]),
])
def test_a_dataset_that_moves_its_items_gives_device_batches(move, reported):
    assert lines(PINNING.format(move=move), "TL202") == reported
