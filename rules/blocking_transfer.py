import os
from typing import Dict, FrozenSet, Iterator, List, Optional, Sequence, Set, Tuple

import libcst as cst

from torchlint.engine.findings import Applicability
from torchlint.engine.rule import NodeEdit, PendingFix, Rule
from torchlint.rules.dataloader_no_pin_memory import LoaderTracker, _names, device_moves, pins_memory
from torchlint.rules.dataloader_no_workers import DATALOADERS
from torchlint.semantics.calls import arguments_by_parameter, has_star, is_literal, keyword, method_call, positional, with_keyword
from torchlint.semantics.bindings import acts_on_keyword, import_bound_names, method_definitions, takes_keyword
from torchlint.semantics.escapes import element_aliases, view_aliases, viewed_name
from torchlint.semantics.facts import FileFacts
from torchlint.semantics.names import dotted_name
from torchlint.semantics.values import string_value
from torchlint.semantics.training import OTHER_LOOPS, body_nodes, called_function, drawn_from, is_loader_like, local_functions, repeated_with_training
from torchlint.semantics.loaders import engine_runs, hand_drawn, passes_elsewhere
from torchlint.semantics.passed_values import received_parameter
from torchlint.semantics.project import AUTO_PINNING_LOADERS, COLLATING_LOADERS, file_builds_unpinned_loader, project_function, pinned_argument, project_moves_without_non_blocking, project_pins_loaders
from torchlint.semantics.tree import descendants, descendants_of_type, iterated_parts, iterated_source, module_nodes, names_bound_by, nodes_of_type, per_module, scope_descendants

# A stand-in for a pinned loader of another module that has a `collate_fn`.
_CUSTOM_COLLATION = cst.Call(func=cst.Name("DataLoader"), args=[cst.Arg(keyword=cst.Name("collate_fn"), value=cst.Name("collate"))])
# A stand-in for a loader whose construction is not followed (`project_pins_loaders`).
_UNFOLLOWED = cst.Call(func=cst.Name("DataLoader"), args=[])
# `DataLoader(dataset, batch_size, shuffle, sampler, batch_sampler, num_workers, collate_fn, ...)`
COLLATE_FN_POSITION = 6
MAX_HELPER_DEPTH = 2
# Methods that change their receiver in place without a trailing underscore: `x.__iadd__(1)`.
IN_PLACE_DUNDERS = frozenset(f"__i{op}__" for op in "add sub mul truediv floordiv mod pow matmul and or xor lshift rshift".split()) | {"__setitem__"}
# Functions that write into their first argument without saying so by a trailing underscore:
# `operator`'s in-place forms (`operator.setitem(x, 0, v)`, `operator.iadd(x, 1)`) and
# NumPy's writers, which reach a batch through its `x.numpy()` view (`np.copyto(x.numpy(), 0)`).
FIRST_ARGUMENT_WRITERS = frozenset(f"i{op}" for op in "add sub mul truediv floordiv mod pow matmul and or xor lshift rshift concat".split()) | {
    "setitem", "delitem", "copyto", "put", "place", "putmask", "fill_diagonal", "put_along_axis"
}
# Methods of a NumPy array that change it in place, called on a batch's `x.numpy()` view.
NUMPY_IN_PLACE_METHODS = frozenset("fill sort put itemset setfield partition resize".split())
# Library callables that make objects whose `.to()` takes no `non_blocking`: torch's
# flex-attention `BlockMask` (`BlockMask.to(self, device)`), often handed along with a batch.
NO_NON_BLOCKING_MAKERS = frozenset(
    {
        "torch.nn.attention.flex_attention.create_block_mask",
        "torch.nn.attention.flex_attention.BlockMask",
        "torch.nn.attention.flex_attention.BlockMask.from_kv_blocks",
    }
)
BATCH_SIZE_POSITION = 1


