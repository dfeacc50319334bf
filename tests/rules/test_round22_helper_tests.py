"""Round 22 (TL103, development misses: a NaN check in a helper of the training step): a
same-file helper that a step loop calls every iteration tests a device tensor's truth every
step, as TL101 reports its `.item()` there; a helper only a loop that neither trains nor runs
every epoch calls, or one the loop calls under a logging interval, stays silent."""

from __future__ import annotations

from conftest import lint, lines

RULE = "TL103"

PROGRAM = """
import torch

def check(t):
    if torch.isnan(t).any():
        raise FloatingPointError("nan loss")

model = torch.nn.Linear(4, 2).cuda()
for x, y in loader:
    loss = criterion(model(x.cuda()), y.cuda())
    {call}
    loss.backward()
    optimizer.step()
"""


def test_helper_called_every_training_step():
    [finding] = lint(PROGRAM.format(call="check(loss)"), [RULE])
    assert finding.line == 5
    assert "`check()`, called in a step loop" in finding.message


def test_helper_called_under_a_logging_interval_or_not_at_all():
    assert lines(PROGRAM.format(call="if step % 100 == 0: check(loss)"), RULE) == []
    assert lines(PROGRAM.format(call="pass"), RULE) == []


def test_helper_of_a_loop_that_does_not_train():
    code = """
    import torch

    def stop(t):
        return bool(t.max() > 0.5)

    model = torch.nn.Linear(4, 2).cuda()
    for step in range(100):
        out = model(torch.randn(2, 4, device="cuda"))
        if stop(out):
            break
    """
    assert lines(code, RULE) == []


def test_timing_helper_synchronises_on_purpose():
    code = """
    import time
    import torch

    def time_wrap():
        torch.cuda.synchronize()
        return time.time()

    model = torch.nn.Linear(4, 2).cuda()
    for x, y in loader:
        start = time_wrap()
        loss = criterion(model(x.cuda()), y.cuda())
        loss.backward()
        optimizer.step()
    """
    assert lines(code, RULE) == []
