"""Code a trained module's `forward()` runs every step, and loops over a tensor's elements
that run every step (in step code, in a framework's batch hook, in a trained forward). The
rules that report host reads (TL101's `.item()`, TL103's `int(t)` and tensor tests) ask the
same questions of both."""

from __future__ import annotations

import weakref
from typing import AbstractSet, Dict, FrozenSet, Optional

import libcst as cst

from torchlint.semantics.execution import Execution, Frequency
from torchlint.semantics.facts import FileFacts
from torchlint.semantics.instantiation import unbuilt_definitions
from torchlint.semantics.names import dotted_name
from torchlint.semantics.project import GRAD_OFF, TRAINING, project_uses
from torchlint.semantics.training import MAX_LOOP_NESTING, called_every_step_elsewhere, repeated_with_training
from torchlint.semantics.tree import descendants, nodes_of_type


def without_grad(ctx: FileFacts, function: cst.FunctionDef) -> bool:
    """Whether `function` is an inference forward: decorated with `torch.no_grad()` (or
    `inference_mode()`), or running its work in such a `with` block of its own: every
    statement but a docstring and `return`s is one (MoCo's forward, which computes only the keys
    without gradients, trains)."""
    def grad_off(wrapper: cst.BaseExpression) -> bool:
        return ctx.qualified_name(wrapper.func if isinstance(wrapper, cst.Call) else wrapper) in GRAD_OFF

    if any(grad_off(decorator.decorator) for decorator in function.decorators):
        return True
    body = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
    work = [statement for statement in body if not _docstring_or_return(statement)]
    return bool(work) and all(isinstance(statement, cst.With) and any(grad_off(item.item) for item in statement.items) for statement in work)


def _docstring_or_return(statement: cst.BaseStatement) -> bool:
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    small = statement.body[0]
    return isinstance(small, cst.Return) or (isinstance(small, cst.Expr) and isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString)))


def in_trained_forward(ctx: FileFacts, execution: Execution, klass: Optional[cst.ClassDef], module_classes: AbstractSet[str]) -> bool:
    """Whether code runs every step because a trained module's `forward()` runs it: in the
    forward of `klass` (the class around the code) or a helper of it, also through loops of
    theirs (`for module in self.sequential:`), where `klass` is a torch module class
    (`module_classes`) the project builds whose `forward()` keeps gradients on. Its inputs are
    the batches training moved to the device."""
    for _ in range(MAX_LOOP_NESTING + 1):
        outer = execution.step_loop()
        if outer is None:
            break
        execution = ctx.execution(outer)
    if execution.frequency is not Frequency.PER_STEP or execution.step_method() != "forward":
        return False
    if not isinstance(klass, cst.ClassDef) or klass.name.value not in module_classes:
        return False
    if klass.name.value in unbuilt_definitions(ctx.path, ctx.text):
        return False
    if not (_runs_layers(ctx, klass, module_classes) or _built_as_submodule(ctx, klass.name.value, module_classes)):
        return False  # a module without layers built by a function: a post-processor of outputs
    if not project_uses(ctx, TRAINING):
        return False  # a library's module: its users may hand it host tensors (lengths kept for packing)
    forward = next((item for item in klass.body.body if isinstance(item, cst.FunctionDef) and item.name.value == "forward"), None)
    return forward is None or not without_grad(ctx, forward)


def walked_every_step(ctx: FileFacts, loop: cst.CSTNode, klass: Optional[cst.ClassDef], module_classes: AbstractSet[str]) -> bool:
    """Whether a loop over a tensor's elements runs every step: in a loop over training or
    per-epoch validation batches, in a function another module's such loop calls, in a
    framework's batch hook (Lightning's `validation_step`) or in a trained module's
    `forward()` (see `in_trained_forward`)."""
    walked = ctx.execution(loop)
    step_loop = walked.step_loop()
    return walked.frequency is Frequency.PER_STEP and (
        (step_loop is not None and repeated_with_training(ctx, step_loop))
        or called_every_step_elsewhere(walked)
        or bool(walked.framework())
        or in_trained_forward(ctx, walked, klass, module_classes)
    )


def _runs_layers(ctx: FileFacts, klass: cst.ClassDef, module_classes: AbstractSet[str]) -> bool:
    """Whether the module holds layers: it builds one (`self.fc = nn.Linear(...)`, a module
    class of this file) or calls or walks a module attribute (`self.encoder(x)`, `for
    module in self.sequential:`), not one of its own methods."""
    methods = {item.name.value for item in klass.body.body if isinstance(item, cst.FunctionDef)}
    for node in descendants(klass):
        if isinstance(node, cst.Assign) and isinstance(node.value, cst.Call):
            built = ctx.qualified_name(node.value.func) or ""
            if built.startswith("torch.nn.") or (dotted_name(node.value.func) or "") in module_classes:
                return True
        held = node.func if isinstance(node, cst.Call) else node.iter if isinstance(node, (cst.For, cst.CompFor)) else None
        if isinstance(held, cst.Attribute) and dotted_name(held.value) == "self" and held.attr.value not in methods:
            return True
    return False


def _built_as_submodule(ctx: FileFacts, name: str, module_classes: AbstractSet[str]) -> bool:
    """Whether another torch module class of this file builds the class in its `__init__`
    (`module_classes` grows as the traversal goes, so it is applied here, not remembered)."""
    return any(built != name and built in module_classes for built in _builders_of(ctx, name))


def _builders_of(ctx: FileFacts, name: str) -> FrozenSet[str]:
    """The classes of the file whose `__init__` calls a name `name`, found once per file and
    name: every read in a trained forward asks."""
    known = _BUILDERS.setdefault(ctx, {})
    if name not in known:
        known[name] = frozenset(
            klass.name.value
            for klass in nodes_of_type(ctx.module, (cst.ClassDef,))
            if isinstance(klass, cst.ClassDef)
            for function in klass.body.body
            if isinstance(function, cst.FunctionDef) and function.name.value == "__init__"
            and any(isinstance(node, cst.Call) and dotted_name(node.func) == name for node in descendants(function))
        )
    return known[name]


# Per checked file: for a class name, the classes whose `__init__` builds it.
_BUILDERS: "weakref.WeakKeyDictionary[FileFacts, Dict[str, FrozenSet[str]]]" = weakref.WeakKeyDictionary()
