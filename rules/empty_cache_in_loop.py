import re
from typing import List, Optional, Set

import libcst as cst

from torchlint.engine.findings import Applicability
from torchlint.engine.rule import NodeEdit, PendingFix, Rule
from torchlint.semantics.bindings import module_level_bindings
from torchlint.semantics.frequency import Frequency, is_step_loop, rare_test
from torchlint.semantics.training import repeated_with_training
from torchlint.semantics.tree import COMPREHENSIONS, descendants, iterated_source

EMPTY_CACHE = frozenset({"torch.cuda.empty_cache", "torch.cuda.memory.empty_cache"})
# Calls that measure the allocator: a loop that reads them profiles memory, and emptying the
# cache between iterations is what makes its measurements comparable.
MEMORY_PROBES = frozenset(
    "memory_allocated max_memory_allocated memory_reserved max_memory_reserved memory_stats "
    "memory_summary memory_snapshot reset_peak_memory_stats reset_max_memory_allocated "
    "reset_accumulated_memory_stats mem_get_info".split()
)
# Words that make an `if` test a memory-pressure check or an opt-in switch for the call.
MEMORY_WORDS = ("mem", "oom", "cache", "alloc", "reserved", "fragment")
# Words in a loop's target or iterable that mark a loop over jobs rather than steps: between
# models, configurations or trials, returning memory to the driver is deliberate.
JOB_WORDS = frozenset(
    "model models config configs cfg cfgs trial trials fold folds experiment experiments run runs "
    "checkpoint checkpoints ckpt ckpts task tasks benchmark benchmarks sweep sweeps seed seeds "
    "setting settings epoch epochs".split()
)
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


