from typing import Optional, Set

import libcst as cst

from torchlint.engine.findings import Applicability
from torchlint.engine.rule import NodeEdit, PendingFix, Rule
from torchlint.semantics.calls import argument, has_star, is_literal, keyword, with_keyword
from torchlint.semantics.config_files import configured_zero
from torchlint.semantics.names import dotted_name
from torchlint.semantics.tree import bound_names, descendants, iterated_source, nodes_of_type
from torchlint.semantics.datasets import changed_by_file, graphs_built_per_item, changed_through_loader, constructed_classes, handed_open_file, in_memory, item_dtype_from_data, items_moved_to_device, makes_conjugate_views, makes_quantized_tensors, items_may_carry_graph, keeps_open_file, samples_changing_state, torch_iterable, unsharded_iterable_class
from torchlint.semantics.keyword_dicts import spread_keywords
from torchlint.semantics.values import only_assigned_value
from torchlint.semantics.passed_values import zero_in_every_call
from torchlint.semantics.loaders import OTHER_LOADERS, fed_by_framework, loader_use, opens_pass
from torchlint.semantics.project import COLLATING_LOADERS, DATALOADERS  # noqa: F401  (read by other rules)
from torchlint.semantics.training import NO_SUCH_KEYWORD, builds_dataloader, loader_factory, takes_keyword

NUM_WORKERS_POSITION = 5  # DataLoader(dataset, batch_size, shuffle, sampler, batch_sampler, num_workers, ...)
PIN_MEMORY_POSITION = 7
WORKER_INIT_POSITION = 10  # ..., pin_memory, drop_last, timeout, worker_init_fn
# The worker count the fix writes: four workers per process is the tuning guide's usual starting
# point, portable across machines and small enough not to oversubscribe a shared node.
FIX_WORKERS = "4"
# Why a loader fix that adds keywords next to a `**dict` is withheld.
SPREAD_ON_EVERY_RUN = "the `**` dict may pass the keywords the fix adds on some run (one without CUDA): a repeated keyword raises TypeError"
# Dataset names that say it is iterated rather than indexed (torchtext iterators, streams).
STREAM_WORDS = ("iter", "stream", "pipe")


