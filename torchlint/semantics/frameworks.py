"""Training frameworks' contracts: which methods and functions a framework runs every batch.

A framework owns the step loop, so the loop is not in the project's code; its contract says
what runs in it instead:

- PyTorch Lightning: `training_step`, `validation_step`, `test_step`, `predict_step` (and
  their `*_step_end` and `on_*_batch_*` hooks, and the overrides of what the trainer does at
  each optimisation step: `backward`, `optimizer_step`, `optimizer_zero_grad`,
  `configure_gradient_clipping`) of a `LightningModule` subclass run once per batch; the loaders its `train_dataloader()`/`val_dataloader()` return feed every step of
  every epoch.
- Hugging Face `Trainer` subclasses: `training_step`, `compute_loss` and `prediction_step`.
- ignite: the process function an `Engine(...)` is built with, and handlers registered for
  `Events.ITERATION_*`.
- PyTorch Geometric: a `MessagePassing` layer's `message`, `aggregate`, `update`,
  `message_and_aggregate` and `edge_update` run inside its `propagate()`, which its `forward()`
  calls: they run as often as the forward does.
- engines that are handed a step function and a data loader in one call (torchnet's
  `engine.train(h, train_loader, epochs, optimizer)`, `engine.test(h, test_loader)`): the step
  function runs once per batch, and so do the hooks registered for a batch's events
  (`engine.hooks["on_forward"] = on_forward`); those of an epoch's events run once per epoch
  (see `training.engine_hooks`).

A class belongs to a framework when a base's dotted name ends with the framework's class name
(`pl.LightningModule`, `L.LightningModule`, `lightning.pytorch.LightningModule`), directly or
through a base class defined in the same file. A class is a Lightning module too when its base
is a class of another project module that is one (`project.FunctionFacts.lightning`), or when a
Lightning `Trainer` of its file fits or validates an instance of it (`fitted_classes`: its base
may be a library's, which the project cannot read). Its batch hooks run only when a trainer
gets an instance: in a program that no project module imports, a class whose instances the code
never hands on (`kept_unused_classes`) runs none (`frequency` answers RARE for them).
"""

from __future__ import annotations

from typing import Collection, Dict, FrozenSet, List, Optional, Sequence, Set

import libcst as cst

from torchlint.semantics.bindings import imported_values
from torchlint.semantics.framework_names import FRAMEWORK_BASES as _BASES, HUGGING_FACE, LIGHTNING, LIGHTNING_CALLBACK, TRAINER_PASSES, TRAINING_LOADER_HOOKS, lightning_class
from torchlint.semantics.names import dotted_name
from torchlint.semantics.tree import descendants, module_nodes, nodes_of_type, per_module
from torchlint.semantics.values import assigned_values

IGNITE = "ignite"
# An engine object handed a step function and a data loader (see `training.engine_steps`).
ENGINE = "its engine"

# Methods the framework calls once per batch, by framework.
BATCH_HOOKS = {
    LIGHTNING: frozenset(
        {
            "training_step", "validation_step", "test_step", "predict_step",
            "training_step_end", "validation_step_end", "test_step_end",
            "on_train_batch_start", "on_train_batch_end", "on_validation_batch_end",
            "on_before_backward", "on_after_backward", "on_before_optimizer_step",
            # Overrides of what the trainer does at every optimisation step.
            "backward", "optimizer_step", "optimizer_zero_grad", "configure_gradient_clipping",
        }
    ),
    HUGGING_FACE: frozenset({"training_step", "compute_loss", "prediction_step"}),
    # A callback's hooks around each batch (`on_train_batch_end(self, trainer, pl_module,
    # outputs, batch, batch_idx)`); its `training_step`, if any, is no hook.
    LIGHTNING_CALLBACK: frozenset(
        {
            "on_train_batch_start", "on_train_batch_end", "on_validation_batch_start", "on_validation_batch_end",
            "on_before_backward", "on_after_backward", "on_before_optimizer_step", "on_before_zero_grad",
        }
    ),
}
# Of those, the ones that run with training (forward and backward of every optimisation step).
TRAINING_HOOKS = frozenset({"training_step", "training_step_end", "on_train_batch_start", "on_train_batch_end",
                            "on_before_backward", "on_after_backward", "on_before_optimizer_step", "compute_loss",
                            "backward", "optimizer_step", "optimizer_zero_grad", "configure_gradient_clipping"})
