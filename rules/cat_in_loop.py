from typing import List, Optional, Set

import libcst as cst

from torchlint.engine.rule import Rule
from torchlint.semantics.calls import argument, has_star
from torchlint.semantics.frequency import names_epoch_loop
from torchlint.semantics.tree import descendants, iterated_source

# Functions that join a sequence of tensors along an existing dimension: feeding one the
# result of its previous call grows a tensor. (`torch.stack` adds a dimension each time, so
# it cannot grow the same tensor in a loop.)
CONCATENATIONS = frozenset({"torch.cat", "torch.concat", "torch.concatenate", "torch.hstack", "torch.vstack"})


class CatInLoop(Rule):
    """## What it does
    Flags a tensor grown by concatenation inside a loop: `x = torch.cat([x, y])`, where the
    assigned name is also one of the tensors joined (`torch.cat`, `torch.concat`,
    `torch.concatenate`, `torch.hstack`, `torch.vstack`, however imported).

    ## Why is this slow?
    Tensors cannot grow in place: every concatenation allocates a new tensor and copies all
    of its inputs into it, including everything gathered so far. After n iterations the loop
    has copied about n²/2 pieces instead of n, and has allocated a new, ever larger buffer
    every iteration (on a GPU, one more kernel launch and allocation per step). Collecting the
    pieces in a Python list and concatenating once after the loop copies each piece once.

    To stay precise the rule is silent when the loop reads the growing tensor in any other
    way (`model(x)`, `len(x)`, `x.shape`, a `while` condition on it): autoregressive decoding
    and bounded buffers need the whole tensor every iteration. Checking or initialising it
    with `if x is None` does not count as a read. It is also silent when the loop assigns the
    name elsewhere (a reset or a truncation such as `x = x[-n:]`), when the name is the loop's
    own target, in loops over a literal list and in loops that run once per epoch.

    ## Example
    ```python
    embeddings = torch.empty(0, dim)
    for x in loader:
        embeddings = torch.cat([embeddings, model(x)])
    ```

    ## Use instead
    ```python
    pieces = []
    for x in loader:
        pieces.append(model(x))
    embeddings = torch.cat(pieces)
    ```

    ## Fix applicability
    None: the rewrite introduces a list, moves the concatenation after the loop and has to
    handle an empty list and the initial value, so it is left to the author.

    ## Measured precision
    preview. 0 TP, 4 FP (3 debatable) on the dev half. See docs/precision.md.
    """

    code = "TL107"
    impact = "medium"
    name = "cat-in-loop"
    preview = True  # measured precision below 0.90 (docs/precision.md)
    summary = "Tensor grown with `torch.cat` inside a loop (quadratic copying)"
    triggers = ("cat(", "concat", "stack(")
    bad_examples = (
        "import torch\nout = torch.empty(0)\nfor x in loader:\n    out = torch.cat([out, model(x)])\n",
        "from torch import cat\nfor step in range(n):\n    history = cat((history, loss.detach().view(1)), dim=0)\n",
        "import torch\nfeats = None\nfor x in loader:\n    y = model(x)\n    feats = y if feats is None else torch.cat([feats, y])\n",
    )
    good_examples = (
        "import torch\npieces = []\nfor x in loader:\n    pieces.append(model(x))\nout = torch.cat(pieces)\n",
        "import torch\nfor _ in range(n):\n    logits = model(idx)\n    idx = torch.cat([idx, logits.argmax(-1, keepdim=True)], dim=1)\n",
        "import torch\nfor x in loader:\n    out = torch.cat([x, extra])\n",
        "import numpy as np\nimport torch\nfor x in loader:\n    out = np.concatenate([out, x])\n",
        "import torch\nfor x in loader:\n    window = torch.cat([window, x])\n    window = window[-100:]\n",
        "import torch\nfor epoch in range(epochs):\n    history = torch.cat([history, evaluate(model)])\n",
    )

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.qualified_name(node.func) not in CONCATENATIONS or has_star(node, "*") or has_star(node, "**"):
            return
        sequence = argument(node, "tensors", 0)
        if sequence is None or not isinstance(sequence.value, (cst.List, cst.Tuple)):
            return
        assignment = self._assignment(node)
        if assignment is None or len(assignment.targets) != 1 or not isinstance(assignment.targets[0].target, cst.Name):
            return
        target = assignment.targets[0].target.value
        grown = [
            element.value
            for element in sequence.value.elements
            if isinstance(element, cst.Element) and isinstance(element.value, cst.Name) and element.value.value == target
        ]
        if not grown:
            return
        loops = self.ctx.enclosing_loops(node)
        loop = loops[0] if loops else None
        if not isinstance(loop, (cst.For, cst.While)) or not _repeats_many_times(loop):
            return
        allowed = {id(assignment.targets[0].target), *(id(name) for name in grown)}
        if not _only_accumulates(loop, target, allowed):
            return
        self.report(
            node,
            f"`{target}` grows by concatenation every iteration, copying everything gathered so far "
            "each time (quadratic in the number of iterations); collect the pieces in a list and "
            "concatenate once after the loop",
        )

    def _assignment(self, node: cst.Call) -> Optional[cst.Assign]:
        """The `x = <node>` or `x = y if x is None else <node>` statement around `node`."""
        parent = self.ctx.parent()
        if isinstance(parent, cst.Assign) and parent.value is node:
            return parent
        path = list(self.ctx.path_to(node))
        if len(path) < 2 or not isinstance(parent, cst.IfExp) or parent.test is node:
            return None
        outer = path[1][0]
        if isinstance(outer, cst.Assign) and outer.value is parent and len(outer.targets) == 1:
            target = outer.targets[0].target
            if isinstance(target, cst.Name) and _checks_none(parent.test, target.value):
                return outer
        return None



