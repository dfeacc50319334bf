from typing import Iterator, List, Optional, Sequence, Set, Tuple

import libcst as cst

from torchlint.engine.reports import PendingFix, Report
from torchlint.engine.rule import Rule
from torchlint.rules.sync_in_loop import (
    SyncInLoop,
    buffer_read,
    _calls,
    _in_after_fit_hook,
    _iterates_loader,
    _read_again,
    hook_place,
)
from torchlint.semantics.autograd import backward_receiver
from torchlint.semantics.elements import element_loop, walked_tensor
from torchlint.semantics.execution import Execution, Frequency
from torchlint.semantics.framework_names import LIGHTNING_CALLBACK
from torchlint.semantics.frameworks import ENGINE, LIGHTNING, TRAINING_HOOKS, framework_of
from torchlint.semantics.frequency import is_step_loop
from torchlint.semantics.stopping import decides_stop
from torchlint.semantics.training import OTHER_LOOPS, called_every_step_elsewhere, loop_trains, repeated_with_training
from torchlint.semantics.trained_forward import in_trained_forward, walked_every_step
from torchlint.semantics.tree import descendants
from torchlint.semantics.kinds import MAYBE_DEVICE_KINDS, Kind
from torchlint.semantics.names import dotted_name

# Builtins that convert a tensor to a Python value, copying it to the host.
CONVERSIONS = frozenset({"float", "int", "bool"})


