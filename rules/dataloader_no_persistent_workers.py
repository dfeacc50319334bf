import os
from typing import Dict, List, Optional, Tuple

import libcst as cst

from torchlint.engine.findings import Applicability
from torchlint.engine.rule import NodeEdit, PendingFix, Rule
from torchlint.rules.dataloader_no_workers import NUM_WORKERS_POSITION, iterated_concurrently
from torchlint.semantics.frequency import Frequency
from torchlint.semantics.calls import argument, has_star, is_literal, keyword, with_keyword
from torchlint.semantics.config_files import configured_zero
from torchlint.semantics.datasets import changed_by_reflection, changed_through_alias, changed_through_loader, in_memory, shared_contents_changed
from torchlint.semantics.names import dotted_name
from torchlint.semantics.tree import descendants, iterated_source
from torchlint.semantics.passed_values import bare_call_keywords, received_spreads, zero_by_default, zero_in_every_call
from torchlint.semantics.project import keeps_instance, project_function
from torchlint.semantics.loaders import OTHER_LOADERS, Draw, appended_to_result, engine_runs, fed_by_framework, hand_drawn, handed_on, handed_to_epochs, held_in_container, inside_callee, loader_use, passes_over, restarts_in_training, returned_to_epoch_loop, returned_to_training
from torchlint.semantics.framework_names import TRAINING_LOADER_HOOKS
from torchlint.semantics.keyword_dicts import spread_keywords
from torchlint.semantics.values import only_assigned_value
from torchlint.semantics.training import NO_SUCH_KEYWORD, builds_dataloader, loader_factory, subclass_init, takes_keyword


# Hugging Face's argument classes whose `dataloader_*` fields configure the `Trainer`'s loaders.
TRAINING_ARGUMENTS = frozenset({"TrainingArguments", "Seq2SeqTrainingArguments"})
TRANSFORMERS_VERSION = (
    "`dataloader_persistent_workers` exists from transformers 4.38 on, and the installed version is not known: "
    "an older one raises a `TypeError`"
)


