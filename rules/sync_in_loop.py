from typing import Optional, Tuple

import libcst as cst

from torchlint.findings import Applicability
from torchlint.rule import NodeEdit, PendingFix, Rule
from torchlint.semantics.calls import method_call
from torchlint.semantics.tree import descendants
from torchlint.semantics.values import HOST_KINDS, Kind

SYNC_METHODS = frozenset({"item", "cpu", "numpy", "tolist"})
# Loops over containers of parameters or dict entries run once per call, not once per step.
CONTAINER_ITERATORS = frozenset(
    "items keys values parameters named_parameters modules named_modules children named_children "
    "buffers named_buffers state_dict".split()
)
ITERATION_WRAPPERS = frozenset({"enumerate", "sorted", "reversed", "list", "tuple"})
# Words that mark an `if` as a logging/reporting guard when they occur in its test.
GUARD_WORDS = ("log", "print", "verbose", "interval", "freq", "every", "display", "report", "debug")
DATASET_BASES = frozenset(
    {"torch.utils.data.Dataset", "torch.utils.data.IterableDataset", "torch.utils.data.dataset.Dataset", "torch.utils.data.dataset.IterableDataset"}
)
DATA_FUNCTIONS = ("__getitem__", "__iter__", "__next__", "collate")


class SyncInLoop(Rule):
    """## What it does
    Flags `.item()`, `.cpu()`, `.numpy()` and `.tolist()` on a tensor inside a loop body
    (`for`, `while`, comprehension) that runs once per training or evaluation step.

    ## Why is this slow?
    Each of these calls copies device memory to the host and blocks the Python thread until
    every kernel queued so far has finished. The CPU can no longer run ahead and queue the
    next step, so the GPU idles while Python works. Reported costs range from 5-10% of step
    time in small jobs to 40-50 ms of `cudaStreamSynchronize` per step in an LLM fine-tune; the
    cost is negligible only when each step does little GPU work.

    The rule stays silent outside loops, on values known to live on the host (NumPy arrays,
    Python numbers, the result of `.numpy()`, `np.*` calls, modules), in loops over parameters
    or dict entries (`.items()`, `.parameters()`, ...) that run once per call rather than once
    per step, inside an `if` that limits the work to a logging interval (a `%` test, or a test
    naming `log`, `print`, `verbose`, `interval`, `freq`, `every`, ...), and in dataset code
    (`Dataset` subclasses, `__getitem__`, collate functions), which runs on the CPU.

    ## Example
    ```python
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item()
    ```

    ## Use instead
    Keep the value on the device and convert once after the loop, or every N steps:
    ```python
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.detach()
    total = total.item()
    ```
    The bundled on-device running metric (`torchlint.reference.metric`) does this for you.

    ## Fix applicability
    Unsafe, and only for the accumulation `total += x.item()` where `total` holds a number
    before the loop and is not read inside it: the accumulator becomes a tensor during the
    loop (summed on the device, in the tensor's dtype) and is converted back once after it.
    Other uses get no fix.
    """

    code = "TL101"
    name = "sync-in-loop"
    summary = "Host-device synchronisation (`.item()`, `.cpu()`, `.numpy()`, `.tolist()`) inside a step loop"
    fix_applicability = Applicability.UNSAFE
    bad_examples = (
        "import torch\nfor x, y in loader:\n    loss = model(x)\n    print(loss.item())\n",
        "import torch\nwhile True:\n    preds.extend(model(x).argmax(1).cpu().numpy())\n",
        "import torch\nvalues = [t.item() for t in batch_losses]\n",
        "import torch\nfor x in loader:\n    y = model(x).cpu().numpy().tolist()\n",
    )
    good_examples = (
        "import torch\nloss = model(x)\nprint(loss.item())\n",
        "import torch\nimport numpy as np\nfor i in range(10):\n    a = np.ones(3)\n    print(a.tolist())\n",
        "import torch\nfor step, (x, y) in enumerate(loader):\n    loss = model(x)\n    if step % 100 == 0:\n        print(loss.item())\n",
        "import torch\nfor name, p in model.named_parameters():\n    print(name, p.norm().item())\n",
        "for x, y in loader:\n    print(loss.item())\n",
    )

    def visit_Call(self, node: cst.Call) -> None:
        found = method_call(node)
        if found is None or found[1] not in SYNC_METHODS:
            return
        receiver, method = found
        if method != "numpy" and node.args:
            return
        if self._on_host(receiver) or not self._in_step_loop(node) or self._in_data_code():
            return
        assert isinstance(node.func, cst.Attribute)
        self.report(
            node,
            f"`.{method}()` in a loop synchronises with the device every iteration; "
            "keep the value on the device and convert once after the loop or every N steps",
            fix=self._accumulation_fix(node) if method == "item" else None,
            start=node.func.attr,
        )

    def _accumulation_fix(self, node: cst.Call) -> Optional[PendingFix]:
        """`total += x.item()` -> `total += x.detach()`, converted once after the loop."""
        accumulator = self._accumulator(node)
        torch_name = self.ctx.names.module_alias("torch")
        loop = next(iter(self.ctx.enclosing_loops(node)), None)
        if accumulator is None or torch_name is None or not isinstance(loop, (cst.For, cst.While)) or loop.orelse:
            return None
        if self.ctx.kind_of(cst.Name(accumulator)) is not Kind.NUMBER or not _only_accumulates(loop, accumulator):
            return None
        placement = self._after(loop)
        if placement is None:
            return None
        anchor, indent, before = placement
        conversion = f"{accumulator} = {accumulator}.item() if {torch_name}.is_tensor({accumulator}) else {accumulator}"
        assert isinstance(node.func, cst.Attribute)
        detach = node.with_changes(func=node.func.with_changes(attr=cst.Name("detach")))
        insert = (
            NodeEdit(anchor, f"{conversion}\n{indent}", insert_before=True)
            if before
            else NodeEdit(anchor, f"\n{indent}{conversion}", insert_after=True)
        )
        return self.fix(NodeEdit(node, detach), insert, message="Accumulate on the device; convert once after the loop")

    def _accumulator(self, node: cst.Call) -> Optional[str]:
        parent = self.ctx.parent()
        if (
            isinstance(parent, cst.AugAssign)
            and parent.value is node
            and isinstance(parent.operator, cst.AddAssign)
            and isinstance(parent.target, cst.Name)
        ):
            return parent.target.value
        return None

    def _after(self, loop: cst.CSTNode) -> Optional[Tuple[cst.CSTNode, str, bool]]:
        """Where the conversion goes: before the statement after `loop`, or after `loop` itself."""
        index = next((i for i, a in enumerate(self.ctx.ancestors) if a is loop), None)
        if index is None or index == 0:
            return None
        block = self.ctx.ancestors[index - 1]
        body = getattr(block, "body", None)
        if not isinstance(body, (list, tuple)):
            return None
        indent = "".join(
            b.indent if b.indent is not None else self.ctx.module.default_indent
            for b in self.ctx.ancestors[:index]
            if isinstance(b, cst.IndentedBlock)
        )
        position = next(i for i, statement in enumerate(body) if statement is loop)
        if position + 1 < len(body):
            return body[position + 1], indent, True
        return loop, indent, False

    def _on_host(self, receiver: cst.BaseExpression) -> bool:
        """Whether the receiver is known not to be a device tensor."""
        kind = self.ctx.kind_of(receiver)
        if kind in HOST_KINDS or kind is Kind.MODULE:
            return True
        inner = method_call(receiver)
        if inner is not None and inner[1] in SYNC_METHODS:
            return True  # a chain such as `.cpu().numpy()` synchronises once, at its first call
        qualified = self.ctx.qualified_name(receiver.func) if isinstance(receiver, cst.Call) else None
        return qualified is not None and qualified.startswith("numpy.")

    def _in_step_loop(self, node: cst.Call) -> bool:
        """Inside a step loop, and not behind a logging-interval guard within that loop."""
        loops = {id(loop) for loop in self.ctx.enclosing_loops(node)}
        guarded = False
        for ancestor, child in self.ctx.path_to(node):
            if id(ancestor) in loops and _is_step_loop(ancestor):
                return not guarded
            if isinstance(ancestor, cst.If) and child is ancestor.body and _is_interval_guard(ancestor.test):
                guarded = True
        return False

    def _in_data_code(self) -> bool:
        for ancestor in self.ctx.ancestors:
            if isinstance(ancestor, cst.ClassDef) and any(
                self.ctx.qualified_name(base.value) in DATASET_BASES for base in ancestor.bases
            ):
                return True
            if isinstance(ancestor, cst.FunctionDef) and ancestor.name.value.startswith(DATA_FUNCTIONS):
                return True
        return False