def _test_parts(test: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The parts whose truth a condition tests, through `and`, `or` and `not` (`t`, `t > 0`)."""
    stack: List[cst.BaseExpression] = [test]
    while stack:
        item = stack.pop()
        if isinstance(item, cst.BooleanOperation):
            stack.extend((item.left, item.right))
        elif isinstance(item, cst.UnaryOperation) and isinstance(item.operator, cst.Not):
            stack.append(item.expression)
        else:
            yield item


def _chain_root(node: cst.BaseExpression) -> Optional[cst.Name]:
    """The name a chain of attributes, calls and subscripts starts from (`loss` of
    `loss.isnan().any()`), or None."""
    while isinstance(node, (cst.Attribute, cst.Call, cst.Subscript)):
        node = node.value if isinstance(node, (cst.Attribute, cst.Subscript)) else node.func
    return node if isinstance(node, cst.Name) else None


def _tested_values(test: cst.BaseExpression) -> List[cst.BaseExpression]:
    """The operands whose truth or comparison a condition tests (`t`, `t > 0`, `a and not t`)."""
    found: List[cst.BaseExpression] = []
    for part in _test_parts(test):
        found.extend([part.left, *(c.comparator for c in part.comparisons)] if isinstance(part, cst.Comparison) else [part])
    return found


# `math` functions, which convert a tensor argument to a Python float first.
MATH_CONVERSIONS = frozenset(
    f"math.{name}" for name in "pow sqrt exp log log2 log10 isnan isinf isfinite floor ceil fabs trunc".split()
)
STRING_LITERALS = (cst.SimpleString, cst.ConcatenatedString)
SYNCHRONIZE = frozenset({"torch.cuda.synchronize", "torch.cuda.current_stream().synchronize"})
# Calls that read a clock: a loop that times itself synchronises on purpose.
TIMERS = frozenset(
    "time.time time.perf_counter time.monotonic time.process_time time.time_ns time.perf_counter_ns "
    "time.monotonic_ns timeit.default_timer".split()
)


class ImplicitSyncInLoop(Rule):
    """## What it does
    Flags implicit host-device synchronisation inside a loop that runs once per training or
    evaluation step: `float(t)`, `int(t)` and `bool(t)` of a tensor, a tensor used as the
    condition of `if t:` / `while t:` / `assert t` (including comparisons such as `if loss < best:`
    and `assert not torch.isnan(out).any()`, which Python runs unless started with `-O`), of a
    conditional expression (`"up" if t > 0 else "down"`) or of a comprehension's `if`, a
    tensor as a slice bound (`x[:n]`, which converts `n` with `__index__`) or as an index of a
    NumPy array (`cm[t, p] += 1`; each once per statement),
    `print(t)`, f-strings `f"{t}"`, `"{:.4f}".format(t)` and `"%.4f" % t` of a tensor, `math` functions of a tensor
    (`math.pow(p.grad.norm(), 2)`, `math.isnan(loss)`: each converts it to a float first),
    and `torch.cuda.synchronize()`.

    ## Why is this slow?
    Converting a device tensor to a Python value, testing its truth or formatting it copies
    it to the host, exactly as `.item()` does, and so blocks the Python thread until every
    kernel queued so far has finished; `torch.cuda.synchronize()` waits for them explicitly.
    The CPU can no longer run ahead and queue the next step, and the GPU idles while Python
    works. Reported costs range from 5-10% of step time in small jobs to 40-50 ms of
    `cudaStreamSynchronize` per step in an LLM fine-tune. These conversions are easy to miss
    because no method call names the copy.

    The hooks a training framework runs every batch (a `LightningModule`'s `training_step`
    and `validation_step`, an ignite process function) and the helpers they call are step code
    too, also in files that never mention a device (the trainer puts the module on the
    accelerator): `ptr = int(self.queue_ptr)` of a registered buffer in a `training_step`
    helper waits every step; so does `assert mask.max() <= 1.0` in a helper the class calls
    only from its batch hooks, each time with the hook's batch (`self.shared_step(batch,
    "train")`), which is the batch the trainer moved. A print or f-string of a tensor in an
    evaluation hook is its output.
    The `forward()` of a torch module the project builds and trains (gradients on) runs every
    training step on the inputs its callers hand it, which are taken to be tensors where the
    file never calls it itself (parameters with a default are flags): `assert (t <
    self.steps).all()` there waits every step (`semantics.trained_forward.in_trained_forward`).
    This is a preview variant: on the development halves 20 of 43 such findings held; most of
    the others were in modules of large libraries that no shipped configuration builds, or
    tested sizes taken for tensors. A conversion or test of a buffer the module registers
    (`ptr = int(self.queue_ptr)` in MoCo's `_dequeue_and_enqueue`, `if self.initted:`) is
    reported by default: the buffer lives on the device with the module, as TL101 reports
    `.item()` of one. A `forward()` whose work is all under `torch.no_grad()` is inference; one
    that computes only part of its work without gradients (MoCo's keys) trains.
    A conversion or test of each element of a device tensor in a loop over its elements that
    runs every step (`"up" if trends[b] > 0 else "down"` for each series in a trained
    `forward()`, `int(counts[i])` per sample of a validation batch, `[int(n) for n in
    counts]`, `int(row[0])` for each row) is reported as TL101
    reports `.item()` of each element: one wait per element, where one `.tolist()` before the
    loop reads them all (`semantics.trained_forward.walked_every_step`).
    A tensor test that decides a `return` of a training hook is reported (`if
    torch.isnan(loss): return None` in `training_step` waits every step, as the same test
    before `continue` does in a hand-written training loop); of an evaluation hook it is needed.
    The hooks of `trainer.test()` and `trainer.predict()` (`test_step`, `predict_step`), one
    pass after the fit, are the preview variant; a helper they share with the training step
    is not.

    To stay precise the rule only reports values known to be tensors (results of torch
    functions, of calling a module, tensors moved with `.cuda()`/`.to(device)`, results of
    methods only a tensor has, such as `.norm(dim=-1)`, the fields of the batch a
    `LightningModule`'s step method receives, which the loader collated and the trainer moved
    (`ids, mask, labels = batch`; a custom collate that returns lists is rare enough to
    accept), and a name the function assigns once
    and calls autograd's `.backward()` on, `loss = loss_func(out, target)` of a loss function
    chosen at run time), and a parameter of one of the file's functions that every call in the
    file passes such a tensor (`float((out.argmax(1) == labels).sum())` in `accuracy(out,
    labels)`, called every step with `labels` moved to the GPU, also through a helper that
    hands its own parameter on; `semantics.argument_kinds`), never values of unknown type, and
    is silent where TL101
    (`sync-in-loop`) is:
    - outside loops (but a same-file helper that a step loop calls every iteration is reported
      in its body, `if torch.isnan(t).any():` in a `check_finite(loss)` the training loop
      calls, as TL101 reports its `.item()`; and a function another module's training step loop calls every
      iteration is reported in its body: `if torch.min(y) < -1.:` in `mel_spectrogram(y_hat)`,
      also in a helper module that names no device when that loop's program runs on CUDA;
      so is the `step()` of a class that wraps a torch optimizer, `self.optimizer.step()`
      after clipping gradients, where the training loop calls `optimizer.step()` on it, unlike
      an environment's `step()`, whose values go back to the caller's loop),
      and in files that never mention a device (`cuda`, `device`, `.to(`, ...; a dtype cast
      such as `.to(torch.float)` names none);
    - on tensors known to be in host memory (created without `device=`, moved with
      `.cpu()`), on values already converted (`float(loss.item())`, reported by TL101) and on
      the keys of a module's dict of outputs (`for name, value in model(x).items():`);
    - in loops that run once per epoch, over dict entries or parameters, or over literal lists,
      and in a toy's loop of at most 100 iterations in all: at the top level (`for epoch in
      range(NUM_EPOCHS):` with `NUM_EPOCHS = 25`, in no function and no other loop), or in a
      function over `range(num_epochs)` that every call passes a literal such count from
      the top level (`model.train(x, y, num_epochs=50)` in a notebook);
    - behind a logging guard (`if step % 100 == 0:`, a test naming `log`, `verbose`, ...);
    - where a loop that does not train (no `.backward()`/`.step()`) needs the value on the
      host to go on: it decides a `break`/`return`/`raise` or the `while` condition (also
      through names the loop computes from it), it is read again in the next iteration, the loop reads `input()`, or a loop that is not over
      a data loader prints or formats each result;
    - for `torch.cuda.synchronize()` in a loop that reads a clock (`time.perf_counter()`),
      where the synchronisation is what makes the timing correct;
    - in data and test code: `Dataset` subclasses, `__getitem__`, collate functions, and
      `unittest` classes, `test_*` functions and `test_*.py` files.

    ## Example
    ```python
    for x, y in loader:
        loss = criterion(model(x.cuda()), y.cuda())
        loss.backward()
        optimizer.step()
        total += float(loss)
    ```

    ## Use instead
    Keep the value on the device and convert once after the loop, or every N steps:
    ```python
    for x, y in loader:
        loss = criterion(model(x.cuda()), y.cuda())
        loss.backward()
        optimizer.step()
        total += loss.detach()
    total = float(total)
    ```
    `torchlint.reference.RunningMean` keeps such a running value on the device and syncs
    once, when it is read.

    ## Fix applicability
    None: the value's type changes from a Python number to a tensor, and whether the rest of
    the code accepts that is for the author to decide.

    ## Measured precision
    Stable in loops that run with training (`semantics.frequency.repeated_with_training`, as
    for TL101): no finding on the dev half of the real-code benchmark and 1.00 held out (4/0:
    `torch.cuda.synchronize()` on every training step, only for logging). Other loops
    (generation, beam search, metrics run once) are the preview variant, reported only with
    `--preview`: 0.00 dev (0/8), no finding held out. Few findings: its evidence is TL101's,
    the same semantics on many more. Over every development half together (2026-11-28): 0.67
    (35/17) before the fifteenth recall round, 0.90 (38/4) after it (toy loops of at most 100
    iterations, dtype casts, dicts of outputs); fresh batch 22, unseen: 1.00 (1/0) before and
    after. The twenty-second round's forms: `str.format()` and `%` formatting, 3 true and 5
    false on the development halves (per-step displays of toy loops, prints in iterations that
    read values back for a host metric anyway, as TL101's findings on the same lines) and 2
    labelled misses of batch 30 found; same-file helpers of the step loop, 1 debatable and 1
    false (a beam-search helper). See docs/precision.md.
    """

    code = "TL103"
    impact = "high"
    name = "implicit-sync-in-loop"
    preview_variant = f"{OTHER_LOOPS}; tests and conversions in a trained module's `forward()`"
    summary = "Implicit host-device synchronisation (`float(t)`, `if t:`, `print(t)`, `torch.cuda.synchronize()`) inside a step loop"
    triggers = ("float(", "int(", "bool(", "if ", "while ", "assert ", "print(", "{", "%", "math.", "synchronize(", "[")
    frequencies = frozenset({Frequency.PER_STEP})
    bad_examples = (
        "import torch\nfor x, y in loader:\n    loss = torch.nn.functional.mse_loss(model(x.cuda()), y.cuda())\n    total += float(loss)\n",
        "import torch\nfor x in loader:\n    out = x.cuda().sum()\n    if out > 0:\n        count += 1\n",
        "import torch\nfor x in loader:\n    loss = torch.mean(x.cuda())\n    print(f\"loss {loss}\")\n",
        "import torch\nfor x in loader:\n    y = torch.relu(x.cuda())\n    torch.cuda.synchronize()\n",
    )
    good_examples = (
        "import torch\nfor x in loader:\n    total += float(loss)\n    model.cuda()\n",
        "import torch\nloss = torch.mean(x.cuda())\nprint(float(loss))\n",
        "import torch\nfor step, x in enumerate(loader):\n    loss = torch.mean(x.cuda())\n    if step % 100 == 0:\n        print(loss)\n",
        "import torch\nfor x in loader:\n    loss = torch.mean(x.cuda())\n    total += float(loss.item())\n",
        "import torch\nfor x in loader:\n    t = torch.ones(3)\n    print(float(t))\n    x.cuda()\n",
        "import torch\nimport time\nfor x in loader:\n    y = model(x.cuda())\n    torch.cuda.synchronize()\n    times.append(time.perf_counter())\n",
        "import torch\nfor epoch in range(10):\n    loss = torch.mean(x.cuda())\n    print(loss)\n",
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self._framework_classes: Optional[bool] = None
        # For the node being checked: whether a value was known to be a tensor, and for each
        # value that is one only if a parameter is, the (function, parameter) choices.
        self._known = False
        self._assumed: List[Tuple[Tuple[cst.CSTNode, str], ...]] = []
        # Findings on such values, kept until every call of the function is seen.
        self._pending: List[Tuple[Report, List[Tuple[Tuple[cst.CSTNode, str], ...]]]] = []
        # The statements whose tensor slice bounds or indices were reported: the first
        # conversion waits, those after it in the same statement read values already computed.
        self._indexed: Set[int] = set()

    def report(self, node: cst.CSTNode, message: str, fix: Optional[PendingFix] = None, start: Optional[cst.CSTNode] = None) -> None:
        """Reports at once what concerns known tensors; a finding that holds only if a
        parameter is a tensor waits for the file's calls (`leave_Module`)."""
        if self._known or not self._assumed:
            super().report(node, message, fix, start)
        elif not (self.in_skipped_code() or self.ctx.frequency.never_runs(node)):
            self._pending.append((Report(self, node, message, fix, start), list(self._assumed)))

    def leave_Module(self, node: cst.Module) -> None:
        """The findings on a helper's parameters where every call in the file passes the
        parameter a tensor that may be on the device (`accuracy(out, labels)` with `labels`
        moved there)."""
        passes = self.ctx.arguments.always_maybe_on_device
        for report, assumed in self._pending:
            if any(any(passes(function, name) for function, name in choices) for choices in assumed):
                self.ctx.reports.append(report)

    def visit_Call(self, node: cst.Call) -> None:
        if not self._visiting():
            return
        func = node.func
        qualified = self.ctx.qualified_name(func)
        if qualified == "torch.cuda.synchronize":
            self._check(node, "`torch.cuda.synchronize()`", synchronize=True)
            return
        if qualified in MATH_CONVERSIONS:
            if any(arg.keyword is None and not arg.star and self._is_tensor(arg.value) for arg in node.args):
                self._check(node, f"`{qualified}()` of a tensor", names=self._assigned_names(node))
            return
        if isinstance(func, cst.Attribute) and func.attr.value == "format" and isinstance(func.value, STRING_LITERALS):
            if any(not arg.star and self._is_tensor(arg.value) for arg in node.args):
                self._check(node, "Formatting a tensor with `str.format()`", prints=True)
            return
        if not isinstance(func, cst.Name) or self.ctx.names.lookup(func.value) is not None:
            return  # not the builtin (shadowed by an import, a parameter or an assignment)
        name = func.value
        if name in CONVERSIONS:
            if len(node.args) == 1 and not node.args[0].keyword and not node.args[0].star and self._is_tensor(node.args[0].value):
                self._check(node, f"`{name}()` of a tensor", names=self._assigned_names(node))
        elif name == "print":
            if any(arg.keyword is None and not arg.star and self._is_tensor(arg.value) for arg in node.args):
                self._check(node, "`print()` of a tensor", prints=True)

    def visit_FormattedStringExpression(self, node: cst.FormattedStringExpression) -> None:
        if self._visiting() and self._is_tensor(node.expression):
            self._check(node, "Formatting a tensor in an f-string", prints=True)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        """`"%.4f" % loss`, `"%d/%d" % (correct, total)`: printf-style formatting converts each
        tensor operand to a Python number."""
        if not (isinstance(node.operator, cst.Modulo) and isinstance(node.left, STRING_LITERALS)) or not self._visiting():
            return
        operands = [element.value for element in node.right.elements] if isinstance(node.right, cst.Tuple) else [node.right]
        if any(self._is_tensor(operand) for operand in operands):
            self._check(node, "Formatting a tensor with `%`", prints=True)

    def visit_If(self, node: cst.If) -> None:
        if self._visiting() and self._is_tensor_test(node.test) and not self._tested_just_before(node):
            self._check(node.test, "A tensor as an `if` condition", test_of=node)

    def _tested_just_before(self, node: cst.If) -> bool:
        """Whether `node` is an `elif` whose tensors the `if` it follows already tested (`if d <
        low: ... elif d > high: ...`): that test waited for them, and nothing new is queued in
        between."""
        parent = self.ctx.parent()
        if not (isinstance(parent, cst.If) and parent.orelse is node and self._is_tensor_test(parent.test)):
            return False
        tested = {item.value for item in descendants(node.test) if isinstance(item, cst.Name) and self._is_tensor(item)}
        return bool(tested) and tested <= {item.value for item in descendants(parent.test) if isinstance(item, cst.Name)}

    def visit_IfExp(self, node: cst.IfExp) -> None:
        if self._visiting() and self._is_tensor_test(node.test):
            self._check(node.test, "A tensor as the condition of a conditional expression", test_of=node)

    def visit_CompIf(self, node: cst.CompIf) -> None:
        if self._visiting() and self._is_tensor_test(node.test):
            self._check(node.test, "A tensor as a comprehension's `if` condition", test_of=node)

    def visit_Assert(self, node: cst.Assert) -> None:
        if self._visiting() and self._is_tensor_test(node.test):
            self._check(node.test, "A tensor as an `assert` condition", test_of=node)

    def visit_Slice(self, node: cst.Slice) -> None:
        """`x[:n]`, `x[n - k:]` with a tensor bound: Python converts it with `__index__`, as
        `int(n)` does."""
        self._check_index(node, (node.lower, node.upper, node.step), "A tensor as a slice bound")

    def visit_Subscript(self, node: cst.Subscript) -> None:
        """`cm[t, p] += 1` with `cm` a NumPy array: NumPy converts each tensor index with
        `__index__` (a tensor indexing a tensor stays on the device)."""
        if self.ctx.kind_of(node.value) is Kind.NDARRAY:
            indices = [item.slice.value for item in node.slice if isinstance(item.slice, cst.Index)]
            self._check_index(node, indices, "A tensor as an index of a NumPy array")

    def _check_index(self, node: cst.CSTNode, parts: Sequence[Optional[cst.BaseExpression]], what: str) -> None:
        """The first tensor among a subscript's `parts`, which Python converts to an integer;
        once per statement (the first conversion waits, the next read values already there)."""
        statement = self.ctx.enclosing(cst.SimpleStatementLine, cst.BaseCompoundStatement)
        if id(statement) in self._indexed or not self._visiting():
            return
        index = next((item for item in parts if item is not None and self._is_tensor(item)), None)
        if index is not None:
            self._indexed.add(id(statement))
            self._check(index, what, test_of=node)

    def visit_While(self, node: cst.While) -> None:
        if self._visiting() and self._is_tensor_test(node.test):
            self._check(node.test, "A tensor as a `while` condition", loop=node)

    def _check(
        self,
        node: cst.CSTNode,
        what: str,
        synchronize: bool = False,
        prints: bool = False,
        names: Optional[Set[str]] = None,
        test_of: Optional[cst.CSTNode] = None,
        loop: Optional[cst.CSTNode] = None,
    ) -> None:
        helper = None
        if loop is None and self._reads_elements_one_by_one(node, what, test_of):
            return
        if loop is None:
            execution = self.ctx.execution(test_of or node)
            loop = (execution.loop or execution.step_loop()) if execution.frequency in self.frequencies else None
            if loop is not None and execution.loop is None:
                helper = self.ctx.enclosing(cst.FunctionDef)  # a same-file helper the step loop calls
            if loop is None:
                if execution.frequency in self.frequencies and execution.framework():
                    self._check_batch_hook(node, what, execution, prints, synchronize, names)
                elif execution.frequency in self.frequencies and called_every_step_elsewhere(execution) and self.ctx.serves_device:
                    self._check_training_step_callee(node, what, execution, prints)
                elif not (prints or synchronize) and in_trained_forward(self.ctx, execution, self.ctx.enclosing(cst.ClassDef), self.ctx.values.module_classes):
                    self._check_trained_forward(node, what)
                return
        elif not self.ctx.uses_device:
            return  # a loop of a file that never mentions a device may run on the host
        elif not is_step_loop(loop):
            return
        if self.ctx.frequency.runs_few_times(loop, imported=not self.ctx.path.endswith(".ipynb")):
            return  # a toy's top-level loop of a few dozen iterations: the waits cost nothing measurable
        loop_nodes = list(descendants(loop))
        if not loop_trains(self.ctx, loop):
            if any(_calls(item, "input") for item in loop_nodes):
                return
            if decides_stop(loop, set(), node) or (isinstance(test_of, cst.Assert) and not repeated_with_training(self.ctx, loop)):
                return  # the loop cannot go on without the value (an `assert` of a generation or inference loop)
            if not _iterates_loader(loop) and (prints or _read_again(names or set(), loop_nodes)):
                return  # sampling or decoding loops hand each result to the host
        if synchronize and any(self._reads_clock(item) for item in [*loop_nodes, *(descendants(helper) if helper is not None else ())]):
            return  # a timing: the loop or the helper (`time_wrap()`) reads a clock
        if self._in_data_code():
            return
        if (helper is not None or self.withholds_preview_variant()) and not repeated_with_training(self.ctx, loop):
            return  # a helper's value may be what another loop exists to produce: no preview variant
        verb = "waits for the device" if synchronize else "copies the tensor to the host and waits for the device"
        where = f"in `{helper.name.value}()`, called in a step loop," if isinstance(helper, cst.FunctionDef) else "in a loop"
        self.report(
            node,
            f"{what} {where} {verb} every iteration; keep values on the device and convert once "
            "after the loop or every N steps",
        )

    def _reads_elements_one_by_one(self, node: cst.CSTNode, what: str, test_of: Optional[cst.CSTNode]) -> bool:
        """Reports (and says so) a conversion or test of each element of a device tensor in a
        loop over its elements that runs every step (`"up" if trends[b] > 0 else "down"` for
        each series in a trained `forward()`, `int(n)` for each count of a validation batch;
        see `trained_forward.walked_every_step`): one wait per element, where one `.tolist()`
        before the loop reads them all."""
        values = _tested_values(node) if test_of is not None else [arg.value for arg in getattr(node, "args", ())[:1]]
        for value in values:
            loop = element_loop(value, self.ctx.enclosing_loops(node))
            tensor = walked_tensor(loop, value) if loop is not None else None
            if tensor is None or not self._is_tensor(tensor) or not self.ctx.serves_device or self._in_data_code() or self.ctx.inference_only:
                continue
            if walked_every_step(self.ctx, loop, self.ctx.enclosing(cst.ClassDef), self.ctx.values.module_classes):
                self.report(
                    node,
                    f"{what}, for each element of `{dotted_name(tensor)}`, waits for the device once per element, every step; "
                    "read them all at once with `.tolist()` before the loop",
                )
                return True
        return False

    def _visiting(self) -> bool:
        """Starts checking a node (forgetting the last node's evidence): whether the file
        mentions a device, or defines a class of a training framework (a `LightningModule`),
        whose trainer runs its hooks on the accelerator it is given, or serves a program that
        runs on CUDA (a helper its training loop calls every step)."""
        self._assumed.clear()
        self._known = False
        if self._framework_classes is None:
            classes = self.ctx.frequency.classes()
            self._framework_classes = any(
                framework_of(klass, classes) is not None for group in classes.values() for klass in group
            )
        return self.ctx.uses_device or self._framework_classes or self.ctx.serves_device

    def _check_batch_hook(
        self, node: cst.CSTNode, what: str, execution: Execution, prints: bool, synchronize: bool, names: Optional[Set[str]]
    ) -> None:
        """A sync in a method a training framework calls every batch (Lightning's
        `training_step`, an ignite process function) or in a helper only such a method calls
        (`int(self.queue_ptr)` in the `_dequeue_and_enqueue()` of a `training_step`). Prints
        and f-strings in evaluation hooks are their output; a synchronisation in a function that
        reads a clock makes its timing right; a value that decides a `return` or `raise` of an
        evaluation hook is needed (not of a training hook: `if torch.isnan(loss): return None`
        in `training_step` waits every step, as the same test before `continue` does in a
        hand-written training loop); a callback's hooks do the monitoring they are added for; an engine
        of the program's own runs where the program puts it."""
        framework = execution.framework()
        if self._in_data_code() or self.ctx.inference_only or framework == LIGHTNING_CALLBACK:
            return  # a callback's per-batch work is the monitoring it is added for (timing, spike checks)
        if framework == ENGINE and not self.ctx.uses_device:
            return
        hook = execution.step_method()
        function = self.ctx.enclosing(cst.FunctionDef)
        if (prints and hook not in TRAINING_HOOKS) or (_in_after_fit_hook(function, hook) and self.withholds_preview_variant()):
            return  # an evaluation hook's output, or `trainer.test()` after the fit (the preview variant)
        if function is not None and (
            (synchronize and any(self._reads_clock(item) for item in descendants(function)))
            or (hook not in TRAINING_HOOKS and decides_stop(function, names or set(), node))
        ):
            return  # a timing, or a value an evaluation hook must have to return or raise
        where = hook_place(function, hook)
        remedy = "pass the tensor to `self.log(...)`, which reduces it on the device" if prints and framework == LIGHTNING else "keep values on the device"
        self.report(
            node,
            f"{what} in {where}, which {framework} runs every batch, copies the tensor to the host and waits for the device every step; {remedy}",
        )

    def _check_training_step_callee(self, node: cst.CSTNode, what: str, execution: Execution, prints: bool) -> None:
        """A sync in the body of a function another module's training step loop calls every
        iteration (`if torch.min(y) < -1.:` in `mel_spectrogram(y_g_hat)`): every step waits.
        A print under such a tensor test runs only when the test holds (a warning)."""
        if self._in_data_code() or self.ctx.inference_only:
            return
        if prints and any(isinstance(item, cst.If) and self._is_tensor_test(item.test) for item in self.ctx.ancestors):
            return
        self.report(
            node,
            f"{what} copies the tensor to the host and waits for the device every training step: "
            f"{execution.reasons[0].text}; keep values on the device",
        )

    def _check_trained_forward(self, node: cst.CSTNode, what: str) -> None:
        """A conversion or test of a tensor in the `forward()` of a module the project trains,
        or a helper of it (`assert (t < self.steps).all()`): every training step waits. A
        preview variant (see the rule's docs), but for a registered buffer of the module
        (`ptr = int(self.queue_ptr)`), which lives on the device with it."""
        if self._in_data_code() or self.ctx.inference_only or not self.ctx.serves_device:
            return
        if self.withholds_preview_variant() and not self._reads_a_buffer(node):
            return
        self.report(
            node,
            f"{what} in `forward()`, which every training step runs, copies the tensor to the host and waits "
            "for the device every step; keep values on the device, or check every N steps",
        )

    def _reads_a_buffer(self, node: cst.CSTNode) -> bool:
        """Whether the value converted (`int(self.queue_ptr)`) or tested (`if self.initted:`,
        `not self.ready`, `self.count[0] > 0`) is a registered buffer of the module."""
        value = node.args[0].value if isinstance(node, cst.Call) and node.args else node
        while isinstance(value, cst.UnaryOperation):
            value = value.expression
        parts = [value.left, *(c.comparator for c in value.comparisons)] if isinstance(value, cst.Comparison) else [value]
        return any(isinstance(part, cst.BaseExpression) and buffer_read(part, self.ctx.values) for part in parts)

    def _is_tensor(self, node: cst.BaseExpression) -> bool:
        """Known to be a tensor that may live on the device; unknown values never count, but a
        loss the function calls `.backward()` on is known by that (`semantics.autograd`)."""
        kind = self.ctx.kind_of(node)
        root = _chain_root(node)
        if kind is None and root is not None and (root is node or self.ctx.values.tensor_evidence(node)):
            function = self.ctx.enclosing(cst.FunctionDef, cst.ClassDef, cst.Lambda)
            if not isinstance(function, (cst.ClassDef, cst.Lambda)) and backward_receiver(self.ctx.module, function, root.value):  # type: ignore[arg-type]
                kind = self.ctx.values.kind_if_tensor(node, root.value)  # the loss, or what it computes from it: `loss.isnan()`
        if kind is None:
            choices = [choice for choice in self.ctx.values.tensor_parameters(node) if self.ctx.arguments.may_be_called(choice[0])]
            choices = choices if choices and self.ctx.values.tensor_evidence(node) else []
            if choices:
                self._assumed.append(tuple(choices))  # a tensor if the callers pass one
            return bool(choices)
        self._known = self._known or kind in MAYBE_DEVICE_KINDS
        return kind in MAYBE_DEVICE_KINDS

    def _is_tensor_test(self, test: cst.BaseExpression) -> bool:
        """A condition whose truth is a tensor's: `t`, `not t`, `t > 0`, `a and t` (not `t is None`)."""
        identity = (cst.Is, cst.IsNot, cst.In, cst.NotIn)
        for item in _test_parts(test):
            if isinstance(item, cst.Comparison):
                if not any(isinstance(c.operator, identity) for c in item.comparisons) and self._is_tensor(item):
                    return True
            elif isinstance(item, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) and self._is_tensor(item):
                return True
        return False

    def _reads_clock(self, node: cst.CSTNode) -> bool:
        if not isinstance(node, cst.Call):
            return False
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in ("elapsed_time", "record"):
            return True  # CUDA events
        return self.ctx.qualified_name(node.func) in TIMERS

    def _assigned_names(self, node: cst.Call) -> Set[str]:
        parent = self.ctx.parent()
        if isinstance(parent, cst.Assign) and parent.value is node:
            return {target.target.value for target in parent.targets if isinstance(target.target, cst.Name)}
        return set()

    _in_data_code = SyncInLoop._in_data_code
