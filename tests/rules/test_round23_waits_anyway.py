"""Round 23 (TL101): in an evaluation loop that reads its predictions back into host output
every iteration (`preds.append(out.cpu().numpy())` for a scikit-learn metric), the iteration
waits for the device there in any case: a loss's `.item()` in the same iteration adds no wait
of its own. Not in a loop that trains, not where the host output is conditional, not for a
tensor's `.cpu()` (a copy of its whole size)."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

RULE = "TL101"

EVALUATION = """
import numpy as np
import torch

def validate(model, loader, device):
    model.eval()
    preds, total = [], 0.0
    with torch.no_grad():
        for x, y in loader:
            out = model(x.to(device))
            loss = criterion(out, y.to(device))
            {read}
            {output}
    return total, np.concatenate(preds)

for epoch in range(10):
    for x, y in train_loader:
        loss = criterion(model(x.to(device)), y.to(device))
        loss.backward()
        optimizer.step()
    validate(model, val_loader, device)
"""


@pytest.mark.parametrize("read, output, reported", [
    ("total += loss.item()", "preds.append(out.argmax(1).cpu().numpy())", []),
    ("total += loss.cpu().item()", "preds.append(out.cpu().numpy())", []),
    ("total += loss.item()", "preds.append(np.argmax(out.cpu(), axis=1))", []),
    # the host output comes first: the wait happens there, the loss is ready by then
    ("preds.append(out.cpu().numpy())", "total += loss.item()", []),
    # no host output: the loss's read-back is the iteration's wait
    ("total += loss.item()", "preds.append(out.argmax(1))", [12]),
    # host output only now and then: most iterations wait at the loss
    ("total += loss.item()", "if total > 100: preds.append(out.cpu().numpy())", [12]),
    # a tensor's `.cpu()` copies all of it, beside the wait
    ("kept = out.cpu()", "preds.append(out.argmax(1).cpu().numpy())", [12]),
])
def test_a_number_read_back_beside_host_output(read, output, reported):
    assert lines(EVALUATION.format(read=read, output=output), RULE) == reported


def test_a_training_loop_with_host_metrics_still_pays_for_its_reads():
    code = """
    import numpy as np
    import torch
    for epoch in range(10):
        for x, y in loader:
            out = model(x.to(device))
            loss = criterion(out, y.to(device))
            loss.backward()
            optimizer.step()
            total += loss.item()
            preds.append(out.argmax(1).cpu().numpy())
    """
    assert lines(code, RULE) == [10, 11]


def test_host_output_in_a_nested_branch_does_not_cover_the_outer_read():
    code = """
    import numpy as np
    import torch
    def validate(model, loader):
        with torch.no_grad():
            for x, y in loader:
                out = model(x.cuda())
                total = criterion(out, y.cuda()).item()
                for k in range(3):
                    if k == 1:
                        preds.append(out.cpu().numpy())
    for epoch in range(10):
        for x, y in loader:
            criterion(model(x.cuda()), y.cuda()).backward()
            optimizer.step()
        validate(model, loader)
    """
    assert lines(code, RULE) == [8]
