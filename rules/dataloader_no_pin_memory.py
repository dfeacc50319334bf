from dataclasses import dataclass
from functools import cached_property
from typing import Callable, Dict, Iterator, List, Optional, Set, Tuple

import libcst as cst

from torchlint.engine.findings import Applicability
from torchlint.engine.rule import NodeEdit, Rule
from torchlint.rules.dataloader_no_workers import PIN_MEMORY_POSITION, SPREAD_ON_EVERY_RUN
from torchlint.semantics.devices import named_like_device, same_place_source
from torchlint.semantics.calls import argument, arguments_by_parameter, has_star, is_literal, keyword, method_call, positional, with_keyword
from torchlint.semantics.config_files import configured_false, configured_true
from torchlint.semantics.tree import children, iterated_parts, iterated_source, nodes_of_type, per_module, scope_descendants
from torchlint.semantics.datasets import in_memory, items_moved_to_device
from torchlint.semantics.frequency import repeats
from torchlint.semantics.kinds import Kind
from torchlint.semantics.names import dotted_name
from torchlint.semantics.loaders import OTHER_LOADERS, Draw, engine_runs, fed_by_framework, hand_drawn, handed_to_a_move, moved_by_framework, loader_use, held_in_container, passes_elsewhere, passes_over, returned_alone, returned_to_epoch_loop, returned_to_training
from torchlint.semantics.passed_values import device_from_configuration, device_from_project_module, device_given_by_callers, received_spreads
from torchlint.semantics.host_programs import picks_only_the_cpu
from torchlint.semantics.project import AUTO_PINNING_LOADERS, CUDA, project_uses
from torchlint.semantics.training import NO_SUCH_KEYWORD, body_nodes, builds_dataloader, called_function, loader_factory, remote_program, takes_keyword, training_loops
from torchlint.semantics.values import string_value, true_on_cuda
from torchlint.semantics.keyword_dicts import spread_keywords

# Nodes whose bodies bind names of their own: a move inside them is not a move of the loop's batch.
LoaderKey = Tuple[int, str]


@dataclass
class LoaderLoop:
    """A `for` loop over a DataLoader created in this file, and the names its target binds."""

    loader: cst.Call
    loop: cst.For
    targets: Set[str]


class LoaderTracker:
    """Which names hold a torch DataLoader created in this file, in source order and per scope.

    `loader = DataLoader(...)` in a function, module or as `self.loader` in a class is
    tracked until the name is bound to something else; so is a name bound to a progress bar
    or other wrapper over it (`batch_iter = tqdm(loader)`). `loops_over(for_node)` finds the
    DataLoaders a loop iterates (through `enumerate`, `tqdm`, `zip`, ...).
    """

    def __init__(self, rule: Rule) -> None:
        self.ctx = rule.ctx
        self.loaders: Dict[LoaderKey, cst.Call] = {}

    def note_assign(self, node: cst.Assign) -> None:
        """Track `loader = DataLoader(...)`, and a name bound to a wrapper that iterates a
        tracked loader's batches as they are (`batch_iter = tqdm(loader, leave=False)`)."""
        value = node.value
        loader = value if isinstance(value, cst.Call) and builds_dataloader(self.ctx, value.func) else None
        source = iterated_source(value)
        if loader is None and source is not value:
            wrapped = self._key(source, binding=False)
            loader = self.loaders.get(wrapped) if wrapped is not None else None
        for target in node.targets:
            key = self._key(target.target, binding=True)
            if key is None:
                continue
            if loader is not None:
                self.loaders[key] = loader
            else:
                self.loaders.pop(key, None)

    def loops_over(self, node: cst.For) -> List[LoaderLoop]:
        """The DataLoaders of this file that the loop draws batches from, each with the names
        its batches are bound to (`zip(train_loader, aux_loader)` draws from both)."""
        found = []
        for iterated, target in iterated_parts(node.iter, node.target):
            source = iterated_source(iterated)
            if isinstance(source, cst.Call) and builds_dataloader(self.ctx, source.func):
                found.append(LoaderLoop(source, node, _names(target)))  # built in the loop's header
                continue
            key = self._key(source, binding=False)
            loader = self.loaders.get(key) if key is not None else None
            if loader is not None:
                found.append(LoaderLoop(loader, node, _names(target)))
        return found

    def _key(self, node: cst.BaseExpression, binding: bool) -> Optional[LoaderKey]:
        """(scope, name) for a plain name, (class, `self.name`) for an attribute of `self`."""
        return self.ctx.names.storage_key(node, binding, self.ctx.enclosing(cst.ClassDef))