class BlockingTransfer(Rule):
    """## What it does
    Flags `.to(device)` and `.cuda()` without `non_blocking=True` on a batch from a
    DataLoader created in the same file with `pin_memory=True` (also through a
    `**loader_args` dict literal, the CUDA branch of `{...} if use_cuda else {}`, a test
    that holds on CUDA runs: `pin_memory=torch.cuda.is_available()`, or a setting every
    configuration file of the project sets to `true`: `pin_memory=config["pin_memory"]`): the call is in the body
    of a `for` loop over that loader (in its own scope, or in a same-file function the loader
    is handed to), of a loop that draws its batches by hand (`x, y = next(it)` after `it =
    iter(loader)`), or of a step function an engine runs over it (`engine.train(h, loader,
    epochs, optimizer)`, see `semantics.loaders.engine_runs`), and moves the
    loop's target, an element of it, or a name bound to a part of it (`x.cuda()`,
    `batch["image"].to(device)`, `images = batch["image"]` then `images.to(device)`) while
    it still holds the batch: before the loop rebinds it to another value, and never when the
    loop changes it in place.
    A loop over a parameter of a function is checked too when a call in the project passes
    that parameter a loader that pins memory (built in the calling scope, or returned to it
    by a project function: `train_dataloader, test_dataloader = data_setup.create_dataloaders(
    ...)` then `engine.train(model, train_dataloader, ...)`; also one built with
    `pin_memory=pin_memory`, the builder's parameter, that the call passes `True`, a test
    that holds where CUDA runs (`pin_memory=True if device.type == "cuda" else False`), a name
    its script binds only to `True`, `PIN_MEMORY = True`, or leaves to a default of `True`:
    `project.FunctionFacts.pinned_by_parameter`), up to two calls away; also a
    loop over a name the function binds once to a wrapper of that parameter (`loader =
    tqdm.tqdm(train_loader)`). A loop over a loader whose construction is not followed (an
    attribute, `for batch in tqdm(self.train_loader):` in a trainer class that another module
    hands the loader to) is checked when every `DataLoader` the project builds outside test
    code (torch's or another library's, `torch_geometric.loader.DataLoader`) pins memory
    (`pin_memory=True` or `torch.cuda.is_available()`, none unknown); so, in such a project,
    is an ignite process function handed to `Engine(...)`, `def train_step(engine, batch):`,
    which runs for every batch of the loader the engine is run on (an evaluator's with
    training when the file's trainer runs the backward pass).
    A move inside a call (`x = Variable(x.cuda())`) moves the
    batch before the assignment rebinds it, and each branch of an `if` is followed on its
    own. A loop that hands its batch whole to a function of the file (`loss =
    self.train_step(batch)`, the loop not rebinding `batch`) moves it where that function
    moves the parameter that receives it (`batch[0].to(self.device)` in `train_step`).
    The batch's elements are the batch too: a nested loop over the batch moves it where it
    moves the elements it draws (`for mel in dvec_mels: mel = mel.cuda()`, the values of
    `for k, v in batch.items():`), and so does a lambda handed along with the batch to the
    function that applies it (`features = _nested_map(features, lambda x: x.to(device))`,
    `map(lambda t: t.cuda(), batch)`).

    ## Why is this slow?
    A blocking copy makes the Python thread wait until the batch has reached the device
    before it can queue the next kernel. From pinned memory the copy can instead run
    asynchronously: with `non_blocking=True` the transfer is queued on the current stream
    and Python goes on queueing the forward pass, which the stream runs after the copy. The
    loader already paid for pinning the memory; without `non_blocking=True` that buys only
    a faster copy, not an overlapped one.

    To stay precise the rule is silent:
    - when the loader does not pin memory as above, or is not a torch `DataLoader` assigned
      in this file, passed by the project's calls or of a project that pins all its loaders;
    - when the call already passes `non_blocking` (by keyword or position), or `*args`/
      `**kwargs`;
    - for dtype casts (`x.to(torch.float16)`) and moves to the CPU;
    - for values rebound in the loop before they are moved (`x = x.float()` makes a new,
      unpinned tensor), and for batches the loop changes in place on the host (`x.mul_(2)`,
      `x[0] = ...`, also through a view such as `flat = x.view(-1)` or through its elements
      or entries, `for t in batch: t.sub_(m)`, `[t.clamp_(0, 1) for t in batch]`), which an
      asynchronous copy could read half-written;
    - for moves inside nested functions and lambdas (a comprehension over the batch's
      elements or entries moves the batch: `[x.to(device) for x in batch]`,
      `{k: v.to(device) for k, v in batch.items()}`; a comprehension name that draws from
      anything else is not the batch, even when spelled as the loop's target; a lambda moves
      it only where a call is handed both, as above, and the lambda moves its own parameter);
    - in loops under an interval test (`if steps % validation_interval == 0:`), which run
      rarely.

    ## Example
    ```python
    loader = DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True)
    for x, y in loader:
        x, y = x.to(device), y.to(device)
    ```

    ## Use instead
    ```python
    loader = DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True)
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
    ```
    `torchlint.reference.CUDAPrefetcher` goes one step further and copies the next batch on
    a side stream while the current step computes.

    ## Fix applicability
    The fix adds `non_blocking=True`. Safe when the moved value is known to be a tensor: the
    loader uses the default collation (no `collate_fn`), and no `.to()`/`.cuda()` method
    defined in the file lacks a `non_blocking` parameter. The loader's batches are then in
    pinned memory, the loop does not modify them (in place, also through a function that
    writes its first argument, `torch.nn.init.zeros_(x)`, `F.relu(x, inplace=True)`, or
    `x.__iadd__(1)`, `torch.Tensor.__setitem__(x, 0, v)`, `operator.setitem(x, 0, v)` or
    `operator.iadd(x, 1)`, or an alias `(alias := x)`; through `out=`, through a chain
    that views their memory, `x.data.zero_()`, `x.numpy()[:] = 0`, `x.numpy().fill(0)`,
    `np.copyto(x.numpy(), 0)`, their storage, `x.untyped_storage().fill_(0)`, or a piece of a
    split, `x.chunk(2)[0].zero_()`, `x.unbind(0)[1].mul_(0)`, or in a function
    or lambda of the file it hands them to; else the rule is silent), and the copy is queued on the same stream
    as the kernels that use its result (no fix for a move inside a stream context, `with
    torch.cuda.stream(side):`, or in a file that sets the current stream: kernels of the
    default stream could read the copy before it is done), so they see the copied values: the result is the same
    tensor on the same device. A name rebound to its device copy (`x = x.to(device)`) no
    longer holds the batch: a later `x.to(cpu)` copies device memory back to the host, where
    `non_blocking=True` would let the host read it before the copy is done, so it is not
    reported. Unsafe when the move is in a function the loop hands the batch to (other calls
    may hand that function values that are no batches of a pinned loader) or in a lambda (the
    function it is handed to may apply it to other values), when the loader is not followed (in a project that pins
    all its loaders, above), when the loader has a `collate_fn` (or a `**kwargs` that may hold one), which may return objects whose own `.to()` does not take
    `non_blocking`, and when it has `batch_size=None`: it then hands over the dataset's items
    as they are, not collated. No fix when the file defines such a method, by `def`, by
    assignment in a class body (also under an `if` or `try` there) or at run time (a batch
    class with `def to(self, device)`, a `NamedTuple` batch with `to = _move`, which default
    collation keeps, `Batch.to = _move`, `setattr(Batch, "to", ...)`, `type("Batch", (),
    {"to": ...})` would raise `TypeError`), makes a class whose namespace may hold one
    (`types.new_class(..., exec_body)`, `dataclasses.make_dataclass(..., namespace={"to":
    ...})`, `exec(...)` in a class body), binds `to` to something whose signature it cannot
    read, binds attributes whose names it cannot read (`setattr(cls, *pair)`, `setattr(cls, name, ...)` with a
    variable name, a class body's `locals()[name] = ...`), or defines a `__getattr__` (by `def`
    or by assignment, `__getattr__ = ...`; it may answer `to`), or when a `.to()` of the
    file does more with its `non_blocking` (or the `**kwargs` that would get it) than pass
    it on under that name (`if non_blocking: x = x.pin_memory()`, which raises on a machine
    without an accelerator): batches may be its objects, which run differently with it; nor,
    for a loader with a `collate_fn`, `batch_size=None` or one not followed, when the file
    makes torch flex-attention block masks (`create_block_mask(...)`): a batch may hold one,
    and `BlockMask.to()` takes no `non_blocking`; nor when the file defines a
    `__torch_function__` or `__torch_dispatch__` (a tensor subclass, whose items default
    collation stacks into a batch of the same class, or a mode): its code runs inside the
    move and is handed `non_blocking=True`, which it may act on or record. The other modules of the project are read
    too: no fix when a class of one (outside test code) has a `.to()`/`.cuda()` without
    `non_blocking` or `**kwargs`, binds it by assignment or defines `__getattr__` (a
    `NamedTuple` batch of `data.py` that the loop of `train.py` moves). Library classes are
    taken to follow the signature of `Tensor.to` (a library `Mapping` batch, such as an old
    tokenizer output whose `to()` has no `non_blocking`, is the one case this misses).

    ## Measured precision
    Stable in loops that run with training (a loop that trains, the per-epoch validation
    loop; see `semantics.frequency.repeated_with_training`), silent in programs that never
    train; other loops are the preview variant. 1.00 on the dev half (3/0) and held out (8/0)
    of the real-code benchmark. See docs/precision.md.
    """

    code = "TL106"
    preview_variant = OTHER_LOOPS
    impact = "medium"
    name = "blocking-transfer"
    summary = "Batch from a pinned-memory DataLoader moved to the device without `non_blocking=True`"
    # `pin_memory`, or loops over a loader parameter that the project may pass a pinned one;
    # such a loop moves its batches, and its file may name no loader (`for x in self.dataset:`).
    triggers = ("pin_memory", "loader", ".to(", ".cuda(")
    fix_applicability = Applicability.SAFE
    unsafe_when = "when the loader has a `collate_fn`, whose batches may not accept `non_blocking`"
    bad_examples = (
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, num_workers=4, pin_memory=True)\n"
        "for x in loader:\n    out = model(x.cuda())\n",
        "import torch\nloader = torch.utils.data.DataLoader(ds, num_workers=4, pin_memory=True)\n"
        "for step, batch in enumerate(loader):\n    out = model(batch['x'].to(device))\n",
    )
    good_examples = (
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, num_workers=4, pin_memory=True)\n"
        "for x in loader:\n    out = model(x.cuda(non_blocking=True))\n",
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, num_workers=4)\n"
        "for x in loader:\n    out = model(x.cuda())\n",
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, num_workers=4, pin_memory=True)\n"
        "for x in loader:\n    x = x.float()\n    out = model(x.cuda())\n",
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, num_workers=4, pin_memory=True)\n"
        "for x in loader:\n    out = model(x.to(torch.float16))\n",
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, num_workers=4, pin_memory=True)\n"
        "for x in other_loader:\n    out = model(x.cuda())\n",
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.tracker = LoaderTracker(self)
        self.pinned: List[cst.Call] = []
        self.checked: Set[int] = set()
        self.reported: Set[int] = set()
        self.moves: Dict[Tuple[int, FrozenSet[str]], List[Tuple[cst.Call, str]]] = {}

    def visit_Assign(self, node: cst.Assign) -> None:
        self.tracker.note_assign(node)

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.qualified_name(node.func) in DATALOADERS | COLLATING_LOADERS | AUTO_PINNING_LOADERS and pins_memory(node, self.ctx):
            self.pinned.append(node)

    def visit_For(self, node: cst.For) -> None:
        for found in self.tracker.loops_over(node):
            if pins_memory(found.loader, self.ctx):
                self._check_loop(node, found.targets, found.loader)

    def leave_Module(self, node: cst.Module) -> None:
        """Loops over a pinned loader outside the scope that builds it: in the same-file
        functions it is handed to (`train(model, train_loader)`, under the parameter's name),
        or where a same-file builder returns it to (`loaders.passes_elsewhere`); and loops over
        a parameter of a function of this file that the project's calls pass a pinned loader
        (`project.pinned_argument`)."""
        for loader in self.pinned:
            for loop, _ in passes_elsewhere(self.ctx, loader):
                if isinstance(loop, cst.For) and len(iterated_parts(loop.iter, loop.target)) == 1:
                    self._check_loop(loop, _names(loop.target), loader)
            drawn: Dict[int, Tuple[cst.CSTNode, Set[str]]] = {}
            for draw in hand_drawn(self.ctx, loader):  # `x, y = next(it)` in a step loop
                drawn.setdefault(id(draw.loop), (draw.loop, set()))[1].update(draw.names)
            for loop, names in drawn.values():
                self._check_loop(loop, names, loader)
            for run in engine_runs(self.ctx, loader):  # the step an engine runs for every batch
                self._check_loop(run.step, {run.batch}, loader, with_training=run.trains or run.per_epoch)
        if not os.path.isfile(self.ctx.path):
            return
        for loop, qualified, parameter in self._loops_over_parameters():
            default = pinned_argument(self.ctx.path, qualified, parameter)
            if default is not None:
                self._check_loop(loop, _names(loop.target), None if default else _CUSTOM_COLLATION)
        # The file's own loaders count too, as the project's do (a notebook is not a project module).
        if not file_builds_unpinned_loader(self.ctx) and project_pins_loaders(self.ctx.path, self.ctx.options.test_paths):
            for loop in self._loops_over_unknown_loaders():
                self._check_loop(loop, _names(loop.target), _UNFOLLOWED)
            self._check_ignite_processes()

    def _check_ignite_processes(self) -> None:
        """The file's ignite process functions, `update(engine, batch)`, run for every batch
        of the loader an engine's `run()` is given, here one the analysis does not follow. An
        evaluator's runs with training when the file's trainer trains (it is run after epochs
        or every N iterations of it)."""
        steps = self.ctx.frequency.ignite_processes()
        trains = any(self.ctx.frequency.runs_backward(step) for step in steps)
        for step in steps:
            batch = [param.name.value for param in step.params.params][1:2]
            if id(step) not in self.checked and batch:
                self._check_loop(step, set(batch), _UNFOLLOWED, with_training=trains or None)

    def _loops_over_unknown_loaders(self) -> Iterator[cst.For]:
        """Loops of the file's functions over a loader whose construction is not followed (an
        attribute, `self.train_loader`, or a parameter of unknown calls, also through a wrapper,
        `tqdm(self.train_loader)`) that move its batches to a device without `non_blocking`,
        not already checked: their batches are pinned when every loader the project builds is
        (`project.project_pins_loaders`)."""
        for functions in self.ctx.frequency.local_functions().values():
            for function in functions:
                for loop in _own_loops(self.ctx.module, function):
                    if id(loop) in self.checked or len(iterated_parts(loop.iter, loop.target)) != 1:
                        continue
                    if is_loader_like(loop.iter) and not self.tracker.loops_over(loop) and self._blocking_moves(loop, _names(loop.target)):
                        yield loop

    def _loops_over_parameters(self) -> Iterator[Tuple[cst.For, str, str]]:
        """Loops of the file's functions over one of their parameters, or over an attribute
        that `__init__` stores from its parameter unchanged (`self.train_ds = train_ds`, see
        `passed_values.received_parameter`), whose items they move to a device without
        `non_blocking=True`, not already checked as loops over a loader; each with the callable
        (as the project's calls name it) and the parameter."""
        for functions in self.ctx.frequency.local_functions().values():
            for function in functions:
                parameters = {param.name.value for param in function.params.params}
                for loop in _own_loops(self.ctx.module, function):
                    if id(loop) in self.checked or len(iterated_parts(loop.iter, loop.target)) != 1:
                        continue
                    source = iterated_source(loop.iter)
                    if not isinstance(source, (cst.Name, cst.Attribute)) or not self._blocking_moves(loop, _names(loop.target)):
                        continue  # the loop body alone first: the function is walked only for loops that move batches
                    if isinstance(source, cst.Attribute):
                        received = received_parameter(self.ctx, source)
                        if received is not None:
                            yield loop, received[0], received[1].name.value
                        continue
                    parameter = _parameter_behind(function, source, parameters)
                    if parameter is not None:
                        klass = self.ctx.frequency.enclosing_class(function)
                        yield loop, f"{klass.name.value}.{function.name.value}" if klass is not None else function.name.value, parameter

    def _blocking_moves(self, loop: cst.CSTNode, targets: Set[str]) -> List[Tuple[cst.Call, str]]:
        """The moves of the loop's batch that block (no `non_blocking`, no `*`/`**`, one
        positional argument at most), each with the name of the function the loop hands the
        batch to that makes it ('' for a move in the loop itself); once per loop and targets
        (the loops over unknown loaders and parameters ask before they check)."""
        key = (id(loop), frozenset(targets))
        if key not in self.moves:
            moves = [(move, "") for move, _ in _moves_of_batches(self.ctx, loop.body, targets)] + self._handed_moves(loop, targets)
            self.moves[key] = [
                (move, helper) for move, helper in moves
                if not (has_star(move, "*") or has_star(move, "**") or keyword(move, "non_blocking") is not None or len(positional(move)) > 1)
            ]
        return self.moves[key]

    def _handed_moves(self, loop: cst.CSTNode, targets: Set[str]) -> List[Tuple[cst.Call, str]]:
        """Moves in the same-file functions the loop hands its batch to whole and unchanged
        (`loss = self.train_step(batch)`, then `batch[0].to(device)` there, or in a
        `self._parse_batch(batch)` that it calls in turn), up to `MAX_HELPER_DEPTH` calls deep:
        the parameter that receives it holds the batch. Not when the loop rebinds the batch's name."""
        if any(targets.intersection(names_bound_by(node)) for node in body_nodes(loop.body)):
            return []
        return self._moves_in_callees(loop.body, targets, MAX_HELPER_DEPTH)

    def _moves_in_callees(self, body: cst.CSTNode, names: Set[str], depth: int) -> List[Tuple[cst.Call, str]]:
        functions = self.ctx.frequency.local_functions()
        found: List[Tuple[cst.Call, str]] = []
        for node in body_nodes(body):
            for function in called_function(node, functions) if isinstance(node, cst.Call) and depth > 0 else ():
                received = {parameter for arg, parameter in arguments_by_parameter(node, function) if isinstance(arg, cst.Name) and arg.value in names}
                if received:
                    found.extend((move, function.name.value) for move, _ in _moves_of_batches(self.ctx, function.body, received))
                    if not any(received.intersection(names_bound_by(item)) for item in body_nodes(function.body)):
                        found.extend(self._moves_in_callees(function.body, received, depth - 1))
        return found

    def _check_loop(self, loop: cst.CSTNode, targets: Set[str], loader: Optional[cst.Call], with_training: Optional[bool] = None) -> None:
        """`loader`: the pinned loader the loop draws from, None for one of the project's that
        collates by default, `_CUSTOM_COLLATION` for one with a `collate_fn`. `with_training`:
        whether the loop (an engine's step function) runs with training, when known."""
        self.checked.add(id(loop))
        if self.ctx.inference_only:
            return  # an evaluation or inference program passes over its data once per run
        if self.ctx.execution(loop).interval_guard() is not None:
            return  # a pass every N steps (a periodic validation) is rare
        if with_training is None:
            with_training = repeated_with_training(self.ctx, loop)
        if self.withholds_preview_variant() and not with_training:
            return
        for move, helper in self._blocking_moves(loop, targets):
            if id(move) in self.reported:
                continue  # a helper that two loops hand their batches to
            self.reported.add(id(move))
            assert isinstance(move.func, cst.Attribute)
            method = move.func.attr.value
            fix = self._fix(move, loader)
            if helper and fix.applicability is Applicability.SAFE:
                reason = f"the batch is moved in `{helper}()`, which other calls may hand values that are no batches of a pinned loader"
                fix = self.unsafe_fix(reason, *fix.edits, message=fix.message)
            elif _in_lambda(self.ctx.module, move) and fix.applicability is Applicability.SAFE:
                reason = "the batch is moved in a lambda, which the function it is handed to may apply to values that are no tensors of the batch"
                fix = self.unsafe_fix(reason, *fix.edits, message=fix.message)
            self.report(
                move,
                f"`.{method}()` of a batch from a pinned-memory DataLoader blocks until the copy is done; "
                "pass `non_blocking=True` to overlap it with the step",
                fix=fix,
                start=move.func.attr,
            )

    def _fix(self, move: cst.Call, loader: Optional[cst.Call]) -> PendingFix:
        """`non_blocking=True`, when the moved value is known to be a tensor: the loader uses
        the default collation, and no `.to()`/`.cuda()` method of this file lacks the keyword."""
        assert isinstance(move.func, cst.Attribute)
        method = move.func.attr.value
        definitions = method_definitions(self.ctx, method)
        if None in definitions:
            return self.withheld(f"a class of this file binds `{method}` to a value whose signature is unknown")
        if not all(takes_keyword(function, "non_blocking") for function in definitions if function is not None):
            return self.withheld(f"a `.{method}()` method of this file does not take `non_blocking`")
        if any(acts_on_keyword(function, "non_blocking") for function in definitions if function is not None):
            return self.withheld(f"a `.{method}()` method of this file acts on `non_blocking` itself (batches may be its objects)")
        maker = _class_made_at_run_time(self.ctx.module, method)
        if maker is not None:
            return self.withheld(f"a class the file makes at run time (`{maker}`) may bind `{method}` to a method without `non_blocking`")
        if _overrides_torch_calls(self.ctx.module):
            return self.withheld(
                "a tensor subclass or mode of this file (`__torch_function__`/`__torch_dispatch__`) sees the move's keywords and may act on `non_blocking`"
            )
        if id(move) in _side_stream_calls(self.ctx.module):
            return self.withheld("the copy runs on a side stream: with `non_blocking=True`, kernels of other streams may read it before it is done")
        elsewhere = project_moves_without_non_blocking(self.ctx.path, self.ctx.options.test_paths) if os.path.isfile(self.ctx.path) else None
        if elsewhere is not None:
            return self.withheld(f"the project's class `{elsewhere}` has a `.{method}()` that may not take `non_blocking` (batches may be its objects)")
        edit = NodeEdit(move, with_keyword(move, "non_blocking", cst.Name("True")))
        message = "Copy asynchronously with `non_blocking=True`"
        if loader is None:
            return self.fix(edit, message=message)
        maker = self._makes_objects_without_non_blocking()
        if maker is not None and (loader is _UNFOLLOWED or not _collates_by_default(self.ctx, loader)):
            return self.withheld(f"the file makes objects with `{maker}` whose `.to()` has no `non_blocking`; batches not collated by default may hold them")
        if loader is _UNFOLLOWED:
            return self.unsafe_fix("the loader is not followed: its batches may be objects whose `.to()` has no `non_blocking`", edit, message=message)
        if _custom_collation(self.ctx, loader):
            return self.unsafe_fix("the loader's `collate_fn` may return objects whose `.to()` has no `non_blocking`", edit, message=message)
        if _batch_size_none(loader):
            return self.unsafe_fix(
                "with `batch_size=None` the loader hands over the dataset's items as they are, which may be objects whose `.to()` has no `non_blocking`",
                edit,
                message=message,
            )
        return self.fix(edit, message=message)

    def _makes_objects_without_non_blocking(self) -> Optional[str]:
        """The name of a library callable of `NO_NON_BLOCKING_MAKERS` the file calls, if any."""
        for call in nodes_of_type(self.ctx.module, (cst.Call,)):
            qualified = self.ctx.qualified_name(call.func)  # type: ignore[attr-defined]
            if qualified in NO_NON_BLOCKING_MAKERS:
                return qualified.rpartition(".")[2]
        return None


