"""What a data loader is for: the loops that iterate it, followed into same-file functions."""

from __future__ import annotations

import ast
import os
import weakref
from dataclasses import dataclass
from typing import Callable, Dict, FrozenSet, Iterator, List, Optional, Set, Tuple

import libcst as cst

from torchlint.semantics.calls import arguments_by_parameter, is_literal, keyword, positional
from torchlint.semantics.framework_names import FRAMEWORK_BASES, LIGHTNING, LIGHTNING_ONCE_HOOKS, LIGHTNING_PACKAGES, TRAINING_LOADER_HOOKS, TRAINING_STEP, VALIDATION_LOADER_HOOK, VALIDATION_STEP
from torchlint.semantics.frameworks import bound_hooks, loader_hook
from torchlint.semantics.heuristics import OPTIMIZER_WORDS, has_word
from torchlint.semantics.execution import Frequency
from torchlint.semantics.facts import FileFacts
from torchlint.semantics.names import dotted_name
from torchlint.semantics.project import CPU_TRAINER, TRAINING, CallSite, FunctionFacts, element_name, file_enables, hands_result_to_lightning, hands_result_to_training, imported_global_hand_offs, moves_result_every_epoch, project_imports_lightning, project_mentions, passes_result_once, project_function, read_code, result_sites, role_path
from torchlint.semantics.roles import is_profiling_script
from torchlint.semantics.stored_results import stores_result_for_training
from torchlint.semantics.trainers import lightning_on_cpu
from torchlint.semantics.training import BACKWARD, STEP, called_function, subclass_init, drawn_from, loop_trains, methods_called, repeated_with_training, training_loops
from torchlint.semantics.tree import bound_names, children, parameter_names, descendants, descendants_of_type, in_source_order, iterated_source, module_nodes, nodes_of_type, per_module, scope_descendants


# The preview variant of the loader rules: loaders whose `loader_use` is not "train".
OTHER_LOADERS = "loaders that no loop running with training iterates in the file (a final test loader, loaders returned or handed to other modules)"



def loader_use(ctx: "FileFacts", loader: cst.Call) -> str:
    """How the file uses the loader `loader` builds: "train" when a loop that runs with
    training iterates it (directly, or as the argument of a same-file function that does): a
    loop that trains, or the per-epoch validation loop (see
    `frequency.repeated_with_training`); "other" when only other loops do (a final test, an
    inference pass), "unknown" otherwise (returned, passed to another module, kept in a
    container).

    A loop in a function the loader is handed to is judged at the call that hands it on: the
    `evaluate(model, valid_loader)` of the epoch loop runs with training, the
    `evaluate(model, test_loader)` after training does not, though both reach the same loop.
    A pass drawn by hand (`hand_drawn`: `next(data)` in a loop that trains) runs with training.
    A loader the file passes over once (its own evaluation script) that a builder also
    returns to another module's epoch loop (the training script's per-epoch evaluation)
    runs with training there."""
    if fed_by_framework(ctx, loader) or any(run.trains or run.per_epoch for run in engine_runs(ctx, loader)):
        return "train"
    if any(repeated_with_training(ctx, draw.loop) for draw in hand_drawn(ctx, loader)):
        return "train"  # `x, y = next(data)` in a loop that trains
    passes = passes_over(ctx, loader)
    handed = handed_on(ctx, loader)
    if not passes and not handed:
        trained = returned_to_training(ctx, loader) or any(
            facts.trains and facts.iterates_argument(call, name) for call, facts, name in _imported_hand_offs(ctx, loader)
        )
        return "train" if trained else "unknown"
    trains = any(_runs_with_training(ctx, loop, start) for loop, start in passes) or any(
        _started_with_training(ctx, call) for call in [*handed, *_method_starts(ctx, loader)]
    ) or handed_to_epochs(ctx, loader) or returned_to_epoch_loop(ctx, loader, moved=False)
    return "train" if trains else "other"


def returned_to_training(ctx: "FileFacts", loader: cst.Call, repeatedly: bool = False) -> bool:
    """Whether the calls that give the loader (see `result_of`: a module-level function that
    returns it, `return DataLoader(...)` or the name, a tuple or a dict holding it) return it
    to a module that trains: a call of that function in
    this file, which has a training loop, or in another project module that runs a backward
    pass or a trainer's `fit` (`train_loader = build_loader(cfg)` in the training script,
    unless that module only passes over it once outside its loops: the test loader of
    `compute_accuracy(model, test_loader)` after training, `project.passes_result_once`), or
    that hands the loaders to a project function that trains (`engine.train(model,
    train_loader, ...)` in a script that calls the builder of a third module), or that keeps
    it on an instance whose class loops over it in training every epoch
    (`stored_results.stores_result_for_training`). `repeatedly`:
    only that hand-off, and only to a function that loops over epochs or in a loop (a pass
    over the loader starts again and again)."""
    result = result_of(ctx, loader)
    if result is None:
        return False
    here = os.path.abspath(ctx.path)
    for site, slot in result_sites(here, *result) if os.path.isfile(ctx.path) else ():
        if stores_result_for_training(site, slot):
            return True  # kept on the instance for its training loop (`self.train_loader = self.get_train_loader(cfg)`)
        if os.path.abspath(site.path) == here:
            if training_loops(ctx) and not repeatedly:
                return True
        elif repeatedly:
            if hands_result_to_training(site, slot, repeatedly=True):
                return True
        elif hands_result_to_training(site, slot):
            return True
        elif file_enables(read_code(site.path).text, TRAINING) and not passes_result_once(site, slot) and not _once_per_fit(site):
            return True
    return False


def _once_per_fit(site: CallSite) -> bool:
    """Whether the call at `site` is made by a Lightning hook that runs once per fit
    (`train_loader = self.train_dataloader()` in `on_train_start`, to fit a k-NN once)."""
    hook = (site.caller or "").rpartition(".")[2]
    return hook in LIGHTNING_ONCE_HOOKS and (any(FRAMEWORK_BASES.get(base) == LIGHTNING for base in site.caller_bases) or project_imports_lightning(site.path))


def returned_to_epoch_loop(ctx: "FileFacts", loader: cst.Call, moved: bool = True) -> bool:
    """Whether the calls that give the loader (see `result_of`; alone, in a tuple or in a list
    a builder appends it to) return it to a scope of another project module that moves its batches to a device
    every epoch (see `project.moves_result_every_epoch`): `train_loader, val_loader =
    get_loaders(cfg)`, then `x.cuda()` in the epoch loop of the training script; or to a scope
    of its own module that hands it to a project function doing so (`train(loader, ...)`
    imported from the trainer module, drawing `next(iter(loader))` every epoch). With `moved`
    False, one that passes over it every epoch, moving its batches or not."""
    result = result_of(ctx, loader) if os.path.isfile(ctx.path) else None
    if result is None or result[1] == INSIDE:
        return False
    here = os.path.abspath(ctx.path)
    return any(
        moves_result_every_epoch(site, slot, moved, handed_only=os.path.abspath(site.path) == here)
        for site, slot in result_sites(here, *result)
    )


# `result_of` of the loaders of the files being checked, by the loader's id (with the loader):
# the loader questions each ask it of the same loaders.
_RESULTS: "weakref.WeakKeyDictionary[FileFacts, Dict[int, Tuple[cst.Call, Optional[Tuple[str, int]]]]]" = weakref.WeakKeyDictionary()


def result_of(ctx: "FileFacts", loader: cst.Call) -> Optional[Tuple[str, int]]:
    """The callable whose calls give the loader, named as `project.callers_of` takes it, and
    where in their result the loader is (`WHOLE`, `INSIDE` or a tuple index): a module-level
    function that returns it (`_return_slot`); a DataLoader subclass whose `super().__init__`
    builds it (the class: each instance is the loader); or a method of a module-level class
    that returns it (`Class.method`, called on instances the project builds by name:
    `valid_loader = train_loader.split_validation()`). None otherwise. Found once per loader."""
    known = _RESULTS.setdefault(ctx, {})
    found = known.get(id(loader))
    if found is None or found[0] is not loader:
        found = known[id(loader)] = (loader, _result_of(ctx, loader))
    return found[1]