def _moves_batches(ctx, loop: cst.CSTNode) -> bool:
    """Whether a `for` loop moves its items to a device, item after item (not one that
    returns with its first batch; a loop drawing by hand is `hand_drawn`'s)."""
    return isinstance(loop, cst.For) and repeats(loop, loop.body) and moves_batch(ctx, loop.body, _names(loop.target))


# How many calls deep a batch handed to same-file functions is followed (`loss_step(batch)`).
MAX_CALLEE_DEPTH = 2
# `DataLoader(dataset, batch_size, shuffle, sampler, batch_sampler, num_workers, collate_fn, ...)`
COLLATE_FN_POSITION = 6
# Bases of batch classes that pinning rebuilds as another object: a plain tuple subclass is
# remade by `type(batch)(items)`, an immutable `Mapping` or `Sequence` by `type(batch)(...)`
# or, when its constructor refuses that, as a plain dict or list.
REBUILT_BASES = frozenset({"tuple", "Mapping", "Sequence"})
REBUILT_BY_PINNING = (
    "batches that are not collated by default may be objects of a class of this file that pinning rebuilds "
    "(its own `pin_memory()`, a tuple, `Mapping` or `Sequence` subclass remade by its constructor or as a plain dict or list)"
)


def moves_batch(ctx, body: cst.CSTNode, names: Set[str], depth: int = 0) -> bool:
    """Whether `body` moves the batch `names` to a device (see `device_moves`), itself or in a
    same-file function it hands the batch to, under the parameter's name (`loss_step(batch,
    unet)` doing `batch["pixel_values"].to(unet.device)`)."""
    if next(device_moves(ctx, body, names, comprehensions=True), None) is not None:
        return True
    if depth >= MAX_CALLEE_DEPTH:
        return False
    names = _derived_names(body, names, ctx, body_nodes)
    functions = ctx.frequency.local_functions()
    for node in body_nodes(body):
        for function in called_function(node, functions) if isinstance(node, cst.Call) else ():
            handed = {parameter for arg, parameter in arguments_by_parameter(node, function) if isinstance(arg, cst.Name) and arg.value in names}
            if handed and moves_batch(ctx, function.body, handed, depth + 1):
                return True
    return False


def _lists_filled_on_device(ctx) -> Set[str]:
    """The names of the lists the file fills in a loop that moves values to a device
    (`cached.append(batch)` after `batch["latents"] = vae.encode(x.to(vae.device))`): a
    loader over one may get device tensors, which `pin_memory` cannot pin."""
    found: Set[str] = set()
    for loop in nodes_of_type(ctx.module, (cst.For, cst.While)):
        calls = [node for node in body_nodes(loop.body) if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)]
        appended = {name for call in calls if call.func.attr.value == "append" for name in [dotted_name(call.func.value)] if name}
        if appended - found and any(_moves_to_device(ctx, call) for call in calls):
            found |= appended
    return found


def _moves_to_device(ctx, call: cst.Call) -> bool:
    found = method_call(call)
    return found is not None and (found[1] == "cuda" or (found[1] == "to" and _to_device(ctx, call)))


def device_moves(ctx, body: cst.CSTNode, names: Set[str], comprehensions: bool = False) -> Iterator[Tuple[cst.Call, str]]:
    """`.cuda()` / `.to(<device>)` calls in `body` on one of `names` or an element of one
    (`x.cuda()`, `batch["image"].to(device)`), with the moved name. Nested scopes are skipped;
    with `comprehensions`, not comprehensions, whose elements drawn from a batch count as the
    batch (`tuple(t.to(device) for t in batch)`, see `_with_elements`)."""
    names = _derived_names(body, names, ctx, scope_descendants)
    walk = _with_elements(ctx, body, names) if comprehensions else ((node, names) for node in scope_descendants(body))
    for node, live in walk:
        found = method_call(node)
        if found is None or found[1] not in ("to", "cuda"):
            continue
        receiver, method = found
        base = same_place_source(receiver, ctx.qualified_name, ctx.kind_of)
        if not isinstance(base, cst.Name) or base.value not in live:
            continue
        assert isinstance(node, cst.Call)
        if method == "cuda" or _to_device(ctx, node):
            yield node, base.value


COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)


def _with_elements(ctx, body: cst.CSTNode, names: Set[str]) -> Iterator[Tuple[cst.CSTNode, Set[str]]]:
    """The nodes of `body` that run with it (`training.body_nodes`), each with the names that
    hold the batch there: inside a comprehension, a name its `for` binds holds an element or
    entry of the batch when it draws from one (`for t in batch`, `for k, v in batch.items()`),
    and shadows a batch name of the same spelling when it draws from anything else (`[x.to(device)
    for x in block_masks]` in a loop over `x`)."""
    stack: List[Tuple[cst.CSTNode, Set[str]]] = [(body, names)]
    while stack:
        current, live = stack.pop()
        yield current, live
        if current is not body and isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if not isinstance(current, COMPREHENSIONS):
            stack.extend((child, live) for child in children(current))
            continue
        inner = set(live)
        clause: Optional[cst.CompFor] = current.for_in
        while clause is not None:
            stack.append((clause.iter, set(inner)))  # evaluated where the earlier clauses' names hold
            base = same_place_source(_mapping_entries(clause.iter), ctx.qualified_name, ctx.kind_of)
            bound = _names(clause.target)
            inner = (inner - bound) | (bound if isinstance(base, cst.Name) and base.value in inner else set())
            stack.extend((condition.test, set(inner)) for condition in clause.ifs)
            clause = clause.inner_for_in
        results = [current.key, current.value] if isinstance(current, cst.DictComp) else [current.elt]
        stack.extend((result, inner) for result in results)


def _derived_names(body: cst.CSTNode, names: Set[str], ctx, walk: Callable[[cst.CSTNode], Iterator[cst.CSTNode]]) -> Set[str]:
    """`names` and the names the loop body binds from them: `img, label = data`,
    `img = img.view(b, -1)`, `x = batch["x"]` (see `devices.same_place_source`), and the
    elements a comprehension `walk` enters draws from them (`for t in batch`)."""
    found = set(names)
    bindings = [node for node in walk(body) if isinstance(node, (cst.Assign, cst.CompFor))]
    for _ in range(2):  # a chain of two bindings (`img, _ = data; img = img.view(...)`)
        for node in bindings:
            value = node.value if isinstance(node, cst.Assign) else _mapping_entries(node.iter)
            targets = [target.target for target in node.targets] if isinstance(node, cst.Assign) else [node.target]
            for target, part in (pair for target in targets for pair in _paired(target, value)):
                base = same_place_source(part, ctx.qualified_name, ctx.kind_of)
                if isinstance(base, cst.Name) and base.value in found:
                    found |= _names(target)
    return found


def _paired(target: cst.BaseExpression, value: cst.BaseExpression) -> List[Tuple[cst.BaseExpression, cst.BaseExpression]]:
    """Each target with the value it gets: element by element for a tuple given a tuple of
    the same length (`inputs, labels = data["x"], data["y"]`), else the target with the value."""
    if isinstance(target, (cst.Tuple, cst.List)) and isinstance(value, (cst.Tuple, cst.List)) and len(target.elements) == len(value.elements):
        if not any(isinstance(element, (cst.StarredElement,)) for element in (*target.elements, *value.elements)):
            return [(left.value, right.value) for left, right in zip(target.elements, value.elements)]
    return [(target, value)]


def _mapping_entries(iterated: cst.BaseExpression) -> cst.BaseExpression:
    """The mapping a comprehension walks the entries of (`batch` of `batch.items()` or
    `batch.values()`): its values are the batch's tensors; else `iterated` itself."""
    found = method_call(iterated)
    return found[0] if found is not None and found[1] in ("items", "values") and not iterated.args else iterated  # type: ignore[union-attr]


def _moved_draw(ctx, draw: Draw) -> bool:
    """Whether a batch drawn by hand is moved to a device as it is drawn (`next(it).cuda()`)."""
    move = draw.moved
    if move is None or not isinstance(move.func, cst.Attribute):
        return False
    return move.func.attr.value == "cuda" or _to_device(ctx, move)