def _collates_by_default(ctx: FileFacts, loader: cst.Call) -> bool:
    """No `collate_fn` and a batch size other than `None` (which hands over the dataset's
    items as they are)."""
    return not _custom_collation(ctx, loader) and not _batch_size_none(loader)


def _custom_collation(ctx: FileFacts, loader: cst.Call) -> bool:
    """A `collate_fn` by keyword or position, a `**kwargs` that may hold one, or a project
    DataLoader subclass that hands its base one of its own (`FunctionFacts.collates_itself`), or
    a library one that collates its own objects (`project.COLLATING_LOADERS`)."""
    return (
        keyword(loader, "collate_fn") is not None or len(positional(loader)) > COLLATE_FN_POSITION or has_star(loader, "**")
        or ctx.qualified_name(loader.func) in COLLATING_LOADERS or getattr(project_function(ctx, loader.func), "collates_itself", False)
    )


def _batch_size_none(loader: cst.Call) -> bool:
    batch_size = keyword(loader, "batch_size") or (positional(loader)[BATCH_SIZE_POSITION] if len(positional(loader)) > BATCH_SIZE_POSITION else None)
    return batch_size is not None and is_literal(batch_size.value, "None")


def _parameter_behind(function: cst.FunctionDef, source: cst.BaseExpression, parameters: Set[str]) -> Optional[str]:
    """The parameter a loop of `function` iterates: `source` itself, or the one a name bound
    once in the function wraps (`loader = tqdm.tqdm(train_loader)`, then `for batch in
    loader:`)."""
    if not isinstance(source, cst.Name):
        return None
    if source.value in parameters:
        return source.value
    nodes = list(scope_descendants(function.body))
    bindings = [node for node in nodes if source.value in names_bound_by(node)]
    if len(bindings) != 1 or not isinstance(bindings[0], cst.AssignTarget) or not isinstance(bindings[0].target, cst.Name):
        return None
    value = next(node.value for node in nodes if isinstance(node, cst.Assign) and any(target is bindings[0] for target in node.targets))
    wrapped = iterated_source(value) if isinstance(value, cst.Call) else None
    return wrapped.value if isinstance(wrapped, cst.Name) and wrapped.value in parameters else None


