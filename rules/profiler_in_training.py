from typing import List, Optional

import libcst as cst

from torchlint.engine.rule import Rule
from torchlint.semantics.calls import has_star, keyword
from torchlint.semantics.frequency import Frequency, iterated_of
from torchlint.semantics.heuristics import identifier
from torchlint.semantics.roles import is_profiling_name, is_profiling_script
from torchlint.semantics.training import loops_run_by, trains
from torchlint.semantics.tree import descendants

PROFILERS = frozenset({"torch.profiler.profile", "torch.profiler.profiler.profile"})
# A loop bounded by a literal no larger than this records a few steps on purpose.
FEW_STEPS = 100
# Iterables whose last argument bounds the number of iterations.
BOUNDED_ITERABLES = frozenset({"range", "islice"})


class ProfilerInTraining(Rule):
    """## What it does
    Flags `torch.profiler.profile(...)` without `schedule=` entered with `with` around a
    training loop (a loop whose iterations run a backward pass and an optimizer step, in the
    `with` body or in same-file functions it calls), or inside one, so that a new profiler
    records every step.

    ## Why is this slow?
    Without a schedule the profiler records every operator and every CUDA kernel for as
    long as the block runs: each op pays a fixed recording cost (tens of microseconds with
    stacks or shapes), the events pile up in host memory for the whole run, and the trace
    is processed when the block exits. Measured for this rule, a small CPU training step
    ran 35-55% slower under a profiler without a schedule; a long run can exhaust host
    memory before the trace is written. A `schedule` records a few steps
    (`wait`, `warmup`, `active`) and leaves the rest of training at full speed.

    To stay precise the rule is silent:
    - with `schedule=` (or `**kwargs` that may hold one);
    - around a loop bounded to a few steps (`for i in range(10)`, `if step == 20: break`,
      at most 100): profiling those is what the block is for;
    - behind an opt-in switch or on a single step (`if args.profile:`, `if step == 10:`),
      and in functions (`def profile_step`) and files (`profile_model.py`, `bench/`,
      `benchmark.py`, `timing.py`) named for measuring, and in test code;
    - around code that does not train (an inference or evaluation loop, one step).

    Decisions:
    - `torch.autograd.profiler.profile()` and `emit_nvtx()` are reported by TL403 wherever
      they are entered; this rule leaves them to it, so one call gets one finding.
    - `record_function(...)` and `emit_nvtx`-free annotations are not reported, in a training
      loop or in `forward()`: with no profiler active a `record_function` block costs a few
      microseconds (no difference measurable on a 0.55 ms CPU step), and with one active the
      profiler is what is reported.
    - A profiler created outside a `with` and started with `.start()` is not followed.

    ## Example
    ```python
    with torch.profiler.profile(activities=[ProfilerActivity.CUDA]) as prof:
        for x, y in loader:
            loss = criterion(model(x.cuda()), y.cuda())
            loss.backward()
            optimizer.step()
    ```

    ## Use instead
    ```python
    schedule = torch.profiler.schedule(wait=1, warmup=1, active=3, repeat=1)
    with torch.profiler.profile(activities=[ProfilerActivity.CUDA], schedule=schedule) as prof:
        for x, y in loader:
            loss = criterion(model(x.cuda()), y.cuda())
            loss.backward()
            optimizer.step()
            prof.step()
    ```

    ## Fix applicability
    None: which steps to record is the author's call, and the schedule needs a
    `prof.step()` in the loop.

    ## Measured precision
    preview; no finding on either half of the real-code benchmark (dev or held out), so no
    precision can be measured yet: the rule needs at least 10 held-out findings to leave
    preview. Its tests hold its hard negatives. See docs/precision.md.
    """

    code = "TL110"
    name = "profiler-in-training"
    preview = True  # new in Wave 3; leaves preview when measured at 0.90 held out
    impact = "high"
    summary = "`torch.profiler.profile()` without a `schedule` around or inside a training loop"
    triggers = ("profile",)
    bad_examples = (
        "import torch\nwith torch.profiler.profile() as prof:\n    for x, y in loader:\n        loss = model(x.cuda())\n"
        "        loss.backward()\n        optimizer.step()\n",
        "from torch.profiler import profile\nfor x, y in loader:\n    with profile():\n        loss = model(x.cuda())\n"
        "        loss.backward()\n        optimizer.step()\n",
    )
    good_examples = (
        "import torch\nwith torch.profiler.profile(schedule=torch.profiler.schedule(wait=1, warmup=1, active=3)) as prof:\n"
        "    for x, y in loader:\n        loss = model(x.cuda())\n        loss.backward()\n        optimizer.step()\n        prof.step()\n",
        "import torch\nif args.profile:\n    with torch.profiler.profile() as prof:\n        train(model, loader)\n"
        "def train(model, loader):\n    for x, y in loader:\n        model(x).backward()\n        optimizer.step()\n",
        "import torch\nfor step, (x, y) in enumerate(loader):\n    if step == 10:\n        with torch.profiler.profile():\n"
        "            model(x.cuda()).backward()\n            optimizer.step()\n",
        "import torch\nwith torch.profiler.profile():\n    for x in loader:\n        model(x.cuda())\n",
    )

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.qualified_name(node.func) not in PROFILERS or not self._entered(node):
            return
        if keyword(node, "schedule") is not None or has_star(node):
            return
        if is_profiling_script(self.ctx.role_path) or self._in_profiling_function(node):
            return
        where = self._training(node)
        if where is not None:
            self.report(
                node,
                f"`torch.profiler.profile()` without `schedule=` {where}; profile a few steps with "
                "`schedule=torch.profiler.schedule(wait=1, warmup=1, active=3)` and `prof.step()` in the loop",
            )

    def _entered(self, node: cst.Call) -> bool:
        parent = self.ctx.parent()
        return isinstance(parent, cst.WithItem) and parent.item is node

    def _in_profiling_function(self, node: cst.Call) -> bool:
        return any(
            isinstance(ancestor, cst.FunctionDef) and is_profiling_name(ancestor.name.value)
            for ancestor, _ in self.ctx.path_to(node)
        )

    def _training(self, node: cst.Call) -> Optional[str]:
        """How the profiler meets a training loop (wrapped around it, entered on every step), or
        None when it does not, or runs rarely."""
        execution = self.ctx.execution(node)
        if execution.frequency is Frequency.RARE:
            return None
        functions = self.ctx.frequency.local_functions()
        loop = execution.step_loop()
        if execution.frequency is Frequency.PER_STEP and loop is not None and trains(loop, functions):
            return (
                "is entered on every step of a training loop: each step starts a profiler, records every "
                "operator and processes the trace"
            )
        statement = self.ctx.enclosing(cst.With)
        if not isinstance(statement, cst.With):
            return None
        if any(trains(loop, functions) and not _few_steps(loop) for loop in loops_run_by(statement.body, functions)):
            return (
                "is wrapped around a training loop: it records every operator of every step and keeps the "
                "events in host memory"
            )
        return None


