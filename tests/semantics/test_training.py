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


def _inference_only(tmp_path, files, checked):
    """`inference_only` for `checked` in a project made of `files` (relative path -> code)."""
    from conftest import write

    from torchlint.engine.context import FileContext, Options
    from torchlint.semantics.training import inference_only

    write(tmp_path, ".git/HEAD", "")
    for relative, text in files.items():
        write(tmp_path, relative, text)
    path = str(tmp_path / checked)
    text = (tmp_path / checked).read_text()
    return inference_only(FileContext(cst.parse_module(text), text, path, Options()))


EVALUATE = """
import torch
from torch.utils.data import DataLoader
def main():
    loader = DataLoader(dataset, batch_size=8)
    with torch.no_grad():
        for x, y in loader:
            print(model(x))
if __name__ == "__main__":
    main()
"""


def test_programs_that_never_train(tmp_path):
    """An evaluation script; a generation script whose step is an inference step."""
    generate = EVALUATE.replace("print(model(x))", "print(task.inference_step(generator, model, x))")
    assert _inference_only(tmp_path, {"evaluate.py": EVALUATE, "generate.py": generate}, "evaluate.py")
    assert _inference_only(tmp_path, {"evaluate.py": EVALUATE, "generate.py": generate}, "generate.py")


def test_programs_that_train_or_may_serve_one(tmp_path):
    """Training calls in the file or in a project function it calls; no entry point; a
    `__main__` self-test in a module that a training script imports."""
    trains = EVALUATE.replace("print(model(x))", "criterion(model(x), y).backward(); opt.step()")
    helper = "def train_epoch(model, loader):\n    for x in loader:\n        model(x).sum().backward()\n"
    calls_helper = "from engine import run_epoch as go\n" + EVALUATE.replace("print(model(x))", "go(model, loader)")
    engine = "def run_epoch(model, loader):\n    for x in loader:\n        model(x).sum().backward()\n"
    library = EVALUATE.replace('if __name__ == "__main__":\n    main()\n', "")
    files = {
        "trains.py": trains,
        "helper.py": EVALUATE.replace("print(model(x))", "train_epoch(model, loader)") + helper,
        "engine.py": engine,
        "calls_helper.py": calls_helper,
        "library.py": library,
        "data.py": EVALUATE,
        "main.py": "import data\nfor x in data.main():\n    x.backward()\n",
    }
    files["ignite.py"] = EVALUATE.replace("print(model(x))", "pass") + "create_supervised_trainer(model, opt)\n"
    for checked in ("trains.py", "helper.py", "calls_helper.py", "library.py", "data.py", "ignite.py"):
        assert not _inference_only(tmp_path, files, checked), checked


def _loop_trains(code: str) -> bool:
    from torchlint.engine.context import FileContext, Options
    from torchlint.semantics.training import loop_trains

    text = textwrap.dedent(code)
    ctx = FileContext(cst.parse_module(text), text, "train.py", Options())
    loop = next(node for node in descendants(ctx.module) if isinstance(node, (cst.For, cst.While)))
    return loop_trains(ctx, loop)


def test_a_bare_step_is_not_training_but_an_optimizer_step_or_a_backward_pass_is():
    assert not _loop_trains("for t in range(n):\n    obs, r, done, info = envs.step(action.cpu().numpy())\n")
    assert not _loop_trains("for t in scheduler.timesteps:\n    x = scheduler.step(eps, t, x).prev_sample\n")
    assert _loop_trains("for x in loader:\n    optimizer.step()\n")
    assert _loop_trains("for x in loader:\n    train_step(x)\n")
    assert _loop_trains("def update(x):\n    model(x).sum().backward()\nfor x in batches:\n    update(x)\n")


def _loader_uses(code: str) -> dict:
    from torchlint.engine.context import FileContext, Options
    from torchlint.semantics.loaders import loader_use

    text = textwrap.dedent(code)
    ctx = FileContext(cst.parse_module(text), text, "train.py", Options())
    calls = [node for node in descendants(ctx.module) if isinstance(node, cst.Call) and getattr(node.func, "value", "") == "DataLoader"]
    return {call.args[0].value.value: loader_use(ctx, call) for call in calls}


def test_what_a_loader_is_for():
    code = """
    from torch.utils.data import DataLoader
    train_loader = DataLoader(train_set, batch_size=64)
    val_loader = DataLoader(val_set, batch_size=64)
    test_loader = DataLoader(test_set, batch_size=64)
    extra = DataLoader(extra_set)
    loaders = {"train": DataLoader(kept_set)}

    def train(model, loader, optimizer):
        for x, y in enumerate(tqdm(loader)):
            model(x).sum().backward()
            optimizer.step()

    def evaluate(model, data):
        for x, y in data:
            print(model(x).argmax(1))

    def main():
        for epoch in range(10):
            train(model, train_loader, optimizer)
            evaluate(model, data=val_loader)
        for x, y in test_loader:
            print(model(x).argmax(1))
        make_report(extra)

    main()
    """
    assert _loader_uses(code) == {
        "train_set": "train",
        "val_set": "train",  # validated every epoch of a program that trains
        "test_set": "other",  # once, after training
        "extra_set": "unknown",
        "kept_set": "unknown",
    }


def test_the_only_value_assigned_to_a_name():
    from torchlint.semantics.values import only_assigned_value

    def value(code: str):
        module = cst.parse_module(textwrap.dedent(code))
        found = only_assigned_value(module, cst.Name("workers"))
        return None if found is None else module.code_for_node(found)

    assert value("workers = 0\nloader = DataLoader(ds, num_workers=workers)\n") == "0"
    assert value("workers = 0\nworkers = 4\n") is None
    assert value("workers = 0\nworkers += 2\n") is None
    assert value("workers = 0\ndef make(workers):\n    return workers\n") is None
    assert value("for workers in (0, 2):\n    pass\n") is None
