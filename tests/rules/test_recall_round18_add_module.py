"""Round 18 (TL301, after batch 26's measurement): DCGAN-style networks build an empty
`nn.Sequential()` and fill it with `main.add_module(name, layer)`, straight or in `for` and
`while` loops that run their body through. The modules run in the order they were added, so
a convolution added right before a BatchNorm has its bias cancelled, as in
`nn.Sequential(conv, bn)` or a list built by `append` and spliced into one."""

from __future__ import annotations

import pytest
from conftest import lines

GENERATOR = """
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self, nz, ngf, size, extra):
        super().__init__()
        main = nn.Sequential()
        main.add_module("initial-convt", nn.ConvTranspose2d(nz, ngf, 4, 1, 0))
        {between}
        main.add_module("initial-bn", nn.BatchNorm2d(ngf))
        main.add_module("initial-relu", nn.ReLU(True))
        csize = 4
        while csize < size // 2:
            main.add_module("pyramid-{{}}".format(csize), nn.ConvTranspose2d(ngf, ngf // 2, 4, 2, 1))
            main.add_module("pyramid-bn-{{}}".format(csize), nn.BatchNorm2d(ngf // 2))
            main.add_module("pyramid-relu-{{}}".format(csize), nn.ReLU(True))
            {loop_end}
            csize *= 2
            ngf //= 2
        for _ in range(extra):
            main.add_module("extra-conv", nn.Conv2d(ngf, ngf, 3, 1, 1))
            main.add_module("extra-bn", nn.BatchNorm2d(ngf))
            main.add_module("extra-relu", nn.ReLU(True))
        main.add_module("final", nn.ConvTranspose2d(ngf, 3, 4, 2, 1))
        self.main = main

    def forward(self, z):
        return self.main(z)


model = Generator(100, 64, 64, 1).cuda()
"""


def check(between: str = "", loop_end: str = "") -> list:
    return lines(GENERATOR.format(between=between, loop_end=loop_end), "TL301")


def test_layers_added_to_an_empty_sequential_in_order_are_read_as_a_sequence():
    assert check() == [9, 15, 22]


@pytest.mark.parametrize(
    "between, loop_end, expected",
    [
        # An activation added between the layer and its norm.
        ('main.add_module("initial-act", nn.LeakyReLU(0.2))', "", [15, 22]),
        # A loop that may stop in the middle of a pass: its layers' neighbours are unknown.
        ("", "if csize > 64:\n                break", [9, 23]),
        # Another method on the Sequential makes its order unknown.
        ("main.insert(1, nn.Identity())", "", []),
        # So does a call it is handed, which may add modules.
        ("add_block(main, ngf)", "", []),
    ],
)
def test_layers_whose_neighbours_the_module_does_not_show_are_not_reported(between, loop_end, expected):
    assert check(between, loop_end) == expected
