"""Read-backs that wait for nothing: what one iteration of a loop queues on the device
between two reads.

A read-back (`.item()`, `.cpu()`, `.tolist()`) makes the host wait until the device has run
everything queued so far. A later read in the same iteration waits only for what was queued
after the first one: nothing, or a few small kernels (a mean, a comparison, an `argmax`) that
an idle device runs at once. Such a read costs a copy of a few bytes, not a stall of the
pipeline; the first read of the iteration is the one to move off the hot path.

The device has work again after a call that may queue it: a forward pass (a module, or any
callable the analysis cannot see into: `model(x)`, `criterion(out, y)`, a project
function), a backward pass, an optimizer step, a copy to the device, or a functional layer
(`F.conv2d`, a matrix product). Tensor methods, `torch` reductions and element-wise
functions, builtins and host-side calls (a list's `append`, a progress bar's
`set_postfix`, a logger) queue nothing that matters.

The earlier read is an explicit one (`.item()`, `.cpu()`, `.tolist()`, `.to("cpu")` of a value
not known to be on the host, or `torch.cuda.synchronize()`); the later one may be any read a
rule finds, explicit or implicit (`float(loss)`, an f-string of a tensor, a test of one).

The walk follows the iteration in evaluation order, once per loop: a read counts as the
waiting one only where it runs unconditionally (in a block that holds the later read, or in
a compound statement's header before its body); a branch, a nested loop or a comprehension
may queue work (which counts) but its reads may not run (which do not).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import Callable, Dict, FrozenSet, Sequence, Set

import libcst as cst

from torchlint.semantics.calls import method_call
from torchlint.semantics.facts import FileFacts
from torchlint.semantics.kinds import HOST_KINDS, Kind

# Tensor methods that queue at most small element-wise, reduction or view kernels.
SMALL_TENSOR_METHODS = frozenset(
    """abs add all any argmax argmin argsort bool ceil chunk clamp clone contiguous count_nonzero cumsum
    detach div double eq exp expand flatten float floor gather ge gt half index_select int isfinite isnan
    le log log_softmax long lt masked_fill masked_select max mean min mul ne neg nonzero norm numel numpy
    permute pow prod relu repeat reshape round sigmoid size softmax sort split sqrt squeeze std sub sum t
    tanh topk transpose type unsqueeze var view view_as""".split()
)
# Host-side methods: containers, progress bars, loggers, writers, strings.
HOST_METHODS = frozenset(
    """add_scalar add_scalars append debug error extend format get info items join keys log log_dict
    pop set_description set_postfix set_postfix_str values warning write""".split()
)
HOST_BUILTINS = frozenset(
    """abs all any bool dict enumerate float format getattr hasattr int isinstance len list max min
    print range repr round sorted str sum tuple zip""".split()
)
# `torch` functions that run a layer or a large product: device work that matters.
# What a host container or number holds: its methods queue nothing.
HOST_VALUES = frozenset({Kind.HOST_TENSOR, Kind.NDARRAY, Kind.NUMBER})
HEAVY_TORCH_PREFIXES = ("torch.nn.", "torch.autograd.", "torch.bmm", "torch.conv", "torch.einsum", "torch.matmul", "torch.mm")


@dataclass
class _Walk:
    """One pass over a loop body: the nodes evaluated while the device is idle."""

    is_read: Callable[[cst.Call], bool]
    queues: Callable[[cst.Call], bool]
    idle: Set[int] = field(default_factory=set)

    def block(self, statements: Sequence[cst.CSTNode], synced: bool) -> bool:
        for statement in statements:
            synced = self.statement(statement, synced)
        return synced

    def statement(self, node: cst.CSTNode, synced: bool) -> bool:
        """The state after running the statement `node`, entered in state `synced`."""
        if isinstance(node, cst.SimpleStatementLine):
            for small in node.body:
                synced = self.expression(small, synced, certain=True)
            return synced
        if isinstance(node, cst.If):
            synced = self.expression(node.test, synced, certain=True)
            taken = self.block(node.body.body, synced)
            if isinstance(node.orelse, cst.If):
                return taken and self.statement(node.orelse, synced)
            return taken and (self.block(node.orelse.body.body, synced) if node.orelse is not None else synced)
        if isinstance(node, cst.With):
            for item in node.items:
                synced = self.expression(item.item, synced, certain=True)
            return self.block(node.body.body, synced)
        if isinstance(node, (cst.For, cst.While)):
            synced = self.expression(node.iter if isinstance(node, cst.For) else node.test, synced, certain=True)
            # A later iteration starts after the previous one's work: only a read after the
            # body's own earlier read waits for nothing.
            return self.block(node.body.body, False) and synced
        if isinstance(node, cst.Try):
            after = self.block(node.body.body, synced)
            for handler in node.handlers:
                self.block(handler.body.body, False)
            if node.finalbody is not None:
                after = self.block(node.finalbody.body.body, after)
            return after and not node.handlers
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            return synced  # defined, not run
        return False  # `match` and others: not followed

    def expression(self, node: cst.CSTNode, synced: bool, certain: bool) -> bool:
        """The state after evaluating `node`: its parts first, in source order, then itself.
        A read in a part that may not run (`certain` false) waits, but is not waited for."""
        if isinstance(node, (cst.Lambda, cst.FunctionDef)):
            return synced
        if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
            self._parts(node, False, certain=False)  # repeated: its reads wait on their own
            return synced and not self._queues_inside(node)
        if isinstance(node, cst.IfExp):
            synced = self.expression(node.test, synced, certain)
            taken = self.expression(node.body, synced, certain=False)
            return self.expression(node.orelse, synced, certain=False) and taken
        if isinstance(node, cst.BooleanOperation):
            synced = self.expression(node.left, synced, certain)
            return self.expression(node.right, synced, certain=False) and synced
        synced = self._parts(node, synced, certain)
        if synced:
            self.idle.add(id(node))
        if isinstance(node, cst.Call):
            if self.is_read(node):
                return synced or certain
            if self.queues(node):
                return False
        return synced

    def _parts(self, node: cst.CSTNode, synced: bool, certain: bool) -> bool:
        for child in node.children:
            synced = self.expression(child, synced, certain)
        return synced

    def _queues_inside(self, node: cst.CSTNode) -> bool:
        stack = list(node.children)
        while stack:
            current = stack.pop()
            if isinstance(current, cst.Call) and not self.is_read(current) and self.queues(current):
                return True
            stack.extend(current.children)
        return False


# `_idle_nodes` of each loop of the files being checked, by the loop's id.
_IDLE: "weakref.WeakKeyDictionary[FileFacts, Dict[int, FrozenSet[int]]]" = weakref.WeakKeyDictionary()


def waits_for_nothing(ctx: FileFacts, loop: cst.CSTNode, read: cst.CSTNode) -> bool:
    """Whether `read`, a read-back in one iteration of `loop` (lexically inside it), runs after
    an earlier explicit read of the same iteration with no device work queued in between."""
    known = _IDLE.setdefault(ctx, {})
    if id(loop) not in known:
        known[id(loop)] = _idle_nodes(ctx, loop)
    return id(read) in known[id(loop)]


def _idle_nodes(ctx: FileFacts, loop: cst.CSTNode) -> FrozenSet[int]:
    if not isinstance(loop, (cst.For, cst.While)):
        return frozenset()
    walk = _Walk(lambda call: explicit_read(ctx, call), lambda call: queues_device_work(ctx, call))
    walk.block(loop.body.body, False)
    return frozenset(walk.idle)


def explicit_read(ctx: FileFacts, call: cst.Call) -> bool:
    """`.item()`, `.cpu()`, `.tolist()` or `.to("cpu")` of a value not known to be on the host
    (nor a module), or `torch.cuda.synchronize()`: the host waits for the device there."""
    found = method_call(call)
    if found is None or found[1] not in ("item", "cpu", "tolist", "to"):
        return ctx.qualified_name(call.func) == "torch.cuda.synchronize"
    receiver, method = found
    if method == "to":
        first = call.args[0].value if len(call.args) == 1 else None
        if not (isinstance(first, cst.SimpleString) and first.value.strip("\"'").startswith("cpu")):
            return False
    elif call.args:
        return False
    kind = ctx.kind_of(receiver)
    return kind not in HOST_KINDS and kind is not Kind.MODULE


def queues_device_work(ctx: FileFacts, call: cst.Call) -> bool:
    """Whether `call` may queue device work that matters (see the module's docstring)."""
    qualified = ctx.qualified_name(call.func)
    if qualified is not None and qualified.partition(".")[0] in ("numpy", "math", "time", "logging", "os", "json", "random"):
        return False
    if qualified is not None and qualified.startswith("torch.") and not qualified.startswith(HEAVY_TORCH_PREFIXES):
        return qualified.startswith("torch.optim.")
    if isinstance(call.func, cst.Name):
        return qualified is not None or call.func.value not in HOST_BUILTINS
    found = method_call(call)
    if found is None:
        return True
    receiver, method = found
    if method in ("cuda", "to", "backward", "step", "forward"):
        return True
    if method in HOST_METHODS or ctx.kind_of(receiver) in HOST_VALUES:
        return False
    return not (method in SMALL_TENSOR_METHODS and ctx.kind_of(call.func) is not Kind.MODULE)