def _result_of(ctx: "FileFacts", loader: cst.Call) -> Optional[Tuple[str, int]]:
    function = ctx.frequency.enclosing_function(loader)
    klass = ctx.frequency.enclosing_class(function) if function is not None else None
    if function is None or (klass is not None and not any(statement is klass for statement in ctx.module.body)):
        return None
    if klass is not None and subclass_init(ctx, loader.func):
        return klass.name.value, WHOLE
    slot = _return_slot(function, loader)
    if slot is None:
        return None
    return (function.name.value if klass is None else f"{klass.name.value}.{function.name.value}"), slot


# Where a function returns a loader: the whole value, somewhere inside it (a dict, a nested
# structure), or at an index of a returned tuple (`return train_loader, val_loader`).
WHOLE, INSIDE = -1, -2


def _return_slot(function: cst.FunctionDef, loader: cst.Call) -> Optional[int]:
    """Where `function` returns the loader (`WHOLE`, `INSIDE` or a tuple index), or None."""
    names = {
        dotted_name(node.targets[0].target)
        for node in scope_descendants(function.body)
        if isinstance(node, cst.Assign) and node.value is loader and len(node.targets) == 1
    }

    def holds(item: cst.BaseExpression) -> bool:
        return item is loader or (isinstance(item, (cst.Name, cst.Attribute)) and dotted_name(item) in names)

    appended = _appended(function)
    for node in scope_descendants(function.body):
        if not isinstance(node, cst.Return) or node.value is None:
            continue
        if holds(node.value):
            return WHOLE
        items = appended.get(dotted_name(node.value) or "", [])
        if any(holds(item) for item in items):
            return next(index for index, item in enumerate(items) if holds(item))  # `ds.append(train_loader)`, `return ds`
        if isinstance(node.value, cst.Tuple):
            slot = next((index for index, element in enumerate(node.value.elements) if holds(element.value)), None)
            if slot is not None:
                return slot
        if any(holds(item) for item in descendants(node.value)):
            return INSIDE
    return None


def appended_to_result(ctx: "FileFacts", loader: cst.Call) -> bool:
    """Whether the loader is appended as it is built to a list its function returns
    (`loaders.append(DataLoader(ds, ...))` for each dataset, then `return loaders`: a
    Lightning hook or a builder that gives several loaders)."""
    arg = ctx.frequency.parent(loader)
    call = ctx.frequency.parent(arg) if isinstance(arg, cst.Arg) else None
    if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value == "append"):
        return False
    function = ctx.frequency.enclosing_function(loader)
    return function is not None and _return_slot(function, loader) not in (None, WHOLE, INSIDE)


def _appended(function: cst.FunctionDef) -> Dict[str, List[cst.BaseExpression]]:
    """The values appended, in source order, to each list that `function` starts empty
    (`ds = []` or `ds = list()`, then `ds.append(train_loader)`): the elements a caller
    unpacks (`train_loader, test_loader = get10(...)`)."""
    lists: Dict[str, List[cst.BaseExpression]] = {}
    for node in in_source_order(function.body):
        if isinstance(node, cst.Assign) and _empty_list(node.value) and len(node.targets) == 1:
            lists.setdefault(dotted_name(node.targets[0].target) or "", [])
        elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "append" and len(node.args) == 1:
            held = lists.get(dotted_name(node.func.value) or "")
            if held is not None:
                held.append(node.args[0].value)
    return lists


def _empty_list(value: cst.BaseExpression) -> bool:
    """`[]` or `list()`."""
    if isinstance(value, cst.List):
        return not value.elements
    return isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "list" and not value.args


def _returned_passes(ctx: "FileFacts", loader: cst.Call) -> List[Tuple[cst.For, cst.CSTNode]]:
    """The passes over a loader that a module-level function of this file returns, in the
    scopes that call it and bind the result (`train_loader, val_loader = set_loader(opt)`,
    then `train(train_loader)` every epoch), each starting where that scope's code does."""
    passes: List[Tuple[cst.For, cst.CSTNode]] = []
    for scope, bound, call in _returned_bindings(ctx, loader):
        found = list(_loops_over(ctx, scope, bound, set(), None))
        passes += _before_rebinding(scope, bound, call, found)
    return passes


def _returned_bindings(ctx: "FileFacts", loader: cst.Call) -> List[Tuple[cst.CSTNode, str, cst.Call]]:
    """Where a module-level function of this file returns the loader to (or a DataLoader
    subclass's constructor, see `result_of`): for each call of it whose result is bound (`train_loader, val_loader = set_loader(opt)`), the calling scope,
    the name that holds the loader there, and the call. A method that returns it to
    attributes of its own object (`self.train_loader, self.test_loader = self.setup_data()`)
    binds it in its class, whose every method sees the attribute."""
    result = result_of(ctx, loader)
    if result is None or result[1] == INSIDE:
        return []
    callee, slot = result
    owner, _, method = callee.rpartition(".")
    found: List[Tuple[cst.CSTNode, str, cst.Call]] = []
    for call in ctx.frequency.calls_named(method):
        assign = ctx.frequency.parent(call)
        if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
            continue
        if owner and not _own_method_call(ctx, call, owner):
            continue
        if not owner and not isinstance(call.func, cst.Name):
            continue
        target = assign.targets[0].target
        if slot != WHOLE:
            elements = target.elements if isinstance(target, (cst.Tuple, cst.List)) else ()
            target = elements[slot].value if slot < len(elements) else None
        bound = dotted_name(target) if target is not None else None
        if bound is None or (owner and not bound.startswith("self.")):
            continue
        scope = _method_class(ctx, call) if owner else ctx.frequency.enclosing_function(call)
        found.append((scope or ctx.module, bound, call))
    return found


def _own_method_call(ctx: "FileFacts", call: cst.Call, klass: str) -> bool:
    """`self.setup_data()` in a method of the class named `klass`."""
    enclosing = _method_class(ctx, call)
    own = isinstance(call.func, cst.Attribute) and dotted_name(call.func.value) == "self"
    return own and enclosing is not None and enclosing.name.value == klass


def _method_class(ctx: "FileFacts", node: cst.CSTNode) -> Optional[cst.ClassDef]:
    """The class of the method whose body holds `node`."""
    function = ctx.frequency.enclosing_function(node)
    return ctx.frequency.enclosing_class(function) if function is not None else None


# ignite's events that run a handler once per epoch of the engine it is added to.
_EPOCH_EVENTS = ("EPOCH_STARTED", "EPOCH_COMPLETED")


@dataclass(frozen=True)
class EngineRun:
    """`engine.run(loader)` of an ignite `engine = Engine(step)`: the engine calls `step(engine,
    batch)` once per batch of the loader, `batch` being the step's second parameter."""

    call: cst.Call
    step: cst.FunctionDef
    batch: str
    # The step runs a backward pass and an optimizer step (a trainer, not an evaluator).
    trains: bool
    # The run starts again every epoch: `max_epochs=` other than 1, or a run in a handler of
    # an epoch event (`trainer.add_event_handler(Events.EPOCH_COMPLETED, lambda _:
    # evaluator.run(val_loader))`).
    per_epoch: bool


