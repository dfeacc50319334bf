"""Round 23 (TL201): `num_workers=args.workers` where the project's `--workers` option defaults
to 0 and no launch script sets it above zero loads every batch in the training process unless
the user asks for more (`passed_values.zero_by_default`, which TL203 already used to stay
silent). Reported without a fix: the default is the maintainer's to change. An option with
another default, or one a launch script raises, stays silent."""

from __future__ import annotations

import pytest

from test_recall_round2 import project

pytestmark = pytest.mark.stable_only

TRAIN = """
import argparse
import torch
from torch.utils.data import DataLoader
from data import ImageFolderDataset

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default={default})
    args = parser.parse_args()
    loader = DataLoader(ImageFolderDataset("train"), batch_size=64, shuffle=True, num_workers=args.workers, pin_memory=True)
    model = torch.nn.Linear(10, 2).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(100):
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x.cuda(non_blocking=True)), y.cuda(non_blocking=True))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

if __name__ == "__main__":
    main()
"""

DATA = """
from PIL import Image
from torch.utils.data import Dataset
import torchvision.transforms as T

class ImageFolderDataset(Dataset):
    def __init__(self, root):
        self.paths = sorted(open(root + "/index.txt").read().split())
        self.to_tensor = T.ToTensor()

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        return self.to_tensor(Image.open(self.paths[i]).convert("RGB")), 0
"""


@pytest.mark.parametrize("default, script, reported", [
    ("0", "", [("train.py", 11)]),
    ("0", "python train.py --workers 0\n", [("train.py", 11)]),
    ("0", "python train.py --workers 8\n", []),
    ("4", "", []),
])
def test_a_worker_option_that_defaults_to_zero(tmp_path, monkeypatch, default, script, reported):
    files = {"train.py": TRAIN.format(default=default), "data.py": DATA}
    if script:
        files["run.sh"] = script
    assert project(tmp_path, monkeypatch, files, "TL201") == reported
