import re
from typing import Dict, Iterator, List, Optional, Set, Tuple

import libcst as cst

from torchlint.engine.context import FileContext
from torchlint.engine.rule import Rule
from torchlint.semantics.calls import method_call
from torchlint.semantics.training import (
    BACKWARD,
    STEP,
    body_nodes,
    called_function,
    is_ddp_wrap,
    runs_a_training_step,
    training_loops,
)
from torchlint.semantics.project import DDP, file_enables, project_uses
from torchlint.semantics.tree import children, descendants

Functions = Dict[str, List[cst.FunctionDef]]
# The `if` tests around a call, each with the branch it is in (True: the body, False: `else`).
Guards = Tuple[Tuple[cst.BaseExpression, bool], ...]

# Words that mark an `if` test as an accumulation window besides a modulo (`if accumulated == accum_steps`).
ACCUMULATION_WORDS = ("accum",)
# Text without which no `if` test can end an accumulation window (see `_accumulation_guard`).
WINDOW_HINT = re.compile("%|" + "|".join(ACCUMULATION_WORDS), re.IGNORECASE)
# Receivers whose `.step()` may run every micro-batch without ending the window.
SCHEDULER_WORDS = ("sched", "lr")
# Ways to skip the gradient all-reduce of a micro-batch.
NO_SYNC_ATTRIBUTES = frozenset({"no_sync", "require_backward_grad_sync"})