def _to_device(ctx, node: cst.Call) -> bool:
    """`.to(device)`, `.to("cuda")`, `.to(device=...)`: a move to a device, not a dtype cast or to the CPU."""
    args = positional(node)
    target = keyword(node, "device") or (args[0] if args else None)
    if target is None:
        return False
    literal = string_value(target.value)
    if literal is not None:
        return literal.split(":")[0] not in ("cpu", "meta")
    return ctx.kind_of(target.value) is Kind.DEVICE or named_like_device(target.value)


def _names(target: cst.BaseExpression) -> Set[str]:
    if isinstance(target, cst.Name):
        return {target.value}
    if isinstance(target, (cst.Tuple, cst.List)):
        return {name for element in target.elements for name in _names(element.value)}
    if isinstance(target, cst.StarredElement):
        return _names(target.value)
    return set()


def pins_memory(call: cst.Call, ctx=None) -> bool:
    """Whether the DataLoader call passes `pin_memory=True` (by keyword or position, or, given
    the file's context, in a `**loader_args` whose only assignment in the file is a dict
    literal, a choice of two by device, or a dict its scope builds before the call: see
    `keyword_dicts.spread_keywords`); a pinning asked
    only on CUDA runs (`pin_memory=torch.cuda.is_available()`) pins where a copy costs; so does
    a setting that every configuration file of the project sets to `true`
    (`pin_memory=config["pin_memory"]`, `semantics.config_files.configured_true`)."""
    pinned = argument(call, "pin_memory", PIN_MEMORY_POSITION)
    if pinned is not None:
        return (
            is_literal(pinned.value, "True")
            or true_on_cuda(pinned.value, ctx.module if ctx is not None else None) is True  # `pin_memory=use_cuda`
            or (ctx is not None and configured_true(ctx, pinned.value))
        )
    if ctx is not None and ctx.qualified_name(call.func) in AUTO_PINNING_LOADERS:
        return True  # `idist.auto_dataloader(ds, batch_size=64)` pins on CUDA
    keywords = spread_keywords(ctx.module, ctx.names, call) if ctx is not None and has_star(call, "**") else None
    return keywords is not None and "pin_memory" in keywords and is_literal(keywords["pin_memory"], "True")


