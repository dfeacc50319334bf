"""Execution frequency: every node is per step, per epoch, once, rare or unknown, with reasons."""

from __future__ import annotations

import textwrap
from typing import List

import libcst as cst

from torchlint.engine.context import FileContext, Options
from torchlint.engine.walker import walk
from torchlint.semantics.frequency import Execution, Frequency
from torchlint.semantics.tree import children, descendants

STEP, EPOCH, ONCE, RARE, UNKNOWN = (
    Frequency.PER_STEP,
    Frequency.PER_EPOCH,
    Frequency.ONCE,
    Frequency.RARE,
    Frequency.UNKNOWN,
)


def probes(code: str) -> List[Execution]:
    """The execution of every `probe()` call in the snippet, in source order."""
    text = textwrap.dedent(code)
    ctx = FileContext(cst.parse_module(text), text, "train.py", Options())
    walk(ctx, [])
    calls = [node for node in descendants(ctx.module) if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "probe"]
    order = {id(node): index for index, node in enumerate(_in_order(ctx.module))}
    return [ctx.execution(call) for call in sorted(calls, key=lambda call: order[id(call)])]


def frequencies(code: str) -> List[Frequency]:
    return [execution.frequency for execution in probes(code)]


def _in_order(node):
    yield node
    for child in children(node):
        yield from _in_order(child)


def test_loops_epochs_and_module_level():
    code = """
    import torch
    probe()
    for epoch in range(args.epochs):
        probe()
        for x, y in loader:
            probe()
            for name, p in model.named_parameters():
                probe()
        for step in range(100):
            probe()
    while True:
        probe()
    values = [probe() for t in outputs]
    batches = [probe() for b in train_loader]
    """
    assert frequencies(code) == [ONCE, EPOCH, STEP, STEP, STEP, STEP, ONCE, STEP]


def test_guards_error_paths_and_handlers_are_rare():
    code = """
    import torch
    for step, (x, y) in enumerate(loader):
        probe()
        if step % args.log_every == 0:
            probe()
        if args.debug:
            probe()
        if self.verbose and rank == 0:
            probe()
        if step == 0:
            probe()
        if not torch.isfinite(loss):
            probe()
        if loss > 1e9:
            probe()
            raise RuntimeError("diverged")
        try:
            probe()
        except RuntimeError:
            probe()
        if logits.max() > 0:
            probe()
        if rank == 0:
            probe()
    """
    assert frequencies(code) == [STEP, RARE, RARE, RARE, RARE, RARE, RARE, STEP, RARE, STEP, STEP]


def test_functions_inherit_the_frequency_of_their_call_sites():
    code = """
    import torch

    def log_metrics(metrics):
        probe()

    def train_one_epoch(model, loader):
        probe()
        for step, batch in enumerate(loader):
            compute(batch)
            if step % 100 == 0:
                log_metrics(batch)

    def compute(batch):
        probe()

    def never_called():
        probe()

    def setup_model():
        probe()

    for epoch in range(10):
        train_one_epoch(model, loader)
    """
    assert frequencies(code) == [RARE, EPOCH, STEP, UNKNOWN, ONCE]


def test_reason_chain_names_the_caller_and_the_loop():
    code = """
    import torch

    def compute(batch):
        probe()

    def train_one_epoch(loader):
        for batch in loader:
            compute(batch)
    """
    [execution] = probes(code)
    assert execution.frequency is STEP
    assert execution.why("train.py", lambda node: 0) == (
        "`compute()` is called from `train_one_epoch()` (train.py:0); in the step loop (train.py:0)"
    )


def test_forward_init_and_data_methods():
    code = """
    import torch

    class Net(torch.nn.Module):
        def __init__(self):
            probe()

        def forward(self, x):
            probe()
            return self.head(x)

        def head(self, x):
            probe()

    class Frames(torch.utils.data.Dataset):
        def __getitem__(self, index):
            probe()
    """
    assert frequencies(code) == [ONCE, STEP, STEP, STEP]


def test_evaluation_once_at_the_end_of_training():
    code = """
    import torch

    def evaluate(model, loader):
        for x, y in loader:
            probe()

    def main():
        for x, y in train_loader:
            loss = model(x).sum()
            loss.backward()
            optimizer.step()
        evaluate(model, test_loader)

    if __name__ == "__main__":
        main()
    """
    assert frequencies(code) == [ONCE]


def test_evaluation_every_epoch_stays_per_step():
    code = """
    import torch

    def evaluate(model, loader):
        for x, y in loader:
            probe()

    for epoch in range(10):
        for x, y in train_loader:
            loss = model(x).sum()
            loss.backward()
            optimizer.step()
        evaluate(model, test_loader)
    """
    assert frequencies(code) == [STEP]


def test_functions_passed_as_values_are_unknown():
    code = """
    import torch

    def hook(module, inputs, output):
        probe()

    def setup():
        model.register_forward_hook(hook)
        hook(None, None, None)

    setup()
    """
    assert frequencies(code) == [UNKNOWN]


def test_recursion_terminates():
    code = """
    def visit(node):
        probe()
        if node.children:
            visit(node.children[0])
    """
    assert frequencies(code) == [UNKNOWN]


def test_loops_in_setup_code_run_once():
    code = """
    import torch

    class Net(torch.nn.Module):
        def __init__(self, depth):
            for i in range(depth):
                probe()
            self.blocks = self.make_blocks(depth)

        def make_blocks(self, depth):
            return [probe() for i in range(depth)]

    def reparameterize(model):
        for module in model.modules():
            for i in range(3):
                probe()
    """
    assert frequencies(code) == [ONCE, ONCE, ONCE]