def _only_accumulates(loop: cst.CSTNode, name: str) -> bool:
    """The loop mentions `name` once (the accumulation) and cannot leave before its end."""
    mentions = 0
    for node in descendants(loop):
        if isinstance(node, (cst.Return, cst.Yield, cst.Global, cst.Nonlocal)):
            return False
        if isinstance(node, cst.Name) and node.value == name:
            mentions += 1
    return mentions == 1


def _iterated(loop: cst.CSTNode) -> Optional[cst.BaseExpression]:
    if isinstance(loop, cst.For):
        return loop.iter
    if isinstance(loop, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
        return loop.for_in.iter
    if isinstance(loop, cst.CompFor):
        return loop.iter
    return None


def _is_step_loop(loop: cst.CSTNode) -> bool:
    """False for loops that clearly iterate a container once (dict entries, parameters, literals)."""
    iterated = _iterated(loop)
    while isinstance(iterated, cst.Call) and isinstance(iterated.func, cst.Name) and iterated.func.value in ITERATION_WRAPPERS and iterated.args:
        iterated = iterated.args[0].value
    if isinstance(iterated, (cst.List, cst.Tuple, cst.Set, cst.Dict)):
        return False
    found = method_call(iterated) if iterated is not None else None
    return found is None or found[1] not in CONTAINER_ITERATORS


def _is_interval_guard(test: cst.BaseExpression) -> bool:
    """Whether an `if` test limits its body to some steps: `step % n == 0`, `if log_now:`, ..."""
    stack = [test]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo):
            return True
        if isinstance(node, cst.Name) and any(word in node.value.lower() for word in GUARD_WORDS):
            return True
        if isinstance(node, cst.Attribute):
            if any(word in node.attr.value.lower() for word in GUARD_WORDS):
                return True
            stack.append(node.value)
        elif isinstance(node, cst.Comparison):
            stack.append(node.left)
            stack.extend(target.comparator for target in node.comparisons)
        elif isinstance(node, cst.BooleanOperation):
            stack.extend((node.left, node.right))
        elif isinstance(node, cst.UnaryOperation):
            stack.append(node.expression)
        elif isinstance(node, cst.BinaryOperation):
            stack.extend((node.left, node.right))
        elif isinstance(node, cst.Call):
            stack.append(node.func)
            stack.extend(arg.value for arg in node.args)
    return False