class DdpAccumulationWithoutNoSync(Rule):
    """## What it does
    Flags gradient accumulation under `DistributedDataParallel` without `no_sync()`: the
    program wraps a module with `DistributedDataParallel` (the file, a project module it
    imports, or the entry script that imports it), and a training loop calls `.backward()` on
    every iteration but the optimizer's `.step()` only under an accumulation guard such as
    `if (i + 1) % accum_steps == 0:` (or hands the loss and the optimizer to a step helper
    told to step only then: `loss_scaler(loss, optimizer, update_grad=(i + 1) % accum == 0)`),
    and nothing in the loop uses `model.no_sync()`. Reported on the backward call (or the
    helper call). A loop that switches modes
    (`if accum > 1: ... else: loss.backward(); optimizer.step()`) is judged per branch: the
    `else:` branch stepping every iteration does not hide the accumulating one.

    ## Why is this slow?
    DDP all-reduces the gradients across all processes during every backward pass. With
    accumulation only the sum over the window is needed, at its last micro-batch; the
    all-reduces of the other micro-batches move the whole gradient over the network for
    nothing. With `accum_steps = 8` that is 8 all-reduces where 1 would do, so a job whose
    step is communication-bound spends most of its time in redundant communication. Inside
    `with model.no_sync():` DDP only accumulates locally, and the next backward outside it
    reduces the accumulated gradients once.

    The rule is silent when the loop (or a same-file function it calls) uses `no_sync` or
    sets `require_backward_grad_sync`, when the optimizer steps every iteration, and in
    programs that never mention `DistributedDataParallel`.

    ## Example
    ```python
    model = DistributedDataParallel(model, device_ids=[rank])
    for i, (x, y) in enumerate(loader):
        loss = criterion(model(x), y) / accum_steps
        loss.backward()
        if (i + 1) % accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
    ```

    ## Use instead
    ```python
    model = DistributedDataParallel(model, device_ids=[rank])
    for i, (x, y) in enumerate(loader):
        last = (i + 1) % accum_steps == 0
        with contextlib.nullcontext() if last else model.no_sync():
            loss = criterion(model(x), y) / accum_steps
            loss.backward()
        if last:
            optimizer.step()
            optimizer.zero_grad()
    ```
    Both the forward and the backward of a skipped micro-batch must run inside `no_sync()`.
    `torchlint.reference.AmpStep` implements accumulation this way.

    ## Fix applicability
    None: the forward pass must move into the `with` block together with the backward,
    and which condition ends a window (including the last, partial window of an epoch) is
    the program's own logic.

    ## Measured precision
    stable. No finding on the dev half; 1.00 held out (3/0: MAE's pre-training and
    fine-tuning loops, whose loss scaler steps at the end of each window, and ConvNeXt's). See docs/precision.md.
    """

    code = "TL503"
    impact = "medium"
    name = "ddp-accumulation-without-no-sync"
    summary = "Gradient accumulation under DDP without `no_sync()`: an all-reduce per micro-batch"
    triggers = ("DistributedDataParallel", "backward", "optim")
    bad_examples = (
        "from torch.nn.parallel import DistributedDataParallel as DDP\nmodel = DDP(model)\n"
        "for i, x in enumerate(loader):\n    loss = model(x)\n    loss.backward()\n"
        "    if (i + 1) % accum == 0:\n        opt.step()\n        opt.zero_grad()\n",
    )
    good_examples = (
        "from torch.nn.parallel import DistributedDataParallel as DDP\nmodel = DDP(model)\n"
        "for i, x in enumerate(loader):\n    sync = (i + 1) % accum == 0\n"
        "    with contextlib.nullcontext() if sync else model.no_sync():\n        loss = model(x)\n        loss.backward()\n"
        "    if sync:\n        opt.step()\n",
        "from torch.nn.parallel import DistributedDataParallel as DDP\nmodel = DDP(model)\n"
        "for i, x in enumerate(loader):\n    loss = model(x)\n    loss.backward()\n    opt.step()\n",
        "import torch\nfor i, x in enumerate(loader):\n    loss = model(x)\n    loss.backward()\n"
        "    if (i + 1) % accum == 0:\n        opt.step()\n",
    )

    def __init__(self, ctx: FileContext) -> None:
        super().__init__(ctx)
        self.wraps_ddp = False

    def visit_Call(self, node: cst.Call) -> None:
        if not self.wraps_ddp and is_ddp_wrap(node, self.ctx):
            self.wraps_ddp = True

    def leave_Module(self, node: cst.Module) -> None:
        if not WINDOW_HINT.search(self.ctx.text):
            return  # no modulo and no accumulation name: no window to end
        functions = self.ctx.frequency.local_functions()
        found = [call for call in (self._accumulating_backward(loop, functions) for loop in training_loops(self.ctx)) if call]
        if found and self._program_wraps_ddp():
            for backward in found:
                self.report(
                    backward,
                    "gradients are accumulated over several backward passes but DDP all-reduces them at every "
                    "one; run the forward and backward of the non-final micro-batches under `with model.no_sync():`",
                )

    def _program_wraps_ddp(self) -> bool:
        """The file's own mention is resolved (a look-alike `mylib.DistributedDataParallel` is
        not torch's); a trainer module that never mentions it asks the rest of its program."""
        if self.wraps_ddp:
            return True
        return not file_enables(self.ctx.text, DDP) and project_uses(self.ctx, DDP)

    def _accumulating_backward(self, loop: cst.For, functions: Functions) -> Optional[cst.Call]:
        """A backward call that runs on every iteration of its branch while the optimizer
        steps there only under an accumulation guard (`if (i + 1) % accum == 0`). A step in
        another branch (`else:` of a mode switch, without accumulation) does not count."""
        if NO_SYNC_ATTRIBUTES & _attributes(loop.body, functions):
            return None
        backwards: List[Tuple[cst.Call, Guards]] = []
        steps: List[Guards] = []
        for call, guards in _calls_with_guards(loop.body, functions, ()):
            found = method_call(call)
            if _steps_at_window_ends(call) and not any(_window_guard(test) for test, _ in guards):
                return call  # `loss_scaler(loss, optimizer, update_grad=(i + 1) % accum == 0)`
            if found is not None and found[1] == BACKWARD:
                backwards.append((call, guards))
            elif found is not None and found[1] == STEP and not _is_scheduler(found[0]):
                steps.append(guards)
        for call, guards in backwards:
            if any(_window_guard(test) for test, _ in guards):
                continue
            # Steps that run whenever this backward does, and steps that an accumulation guard limits.
            every_time = any(set(step) <= set(guards) for step in steps)
            accumulating = any(
                set(guards) <= set(step) and any(_window_guard(test) for test, _ in set(step) - set(guards))
                for step in steps
            )
            if accumulating and not every_time:
                return call
        return None