def engine_runs(ctx: "FileFacts", loader: cst.Call) -> List[EngineRun]:
    """The engine runs over the loader, in the scope that assigns it or, for a loader a
    builder of this file returns, in the scopes that bind the result: ignite's, and those of an
    engine handed a step function of this file with the loader (see `_handed_run`)."""
    functions = ctx.frequency.local_functions()
    runs = []
    holders = _holders(ctx, loader) or [(scope, bound) for scope, bound, _ in _returned_bindings(ctx, loader)]  # `return DataLoader(...)`
    for scope, name in holders:
        engines = _engines(ctx.module, scope, functions)
        for node in descendants_of_type(ctx.module, scope, cst.Call):  # `_handed_run` and `run` take calls only
            handed = _handed_run(ctx, node, name, functions)
            if handed is not None:
                runs.append(handed)
            if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "run"):
                continue
            step = engines.get(dotted_name(node.func.value) or "")
            args = positional(node)
            if step is None or not args or dotted_name(args[0].value) != name or len(step.params.params) < 2:
                continue
            called = methods_called(step.body, functions)
            epochs = keyword(node, "max_epochs")
            repeated = (epochs is not None and not is_literal(epochs.value, "1")) or _in_epoch_handler(ctx, node)
            runs.append(EngineRun(node, step, step.params.params[1].name.value, BACKWARD in called and STEP in called, repeated))
    return runs


# Words of a name that holds an optimizer (not `opt`, the usual name of parsed options).
_OPTIMIZERS = OPTIMIZER_WORDS - {"opt"}


def _handed_run(ctx: "FileFacts", node: cst.CSTNode, name: str, functions: Dict[str, List[cst.FunctionDef]]) -> Optional[EngineRun]:
    """`engine.train(h, train_loader, epochs, optimizer)`, `engine.test(h, test_loader)`: a
    method of another object handed a step function of this file (see
    `training.engine_hooks`) and the loader, the step's first parameter being the batch. It
    trains when the step runs a backward pass and an optimizer step, or an optimizer is handed
    with it (the engine steps it); a training run passes over the loader every epoch, and so
    does a run started every epoch (from an epoch hook)."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)) or called_function(node, functions):
        return None
    args = [arg.value for arg in positional(node)]
    steps = [functions[arg.value][0] for arg in args if isinstance(arg, cst.Name) and len(functions.get(arg.value, ())) == 1]
    if len(steps) != 1 or not steps[0].params.params or not any(dotted_name(arg) == name for arg in args):
        return None
    step = steps[0]
    called = methods_called(step.body, functions)
    trains = (BACKWARD in called and STEP in called) or any(has_word((dotted_name(arg) or "").rsplit(".", 1)[-1], _OPTIMIZERS) for arg in args)
    repeated = trains or ctx.execution(node).frequency is Frequency.PER_EPOCH
    return EngineRun(node, step, step.params.params[0].name.value, trains, repeated)


def _engines(module: cst.Module, scope: cst.CSTNode, functions: Dict[str, List[cst.FunctionDef]]) -> Dict[str, cst.FunctionDef]:
    """Names `scope` (a node of `module`) binds to an ignite `Engine(step)` of a same-file `step` function."""
    engines = {}
    for node in descendants_of_type(module, scope, cst.Assign):
        if len(node.targets) == 1 and isinstance(node.value, cst.Call):
            callee, args = dotted_name(node.value.func) or "", positional(node.value)
            steps = functions.get(dotted_name(args[0].value) or "", []) if args else []
            target = dotted_name(node.targets[0].target)
            if callee.rsplit(".", 1)[-1] == "Engine" and len(steps) == 1 and target is not None:
                engines[target] = steps[0]
    return engines


def _in_epoch_handler(ctx: "FileFacts", node: cst.CSTNode) -> bool:
    """Whether `node` runs in a lambda or function handed to `add_event_handler(Events.EPOCH_*,
    ...)`, or decorated `@engine.on(Events.EPOCH_*)`."""
    handler = ctx.frequency.parent(node)
    while handler is not None and not isinstance(handler, (cst.Lambda, cst.FunctionDef)):
        handler = ctx.frequency.parent(handler)
    if handler is None:
        return False
    if isinstance(handler, cst.FunctionDef):
        events = [d.decorator.args[0].value for d in handler.decorators if isinstance(d.decorator, cst.Call) and d.decorator.args]
    else:
        registration = ctx.frequency.parent(ctx.frequency.parent(handler))
        events = [registration.args[0].value] if isinstance(registration, cst.Call) and registration.args else []
    return any((dotted_name(event) or "").rsplit(".", 1)[-1] in _EPOCH_EVENTS for event in events)


def _holders(ctx: "FileFacts", loader: cst.Call) -> List[Tuple[cst.CSTNode, str]]:
    """(scope, name) of the names that hold the loader: the one its assignment binds, where it
    is visible, and for a loader a builder of this file returns, those that bind the result."""
    found = _assignment(ctx.module, loader)
    if found is None:
        return []
    return [found[::-1]] + [(scope, bound) for scope, bound, _ in _returned_bindings(ctx, loader)]


def fed_by_framework(ctx: "FileFacts", loader: cst.Call, every_epoch: bool = False) -> bool:
    """Whether a training framework iterates the loader every epoch, moving its batches to the
    trainer's accelerator: a loader built in Lightning's `train_dataloader()` or
    `val_dataloader()` hook (see `frameworks.loader_hook`), or handed to a Lightning trainer's
    `fit` (`trainer.fit(model, train_dataloaders=train_loader)`), outside demo, export and
    profiling scripts (`roles`), which run once or exist to measure, and programs whose
    trainer is told to run on the CPU in the same file or whose project trains on the CPU (a
    Lightning release before 2.0 and trainers without a device option: see
    `trainers.lightning_on_cpu`). `every_epoch`: only where the passes
    repeat, not through a trainer limited by `max_steps` alone (800 batches may be less than
    one epoch)."""
    if ctx.frequency.one_off or is_profiling_script(role_path(ctx.path)) or file_enables(ctx.text, CPU_TRAINER):
        return False
    function = ctx.frequency.enclosing_function(loader)
    klass = ctx.frequency.enclosing_class(function) if function is not None else None
    built = _runs_epochs if every_epoch else _trains
    fed = (klass is not None and _feeds_loader_hook(ctx, loader, function, klass)) or any(
        _handed_to(ctx, scope, name, "fit", tuple(LIGHTNING_PACKAGES), "Trainer", built) or _kept_for_framework(ctx, scope, name, built)
        or _fitted_by_project_trainer(ctx, scope, name) or _handed_to_a_fit(ctx, scope, name)
        for scope, name in _holders(ctx, loader)
    ) or _returned_to_lightning(ctx, loader)
    return fed and not lightning_on_cpu(ctx.path)


def _returned_to_lightning(ctx: "FileFacts", loader: cst.Call) -> bool:
    """Whether the calls that give the loader (see `result_of`) are in other project modules
    that hand it to a Lightning trainer's `fit` (`project.hands_result_to_lightning`)."""
    if not os.path.isfile(ctx.path) or not project_imports_lightning(ctx.path):
        return False
    result = result_of(ctx, loader)
    if result is None or result[1] == INSIDE:
        return False
    here = os.path.abspath(ctx.path)
    return any(os.path.abspath(site.path) != here and hands_result_to_lightning(site, slot) for site, slot in result_sites(here, *result))


def _feeds_loader_hook(ctx: "FileFacts", loader: cst.Call, function: cst.FunctionDef, klass: cst.ClassDef) -> bool:
    """Whether `function`, a method of `klass`, gives the loader to Lightning: it is a loader hook
    (`frameworks.loader_hook`, or one of a class whose Lightning base is defined in another
    project module, `class DataModule(BaseDataModule)`), or a helper that returns the loader
    whole (`return DataLoader(ds, shuffle=shuffle)` in `_loader(self, ds, shuffle)`) to such a
    hook of the class that returns the helper's result (`return self._loader(self.train_ds,
    True)` in `train_dataloader`)."""
    if function.name.value == "train_dataloader" and ctx.frequency.trains_nothing(klass):
        return False  # its passes train nothing: the class draws the loader its own way
    if _loader_hook(ctx, function, klass):
        return True
    if _return_slot(function, loader) != WHOLE:
        return False
    helper = f"self.{function.name.value}"
    return any(
        isinstance(hook, cst.FunctionDef) and hook is not function and _loader_hook(ctx, hook, klass)
        and any(
            isinstance(node, cst.Return) and isinstance(node.value, cst.Call) and dotted_name(node.value.func) == helper
            for node in scope_descendants(hook.body)
        )
        for hook in klass.body.body
    )