def test_lazy_initialisation_is_rare():
    code = """
    import torch
    for x in loader:
        if state is None:
            probe()
            state = torch.zeros(3)
        if len(buffers) == 0:
            probe()
            buffers["avg"] = torch.zeros(3)
        if "mask" not in cache:
            probe()
            cache["mask"] = make_mask()
        if not ready:
            probe()
            other = 1
    """
    assert frequencies(code) == [RARE, RARE, RARE, STEP]


def test_conversion_and_export_scripts_run_once():
    code = "import torch\nfor x in loader:\n    probe()\n"
    ctx_paths = {"tools/convert_weights.py": ONCE, "export/onnx.py": ONCE, "train.py": STEP, "reports/train.py": STEP, "deploy/export_onnx.py": ONCE}
    for path, expected in ctx_paths.items():
        text = textwrap.dedent(code)
        ctx = FileContext(cst.parse_module(text), text, path, Options())
        walk(ctx, [])
        call = next(node for node in descendants(ctx.module) if isinstance(node, cst.Call))
        assert ctx.execution(call).frequency is expected, path


def test_best_metric_and_profiling_switches_are_rare():
    code = """
    import torch
    for step, (x, y) in enumerate(loader):
        if acc > best_acc:
            probe()
        if is_best:
            probe()
        if val_loss < self.best:
            probe()
        if args.profile:
            probe()
        if use_profiler:
            probe()
        if acc > threshold:
            probe()
        if bestow:
            probe()
    """
    assert frequencies(code) == [RARE, RARE, RARE, RARE, RARE, STEP, STEP]


def test_step_loops_follow_the_callers():
    code = """
    import torch

    def save(model):
        probe()

    def checkpoint(model):
        save(model)

    def train(loader):
        for batch in loader:
            checkpoint(model)
        for shard in shards:
            probe()
    """
    called, own = probes(code)
    assert called.loop is None and called.step_loop().target.value == "batch"
    assert own.loop is not None and own.step_loop() is own.loop
    assert probes("import torch\nprobe()\n")[0].step_loop() is None


def test_last_step_and_listed_steps_are_rare():
    code = """
    import torch
    for i, (x, y) in enumerate(loader):
        if (i + 1) == len(loader):
            probe()
        if global_step == args.max_steps:
            probe()
        if self.get_num_updates() == 0:
            probe()
        if step in save_steps:
            probe()
        if step == None:
            probe()
        if mode == "train":
            probe()
        if rank == world_size - 1:
            probe()
        if name in names:
            probe()
    """
    assert frequencies(code) == [RARE, RARE, RARE, RARE, STEP, STEP, STEP, STEP]


def test_a_loop_that_runs_whole_training_loops_is_per_epoch():
    code = """
    import torch

    def update(batch):
        loss = model(batch).sum()
        loss.backward()
        optimizer.step()

    for iteration in range(args.num_iterations):
        for step in range(args.num_steps):
            probe()
            obs, reward, done, info = envs.step(action)
        for start in range(0, batch_size, minibatch_size):
            loss = model(obs[start:start + minibatch_size]).sum()
            loss.backward()
            optimizer.step()
            probe()
        probe()
    while global_step < total_steps:
        for batch in loader:
            update(batch)
        probe()
    for i in range(n_iters):
        for _ in range(n_critic):
            update(real)
        g_loss = generator_loss()
        g_loss.backward()
        probe()
    """
    assert frequencies(code) == [STEP, STEP, EPOCH, EPOCH, STEP]
    assert probes(code)[2].reasons[0].text.startswith("in a loop each iteration of which runs a whole training loop")


def test_evaluation_at_module_level_after_training_runs_once():
    code = """
    import torch
    for epoch in range(10):
        for x, y in train_loader:
            loss = model(x).sum()
            loss.backward()
            optimizer.step()
        for x, y in val_loader:
            probe()
    for x, y in test_loader:
        probe()

    def main():
        for epoch in range(10):
            for x, y in train_loader:
                train_step(x, y)
            for x, y in val_loader:
                probe()
        for x, y in test_loader:
            probe()

    def train_step(x, y):
        model(x).sum().backward()
        optimizer.step()

    if __name__ == "__main__":
        main()
    """
    assert frequencies(code) == [STEP, ONCE, STEP, ONCE]


def test_a_loop_over_a_container_inside_the_step_loop_is_part_of_the_step():
    code = """
    import torch
    for i in range(num_iters):
        for dataset in ["CelebA", "RaFD"]:
            loss = model(next(iters[dataset])).sum()
            loss.backward()
            optimizer.step()
            probe()
        probe()
    """
    assert frequencies(code) == [STEP, STEP]


def test_an_interval_test_is_periodic_whatever_else_the_test_says():
    """`if step % n == 0 or step == 0:` runs every n steps: the interval is the reason, and
    `Execution.interval_guard` finds the `if` (a periodic pass, many times over a run)."""
    import libcst as cst

    from torchlint.semantics.frequency import UNDER_INTERVAL, rare_test

    assert rare_test(cst.parse_expression("(step + 1) % args.every == 0 or step == 0"), {"step"}) == UNDER_INTERVAL
    assert rare_test(cst.parse_expression("step == 0 or (step + 1) % args.every == 0"), {"step"}) == UNDER_INTERVAL
    assert rare_test(cst.parse_expression("step == 0"), {"step"}) == "on a single step"