def _moves_of_batches(ctx, body: cst.BaseSuite, names: Set[str]) -> List[Tuple[cst.Call, str]]:
    """Device moves of the batch `names` while they still hold the batch: in the loop's
    statements before anything rebinds them to another value (`imgs = imgs.to(device)` and
    then `imgs = encoder(imgs)`), never after a change in place on the host anywhere in the
    loop (the copy may still be reading the memory). The branches of an `if` are followed
    each on its own (`if cuda: x = Variable(x.cuda())` / `else: x = Variable(x)`), and the
    body of a `with` in order; within any other compound statement (a nested loop, a `try`),
    a rebinding anywhere in it counts for all its moves."""
    found: List[Tuple[cst.Call, str]] = []
    if _may_hold_moves(ctx.module, body):  # most loops move nothing: no walk of their statements
        _moves_in_block(ctx, body, _statements(body), set(names), found)
    return found


def _statements(suite: cst.BaseSuite) -> Sequence[cst.CSTNode]:
    return suite.body if isinstance(suite, cst.IndentedBlock) else (suite,)


def _moves_in_block(ctx, body: cst.BaseSuite, statements: Sequence[cst.CSTNode], live: Set[str], found: List[Tuple[cst.Call, str]]) -> Set[str]:
    """Adds to `found` the moves of `live` names in `statements` (of the loop `body`); returns
    the names that still hold the batch after them."""
    for statement in statements:
        if isinstance(statement, cst.If):
            orelse = statement.orelse
            branches = [_statements(statement.body)]
            branches.append(() if orelse is None else [orelse] if isinstance(orelse, cst.If) else _statements(orelse.body))
            outcomes = [_moves_in_block(ctx, body, branch, set(live), found) for branch in branches]
            live = outcomes[0] & outcomes[1]
            continue
        if isinstance(statement, cst.With):
            live = _moves_in_block(ctx, body, _statements(statement.body), live, found)
            continue
        rebound = _rebound(statement, live)
        if _may_hold_moves(ctx.module, statement):  # `device_moves` finds none elsewhere
            simple = isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite))
            unchanged = live - (_changed_in_place(ctx.module, body, frozenset(live)) - _replaced_by_move(body, live))
            moves = list(device_moves(ctx, statement, unchanged if simple else unchanged - rebound, comprehensions=True))
            moves += _mapped_moves(ctx, statement, unchanged if simple else unchanged - rebound)
            found.extend(moves)
            if isinstance(statement, cst.For):  # `for mel in dvec_mels: mel = mel.cuda()`
                _moves_in_block(ctx, statement.body, _statements(statement.body), _element_names(statement, unchanged), found)
            if simple:
                rebound |= _rebound_to_copies(statement, {name for _, name in moves})
        live = (live - rebound) | _parts_taken(statement, live - rebound)
    return live