def _loader_hook(ctx: "FileFacts", method: cst.FunctionDef, klass: cst.ClassDef) -> bool:
    """`frameworks.loader_hook`, also for a class that is a Lightning module by what the project
    shows (`FrequencyAnalysis.lightning_elsewhere`: a Lightning base of another project module,
    or a Lightning trainer of the file that fits it); not `val_dataloader` in a project whose
    code names `training_step` (its modules are there) but never `validation_step`: Lightning
    runs no validation loop without one."""
    classes = ctx.frequency.classes()
    if not (loader_hook(method, klass, classes) or (
        (method.name.value in TRAINING_LOADER_HOOKS or method.name.value in bound_hooks(klass, TRAINING_LOADER_HOOKS))
        and ctx.frequency.lightning_elsewhere(klass)
    )):
        return False
    validation = method.name.value == VALIDATION_LOADER_HOOK or method.name.value in bound_hooks(klass, frozenset({VALIDATION_LOADER_HOOK}))
    return not (validation and os.path.isfile(ctx.path) and project_mentions(ctx.path, TRAINING_STEP) and not project_mentions(ctx.path, VALIDATION_STEP))


def _kept_for_framework(ctx: "FileFacts", scope: cst.CSTNode, name: str, built: Callable[[cst.Call], bool]) -> bool:
    """Whether `scope` hands `name` to the constructor of a project Lightning module that
    returns it from its loader hook (`system = System(model, optimizer,
    train_loader=train_loader)`, see `project.FunctionFacts.framework_fed_parameters`), and
    the module to the `fit` of a Lightning trainer that `built` accepts."""
    for node in descendants_of_type(ctx.module, scope, cst.Assign):
        if len(node.targets) == 1 and isinstance(node.value, cst.Call) and _mentions_argument(node.value, name):
            facts = project_function(ctx, node.value.func)
            held = dotted_name(node.targets[0].target)
            if facts is not None and held is not None and facts.feeds_framework(node.value, name):
                if _handed_to(ctx, scope, held, "fit", tuple(LIGHTNING_PACKAGES), "Trainer", built):
                    return True
    return False


def _fitted_by_project_trainer(ctx: "FileFacts", scope: cst.CSTNode, name: str) -> bool:
    """Whether `scope` hands `name` to the `fit` of an object a project function that builds a
    Lightning trainer returns (`model, trainer = src.build_from_yaml(path)`, then
    `trainer.fit(model, train_dataloader=train_dl)`; `FunctionFacts.builds_trainer`), in a
    project that imports Lightning."""
    if not project_imports_lightning(ctx.path):
        return False
    objects = {
        bound
        for node in descendants_of_type(ctx.module, scope, cst.Assign)
        if len(node.targets) == 1 and isinstance(node.value, cst.Call)
        and getattr(project_function(ctx, node.value.func), "builds_trainer", False)
        for bound in bound_names(node.targets[0].target)
    }
    return bool(objects) and any(
        isinstance(node.func, cst.Attribute) and node.func.attr.value == "fit"
        and dotted_name(node.func.value) in objects and _mentions_argument(node, name)
        for node in descendants_of_type(ctx.module, scope, cst.Call)
    )


def _handed_to_a_fit(ctx: "FileFacts", scope: cst.CSTNode, name: str) -> bool:
    """Whether `scope` hands `name` to a project function that hands it on to a `fit` call
    (`train(learner, train_loader, val_loader, args)` whose body ends in `trainer.fit(learner,
    train_loader, val_loader)`; `FunctionFacts.fitted_parameters`), in a project that imports
    Lightning."""
    if not project_imports_lightning(ctx.path):
        return False
    for node in descendants_of_type(ctx.module, scope, cst.Call):
        facts = project_function(ctx, node.func) if _mentions_argument(node, name) else None
        if facts is not None and facts.fits_argument(node, name):
            return True
    return False


def _trains(trainer: cst.Call) -> bool:
    """Whether a Lightning `Trainer(...)` may train rather than smoke-test: not
    `fast_dev_run=True` or a positive count (one batch of each loader, or a few); a setting
    from an option (`fast_dev_run=args.dry_run`) is off unless the user asks."""
    found = keyword(trainer, "fast_dev_run")
    smoke = found.value if found is not None else None
    return not ((isinstance(smoke, cst.Name) and smoke.value == "True") or (isinstance(smoke, cst.Integer) and smoke.value != "0"))


def _runs_epochs(trainer: cst.Call) -> bool:
    """Whether a Lightning `Trainer(...)` trains (`_trains`) and runs epochs: `max_epochs=`, or
    no `max_steps=`."""
    return _trains(trainer) and (keyword(trainer, "max_epochs") is not None or keyword(trainer, "max_steps") is None)


def moved_by_framework(ctx: "FileFacts", loader: cst.Call) -> bool:
    """Whether a framework object moves the loader's batches to the device as they are drawn:
    a loader prepared by Hugging Face Accelerate (`accelerator.prepare(model, optimizer,
    train_loader)`) or set up by Lightning Fabric (`fabric.setup_dataloaders(loader)`), in a
    program not told to run on the CPU."""
    if file_enables(ctx.text, CPU_TRAINER):
        return False
    return any(
        _handed_to(ctx, scope, name, "prepare", ("accelerate",), "Accelerator")
        or _handed_to(ctx, scope, name, "setup_dataloaders", (*LIGHTNING_PACKAGES, "lightning_fabric"), "Fabric")
        for scope, name in _holders(ctx, loader)
    )


def _handed_to(
    ctx: "FileFacts", scope: cst.CSTNode, name: str, method: str, packages: Tuple[str, ...], klass: str,
    built: Optional[Callable[[cst.Call], bool]] = None,
) -> bool:
    """Whether `scope` hands `name` to `method` of an object it builds from the class `klass`
    of one of `packages` (`trainer.fit(model, train_loader)` after `trainer = pl.Trainer(...)`,
    or after a call of one of the class's own constructors, `pl.Trainer.from_argparse_args(args)`:
    the `method` called on the result shows it is an instance), with a constructor call that
    `built` accepts."""
    objects = set()
    for node in descendants_of_type(ctx.module, scope, cst.Assign):
        if len(node.targets) == 1 and isinstance(node.value, cst.Call):
            qualified = ctx.qualified_name(node.value.func) or ""
            if qualified.split(".", 1)[0] in packages and klass in qualified.split(".")[-2:] and (built is None or built(node.value)):
                objects.add(dotted_name(node.targets[0].target))
    return bool(objects) and any(
        isinstance(node.func, cst.Attribute) and node.func.attr.value == method
        and dotted_name(node.func.value) in objects and _mentions_argument(node, name)
        for node in descendants_of_type(ctx.module, scope, cst.Call)
    )


def _runs_with_training(ctx: "FileFacts", loop: cst.For, start: cst.CSTNode) -> bool:
    if start is loop:
        return repeated_with_training(ctx, loop)
    return loop_trains(ctx, loop) or _started_with_training(ctx, start) or _repeated_in_callee(ctx, loop, start)


def _repeated_in_callee(ctx: "FileFacts", loop: cst.For, start: cst.CSTNode) -> bool:
    """Whether the function that `start` hands the loader to runs the pass every epoch itself
    (`train(model, train_loader, test_loader, epochs)` calling `test_step(test_loader)` in its
    epoch loop), though `start` runs once."""
    execution = ctx.execution(loop)
    if execution.frequency is not Frequency.PER_EPOCH:
        return False
    loops = [reason.at for reason in execution.reasons if isinstance(reason.at, (cst.For, cst.While))]
    return any(inside_callee(ctx, start, outer) for outer in loops)


