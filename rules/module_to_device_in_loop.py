from typing import List, Optional, Set

import libcst as cst

from torchlint.engine.rule import Rule
from torchlint.semantics.calls import keyword, method_call, positional
from torchlint.semantics.devices import named_like_device
from torchlint.semantics.frequency import Frequency, is_step_loop, rare_test
from torchlint.semantics.training import repeated_with_training
from torchlint.semantics.tree import descendants
from torchlint.semantics.kinds import Kind
from torchlint.semantics.values import string_value


class ModuleToDeviceInLoop(Rule):
    """## What it does
    Flags `model.to(device)` and `model.cuda()` inside a loop that runs once per training or
    inference step, when `model` is known to be a module: built from a `torch.nn` class or
    from a class of the file that subclasses one.

    ## Why is this slow?
    Moving a module walks every parameter and buffer in Python and calls `.to()` on each.
    When the module is already on the device nothing is copied, but the walk still costs
    Python time in proportion to the number of tensors, every step, on the critical path
    between kernel launches. When something moved it away in between, the whole set of
    weights crosses PCIe again each step. A module only needs to be moved once, before the
    loop (and before the optimizer is created, so that the optimizer holds the device
    parameters).

    To stay precise the rule is silent:
    - for receivers that are not known to be modules (tensors, batches, unknown objects, and
      attributes such as `self.model`), and for dtype-only moves (`model.to(torch.float16)`)
      and moves to the CPU;
    - when the module is created or reassigned inside the loop (a fresh model per trial
      must be moved), or the target device changes inside the loop (`for device in devices`);
    - when the loop also moves the same module back to the CPU: deliberate offloading that
      trades transfers for device memory;
    - outside step loops (once per epoch, over parameters or a literal list) and behind a
      guard (`if step == 0`, `if step % n == 0`, or a test on the module or the device such as
      `if next(model.parameters()).device != device`);
    - in test code (`test_*` functions and files).

    Stable in loops that run with training (`semantics.frequency.repeated_with_training`: the
    loop trains, or runs every epoch of a program that does); other step loops (a one-pass
    prediction or latency measurement over inputs) are the preview variant.

    ## Example
    ```python
    for x, y in loader:
        model.to(device)
        loss = criterion(model(x.to(device)), y.to(device))
    ```

    ## Use instead
    ```python
    model.to(device)
    for x, y in loader:
        loss = criterion(model(x.to(device)), y.to(device))
    ```

    ## Fix applicability
    None: hoisting the move out of the loop is only correct when nothing in the loop moves
    the module elsewhere, which the author has to confirm.

    ## Measured precision
    Stable in loops that run with training. Before that split (round 23), every half of the
    benchmark together: 0.40 (2 of 5); the three false findings were one notebook's
    one-pass prediction loop, copied three times. See docs/precision.md.
    """

    code = "TL108"
    impact = "low"
    name = "module-to-device-in-loop"
    summary = "Module moved to the device (`model.to(device)`, `model.cuda()`) inside a step loop"
    triggers = (".to(", ".cuda(")
    frequencies = frozenset({Frequency.PER_STEP})
    bad_examples = (
        "import torch.nn as nn\nmodel = nn.Linear(4, 2)\nfor x, y in loader:\n    model.to(device)\n    loss = model(x)\n",
        "import torch\nnet = torch.nn.Sequential(torch.nn.Linear(4, 4))\nwhile step < n:\n    net.cuda()\n    step = train(net, step)\n",
        "import torch.nn as nn\nclass Net(nn.Module):\n    pass\nmodel = Net()\nfor batch in loader:\n    model = model.to('cuda')\n",
    )
    good_examples = (
        "import torch.nn as nn\nmodel = nn.Linear(4, 2).to(device)\nfor x, y in loader:\n    loss = model(x.to(device))\n",
        "import torch\nfor x, y in loader:\n    x = x.to(device)\n",
        "import torch\nfor x, y in loader:\n    model.to(device)\n",
        "import torch.nn as nn\nfor cfg in configs:\n    model = nn.Linear(cfg.d, 2)\n    model.to(device)\n",
        "import torch.nn as nn\nmodel = nn.Linear(4, 2)\nfor x in loader:\n    model.to(torch.float16)\n",
        "import torch.nn as nn\nmodel = nn.Linear(4, 2)\nfor device in devices:\n    model.to(device)\n",
        "import torch.nn as nn\nmodel = nn.Linear(4, 2)\nfor x in loader:\n    model.cuda()\n    y = model(x)\n    model.cpu()\n",
    )

    def visit_Call(self, node: cst.Call) -> None:
        found = method_call(node)
        if found is None or found[1] not in ("to", "cuda"):
            return
        receiver, method = found
        if not isinstance(receiver, cst.Name) or self.ctx.kind_of(receiver) is not Kind.MODULE:
            return
        device = self._device(node, method)
        if device is None:
            return
        loop = self._step_loop(node, receiver.value)
        if loop is None or not self.runs_often(node):
            return
        if self.withholds_preview_variant() and not repeated_with_training(self.ctx, loop):
            return  # a one-pass inference or measurement loop: the preview variant
        loop_nodes = list(descendants(loop))
        if _reassigned(loop_nodes, receiver.value, node) or _moved_to_host(loop_nodes, receiver.value):
            return
        if self._device_changes(node, device, loop_nodes):
            return
        shown = f"{receiver.value}.{method}(...)" if node.args else f"{receiver.value}.{method}()"
        self.report(
            node,
            f"`{shown}` inside the step loop walks every parameter and buffer of the module each "
            "iteration; move the module once, before the loop",
        )

    def _device(self, node: cst.Call, method: str) -> Optional[cst.CSTNode]:
        """The device expression of a move to an accelerator (the call itself for `.cuda()`), else None."""
        if method == "cuda":
            return node
        args = positional(node)
        target = keyword(node, "device") or (args[0] if args else None)
        if target is None:
            return None
        literal = string_value(target.value)
        if literal is not None and literal.split(":")[0] == "cpu":
            return None
        if self.ctx.kind_of(target.value) is Kind.DEVICE or named_like_device(target.value):
            return target.value
        return None

    def _step_loop(self, node: cst.Call, module: str) -> Optional[cst.CSTNode]:
        loops = {id(loop) for loop in self.ctx.enclosing_loops(node)}
        counters = self.ctx.loop_counters(node)
        for ancestor, child in self.ctx.path_to(node):
            if id(ancestor) in loops:
                return ancestor if is_step_loop(ancestor) else None
            if isinstance(ancestor, cst.If) and child is ancestor.body and rare_test(ancestor.test, counters):
                return None
            if isinstance(ancestor, cst.If) and (child is ancestor.body or child is ancestor.orelse):
                if _mentions(ancestor.test, module):
                    return None  # a check of where the module is
        return None

    def _device_changes(self, node: cst.Call, device: cst.CSTNode, loop_nodes: List[cst.CSTNode]) -> bool:
        """Whether the loop binds a name the device expression reads (`for device in devices`)."""
        if device is node:
            return False
        names = {item.value for item in descendants(device) if isinstance(item, cst.Name)}
        for loop in self.ctx.enclosing_loops(node):
            if isinstance(loop, cst.For) and names & _bound(loop.target):
                return True
        return any(names & _bound(target) for target in _assigned_targets(loop_nodes))