class DataloaderNoWorkers(Rule):
    """## What it does
    Flags `torch.utils.data.DataLoader(...)` created with `num_workers=0` or without
    `num_workers` (whose default is 0). A project class that subclasses `DataLoader` (directly or through another project
    class) and takes its options as they are (no `__init__`, one that forwards `*args, **kwargs`, or one that keeps
    DataLoader's positional parameters, hands each on to `super().__init__` by name or at DataLoader's position (the
    dataset, first, under any name) with its `**kwargs`, gives no option a default other than DataLoader's, fixes none itself (a `collate_fn` of its own is
    allowed) and sets none on `self`)
    is a DataLoader too (`semantics.training.builds_dataloader`); one with a signature of
    its own is not, since its arguments may mean something else: there the loader is built
    by its `super().__init__(...)`, which is checked with the options it passes
    (`**self.init_kwargs` read from the dict `__init__` assigns; see
    `semantics.training.subclass_init`), and each instance the project builds by name is
    that loader.

    ## Why is this slow?
    With no workers, loading, decoding and augmentation run in the training process, one
    batch at a time, between training steps: the GPU waits for every batch. With workers,
    batches are prepared in parallel processes while the GPU computes. Practitioners report
    going from 3 to 13 iterations per second by raising the worker count, and a data-bound
    input pipeline is the most common cause of low GPU utilisation in production studies
    (about 46% of such issues).

    The rule is silent when `num_workers` is any expression other than the literal `0`, a
    name whose only assignment in the file is `0`, or a setting that every configuration file
    of the project sets to `0` (`num_workers=cfg.data.num_workers` with `num_workers: 0` in
    each YAML or JSON file that sets it, `semantics.config_files`), or a parameter that
    every call in the project, notebooks included, leaves to a default of `0` or passes `0`
    (`def get_loaders(batch_size, num_workers=0)` called as `get_loaders(256)`,
    `semantics.passed_values.zero_in_every_call`; a function or class the project never
    calls is a library's, whose users pick the workers; both reported without a fix):
    `num_workers=args.workers` is not reported, when `**kwargs` may supply it (a
    dict the file assigns once as a literal and never changes is read, and of a choice by
    device, `{"num_workers": 1} if use_cuda else {}`, the branch a CUDA run takes:
    `semantics.values.spread_of`; so is one the loader's scope builds before the call,
    `kwargs = {"batch_size": 64}` then `kwargs.update(cuda_kwargs)` under `if use_cuda:`,
    `semantics.keyword_dicts`; such findings have no fix), for a `DataLoader` that
    is not torch's (PyTorch Geometric's is reported only over a project `Dataset` whose
    `get(idx)`, or own `__getitem__`, reads or builds each graph, not an `InMemoryDataset`,
    one whose `get` only indexes what it holds, nor one that keeps the graphs it built in a
    cache it looks them up in, which workers would each fill and lose:
    `semantics.datasets.graphs_built_per_item`), for a `TensorDataset` or a Python list of items (`[(x, y) for ...]`,
    `list(zip(inputs, labels))`: already in memory, workers would only pickle them; a
    `collate_fn` that loads what such a list names is not seen), for a dataset class of the
    project whose items are already in memory (its `__getitem__` only indexes, converts and
    reshapes attributes loaded or computed once, `semantics.dataset_items`: no file read,
    decoding or transform per item, no memory map or HDF5 handle; also one that stores what its
    constructor is given, when the file hands it values in memory: `IMDbDataset(encodings,
    labels)` with `encodings = tokenizer(list(texts), ...)` and `labels =
    df["label"].values`, not another dataset, a lazy handle or a parameter; an attribute handed
    on as `device=` or `dtype=` is a setting, not data), for a dataset
    handed a method or a state of the object that builds it, which that object keeps changing
    (`RLDataset(self.buffer, 200)` where `training_step` calls `self.buffer.append(...)`: the
    main process makes the items, and workers would sample stale copies), and in a program that never
    trains: a script with an
    `if __name__ == "__main__":` block, or a notebook, in which no call reads as training
    (`backward`, `step`, `fit`, `train...`, the optimizer, `autograd`) and no project function
    it calls runs a backward pass. Evaluation and inference programs pass over their data once
    per run; a module without an entry point may be imported by a training script and is
    always checked.

    ## Example
    ```python
    loader = DataLoader(dataset, batch_size=64, shuffle=True)
    ```

    ## Use instead
    ```python
    loader = DataLoader(
        dataset, batch_size=64, shuffle=True,
        num_workers=4, pin_memory=True, persistent_workers=True,
    )
    ```
    The bundled `torchlint.reference.make_loader` chooses these for the machine, and
    `torchlint.reference.CUDAPrefetcher` overlaps the copy to the GPU with the step.

    ## Fix applicability
    Unsafe: workers are separate processes, so the dataset must be picklable and, under the
    `spawn` start method (macOS, Windows), the script needs an `if __name__ == "__main__":`
    guard; random augmentation draws from each worker's own generator, so augmented values
    change, and what the dataset drew from the main process's generators (`random.random()`
    in `__getitem__`) is no longer drawn there, so the main process's later random numbers
    change from the first epoch on. What `__getitem__` or the `collate_fn` changes, on the
    dataset or in globals and objects they reach (a cache of decoded items, a
    `collections.Counter` of visits at module level, a list of padded lengths), changes the
    workers' copies, not the main process's, which reads them unchanged after the epoch; and what
    the main process changes on the dataset or the `collate_fn`, or in globals they read
    (torch's process-wide settings such as `torch.set_default_dtype` included),
    reaches workers only when they start: with the persistent workers the fix adds, never
    after the first epoch (a curriculum that sets the dataset's difficulty every epoch has no
    effect). Every pass over a loader draws a base seed from the main process's random
    generator (or the loader's `generator=`, which a shuffling sampler shares), but with the
    `persistent_workers=True` the fix adds only the first pass does: from the second epoch on, every later random number of the main process (the next
    shuffle order, dropout masks) changes. An `IterableDataset` that splits its items by
    `get_worker_info()` yields them in another order, and each worker ends with its own last
    partial batch, so batch sizes and order change (`[4, 4, 4, 4, 2]` can become `[4, 4, 4,
    3, 1, 1, 1]`). Code that `__getitem__` or the `collate_fn` runs
    in a worker sees `get_worker_info()` return the worker's id, seed and count instead of
    None, so what it derives from them (a shard or file chosen per worker, a per-worker seed,
    an item tagged with its worker) changes. What `__getitem__` prints is printed by the workers (interleaved
    differently, and not where the main process redirected its output), and an exception it
    raises reaches the loop re-raised from the worker: of the same class only when that class
    can be made from a message alone (else a `RuntimeError`), with the worker's traceback as
    its text and without the attributes the original carried. The fix sets `num_workers=4` (a portable starting point: about four
    workers per GPU), adds `persistent_workers=True` so workers survive across epochs, and
    adds `pin_memory=True` when the file moves data to CUDA. Arguments already given are
    kept. For a project `DataLoader` subclass whose `__init__` (its own or a base's) takes no
    `**kwargs`, only the keywords it takes are added (no fix without `num_workers`): another
    would raise `TypeError`. `persistent_workers=True` is left out when the loader is iterated again while a
    pass over it is still going on (`zip(loader, loader)`, a loop over it inside another, an
    iterator `partner = iter(loader)` drawn from inside a loop over it): the second pass would
    reset the first one's workers, and when the file may change the dataset after making it
    (calls a method on it or its attributes, assigns them, also through a name or attribute
    bound to it, `self.pool = pool` then `self.pool.add(x)`, or through the item it is read
    from, `splits["train"].items.append(x)`, or changes an attribute handed to it through a
    method of its owner, `Pool(memory.items)` then `memory.push(x)`, or changes in place a container
    it was made from, `Pool(items)` then `items.append(x)`, also through a name or attribute
    bound to it, `self.memory = memory` then `self.memory.append(x)`, or as written for an
    item, `Pool(buffers["train"])` then `buffers["train"].extend(new)`; also through the loader,
    `loader.dataset.items.append(x)`, `self.loader.dataset.grow(2)`, `pool = loader.dataset`
    then `pool.items.append(x)`, `loader.sampler.data_source.items.append(x)`; or by name,
    `setattr(ds, "n", v)`, `vars(ds).update(n=v)`, or through a bound method of it kept to be
    called later, `callbacks = [pool.grow]`; or changes a module-level
    name that the dataset class's `__len__` reads, in place or by binding it again, `PAIRS[:]
    = mined` or `LIMIT = 2 + 2 * epoch` between epochs, or a class-level attribute it reads,
    through the class, `HardNegatives.BANK.extend(mined)`): persistent workers would keep
    the old copy, whose length the sampler no longer matches (`IndexError`). No fix when the
    dataset's `__getitem__` moves or builds its items on the device (`audio.to(self.device)`):
    a forked worker cannot initialise CUDA. No fix when the dataset may be an
    `IterableDataset` that does not split its items by worker (`get_worker_info()`), so that
    every worker would yield every item: a class of the file that does not (itself, in its
    base classes of the file or in a function of the file they call), deriving from
    `IterableDataset` directly or through a base class of the file, or defining `__iter__`
    on a base class of another module; made where the loader is built, through a name, a
    conditional expression or a function of the file that returns it (`build_dataset(split)`);
    a torch class that chains or pipes iterable datasets (`ChainDataset`, a
    `torch.utils.data.datapipes` pipe); or a dataset named as an iterator or stream
    (`train_iterator`, `stream`, `datapipe`); nor when its
    items may carry an autograd graph (`semantics.datasets.items_may_carry_graph`: the
    dataset is made by running a module, from tensors that require gradients, also by a
    later `t.requires_grad_()`, or by a class or a function
    of the file that builds a module or a parameter, `build()` returning
    `Lookup(nn.Parameter(table))`), which a worker cannot send back to the main process;
    nor when a dataset class of the file keeps a file it opens in `__init__` (`self.f =
    open(path, "rb")`, `h5py.File`, `zipfile.ZipFile`, `gzip.GzipFile`, `io.FileIO`,
    `Path(path).open("rb")`, `tempfile.TemporaryFile()`, an object of a class made around
    such a handle, `io.TextIOWrapper(io.FileIO(path))`; also through a local name first,
    `f = open(path, "rb")` then `self.f = f`, with an annotation, in a tuple target, by
    `setattr(self, name, ...)`, or held in a list, dict or comprehension, `self.files =
    [open(p, "rb") for p in shards]`, or through a function of the file that returns one,
    `self.f = open_records(path)`), in `__len__` (which the sampler
    calls before workers start) or in a method of the class they call (a lazy
    `self._file()`), or is handed one the main process opened (`Records(open(path, "rb"))`,
    or an object of a class of the file that keeps one, `Records(Reader(path))`): forked
    workers share its offset, so their seek-then-read calls interleave and return each
    other's records; nor in a file that makes quantized tensors (`torch.quantize_per_tensor`,
    `torch.quint8`): default collation stacks a batch into shared memory only in a worker,
    and `Tensor.new(storage)` refuses a quantized tensor there (`RuntimeError`), nor in a
    file that makes complex values and conjugates them (`z.conj()`, `z.mH`, `z.adjoint()`:
    a lazily conjugated view, which `torch.stack(..., out=)` refuses there too);
    nor when the dataset's items may differ in dtype from one to the next
    (`semantics.datasets.item_dtype_from_data`: `__getitem__`, or a method or function of
    the file it calls, makes a tensor or array without a dtype from an item of data,
    `torch.tensor(record["y"])` of a JSON number that is `3` in one record and `0.5` in
    another, `np.full(1, record["y"])`, `torch.as_tensor(literal_eval(field))`, `np.load(path)` per item, or with a
    `dtype=` chosen per item, `dtype=self.dtype`; also for a dataset of the file wrapped in
    `Subset`, a part of `random_split` or an element of `ConcatDataset`, as for the
    preconditions above): default collation stacks a batch in a worker into shared
    memory of the first item's dtype, which refuses a wider kind (`TypeError`) or narrows
    the others (float64 items become float32), where the main process promotes them;
    nor when the loader passes a `worker_init_fn`: only workers run it, so it has never run
    (`np.random.seed(torch.initial_seed())` raises there, the seed being 64-bit); nor next to
    a `**kwargs` dict unless it is empty on every run (one read on the CUDA branch of a choice
    or test by device, `{} if use_cuda else {"num_workers": 0}`, would repeat a keyword the
    fix adds on the CPU, a `TypeError`).

    ## Measured precision
    Stable for loaders that a loop running with training iterates in the same file (directly
    or through a same-file function it is passed to): a loop that trains or the per-epoch
    validation loop (see `semantics.loaders.loader_use`), in a file that places work on a
    device. Development figures of the default run (the halves the rules were developed on,
    all read while fixing false findings, so not a prediction for unseen code): 1.00 on the
    dev half of the real-code benchmark (28/0), 0.93 on the held-out half (40/3), 0.94 over
    all development halves (116/7) including batches 8 and 9 (1.00, 6/0; 0.79, 11/3).
    Other loaders (a final test, loaders returned or handed to another module, demo templates)
    and loaders of CPU-only programs (where workers compete with the training for the same
    cores) are the preview variant, reported only with `--preview`: 0.60 dev (3/2), 0.14 held
    out (5/32), development figures too. See docs/precision.md.
    """

    code = "TL201"
    impact = "high"
    name = "dataloader-no-workers"
    preview_variant = f"{OTHER_LOADERS}; loaders of files that never mention a device (CPU-only programs)"
    summary = "DataLoader loads data in the training process (`num_workers=0`)"
    # `DataLoader`, a project subclass of it (`AudioDataLoader`, `BucketLoader`), or a loader
    # factory (`dataset.to_dataloader(...)`, see `semantics.training.loader_factory`).
    triggers = ("Loader", "loader(")
    fix_applicability = Applicability.UNSAFE
    bad_examples = (
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, batch_size=32)\n",
        "import torch\nloader = torch.utils.data.DataLoader(ds, num_workers=0)\n",
        "from torch.utils import data as tud\nloader = tud.DataLoader(ds, 8, True)\n",
    )
    good_examples = (
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, batch_size=32, num_workers=4)\n",
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, num_workers=args.workers)\n",
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, **loader_kwargs)\n",
        "import torch\nfrom mylib import DataLoader\nloader = DataLoader(ds)\n",
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, 32, True, None, None, 8)\n",
        "from torch.utils.data import DataLoader, TensorDataset\nds = TensorDataset(x, y)\nloader = DataLoader(ds, 32)\n",
        "from torch.utils.data import DataLoader, TensorDataset\nloader = DataLoader(TensorDataset(x, y), 32)\nmodel.to(device)\n",
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        # Names assigned a dataset of in-memory tensors.
        self.in_memory: Set[str] = set()

    def visit_Assign(self, node: cst.Assign) -> None:
        """Names bound to an in-memory dataset, until they are bound to something else."""
        names = set(filter(None, (dotted_name(target.target) for target in node.targets)))
        if self._in_memory(node.value):
            self.in_memory |= names
        else:
            self.in_memory -= names

    def visit_Call(self, node: cst.Call) -> None:
        if not builds_dataloader(self.ctx, node.func):
            return
        if self.ctx.qualified_name(node.func) in COLLATING_LOADERS and not self._graphs_built_per_item(node):
            return  # PyTorch Geometric's loaders batch graphs its datasets hold in memory
        unpacked = spread_keywords(self.ctx.module, self.ctx.names, node) if has_star(node, "**") or has_star(node, "*") else {}
        if unpacked is None:
            return  # `**kwargs` that may set the workers
        workers = argument(node, "num_workers", NUM_WORKERS_POSITION)
        if workers is None and "num_workers" in (loader_factory(self.ctx, node.func) or ()):
            return  # a loader factory that sets the workers itself
        value = workers.value if workers is not None else unpacked.get("num_workers")
        literal = value is None or is_literal(value, "0")
        if not literal and not self._set_to_zero(value):
            return
        dataset = argument(node, "dataset", 0)
        if dataset is not None and (self._in_memory(dataset.value) or samples_changing_state(self.ctx, dataset.value)):
            return
        if self.ctx.inference_only:
            return  # an evaluation or inference program passes over its data once per run
        if self.withholds_preview_variant() and not self._feeds_training_on_a_device(node):
            return
        self.report(
            node,
            "DataLoader without worker processes loads every batch in the training loop; set `num_workers`",
            fix=self._fix(node) if literal and not unpacked else None,  # a variable set to 0 is the user's to change
        )

    def _feeds_training_on_a_device(self, node: cst.Call) -> bool:
        """A loader that a loop running with training iterates (or that a builder function
        returns to a training module), in a program that places work on a device, or one a
        framework feeds to its trainer (see `loaders.fed_by_framework`)."""
        if fed_by_framework(self.ctx, node):
            return True
        if loader_use(self.ctx, node) != "train":
            return False
        return self.ctx.serves_device  # a builder module: its program picks the device

    def _set_to_zero(self, value: cst.BaseExpression) -> bool:
        """A name whose only assignment in the file (a notebook's earlier cell included) is `0`,
        a setting that every configuration file of the project sets to `0`
        (`semantics.config_files.configured_zero`), or a parameter as received that the
        project's calls, at least one, leave to a default of `0` or pass `0`
        (`semantics.passed_values.zero_in_every_call`; a library's default is its users')."""
        if zero_in_every_call(self.ctx, value, called=True):
            return True
        if not isinstance(value, cst.Name):
            return configured_zero(self.ctx, value)
        assigned = only_assigned_value(self.ctx.module, value)
        return assigned is not None and is_literal(assigned, "0")

    def _in_memory(self, dataset: cst.BaseExpression) -> bool:
        return in_memory(self.ctx, dataset, self.in_memory)

    def _graphs_built_per_item(self, node: cst.Call) -> bool:
        """A PyTorch Geometric loader over a project dataset that reads or builds each graph
        when indexed (`semantics.datasets.graphs_built_per_item`)."""
        dataset = argument(node, "dataset", 0)
        return dataset is not None and graphs_built_per_item(self.ctx, dataset.value)

    def _fix(self, node: cst.Call) -> PendingFix:
        unsharded = self._unsharded_iterable(node)
        if unsharded is not None:
            return self.withheld(f"`{unsharded}` may be an IterableDataset that does not shard by worker: every worker would yield every item")
        dataset = argument(node, "dataset", 0)
        if dataset is not None and items_may_carry_graph(self.ctx, dataset.value):
            return self.withheld("the dataset's items may carry an autograd graph, which a worker cannot send back")
        if dataset is not None and items_moved_to_device(self.ctx, dataset.value):
            return self.withheld("the dataset moves its items to the device in `__getitem__`: a forked worker cannot use CUDA (move the batch in the loop instead)")
        if dataset is not None and any(keeps_open_file(self.ctx, name) for name in constructed_classes(self.ctx, dataset.value)):
            return self.withheld("the dataset keeps a file it opened in `__init__`: forked workers would share its offset, and their reads interleave")
        quantized = makes_quantized_tensors(self.ctx) if dataset is not None else None
        if quantized is not None:
            return self.withheld(f"the file makes quantized tensors (`{quantized}`), which default collation cannot stack in a worker")
        conjugated = makes_conjugate_views(self.ctx) if dataset is not None else None
        if conjugated is not None:
            return self.withheld(f"the file makes conjugate views of complex tensors (`{conjugated}`), which default collation cannot stack in a worker")
        data_typed = next((found for name in sorted(constructed_classes(self.ctx, dataset.value)) if (found := item_dtype_from_data(self.ctx, name))), None) if dataset is not None else None
        if data_typed is not None:
            return self.withheld(f"the dataset's items may differ in dtype (`{data_typed}` without a dtype): a worker's default collation stacks them into the first item's dtype, which refuses or narrows the others")
        if dataset is not None and handed_open_file(self.ctx, dataset.value):
            return self.withheld("the dataset is handed a file the main process opened: forked workers would share its offset, and their reads interleave")
        if argument(node, "worker_init_fn", WORKER_INIT_POSITION) is not None:
            return self.withheld("its `worker_init_fn` has never run (only workers run it) and may fail there")
        if has_star(node, "**") and spread_keywords(self.ctx.module, self.ctx.names, node, every_run=True) != {}:
            return self.withheld(SPREAD_ON_EVERY_RUN)
        workers = argument(node, "num_workers", NUM_WORKERS_POSITION)
        if workers is None and not takes_keyword(self.ctx, node.func, "num_workers"):
            return self.withheld(NO_SUCH_KEYWORD.format(keyword="num_workers"))
        if workers is not None and workers.keyword is None:
            new_call = node.deep_replace(workers, workers.with_changes(value=cst.Integer(FIX_WORKERS)))
        else:
            new_call = with_keyword(node, "num_workers", cst.Integer(FIX_WORKERS))
        assert isinstance(new_call, cst.Call)
        if argument(node, "pin_memory", PIN_MEMORY_POSITION) is None and self.ctx.uses_cuda and takes_keyword(self.ctx, node.func, "pin_memory"):
            new_call = with_keyword(new_call, "pin_memory", cst.Name("True"))
        changed = (changed_by_file(self.ctx, dataset.value) if dataset is not None else None) or changed_through_loader(self.ctx.module, node)
        if keyword(node, "persistent_workers") is None and not iterated_concurrently(self.ctx.module, node) and changed is None and takes_keyword(self.ctx, node.func, "persistent_workers"):
            new_call = with_keyword(new_call, "persistent_workers", cst.Name("True"))
        return self.fix(NodeEdit(node, new_call), message="Load batches in 4 worker processes")

    def _unsharded_iterable(self, node: cst.Call) -> Optional[str]:
        """The name of the dataset or its class when it may be an `IterableDataset` that does
        not split its items by worker (`get_worker_info()`): a class of this file that does
        not, or a dataset named as a stream or iterator."""
        dataset = argument(node, "dataset", 0)
        if dataset is None:
            return None
        named = (dotted_name(dataset.value) or "").rpartition(".")[2]
        if any(word in named.lower() for word in STREAM_WORDS):
            return named  # `train_iterator`, `stream`: named as an iterable-style dataset
        return torch_iterable(self.ctx, dataset.value) or next(
            (name for name in sorted(constructed_classes(self.ctx, dataset.value)) if unsharded_iterable_class(self.ctx, name)), None
        )