def inside_callee(ctx: "FileFacts", call: cst.CSTNode, node: cst.CSTNode) -> bool:
    """Whether `node` lies in a same-file function that `call` calls (not in another caller of
    the function that `node`'s code runs in)."""
    if not isinstance(call, cst.Call):
        return False
    return any(any(item is node for item in descendants(callee)) for callee in called_function(call, ctx.frequency.local_functions()))


def _started_with_training(ctx: "FileFacts", start: cst.CSTNode) -> bool:
    """Whether the call that starts a pass runs every epoch, or every N steps of a loop that
    trains (the periodic validation of `if step % eval_every == 0: evaluate(model, loader)`)."""
    execution = ctx.execution(start)
    guard = execution.interval_guard()
    if guard is None:
        return execution.frequency is Frequency.PER_EPOCH
    loop = ctx.execution(guard).step_loop()
    return loop is not None and loop_trains(ctx, loop)


def handed_on(ctx: "FileFacts", loader: cst.Call) -> List[cst.Call]:
    """The calls that hand the loader to a function of another project module that loops over
    the parameter it is passed as (`evaluate(model, val_loader)` with `evaluate` imported), in
    the scope that assigns it or, for a loader a builder of this file returns, in the scopes
    that bind the result (`train_loader, sampler = get_train_utils(opt)`)."""
    return [call for call, _ in _hand_offs(ctx, loader)]


def _method_starts(ctx: "FileFacts", loader: cst.Call) -> List[cst.Call]:
    """The calls that start a pass over the loader through an object of a project class it is
    handed to: `trainer.train(epoch)` after `trainer = Trainer(model, train_loader)`, where
    calling `train` loops over what the class got as `train_loader` (see
    `project.FunctionFacts.entry_methods`)."""
    starts = []
    for call, (facts, name) in _hand_offs(ctx, loader):
        methods = facts.methods_iterating(call, name)
        bound = _assignment(ctx.module, call) if methods else None
        if bound is None:
            continue
        holder, scope = bound
        starts += [
            node for node in descendants_of_type(ctx.module, scope, cst.Call)
            if isinstance(node.func, cst.Attribute) and node.func.attr.value in methods and dotted_name(node.func.value) == holder
        ]
    return starts


def handed_to_epochs(ctx: "FileFacts", loader: cst.Call) -> bool:
    """Whether a call hands the loader to a function of another project module that passes
    over it again and again and trains (`simclr.train(train_loader)`, a method of a project
    class whose epoch loop iterates its parameter and runs a backward pass; see
    `project.FunctionFacts.reiterated_parameters`), and does not change it; also a call in a
    module that imports the loader (`_imported_hand_offs`)."""
    handed = [(call, facts, name) for call, (facts, name) in _hand_offs(ctx, loader)] + _imported_hand_offs(ctx, loader)
    return any(
        facts.trains and facts.reiterates_argument(call, name) and not facts.mutates_argument(call, name)
        for call, facts, name in handed
    )


def handed_to_a_move(ctx: "FileFacts", loader: cst.Call) -> bool:
    """Whether a call hands the loader to a function or class of another project module whose
    loop over it moves the items to a device (see `project.FunctionFacts.moved_parameters`),
    here or in a module that imports the loader (`_imported_hand_offs`)."""
    handed = [(call, facts, name) for call, (facts, name) in _hand_offs(ctx, loader)] + _imported_hand_offs(ctx, loader)
    return any(facts.moves_argument_items(call, name) for call, facts, name in handed)


def _imported_hand_offs(ctx: "FileFacts", loader: cst.Call) -> List[Tuple["cst.Call | ast.Call", FunctionFacts, str]]:
    """A loader bound to a module-level name that other project modules import
    (`from dataloaders import men_loader`): the calls there that hand it to a project function
    (`train_cyclegan(men_loader, women_loader, 100)`; `project.imported_global_hand_offs`), each
    with the callee's summary and the loader's name there."""
    if not os.path.isfile(ctx.path):
        return []
    names = [name for scope, name in _holders(ctx, loader) if isinstance(scope, cst.Module) and "." not in name]
    return [found for name in names for found in imported_global_hand_offs(os.path.abspath(ctx.path), name)]


def _hand_offs(ctx: "FileFacts", loader: cst.Call) -> List[Tuple[cst.Call, Tuple[FunctionFacts, str]]]:
    """`handed_on`'s calls, each with the callee's summary and the name the loader has there."""
    functions = ctx.frequency.local_functions()
    calls = []
    for scope, holder in _holders(ctx, loader):
        for name, handed in [(holder, holder), *_containers(ctx, scope, holder)]:
            for node in descendants_of_type(ctx.module, scope, cst.Call):
                if not called_function(node, functions) and _mentions_argument(node, handed):
                    facts = project_function(ctx, node.func)
                    if facts is not None and facts.iterates_argument(node, name):
                        calls.append((node, (facts, name)))
    return calls


def _containers(ctx: "FileFacts", scope: cst.CSTNode, name: str) -> List[Tuple[str, str]]:
    """The elements of the displays `scope` binds to a name that hold `name`, each as the
    element's name (`project.element_name`) and the container's: `data = {"tr_loader":
    tr_loader, ...}` gives `data['tr_loader']` of `data`; `loaders = (train_loader,
    val_loader)` gives `loaders[1]` for `val_loader`."""
    found = []
    for node in descendants_of_type(ctx.module, scope, cst.Assign):
        container = node.targets[0].target if len(node.targets) == 1 else None
        if not isinstance(container, cst.Name):
            continue
        if isinstance(node.value, cst.Dict):
            pairs = [(element.key.evaluated_value, element.value) for element in node.value.elements
                     if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString)]
        elif isinstance(node.value, (cst.Tuple, cst.List)):
            pairs = list(enumerate(element.value for element in node.value.elements))
        else:
            continue
        found += [(element_name(container.value, key), container.value) for key, value in pairs if dotted_name(value) == name]
    return found


def _mentions_argument(call: cst.Call, name: str) -> bool:
    """Whether `call` is given the name `name` as an argument, or in a list or tuple display
    of its arguments (`val_dataloaders=[val_loader]`)."""
    return any(
        dotted_name(value) == name
        for arg in call.args
        for value in ([element.value for element in arg.value.elements] if isinstance(arg.value, (cst.List, cst.Tuple)) else [arg.value])
    )


def loops_over(ctx: "FileFacts", loader: cst.Call) -> List[cst.For]:
    """The `for` loops of the file over the loader `loader` builds (see `passes_over`)."""
    return [loop for loop, _ in passes_over(ctx, loader)]


# `passes_over` of the loaders of the files being checked, by the loader's id: the loader rules
# and `loader_use` ask it of the same loaders.
_PASSES: "weakref.WeakKeyDictionary[FileFacts, Dict[int, List[Tuple[cst.For, cst.CSTNode]]]]" = weakref.WeakKeyDictionary()


def passes_over(ctx: "FileFacts", loader: cst.Call) -> List[Tuple[cst.For, cst.CSTNode]]:
    """Each `for` loop over the loader `loader` builds, by the name it is assigned to and
    followed into same-file functions it is passed to, with where that pass starts in the
    loader's own scope: the loop itself, or the call that hands the loader on (how often
    that call runs is how often this loader is iterated). None when it is not assigned.
    Computed once per loader (callers must not change the list)."""
    known = _PASSES.setdefault(ctx, {})
    if id(loader) not in known:
        known[id(loader)] = _passes_over(ctx, loader)
    return known[id(loader)]


