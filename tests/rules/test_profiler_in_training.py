"""TL110: `torch.profiler.profile()` without a schedule around or inside a training loop."""

import pytest
from conftest import lines, lint, preview_options

from torchlint.engine.linter import lint_text
from torchlint.engine.rule import all_rules

RULE = "TL110"

TRAIN = """
import torch

def train(model, loader):
    for x, y in loader:
        model(x.cuda()).backward()
        optimizer.step()
"""


def test_profiler_around_a_training_loop_however_imported():
    code = TRAIN + """
with torch.profiler.profile() as prof:
    train(model, loader)
import torch as th
with th.profiler.profile(activities=[th.profiler.ProfilerActivity.CUDA], record_shapes=True):
    for x, y in loader:
        model(x.cuda()).backward()
        optimizer.step()
from torch.profiler import profile as P
def main():
    with P() as prof:
        for epoch in range(args.epochs):
            train(model, loader)
"""
    assert lines(code, RULE) == [9, 12, 18]
    assert "is wrapped around a training loop" in lint(code, [RULE])[0].message


def test_profiler_entered_on_every_step():
    code = """
    import torch
    for x, y in loader:
        with torch.profiler.profile():
            model(x.cuda()).backward()
            optimizer.step()
    """
    [finding] = lint(code, [RULE])
    assert finding.line == 4 and "every step of a training loop" in finding.message


def test_scheduled_and_bounded_profiling():
    code = TRAIN + """
from torch.profiler import profile, schedule
with profile(schedule=schedule(wait=1, warmup=1, active=3)) as prof:
    for x, y in loader:
        model(x.cuda()).backward()
        optimizer.step()
        prof.step()
with profile(**profiler_kwargs):
    train(model, loader)
with profile():
    for step, (x, y) in enumerate(loader):
        if step >= 10:
            break
        model(x.cuda()).backward()
        optimizer.step()
with profile():
    for step in range(100_000):
        if step == 20:
            break
        model(x.cuda()).backward()
        optimizer.step()
with profile():
    for _ in range(5):
        model(x.cuda()).backward()
        optimizer.step()
for step, (x, y) in enumerate(loader):
    model(x.cuda()).backward()
    optimizer.step()
    if step == 10:
        with profile():
            model(x.cuda()).backward()
            optimizer.step()
"""
    assert lines(code, RULE) == []


def test_a_loop_over_a_large_or_unknown_count_is_not_a_few_steps():
    code = """
    import torch
    with torch.profiler.profile():
        for step in range(100_000):
            model(x.cuda()).backward()
            optimizer.step()
    with torch.profiler.profile():
        for step in range():
            model(x.cuda()).backward()
            optimizer.step()
    """
    assert lines(code, RULE) == [3, 7]


def test_opt_in_switches_and_profiling_functions():
    code = TRAIN + """
from torch.profiler import profile
if args.profile:
    with profile():
        train(model, loader)
if cfg.use_profiler and rank == 0:
    with profile():
        train(model, loader)
def profile_training(model, loader):
    with profile():
        train(model, loader)
"""
    assert lines(code, RULE) == []


def test_code_that_does_not_train():
    code = """
    import torch
    from torch.profiler import profile
    with profile():
        for x in loader:
            model(x.cuda())
    with profile():
        model(x.cuda()).backward()
        optimizer.step()
    prof = profile()
    """
    assert lines(code, RULE) == []


def test_autograd_profiler_and_annotations_are_left_to_tl403():
    code = TRAIN + """
from torch.autograd import profiler
with profiler.profile():
    train(model, loader)
with torch.autograd.profiler.emit_nvtx():
    train(model, loader)
for x, y in loader:
    with torch.profiler.record_function("step"):
        model(x.cuda()).backward()
        optimizer.step()
class Net(torch.nn.Module):
    def forward(self, x):
        with torch.profiler.record_function("block"):
            return self.block(x)
"""
    assert lines(code, RULE) == []
    assert {finding.code for finding in lint(code)} >= {"TL403"}


def test_look_alike_profilers():
    code = TRAIN + """
import cProfile
from mylib import profile
with profile():
    train(model, loader)
with trainer.profiler.profile("run_training_epoch"):
    train(model, loader)
with torch.cuda.profiler.profile():
    train(model, loader)
"""
    assert lines(code, RULE) == []


@pytest.mark.parametrize("path", ["profile_train.py", "tools/profiling/run.py", "bench/train.py", "benchmark.py", "tests/test_train.py"])
def test_profiling_scripts_and_test_files(path):
    code = TRAIN + "with torch.profiler.profile():\n    train(model, loader)\n"
    rules = [rule for rule in all_rules() if rule.code == RULE]
    assert not lint_text(code, path, rules, preview_options()).findings
    assert lint_text(code, "train.py", rules, preview_options()).findings
