"""Round 28: a loop that moves what each iteration draws to the device is a pass over batches,
whatever its iterable is called (`for i, (eval, src) in
enumerate(layer.iterate_one_epoch_eval()):`): its reads wait once per batch. Hard negatives:
a loop whose target names the epoch, and one that moves nothing it draws."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

PROGRAM = """
import torch


def do_eval(encoder, layer):
    total = 0.0
    for {target} in enumerate(layer.iterate_one_epoch_eval()):
        inputs = {inputs}
        loss = encoder(inputs).sum()
        total += loss.item()
    return total


for epoch in range(100):
    for x in train_layer.iterate_one_epoch():
        loss = encoder(x.cuda()).sum()
        loss.backward()
        optimizer.step()
    if epoch % 3 == 0:
        print(do_eval(encoder, eval_layer))
"""


@pytest.mark.parametrize("target, inputs, reported", [
    ("i, (target, src)", "src.cuda().to_dense()", [10]),
    ("i, (target, src)", "src.to(device)", [10]),
    ("i, (target, src)", "src.to(torch.float16)", []),
    ("epoch, src", "src.cuda()", []),
])
def test_a_loop_that_moves_what_it_draws_passes_over_batches(target, inputs, reported):
    assert lines(PROGRAM.format(target=target, inputs=inputs), "TL101") == reported