def _element_names(loop: cst.For, names: Set[str]) -> Set[str]:
    """Names a nested loop binds to the elements or entries of one of `names` (`for mel in
    dvec_mels:`, `for i, t in enumerate(batch)`, `for k, v in batch.items()`): they hold the
    batch's tensors."""
    found: Set[str] = set()
    for source, target in iterated_parts(loop.iter, loop.target):
        entries = method_call(source)
        if entries is not None and entries[1] in ("items", "values") and isinstance(source, cst.Call) and not source.args:
            source = entries[0]
            if entries[1] == "items":  # the values of `for k, v in batch.items()`
                if not isinstance(target, cst.Tuple) or len(target.elements) != 2:
                    continue
                target = target.elements[1].value
        if isinstance(source, cst.Name) and source.value in names:
            found |= _names(target)
    return found


def _in_lambda(module: cst.Module, node: cst.CSTNode) -> bool:
    """Whether `node` is inside a lambda (`_mapped_moves`)."""
    parents = module_nodes(module).parents
    parent = parents.get(id(node))
    while parent is not None and not isinstance(parent, (cst.Lambda, cst.FunctionDef)):
        parent = parents.get(id(parent))
    return isinstance(parent, cst.Lambda)


def _mapped_moves(ctx, statement: cst.CSTNode, names: Set[str]) -> List[Tuple[cst.Call, str]]:
    """Moves in a lambda that a call of `statement` is handed together with one of `names`
    (`_nested_map(features, lambda x: x.to(device))`, `map(lambda t: t.cuda(), batch)`): the
    function applies it to the batch or its parts, so a move of the lambda's parameter moves
    the batch."""
    found: List[Tuple[cst.Call, str]] = []
    for call in scope_descendants(statement):
        if not isinstance(call, cst.Call) or not any(isinstance(arg.value, cst.Name) and arg.value.value in names for arg in call.args):
            continue
        for arg in call.args:
            if isinstance(arg.value, cst.Lambda):
                parameters = {param.name.value for param in arg.value.params.params}
                found += device_moves(ctx, arg.value.body, parameters, comprehensions=True)
    return found