class DataloaderNoPersistentWorkers(Rule):
    """## What it does
    Flags a `torch.utils.data.DataLoader` with worker processes (`num_workers` any
    expression but the literal `0`) and without `persistent_workers=True` that is iterated
    again and again: a `for` loop over the loader sits inside an outer `for`/`while` loop
    (the epoch loop) of the same function, or in a function that such a loop calls
    (`for epoch in range(n): train(epoch)`, `train(train_loader)`: the loader is followed into
    the function it is passed to, see `semantics.loaders.passes_over`; also through a wrapper
    bound to a name, by a `with` statement or by a choice between it and the loader: `with
    tqdm(loader) as bar:`, `bar = tqdm(loader) if rank == 0 else loader`), and the loader is
    created before that outer loop (not inside the function called each time). A pass drawn
    by hand starts at its `iter(loader)`: `next(iter(loader))` in a training step loop, or
    an iterator re-created when it runs out (`except StopIteration: it = iter(loader)`) in
    the loop that draws from it, start the workers again (see `semantics.loaders.hand_drawn`;
    not for a sampler told how many samples a pass draws, which may never run out). A
    `**kwargs` dict is read as for TL201, the CUDA branch of a choice by device. Passes that
    code of another kind repeats count too: a function or class of another project module
    the loader is handed to that passes over it in every epoch and trains (`simclr.train(
    train_loader)`, `Trainer(model, train_loader).train()`, its loop maybe over a `with`
    statement's wrapper: `with tqdm(self.trainloader) as t: for x in t:`; a class its package
    re-exports counts as well: `from engine import *`), an ignite engine run for several
    epochs or from an epoch event, an engine handed a step function with the loader and an
    optimizer (`engine.train(h, train_loader, epochs, optimizer)`), and Lightning's
    `trainer.fit`; and a loader a project builder returns to a module global that a function
    of that module passes over, called every epoch by module-level code (`test_loader =
    get_test_dataloader(...)`, then `eval_training(epoch)` looping over `test_loader`;
    `project.FunctionFacts.iterated_globals`), and a loader a method returns to attributes
    of its own object (`self.train_loader, self.test_loader = self.setup_data()` in
    `__init__`), which every method of the class then passes over. A project
    class that subclasses `DataLoader` (directly or through another project class) and takes
    its options as they are (no `__init__`, one that forwards `*args, **kwargs`, or one that keeps DataLoader's
    positional parameters, hands each on to `super().__init__` by name or at DataLoader's position with its `**kwargs`,
    gives no option a default other than DataLoader's, fixes none itself (a `collate_fn` of its own is allowed) and sets
    none on `self`), and PyTorch Geometric's `DataLoader`, are DataLoaders too
    (`semantics.training.builds_dataloader`); one with a signature of its own is not, since
    its arguments may mean something else: there the loader is built by its
    `super().__init__(...)`, checked with the options it passes (`**self.init_kwargs` read
    from the dict `__init__` assigns; `semantics.training.subclass_init`). Loaders that
    calls give to another project module (a builder's return value, alone, in a tuple or in
    a list it appends them to; a subclass's instance; a method's return value on an instance
    built by name) count when that module passes over them every epoch
    (`semantics.loaders.returned_to_epoch_loop`, through wrappers that return a builder's
    result as they get it, and through a package that re-exports the builder: `from .utils
    import *` in its `__init__`, then `d2l.load_data_fashion_mnist(...)` in a notebook that
    hands the loaders to `d2l.train_ch5`), and when a method's loader is kept on the instance
    by a call of the class or a base (`self.train_loader = self.get_train_loader(config)`) and
    a loop of the class family that runs a training pass also runs a method looping over it
    (`semantics.stored_results`). Loaders held in an assigned dict or list (`data_loaders = {x:
    DataLoader(...) for x in phases}`) are followed through their elements: a loop over
    `data_loaders[phase]`, or an element handed to a function (`train_epoch(model,
    data_loaders["train"])`). Lightning modules of the project built with the loader, which
    store it in `__init__` and return it from a loader hook, count as handing it to
    `trainer.fit` (not a trainer with `fast_dev_run=True`; a trainer a project function
    builds, or a project function that hands the loader on to `fit`, in a project that imports
    Lightning, counts too); so does a loader hook that builds
    one loader per dataset and returns them in a list (`loaders.append(DataLoader(ds, ...))`,
    then `return loaders`; `semantics.loaders.appended_to_result`).

    Hugging Face's `TrainingArguments(dataloader_num_workers=N)` (and
    `Seq2SeqTrainingArguments`) in a PyTorch file, with `N` anything but the literal `0` and
    without `dataloader_persistent_workers=True`, is reported too: the `Trainer` builds its
    loaders with those workers and iterates them again every epoch (not with
    `num_train_epochs` of 1 or less, nor where `**kwargs` may set the field).

    ## Why is this slow?
    Without persistent workers, every `for batch in loader` starts `num_workers` new
    processes and shuts them down at the end of the pass. Each epoch therefore pays for
    process start-up, re-importing or unpickling the dataset in every worker, and refilling
    the prefetch queue before the first batch arrives, while the GPU waits. With
    `persistent_workers=True` the workers stay alive between epochs and the next epoch
    starts from warm processes; write-ups report large per-epoch savings from reusing
    workers together with prefetching, most visible with short epochs or costly datasets.

    To stay precise the rule is silent:
    - when `num_workers` is missing or `0`, or a setting that every configuration file of the
      project sets to `0` (`cfg.data.num_workers`, `self.hparams.num_workers` filled by Hydra;
      `semantics.config_files`) (TL201 reports that), when `persistent_workers` is
      given at all (an explicit `persistent_workers=False` is a decision: a dataset that the
      main process changes between epochs, in a callback or a sampler, needs fresh workers to
      see it), when `*args`/`**kwargs` may supply
      arguments, and for a `DataLoader` that is not torch's. A `**loader_kwargs` is read
      when it names a dict literal (`{"num_workers": 4}` or `dict(num_workers=4)`) assigned
      in the same function and not changed before the loader is created, a dict the
      function builds before the call (`kwargs.update(cuda_kwargs)` under `if use_cuda:`,
      `d["num_workers"] = 4`, also in a chain `d["sampler"] = sampler = ...`, `dict(d)`:
      `semantics.keyword_dicts`), or the `**kwargs`
      of a builder function: the keys it sets with `kwargs.setdefault(...)` and those its
      callers in the project pass by name (`semantics.passed_values.received_spreads`), and
      in a Lightning loader hook (`train_dataloader(self, **kwargs)`), which the trainer calls
      without arguments, the keys the hook sets itself (`passed_values.bare_call_keywords`);
    - when the worker count is a parameter as received (`num_workers`, or
      `self.num_workers`/`self.hparams.num_workers` stored from `__init__`) that every call
      in the project leaves to a default of `0` or passes `0` (or such a command-line option,
      `get_loaders(num_workers=args.workers)`): with no workers there is
      nothing to keep alive (`semantics.passed_values.zero_in_every_call`; a class built
      from a configuration, `LightningCLI(Model, DataModule)`, is not known and reported, and
      so is one the project never builds by name while its configuration files set the
      parameter above zero: `num_workers: 8` in the YAML Hydra's `instantiate` reads);
      likewise a command-line option that every module defining it defaults to `0`
      (`num_workers=args.num_workers` after `add_argument("--num-workers", default=0)`, also
      through a holder the object keeps, `self.args.workers`;
      `semantics.passed_values.zero_by_default`) and that no shell script of the project
      sets above zero (`python train.py --num_workers 2` in `scripts/train.sh` does: the
      project's own way to run it): workers only for users who ask;
    - in a program that never places work on an accelerator (neither the file nor its
      project mentions a device or CUDA) when the dataset's items are already in memory (a
      `TensorDataset`, a list, a dataset class that makes its data up; see
      `semantics.datasets.in_memory`): each worker only indexes tensors, competing with the
      training process for the same CPU cores, so the advice there is no workers at all,
      not workers kept alive;
    - when the loader is created inside the outer loop or the function it calls (a new
      loader each epoch), or is only iterated once (a call that hands it to a function that
      other callers run every epoch still counts once);
    - when the outer loop changes the loader's dataset (calls a method on it, assigns to its
      attributes, touches `loader.dataset`, or passes it to a function of the project that
      does one of those to that parameter): persistent workers keep their own copy of the
      dataset and would not see such changes. A method that the project defines only as a
      class or static method changing nothing (`ds.decode_target(mask)` to display a sample)
      is no change, nor is reading an item of an attribute (`int(ds.metadata[k][4])`).

    ## Example
    ```python
    loader = DataLoader(dataset, batch_size=64, num_workers=4)
    for epoch in range(epochs):
        for x, y in loader:
            train_step(x, y)
    ```

    ## Use instead
    ```python
    loader = DataLoader(dataset, batch_size=64, num_workers=4, persistent_workers=True)
    for epoch in range(epochs):
        for x, y in loader:
            train_step(x, y)
    ```

    ## Fix applicability
    Unsafe: workers keep their memory between epochs, and each worker holds its own copy of
    the dataset and of the `collate_fn`, so changes the main process makes to the dataset
    between epochs, or to globals the dataset or the `collate_fn` reads (an augmentation
    switch, a maximum length, a vocabulary dict extended in place) or to torch's process-wide
    settings (`torch.set_default_dtype`), are not seen by them. Every pass over a non-persistent loader
    draws a base seed for its workers from the main process's random generator (or the loader's `generator=`, which a shuffling
    sampler shares), a persistent one only at the first pass: from
    the second epoch on, every later random number of the main process (the shuffle order of
    the next epoch, dropout masks, augmentation drawn in the main process) changes; and the
    workers are seeded once and keep drawing from their streams instead of being seeded anew
    every epoch, so random augmentation in workers changes too. What a worker changes on its
    own copy of the dataset, of the `collate_fn` or of the globals they reach (a counter of
    the items it served, a cache) now lasts from one
    epoch to the next instead of starting again from the main process's copy, and the
    `worker_init_fn` runs once per worker instead of at every epoch, so what it sets from
    globals (the current epoch) stays as it was at the first epoch. The fix
    sets `persistent_workers=True`, and only when `num_workers` is a
    positive integer literal: with an expression that can be `0` at run time
    (`num_workers=args.workers`), `persistent_workers=True` raises a `ValueError`, so such
    loaders are reported without a fix, and so are those of a project `DataLoader` subclass
    whose `__init__` takes neither `persistent_workers` nor `**kwargs` (a `TypeError`). No
    fix either when the loader is iterated again
    while a pass over it is still going on (`zip(loader, loader)`, `next(iter(loader))` in a
    loop over it, an iterator `partner = iter(loader)` drawn from inside a loop over it): with
    persistent workers the second pass resets the first, and both draw from one iterator; nor
    when the file changes the loader's `collate_fn` or `worker_init_fn` object (assigns its
    attributes, calls its methods: `collate.max_len = 2 + epoch`), or changes in place a
    container the dataset was made from (`Pool(items)`, then `items.append(x)` between
    epochs, also through a name or attribute bound to it, `self.memory = memory` then
    `self.memory.append(x)`, or as written for an item, `Pool(buffers["train"])` then
    `buffers["train"].extend(new)`: the workers' copy keeps its old length, which the
    sampler no longer matches, and raises `IndexError`), or a module-level name that the
    dataset class's `__len__` reads (`return len(PAIRS)` with `PAIRS[:] = mined` between
    epochs, `return LIMIT` with `LIMIT = 2 + 2 * epoch` in the epoch loop or in a function
    that declares it `global`), or changes the dataset through a name or attribute bound to
    it (a method call, an item, or an attribute `__len__` reads: `self.pool = pool`, then
    `self.pool.add(x)` or `self.pool.items = mined`; `pool = loader.dataset`, then
    `pool.items.append(x)`; the sampler's `loader.sampler.data_source.items.append(x)`), or by
    name through `setattr(ds, "n", v)`, `vars(ds).update(n=v)` or its `__dict__`, or through
    a bound method of it kept to be called later (`callbacks = [pool.grow]`, then `cb()`), or
    through the item it is read from as written
    (`DataLoader(splits["train"])`, then `splits["train"].items.append(x)`), or changes an
    attribute handed to the dataset through a method of its owner (`Pool(memory.items)`, then
    `memory.push(x)`), also where a function of the file makes the dataset (`make_pool()`
    returning `Pool(BUFFER)`), or a
    module-level container its `__init__` reads, or a
    class-level attribute either reads that the file changes through the class
    (`len(type(self).BANK)` with `HardNegatives.BANK.extend(mined)` between epochs).

    For `TrainingArguments` no fix is offered: `dataloader_persistent_workers` exists from
    transformers 4.38 on, an older version raises a `TypeError`, and the version a project
    runs is not known.

    ## Measured precision
    Stable for loaders that a loop running with training iterates in the same file (directly
    or through a same-file function it is passed to): a loop that trains or the per-epoch
    validation loop (see `semantics.loaders.loader_use`): 1.00 on the dev half
    (20/0) and 1.00 held out (20/0); recall on the audited files 7/7 and 11/11. Other loaders
    are the preview variant, reported only with `--preview` (no finding on either half). A
    worker count held in a name is resolved when the file assigns that name once (`num_workers = 0` in an earlier notebook cell): with no
    workers there is nothing to keep alive. Batch 12 measured 0.53 (9/8: CPU-only tutorials
    whose workers index tensors in memory); with those left out, 0.90 (9/1). See
    docs/precision.md.
    """

    code = "TL203"
    impact = "medium"
    name = "dataloader-no-persistent-workers"
    preview_variant = OTHER_LOADERS
    summary = "DataLoader re-spawns its workers every epoch (no `persistent_workers=True`)"
    # `DataLoader`, a project subclass of it (`AudioDataLoader`, `BucketLoader`), or a loader
    # factory (`dataset.to_dataloader(...)`, see `semantics.training.loader_factory`).
    triggers = ("Loader", "loader(", "dataloader_num_workers")
    fix_applicability = Applicability.UNSAFE
    bad_examples = (
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, num_workers=4)\n"
        "for epoch in range(10):\n    for x in loader:\n        step(x)\n",
        "import torch\ndef fit(ds, n):\n    loader = torch.utils.data.DataLoader(ds, num_workers=n)\n"
        "    while not done:\n        for i, x in enumerate(loader):\n            step(x)\n",
    )
    good_examples = (
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, num_workers=4, persistent_workers=True)\n"
        "for epoch in range(10):\n    for x in loader:\n        step(x)\n",
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, num_workers=4)\nfor x in loader:\n    step(x)\n",
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds)\n"
        "for epoch in range(10):\n    for x in loader:\n        step(x)\n",
        "from torch.utils.data import DataLoader\nfor epoch in range(10):\n    loader = DataLoader(ds, num_workers=4)\n"
        "    for x in loader:\n        step(x)\n",
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, num_workers=4)\n"
        "for epoch in range(10):\n    ds.set_difficulty(epoch)\n    for x in loader:\n        step(x)\n",
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, num_workers=4, **kw)\n"
        "for epoch in range(10):\n    for x in loader:\n        step(x)\n",
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        # DataLoader calls assigned to a name, in source order.
        self.loaders: List[cst.Call] = []
        # For each DataLoader call, the keywords its `**name` arguments supply (None when they
        # cannot be read).
        self.unpacked: Dict[int, Optional[Dict[str, cst.BaseExpression]]] = {}

    def visit_Assign(self, node: cst.Assign) -> None:
        if isinstance(node.value, cst.Call) and builds_dataloader(self.ctx, node.value.func):
            self.loaders.append(node.value)
            self.unpacked[id(node.value)] = self._unpacked_keywords(node.value)

    def visit_Call(self, node: cst.Call) -> None:
        self._check_training_arguments(node)
        self._note_loader(node)

    def _check_training_arguments(self, node: cst.Call) -> None:
        """Hugging Face `TrainingArguments(dataloader_num_workers=4)` (or the `Seq2Seq` kind)
        without `dataloader_persistent_workers=True`: the `Trainer` builds its loaders with
        those workers and iterates them again every epoch (not for one epoch or fewer, nor
        where `**kwargs` may set it)."""
        qualified = self.ctx.qualified_name(node.func) or ""
        if not qualified.startswith("transformers.") or qualified.rpartition(".")[2] not in TRAINING_ARGUMENTS or has_star(node, "**"):
            return
        workers = keyword(node, "dataloader_num_workers")
        persistent = keyword(node, "dataloader_persistent_workers")
        epochs = keyword(node, "num_train_epochs")
        if workers is None or is_literal(workers.value, "0") or (persistent is not None and not is_literal(persistent.value, "False")):
            return
        if epochs is not None and isinstance(epochs.value, (cst.Integer, cst.Float)) and float(epochs.value.value) <= 1:
            return
        self.report(
            node,
            "The `Trainer` starts its DataLoader workers again every epoch; set "
            "`dataloader_persistent_workers=True` (transformers 4.38 or later) to keep them alive between epochs",
            fix=self.withheld(TRANSFORMERS_VERSION),
        )

    def _note_loader(self, node: cst.Call) -> None:
        """A loader returned as it is built (a Lightning `train_dataloader()` hook, a builder),
        by a DataLoader subclass's `super().__init__(...)`, held in an assigned dict or list
        (`loaders = {x: DataLoader(...) for x in phases}`) or appended to a list the function
        returns."""
        returned = isinstance(self.ctx.parent(), cst.Return) or subclass_init(self.ctx, node.func)
        held = held_in_container(self.ctx, node) or appended_to_result(self.ctx, node)
        if (returned or held) and builds_dataloader(self.ctx, node.func):
            self.loaders.append(node)
            self.unpacked[id(node)] = self._unpacked_keywords(node)

    def _unpacked_keywords(self, call: cst.Call) -> Optional[Dict[str, cst.BaseExpression]]:
        """The keywords that the call's `**name` arguments supply, if all are known dicts: dicts
        the file assigns once or the call's scope builds before it
        (`keyword_dicts.spread_keywords`: `**self.init_kwargs`, `kwargs.update(cuda_kwargs)`),
        or the `**kwargs` of a builder function (`received_spreads`)."""
        if not has_star(call, "**"):
            return {}
        unpacked = spread_keywords(self.ctx.module, self.ctx.names, call)
        unpacked = unpacked if unpacked is not None else received_spreads(self.ctx, call)
        if unpacked is None and self._built_by_hook(call):
            return bare_call_keywords(self.ctx, call)  # the trainer calls `train_dataloader()` without keywords
        return unpacked

    def _built_by_hook(self, call: cst.Call) -> bool:
        """Whether the loader is built by a Lightning loader hook (`train_dataloader(self,
        **kwargs)`), which the trainer calls without arguments every epoch."""
        function = self.ctx.frequency.enclosing_function(call)
        return function is not None and function.name.value in TRAINING_LOADER_HOOKS and fed_by_framework(self.ctx, call, every_epoch=True)

    def _argument(self, call: cst.Call, name: str, position: Optional[int] = None) -> Optional[cst.BaseExpression]:
        """The value passed for `name` (by keyword, or at `position`), directly or through a known `**` dict."""
        found = keyword(call, name) if position is None else argument(call, name, position)
        if found is not None:
            return found.value
        return (self.unpacked.get(id(call)) or {}).get(name)

    def leave_Module(self, node: cst.Module) -> None:
        """Loaders that a loop iterates again and again: in an outer loop of the same function,
        or in a function that such a loop runs (`for epoch in range(n): train(train_loader)`),
        followed through the arguments they are passed as."""
        for loader in self.loaders:
            if not self._applies(loader):
                continue
            if fed_by_framework(self.ctx, loader, every_epoch=True):
                self._report_loader(loader)  # the trainer iterates it again every epoch
                continue
            if handed_to_epochs(self.ctx, loader) or any(run.per_epoch for run in engine_runs(self.ctx, loader)):
                self._report_loader(loader)  # a function of another module passes over it every epoch
                continue
            draws = hand_drawn(self.ctx, loader)  # a pass drawn by hand starts at its `iter()`
            passes: List[Tuple[Optional[cst.CSTNode], cst.CSTNode]] = [
                (loop, start) for loop, start in passes_over(self.ctx, loader) if not any(loop is draw.loop for draw in draws)
            ]
            passes += [(None, call) for call in handed_on(self.ctx, loader)] + [(None, draw.start) for draw in draws]
            if any(self._restarted(draw, loader) for draw in draws):
                self._report_loader(loader)  # `iter(loader)` again in the step loop that draws from it
                continue
            if returned_to_epoch_loop(self.ctx, loader, moved=False) or (not passes and returned_to_training(self.ctx, loader, repeatedly=True)):
                self._report_loader(loader)  # another module passes over it every epoch, or hands it to an epoch loop
                continue
            for loop, start in passes:
                outer = self._repeating_loop(start, loader)
                if outer is None and loop is not None and loop is not start:
                    outer = self._repeating_in_callee(start, loop, loader)
                if outer is not None and not self._changes_dataset(outer, loader, loop):
                    self._report_loader(loader)
                    break

    def _restarted(self, draw: Draw, loader: cst.Call) -> bool:
        """A pass drawn by hand that the training loop opens again, over a loader built
        outside that loop, whose dataset the loop does not change."""
        outer = draw.restarted_by
        if outer is None or not restarts_in_training(self.ctx, draw, loader) or any(item is loader for item in descendants(outer)):
            return False
        return not self._changes_dataset(outer, loader, None)

    def _repeating_in_callee(self, start: cst.CSTNode, loop: cst.For, loader: cst.Call) -> Optional[cst.CSTNode]:
        """The loop inside the function that `start` hands the loader to which runs the pass
        again and again (`train(model, loader, epochs)` looping over epochs around its
        `train_step(loader)`); not a loop of another caller of that function."""
        repeating = self._repeating_loop(loop, loader)
        return repeating if repeating is not None and inside_callee(self.ctx, start, repeating) else None

    def _repeating_loop(self, start: cst.CSTNode, loader: cst.Call) -> Optional[cst.CSTNode]:
        """The loop (over epochs, say) that starts a pass over the loader again and again (runs
        `start`, the loop or the call handing the loader on), unless it also creates the loader
        anew each time (`for epoch ...: train()` where `train()` builds it)."""
        execution = self.ctx.execution(start)
        guard = execution.interval_guard()
        if guard is not None:
            execution = self.ctx.execution(guard)  # a pass every N steps repeats with that loop
        if execution.frequency not in (Frequency.PER_EPOCH, Frequency.PER_STEP):
            return None
        outer = next((reason.at for reason in execution.reasons if isinstance(reason.at, (cst.For, cst.While))), None)
        if outer is None or any(reason.at is outer for reason in self.ctx.execution(loader).reasons):
            return None
        return outer

    def _report_loader(self, loader: cst.Call) -> None:
        if self.withholds_preview_variant() and loader_use(self.ctx, loader) != "train":
            return
        self.report(
            loader,
            "DataLoader workers are started again for every pass over the loader; set "
            "`persistent_workers=True` to keep them alive between epochs",
            fix=self._fix(loader),
        )

    def _applies(self, call: cst.Call) -> bool:
        if has_star(call, "*") or (has_star(call, "**") and self.unpacked.get(id(call)) is None):
            return False
        if {"num_workers", "persistent_workers"} & (loader_factory(self.ctx, call.func) or frozenset()):
            return False  # a loader factory that sets them itself
        workers = self._argument(call, "num_workers", NUM_WORKERS_POSITION)
        if isinstance(workers, cst.Name):
            workers = only_assigned_value(self.ctx.module, workers) or workers  # `num_workers = 0` in an earlier cell
        if workers is None or is_literal(workers, "0") or zero_in_every_call(self.ctx, workers, options=True) or zero_by_default(self.ctx, workers):
            return False  # `num_workers=self.num_workers` defaulting to 0 in `__init__`, or an option defaulting to 0: no workers
        if configured_zero(self.ctx, workers):
            return False  # `num_workers=cfg.data.num_workers`, `0` in every configuration file
        # An explicit `False` is a decision.
        return self._argument(call, "persistent_workers") is None and not self._workers_only_index(call)

    def _workers_only_index(self, call: cst.Call) -> bool:
        """Whether the loader's workers have no work worth keeping: the program never places
        work on an accelerator (`FileContext.serves_device`) and the dataset's items are already
        in memory (`semantics.datasets.in_memory`). Each worker only indexes tensors the main
        process could index itself, competing with it for the same cores: the advice there is
        no workers (`num_workers=0`), not workers kept alive."""
        dataset = argument(call, "dataset", 0)
        return dataset is not None and not self.ctx.serves_device and in_memory(self.ctx, dataset.value)

    def _changes_dataset(self, outer: cst.CSTNode, call: cst.Call, inner: Optional[cst.For]) -> bool:
        """Whether the outer loop calls a method of the dataset (not one the project defines
        only as a class or static method that changes nothing: `ds.decode_target(mask)` to
        display a sample, see `project.keeps_instance`), assigns to its attributes, reads
        `loader.dataset` (other than for its length: `len(loader.dataset)` changes nothing), or
        passes the dataset to a project function that changes it."""
        dataset = argument(call, "dataset", 0)
        dataset_name = dotted_name(dataset.value) if dataset is not None else None
        loader_name = dotted_name(iterated_source(inner.iter)) if inner is not None else None
        nodes = list(descendants(outer))
        unchanging = {id(item.func) for item in nodes if self._keeps_dataset(item, dataset_name)}
        unchanging |= {id(item.args[0].value) for item in nodes if _length_of(item)}
        unchanging |= {id(item) for item in nodes if isinstance(item, cst.Attribute) and self._item_read(item)}
        for item in nodes:
            if isinstance(item, cst.Call) and dataset_name is not None and self._mutates(item, dataset_name):
                return True  # `resample(ds, epoch)` where `resample` sets `ds.indices`
            if not isinstance(item, cst.Attribute) or id(item) in unchanging:
                continue
            owner = dotted_name(item.value)
            if owner is None:
                continue
            if owner == dataset_name or (item.attr.value == "dataset" and owner == loader_name):
                return True  # `ds.set_epoch(e)`, `ds.scale = s`, `loader.dataset.resample()`
        return False

    def _item_read(self, attribute: cst.Attribute) -> bool:
        """Whether the attribute is only indexed to read an item (`dataset.metadata[k][4]`), not
        assigned to, deleted, or the receiver of a method (`dataset.items[k].append(x)`)."""
        node, parent = attribute, self.ctx.frequency.parent(attribute)
        if not (isinstance(parent, cst.Subscript) and parent.value is node):
            return False
        while isinstance(parent, cst.Subscript) and parent.value is node:
            node, parent = parent, self.ctx.frequency.parent(parent)
        if isinstance(parent, (cst.AssignTarget, cst.AugAssign, cst.Del)) and parent.target is node:
            return False
        return not (isinstance(parent, cst.Attribute) and parent.value is node)

    def _keeps_dataset(self, node: cst.CSTNode, dataset_name: Optional[str]) -> bool:
        """A call of a method on the dataset that cannot change it (`project.keeps_instance`)."""
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and dataset_name is not None):
            return False
        if dotted_name(node.func.value) != dataset_name or not os.path.isfile(self.ctx.path):
            return False
        return keeps_instance(self.ctx.path, node.func.attr.value)

    def _mutates(self, call: cst.Call, name: str) -> bool:
        if not any(dotted_name(arg.value) == name for arg in call.args):
            return False
        facts = project_function(self.ctx, call.func)
        return facts is not None and facts.mutates_argument(call, name)

    def _fix(self, call: cst.Call) -> Optional[PendingFix]:
        workers = argument(call, "num_workers", NUM_WORKERS_POSITION)
        if workers is None or not isinstance(workers.value, cst.Integer):
            return None  # `persistent_workers=True` with 0 workers at run time raises ValueError
        if has_star(call, "**"):
            return None  # the dict may pass `persistent_workers` too: a repeated keyword raises TypeError
        if iterated_concurrently(self.ctx.module, call):
            return self.withheld("the loader is iterated again before a pass over it ends (nested or zipped)")
        if not takes_keyword(self.ctx, call.func, "persistent_workers"):
            return self.withheld(NO_SUCH_KEYWORD.format(keyword="persistent_workers"))
        changed = _changed_worker_callable(self.ctx.module, call)
        if changed:
            return self.withheld(f"the file changes `{changed}`, which runs in the workers: persistent workers would keep the old one")
        dataset = argument(call, "dataset", 0)
        alias = (
            (changed_through_alias(self.ctx, dataset.value, length_only=True) or changed_by_reflection(self.ctx, dataset.value) if dataset is not None else None)
            or changed_through_loader(self.ctx.module, call)
        )
        if alias:
            return self.withheld(f"the file may change the dataset through `{alias}`: persistent workers would keep the old copy")
        shared = shared_contents_changed(self.ctx, dataset.value) if dataset is not None else None
        if shared:
            return self.withheld(f"the file changes `{shared}` in place, which the dataset holds: persistent workers would keep the old contents")
        new_call = with_keyword(call, "persistent_workers", cst.Name("True"))
        return self.fix(NodeEdit(call, new_call), message="Keep the workers alive between epochs")


def _changed_worker_callable(module: cst.Module, call: cst.Call) -> Optional[str]:
    """The `collate_fn` or `worker_init_fn` object of the loader (a name) whose attributes the
    file assigns or whose methods it calls (`collate.max_len = 2 + epoch`,
    `collate.set_epoch(e)`): workers run their own copy, made when they start."""
    names = {dotted_name(arg.value) for arg in call.args if arg.keyword is not None and arg.keyword.value in WORKER_CALLABLES}
    for node in descendants(module):
        targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target] if isinstance(node, cst.AugAssign) else []
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            targets.append(node.func)
        for target in targets:
            if isinstance(target, (cst.Attribute, cst.Subscript)) and dotted_name(target.value) in names:
                return dotted_name(target.value)
    return None


# Loader arguments whose objects the workers run (each worker a copy made when it starts).
WORKER_CALLABLES = frozenset({"collate_fn", "worker_init_fn"})


def _length_of(node: cst.CSTNode) -> bool:
    """`len(x)`: the builtin reads the length of its one argument."""
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "len" and len(node.args) == 1

