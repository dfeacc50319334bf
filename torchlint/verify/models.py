"""The realistic parts of the fixture programs: a ResNet-style conv net, a transformer block and
loader items that cost CPU time to decode and augment, all shaped by the current size.

Only the fixture programs import this module (it needs torch); each program keeps the code its rule
is about in its own text, and takes the rest of its workload from here.
"""

from __future__ import annotations

from typing import Tuple

import torch
import torch.nn as nn
from torchlint.verify.sizes import Workload, workload

CLASSES = 10
MEAN, STD = 0.5, 0.25


class Residual(nn.Module):
    """conv-bn-relu-conv-bn plus a shortcut (a strided 1x1 conv where the shape changes)."""

    def __init__(self, channels_in: int, channels_out: int, stride: int) -> None:
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(channels_in, channels_out, 3, stride, 1, bias=False),
            nn.BatchNorm2d(channels_out),
            nn.ReLU(inplace=True),
            nn.Conv2d(channels_out, channels_out, 3, 1, 1, bias=False),
            nn.BatchNorm2d(channels_out),
        )
        self.shortcut: nn.Module = nn.Identity()
        if stride != 1 or channels_in != channels_out:
            self.shortcut = nn.Sequential(
                nn.Conv2d(channels_in, channels_out, 1, stride, bias=False), nn.BatchNorm2d(channels_out)
            )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.body(x) + self.shortcut(x))


def resnet(shapes: Workload | None = None, channels_in: int = 3) -> nn.Sequential:
    """A ResNet for `shapes`: a stem, `depth` residual blocks per stage (each later stage halves
    the resolution and widens), global pooling and a linear classifier."""
    shapes = shapes or workload()
    widths = shapes.widths
    layers: list = [nn.Conv2d(channels_in, widths[0], 3, 1, 1, bias=False), nn.BatchNorm2d(widths[0]), nn.ReLU()]
    previous = widths[0]
    for stage, width in enumerate(widths):
        for block in range(shapes.depth):
            layers.append(Residual(previous, width, 2 if stage and not block else 1))
            previous = width
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(previous, CLASSES)]
    return nn.Sequential(*layers)


def images(steps: int, device: torch.device, shapes: Workload | None = None) -> Tuple[torch.Tensor, torch.Tensor]:
    """`steps` batches of synthetic images and labels, drawn from the global generator."""
    shapes = shapes or workload()
    batch = (steps, shapes.batch, 3, shapes.image, shapes.image)
    return torch.randn(batch, device=device), torch.randint(0, CLASSES, (steps, shapes.batch), device=device)


class TransformerBlock(nn.Module):
    """A pre-norm transformer block: causal self-attention and a 4x MLP, each with a residual."""

    def __init__(self, shapes: Workload | None = None) -> None:
        super().__init__()
        shapes = shapes or workload()
        width = shapes.model_dim
        self.heads = shapes.heads
        self.norm1, self.norm2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.out = nn.Linear(width, width)
        self.mlp = nn.Sequential(nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, width = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(batch, length, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
        attended = nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.out(attended.transpose(1, 2).reshape(batch, length, width))
        return x + self.mlp(self.norm2(x))


def tokens(steps: int, device: torch.device, shapes: Workload | None = None) -> Tuple[torch.Tensor, torch.Tensor]:
    """`steps` batches of embedded token sequences and regression targets of the same shape."""
    shapes = shapes or workload()
    shape = (steps, shapes.sequences, shapes.sequence, shapes.model_dim)
    return torch.randn(shape, device=device), torch.randn(shape, device=device)


def decode(index: int, shapes: Workload | None = None) -> torch.Tensor:
    """Item `index` of a synthetic image dataset, costing CPU time as JPEG decoding and augmentation
    do: 'decoded' from its own seeded bytes, blurred, randomly cropped and flipped, and normalised.
    It depends only on the index, so any number of loader workers yields the same batches."""
    shapes = shapes or workload()
    generator = torch.Generator().manual_seed(index)
    side, crop = shapes.decoded, shapes.image
    encoded = torch.randint(0, 256, (3, side, side), dtype=torch.uint8, generator=generator)
    image = nn.functional.avg_pool2d(encoded.float().div_(255).unsqueeze(0), 3, 1, 1).squeeze(0)
    top, left = (int(value) for value in torch.randint(0, side - crop + 1, (2,), generator=generator))
    image = image[:, top : top + crop, left : left + crop]
    if torch.rand((), generator=generator) < 0.5:
        image = image.flip(-1)
    return (image - MEAN) / STD


def host_batch(step: int, device: torch.device, shapes: Workload | None = None) -> Tuple[torch.Tensor, torch.Tensor]:
    """Batch `step` made on the host, as a loop without loader workers makes it: every item
    decoded and augmented on the CPU, then copied to `device` from pinned memory without blocking,
    so the host can prepare the next batch while the GPU computes (unless the loop synchronises)."""
    shapes = shapes or workload()
    indices = range(step * shapes.batch, (step + 1) * shapes.batch)
    images = torch.stack([decode(index, shapes) for index in indices])
    labels = torch.tensor([index % CLASSES for index in indices])
    if device.type == "cuda":
        images, labels = images.pin_memory(), labels.pin_memory()
    return images.to(device, non_blocking=True), labels.to(device, non_blocking=True)