def _mentions(test: cst.BaseExpression, module: str) -> bool:
    """A test on the module or on a device (`if next(model.parameters()).device != device`)."""
    for item in descendants(test):
        if isinstance(item, cst.Name) and (item.value == module or "device" in item.value.lower()):
            return True
        if isinstance(item, cst.Attribute) and "device" in item.attr.value.lower():
            return True
    return False


def _bound(target: cst.CSTNode) -> Set[str]:
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return {item.value for item in descendants(target) if isinstance(item, cst.Name)}
    if isinstance(target, cst.StarredElement):
        return _bound(target.value)
    return set()


def _assigned_targets(loop_nodes: List[cst.CSTNode]) -> List[cst.CSTNode]:
    targets: List[cst.CSTNode] = []
    for item in loop_nodes:
        if isinstance(item, cst.Assign):
            targets.extend(t.target for t in item.targets)
        elif isinstance(item, (cst.AnnAssign, cst.AugAssign, cst.NamedExpr)):
            targets.append(item.target)
        elif isinstance(item, (cst.For, cst.CompFor)):
            targets.append(item.target)
        elif isinstance(item, cst.WithItem) and item.asname is not None:
            targets.append(item.asname.name)
    return targets


def _reassigned(loop_nodes: List[cst.CSTNode], module: str, move: cst.Call) -> bool:
    """Whether the loop binds `module` to another object (`module = module.to(...)` keeps it)."""
    for item in loop_nodes:
        if isinstance(item, cst.Assign):
            found = method_call(item.value)
            if item.value is move or (found is not None and isinstance(found[0], cst.Name) and found[0].value == module):
                continue
        if isinstance(item, (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.NamedExpr, cst.For, cst.CompFor, cst.WithItem)):
            if any(module in _bound(target) for target in _assigned_targets([item])):
                return True
    return False


def _moved_to_host(loop_nodes: List[cst.CSTNode], module: str) -> bool:
    """`module.cpu()` or `module.to("cpu")` in the loop: deliberate offloading."""
    for item in loop_nodes:
        found = method_call(item)
        if found is None or not isinstance(found[0], cst.Name) or found[0].value != module:
            continue
        if found[1] == "cpu":
            return True
        if found[1] == "to" and isinstance(item, cst.Call):
            args = positional(item)
            target = keyword(item, "device") or (args[0] if args else None)
            if target is not None and (string_value(target.value) or "").startswith("cpu"):
                return True
    return False