def _rebound_to_copies(statement: cst.CSTNode, moved: Set[str]) -> Set[str]:
    """Names of `moved` that `statement` binds to their device copy (`x = x.to(device)`):
    they no longer hold the pinned batch, so a later move of one (`x.to(cpu)`, a copy back
    to the host, which `non_blocking=True` would let the host read before it is done) is not
    a move of the batch."""
    return {
        name
        for item in scope_descendants(statement)
        if isinstance(item, cst.Assign)
        for target in item.targets
        for name in _names(target.target) & moved
        if _moves(item.value, name)
    }


def _may_hold_moves(module: cst.Module, node: cst.CSTNode) -> bool:
    """Whether `device_moves` may find a move in `node`: it holds a `.to(...)` or `.cuda(...)`
    call (looked up in the module's index; a node of another tree is walked)."""
    if id(node) in _holding_moves(module):
        return True
    if id(node) in module_nodes(module).parents:
        return False
    return any(found is not None and found[1] in MOVE_METHODS for found in map(method_call, descendants(node)))


MOVE_METHODS = ("to", "cuda")


@per_module
def _holding_moves(module: cst.Module) -> FrozenSet[int]:
    """The ids of the nodes of `module` with a `.to(...)` or `.cuda(...)` call in their subtree
    (the call itself included): the only ones in which `device_moves` can find a move."""
    parents = module_nodes(module).parents
    holding: Set[int] = set()
    for call in nodes_of_type(module, (cst.Call,)):
        found = method_call(call)
        if found is None or found[1] not in MOVE_METHODS:
            continue
        node: Optional[cst.CSTNode] = call
        while node is not None and id(node) not in holding:
            holding.add(id(node))
            node = parents.get(id(node))
    return frozenset(holding)