def _few_steps(loop: cst.CSTNode) -> bool:
    """A loop over at most `FEW_STEPS` iterations: `range(10)`, `islice(loader, 5)`,
    `while step < 10`, or a `break` under a test against a small literal (`if step >= 20: break`)."""
    iterated = iterated_of(loop)
    if isinstance(iterated, cst.Call) and identifier(iterated) in BOUNDED_ITERABLES:
        if iterated.args and _small(iterated.args[-1].value):
            return True
    if isinstance(loop, cst.While) and any(_small(item) for item in descendants(loop.test)):
        return True
    return any(
        isinstance(branch, cst.If)
        and any(isinstance(item, cst.Break) for item in descendants(branch.body))
        and any(_small(item) for item in descendants(branch.test))
        for branch in _own_statements(loop)
    )


def _own_statements(loop: cst.CSTNode) -> List[cst.CSTNode]:
    """The nodes of a loop's body outside nested loops (whose `break` leaves only them)."""
    found: List[cst.CSTNode] = []
    stack: List[cst.CSTNode] = list(loop.body.children) if isinstance(loop, (cst.For, cst.While)) else []
    while stack:
        node = stack.pop()
        found.append(node)
        if not isinstance(node, (cst.For, cst.While, cst.FunctionDef, cst.ClassDef)):
            stack.extend(node.children)
    return found


def _small(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Integer) and int(node.value, 0) <= FEW_STEPS