class DataloaderNoPinMemory(Rule):
    """## What it does
    Flags a `torch.utils.data.DataLoader` created without `pin_memory=True` (or with
    `pin_memory=False`) whose batches the same file moves to CUDA: the file mentions CUDA,
    and a `for` loop over the loader (in its own scope, also through a progress bar bound to
    a name first, `batch_iter = tqdm(loader)`, or in a same-file function it is
    handed to, `train(model, train_loader)`) calls `.cuda()` or `.to(<device>)` on the
    loop's target or an element of it (`x.cuda()`, `batch["image"].to(device)`); or a
    function or class of another project module it is handed to does, in a program that
    uses CUDA (`self.trainer.train(train_loader)` with the device picked by the entry script). Silent in
    programs on the distributed RPC framework, whose remote round trips dominate each step.
    A project class that subclasses `DataLoader` (directly or through another project
    class) and takes its options as they are (no `__init__`, one that forwards `*args, **kwargs`, or one that keeps
    DataLoader's positional parameters, hands each on to `super().__init__` by name or at DataLoader's position (the
    dataset, first, under any name) with its `**kwargs`, gives no option a default other than DataLoader's, fixes none itself (a `collate_fn` of its own is
    allowed) and sets none on `self`), and PyTorch Geometric's `DataLoader`, are DataLoaders too (`semantics.training.builds_dataloader`); one with a signature of
    its own is not, since its arguments may mean something else: there the loader is built
    by its `super().__init__(...)`, which is checked with the options it passes
    (`**self.init_kwargs` read from the dict `__init__` assigns; see
    `semantics.training.subclass_init`), and each instance the project builds by name is
    that loader.

    ## Why is this slow?
    The GPU can only copy from page-locked (pinned) host memory. A batch in ordinary pageable
    memory is first copied by the driver into a pinned staging buffer and only then sent to
    the device, and the transfer cannot overlap with computation. With `pin_memory=True` the
    loader's workers put each batch in pinned memory as it is produced, so the copy is a
    single direct DMA transfer and, with `non_blocking=True`, runs asynchronously while the
    GPU computes.

    To stay precise the rule is silent when `pin_memory` is given as anything but the
    literal `False` or a setting that every configuration file of the project sets to
    `false` (`pin_memory=cfg.data.pin_memory`, `semantics.config_files`; reported without a
    fix), when `*args`/`**kwargs` may supply it (a dict read as for TL201:
    `semantics.keyword_dicts.spread_keywords`, the CUDA branch of a choice by device; no fix
    then), for a `DataLoader` that is not
    torch's, in files that never mention CUDA (or `torch.accelerator`) and build no device from
    a setting of their configuration (`torch.device(hp.device)`, not an option that defaults to
    the CPU: `semantics.passed_values.device_from_configuration`; nor take it as a parameter
    that a call of the project passes a device other than the CPU, in a program on CUDA:
    `semantics.passed_values.device_given_by_callers`; nor move to a device a project module
    of a program on CUDA picks, `x.to(config.DEVICE)`:
    `semantics.passed_values.device_from_project_module`), for loaders over a dataset whose
    `__getitem__` moves each item to the device (`audio.to(self.device)`: its batches are
    device tensors already, which cannot be pinned; `semantics.datasets.items_moved_to_device`), for loaders a
    Lightning trainer feeds in a project that trains on the CPU (it pins a Lightning release
    before 2.0, whose trainers default to the CPU, and builds every trainer without a device
    option: `semantics.trainers`), and for loaders whose
    batches are not moved
    to a device in a loop over the loader in the same scope or a same-file function it is
    passed to, itself or in a same-file function it hands the batch to (`loss_step(batch,
    unet)`). A loop that draws the batches by hand counts as a loop over the loader (`x, y =
    next(it)` after `it = iter(loader)`, `next(iter(loader))`, or after `loader =
    sample_data(loader)` where a generator of the file or of another project module yields
    the batches of its loop over the loader, also with the loader built in that call,
    `data = cycle(DataLoader(...))`; see `semantics.loaders.hand_drawn`), and a batch
    moved as it is drawn (`next(it).to(device)`) is moved. A loader that a builder module's function returns alone (`return
    DataLoader(...)`) to a project module that trains, in a program that uses CUDA, is
    reported in the builder: its caller moves the batches; one of several returned together
    (`return train_loader, test_loader`, or a list the builder appends them to) is not, as
    the caller may never train on it, unless the caller moves its batches every epoch
    (`semantics.loaders.returned_to_epoch_loop`); the caller may be reached through
    wrappers that return the builder's result as they get it (`data_set, data_loader =
    data_provider(args, flag)`, then `return data_set, data_loader` in an `Exp._get_data`
    method that the training method calls; `project.result_sites`), to an instance that keeps
    it for its training loop (`self.train_loader = self.get_train_loader(config)`;
    `semantics.stored_results`), or through the package
    that re-exports the builder (`from .utils import *` in its `__init__`, then
    `d2l.load_data_fashion_mnist(...)` in a notebook). A builder in a module that trains
    itself counts only where such a caller moves the batches every epoch (handing them to
    that module's own `train_ch5(net, train_iter, test_iter, ...)`, say). Loaders held in an
    assigned dict or list (`data_loaders = {x: DataLoader(...) for x in phases}`) are followed
    through their elements (`for x, y in data_loaders[phase]:`, `train_epoch(model,
    data_loaders["train"])`). A builder's `**kwargs` is read from the
    keys it sets (`kwargs.setdefault(...)`) and those its callers in the project pass by
    name (`semantics.passed_values.received_spreads`). Batches are also moved where code of another kind moves them (see
    `semantics.loaders`): a function or class of another project module the loader is
    handed to (`Trainer(model, train_loader)` storing it in `__init__` and moving each batch
    in its epoch loop, maybe over a `with` statement's wrapper: `with tqdm(it) as pbar:` after
    `it = iter(loader)`), the step function of an ignite `Engine` that runs over it, Lightning
    (`trainer.fit(model, train_loader)`, also of a trainer a project function builds in a
    project that imports Lightning, `model, trainer = build_from_yaml(path)`, or through a
    project function that hands its loader parameters on to `fit`,
    `FunctionFacts.fitted_parameters`; or a project `LightningModule` built with the loader
    that stores it in `__init__` and returns it from `train_dataloader()`/`val_dataloader()`,
    when that module is handed to a trainer's `fit`; not a trainer with `fast_dev_run=True`,
    which runs a batch or two, nor a `val_dataloader()` in a project whose modules define
    `training_step` but whose code never names `validation_step`, without which Lightning runs
    no validation loop), Accelerate's `prepare` and Fabric's
    `setup_dataloaders`; a comprehension over a batch moves it too (`tuple(t.to(device) for t
    in batch)`). Moves this file cannot see are not assumed for a loader over tensors already
    in memory (`semantics.datasets.in_memory`: made-up demo data, rows of a table, token ids
    tokenised in `__init__`), whose small batches gain nothing measurable from pinning
    (round 20 measured the alternative: the loaders it added were mostly of such batches).

    ## Example
    ```python
    loader = DataLoader(dataset, batch_size=64, num_workers=4)
    for x, y in loader:
        x, y = x.cuda(), y.cuda()
    ```

    ## Use instead
    ```python
    loader = DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True)
    for x, y in loader:
        x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
    ```

    ## Fix applicability
    Unsafe: pinned memory is page-locked and cannot be swapped out; a large batch size,
    many workers and a deep `prefetch_factor` can pin enough memory to starve the host.
    Pinning copies every batch into page-locked memory, so a batch is no longer the
    dataset's own tensor where it was (`batch_size=None` over a dataset that returns views
    of a tensor it holds, or a `collate_fn` that returns what it gets): an in-place change
    of the batch in the loop (`x.sub_(mean)`) no longer reaches the dataset, and later
    epochs see other values. Pinning also rebuilds what is not a tensor: a named tuple by its
    class, a plain `tuple` subclass by `type(batch)(items)`, an immutable `Mapping` or
    `Sequence` by its constructor or, when that refuses the items, as a plain dict or list,
    and an object with its own `pin_memory()` becomes what that returns; so no fix for a
    loader with a `collate_fn` or `batch_size=None` in a file that defines such a class (a
    `Batch(tuple)` with a `__new__(cls, x, y)` would raise, a frozen mapping would lose its
    methods). The fix sets `pin_memory=True`; next to a `**kwargs` dict only
    when the dict is empty on every run: not when it is read on the CUDA branch of a choice or
    test by device (`{} if use_cuda else {"pin_memory": False}` would repeat the keyword on
    the CPU, a `TypeError`). No fix for a project `DataLoader` subclass whose `__init__` (its
    own or a base's) takes neither `pin_memory` nor `**kwargs` (`def __init__(self, dataset,
    batch_size)`): the added keyword would raise `TypeError`.

    ## Measured precision
    Stable for loaders that a loop running with training iterates in the same file (directly
    or through a same-file function it is passed to): a loop that trains or the per-epoch
    validation loop (see `semantics.loaders.loader_use`): 1.00 on the dev half
    (10/0) and 1.00 held out (29/0). Other loaders (test loaders used once after training) are
    the preview variant, reported only with `--preview`: no finding dev, 0.06 held out
    (1/15). See docs/precision.md.
    """

    code = "TL202"
    impact = "medium"
    name = "dataloader-no-pin-memory"
    preview_variant = OTHER_LOADERS
    summary = "DataLoader whose batches are moved to CUDA does not pin memory (`pin_memory=True`)"
    # `DataLoader`, a project subclass of it (`AudioDataLoader`, `BucketLoader`), or a loader
    # factory (`dataset.to_dataloader(...)`, see `semantics.training.loader_factory`).
    triggers = ("Loader", "loader(")
    fix_applicability = Applicability.UNSAFE
    bad_examples = (
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, num_workers=4)\n"
        "for x, y in loader:\n    out = model(x.cuda())\n",
        "import torch\nloader = torch.utils.data.DataLoader(ds, num_workers=4, pin_memory=False)\n"
        "for i, batch in enumerate(loader):\n    out = model(batch['x'].to('cuda'))\n",
    )
    good_examples = (
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, num_workers=4, pin_memory=True)\n"
        "for x, y in loader:\n    out = model(x.cuda())\n",
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, num_workers=4)\n"
        "for x, y in loader:\n    out = model(x.to(device))\n",
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, num_workers=4, **kw)\n"
        "for x, y in loader:\n    out = model(x.cuda())\n",
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, num_workers=4)\n"
        "for x, y in loader:\n    out = model(x.to(torch.float16))\n    model.cuda()\n",
        "import torch\nfrom mylib import DataLoader\nloader = DataLoader(ds)\nfor x in loader:\n    x.cuda()\n",
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.tracker = LoaderTracker(self)
        self.moved: List[cst.Call] = []
        self.created: List[cst.Call] = []

    def visit_Assign(self, node: cst.Assign) -> None:
        self.tracker.note_assign(node)

    def visit_Call(self, node: cst.Call) -> None:
        if builds_dataloader(self.ctx, node.func):
            self.created.append(node)

    def visit_For(self, node: cst.For) -> None:
        if not self._on_accelerator:
            return
        for found in self.tracker.loops_over(node):
            if any(found.loader is seen for seen in self.moved):
                continue
            if repeats(node, node.body) and moves_batch(self.ctx, node.body, found.targets):
                self.moved.append(found.loader)

    @cached_property
    def _on_accelerator(self) -> bool:
        """Whether the file's code runs on CUDA: it mentions CUDA, builds its device from a
        setting of its configuration (`passed_values.device_from_configuration`), moves values
        to a device a project module of a CUDA program picks (`x.to(config.DEVICE)`;
        `passed_values.device_from_project_module`), or takes it
        from callers that pass one other than the CPU in a program on CUDA
        (`passed_values.device_given_by_callers`)."""
        if self.ctx.uses_cuda or device_from_configuration(self.ctx) or device_from_project_module(self.ctx):
            return True
        return project_uses(self.ctx, CUDA) and device_given_by_callers(self.ctx)

    @cached_property
    def _filled_on_device(self) -> Set[str]:
        return _lists_filled_on_device(self.ctx)

    def _moved_where_handed_on(self, call: cst.Call) -> bool:
        """Whether a same-file function the loader is handed to (`train(model, loader)`), a
        function or class of another project module it is handed to (`Trainer(model,
        train_loader)`, `loaders.handed_to_a_move`), or the step function of an ignite engine
        that runs over it (`loaders.engine_runs`), moves the batches of its loop over it to the
        device, and no loop in its own scope did; for a loader held in a dict or list, which the
        tracker does not follow, any loop over it (`for x in tqdm(loaders[phase])`)."""
        if any(call is seen for seen in self.moved):
            return False
        if any(moves_batch(self.ctx, run.step.body, {run.batch}) for run in engine_runs(self.ctx, call)):
            return True  # an ignite engine's step moves each batch it is handed
        if handed_to_a_move(self.ctx, call):
            return True  # a function or class of another module moves the batches
        if any(_moved_draw(self.ctx, draw) or moves_batch(self.ctx, draw.loop.body, set(draw.names)) for draw in hand_drawn(self.ctx, call)):
            return True  # batches drawn by hand with `next()` and moved
        passes = passes_over(self.ctx, call) if held_in_container(self.ctx, call) else passes_elsewhere(self.ctx, call)
        return any(_moves_batches(self.ctx, loop) for loop, _ in passes)

    def _moved_elsewhere(self, call: cst.Call) -> bool:
        """A loader that code this file cannot see moves to the accelerator: a framework's
        trainer it is fed to, a framework object that moves its batches (Accelerate's
        `prepare`, Fabric's `setup_dataloaders`), or the training module of a CUDA program that a builder module's
        function returns it to, alone (`train_loader = build_loader(cfg)`, then `x.cuda()`
        every batch), or among others to a scope that moves its batches every epoch
        (`loaders.returned_to_epoch_loop`); not
        one over tensors already in memory (made-up demo data, tabular rows, token ids), whose
        small batches gain nothing measurable from pinning."""
        dataset = argument(call, "dataset", 0)
        if dataset is not None and in_memory(self.ctx, dataset.value):
            return False
        if fed_by_framework(self.ctx, call) or moved_by_framework(self.ctx, call):
            return True
        if passes_over(self.ctx, call):
            return False  # used here
        if training_loops(self.ctx):
            return returned_to_epoch_loop(self.ctx, call)  # a builder beside the training code: only where a caller moves its batches
        if returned_alone(self.ctx, call) and project_uses(self.ctx, CUDA) and returned_to_training(self.ctx, call):
            return True
        return returned_to_epoch_loop(self.ctx, call)  # one of several: only where the caller moves its batches

    def leave_Module(self, node: cst.Module) -> None:
        if remote_program(self.ctx):
            return
        if self._on_accelerator:
            self.moved.extend(call for call in self.created if self._moved_where_handed_on(call))
        elif project_uses(self.ctx, CUDA) and not picks_only_the_cpu(self.ctx.module, self.ctx.text):
            # the device is another module's, and so may be the move (not the CPU this file picks)
            self.moved.extend(call for call in self.created if handed_to_a_move(self.ctx, call))
        self.moved.extend(call for call in self.created if not any(call is seen for seen in self.moved) and self._moved_elsewhere(call))
        for call in self.moved:
            unpacked = spread_keywords(self.ctx.module, self.ctx.names, call) if has_star(call, "**") or has_star(call, "*") else {}
            # A dict the file builds must hold no keyword on any run for the fix to add one.
            on_every_run = unpacked is None or not unpacked and spread_keywords(self.ctx.module, self.ctx.names, call, every_run=True) == {}
            if unpacked is None:
                unpacked = received_spreads(self.ctx, call)  # a builder's `**kwargs`, from its callers
            if unpacked is None:
                continue  # `**kwargs` that may pin memory
            dataset = argument(call, "dataset", 0)
            if dataset is not None and (
                (isinstance(dataset.value, cst.Name) and dataset.value.value in self._filled_on_device)
                or items_moved_to_device(self.ctx, dataset.value)
            ):
                continue  # device tensors cannot be pinned
            if self.withholds_preview_variant() and loader_use(self.ctx, call) != "train":
                continue
            pinned = argument(call, "pin_memory", PIN_MEMORY_POSITION)
            configured = pinned is not None and not is_literal(pinned.value, "False") and configured_false(self.ctx, pinned.value)
            if pinned is not None and not is_literal(pinned.value, "False") and not configured:
                continue
            if "pin_memory" in unpacked and not is_literal(unpacked["pin_memory"], "False"):
                continue  # pinned by the dict (on the CUDA branch of a choice by device)
            if pinned is None and "pin_memory" in (loader_factory(self.ctx, call.func) or ()):
                continue  # a loader factory that decides itself
            if pinned is None and self.ctx.qualified_name(call.func) in AUTO_PINNING_LOADERS:
                continue  # pinned by the library on CUDA
            if pinned is not None and pinned.keyword is None:
                new_call = call.deep_replace(pinned, pinned.with_changes(value=cst.Name("True")))
            else:
                new_call = with_keyword(call, "pin_memory", cst.Name("True"))
            fix = self.fix(NodeEdit(call, new_call), message="Pin the loader's memory") if on_every_run else self.withheld(SPREAD_ON_EVERY_RUN)
            if pinned is None and not takes_keyword(self.ctx, call.func, "pin_memory"):
                fix = self.withheld(NO_SUCH_KEYWORD.format(keyword="pin_memory"))
            if _uncollated(call) and _rebuilt_by_pinning(self.ctx.module):
                fix = self.withheld(REBUILT_BY_PINNING)
            self.report(
                call,
                "DataLoader batches are moved to CUDA from pageable memory; set `pin_memory=True` "
                "so the copy is a direct, asynchronous transfer",
                fix=fix if not unpacked and not configured else None,
            )


