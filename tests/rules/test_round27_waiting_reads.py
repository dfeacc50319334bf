"""Round 27: a read-back after an earlier one in the same iteration, with no device work that
matters queued in between, waits for nothing (`semantics.device_queue`): only the iteration's
first read is reported. Work in between (a forward pass, a backward pass, an optimizer step, a
copy to the device, a project function) makes the later read wait again; a read that may not
run (in a branch, a comprehension, a conditional expression) waits for nothing only if it is
not the first."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

STEP = """
import torch
from helpers import evaluate_batch

device = torch.device("cuda")


def train(model, loader, optimizer, criterion, pbar):
    for epoch in range(10):
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            out = model(x)
            loss = criterion(out, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            {first}
            {between}
            {second}
"""


@pytest.mark.parametrize(
    "first, between, second, reported",
    [
        # Small kernels on values of the step: the device is idle after the first read.
        ("total += loss.item()", "pass", "correct += (out.argmax(1) == y).sum().item()", [17]),
        ("total += loss.item()", "acc = out.softmax(1).max(1)[0].mean()", "accs.append(acc.item())", [17]),
        ("total += loss.item()", "logger.info('step')", "pbar.set_postfix(loss=loss.item())", [17]),
        ("n = y.numel()", "pass", "pbar.set_postfix(loss=loss.item(), acc=(out.argmax(1) == y).float().mean().item())", [19]),
        ("torch.cuda.synchronize()", "pass", "total += loss.item()", []),
        # Work queued in between: the later read waits for it.
        ("total += loss.item()", "out = model(x)", "total += out.mean().item()", [17, 19]),
        ("total += loss.item()", "loss.backward()", "total += loss.item()", [17, 19]),
        ("total += loss.item()", "optimizer.step()", "total += loss.item()", [17, 19]),
        ("total += loss.item()", "z = x.to(device)", "total += z.sum().item()", [17, 19]),
        ("total += loss.item()", "score = evaluate_batch(out, y)", "total += score.item()", [17, 19]),
        ("total += loss.item()", "z = torch.matmul(out, out.t())", "total += z.sum().item()", [17, 19]),
        # The first read may not run: the later one may be the iteration's wait.
        ("if epoch > 3: total += loss.item()", "pass", "correct += (out.argmax(1) == y).sum().item()", [17, 19]),
        ("first = loss.item() if epoch else 0.0", "pass", "correct += out.sum().item()", [17, 19]),
        ("firsts = [t.item() for t in out]", "pass", "correct += out.sum().item()", [17, 19]),
    ],
)
def test_a_later_read_waits_only_for_what_was_queued_since_the_first(first, between, second, reported):
    assert lines(STEP.format(first=first, between=between, second=second), "TL101") == reported


BRANCHES = """
import torch

device = torch.device("cuda")

for x, y in loader:
    out = model(x.to(device))
    out.sum().backward()
    optimizer.step()
    if out.max().item() > 0:
        kept = out.sum().item()
    else:
        out = model(x.to(device))
    after = out.mean().item()
"""


def test_a_read_in_a_test_waits_for_the_body_and_a_branch_with_work_counts():
    """The test's read runs before its body, whose read then waits for nothing; the `else`
    branch queues a forward pass, so the read after the `if` may wait again."""
    assert lines(BRANCHES, "TL101") == [10, 14]


IMPLICIT = """
import torch

device = torch.device("cuda")


def train(model, loader, optimizer, criterion, best):
    for epoch in range(10):
        for x, y in loader:
            out = model(x.to(device))
            loss = criterion(out, y.to(device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            {first}
            print(f"loss {{loss:.4f}}")
            if loss < best:
                best = loss
"""


@pytest.mark.parametrize("first, reported", [
    ("total = loss.item()", []),
    ("total = loss.detach()", [16]),  # no read yet: the f-string waits
    ("if epoch: total = loss.item()", [16]),
])
def test_implicit_reads_after_an_explicit_one_wait_for_nothing(first, reported):
    assert lines(IMPLICIT.format(first=first), "TL103") == reported
