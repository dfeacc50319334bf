"""Training loops: which loops train, and which loops a block runs through the functions it calls."""

from __future__ import annotations

import textwrap

import libcst as cst

from torchlint.semantics.training import local_functions, loops_run_by, trains
from torchlint.semantics.tree import descendants

CODE = textwrap.dedent(
    """
    def step(model, batch):
        model(batch).backward()
        optimizer.step()

    def train(model, loader):
        for batch in loader:
            step(model, batch)

    def evaluate(model, loader):
        for batch in loader:
            model(batch)

    def run():
        train(model, loader)
        evaluate(model, loader)
        while total < limit:
            loss = model(next(data))
            accelerator.backward(loss)
            optimizer.step()

    def recurse():
        recurse()
    """
)


def _setup():
    module = cst.parse_module(CODE)
    functions = local_functions(module)
    return module, functions


def test_trains_whatever_the_loop_iterates():
    module, functions = _setup()
    loops = [node for node in descendants(module) if isinstance(node, (cst.For, cst.While))]
    by_function = {}
    for name, (function,) in functions.items():
        for loop in loops:
            if any(loop is node for node in descendants(function)):
                by_function[name] = trains(loop, functions)
    assert by_function == {"train": True, "evaluate": False, "run": True}


def test_loops_run_by_follow_same_file_calls_and_stop_at_recursion():
    module, functions = _setup()
    [run] = functions["run"]
    found = list(loops_run_by(run.body, functions))
    assert [type(loop).__name__ for loop in found].count("For") == 2 and any(isinstance(loop, cst.While) for loop in found)
    assert [trains(loop, functions) for loop in found].count(True) == 2
    [recurse] = functions["recurse"]
    assert list(loops_run_by(recurse.body, functions)) == []