def iterated_concurrently(module: cst.Module, loader: cst.Call) -> bool:
    """Whether the loader `loader` is assigned to is iterated while another pass over it is
    still going on (`zip(loader, loader)`, a loop over it inside another, an iterator kept in
    a name, `partner = iter(loader)`, drawn from inside a loop over it): with persistent
    workers the second pass resets the first one's iterator."""
    name = next(
        (
            dotted_name(target.target)
            for node in nodes_of_type(module, (cst.Assign,))
            if isinstance(node, cst.Assign) and node.value is loader
            for target in node.targets
        ),
        None,
    )
    if name is None:
        return False  # created where it is used or returned: each use starts one pass
    # Names bound to an iterator of the loader (`partner = iter(loader)`): drawing from one
    # continues a pass, wherever it happens.
    iterators = {
        bound
        for node in nodes_of_type(module, (cst.Assign,))
        if isinstance(node, cst.Assign) and opens_pass(node.value, name)
        for target in node.targets
        for bound in bound_names(target.target)
    }
    passes = []
    for node in nodes_of_type(module, (cst.For, cst.Call)):
        if isinstance(node, cst.For) and dotted_name(iterated_source(node.iter)) in {name, *iterators}:
            passes.append(node)
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in ("zip", "iter", "next", "chain"):
            mentions = [arg for arg in node.args if dotted_name(iterated_source(arg.value)) == name]
            if len(mentions) > 1:
                return True
            if mentions or any(dotted_name(arg.value) in iterators for arg in node.args):
                passes.append(node)
    return any(other is not outer and any(item is other for item in descendants(outer)) for outer in passes for other in passes)
