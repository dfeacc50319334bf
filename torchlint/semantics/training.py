"""The training step loop, DDP-wrapped modules and where once-per-script advice goes.

A *training loop* is a `for` loop over a data loader whose body runs a backward pass and an
optimizer step, directly or through functions defined in the same file. Rules whose evidence
is project-wide (mixed precision, cuDNN autotuning, TF32) ask the project index
(`torchlint.semantics.project`) whether the script, or a module it imports from the same
project, enables a feature anywhere.
"""

from __future__ import annotations

import re
import weakref
from typing import Dict, FrozenSet, Iterable, Iterator, List, Optional, Set, Tuple

import libcst as cst

from torchlint.semantics.bindings import reaching_values
from torchlint.semantics.calls import method_call, positional
from torchlint.semantics.heuristics import (
    TRAINING_STEP_METHODS,
    BATCH_DRAWING_WORDS,
    DATA_WORDS,
    LOSS_WORDS,
    OPTIMIZER_WORDS,
    TRAINING_CALL_NAMES,
    TRAINING_CALL_WORDS,
    has_word,
    words,
)
from torchlint.semantics.execution import EVALUATION_STEP_CALLEE, TRAINING_STEP_CALLEE, Execution, Frequency
from torchlint.semantics.facts import FileFacts
from torchlint.semantics.frameworks import ENGINE_BATCH_HOOKS, ENGINE_EPOCH_HOOKS, FIT_HOOKS, LIGHTNING, framework_of
from torchlint.semantics.names import dotted_name
from torchlint.semantics.project import AUTO_PINNING_LOADERS, COLLATING_LOADERS, CUDA, DATALOADERS, ENVIRONMENT, imported_by_project, project_function, project_uses
from torchlint.semantics.tree import children, descendants, iterated_source, leaves_in_first_iteration, nodes_of_type, per_module, source_order
from torchlint.semantics.values import assigned_values, assignment_index, string_value

DISTRIBUTED_DATA_PARALLEL = frozenset(
    {"torch.nn.parallel.DistributedDataParallel", "torch.nn.parallel.distributed.DistributedDataParallel"}
)
BACKWARD = "backward"
STEP = "step"

_LOADER_WORD = "loader"
# Text that a file running on CUDA contains: `cuda`, or the current accelerator (CUDA on NVIDIA
# GPUs); see `FileFacts.uses_cuda`.
CUDA_TRIGGERS = ("cuda", "torch.accelerator")
# The trigger words of once-per-script advice: a training loop (whose program may pick the
# device in another module) or CUDA.
ADVICE_TRIGGERS = (*CUDA_TRIGGERS, "backward", "optim", "training_step")
# Programs built on the distributed RPC framework: their forward passes may run remotely.
_RPC = re.compile(r"\btorch\.distributed\.rpc\b|\bfrom\s+torch\.distributed\s+import\s+[^\n]*\brpc\b")


# ---------------------------------------------------------------------------------------------
# Training loops


def loader_names(module: cst.Module, ctx: "FileFacts") -> FrozenSet[str]:
    """Dotted names (`loader`, `self.train_dl`) assigned a torch `DataLoader(...)` in the file.

    Names resolve through the imports the traversal has seen (aliases included): call it from
    `leave_Module`, or accept that a loader built from a later import is missed. The answers
    are not kept in `ctx.qualified_name`'s cache, which rules fill where the traversal stands.
    """
    names: Set[str] = set()
    for node in nodes_of_type(module, (cst.Assign, cst.AnnAssign)):
        if isinstance(node, cst.Assign) and isinstance(node.value, cst.Call):
            if ctx.names.qualified_name(node.value.func) in DATALOADERS | COLLATING_LOADERS or project_dataloader(ctx, node.value.func):
                names.update(filter(None, (dotted_name(target.target) for target in node.targets)))
        elif isinstance(node, cst.AnnAssign) and isinstance(node.value, cst.Call):
            if ctx.names.qualified_name(node.value.func) in DATALOADERS | COLLATING_LOADERS or project_dataloader(ctx, node.value.func):
                name = dotted_name(node.target)
                if name:
                    names.add(name)
    return frozenset(names)


def builds_dataloader(ctx: "FileFacts", func: cst.BaseExpression) -> bool:
    """Whether calling `func` builds a torch DataLoader: `DataLoader` itself, a library
    subclass (`project.COLLATING_LOADERS`), a library factory that builds one from its keywords
    (`project.AUTO_PINNING_LOADERS`), a project
    class that is one (`project_dataloader`), a project loader factory (`loader_factory`),
    or the `super().__init__` of a DataLoader subclass (`subclass_init`)."""
    return (
        ctx.qualified_name(func) in DATALOADERS | COLLATING_LOADERS | AUTO_PINNING_LOADERS or project_dataloader(ctx, func) or loader_factory(ctx, func) is not None
        or subclass_init(ctx, func) or _loader_class_choice(ctx, func)
    )


NO_SUCH_KEYWORD = "the loader class's `__init__` takes neither `{keyword}` nor `**kwargs`: the added keyword would raise TypeError"


def takes_keyword(ctx: "FileFacts", func: cst.BaseExpression, name: str) -> bool:
    """Whether a call of `func` (a loader class) may be given `name=` by keyword: not a project
    class whose `__init__` takes neither `**kwargs` nor a parameter of that name
    (`FunctionFacts.keyword_limits`), where an added `pin_memory=True` raises `TypeError`."""
    if ctx.qualified_name(func) in DATALOADERS:
        return True
    name_of = dotted_name(func) or ""
    facts = project_function(ctx, func) if name_of.rsplit(".", 1)[-1][:1].isupper() else None
    return facts is None or facts.keyword_limits is None or name in facts.keyword_limits