def _passes_over(ctx: "FileFacts", loader: cst.Call) -> List[Tuple[cst.For, cst.CSTNode]]:
    found = _assignment(ctx.module, loader)
    if found is None:
        header = _header_loop(ctx, loader)  # `for x, y in DataLoader(ds, batch_size=64):`
        return ([(header, header)] if header is not None else []) + _returned_passes(ctx, loader)
    name, scope = found
    passes = _before_rebinding(scope, name, loader, list(_loops_over(ctx, scope, name, set(), None)))
    for subclass in _subclasses(ctx, scope) if name.startswith("self.") else ():
        passes += _loops_over(ctx, subclass, name, set(), None)  # a method of a subclass passes over `self.loader`
    return passes + _returned_passes(ctx, loader)


def _subclasses(ctx: "FileFacts", klass: cst.CSTNode) -> List[cst.ClassDef]:
    """The classes of the file derived from `klass` (a class), directly or not."""
    if not isinstance(klass, cst.ClassDef):
        return []
    found: Dict[int, cst.ClassDef] = {id(klass): klass}
    names = [klass.name.value]
    while names:
        base = names.pop()
        for classes in ctx.frequency.classes().values():
            for candidate in classes:
                if id(candidate) not in found and any(dotted_name(arg.value) == base for arg in candidate.bases):
                    found[id(candidate)] = candidate
                    names.append(candidate.name.value)
    return [candidate for candidate in found.values() if candidate is not klass]


def _before_rebinding(
    scope: cst.CSTNode, name: str, loader: cst.Call, passes: List[Tuple[cst.For, cst.CSTNode]]
) -> List[Tuple[cst.For, cst.CSTNode]]:
    """The passes that start while `name` still holds this loader: in the scope's own code,
    after the assignment and before the next assignment to the name (a notebook that shows
    one batch of `train_loader`, then builds the real `train_loader` for training); wrapping
    it (`loader = fabric.setup_dataloaders(loader)`) is no new binding, nor is an assignment in
    the other branch of an `if` (`if inpainting: loader = build_a(...) else: loader = build_b(...)`:
    after the `if`, the name holds either). A pass in a nested function sees whatever the name
    holds when it is called, and is kept."""
    order: Dict[int, int] = {}
    nested: Set[int] = set()
    rebindings: List[Tuple[int, _Branches]] = []
    start_branches: _Branches = frozenset()
    stack: List[Tuple[cst.CSTNode, bool, _Branches]] = [(scope, False, frozenset())]
    while stack:
        node, inside, branches = stack.pop()
        order[id(node)] = len(order)
        if node is loader:
            start_branches = branches
        if inside:
            nested.add(id(node))
        elif isinstance(node, cst.Assign) and any(dotted_name(target.target) == name for target in node.targets):
            if not _mentions(node.value, name):  # `loader = fabric.setup_dataloaders(loader)` keeps it
                rebindings.append((order[id(node)], branches))
        deeper = inside or (node is not scope and isinstance(node, (cst.FunctionDef, cst.Lambda, cst.ClassDef)))
        stack.extend((child, deeper, _branches_of(node, child, branches)) for child in reversed(children(node)))
    start = order.get(id(loader), -1)
    end = min(
        (position for position, branches in rebindings if position > start and not _exclusive(branches, start_branches)),
        default=len(order),
    )
    return [(loop, first) for loop, first in passes if id(first) in nested or start < order.get(id(first), start) < end]


# The branches of `if` statements a node lies in: (id of the `if`, in its `else` part).
_Branches = FrozenSet[Tuple[int, bool]]


def _branches_of(node: cst.CSTNode, child: cst.CSTNode, branches: _Branches) -> _Branches:
    """The branches `child` of `node` lies in, `node` lying in `branches`."""
    if isinstance(node, cst.If) and child is not node.test:
        return branches | {(id(node), child is node.orelse)}
    return branches


def _exclusive(first: _Branches, second: _Branches) -> bool:
    """Whether code in the branches `first` and code in `second` never both run: they lie in
    different branches of one `if`."""
    return any((node, not other) in second for node, other in first)


def _header_loop(ctx: "FileFacts", loader: cst.Call) -> Optional[cst.For]:
    """The `for` loop whose iterable is the loader call itself (through `enumerate`, `tqdm`)."""
    function = ctx.frequency.enclosing_function(loader)
    for node in descendants(function.body if function is not None else ctx.module):
        if isinstance(node, cst.For) and iterated_source(node.iter) is loader:
            return node
    return None


def _assignment(module: cst.Module, value: cst.CSTNode) -> Optional[Tuple[str, cst.CSTNode]]:
    """The name `value` is assigned to and where that name is visible: the function that
    assigns a local name, the class of a `self.` attribute, else the module."""
    return _assignments(module).get(id(value))


@per_module
def _assignments(module: cst.Module) -> Dict[int, Optional[Tuple[str, cst.CSTNode]]]:
    """`_assignment` of the value of every assignment to one target, by the value's id."""
    found: Dict[int, Optional[Tuple[str, cst.CSTNode]]] = {}
    parents = module_nodes(module).parents
    for node in nodes_of_type(module, (cst.Assign,)):
        if not isinstance(node, cst.Assign) or len(node.targets) != 1:
            continue
        target = node.targets[0].target
        name = dotted_name(target)
        if name is None and isinstance(target, cst.Subscript):  # `loaders["train"] = DataLoader(...)`
            container = dotted_name(target.value)
            name = container + ELEMENT if container is not None else None
        wanted = cst.ClassDef if name is not None and name.startswith("self.") else cst.FunctionDef
        scope = parents.get(id(node))
        while scope is not None and not isinstance(scope, wanted):
            scope = parents.get(id(scope))
        scope = module if scope is None else scope
        found.setdefault(id(node.value), (name, scope) if name is not None else None)
        for element in _held_elements(node.value) if name is not None and not name.endswith(ELEMENT) else ():
            found.setdefault(id(element), (name + ELEMENT, scope))
    return found


# The suffix of a holder name that stands for any element of the container the name holds:
# `data_loaders[]` for a loader of `data_loaders = {x: DataLoader(...) for x in phases}`,
# iterated as `data_loaders[phase]`.
ELEMENT = "[]"


def held_in_container(ctx: "FileFacts", loader: cst.Call) -> bool:
    """Whether the loader is an element of a dict or list that is assigned to a name
    (`data_loaders = {x: DataLoader(...) for x in ["train", "val"]}`)."""
    found = _assignment(ctx.module, loader)
    return found is not None and found[0].endswith(ELEMENT)


def _held_elements(value: cst.BaseExpression) -> List[cst.BaseExpression]:
    """The values a dict or list display or comprehension holds as its elements."""
    if isinstance(value, cst.DictComp):
        return [value.value]
    if isinstance(value, cst.ListComp):
        return [value.elt]
    if isinstance(value, cst.Dict):
        return [element.value for element in value.elements if isinstance(element, cst.DictElement)]
    return []


def _loops_over(
    ctx: "FileFacts", scope: cst.CSTNode, name: str, seen: Set[Tuple[int, int]], anchor: Optional[cst.CSTNode]
) -> Iterator[Tuple[cst.For, cst.CSTNode]]:
    """Loops in `scope` over `name` (`for x in enumerate(tqdm(name))`), and in same-file
    functions that receive `name` as an argument, under their parameter's name; each with the
    node of the first scope that starts the pass (`anchor`, or the loop). A nested function
    whose parameter has the same name sees its argument, not this loader."""
    functions = ctx.frequency.local_functions()
    for node in _visible(scope, name):
        if isinstance(node, cst.For) and _mentions(node.iter, name):
            yield node, anchor or node
        elif isinstance(node, cst.Call) and (opens_pass(node, name) or _cycles(ctx, node, name)):
            for draw in _draws(scope, node):
                yield draw.loop, anchor or node
        elif (isinstance(node, cst.Assign) and _wraps(node, name)) or (isinstance(node, cst.WithItem) and _bound_by_with(node, name)):
            alias = dotted_name(node.targets[0].target if isinstance(node, cst.Assign) else node.asname.name)
            if alias is not None and (id(scope), id(node)) not in seen:
                seen.add((id(scope), id(node)))  # `pbar = tqdm(loader)`, then `for batch in pbar:`
                # A plain name is local to the function that binds it (`loader = pred_loader` in
                # `predict()` says nothing of the `loader` of `test()`).
                local = ctx.frequency.enclosing_function(node) if "." not in alias else None
                yield from _loops_over(ctx, local or scope, alias, seen, anchor)
        elif isinstance(node, cst.Call):
            for function in called_function(node, functions):
                parameter = _parameter_for(function, node, name)
                start = anchor or node  # each call that hands the loader on is a pass of its own
                if parameter is not None and (id(function), id(start)) not in seen:
                    seen.add((id(function), id(start)))
                    yield from _loops_over(ctx, function.body, parameter, seen, start)