class EmptyCacheInLoop(Rule):
    """## What it does
    Flags `torch.cuda.empty_cache()`, however imported, inside a loop that runs once per
    training or inference step.

    ## Why is this slow?
    PyTorch keeps freed GPU memory in a caching allocator so that the next step can reuse
    the blocks without asking the driver. `empty_cache()` hands every unused cached block
    back to the driver (`cudaFree`, which synchronises the device), so the next step has to
    obtain the same memory again through `cudaMalloc`, which is slow and can synchronise too.
    Every step then pays for allocator round trips that the cache exists to avoid, and the
    GPU stalls while the host waits for them. It does not give the program more memory:
    tensors that are still referenced stay allocated, and memory freed by Python is reused
    by PyTorch anyway. It only helps other processes on the same GPU, or reduces
    fragmentation after a one-off peak, and both are done once, not every step.

    To stay precise the rule is silent:
    - outside loops, and in loops that run once per epoch, per dict entry or parameter, or
      over a literal list; also in loops over jobs rather than steps (a target or iterable
      naming a model, config, trial, fold, run, checkpoint, task, seed, ...), and in loops
      each iteration of which runs a whole training pass or run, decided from what the
      called code does (`exp.train(setting)`, where another module's `train` loops over the
      epochs and batches; `semantics.frequency`);
    - behind a guard inside the loop: an interval (`if step % 1000 == 0`), a single step
      (`if i == 0`), a logging switch, a memory-pressure check
      (`if torch.cuda.memory_reserved() > limit`) or an opt-in switch (`if args.empty_cache`);
    - in `except` blocks (recovering from an out-of-memory error);
    - in loops that measure memory (`torch.cuda.max_memory_allocated()`,
      `reset_peak_memory_stats()`, ...), where emptying the cache makes iterations comparable;
    - in test code (`test_*` functions and files).

    Stable in loops that run with training (`semantics.frequency.repeated_with_training`: the
    loop trains, or runs every epoch of a program that does); other step loops (inference,
    feature extraction, a quantization pass over submodules, a final test) are the preview
    variant, where a one-off pass often empties the cache between inputs of different sizes
    on purpose.

    ## Example
    ```python
    for x, y in loader:
        loss = criterion(model(x.cuda()), y.cuda())
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        torch.cuda.empty_cache()
    ```

    ## Use instead
    ```python
    for x, y in loader:
        loss = criterion(model(x.cuda()), y.cuda())
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    torch.cuda.empty_cache()  # once, if another process needs the memory
    ```
    If memory runs out, look for references that keep tensors alive (a loss accumulated with
    its graph, outputs kept in a list) rather than emptying the cache.

    ## Fix applicability
    Unsafe: removing the call changes how much memory the process holds between steps, which
    other processes on the same GPU may notice. The fix removes the statement when the call
    is a whole expression statement on its own line, without comments around it that would be
    lost; it becomes `pass` when nothing else would be left in its block (other
    `empty_cache()` calls of the block are removed by their own fixes), so the block stays
    valid, `match` cases included. Otherwise no fix; none either when the call goes through a
    name the file may bind again (`free = torch.cuda.empty_cache`, then a function that
    declares `global free` and rebinds it, `globals()` entries or `exec` code).

    ## Measured precision
    Stable in loops that run with training. Before that split (round 23), every half of the
    benchmark together: 0.67 (10 of 15, 1 debatable); the five false findings were one-off
    loops (a quantization pass over submodules, a final test, a loop over experiments) and
    scripts that cannot run. See docs/precision.md.
    """

    code = "TL104"
    impact = "high"
    name = "empty-cache-in-loop"
    summary = "`torch.cuda.empty_cache()` inside a step loop"
    triggers = ("empty_cache",)
    fix_applicability = Applicability.UNSAFE
    frequencies = frozenset({Frequency.PER_STEP})
    bad_examples = (
        "import torch\nfor x, y in loader:\n    loss = model(x.cuda())\n    loss.backward()\n    torch.cuda.empty_cache()\n",
        "from torch.cuda import empty_cache\nwhile step < total:\n    step = train_step(step)\n    empty_cache()\n",
        "import torch.cuda as tc\nfor batch in val_loader:\n    preds.append(model(batch))\n    if torch_available:\n        tc.empty_cache()\n",
    )
    good_examples = (
        "import torch\nfor x in loader:\n    train_step(x)\ntorch.cuda.empty_cache()\n",
        "import torch\nfor step, x in enumerate(loader):\n    train_step(x)\n    if step % 1000 == 0:\n        torch.cuda.empty_cache()\n",
        "import torch\nfor epoch in range(epochs):\n    train(loader)\n    torch.cuda.empty_cache()\n",
        "import torch\nfor x in loader:\n    try:\n        train_step(x)\n    except torch.cuda.OutOfMemoryError:\n        torch.cuda.empty_cache()\n",
        "import torch\nfor name in model_names:\n    benchmark(name)\n    torch.cuda.empty_cache()\n",
        "import mylib as torch\nfor x in loader:\n    torch.cuda.empty_cache()\n",
    )

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.qualified_name(node.func) not in EMPTY_CACHE:
            return
        loop = self._step_loop(node)
        if loop is None or _measures_memory(loop) or not self.runs_often(node):
            return
        if self.withholds_preview_variant() and not repeated_with_training(self.ctx, loop):
            return  # an inference, quantization or feature-extraction loop: the preview variant
        self.report(
            node,
            "`torch.cuda.empty_cache()` in a step loop returns cached blocks to the driver every "
            "iteration, and the next step must allocate them again with slow `cudaMalloc` calls; "
            "remove it, or call it once outside the loop",
            fix=self._removal(node),
        )

    def _step_loop(self, node: cst.Call) -> Optional[cst.CSTNode]:
        """The step loop that runs `node` every iteration, unless a guard or handler limits it."""
        loops = {id(loop) for loop in self.ctx.enclosing_loops(node)}
        counters = self.ctx.loop_counters(node)
        for ancestor, child in self.ctx.path_to(node):
            if id(ancestor) in loops:
                return ancestor if is_step_loop(ancestor) and not _loops_over_jobs(ancestor) else None
            if isinstance(ancestor, cst.ExceptHandler):
                return None
            if isinstance(ancestor, cst.Try) and child is ancestor.body and _catches_out_of_memory(ancestor):
                return None  # a retry that backs off after running out of memory
            if isinstance(ancestor, cst.If) and child is ancestor.body and _limits(ancestor.test, counters):
                return None
            if isinstance(ancestor, cst.If) and child is ancestor.orelse and _mentions_memory(ancestor.test):
                return None  # the other branch of a memory-pressure check
        return None

    def _empties_cache(self, statement: cst.BaseStatement) -> bool:
        """A statement that is only a `torch.cuda.empty_cache()` call."""
        return (
            isinstance(statement, cst.SimpleStatementLine)
            and len(statement.body) == 1
            and isinstance(statement.body[0], cst.Expr)
            and isinstance(statement.body[0].value, cst.Call)
            and self.ctx.qualified_name(statement.body[0].value.func) in EMPTY_CACHE
        )

    def _removal(self, node: cst.Call) -> Optional[PendingFix]:
        """Remove the statement `node` forms, or turn it into `pass` when it is alone in its block."""
        path = list(self.ctx.path_to(node))
        if len(path) < 3:
            return None
        (expr, _), (statement, _), (block, _) = path[0], path[1], path[2]
        if not isinstance(expr, cst.Expr) or expr.value is not node:
            return None
        if isinstance(node.func, cst.Name) and module_level_bindings(self.ctx.module, node.func.value) not in (0, 1):
            return self.withheld(f"the file may bind `{node.func.value}` again (a function that declares it `global`, `globals()`, `exec`): the call may not empty the cache")
        if not isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) or len(statement.body) != 1:
            return None
        message = "Remove `torch.cuda.empty_cache()` from the loop"
        # Alone, or beside other calls that their own fixes remove in the same round: the
        # block must keep a statement.
        alone = isinstance(statement, cst.SimpleStatementSuite) or (
            isinstance(block, cst.IndentedBlock) and all(other is statement or self._empties_cache(other) for other in block.body)
        )
        if alone:
            return self.fix(NodeEdit(expr, "pass"), message=message)
        if not isinstance(block, cst.IndentedBlock) or any(line.comment is not None for line in statement.leading_lines):
            return None  # a comment above would be left describing the next statement
        return self.fix(NodeEdit(statement, "", delete_lines=True), message=message)


