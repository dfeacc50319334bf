"""Round 27: loaders kept in a dict display and iterated by phase (`for phase in ["train",
"val"]: for x, y in tqdm(dataloaders[phase]):`) are followed by TL202 as they are by TL203:
their batches are moved to CUDA in the loop. Hard negatives: the same loop moving nothing,
loaders that pin memory, and a CPU-only program."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

PHASES = """
import torch
from torch.utils.data import DataLoader
from tqdm import tqdm


def train(cfg, model, train_dataset, valid_dataset, optimizer):
    device = torch.device({device})
    dataloaders = {{
        "train": DataLoader(train_dataset, batch_size=8, shuffle=True, num_workers=4{pin}),
        "val": DataLoader(valid_dataset, batch_size=8, num_workers=4{pin}),
    }}
    for epoch in range(10):
        for phase in ["train", "val"]:
            loop = tqdm(dataloaders[phase])
            for i, (inputs, labels) in enumerate(loop):
                {move}
                loss = (model(inputs) - labels).pow(2).mean()
                if phase == "train":
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
"""

CUDA = "f'cuda:{cfg.gpu}' if torch.cuda.is_available() else 'cpu'"
MOVE = "inputs, labels = inputs.to(device), labels.to(device)"


@pytest.mark.parametrize(
    "device, pin, move, reported",
    [
        (CUDA, "", MOVE, [10, 11]),
        (CUDA, "", "inputs = inputs.float()", []),  # the batches stay on the host
        (CUDA, ", pin_memory=True", MOVE, []),
        ('"cpu"', "", MOVE, []),  # a CPU-only program
    ],
)
def test_loaders_in_a_dict_iterated_by_phase(device, pin, move, reported):
    assert lines(PHASES.format(device=device, pin=pin, move=move), "TL202") == reported