def _parts_taken(statement: cst.CSTNode, names: Set[str]) -> Set[str]:
    """Names a simple statement binds to parts of a batch (`images, masks = batch["image"],
    batch["mask"]`, `x = batch.x`, `inputs, targets = batch`): they hold the loader's tensors
    as well."""
    taken: Set[str] = set()
    if not isinstance(statement, cst.SimpleStatementLine):
        return taken
    for item in statement.body:
        if not isinstance(item, cst.Assign) or len(item.targets) != 1:
            continue
        target, value = item.targets[0].target, item.value
        if isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, cst.Name) and value.value in names:
            taken |= _names(target)  # `inputs, targets = sample`: the batch unpacked
            continue
        pairs = (
            zip((e.value for e in target.elements), (e.value for e in value.elements))
            if isinstance(target, cst.Tuple) and isinstance(value, cst.Tuple) and len(target.elements) == len(value.elements)
            else [(target, value)]
        )
        for bound, part in pairs:
            if isinstance(bound, cst.Name) and isinstance(part, (cst.Subscript, cst.Attribute)) and isinstance(part.value, cst.Name) and part.value.value in names:
                taken.add(bound.value)
    return taken


def _own_loops(module: cst.Module, function: cst.FunctionDef) -> List[cst.For]:
    """The `for` loops of `scope_descendants(function.body)`, in that order (not those of
    nested functions and classes): from the module's index, without a walk of the body."""
    parents = module_nodes(module).parents
    found = []
    for loop in descendants_of_type(module, function.body, cst.For):
        node = parents.get(id(loop))
        while node is not None and node is not function.body and not isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            node = parents.get(id(node))
        if node is None:  # not a node of the module's index
            return [item for item in scope_descendants(function.body) if isinstance(item, cst.For)]
        if node is function.body:
            found.append(loop)
    return found


def _replaced_by_move(body: cst.BaseSuite, names: Set[str]) -> Set[str]:
    """Names of `names` that a statement at the top of the loop `body` rebinds to their own
    move (`image = image.cuda()`) before any statement of the body mentions them: from there
    on they hold the device copy, so what the body later writes through them (`image[:, :,
    y0:y1] = ...`, a view taken after the move) is not the host batch the copy reads."""
    replaced: Set[str] = set()
    mentioned: Set[str] = set()
    for statement in _statements(body):
        small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 else None
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
            name = small.targets[0].target.value
            if name in names and name not in mentioned and _moves(small.value, name):
                replaced.add(name)
        mentioned |= {node.value for node in descendants(statement) if isinstance(node, cst.Name)}
    return replaced


def _rebound(node: cst.CSTNode, names: Set[str]) -> Set[str]:
    """Names of `names` that `node` binds to something other than their moved value."""
    changed: Set[str] = set()
    for item in scope_descendants(node):
        if isinstance(item, cst.Assign) and drawn_from(item.value) is not None:
            continue  # `x, y = next(it)`: the batch drawn by hand
        if isinstance(item, cst.Assign):
            for target in item.targets:
                changed |= {name for name in _names(target.target) if not _moves(item.value, name)}
        elif isinstance(item, (cst.AnnAssign, cst.NamedExpr)) and not isinstance(item.target, cst.Subscript):
            changed |= _names(item.target)
        elif isinstance(item, (cst.For, cst.WithItem)):
            target = item.target if isinstance(item, cst.For) else (item.asname.name if item.asname else None)
            if target is not None:
                changed |= _names(target)
    return changed & names


@per_module
def _changed_in_place(module: cst.Module, body: cst.CSTNode, names: FrozenSet[str], depth: int = 0) -> Set[str]:
    """Names of `names` whose tensor the loop modifies in place on the host (`x.mul_(2)`,
    `x[0] = 0`, `x += 1`, `torch.clamp(x, 0, 1, out=x)`), also through a view of it
    (`flat = x.view(-1)` then `flat.mul_(2)`, see `semantics.escapes.view_aliases`) or an
    element or entry of it (`for t in batch: t.sub_(m)`, `escapes.element_aliases`), or
    hands to a function of the file that modifies the parameter it receives it as. Asked for
    each statement of a loop: the loop's writes are found once (`_written_in_place`)."""
    aliases = {**element_aliases(body, names), **view_aliases(body, names)}
    aliases.update({view: aliases[root] for view, root in view_aliases(body, set(aliases)).items() if view not in aliases})  # a view of an element
    changed = _written_in_place(module, body, depth)
    return {aliases.get(name, name) for name in changed & (names | set(aliases))}


@per_module
def _written_in_place(module: cst.Module, body: cst.CSTNode, depth: int) -> FrozenSet[str]:
    """The names (of any value) whose object `body` modifies in place, directly or through
    the file's functions it calls (`depth` levels deep so far)."""
    functions = _file_functions(module)
    changed: Set[str] = set()
    for node in body_nodes(body):  # comprehensions included: `[t.clamp_(0, 1) for t in batch]`
        if isinstance(node, cst.Call):
            changed |= {name for arg in node.args if arg.keyword is not None and arg.keyword.value == "out" for name in [viewed_name(arg.value)] if name}
            for function in called_function(node, functions) if depth < MAX_HELPER_DEPTH else ():
                passed = {parameter: arg.value for arg, parameter in arguments_by_parameter(node, function) if isinstance(arg, cst.Name)}
                changed |= {passed[p] for p in _changed_in_place(module, function.body, frozenset(passed), depth + 1)}
            for function in _file_lambdas(module).get(node.func.value, []) if isinstance(node.func, cst.Name) and depth < MAX_HELPER_DEPTH else ():
                # `zero_first = lambda t: t.scatter_(...)`, then `zero_first(x)`
                passed = {param.name.value: arg.value.value for param, arg in zip(function.params.params, node.args) if isinstance(arg.value, cst.Name) and arg.keyword is None and not arg.star}
                changed |= {passed[p] for p in _changed_in_place(module, function.body, frozenset(passed), depth + 1)}
        # through a chain that views the batch's memory: `x.numpy()[:] = 0`, `x.data.zero_()`
        if isinstance(node, cst.Assign):
            changed |= {name for target in node.targets if isinstance(target.target, cst.Subscript) for name in [viewed_name(target.target.value)] if name}
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)) and isinstance(node.target, cst.Subscript):
            changed |= {name for name in [viewed_name(node.target.value)] if name}
        elif isinstance(node, cst.AugAssign):
            changed |= _names(node.target)
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            method = node.func.attr.value
            base = viewed_name(node.func.value)
            if (method.endswith("_") and not method.startswith("_") or method in IN_PLACE_DUNDERS) and base is not None:
                changed.add(base)
            elif method in NUMPY_IN_PLACE_METHODS and base is not None and _through_numpy(node.func.value):
                changed.add(base)  # `x.numpy().fill(0)`
        if isinstance(node, cst.Call) and _writes_first_argument(node, import_bound_names(module)):
            changed |= {name for name in [viewed_name(node.args[0].value)] if name}
    return frozenset(changed)