OUT_OF_MEMORY = ("RuntimeError", "OutOfMemoryError", "MemoryError", "Exception", "BaseException")


def _catches_out_of_memory(statement: cst.Try) -> bool:
    """A `try` with a bare `except` or one naming an error that out-of-memory raises."""
    for handler in statement.handlers:
        if handler.type is None:
            return True
        names = [item.attr.value if isinstance(item, cst.Attribute) else getattr(item, "value", "") for item in descendants(handler.type)]
        if any(name in OUT_OF_MEMORY for name in names):
            return True
    return False


def _limits(test: cst.BaseExpression, counters: Set[str]) -> bool:
    """An `if` test that limits the call to some steps, to memory pressure, or to an opt-in."""
    return bool(rare_test(test, counters)) or _mentions_memory(test)


def _mentions_memory(test: cst.BaseExpression) -> bool:
    for item in descendants(test):
        name = item.value if isinstance(item, cst.Name) else item.attr.value if isinstance(item, cst.Attribute) else ""
        if any(word in name.lower() for word in MEMORY_WORDS):
            return True
    return False


def _measures_memory(loop: cst.CSTNode) -> bool:
    for item in descendants(loop):
        if isinstance(item, cst.Call):
            func = item.func
            name = func.attr.value if isinstance(func, cst.Attribute) else func.value if isinstance(func, cst.Name) else ""
            if name in MEMORY_PROBES:
                return True
    return False


def _loops_over_jobs(loop: cst.CSTNode) -> bool:
    """A loop whose target or iterable names models, configurations, trials and the like."""
    if isinstance(loop, cst.For):
        parts: List[cst.CSTNode] = [loop.target, iterated_source(loop.iter)]
    elif isinstance(loop, COMPREHENSIONS):
        parts = [loop.for_in.target, iterated_source(loop.for_in.iter)]
    else:
        return False
    for part in parts:
        for item in descendants(part):
            name = item.value if isinstance(item, cst.Name) else item.attr.value if isinstance(item, cst.Attribute) else ""
            if any(word.lower() in JOB_WORDS for word in _WORD.findall(name)):
                return True
    return False