def _loader_class_choice(ctx: "FileFacts", func: cst.BaseExpression) -> bool:
    """Whether `func` is a local name that holds a DataLoader class wherever it is called:
    every value its function (or the module) assigns it is such a class, or a conditional
    expression of them (`cls = DataLoader if not self.streaming else IterableDataLoader`,
    then `return cls(ds, batch_size=...)`), each named by a capitalised class name."""
    if not isinstance(func, cst.Name) or func.value not in _class_choice_names(ctx.module):
        return False
    key = (id(ctx), func.value)
    if key in _RESOLVING:
        return False  # a cycle of choices (`A = B if c else DataLoader`, `B = A if d else ...`)
    _RESOLVING.add(key)
    try:
        values = reaching_values(ctx.module, ctx.frequency.enclosing_function(func), func.value)
        # `Loader = FastLoader if fast else Loader` keeps the value an other assignment gives
        # it: that value is among `values` already.
        classes = [
            choice for value in values or () for choice in _choices(value)
            if not (isinstance(choice, cst.Name) and choice.value == func.value)
        ]
        return bool(classes) and all(
            (dotted_name(choice) or "").rsplit(".", 1)[-1][:1].isupper() and builds_dataloader(ctx, choice) for choice in classes
        )
    finally:
        _RESOLVING.discard(key)


# The class choices being resolved, by (file facts, name): `_loader_class_choice` follows a
# choice that names another one, but not around a cycle.
_RESOLVING: Set[Tuple[int, str]] = set()


def _choices(value: cst.BaseExpression) -> List[cst.BaseExpression]:
    """The values a conditional expression may take (`A if c else B if d else C`), or the value."""
    if isinstance(value, cst.IfExp):
        return _choices(value.body) + _choices(value.orelse)
    return [value]


@per_module
def _class_choice_names(module: cst.Module) -> FrozenSet[str]:
    """Names the module assigns a class name or a choice between class names (`cls =
    DataLoader if streaming else IterableDataLoader`): the candidates of `_loader_class_choice`."""
    found: Set[str] = set()
    for node in nodes_of_type(module, (cst.Assign,)):
        choices = _choices(node.value)
        if all(isinstance(choice, (cst.Name, cst.Attribute)) and (dotted_name(choice) or "").rsplit(".", 1)[-1][:1].isupper() for choice in choices):
            found.update(target.target.value for target in node.targets if isinstance(target.target, cst.Name))
    return frozenset(found)


def subclass_init(ctx: "FileFacts", func: cst.BaseExpression) -> bool:
    """Whether `func` is `super().__init__` (or `super(Cls, self).__init__`) in the `__init__`
    of a class that subclasses torch's DataLoader, directly or through a project class that
    keeps DataLoader's signature (`project.FunctionFacts.dataloader`), whatever its own
    signature: the call that builds the loader, with the options the subclass chooses
    (`super().__init__(sampler=sampler, **self.init_kwargs)`). Under a base with a signature
    of its own, `super().__init__` passes that base's arguments, not DataLoader's: no; nor in a
    class that hands its arguments on as they are (`project.FunctionFacts.dataloader`), whose
    calls are the loaders."""
    if not (isinstance(func, cst.Attribute) and func.attr.value == "__init__" and isinstance(func.value, cst.Call)):
        return False
    if dotted_name(func.value.func) != "super":
        return False
    function = ctx.frequency.enclosing_function(func)
    klass = ctx.frequency.enclosing_class(function) if function is not None and function.name.value == "__init__" else None
    if klass is None or getattr(project_function(ctx, klass.name), "dataloader", False):
        return False  # a class that hands its arguments on: each call of it is the loader
    return any(
        ctx.qualified_name(base.value) in DATALOADERS or getattr(project_function(ctx, base.value), "dataloader", False)
        for base in klass.bases
    )


def loader_factory(ctx: "FileFacts", func: cst.BaseExpression) -> Optional[FrozenSet[str]]:
    """The keywords a project loader factory sets itself (see
    `project.FunctionFacts.loader_keywords`), when `func` names one: a function or method
    whose name mentions a loader (`training.to_dataloader`, `build_loader`), which alone are
    looked up; None otherwise."""
    name = (dotted_name(func) or "").rsplit(".", 1)[-1]
    if _LOADER_WORD not in name.lower():
        return None
    facts = project_function(ctx, func)
    return facts.loader_keywords if facts is not None else None


def project_dataloader(ctx: "FileFacts", func: cst.BaseExpression) -> bool:
    """Whether `func` names a class of the project (this file or an imported project module)
    that subclasses DataLoader and keeps its signature (`class AudioDataLoader(DataLoader)`;
    see `project.FunctionFacts.dataloader`). Only capitalised names are looked up: classes."""
    name = dotted_name(func) or ""
    if not name.rsplit(".", 1)[-1][:1].isupper():
        return False
    facts = project_function(ctx, func)
    return facts is not None and facts.dataloader