def _only_accumulates(loop: cst.CSTNode, target: str, allowed: Set[int]) -> bool:
    """Whether the loop uses `target` only to grow it (and to check or set it while None)."""
    assert isinstance(loop, (cst.For, cst.While))
    if isinstance(loop, cst.For) and any(
        isinstance(item, cst.Name) and item.value == target for item in descendants(loop.target)
    ):
        return False
    parts: List[cst.CSTNode] = [loop.body] + ([loop.test] if isinstance(loop, cst.While) else [])
    allowed = set(allowed)
    for part in parts:
        for item in descendants(part):
            if isinstance(item, cst.Comparison) and _checks_none(item, target):
                allowed.update(id(name) for name in descendants(item))
            elif isinstance(item, cst.If) and _checks_none(item.test, target):
                allowed.update(_initialisations(item, target))
    for part in parts:
        for item in descendants(part):
            if isinstance(item, cst.Name) and item.value == target and id(item) not in allowed:
                return False
    return True


def _checks_none(test: cst.BaseExpression, name: str) -> bool:
    """`name is None` or `name is not None`."""
    if not isinstance(test, cst.Comparison) or len(test.comparisons) != 1:
        return False
    comparison = test.comparisons[0]
    if not isinstance(comparison.operator, (cst.Is, cst.IsNot)):
        return False
    sides = (test.left, comparison.comparator)
    return any(isinstance(s, cst.Name) and s.value == name for s in sides) and any(
        isinstance(s, cst.Name) and s.value == "None" for s in sides
    )


def _initialisations(branch: cst.If, name: str) -> List[int]:
    """Ids of `name` targets assigned from values that do not read `name`, in the branch that
    runs while `name` is None (`if x is None: x = y`)."""
    test = branch.test
    assert isinstance(test, cst.Comparison)
    block = branch.body if isinstance(test.comparisons[0].operator, cst.Is) else branch.orelse
    if isinstance(block, cst.Else):
        block = block.body
    if block is None or isinstance(block, cst.If):
        return []
    found: List[int] = []
    for item in descendants(block):
        if isinstance(item, cst.Assign) and len(item.targets) == 1:
            target = item.targets[0].target
            reads = any(isinstance(n, cst.Name) and n.value == name for n in descendants(item.value))
            if isinstance(target, cst.Name) and target.value == name and not reads:
                found.append(id(target))
    return found


def _repeats_many_times(loop: cst.CSTNode) -> bool:
    """Not a loop over a literal list or once per epoch (a few iterations copy little)."""
    if names_epoch_loop(loop):
        return False
    if isinstance(loop, cst.For):
        iterated = iterated_source(loop.iter)
        return not isinstance(iterated, (cst.List, cst.Tuple, cst.Set, cst.Dict))
    return True