def _uncollated(call: cst.Call) -> bool:
    """A loader whose batches default collation does not make: it has a `collate_fn`, or
    `batch_size=None` hands over the dataset's items as they are."""
    size = argument(call, "batch_size", 1)
    return argument(call, "collate_fn", COLLATE_FN_POSITION) is not None or (size is not None and is_literal(size.value, "None"))


@per_module
def _rebuilt_by_pinning(module: cst.Module) -> bool:
    """Whether the file defines a class whose objects pinning does not hand back as they are
    with their tensors pinned: one with its own `pin_memory` (pinning returns what it returns),
    or a subclass of `tuple` (not a named tuple), `Mapping` or `Sequence`."""
    for node in nodes_of_type(module, (cst.ClassDef,)):
        assert isinstance(node, cst.ClassDef)
        if any((dotted_name(base.value) or "").rpartition(".")[2] in REBUILT_BASES for base in node.bases):
            return True
        if any(name == "pin_memory" for item in node.body.body for name in _bound_in_class(item)):
            return True
    return False


def _bound_in_class(statement: cst.CSTNode) -> List[str]:
    """Names a class-body statement binds: a `def` or a plain assignment."""
    if isinstance(statement, cst.FunctionDef):
        return [statement.name.value]
    if isinstance(statement, cst.SimpleStatementLine):
        return [t.target.value for small in statement.body if isinstance(small, cst.Assign) for t in small.targets if isinstance(t.target, cst.Name)]
    return []