def is_loader_like(node: cst.BaseExpression, loaders: FrozenSet[str] = frozenset()) -> bool:
    """Whether a loop iterates a data loader: `loader`, `enumerate(tqdm(self.train_loader))`,
    `loaders["train"]`, `dm.train_dataloader()`, a name in `loaders` (see `loader_names`), or
    a call that wraps one of those (`logger.log_every(loader, 10)`, `zip(loader_a, loader_b)`)."""
    if isinstance(node, cst.Call) and any(is_loader_like(arg.value, loaders) for arg in positional(node)):
        return True
    node = iterated_source(node)
    if dotted_name(node) in loaders:
        return True
    while True:
        if isinstance(node, cst.Subscript):
            node = node.value
        elif isinstance(node, cst.Call):
            node = node.func
        else:
            break
    if isinstance(node, cst.Name):
        return _LOADER_WORD in node.value.lower()
    if isinstance(node, cst.Attribute):
        return _LOADER_WORD in node.attr.value.lower()
    return False


class LocalFunctions(Dict[str, List[cst.FunctionDef]]):
    """Functions and methods defined anywhere in the file, by name; and in `on_instances`,
    the methods reached by calls on names the file binds to instances of its own classes
    (`agent.step(...)` after `agent = Agent(...)`), by the dotted name called."""

    on_instances: Dict[str, List[cst.FunctionDef]]


def local_functions(module: cst.Module) -> LocalFunctions:
    """The file's functions and methods by name (see `LocalFunctions`)."""
    found = LocalFunctions()
    for node in nodes_of_type(module, (cst.FunctionDef,)):
        if isinstance(node, cst.FunctionDef):
            found.setdefault(node.name.value, []).append(node)
    found.on_instances = _instance_methods(module)
    return found


@per_module
def _instance_methods(module: cst.Module) -> Dict[str, List[cst.FunctionDef]]:
    """`{"agent.step": [Agent.step]}` for each name or attribute that every assignment of the
    file binds to a call of one module-level class of the file (`agent = Agent(...)`,
    `self.agent = Agent(...)`), for the methods of that class and of its same-file bases."""
    classes = {node.name.value: node for node in module.body if isinstance(node, cst.ClassDef)}
    if not classes:
        return {}
    bound: Dict[str, Set[Optional[str]]] = {}
    for node in nodes_of_type(module, (cst.Assign,)):
        value = node.value
        klass = value.func.value if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value in classes else None
        for target in node.targets:
            name = dotted_name(target.target)
            if name:
                bound.setdefault(name, set()).add(klass)
    found: Dict[str, List[cst.FunctionDef]] = {}
    for name, kinds in bound.items():
        klass = next(iter(kinds)) if len(kinds) == 1 else None
        for method in _class_methods(classes, klass) if klass is not None else ():
            found.setdefault(f"{name}.{method.name.value}", []).append(method)
    return found


def _class_methods(classes: Dict[str, cst.ClassDef], name: str, seen: FrozenSet[str] = frozenset()) -> List[cst.FunctionDef]:
    """The methods a module-level class defines, then those of its same-file bases."""
    klass = classes[name]
    own = [item for item in klass.body.body if isinstance(item, cst.FunctionDef)]
    names = {method.name.value for method in own}
    for base in klass.bases:
        base_name = base.value.value if isinstance(base.value, cst.Name) else None
        if base_name in classes and base_name not in seen and base_name != name:
            own += [method for method in _class_methods(classes, base_name, seen | {name}) if method.name.value not in names]
    return own


def called_function(call: cst.Call, functions: Dict[str, List[cst.FunctionDef]]) -> List[cst.FunctionDef]:
    """The same-file functions a call may run: `train_step(...)`, `self.train_step(...)`, or
    a method of a same-file class called on a name bound to its instance (`agent.step(...)`,
    see `LocalFunctions`)."""
    func = call.func
    if isinstance(func, cst.Name):
        return functions.get(func.value, [])
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in ("self", "cls"):
        return functions.get(func.attr.value, [])
    on_instances = getattr(functions, "on_instances", None)
    return on_instances.get(dotted_name(func) or "", []) if on_instances else []