# And those that run with it every epoch of a fit (validation; not `test_step`, `predict_step`).
FIT_HOOKS = TRAINING_HOOKS | {"validation_step", "validation_step_end", "on_validation_batch_end", "prediction_step"}
# Lightning's batch hooks of `trainer.test()` and `trainer.predict()`, a pass after the fit:
# the preview variant of the rules about per-step costs.
AFTER_FIT_HOOKS = frozenset({"test_step", "test_step_end", "predict_step"})
# The hooks of an engine's `hooks` dict that run once per batch (torchnet: the batch drawn,
# its forward pass, its optimizer update); `on_start_epoch`, `on_end_epoch`, `on_start` and
# `on_end` run once per epoch or run.
ENGINE_BATCH_HOOKS = frozenset({"on_sample", "on_forward", "on_update"})
ENGINE_EPOCH_HOOKS = frozenset({"on_start_epoch", "on_end_epoch"})
# The methods of a PyTorch Geometric `MessagePassing` layer that its `propagate()` runs.
MESSAGE_PASSING_HOOKS = frozenset({"message", "aggregate", "update", "message_and_aggregate", "edge_update"})
# ignite's per-iteration events.
_ITERATION_EVENTS = ("ITERATION_STARTED", "ITERATION_COMPLETED", "GET_BATCH_COMPLETED")


def framework_of(klass: cst.ClassDef, classes: Dict[str, List[cst.ClassDef]]) -> Optional[str]:
    """The framework `klass` belongs to (`LIGHTNING`, `HUGGING_FACE`), through same-file base
    classes (`classes`, by name); None for other classes."""
    found = _base_named(klass, classes, _BASES)
    return _BASES[found] if found is not None else None


def message_passing(klass: cst.ClassDef, classes: Dict[str, List[cst.ClassDef]]) -> bool:
    """Whether `klass` is a PyTorch Geometric `MessagePassing` layer, through same-file base
    classes too."""
    return _base_named(klass, classes, ("MessagePassing",)) is not None


def _base_named(klass: cst.ClassDef, classes: Dict[str, List[cst.ClassDef]], names: Collection[str], _depth: int = 0) -> Optional[str]:
    """The last name of a base of `klass` (`pl.LightningModule`: `LightningModule`) that is
    among `names`, directly or through base classes the file defines (`classes`, by name)."""
    for base in klass.bases:
        name = (dotted_name(base.value) or "").rsplit(".", 1)[-1]
        if name in names:
            return name
        for parent in classes.get(name, []) if _depth < 8 else ():
            found = _base_named(parent, classes, names, _depth + 1) if parent is not klass else None
            if found is not None:
                return found
    return None


def hook_framework(method: str, bases: Sequence[str]) -> Optional[str]:
    """The framework that calls a method named `method` once per batch, for a class whose
    direct bases have the last names `bases` (what the project index keeps of a call site)."""
    framework = next((_BASES[base] for base in bases if base in _BASES), None)
    return framework if framework is not None and method in BATCH_HOOKS[framework] else None


def batch_hook(method: cst.FunctionDef, klass: cst.ClassDef, classes: Dict[str, List[cst.ClassDef]]) -> Optional[str]:
    """The framework that calls `method` (of `klass`) once per batch, or None."""
    framework = framework_of(klass, classes) if method.name.value in _ALL_HOOKS else None
    if framework is not None and method.name.value in BATCH_HOOKS[framework]:
        return framework
    return None


def loader_hook(method: cst.FunctionDef, klass: cst.ClassDef, classes: Dict[str, List[cst.ClassDef]]) -> bool:
    """Whether `method` is a Lightning hook whose loaders feed every epoch of training: defined
    under the hook's name, or bound to it (`self.train_dataloader = self._train_dataloader`)."""
    name = method.name.value
    if name not in TRAINING_LOADER_HOOKS and name not in bound_hooks(klass, TRAINING_LOADER_HOOKS):
        return False
    return framework_of(klass, classes) == LIGHTNING


def bound_hooks(klass: cst.ClassDef, hooks: FrozenSet[str]) -> FrozenSet[str]:
    """Names of the methods of `klass` that its code binds to one of `hooks` by assignment
    (`self.train_dataloader = self._train_dataloader`), also with arguments fixed
    (`self.val_dataloader = partial(self._val_dataloader, shuffle=False)`)."""
    found = set()
    for node in descendants(klass):
        if isinstance(node, cst.Assign) and len(node.targets) == 1:
            bound = node.value
            if isinstance(bound, cst.Call) and (dotted_name(bound.func) or "").rpartition(".")[2] == "partial" and bound.args:
                bound = bound.args[0].value  # `partial(self._val_dataloader, ...)`
            target, value = dotted_name(node.targets[0].target) or "", dotted_name(bound) or ""
            if target.startswith("self.") and target[5:] in hooks and value.startswith("self."):
                found.add(value[5:])
    return frozenset(found)


def ignite_iteration_handler(function: cst.FunctionDef) -> bool:
    """`@trainer.on(Events.ITERATION_COMPLETED)` (or `(every=...)`, which is an interval)."""
    for decorator in function.decorators:
        call = decorator.decorator
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value == "on"):
            continue
        for arg in call.args[:1]:
            event = arg.value.func if isinstance(arg.value, cst.Call) else arg.value
            if (dotted_name(event) or "").rsplit(".", 1)[-1] in _ITERATION_EVENTS and not isinstance(arg.value, cst.Call):
                return True
    return False


def ignite_process_functions(calls: List[cst.Call]) -> List[str]:
    """Names of functions handed to `Engine(...)` (`calls`: the file's calls named `Engine`)."""
    return [arg.value.value for call in calls for arg in call.args[:1] if isinstance(arg.value, cst.Name)]