def _visible(scope: cst.CSTNode, name: str) -> Iterator[cst.CSTNode]:
    """`scope` and its descendants, without the nested functions and lambdas that take a
    parameter called `name` (`def train(model, train_dataloader):` shadows a global
    `train_dataloader`)."""
    handed = _started_with(scope, name)
    stack: List[cst.CSTNode] = [scope]
    while stack:
        node = stack.pop()
        if (
            node is not scope
            and isinstance(node, (cst.FunctionDef, cst.Lambda))
            and name in parameter_names(node.params)
            and not (isinstance(node, cst.FunctionDef) and node.name.value in handed)
        ):
            continue
        yield node
        stack.extend(children(node))


def _started_with(scope: cst.CSTNode, name: str) -> Set[str]:
    """Functions started indirectly with `name` among the arguments:
    `mp.spawn(run_worker, args=(..., train_loader))`, `Process(target=run, args=(loader,))`."""
    found: Set[str] = set()
    for node in descendants(scope):
        if not isinstance(node, cst.Call):
            continue
        values = [arg.value for arg in node.args]
        if any(isinstance(item, cst.Name) and item.value == name for value in values for item in descendants(value)):
            found.update(value.value for value in values if isinstance(value, cst.Name) and value.value != name)
    return found


def _wraps(assign: cst.Assign, name: str) -> bool:
    """`pbar = tqdm(name)`, `batches = enumerate(name)`, `loader = name`: one name bound to
    `name` (an element of it, for an element holder), to a call that wraps it, or to a choice
    between such a call and `name` (`bar = tqdm(name) if rank == 0 else name`)."""
    return len(assign.targets) == 1 and _wrapping(assign.value, name)


def _bound_by_with(item: cst.WithItem, name: str) -> bool:
    """`with tqdm(name) as pbar:`: a `with` statement that binds a name to a call wrapping `name`."""
    return item.asname is not None and isinstance(item.asname.name, cst.Name) and _wrapping(item.item, name)


def _wrapping(value: cst.BaseExpression, name: str) -> bool:
    """`name` itself (`_mentions`), a call that wraps it for iteration (not `len(name)`, a
    number), or a conditional expression whose choices are such calls or `name`."""
    if isinstance(value, cst.IfExp):
        return _wrapping(value.body, name) and _wrapping(value.orelse, name)
    if not isinstance(value, cst.Call):
        return _mentions(value, name)  # `loader = self.train_loader`, `loader = self.loaders["train"]`
    return dotted_name(value.func) != "len" and _mentions(value, name) and dotted_name(value) != name


def _mentions(iterated: cst.BaseExpression, name: str) -> bool:
    """Whether a loop over `iterated` iterates `name`: `name`, `enumerate(tqdm(name))`, and any
    loader of `zip(source_loader, target_loader)`; for an element holder (`ELEMENT`), a
    subscript of the container (`data_loaders[phase]`)."""
    if isinstance(iterated, cst.Call) and any(_mentions(arg.value, name) for arg in positional(iterated)):
        return True
    source = iterated_source(iterated)
    if name.endswith(ELEMENT):
        return isinstance(source, cst.Subscript) and dotted_name(source.value) == name.removesuffix(ELEMENT)
    return dotted_name(source) == name


def _parameter_for(function: cst.FunctionDef, call: cst.Call, name: str) -> Optional[str]:
    """The name under which `function` receives `name` from `call`: the parameter it is passed
    to, or, for an element of a list or tuple display (`train(..., [train_loader,
    eval_loader])`), the name `function` unpacks that element to (`train_loader, eval_loader =
    loaders`). For an element holder (`ELEMENT`): the parameter that takes the container,
    as an element holder, or one element of it (`train_epoch(model, data_loaders['train'])`)."""
    container = name.removesuffix(ELEMENT) if name.endswith(ELEMENT) else None
    for arg, parameter in arguments_by_parameter(call, function):
        if container is not None and dotted_name(arg) == container:
            return parameter + ELEMENT
        if container is not None and isinstance(arg, cst.Subscript) and dotted_name(arg.value) == container:
            return parameter
        if dotted_name(arg) == name:
            return parameter
        if isinstance(arg, (cst.List, cst.Tuple)):
            index = next((index for index, element in enumerate(arg.elements) if dotted_name(element.value) == name), None)
            unpacked = _unpacked(function, parameter, index, len(arg.elements)) if index is not None else None
            if unpacked is not None:
                return unpacked
    return None


def _unpacked(function: cst.FunctionDef, parameter: str, index: int, size: int) -> Optional[str]:
    """The name an assignment of `function` unpacks element `index` of the `size` elements of
    `parameter` to (`train_loader, eval_loader = loaders`)."""
    for node in scope_descendants(function.body):
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and dotted_name(node.value) == parameter:
            target = node.targets[0].target
            if isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == size:
                return dotted_name(target.elements[index].value)
    return None


def returned_alone(ctx: "FileFacts", loader: cst.Call) -> bool:
    """Whether the calls that give the loader (`result_of`) give it as their whole value
    (`return DataLoader(...)`, a DataLoader subclass's instance), so that whoever calls it
    holds this loader, not one of several."""
    result = result_of(ctx, loader)
    return result is not None and result[1] == WHOLE


def passes_elsewhere(ctx: "FileFacts", loader: cst.Call) -> List[Tuple[cst.For, cst.CSTNode]]:
    """The passes over the loader (`passes_over`) outside the scope that builds it: in a
    same-file function it is handed to, or in the scope a builder function returns it to
    (`train_loader, test_loader = get_loaders()`, then `for x, y in train_loader:`)."""
    own = ctx.frequency.enclosing_function(loader)
    return [
        (loop, start)
        for loop, start in passes_over(ctx, loader)
        if start is not loop or ctx.frequency.enclosing_function(loop) is not own
    ]


@dataclass(frozen=True)
class Draw:
    """A pass over a loader drawn by hand: `it = iter(loader)`, then `x, y = next(it)` in a
    step loop (re-created with `iter(loader)` when exhausted), or `next(iter(loader))`."""

    # The innermost loop whose iterations draw the batch.
    loop: cst.CSTNode
    # Where the pass starts, in the loader's own scope: the `iter()` call, or the call that
    # hands the loader to the function that opens it once per call (how often the workers
    # of a loader start).
    start: cst.CSTNode
    # The names the drawn batch is bound to (`x, y = next(it)`).
    names: FrozenSet[str]
    # The loop of the `iter()` call that restarts the pass, when that call is inside one:
    # `next(iter(loader))` every step, or the iterator re-created when it is exhausted (each
    # time the data runs out: as often as epochs).
    restarted_by: Optional[cst.CSTNode] = None
    # The `iter()` call runs in an `except` handler: the pass restarts when the data runs out.
    on_exhaustion: bool = False
    # The move made on the drawn batch itself (`next(it).to(device)`), if any.
    moved: Optional[cst.Call] = None