def body_nodes(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Nodes that run when `node` runs: its descendants, without nested function/class bodies."""
    stack: List[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        yield current
        if current is not node and isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        stack.extend(children(current))


def methods_called(
    node: cst.CSTNode, functions: Dict[str, List[cst.FunctionDef]], _seen: Optional[Set[int]] = None
) -> Set[str]:
    """Names of the methods called by `node`, directly or in same-file functions it calls."""
    seen = _seen if _seen is not None else set()
    names: Set[str] = set()
    for item in body_nodes(node):
        if not isinstance(item, cst.Call):
            continue
        found = method_call(item)
        if found is not None:
            names.add(found[1])
            if _steps_an_optimizer(found[0], found[1]):
                names.add(STEP)
        if runs_a_training_step(item):
            names.update((BACKWARD, STEP))
        for function in called_function(item, functions):
            if id(function) not in seen:
                seen.add(id(function))
                names |= methods_called(function.body, functions, seen)
    return names


def _steps_an_optimizer(receiver: cst.BaseExpression, method: str) -> bool:
    """`optimizer.step_and_update_lr()`, `self.optim.step_with_closure()`: an optimizer's own
    variant of `step()`."""
    name = (dotted_name(receiver) or "").rsplit(".", 1)[-1]
    return "step" in words(method) and has_word(name, OPTIMIZER_WORDS)


def steps_an_optimizer(call: cst.Call) -> bool:
    """`optimizer.step()`, `self.optim.step_and_update_lr()`: an optimizer step."""
    found = method_call(call)
    return found is not None and _steps_an_optimizer(*found)


def runs_a_training_step(call: cst.Call) -> bool:
    """A call handed both the loss and the optimizer (`loss_scaler(loss, optimizer, ...)`,
    `amp_step(loss, optimizer)`): a helper or callable object that runs the backward pass and
    the optimizer step."""
    named = [(dotted_name(arg.value) or "").rsplit(".", 1)[-1] for arg in call.args]
    return any(has_word(name, LOSS_WORDS) for name in named) and any(has_word(name, OPTIMIZER_WORDS) for name in named)


def is_training_loop(
    loop: cst.CSTNode,
    ctx: "FileFacts",
    functions: Optional[Dict[str, List[cst.FunctionDef]]] = None,
    loaders: Optional[FrozenSet[str]] = None,
) -> bool:
    """A loop over batches whose body calls `.backward()` and `.step()`, directly or in
    functions defined in the same file that it calls: a `for` loop over a data loader or over
    data (`for batch in tqdm(training_data)`), or a `for`/`while` loop that draws a batch from
    a loader each iteration."""
    if not isinstance(loop, (cst.For, cst.While)):
        return False
    if loaders is None:
        loaders = loader_names(ctx.module, ctx)
    over_batches = isinstance(loop, cst.For) and (is_loader_like(loop.iter, loaders) or iterates_data(loop.iter))
    if not over_batches and not _draws_batches(loop, ctx.module, loaders):
        return False
    if functions is None:
        functions = ctx.frequency.local_functions()
    called = methods_called(loop.body, functions)
    return BACKWARD in called and STEP in called


def iterates_data(node: cst.BaseExpression) -> bool:
    """An iterable named for training data, through wrappers: `training_data`,
    `tqdm(train_data)`, `enumerate(batches)` (the words of `heuristics.DATA_WORDS`), or a call
    that yields batches (`get_batches(words, 512)`)."""
    if isinstance(node, cst.Call) and any(iterates_data(arg.value) for arg in positional(node)):
        return True
    if isinstance(node, cst.Call) and words((dotted_name(node.func) or "").rsplit(".", 1)[-1])[-1:] == ["batches"]:
        return True  # `get_batches(words, 512)`, `iterate_batches(...)`
    name = dotted_name(iterated_source(node)) or ""
    return has_word(name.rsplit(".", 1)[-1], DATA_WORDS)


def _draws_batches(loop: cst.CSTNode, module: cst.Module, loaders: FrozenSet[str]) -> bool:
    """Whether each iteration draws a batch from a data loader: `next(iter(loader))`,
    `next(loader_iter)` where `loader_iter = iter(loader)` (iteration-based training, as in
    GAN code: `for i in range(num_iters): x = next(data_iter)`, `self.data.__next__()` where
    `self.data = self.get_infinite_batches(train_loader)`), or a call named for drawing one
    (`train_dataset.get_batch()`)."""
    if any(isinstance(node, cst.Call) and _named_as_drawing_a_batch(node) for node in outside_nested_loops(loop.body)):
        return True  # in a nested loop (`for x in get_batches(data)` in the epoch loop) it is that loop's
    for node in body_nodes(loop.body):
        drawn = drawn_from(node)
        if drawn is not None:
            name = dotted_name(drawn) if isinstance(drawn, (cst.Name, cst.Attribute)) else None
            sources = assigned_values(module, name) if name else [drawn]
            if any(is_loader_like(_iterated_by_iter(source), loaders) for source in sources or [drawn]):
                return True
    return False


def drawn_from(node: cst.CSTNode) -> Optional[cst.BaseExpression]:
    """The iterator `next(it)`, `it.__next__()` or `it.next()` (the Python 2 spelling some
    projects keep) draws from, if `node` is such a call."""
    if not isinstance(node, cst.Call):
        return None
    if isinstance(node.func, cst.Name) and node.func.value == "next" and node.args:
        return node.args[0].value
    found = method_call(node)
    return found[0] if found is not None and found[1] in ("__next__", "next") and not node.args else None


def outside_nested_loops(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Nodes that run once per iteration of the loop whose body `node` is: its descendants,
    without nested loops (but with one that leaves in its first iteration: `for batch in
    loader: ...; break` trains on one batch per outer iteration), functions and classes."""
    stack: List[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if current is not node and isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        if current is not node and isinstance(current, (cst.For, cst.While)) and not leaves_in_first_iteration(current.body):
            continue
        yield current
        stack.extend(children(current))


def _named_as_drawing_a_batch(call: cst.Call) -> bool:
    """`train_dataset.get_batch()`, `get_batch("train")`, `data.next_batch()`: a call that says
    it draws the next batch (a word of `heuristics.BATCH_DRAWING_WORDS`, then `batch` last;
    not `get_batch_size()`)."""
    parts = words((dotted_name(call.func) or "").rsplit(".", 1)[-1])
    return bool(parts) and parts[-1] in ("batch", "batches") and any(word in BATCH_DRAWING_WORDS for word in parts)


# Methods of a replay memory that hand out stored experience.
REPLAY_WORDS = frozenset({"sample", "draw"})
# Their names in full: `buffer.replay(size=32)` (not `append_to_replay`, which stores).
REPLAY_METHODS = frozenset({"replay"})


def feeds_batch_source(node: cst.CSTNode, names: Set[str], loop: cst.CSTNode, scope: Optional[cst.CSTNode] = None) -> bool:
    """Whether `loop` hands the value of `node` (or a name assigned it) to a method of an object
    that `loop`, or another loop of `scope`, draws batches from (`rb.update_priorities(idx, p)`
    beside `rb.sample(n)`; `memory.append(obs, action.cpu())` in a collection loop whose
    memory a training loop samples): the next batches depend on it (prioritised or plain
    replay), so it must reach the host."""
    calls = [item for item in descendants(loop) if isinstance(item, cst.Call) and isinstance(item.func, cst.Attribute)]
    sources = {dotted_name(call.func.value) for call in calls if any(word in BATCH_DRAWING_WORDS for word in words(call.func.attr.value))}
    if scope is not None:  # a memory other loops sample from (`D.sample(batch_size)`)
        sources |= _replay_sources(scope) if isinstance(scope, cst.Module) else _sampled_memories(scope)
    sources.discard(None)
    return any(
        dotted_name(call.func.value) in sources
        and any(item is node or (isinstance(item, cst.Name) and item.value in names) for arg in call.args for item in descendants(arg))
        for call in calls
        if isinstance(call.func, cst.Attribute)
    )


def _sampled_memories(scope: cst.CSTNode) -> Set[Optional[str]]:
    """The objects `scope` samples from (`D.sample(batch_size)`), by dotted name."""
    calls = (item for item in descendants(scope) if isinstance(item, cst.Call) and isinstance(item.func, cst.Attribute))
    return {
        dotted_name(call.func.value) for call in calls
        if call.func.attr.value in REPLAY_METHODS or any(word in REPLAY_WORDS for word in words(call.func.attr.value))
    }


@per_module
def _replay_sources(module: cst.Module) -> FrozenSet[Optional[str]]:
    """`_sampled_memories` of a whole module, found once."""
    return frozenset(_sampled_memories(module))


def _iterated_by_iter(node: cst.BaseExpression) -> cst.BaseExpression:
    """`loader` for `iter(loader)`; the node itself otherwise."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "iter" and node.args:
        return node.args[0].value
    return node


@per_module
def engine_hooks(module: cst.Module) -> Dict[str, Frequency]:
    """How often an engine runs the functions of the file it is handed, by name: PER_STEP for
    a function handed by name to a call of another object's method together with a data
    loader (`engine.train(h, train_loader, epochs, optimizer)`; not a call of a function of
    this file, whose loops are visible) and for the functions assigned to that object's
    per-batch hooks (`engine.hooks["on_forward"] = on_forward`, see
    `frameworks.ENGINE_BATCH_HOOKS`); PER_EPOCH for those assigned to its epoch hooks
    (`engine.hooks["on_end_epoch"] = on_end_epoch`). Computed once per file."""
    functions = local_functions(module)
    found: Dict[str, Frequency] = {}
    engines: Set[str] = set()
    for call in nodes_of_type(module, (cst.Call,)):
        if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute) or called_function(call, functions):
            continue
        handed = [arg.value.value for arg in positional(call) if isinstance(arg.value, cst.Name) and arg.value.value in functions]
        if handed and any(_holds_loader(module, arg.value) for arg in positional(call)):
            found.update((name, Frequency.PER_STEP) for name in handed)
            engines.add(f"{dotted_name(call.func.value)}.hooks")
    for node in nodes_of_type(module, (cst.Assign,)):
        target = node.targets[0].target if isinstance(node, cst.Assign) and len(node.targets) == 1 else None
        if not isinstance(target, cst.Subscript) or not isinstance(node.value, cst.Name) or len(target.slice) != 1:
            continue
        index = target.slice[0].slice
        key = string_value(index.value) if isinstance(index, cst.Index) else None
        if dotted_name(target.value) in engines and key in ENGINE_BATCH_HOOKS | ENGINE_EPOCH_HOOKS:
            found[node.value.value] = Frequency.PER_STEP if key in ENGINE_BATCH_HOOKS else Frequency.PER_EPOCH
    return found


def _holds_loader(module: cst.Module, node: cst.BaseExpression) -> bool:
    """A loader by what the file does with it or, where that is unknown, by its name (see
    `_loader_holders`, `is_loader_like`)."""
    return (isinstance(node, cst.Name) and node.value in _loader_holders(module)) or is_loader_like(node)


@per_module
def _loader_holders(module: cst.Module) -> FrozenSet[str]:
    """The names the file uses as loaders, decided by effects first: a name a loop iterates
    whose body runs a backward pass and an optimizer step (`for x, y in batches:` training),
    a name assigned a `DataLoader(...)` or what a same-file function returns one from
    (`iter_train = get_iterator(path, True)`). The name of a value (`train_loader`,
    `dm.train_dataloader()`) is the tie-breaker where no effect is seen: a loader handed on
    unread. One walk of the file's assignments, loops and functions, whatever the number of
    calls that ask."""
    functions = local_functions(module)
    returning = {
        name
        for name, defined in functions.items()
        if any(isinstance(item, cst.Return) and item.value is not None and is_loader_like(item.value) for function in defined for item in descendants(function))
    }

    def holds(value: cst.BaseExpression) -> bool:
        return is_loader_like(value) or (isinstance(value, cst.Call) and any(f.name.value in returning for f in called_function(value, functions)))

    found = {name for name, values in assignment_index(module).items() if "." not in name and any(holds(value) for value in values)}
    for loop in nodes_of_type(module, (cst.For,)):
        source = iterated_source(loop.iter) if isinstance(loop, cst.For) else None
        if isinstance(source, cst.Name) and trains(loop, functions):
            found.add(source.value)
    return frozenset(found)


def trains(loop: cst.CSTNode, functions: Dict[str, List[cst.FunctionDef]]) -> bool:
    """Whether each iteration of a loop (`for`, `while`) runs a backward pass and a `.step()`,
    directly or in same-file functions it calls; unlike `is_training_loop`, whatever it
    iterates (`for step in range(max_steps)`, `while step < total`)."""
    if not isinstance(loop, (cst.For, cst.While)):
        return False
    called = methods_called(loop.body, functions)
    return BACKWARD in called and STEP in called


def loops_run_by(
    node: cst.CSTNode, functions: Dict[str, List[cst.FunctionDef]], _seen: Optional[Set[int]] = None
) -> Iterator[cst.CSTNode]:
    """The `for` and `while` loops that run when `node` runs: in its body and in the same-file
    functions it calls, transitively."""
    seen = _seen if _seen is not None else set()
    for item in body_nodes(node):
        if isinstance(item, (cst.For, cst.While)):
            yield item
        if isinstance(item, cst.Call):
            for function in called_function(item, functions):
                if id(function) not in seen:
                    seen.add(id(function))
                    yield from loops_run_by(function.body, functions, seen)


_TRAINING_LOOPS: "weakref.WeakKeyDictionary[FileFacts, Tuple[cst.CSTNode, ...]]" = weakref.WeakKeyDictionary()


def training_loops(ctx: "FileFacts") -> Tuple[cst.CSTNode, ...]:
    """The file's training loops in source order, computed once per file.

    Call it after the traversal has seen the module's imports (from `leave_Module`).
    """
    found = _TRAINING_LOOPS.get(ctx)
    if found is None:
        functions = ctx.frequency.local_functions()
        loaders = loader_names(ctx.module, ctx)
        candidates = source_order(ctx.module, nodes_of_type(ctx.module, (cst.For, cst.While)))
        found = tuple(node for node in candidates if is_training_loop(node, ctx, functions, loaders))
        _TRAINING_LOOPS[ctx] = found
    return found


def is_ddp_wrap(call: cst.Call, ctx: "FileFacts") -> bool:
    """`DistributedDataParallel(model, ...)` from torch, however imported."""
    return ctx.qualified_name(call.func) in DISTRIBUTED_DATA_PARALLEL


# ---------------------------------------------------------------------------------------------
# Programs that never train


def inference_only(ctx: "FileFacts") -> bool:
    """Whether the file is a program (a notebook, or a script with an `if __name__ ==
    "__main__":` block) that never trains: no call in it reads as training (`backward`,
    `step`, `zero_grad`, `fit`, `train...`, the optimizer module, `autograd.grad`) and no project
    function it calls runs a backward pass. Evaluation, inference, sampling and feature-dump
    programs pass over their data once per run. A module without an entry point, or one that
    another project module imports (its `__main__` block is a self-test), may serve a
    training script, so it never counts."""
    if not (ctx.path.endswith(".ipynb") or any(_is_main_block(statement) for statement in ctx.module.body)):
        return False
    return not _trains_anywhere(ctx) and not imported_by_project(ctx)


def in_untrained_main_block(ctx: "FileFacts", path: Iterable[Tuple[cst.CSTNode, cst.CSTNode]]) -> bool:
    """Whether the code at the end of `path` ((ancestor, child) pairs, innermost first) is in
    the `if __name__ == "__main__":` block of a module in which nothing trains: the block runs
    only when the module runs as a program (never for an importer), and that program passes
    over its data once (an evaluation or feature-dump script that other modules import from)."""
    return any(ancestor is ctx.module and _is_main_block(child) for ancestor, child in path) and not _trains_anywhere(ctx)


def untrained_script(ctx: "FileFacts") -> bool:
    """Whether the file is a script without an entry-point block that never trains: its
    module-level code calls something as a statement (`audio_model.load_state_dict(sd)`,
    `main()`), no project module imports it, and no call of it reads as training (see
    `inference_only`, which judges notebooks and `__main__` blocks only). Such a script runs
    once per invocation (an evaluation or a demo of a pretrained model)."""
    runs = any(
        isinstance(statement, cst.SimpleStatementLine) and any(isinstance(part, cst.Expr) and isinstance(part.value, cst.Call) for part in statement.body)
        for statement in ctx.module.body
    )
    return runs and not _trains_anywhere(ctx) and not imported_by_project(ctx)


def _trains_anywhere(ctx: "FileFacts") -> bool:
    """Whether a call of the module reads as training (see `inference_only`)."""
    return any(isinstance(node, cst.Call) and _reads_as_training(ctx, node.func) for node in nodes_of_type(ctx.module, (cst.Call,)))


def _is_main_block(statement: cst.CSTNode) -> bool:
    return isinstance(statement, cst.If) and isinstance(statement.test, cst.Comparison) and dotted_name(statement.test.left) == "__name__"


def loop_trains(ctx: "FileFacts", loop: cst.CSTNode) -> bool:
    """Whether a loop's iterations train: a backward pass (in the loop or in a same-file
    function it calls), a call whose name reads as training (`optimizer.step()`,
    `train_step(batch)`), or a call of another project module's function or method that runs
    a backward pass (`exp.step(batch)`, the project index's `FunctionFacts.calls_backward`),
    in the loop or in a same-file function it calls.
    A bare `.step()` is not evidence by its name: environments (`envs.step(action)`) and
    diffusion samplers (`scheduler.step(eps, t, x)`) have one too. Only names and the project
    index are read: the traversal may not have reached the loop's bindings yet. Answered once
    per loop: every read-back in the loop asks."""
    known = _LOOPS_TRAIN.setdefault(ctx, {})
    if id(loop) not in known:
        known[id(loop)] = ctx.frequency.runs_backward(loop) or any(
            isinstance(node, cst.Call) and _named_as_training(node.func, bare_names=False) for node in body_nodes(loop)
        ) or any(
            isinstance(call.func, (cst.Name, cst.Attribute)) and getattr(project_function(ctx, call.func), "calls_backward", False)
            for call in _calls_reached(loop, ctx.frequency.local_functions())
        )
    return known[id(loop)]


# Per checked file, whether each loop (by id) trains (`loop_trains`).
_LOOPS_TRAIN: "weakref.WeakKeyDictionary[FileFacts, Dict[int, bool]]" = weakref.WeakKeyDictionary()


def _calls_reached(node: cst.CSTNode, functions: Dict[str, List[cst.FunctionDef]]) -> Iterator[cst.Call]:
    """The calls `node` runs that no same-file function answers, directly or in the same-file
    functions it calls (`update_params(batch)` calling another module's `a2c_step(...)`)."""
    seen: Set[int] = set()
    pending: List[cst.CSTNode] = [node]
    while pending:
        for item in body_nodes(pending.pop()):
            if not isinstance(item, cst.Call):
                continue
            local = called_function(item, functions)
            if not local:
                yield item
            for function in local:
                if id(function) not in seen:
                    seen.add(id(function))
                    pending.append(function.body)


def environment_steps(loop: cst.CSTNode) -> List[cst.Call]:
    """The environment steps of a loop in the Gym API, `obs, reward, done, info =
    env.step(action)`: a `.step(...)` with an argument whose result unpacks into three names or
    more. Environments run on the host and take host actions."""
    found = []
    for node in body_nodes(loop):
        if not (isinstance(node, cst.Assign) and isinstance(node.value, cst.Call) and node.value.args):
            continue
        target = node.targets[0].target
        found_call = method_call(node.value)
        if found_call is not None and found_call[1] == STEP and isinstance(target, cst.Tuple) and len(target.elements) >= 3:
            found.append(node.value)
    return found


def _reads_as_training(ctx: "FileFacts", func: cst.BaseExpression) -> bool:
    if _named_as_training(func, bare_names=True):
        return True
    facts = project_function(ctx, func) if isinstance(func, (cst.Name, cst.Attribute)) else None
    return facts is not None and facts.calls_backward


def _named_as_training(func: cst.BaseExpression, bare_names: bool) -> bool:
    """A call named for training; a constructor named only by its namespace builds a value
    (`torch.autograd.Variable(x)`, `optim.SGD(params)`) and does not train."""
    parts = (dotted_name(func) or "").split(".")
    if isinstance(func, cst.Attribute):
        parts.append(func.attr.value)  # `model(x).sum().backward()`: the receiver has no name
    if parts[-1][:1].isupper():
        parts = parts[-1:]
    return (bare_names and parts[-1] in TRAINING_CALL_NAMES) or any(
        word in TRAINING_CALL_WORDS for part in parts for word in words(part)
    )


# ---------------------------------------------------------------------------------------------
# Once-per-script advice


def remote_program(ctx: "FileFacts") -> bool:
    """Whether the file is a program on the distributed RPC framework: its forward passes may
    run in another process, and remote round trips dominate each step, so the local costs of
    a step (pinning, the optimizer's kernels, precision settings) are not measurable."""
    return _RPC.search(ctx.text) is not None


def advice_site(ctx: "FileFacts", *enabling: str) -> Optional[cst.CSTNode]:
    """Where once-per-script advice goes: the file's first training loop (the first
    `training_step` of a Lightning module when no loop is in sight), in a program that runs on
    CUDA (the file, a project module it imports, or one that imports it: the entry script that
    picks the device for the trainer module's loop), unless the program already enables one of
    the `enabling` features, found the same way (see `project.project_uses`). Advice is about
    the program, not a loop: a file with several training loops or routines gets it once.

    Silent in reinforcement-learning programs (they step Gym environments): their networks are
    small and their time goes to the environments on the host, so the throughput settings of a
    training loop change little there."""
    steps = framework_training_steps(ctx)
    loops = training_loops(ctx) or steps
    if not loops or remote_program(ctx):
        return None
    if not (steps or ctx.uses_cuda or project_uses(ctx, CUDA)):
        return None  # a framework's trainer runs on the GPU it finds unless told otherwise
    if any(project_uses(ctx, feature) for feature in (*enabling, ENVIRONMENT)):
        return None
    return loops[0]


def framework_training_steps(ctx: "FileFacts") -> Tuple[cst.FunctionDef, ...]:
    """The `training_step` methods of the file's `LightningModule` classes: the step a
    Lightning trainer runs, where its once-per-program advice goes when no loop is in sight."""
    found = []
    classes = ctx.frequency.classes()
    for group in classes.values():
        for klass in group:
            if framework_of(klass, classes) != LIGHTNING:
                continue
            found += [item for item in klass.body.body if isinstance(item, cst.FunctionDef) and item.name.value == "training_step"]
    return tuple(found)


def loop_header(loop: cst.CSTNode) -> cst.CSTNode:
    """What a finding about a whole loop ends at: the iterable of a `for`, the test of a `while`,
    the name of a framework's step method."""
    if isinstance(loop, cst.FunctionDef):
        return loop.name
    return loop.iter if isinstance(loop, cst.For) else loop.test if isinstance(loop, cst.While) else loop


# ---------------------------------------------------------------------------------------------
# Step loops that run with training


# The preview variant of rules about step loops: loops that `repeated_with_training` rejects.
OTHER_LOOPS = "loops that neither train nor run every epoch of a program that trains (generation, inference helpers)"


def repeated_with_training(ctx: "FileFacts", loop: cst.CSTNode) -> bool:
    """Whether a step loop runs as part of training: it trains (`training.loop_trains`), or
    it runs again every epoch of a program that trains (the per-epoch validation loop), or
    its function is called every training step of another module (a loss helper's loop over
    discriminator outputs) or every batch of its per-epoch evaluation, or it runs inside a loop that trains (a loop over the samples of
    each training batch); a loop over a generator's output or in an inference helper, of
    unknown frequency, does not."""
    execution = ctx.execution(loop)
    return (
        loop_trains(ctx, loop)
        or execution.frequency is Frequency.PER_EPOCH
        or called_every_training_step(execution)
        or called_every_step_elsewhere(execution)
        or runs_in_fit_hook(ctx, execution)
        or _inside_training_loop(ctx, execution)
    )


def _inside_training_loop(ctx: "FileFacts", execution: Execution, depth: int = 0) -> bool:
    """Whether code that runs every iteration of a step loop (`execution`) runs in a training
    step: that loop, or one that runs it every iteration in turn (directly or through the
    functions it calls), runs the backward pass in its own iteration, outside the loops
    nested in it (`frequency.steps_itself`), not a loop over whole runs (an inference pass that a
    loop over cross-validation folds runs after fitting each fold) nor a per-epoch
    evaluation loop, whose per-sample values are often the evaluation's output. Code under an
    interval (a validation pass every 1000 steps) is no per-step work."""
    outer = execution.step_loop() if execution.frequency is Frequency.PER_STEP and execution.interval_guard() is None else None
    if outer is None or depth >= MAX_LOOP_NESTING:
        return False
    if ctx.frequency.steps_itself(outer):
        return True  # its own iteration runs the backward pass
    return _inside_training_loop(ctx, ctx.execution(outer), depth + 1)


def runs_in_fit_hook(ctx: "FileFacts", execution: Execution, depth: int = 0) -> bool:
    """Whether code runs because a framework calls its function, or a function that calls it
    (in a loop too), every batch of a fit: training and validation hooks
    (`GreedyDecoder.process_string`'s loop, reached from a `LightningModule`'s
    `validation_step` through `decode()`'s loop over the batch), not `test_step`."""
    if execution.framework():
        return execution.step_method() in FIT_HOOKS
    outer = execution.step_loop()
    return outer is not None and depth < MAX_LOOP_NESTING and runs_in_fit_hook(ctx, ctx.execution(outer), depth + 1)


# How many loops, each in a function called from the next one's body, are followed outwards.
MAX_LOOP_NESTING = 8


def called_every_training_step(execution: Execution) -> bool:
    """Whether code runs because another module's training step loop calls its function
    (`frequency.called_elsewhere`): whatever it does, every training step does."""
    return execution.step_method() == TRAINING_STEP_CALLEE


def called_every_step_elsewhere(execution: Execution) -> bool:
    """Whether code runs every training step because a step loop of another module calls its
    function (`agent.update(batch)` in the entry script), or every batch of another module's
    per-epoch evaluation (`calculate_metrics(batch)` in a `validate()` run every epoch), not a
    step method of its own file."""
    return any(reason.external and reason.method in (TRAINING_STEP_CALLEE, EVALUATION_STEP_CALLEE) for reason in execution.reasons)


def runs_with_training_steps(ctx: "FileFacts", execution: Execution, depth: int = 0) -> bool:
    """Whether per-step code runs as part of training: the step loop that repeats it runs with
    training (`repeated_with_training`), or the code is in (or only called from) `forward()`
    or a training step method, which every training step runs, or in a framework's batch hook
    that runs with a fit (`validation_step` of a `LightningModule`, every epoch). A loop that
    itself runs with training steps (`for module in self.layers:` in `forward()`) runs its body
    with them too."""
    loop = execution.step_loop()
    if loop is not None:
        if repeated_with_training(ctx, loop):
            return True
        return depth < MAX_LOOP_NESTING and runs_with_training_steps(ctx, ctx.execution(loop), depth + 1)
    method = execution.step_method()
    return method in TRAINING_STEP_METHODS or (bool(execution.framework()) and method in FIT_HOOKS)


def after_train_mode_switch(path: Iterable[Tuple[cst.CSTNode, cst.CSTNode]]) -> bool:
    """Whether an earlier statement of the same loop iteration switches a module to training
    mode (`model.train()` at the top of the epoch loop, before the batch loop's backward pass):
    `path` is the (ancestor, child) chain of a node, innermost first. A graph that backward
    pass differentiates was recorded in training mode, not by a later evaluation."""
    switched = False
    for ancestor, child in path:
        if isinstance(ancestor, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            return False
        if isinstance(ancestor, cst.IndentedBlock):
            before = ancestor.body[: next((i for i, item in enumerate(ancestor.body) if item is child), 0)]
            switched = switched or any(_switches_to_training(item) for item in before)
        if isinstance(ancestor, (cst.For, cst.While)) and switched:
            return True
    return False


def _switches_to_training(statement: cst.CSTNode) -> bool:
    """`model.train()`, `self.net.train(True)` in the statement (not `engine.train(model, ...)`)."""
    for node in descendants(statement):
        found = method_call(node)
        if found is not None and found[1] == "train":
            args = node.args  # type: ignore[attr-defined]
            if not args or (len(args) == 1 and isinstance(args[0].value, cst.Name) and args[0].value.value == "True"):
                return True
    return False