def _writes_first_argument(call: cst.Call, imported: FrozenSet[str]) -> bool:
    """A function (a name, or an attribute of an imported module or class, not a method of a
    value such as `running.add_(x)`) that may change its first argument in place: one spelled
    with a trailing underscore (`torch.nn.init.zeros_(x)`, `torch.clamp_(x, 0)`,
    `torch.Tensor.mul_(x, 2)`), or one told `inplace=` anything but `False` (`F.relu(x,
    inplace=True)`)."""
    dotted = dotted_name(call.func) or ""
    if not call.args or call.args[0].keyword is not None or call.args[0].star or not (isinstance(call.func, cst.Name) or dotted.partition(".")[0] in imported):
        return False
    name = dotted.rpartition(".")[2]
    inplace = keyword(call, "inplace")
    return (
        name.endswith("_") and not name.startswith("__")
        or name in IN_PLACE_DUNDERS  # `torch.Tensor.__setitem__(x, 0, v)`
        or name in FIRST_ARGUMENT_WRITERS
        or (inplace is not None and not (isinstance(inplace.value, cst.Name) and inplace.value.value == "False"))
    )


def _through_numpy(expression: cst.BaseExpression) -> bool:
    """Whether a chain reaches its value through a `.numpy()` call (`x.numpy()`, `x.numpy()[0]`)."""
    return any(isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "numpy" for node in descendants(expression))


@per_module
def _class_made_at_run_time(module: cst.Module, method: str) -> Optional[str]:
    """How the file makes a class whose namespace may bind `method` where no binding of
    `semantics.bindings` sees it: `types.new_class(..., exec_body)` (the callback fills the
    namespace), `dataclasses.make_dataclass(..., namespace=...)` unless the namespace is a dict
    literal whose keys are other string literals, or `exec(...)` in a class body. None if none."""
    for node in nodes_of_type(module, (cst.Call,)):
        assert isinstance(node, cst.Call)
        name = (dotted_name(node.func) or "").rpartition(".")[2]
        unpacks = any(arg.star for arg in node.args)
        if name == "new_class" and (len(node.args) >= 4 or keyword(node, "exec_body") is not None or unpacks):
            return "types.new_class"
        namespace = keyword(node, "namespace") if name == "make_dataclass" else None
        if name == "make_dataclass" and (unpacks or (namespace is not None and not _keys_other_than(namespace.value, method))):
            return "make_dataclass"
    for klass in nodes_of_type(module, (cst.ClassDef,)):
        assert isinstance(klass, cst.ClassDef)
        if any(isinstance(node, cst.Call) and dotted_name(node.func) == "exec" for node in scope_descendants(klass.body)):
            return "exec"
    return None


def _keys_other_than(value: cst.BaseExpression, name: str) -> bool:
    """Whether `value` is a dict literal whose keys are string literals other than `name`."""
    return isinstance(value, cst.Dict) and all(
        isinstance(element, cst.DictElement) and string_value(element.key) not in (name, None) for element in value.elements
    )


@per_module
def _overrides_torch_calls(module: cst.Module) -> bool:
    """Whether the file defines `__torch_function__` or `__torch_dispatch__`: a tensor
    subclass (batches collated from its items keep the class) or a mode whose code runs
    inside `Tensor.to` and is handed its keywords, `non_blocking` included."""
    return any(
        isinstance(node, cst.FunctionDef) and node.name.value in ("__torch_function__", "__torch_dispatch__")
        for node in nodes_of_type(module, (cst.FunctionDef,))
    )


def _side_stream_calls(module: cst.Module) -> FrozenSet[int]:
    """Ids of the calls that run inside a `with` of a stream context (`torch.cuda.stream(s)`,
    `torch.cuda.StreamContext(s)`, a stream object `with side_stream:`), or every call when
    the file sets the current stream (`torch.cuda.set_stream`): a copy queued there is not
    ordered with the kernels of the default stream that use it."""
    if any(isinstance(call, cst.Call) and (dotted_name(call.func) or "").endswith("set_stream") for call in nodes_of_type(module, (cst.Call,))):
        return frozenset(id(call) for call in nodes_of_type(module, (cst.Call,)))
    found: Set[int] = set()
    for node in nodes_of_type(module, (cst.With,)):
        assert isinstance(node, cst.With)
        managers = [item.item.func if isinstance(item.item, cst.Call) else item.item for item in node.items]
        if any("stream" in (dotted_name(manager) or "").rpartition(".")[2].lower() for manager in managers):
            found |= {id(item) for item in descendants(node.body) if isinstance(item, cst.Call)}
    return frozenset(found)


_file_functions = per_module(local_functions)


@per_module
def _file_lambdas(module: cst.Module) -> Dict[str, List[cst.Lambda]]:
    """The lambdas the file assigns to plain names, by name."""
    found: Dict[str, List[cst.Lambda]] = {}
    for node in nodes_of_type(module, (cst.Assign,)):
        if isinstance(node, cst.Assign) and isinstance(node.value, cst.Lambda):
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    found.setdefault(target.target.value, []).append(node.value)
    return found


def _moves(value: cst.BaseExpression, name: str) -> bool:
    """Whether `value` moves `name` to a device before the assignment rebinds it: `x.to(...)`,
    `x.cuda(...)`, a tuple of values in which one moves `name` (`x, y = x.cuda(), y.cuda()`), or
    a call wrapping the move (`x = Variable(x.cuda())`)."""
    for item in descendants(value):
        if isinstance(item, cst.Call) and isinstance(item.func, cst.Attribute) and item.func.attr.value in ("to", "cuda"):
            receiver = item.func.value
            base = receiver.value if isinstance(receiver, cst.Subscript) else receiver
            if isinstance(base, cst.Name) and base.value == name:
                return True
    return False