_ALL_HOOKS = frozenset().union(*BATCH_HOOKS.values())


@per_module
def fitted_classes(module: cst.Module) -> FrozenSet[str]:
    """The names of the file's classes whose instances a Lightning `Trainer` of the file fits
    or validates (`trainer.fit(Seg(), loader)`; `self.trainer.fit(self.model, loader)` after
    `self.trainer = pl.Trainer(...)` and `self.model = Seg(...)`): LightningModules by what
    the framework is handed, whatever base class they name (a library's, unread), unless the
    file shows them to derive from torch's `nn.Module` itself."""
    definitions = [node for node in nodes_of_type(module, (cst.ClassDef,)) if isinstance(node, cst.ClassDef)]
    by_name: Dict[str, List[cst.ClassDef]] = {}
    for node in definitions:
        by_name.setdefault(node.name.value, []).append(node)
    # Not a class the file shows to be a plain `nn.Module` (a Lightning trainer would refuse it).
    classes = {name for name, group in by_name.items() if not any(_base_named(node, by_name, ("Module",)) for node in group)}
    found: Set[str] = set()
    for node in nodes_of_type(module, (cst.Call,)):
        assert isinstance(node, cst.Call)
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value in TRAINER_PASSES and _lightning_trainer(module, func.value)):
            continue
        model = next((arg.value for arg in node.args if arg.keyword is None or arg.keyword.value == "model"), None)
        for value in [model] if isinstance(model, cst.Call) else assigned_values(module, dotted_name(model) or "") if model is not None else []:
            name = dotted_name(value.func) if isinstance(value, cst.Call) else None
            if name in classes:
                found.add(name)
    return frozenset(found)


@per_module
def kept_unused_classes(module: cst.Module) -> FrozenSet[str]:
    """The module-level classes of a file whose instances its code never hands on: every use of
    the class's name builds an instance into a plain name (`pl_model = LitModel(model)`), and
    those names are only ever read for their attributes (`pl_model.eval()`), never passed to a
    call, returned, stored or used otherwise. In a program that no other module imports, such
    a class's instances reach no trainer: a Lightning module's batch hooks never run (a
    notebook whose `trainer.fit(...)` is commented out, or that fine-tunes another object)."""
    names: Dict[str, List[cst.Name]] = {}
    for node in nodes_of_type(module, (cst.Name,)):
        assert isinstance(node, cst.Name)
        names.setdefault(node.value, []).append(node)
    if "LightningCLI" in names:  # it builds the classes it is given by name
        return frozenset()
    parents = module_nodes(module).parents
    found = set()
    for klass in (node for node in module.body if isinstance(node, cst.ClassDef)):
        uses = [node for node in names.get(klass.name.value, ()) if node is not klass.name]
        holders = [_instance_holder(parents, use) for use in uses]
        if uses and all(holder is not None and _only_read_for_attributes(parents, names.get(holder, ())) for holder in holders):
            found.add(klass.name.value)
    return frozenset(found)


def _instance_holder(parents: Dict[int, cst.CSTNode], use: cst.Name) -> Optional[str]:
    """The plain name `use`, a class's name, builds an instance into (`pl_model = LitModel(m)`);
    None for any other use."""
    call = parents.get(id(use))
    assign = parents.get(id(call)) if isinstance(call, cst.Call) and call.func is use else None
    if isinstance(assign, cst.Assign) and assign.value is call and len(assign.targets) == 1 and isinstance(assign.targets[0].target, cst.Name):
        return assign.targets[0].target.value
    return None


def _only_read_for_attributes(parents: Dict[int, cst.CSTNode], uses: Sequence[cst.Name]) -> bool:
    """Whether every use of a name (`uses`) binds it or reads an attribute of it."""
    for node in uses:
        parent = parents.get(id(node))
        if not ((isinstance(parent, cst.Attribute) and parent.value is node) or (isinstance(parent, cst.AssignTarget) and parent.target is node)):
            return False
    return True


def fits_a_trainer(module: cst.Module, call: cst.Call) -> bool:
    """`trainer.fit(model, ...)` of a Lightning `Trainer`: a whole training run."""
    func = call.func
    return isinstance(func, cst.Attribute) and func.attr.value == "fit" and _lightning_trainer(module, func.value)


def _lightning_trainer(module: cst.Module, value: cst.BaseExpression) -> bool:
    """Whether `value` is a Lightning `Trainer(...)`, or a name every assignment of the file
    binds to one."""
    if isinstance(value, cst.Call):
        head, _, rest = (dotted_name(value.func) or "").partition(".")
        return any(lightning_class(f"{base}.{rest}" if rest else base, "Trainer") for base in imported_values(module, head)) if head else False
    values = assigned_values(module, dotted_name(value) or "") if dotted_name(value) else []
    return bool(values) and all(isinstance(item, cst.Call) and _lightning_trainer(module, item) for item in values)
