"""Round 23 (TL201, TL202; batch 31's DDPM on MNIST): a dataset class that derives from a
library's dataset (`class Mnist(torchvision.datasets.MNIST)`) gets its data from that base,
which reads it from disk; a torch factory in its `__getitem__` (a random diffusion timestep)
does not make it a dataset that makes its data up (`semantics.datasets._makes_data_up`). A
class over torch's empty `Dataset` that only draws random tensors still does (TL201 silent)."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

CODE = """
import torch
import torchvision
from PIL import Image
from torch.utils.data import DataLoader, Dataset
from torchvision.transforms import ToTensor

class Digits({base}):
    def __getitem__(self, index):
        img = Image.fromarray(self.data[index].numpy(), mode="L").resize((32, 32))
        return ToTensor()(img), torch.randint(0, 1000, (1,))

loader = DataLoader(Digits(root="./data", download=True), batch_size=128, shuffle=True)
model = torch.nn.Linear(1024, 10).cuda()
optimizer = torch.optim.Adam(model.parameters())
for epoch in range(10):
    for x, t in loader:
        model(x.cuda().flatten(1)).sum().backward()
        optimizer.step()
"""

RANDOM = """
import torch
from torch.utils.data import DataLoader, Dataset

class Noise(Dataset):
    def __len__(self):
        return 1000
    def __getitem__(self, index):
        return torch.randn(16), torch.randint(0, 10, (1,))

loader = DataLoader(Noise(), batch_size=128)
model = torch.nn.Linear(16, 10).cuda()
optimizer = torch.optim.Adam(model.parameters())
for epoch in range(10):
    for x, y in loader:
        model(x.cuda()).sum().backward()
        optimizer.step()
"""


@pytest.mark.parametrize("rule", ["TL201", "TL202"])
def test_a_subclass_of_a_library_dataset_holds_real_data(rule):
    assert lines(CODE.format(base="torchvision.datasets.MNIST"), rule) == [13]


def test_a_dataset_that_makes_its_data_up_needs_no_workers():
    assert lines(RANDOM, "TL201") == []