def _calls_with_guards(node: cst.CSTNode, functions: Functions, guards: Guards) -> Iterator[Tuple[cst.Call, Guards]]:
    """(call, the enclosing `if` tests within the loop, each with the branch taken) for every
    call that `node` runs, following same-file functions (their calls inherit the guards of
    the call site)."""
    seen: Set[int] = set()
    stack: List[Tuple[cst.CSTNode, Guards]] = [(node, guards)]
    while stack:
        current, tests = stack.pop()
        if isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda)) and current is not node:
            continue
        if isinstance(current, cst.If):
            stack.append((current.test, tests))
            stack.append((current.body, tests + ((current.test, True),)))
            if current.orelse is not None:
                stack.append((current.orelse, tests + ((current.test, False),)))
            continue
        if isinstance(current, cst.Call):
            yield current, tests
            for function in called_function(current, functions):
                if id(function) not in seen:
                    seen.add(id(function))
                    stack.append((function.body, tests))
        stack.extend((child, tests) for child in reversed(children(current)))


def _steps_at_window_ends(call: cst.Call) -> bool:
    """A training-step helper (handed the loss and the optimizer, see
    `training.runs_a_training_step`) told by an argument to step only when a window ends:
    it runs the backward pass every time and the optimizer step at the window's end."""
    return runs_a_training_step(call) and any(_window_guard(arg.value) for arg in call.args)


def _window_guard(test: cst.BaseExpression) -> bool:
    """An accumulation guard that ends a window, not a switch of the accumulation mode
    (`if args.accum_steps > 1:`, `if accumulate:`: a comparison with 0 or 1, or a plain flag)."""
    return _accumulation_guard(test) and not _mode_switch(test)


def _mode_switch(test: cst.BaseExpression) -> bool:
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _mode_switch(test.expression)
    if isinstance(test, (cst.Name, cst.Attribute)):
        return True
    if not isinstance(test, cst.Comparison):
        return False
    sides = (test.left, *(c.comparator for c in test.comparisons))
    return any(isinstance(side, cst.Integer) and side.value in ("0", "1") for side in sides) and all(
        isinstance(side, (cst.Integer, cst.Name, cst.Attribute)) for side in sides
    )


def _accumulation_guard(test: cst.BaseExpression) -> bool:
    """`(i + 1) % accum == 0`, `step % args.grad_accum != 0 or last`, `if accumulated == accum_steps`."""
    for item in descendants(test):
        if isinstance(item, cst.BinaryOperation) and isinstance(item.operator, cst.Modulo):
            return True
        name = item.value if isinstance(item, cst.Name) else item.attr.value if isinstance(item, cst.Attribute) else ""
        if any(word in name.lower() for word in ACCUMULATION_WORDS):
            return True
    return False


def _is_scheduler(receiver: cst.BaseExpression) -> bool:
    name = receiver.value if isinstance(receiver, cst.Name) else receiver.attr.value if isinstance(receiver, cst.Attribute) else ""
    return any(word in name.lower() for word in SCHEDULER_WORDS)


def _attributes(node: cst.CSTNode, functions: Functions) -> Set[str]:
    """Attribute names used in `node` and in the same-file functions it calls."""
    names = {item.attr.value for item in body_nodes(node) if isinstance(item, cst.Attribute)}
    for call, _ in _calls_with_guards(node, functions, ()):
        for function in called_function(call, functions):
            for item in body_nodes(function.body):
                if isinstance(item, cst.Attribute):
                    names.add(item.attr.value)
    return names