# `hand_drawn` of the loaders of the files being checked, by the loader's id (three rules ask).
_DRAWS: "weakref.WeakKeyDictionary[FileFacts, Dict[int, List[Draw]]]" = weakref.WeakKeyDictionary()


def hand_drawn(ctx: "FileFacts", loader: cst.Call) -> List[Draw]:
    """The passes over the loader that code of this file draws by hand (see `Draw`), in the
    scope that assigns it and the same-file functions it is handed to. Computed once per
    loader (callers must not change the list)."""
    known = _DRAWS.setdefault(ctx, {})
    if id(loader) not in known:
        found = _assignment(ctx.module, loader)
        known[id(loader)] = _hand_drawn(ctx, found[1], found[0], set(), None) if found is not None else _drawn_inline(ctx, loader)
    return known[id(loader)]


def _drawn_inline(ctx: "FileFacts", loader: cst.Call) -> List[Draw]:
    """The passes drawn from a loader built right in the call that opens them:
    `it = iter(DataLoader(...))` or `data = cycle(DataLoader(...))` (a generator of this file
    or a project module that yields its parameter's items), then `next(data)` in a step loop."""
    parents = module_nodes(ctx.module).parents
    arg = parents.get(id(loader))
    opener = parents.get(id(arg)) if isinstance(arg, cst.Arg) else None
    if not isinstance(opener, cst.Call):
        return []
    local = called_function(opener, ctx.frequency.local_functions())
    imported = project_function(ctx, opener.func) if not local else None
    opens = (isinstance(opener.func, cst.Name) and opener.func.value == "iter") or any(
        arg_value is loader and _yields_items(function, parameter)
        for function in local for arg_value, parameter in arguments_by_parameter(opener, function)
    ) or (imported is not None and imported.yields_items_of_argument(opener, loader))
    if not opens:
        return []
    scope = ctx.frequency.enclosing_function(opener) or ctx.module
    restarted_by = _innermost_loop(scope, opener)
    return [Draw(draw.loop, opener, draw.names, restarted_by, False, draw.moved) for draw in _draws(scope, opener)]


def _hand_drawn(ctx: "FileFacts", scope: cst.CSTNode, name: str, seen: Set[Tuple[int, int]], anchor: Optional[cst.CSTNode]) -> List[Draw]:
    draws: List[Draw] = []
    functions = ctx.frequency.local_functions()
    for node in _visible(scope, name):
        if isinstance(node, cst.Call) and (opens_pass(node, name) or _cycles(ctx, node, name)):
            restarted_by = _innermost_loop(scope, node)
            start = node if anchor is None or restarted_by is not None else anchor
            handled = restarted_by is not None and any(
                isinstance(item, cst.ExceptHandler) and any(inner is node for inner in descendants(item)) for item in descendants(restarted_by)
            )
            draws += [Draw(draw.loop, start, draw.names, restarted_by, handled, draw.moved) for draw in _draws(scope, node)]
        elif isinstance(node, cst.Call):
            for function in called_function(node, functions):
                parameter = _parameter_for(function, node, name)
                if parameter is not None and (id(function), id(anchor or node)) not in seen:
                    seen.add((id(function), id(anchor or node)))
                    draws += _hand_drawn(ctx, function.body, parameter, seen, anchor or node)
    return draws


def restarts_in_training(ctx: "FileFacts", draw: Draw, loader: cst.Call) -> bool:
    """Whether a loop that trains draws the batch and opens the pass again and again (every
    step, or whenever the data runs out). A loader whose sampler is told how many samples a
    pass draws (`RandomSampler(ds, replacement=True, num_samples=int(1e10))`) may never run
    out: its restart on exhaustion is not known to happen."""
    if draw.restarted_by is None or not loop_trains(ctx, draw.loop):
        return False
    sampler = keyword(loader, "sampler")
    sized = sampler is not None and isinstance(sampler.value, cst.Call) and keyword(sampler.value, "num_samples") is not None
    return not (draw.on_exhaustion and sized)


def opens_pass(value: cst.BaseExpression, name: str) -> bool:
    """`iter(loader)` (or `iter(enumerate(loader))`): an iterator over the loader named `name`."""
    return (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Name)
        and value.func.value == "iter"
        and any(dotted_name(iterated_source(arg.value)) == name for arg in value.args)
    )


def _cycles(ctx: "FileFacts", call: cst.Call, name: str) -> bool:
    """`sample_data(loader)` where the generator `sample_data` (of this file, or a project
    function it imports: `FunctionFacts.yielded_parameters`) yields the items of its loops
    over the parameter it receives the loader as (`while True: for batch in loader: yield
    batch`): an iterator over the loader's batches, drawn with `next()`."""
    functions = ctx.frequency.local_functions()
    if not called_function(call, functions):
        imported = project_function(ctx, call.func)
        return imported is not None and imported.yields_items_of(call, name)
    return any(
        parameter is not None and _yields_items(function, parameter)
        for function in called_function(call, functions) for parameter in [_parameter_for(function, call, name)]
    )


def _yields_items(function: cst.FunctionDef, parameter: str) -> bool:
    """Whether the generator `function` yields the items of its loops over `parameter`."""
    for loop in scope_descendants(function.body):
        if isinstance(loop, cst.For) and dotted_name(iterated_source(loop.iter)) == parameter:
            items = set(bound_names(loop.target))
            if any(isinstance(node, cst.Yield) and dotted_name(node.value) in items for node in scope_descendants(loop.body)):
                return True
    return False


def _draws(scope: cst.CSTNode, opener: cst.Call) -> List[Draw]:
    """The draws from the iterator `opener` makes: `next(iter(loader))` itself, or `next(it)`
    after `it = iter(loader)` (the name `it`, wherever `scope` draws from it), each in the
    innermost loop of `scope` around it; a draw outside any loop (one batch to look at) is
    no pass of a step loop."""
    parent = _parent_in(scope, opener)
    drawing = _parent_in(scope, parent) if isinstance(parent, cst.Arg) else None
    if drawing is not None and drawn_from(drawing) is opener:
        calls = [drawing]
    elif isinstance(parent, cst.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0].target, cst.Name):
        iterator = parent.targets[0].target.value
        calls = [node for node in scope_descendants(scope) if isinstance(node, cst.Call) and dotted_name(drawn_from(node)) == iterator]
    else:
        return []
    draws = []
    for call in calls:
        loop = _innermost_loop(scope, call)
        assign = _parent_in(scope, call)
        names = frozenset(bound_names(assign.targets[0].target)) if isinstance(assign, cst.Assign) and len(assign.targets) == 1 else frozenset()
        if loop is not None:
            draws.append(Draw(loop, opener, names, moved=_moved_at_draw(scope, call, assign)))
    return draws


def _moved_at_draw(scope: cst.CSTNode, draw: cst.Call, parent: Optional[cst.CSTNode]) -> Optional[cst.Call]:
    """The `.to(...)` or `.cuda()` call made on the drawn batch itself (`next(it).to(device)`)."""
    if not (isinstance(parent, cst.Attribute) and parent.value is draw and parent.attr.value in ("to", "cuda")):
        return None
    move = _parent_in(scope, parent)
    return move if isinstance(move, cst.Call) and move.func is parent else None


def _parent_in(scope: cst.CSTNode, node: cst.CSTNode) -> Optional[cst.CSTNode]:
    return next((item for item in scope_descendants(scope) if any(child is node for child in children(item))), None)


def _innermost_loop(scope: cst.CSTNode, node: cst.CSTNode) -> Optional[cst.CSTNode]:
    """The innermost `for` or `while` loop of `scope` (outside nested functions) whose body holds `node`."""
    found = None
    for loop in scope_descendants(scope):
        if isinstance(loop, (cst.For, cst.While)) and any(item is node for item in descendants(loop.body)):
            found = loop  # descendants come outer first
    return found

