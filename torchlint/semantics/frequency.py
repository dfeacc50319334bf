"""How often a node runs: every step, every epoch, once, rarely, or unknown.

- `per_step`: the body of a step loop (a loop over batches or iterations); `forward()` and
  the step hooks frameworks call; a function called from such code in the same file.
- `per_epoch`: the body of a loop over epochs, or of a loop each iteration of which runs a
  whole training loop (the logging after the update of a reinforcement-learning iteration),
  also by calling another module's function that trains in loops of its own
  (`exp.train(setting)` in a loop over experiments; a loop over items of such runs is `once`).
- `once`: module level, class bodies, `__init__` and setup/export functions, a function
  only called from such code, and a loop that is not a training loop (evaluation, say)
  at module level or inside a function that runs once, in a file that trains elsewhere,
  unless an outer loop repeats it.
- `rare`: under an interval or opt-in test (`if step % args.log_every == 0`, `if debug:`),
  when a metric improves on its best value (`if acc > best_acc:`, `if is_best:`),
  on an error path (`if not torch.isfinite(loss): raise ...`), in an `except` handler,
  under a profiling session (`with torch.profiler.profile(...):`, code that runs to be
  measured), or in a function every call site of which is rare.
- `unknown`: a function the file never calls (another module may, see `External`: a call
  in another module's loop over epochs makes it `per_epoch`, rare calls make it `rare`).

Each answer keeps the chain of reasons, so a message can say why. The file is indexed
(parents, call sites) once, on the first question.
"""

from __future__ import annotations

from functools import cached_property
from typing import AbstractSet, Callable, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

import libcst as cst

from torchlint.semantics.bindings import imported_values
from torchlint.semantics.calls import is_literal, keyword, method_call, positional
from torchlint.semantics.heuristics import (
    BEST_WORDS,
    CONTAINER_ITERATORS,
    COUNTER,
    DATA_METHODS,
    FAILURE_CHECKS,
    GUARD_WORDS,
    SETTINGS_WORDS,
    STEP_METHODS,
    has_word,
    identifier,
    is_setup_function,
    names_counter,
    names_epoch,
)
from torchlint.semantics.execution import (
    IN_STEP_LOOP,
    MAY_RUN_EVERY_STEP,
    ORDER,
    ONE_STEP,
    OUTER_LOOP,
    PASS_AT_INTERVALS,
    UNDER_INTERVAL,
    EVALUATION_STEP_CALLEE,
    Execution,
    Frequency,
    Reason,
    TRAINING_STEP_CALLEE,
)
from torchlint.semantics.configuration import configuration_holder
from torchlint.semantics.framework_names import LIGHTNING
from torchlint.semantics.frameworks import (
    BATCH_HOOKS, ENGINE, FIT_HOOKS, IGNITE, MESSAGE_PASSING_HOOKS, TRAINING_HOOKS, batch_hook, fits_a_trainer, fitted_classes, framework_of, hook_framework, ignite_iteration_handler, kept_unused_classes,
    ignite_process_functions, message_passing,
)
from torchlint.semantics.modes import mode_flag, notebook_cell, resets_flag
from torchlint.semantics.names import dotted_name
from torchlint.semantics.project import CallSite, FunctionFacts, caller_trains
from torchlint.semantics.training import (
    BACKWARD,
    STEP,
    body_nodes,
    called_function,
    engine_hooks,
    is_loader_like,
    local_functions,
    loop_trains,
    loops_run_by,
    methods_called,
    outside_nested_loops,
    steps_an_optimizer,
)
from torchlint.semantics.tree import COMPREHENSIONS, bound_names, children, descendants, iterated_source, leaves_in_first_iteration, module_nodes, names_bound_by, nodes_of_type, parameter_names, scope_descendants
from torchlint.semantics.values import string_key, string_value

# Where a value a test looks a key up in comes from: a configuration (True), not (False), unknown (None).
Holders = Callable[[cst.BaseExpression], Optional[bool]]


# The reason a loop over models, tasks or configurations gives, each item a whole training run.
RUN_LOOP = "in a loop each iteration of which runs a whole training run (its own epochs)"
# The reason data-loading methods give (`__getitem__`): they run on the host, per sample.
PER_SAMPLE = "runs for every sample"
# How many of a class's bases in its own file are followed up to one of another module.
LOCAL_BASES = 4


# A hook for facts from other modules: how often a function of this file runs when the file
# itself never calls it (the project index answers from the modules that import it).
External = Callable[[cst.FunctionDef], Optional[Execution]]


def _acts(sites: Sequence[CallSite], steps_itself: bool) -> bool:
    """Whether a function computes actions for an environment: every call of it in a loop hands
    what it returns to the loop's Gym environment step, and it takes no training step itself."""
    looped = [site for site in sites if site.in_loop]
    return bool(looped) and not steps_itself and all(site.feeds_environment for site in looped)


def called_elsewhere(
    name: str, sites: Sequence[CallSite], steps_itself: bool = False, loops: bool = True, trainer_method: bool = False
) -> Optional[Execution]:
    """How often a function runs from its calls in other modules: RARE when every call is
    under a rare test (an interval, a logging or debugging switch, a best-value test) or in an
    `except` handler (an interval around a callee that is itself a training step paces training
    and is not rare); PER_STEP when a call that may run unguarded is in a loop (not over
    epochs) of a function that runs a backward pass (`discriminator_loss(...)` in the training
    step loop: a callee of every training step), or of any function when the callee itself
    runs a backward pass outside its loops (`steps_itself`: `agent.update(batch)` is the
    training step), or when a call is in a framework's batch hook (`self.metric.score(...)` in
    a `LightningModule`'s `validation_step`: the framework runs it every batch), or in a
    class's `forward()` (`commons.rand_slice_segments(z, ...)` in a model's forward); PER_EPOCH when
    one is in a loop over epochs
    (`evaluate(...)` in the training script's epoch loop), except that a callee without loops
    of its own (not `loops`) called in a loop inside the epoch loop of a function that trains,
    or a method of a class another method of which takes a training step (`trainer_method`),
    runs for every batch of that pass (`engine.eval(x, y)` in `for x, y in val_loader:`):
    PER_STEP; None otherwise (no call, or calls whose loops the call sites do not show). An
    `else` branch (`not (<test>)`) is not rare."""
    unguarded = [site for site in sites if not site.in_handler and not any(_rare_guard(guard, steps_itself, site.counters) for guard in site.guards)]
    if sites and not unguarded:
        first = sites[0]
        return Execution(Frequency.RARE, (Reason(f"every call of `{name}()` in the project is rare ({first.path}:{first.line})"),))
    for site in unguarded:
        framework = hook_framework(site.caller or "", site.caller_bases)
        if framework is not None:
            hook = site.caller
            text = f"`{name}()` is called by `{hook}()`, which {framework} runs every batch ({site.path}:{site.line})"
            return Execution(Frequency.PER_STEP, (Reason(text, method=hook or "", framework=framework, external=True),))
    step = next((site for site in unguarded if site.in_other_loop and (steps_itself or caller_trains(site))), None)
    if step is not None:
        text = f"`{name}()` is called every training step ({step.path}:{step.line})"
        return Execution(Frequency.PER_STEP, (Reason(text, method=TRAINING_STEP_CALLEE, external=True, environment=_acts(unguarded, steps_itself)),))
    forward = next((site for site in unguarded if site.caller_bases and (site.caller or "").rpartition(".")[2] == "forward"), None)
    if forward is not None:
        text = f"`{name}()` is called by `{forward.caller}()`, which runs every step ({forward.path}:{forward.line})"
        return Execution(Frequency.PER_STEP, (Reason(text, method="forward", external=True),))
    batch = None if loops else next((site for site in unguarded if site.in_batch_loop and (trainer_method or caller_trains(site))), None)
    if batch is not None:
        text = f"`{name}()` is called for every batch of a loop over epochs ({batch.path}:{batch.line})"
        return Execution(Frequency.PER_STEP, (Reason(text, method=EVALUATION_STEP_CALLEE, external=True, environment=_acts(unguarded, steps_itself)),))
    epoch = next((site for site in unguarded if site.in_epoch_loop), None)
    if epoch is not None:
        return Execution(Frequency.PER_EPOCH, (Reason(f"`{name}()` is called every epoch ({epoch.path}:{epoch.line})"),))
    return None


def rare_guard(text: str, counters: Sequence[str] = ()) -> bool:
    """Whether a call site's guard (its source, see `CallSite.guards`) makes the call rare;
    `counters` are the site's loop counters (`CallSite.counters`)."""
    return _rare_guard(text, False, counters)


def _rare_guard(text: str, trains: bool, counters: Sequence[str] = ()) -> bool:
    """Whether a call site's guard makes the call rare (also one step of a loop whose counter it
    tests: `if i == len(loader) - 1:`); an interval does not when the callee is a training step
    (`if T % replay_frequency == 0: agent.learn(memory)` paces training)."""
    if text.startswith("not ("):
        return False
    try:
        why = rare_test(cst.parse_expression(text), set(counters))
    except cst.ParserSyntaxError:
        return False
    return bool(why) and not (trains and why == UNDER_INTERVAL)


class FrequencyAnalysis:
    """Answers `execution(node)` for any node of one module."""

    def __init__(
        self,
        module: cst.Module,
        trains: Callable[[], bool],
        one_off: bool = False,
        external: Optional[External] = None,
        never_taken: Optional[Callable[[cst.If, bool], bool]] = None,
        called_in_project: Optional[Callable[[cst.FunctionDef], bool]] = None,
        never_built: Optional[Callable[[], FrozenSet[str]]] = None,
        named: Optional[Callable[[cst.BaseExpression], Optional[FunctionFacts]]] = None,
        imported: Optional[Callable[[], bool]] = None,
    ) -> None:
        self.module = module
        # Whether another module of the project may import this file (None: it may).
        self.imported = imported
        # The summary of the project function or class an expression names, from the project
        # index (another module's `trainer`, `exp.train` on an instance of a project class, a
        # base class).
        self.named = named
        # The names of the module-level classes of the file that nothing in the project builds
        # and of its functions that nothing calls, and their ids (`_never_built`, found on first use).
        self.never_built = never_built
        self._unbuilt: Optional[FrozenSet[int]] = None
        # Whether another module of the project is seen to call a function of this file.
        self.called_in_project = called_in_project
        # Whether no run the project makes takes an `if`'s body (True) or its `else` (False).
        self.never_taken = never_taken
        self._never_memo: Dict[Tuple[int, bool], bool] = {}
        # A conversion or export script: everything in it runs once per use of the script.
        self.one_off = one_off
        self._trains = trains
        self.external = external
        self._parents: Optional[Dict[int, cst.CSTNode]] = None
        self._calls: Dict[str, List[cst.Call]] = {}
        self._referenced: Set[str] = set()
        self._functions: Dict[int, Execution] = {}
        # The functions being answered, by id, with their depth in the chain of questions, and
        # the lowest depth of those among them that a call back into reached (`_function`).
        self._active: Dict[int, int] = {}
        self._lowest_pending = 0
        self._local: Optional[Dict[str, List[cst.FunctionDef]]] = None
        self._backward_memo: Dict[int, bool] = {}
        self._outer_memo: Dict[int, bool] = {}
        self._steps_memo: Dict[int, bool] = {}
        self._gates_memo: Dict[int, bool] = {}
        self._outside_memo: Dict[int, bool] = {}
        self._inner_memo: Dict[int, List[cst.CSTNode]] = {}
        self._kinds: Dict[int, Frequency] = {}
        self._classes: Optional[Dict[str, List[cst.ClassDef]]] = None
        self._holders: Dict[int, Optional[bool]] = {}

    # -- index -----------------------------------------------------------------------------

    def _index(self) -> Dict[int, cst.CSTNode]:
        if self._parents is None:
            parents = module_nodes(self.module).parents
            for node in nodes_of_type(self.module, (cst.Call,)):
                name = identifier(node.func)
                if name:
                    self._calls.setdefault(name, []).append(node)
                    self._note_references(node, parents)
            self._parents = parents
        return self._parents

    def _note_references(self, call: cst.Call, parents: Dict[int, cst.CSTNode]) -> None:
        """Functions passed as values (`register_hook(fn)`, `collate_fn=collate`) may run
        anywhere; not a parameter of an enclosing function of the same name (`len(train)` in
        `split_train_val(train, val_split)` says nothing of a function `train()`)."""
        for arg in call.args:
            name = identifier(arg.value) if isinstance(arg.value, (cst.Name, cst.Attribute)) else ""
            if name and not (isinstance(arg.value, cst.Name) and name in _enclosing_parameters(call, parents)):
                self._referenced.add(name)

    # -- questions -------------------------------------------------------------------------

    def execution(self, node: cst.CSTNode) -> Execution:
        """How often `node` runs."""
        found = self._execution(node)
        if self.one_off and found.frequency is not Frequency.RARE:
            return Execution(Frequency.ONCE, (Reason("in a conversion or export script"),))
        return found

    def _execution(self, node: cst.CSTNode) -> Execution:
        """Walk out from `node`: a guard or handler anywhere up to its function makes it rare
        (`if step % n == 0:` around an inner sampling loop too, but not an interval test
        around a pass over a data loader: `if step % val_interval == 0: for batch in
        val_loader:` runs many steps each time, as a validation function called there does);
        the innermost step loop makes it per step; an epoch loop, the function or the module
        decide otherwise."""
        path = self._path(node)
        counters = {item.value for ancestor, child in path if isinstance(ancestor, cst.For) and child is ancestor.body for item in descendants(ancestor.target) if isinstance(item, cst.Name)}
        # Counters of loops whose every iteration is a step (`for epoch in range(n):` around
        # a full-batch forward, backward and optimizer step): `epoch % 10` is a step interval.
        steps = {
            item.value
            for ancestor, child in path
            if isinstance(ancestor, cst.For) and child is ancestor.body and self.loop_kind(ancestor) is Frequency.PER_STEP
            for item in descendants(ancestor.target)
            if isinstance(item, cst.Name)
        }
        step_loop: Optional[cst.CSTNode] = None
        for ancestor, child in path:
            if isinstance(ancestor, cst.ExceptHandler):
                return Execution(Frequency.RARE, (Reason("in an `except` handler", ancestor),))
            if isinstance(ancestor, cst.Assert) and child is ancestor.msg:
                return Execution(Frequency.RARE, (Reason("in an `assert`'s message, built only when it fails", ancestor),))
            if isinstance(ancestor, cst.With) and child is ancestor.body and any(_profiles(item.item, self._torch_profiler_names) for item in ancestor.items):
                return Execution(Frequency.RARE, (Reason("under the profiler: the code runs to be measured", ancestor),))
            if isinstance(ancestor, cst.If) and child in (ancestor.body, ancestor.orelse) and self._never_taken(ancestor, child is ancestor.body):
                return Execution(Frequency.RARE, (Reason("in a branch that no call in the project takes", ancestor),))
            if isinstance(ancestor, cst.If) and child is ancestor.body:
                why = rare_test(ancestor.test, counters, steps, self._configuration_holder)
                if why == UNDER_INTERVAL and self.trains_under(ancestor):
                    why = ""  # `if step % accumulate == 0: optimizer.step()` gates the training step itself
                why = (
                    why
                    or (_raises(ancestor.body) and "on an error path")
                    or (_initialises(ancestor, path) and "on first use (lazy initialisation)")
                )
                evaluation = step_loop if step_loop is not None else node
                if why == UNDER_INTERVAL and isinstance(evaluation, cst.For) and is_loader_like(evaluation.iter):
                    if step_loop is None:  # the pass itself runs again every interval, as a per-epoch one does
                        return Execution(Frequency.PER_EPOCH, (Reason(PASS_AT_INTERVALS, ancestor),))
                    why = ""  # `if step % val_interval == 0:` around a pass over a loader: each batch is a step
                if why == ONE_STEP:
                    once = self._once_per_pass(ancestor, path)
                    if once is not None:
                        return once
                if why:
                    return Execution(Frequency.RARE, (Reason(why, ancestor),))
                flagged = self._mode_branch(ancestor, path)
                if flagged is not None:
                    return flagged
            if repeats(ancestor, child) and step_loop is None:
                kind = self.loop_kind(ancestor)
                if kind is Frequency.PER_EPOCH:
                    return Execution(Frequency.PER_EPOCH, (Reason("in a loop over epochs", ancestor),))
                if kind is Frequency.PER_STEP and self._runs_training_loops(ancestor):
                    if self._runs_whole_runs(ancestor):
                        return Execution(Frequency.ONCE, (Reason(RUN_LOOP, ancestor),))
                    return Execution(Frequency.PER_EPOCH, (Reason(OUTER_LOOP, ancestor),))
                if kind is Frequency.PER_STEP:
                    step_loop = ancestor
            if isinstance(ancestor, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                break
        if step_loop is not None:
            return self._in_step_loop(step_loop, path)
        scope = next((a for a, _ in path if isinstance(a, (cst.FunctionDef, cst.Lambda, cst.ClassDef))), None)
        if isinstance(scope, cst.FunctionDef):
            return self._function(scope)
        if isinstance(scope, cst.Lambda):
            return Execution(Frequency.UNKNOWN, (Reason("in a lambda"),))
        if isinstance(scope, cst.ClassDef):
            return Execution(Frequency.ONCE, (Reason("in a class body"),), setup=True)
        return Execution(Frequency.ONCE, (Reason("at module level"),))

    def _once_per_pass(self, branch: cst.If, path: List[Tuple[cst.CSTNode, cst.CSTNode]]) -> Optional[Execution]:
        """A test of one value of the counter of a loop that neither trains nor draws batches
        (`if step == 0:` in `forward()`'s loop over time steps) runs its body once per pass of
        that loop, as often as the loop runs: every step where the loop itself runs every step;
        None otherwise (the training loop's `if step == 0:` runs once in a run)."""
        tested = {item.value for item in descendants(branch.test) if isinstance(item, cst.Name)}
        loop = next(
            (
                ancestor for ancestor, child in path
                if isinstance(ancestor, cst.For) and child is ancestor.body
                and tested & {item.value for item in descendants(ancestor.target) if isinstance(item, cst.Name)}
            ),
            None,
        )
        if loop is None or self.steps_itself(loop) or is_loader_like(loop.iter):
            return None  # the training loop's own counter: once in a pass of many steps
        outer = self.execution(loop)
        if outer.frequency is not Frequency.PER_STEP:
            return None
        return Execution(Frequency.PER_STEP, (Reason("on the first iteration of a loop that runs every step", branch),) + outer.reasons, outer.loop)

    def _never_taken(self, branch: cst.If, body: bool) -> bool:
        if self.never_taken is None:
            return False
        key = (id(branch), body)
        if key not in self._never_memo:
            self._never_memo[key] = self.never_taken(branch, body)
        return self._never_memo[key]

    def _in_step_loop(self, loop: cst.CSTNode, path: List[Tuple[cst.CSTNode, cst.CSTNode]]) -> Execution:
        here = (Reason(IN_STEP_LOOP, loop),)
        scope = next((a for a, _ in path if isinstance(a, (cst.FunctionDef, cst.Lambda, cst.ClassDef))), None)
        if scope is None:
            outer: Optional[Execution] = Execution(Frequency.ONCE, (Reason("at module level"),))
        else:
            outer = self._function(scope) if isinstance(scope, cst.FunctionDef) else None
        if outer is not None and outer.frequency is Frequency.RARE:
            return Execution(Frequency.RARE, here + outer.reasons)
        if outer is not None and outer.frequency is Frequency.ONCE:
            if outer.setup:
                return Execution(Frequency.ONCE, (Reason("a loop in setup code"),) + outer.reasons, setup=True)
            if not self.runs_backward(loop) and not _repeated(loop, path) and self._trains_elsewhere():
                return Execution(Frequency.ONCE, (Reason("a loop that does not train, in code that runs once"),) + outer.reasons)
        return Execution(Frequency.PER_STEP, here, loop)

    # -- training structure ------------------------------------------------------------------

    def loop_kind(self, loop: cst.CSTNode) -> Frequency:
        """`loop_kind`, decided by effects where they are known: a loop whose own iteration
        runs a backward pass (`for i in range(iters_per_epoch):` around forward, backward and
        `optimizer.step()`) is a step loop whatever its names say."""
        known = self._kinds.get(id(loop))
        if known is None:
            known = loop_kind(loop)
            if known is Frequency.PER_EPOCH and isinstance(loop, (cst.For, cst.While)) and (
                self.steps_itself(loop) or self._over_named_progress_bar(loop) or _moves_what_it_draws(loop)
            ):
                known = Frequency.PER_STEP
            self._kinds[id(loop)] = known
        return known

    def _over_named_progress_bar(self, loop: cst.For) -> bool:
        """A loop over a progress bar named for the epoch it shows, over batches: `with
        tqdm(loader) as tepoch:`, then `for x, y in tepoch:` (not `for epoch in tepoch:`, nor a
        bar over `range(epochs)`)."""
        if not isinstance(loop, cst.For) or not isinstance(loop.iter, cst.Name) or names_epoch(loop.target):
            return False
        bar = loop.iter.value
        bound = []  # what the loop's scope binds the bar's name to
        for item in descendants(self.enclosing_function(loop) or self.module):
            if isinstance(item, cst.WithItem) and item.asname is not None and dotted_name(item.asname.name) == bar:
                bound.append(item.item)
            elif isinstance(item, cst.Assign) and any(dotted_name(target.target) == bar for target in item.targets):
                bound.append(item.value)
        sources = [iterated_source(value) for value in bound]
        return bool(bound) and all(
            source is not value and not names_epoch(source) and not (isinstance(source, cst.Call) and identifier(source) == "range")
            for value, source in zip(bound, sources)
        )

    def steps_itself(self, node: cst.CSTNode) -> bool:
        """Whether `node`'s body runs a backward pass outside the loops nested in it, directly
        or in same-file functions it calls (outside their loops too): each run of `node` is a
        training step, not a pass of many."""
        key = id(node)
        if key not in self._steps_memo:
            self._steps_memo[key] = False  # recursion
            functions = self.local_functions()
            found = False
            for item in outside_nested_loops(node.body if isinstance(node, (cst.For, cst.While, cst.FunctionDef)) else node):
                if isinstance(item, cst.Call) and (
                    _calls_backward(item) or any(self.steps_itself(function) for function in called_function(item, functions))
                ):
                    found = True
                    break
            self._steps_memo[key] = found
        return self._steps_memo[key]

    def _trains_elsewhere(self) -> bool:
        """Whether the file trains: it has a training loop over a loader, or a loop whose
        iteration runs a backward pass and an optimizer step (an agent's frame loop calling its
        update method), itself or in same-file functions it calls."""
        if self._trains():
            return True
        functions = self.local_functions()
        loops = nodes_of_type(self.module, (cst.For, cst.While))
        return any(
            self.runs_backward(loop) and STEP in methods_called(loop, functions) and self.loop_kind(loop) is Frequency.PER_STEP
            for loop in loops
        )

    def local_functions(self) -> Dict[str, List[cst.FunctionDef]]:
        """The module's functions by name (`training.local_functions`), computed once."""
        if self._local is None:
            self._local = local_functions(self.module)
        return self._local

    def runs_backward(self, node: cst.CSTNode) -> bool:
        """Whether running `node` (a loop's iteration, a function) runs a backward pass,
        directly or in same-file functions it calls."""
        key = id(node)
        if key not in self._backward_memo:
            self._backward_memo[key] = BACKWARD in methods_called(node, self.local_functions())
        return self._backward_memo[key]

    def trains_under(self, branch: cst.If) -> bool:
        """Whether the body of `branch` runs a backward pass or an optimizer step, itself or in
        same-file functions it calls: an interval test around it (`if global_step %
        policy_frequency == 0:`, `if (i + 1) % accumulation == 0:`) paces training, and what
        runs under it is training, not logging."""
        key = id(branch)
        if key not in self._gates_memo:
            body = branch.body
            self._gates_memo[key] = self.runs_backward(body) or any(
                isinstance(item, cst.Call) and steps_an_optimizer(item) for item in body_nodes(body)
            )
        return self._gates_memo[key]

    def _runs_training_loops(self, loop: cst.CSTNode) -> bool:
        """An outer loop (`for iteration in range(n):`, `while step < total:`) whose every
        iteration runs a whole inner training loop (a step loop, not a loop over a container
        such as `for name in ["a", "b"]:`), directly or through a same-file function, and runs
        no backward pass nor optimizer step outside it: its own body runs once per many steps.
        An optimizer step outside the inner loop makes each iteration one training step
        (gradient accumulation: backward over micro-batches, then `optimizer.step()`)."""
        key = id(loop)
        if key not in self._outer_memo:
            trains = any(self.loop_kind(item) is Frequency.PER_STEP and self.runs_backward(item) for item in self._inner_loops(loop))
            trains = trains or bool(self._training_callees(loop)) or self._fits_a_trainer(loop)
            self._outer_memo[key] = trains and not self._steps_outside(loop)
        return self._outer_memo[key]

    def _training_callees(self, loop: cst.CSTNode) -> List[FunctionFacts]:
        """The project functions of other modules that every iteration of `loop` calls (a
        statement of its body, not under a test) and that train in loops of their own, never
        a single step per call (`model = trainer(model, iterations=n)`, `exp.train(setting)`):
        each such call is a training pass or a whole run. Same-file functions are left to
        their loops' own effects (`_inner_loops`)."""
        if self.named is None or not isinstance(loop, (cst.For, cst.While)):
            return []
        found = []
        functions = self.local_functions()
        for line in loop.body.body:
            if isinstance(line, cst.SimpleStatementLine):
                for call in outside_nested_loops(line):
                    if not isinstance(call, cst.Call) or called_function(call, functions):
                        continue
                    facts = self.named(call.func)
                    if facts is not None and facts.trains and not facts.steps_itself and facts.parameters:
                        found.append(facts)
        return found

    def _fits_a_trainer(self, loop: cst.CSTNode) -> bool:
        """Whether every iteration of `loop` runs a Lightning trainer's `fit` (a statement of
        its body, not under a test), itself or in a same-file function it calls so (a
        hyperparameter search calling `train_process(config)`, which fits): a whole training
        run each time (co-training rounds, configurations)."""
        if not isinstance(loop, (cst.For, cst.While)) or not isinstance(loop.body, cst.IndentedBlock):
            return False
        functions = self.local_functions()
        for line in loop.body.body:
            for small in line.body if isinstance(line, cst.SimpleStatementLine) else ():
                call = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
                if not isinstance(call, cst.Call):
                    continue
                if fits_a_trainer(self.module, call) or any(
                    isinstance(statement, cst.SimpleStatementLine) and any(
                        isinstance(item, (cst.Expr, cst.Assign)) and isinstance(item.value, cst.Call) and fits_a_trainer(self.module, item.value)
                        for item in statement.body
                    )
                    for function in called_function(call, functions) for statement in function.body.body
                ):
                    return True
        return False

    def _inner_loops(self, loop: cst.CSTNode) -> List[cst.CSTNode]:
        key = id(loop)
        if key not in self._inner_memo:
            self._inner_memo[key] = [item for item in loops_run_by(loop, self.local_functions()) if item is not loop]
        return self._inner_memo[key]

    def _runs_whole_runs(self, loop: cst.CSTNode) -> bool:
        """An outer loop over items (`for model, label in model_list:`, tasks, configurations;
        not `range(updates)`) whose every iteration runs a loop over epochs that trains, its
        own or another module's, or fits a Lightning trainer: one whole training run per item, so
        its own body runs once per run."""
        iterated = iterated_of(loop)
        if iterated is None or (isinstance(iterated, cst.Call) and identifier(iterated) == "range"):
            return False
        return any(self.loop_kind(item) is Frequency.PER_EPOCH for item in self._inner_loops(loop)) or any(
            facts.loops_over_epochs for facts in self._training_callees(loop)
        ) or self._fits_a_trainer(loop)  # a trainer's `fit` runs its epochs

    def _steps_outside(self, node: cst.CSTNode) -> bool:
        """Whether `node`'s body (a loop's, a function's) runs a backward pass or an optimizer
        step outside the loops nested in it (but in one that leaves in its first iteration), itself
        or in same-file functions it calls outside their own loops (`train_step(batch)`,
        `run_step()` calling `optimize()`; not `train_epoch(loader)`, whose loop is the step loop)."""
        key = id(node)
        if key in self._outside_memo:
            return self._outside_memo[key]
        self._outside_memo[key] = False  # recursion
        functions = self.local_functions()
        stack = list(children(node))
        found = False
        while stack and not found:
            item = stack.pop()
            if isinstance(item, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                continue
            if isinstance(item, (cst.For, cst.While)) and not leaves_in_first_iteration(item.body):
                continue  # a loop that leaves with its first batch is part of this iteration
            found = isinstance(item, cst.Call) and (
                _calls_backward(item)
                or steps_an_optimizer(item)
                or any(self._steps_outside(function) for function in called_function(item, functions))
            )
            stack.extend(children(item))
        self._outside_memo[key] = found
        return found

    def _function(self, function: cst.FunctionDef) -> Execution:
        """How often `function` runs. A call back into a function still being answered is
        unknown there; an answer that rests on such a call of an outer function (`learn()`
        asked while its caller `step()` is, through `self.optimizer.step()` in `learn()`) is
        provisional and not kept: asked again later, it is answered in full."""
        key = id(function)
        depth = self._active.get(key)
        if depth is not None:
            self._lowest_pending = min(self._lowest_pending, depth)
            return Execution(Frequency.UNKNOWN, (Reason("a recursive call"),))
        known = self._functions.get(key)
        if known is not None:
            return known
        depth = self._active[key] = len(self._active)
        outer_pending, self._lowest_pending = self._lowest_pending, depth
        try:
            result = self._function_uncached(function)
            # The file's own effects first: whether no module calls it asks the whole project.
            if result.frequency is Frequency.UNKNOWN and self.takes_a_step(function) and self._callers_unseen(function):
                text = f"`{function.name.value}()` runs a backward pass and an optimizer step: each call is a training step"
                result = Execution(Frequency.PER_STEP, (Reason(text, method=TRAINING_STEP_CALLEE, external=True),))
        finally:
            del self._active[key]
            pending, self._lowest_pending = self._lowest_pending, outer_pending
        if pending < depth:
            self._lowest_pending = min(outer_pending, pending)
        else:
            self._functions[key] = result
        return result

    def _construction(self, init: cst.FunctionDef) -> Optional[Execution]:
        """How often an `__init__` runs when its class is built in code that runs every step
        (`ProbMask(B, H, L, index, scores, device=q.device)` in an attention's `forward()`,
        in this file or another module): every step; None otherwise (construction is setup)."""
        klass = self._enclosing_scope(init)
        if not isinstance(klass, cst.ClassDef):
            return None
        for call in self._sites(klass.name.value, False):
            found = self.execution(call)
            if found.frequency is Frequency.PER_STEP:
                text = f"`{klass.name.value}` is built every step"
                return Execution(Frequency.PER_STEP, (Reason(text, call),) + found.reasons)
        found = self.external(init) if self.external is not None else None
        return found if found is not None and found.frequency is Frequency.PER_STEP else None

    def _callers_unseen(self, function: cst.FunctionDef) -> bool:
        """Whether no call of the function is seen: in this file (by name, or through the
        handles of its factory) nor in the project's other modules."""
        name = function.name.value
        method = isinstance(self._enclosing_scope(function), cst.ClassDef)
        if self._sites(name, method) or self.closure_calls(function):
            return False
        return self.called_in_project is None or not self.called_in_project(function)

    def takes_a_step(self, function: cst.FunctionDef) -> bool:
        """Whether each call of `function` is one training step, by its effects: outside its
        own loops it runs a backward pass and an optimizer step. Asked of methods and of
        functions their factory returns or the file hands on as a value, whose callers the
        project may not show (`self.agent.update(...)` on an object built from a
        configuration, a step function `make_train_step(...)` returns to a notebook,
        `create_trainer(train_step, ...)` building an ignite engine in another module); a
        module-level function that no call names nor takes is not called."""
        scope = self._enclosing_scope(function)
        returned = isinstance(scope, cst.FunctionDef) and any(
            isinstance(node, cst.Return) and isinstance(node.value, cst.Name) and node.value.value == function.name.value
            for node in scope_descendants(scope.body)
        )
        self._index()
        if not (isinstance(scope, cst.ClassDef) or returned or function.name.value in self._referenced):
            return False
        return self.steps_itself(function) and STEP in methods_called(function.body, self.local_functions())

    def _steps_held_optimizer(self, function: cst.FunctionDef, klass: cst.ClassDef) -> bool:
        """Whether `function` (a method of `klass`) steps an optimizer: `self.optimizer.step()`
        on a `torch.optim` optimizer the class builds (`optim.SGD(...)`,
        `torch.optim.Adam(...)`), or an optimizer's own step variant
        (`steps_an_optimizer`). Such a `step()` (an optimizer wrapper clipping gradients
        first) is part of the training step of whoever calls it, unlike an environment's."""
        held = {
            target.attr.value
            for node in scope_descendants(klass.body)
            if isinstance(node, cst.Assign) and isinstance(node.value, cst.Call)
            and self._torch_optimizer(node.value.func)
            for target in (t.target for t in node.targets)
            if isinstance(target, cst.Attribute) and dotted_name(target.value) == "self"
        }
        for item in body_nodes(function.body):
            if not isinstance(item, cst.Call):
                continue
            if steps_an_optimizer(item):
                return True
            found = method_call(item)
            if found is not None and found[1] == STEP and isinstance(found[0], cst.Attribute) and dotted_name(found[0].value) == "self" and found[0].attr.value in held:
                return True
        return False

    def _torch_optimizer(self, func: cst.BaseExpression) -> bool:
        """Whether `func` names a `torch.optim` class through the file's imports (`optim.SGD`
        after `import torch.optim as optim`, `Adam` after `from torch.optim import Adam`)."""
        head, _, rest = (dotted_name(func) or "").partition(".")
        return any(f"{base}.{rest}".startswith("torch.optim.") for base in imported_values(self.module, head)) if head else False

    def lightning_elsewhere(self, klass: cst.ClassDef) -> bool:
        """Whether `klass`, of no framework by the bases of its file, is a Lightning module by
        what the project shows: a base of another project module is one, also through bases
        of this file (`DownstreamMD17(Downstream)` with `Downstream(Grundmodel)` and `Grundmodel`
        a `LightningModule` elsewhere), or a Lightning trainer of the file fits it
        (`frameworks.fitted_classes`)."""
        return self._lightning_elsewhere(klass, LOCAL_BASES)

    def _lightning_elsewhere(self, klass: cst.ClassDef, depth: int) -> bool:
        if framework_of(klass, self.classes()) is not None:
            return False
        if klass.name.value in fitted_classes(self.module):
            return True
        for base in klass.bases:
            local = self.classes().get(dotted_name(base.value) or "", [])
            if depth > 0 and len(local) == 1 and local[0] is not klass and self._lightning_elsewhere(local[0], depth - 1):
                return True
        return self.named is not None and any(getattr(self.named(base.value), "lightning", False) for base in klass.bases)

    def trains_nothing(self, klass: cst.ClassDef, depth: int = LOCAL_BASES) -> bool:
        """Whether the `training_step` of `klass` (its own, or one of a base of this file or of
        another project module) never reads the batch it is handed: the trainer's passes over
        the class's train loader train nothing (`return torch.tensor(0.0, requires_grad=True)`
        in a module that uses the loader once, in `on_train_start`)."""
        step = next((item for item in klass.body.body if isinstance(item, cst.FunctionDef) and item.name.value == "training_step"), None)
        if step is not None:
            names = parameter_names(step.params)
            return len(names) > 1 and step.params.star_arg is None and not any(
                isinstance(item, cst.Name) and item.value == names[1] for item in descendants(step.body)
            )
        for base in klass.bases:
            local = self.classes().get(dotted_name(base.value) or "", [])
            if len(local) == 1 and local[0] is not klass:
                if depth > 0 and self.trains_nothing(local[0], depth - 1):
                    return True
            elif self.named is not None and getattr(self.named(base.value), "idle_training_step", False):
                return True
        return False

    def _never_fitted(self, klass: cst.ClassDef) -> bool:
        """Whether `klass` is a class of a program (a file no project module imports: a
        script, a notebook) whose instances it never hands on (`frameworks.kept_unused_classes`),
        so no trainer runs its hooks."""
        return self.imported is not None and klass.name.value in kept_unused_classes(self.module) and not self.imported()

    def _inference_forward(self, function: cst.FunctionDef, scope: Optional[cst.CSTNode]) -> bool:
        """Whether `function` is the `forward()` of a Lightning module whose own training and
        validation hooks (`training_step` among them) never run it (`self(x)`,
        `self.forward(x)`; they call `self.model(...)`): its inference API, run as often as
        whoever calls it, and under `inference_mode` in Lightning's prediction loop."""
        if function.name.value != "forward" or not isinstance(scope, cst.ClassDef):
            return False
        if framework_of(scope, self.classes()) != LIGHTNING:
            return False
        hooks = [item for item in scope.body.body if isinstance(item, cst.FunctionDef) and item.name.value in FIT_HOOKS]
        if not any(hook.name.value == "training_step" for hook in hooks):
            return False  # its steps are elsewhere (a base class): they may run it
        return not any(
            isinstance(node, cst.Call) and dotted_name(node.func) in ("self", "self.forward")
            for hook in hooks
            for node in descendants(hook)
        )

    def _function_uncached(self, function: cst.FunctionDef) -> Execution:
        name = function.name.value
        scope = self._enclosing_scope(function)
        method = isinstance(scope, cst.ClassDef)
        if method and self._never_built(scope):
            return Execution(Frequency.RARE, (Reason(f"its class `{scope.name.value}` is never built in the project"),))
        if self._never_built(function):
            return Execution(Frequency.RARE, (Reason(f"nothing in the project calls `{name}()`"),))
        framework = batch_hook(function, scope, self.classes()) if isinstance(scope, cst.ClassDef) else None
        if framework is None and isinstance(scope, cst.ClassDef) and name in BATCH_HOOKS[LIGHTNING] and self.lightning_elsewhere(scope):
            framework = LIGHTNING
        if framework is None and not method and self._ignite_step(function):
            framework = IGNITE
        engine = engine_hooks(self.module).get(name) if not method else None
        if framework is None and engine is Frequency.PER_STEP:
            framework = ENGINE
        if engine is Frequency.PER_EPOCH:
            return Execution(Frequency.PER_EPOCH, (Reason(f"{ENGINE} runs `{name}()` every epoch"),))
        if framework == LIGHTNING and isinstance(scope, cst.ClassDef) and self._never_fitted(scope):
            return Execution(Frequency.RARE, (Reason(f"no trainer is handed a `{scope.name.value}` in this program"),))
        if framework is not None:
            return Execution(
                Frequency.PER_STEP, (Reason(f"{framework} runs `{name}()` every batch", method=name, framework=framework),)
            )

        if method and name in MESSAGE_PASSING_HOOKS and message_passing(scope, self.classes()):  # type: ignore[arg-type]
            return Execution(Frequency.PER_STEP, (Reason(f"`propagate()` runs `{name}()` in every `forward()`", method="forward"),))
        if method and name in STEP_METHODS and not self._inference_forward(function, scope):
            # `trainer.train_step(batch)` in this file's step loop (`self.test_step(batch)` in
            # a per-epoch evaluation loop): that loop is the reason. Not for a `step()` that
            # does not train: an environment's, whose values go back to the caller's loop.
            trains = name != "forward" and (
                BACKWARD in methods_called(function.body, self.local_functions()) or (name == "step" and self._steps_held_optimizer(function, scope))
            )
            looped = self._from_call_sites(function, name, method) if trains or name != "forward" else None
            if looped is not None and looped.frequency is Frequency.PER_STEP and (looped.step_loop() is not None or looped.framework()):
                if trains or name != "step" or looped.framework():
                    return looped  # (a `step()` shared by a framework's hooks runs in each of them)
            # Or the step loop of another module (a base class's `train_iteration()` calling
            # `self.train_step()` for every step): that loop is the reason.
            elsewhere = self.external(function) if trains and looped is None and self.external is not None else None
            if elsewhere is not None and elsewhere.frequency is Frequency.PER_STEP:
                return elsewhere
            return Execution(Frequency.PER_STEP, (Reason(f"`{name}()` runs every step", method=name),))
        if method and name in DATA_METHODS:
            return Execution(Frequency.PER_STEP, (Reason(f"`{name}()` {PER_SAMPLE}"),))
        if name == "__init__":
            return self._construction(function) or Execution(Frequency.ONCE, (Reason("in `__init__`"),), setup=True)
        if not method and notebook_cell(function, self.module):
            return Execution(Frequency.ONCE, (Reason("a marimo notebook cell, which runs once per run"),))
        self._index()
        sites = self.closure_calls(function) or (self._instance_calls(scope) if method and name == "__call__" else [])
        found = self._from_call_sites(function, name, method, sites) if sites else None
        if found is not None:
            return found
        if not self._sites(name, method) or name in self._referenced:
            found = self.external(function) if self.external is not None else None
            if found is not None:
                return found
            if is_setup_function(name):
                return Execution(Frequency.ONCE, (Reason(f"`{name}()` builds or converts something once"),), setup=True)
            if name == "main":
                return Execution(Frequency.ONCE, (Reason("`main()` runs once"),))
            return Execution(Frequency.UNKNOWN, (Reason(f"`{name}()` is not called in this file"),))
        local = self._from_call_sites(function, name, method)
        if local is not None and local.frequency is Frequency.ONCE and self.external is not None:
            # called once here (a standalone run in the `__main__` block) and every epoch by
            # the training script that imports it: it runs as often as its most frequent caller
            found = self.external(function)
            if found is not None and ORDER.index(found.frequency) < ORDER.index(Frequency.ONCE):
                return found
        return local  # type: ignore[return-value]

    def _sites(self, name: str, method: bool) -> List[cst.Call]:
        """The calls of the file that may enter the function `name`. A call in a function of
        the same name is recursion or delegation to another object's method of that name
        (`self._decoder.decode(...)` in a `decode()`): it says nothing of how often the
        function is entered."""
        self._index()
        return [
            call for call in self._calls.get(name, [])
            if _may_call(call, method) and not self._in_function_named(call, name) and not self._on_foreign_instance(call)
            and not self._in_never_built(call)
        ]

    def _unbuilt_ids(self) -> FrozenSet[int]:
        """The ids of the module-level classes of the file that nothing in the project builds,
        of its functions that nothing calls, and of the methods (`Class.method`) nothing can call."""
        if self._unbuilt is None:
            names = self.never_built() if self.never_built is not None else frozenset()
            self._unbuilt = frozenset(
                id(item) for item in self.module.body if isinstance(item, (cst.ClassDef, cst.FunctionDef)) and item.name.value in names
            ) | frozenset(
                id(method) for item in self.module.body if isinstance(item, cst.ClassDef)
                for method in item.body.body if isinstance(method, cst.FunctionDef) and f"{item.name.value}.{method.name.value}" in names
            )
        return self._unbuilt

    def never_runs(self, node: cst.CSTNode) -> bool:
        """Whether no run the project makes reaches `node`: it is in a branch that no call in
        the project takes, in a module-level function that nothing calls, or in a method of a
        module-level class that nothing builds."""
        for ancestor, child in self._path(node):
            if isinstance(ancestor, cst.If) and child in (ancestor.body, ancestor.orelse) and self._never_taken(ancestor, child is ancestor.body):
                return True
            if isinstance(ancestor, (cst.FunctionDef, cst.ClassDef)) and self._never_built(ancestor):
                return True
        return False

    def _never_built(self, definition: Optional[cst.CSTNode]) -> bool:
        """Whether `definition` is a module-level class that nothing in the project builds, or
        a module-level function that nothing calls."""
        return id(definition) in self._unbuilt_ids()

    def _in_never_built(self, call: cst.Call) -> bool:
        """Whether `call` is in a function nothing calls or a method of a class nothing builds:
        a call that never runs."""
        if not self._unbuilt_ids():
            return False
        function = self.enclosing_function(call)
        return function is not None and (self._never_built(function) or self._never_built(self._enclosing_scope(function)))

    def _on_foreign_instance(self, call: cst.Call) -> bool:
        """Whether a method call's receiver is an object made right there by a callable that
        another module defines: the callee's name is bound by an import, of a library or of
        another project module (`dist.Cauchy(loc, scale).sample(shape)`, `make_noise(n).sample()`),
        and is no class of this file; or is itself a name an import binds (`torch.log(x)`, a
        module, or an object another module made). Not a method of this file, whatever its
        name; a callee the file binds itself (`Sampler = VAE`) may build one."""
        receiver = call.func.value if isinstance(call.func, cst.Attribute) else None
        if isinstance(receiver, (cst.Name, cst.Attribute)):
            head = (dotted_name(receiver) or "").partition(".")[0]
            return head in self._imported_names and head not in self.classes()  # `torch.log(x)`, `np.log(p)`, `logger.log(...)`
        if not isinstance(receiver, cst.Call):
            return False
        built = dotted_name(receiver.func) or ""
        return built.partition(".")[0] in self._imported_names and built.rpartition(".")[2] not in self.classes()

    def _instance_calls(self, klass: cst.ClassDef) -> List[cst.Call]:
        """The calls of the file on instances of `klass` it builds (`augment(x)` after `augment =
        Augment(...)`, `self.augment(x)` after `self.augment = Augment(...)`): each runs the
        class's `__call__`."""
        handles = {
            dotted_name(node.targets[0].target)
            for node in nodes_of_type(self.module, (cst.Assign,))
            if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.value, cst.Call)
            and dotted_name(node.value.func) == klass.name.value
        }
        return [call for handle in handles if handle for call in self._calls.get(handle.rpartition(".")[2], []) if dotted_name(call.func) == handle]

    def closure_calls(self, function: cst.FunctionDef) -> List[cst.Call]:
        """The calls of a function that its enclosing function returns, made through the names
        bound to the factory's result (`_closure_handles`); [] for other functions."""
        factory = self._enclosing_scope(function)
        if not isinstance(factory, cst.FunctionDef):
            return []
        self._index()
        return [call for handle in self._closure_handles(function, factory) for call in self._calls.get(handle, [])]

    def _closure_handles(self, function: cst.FunctionDef, factory: cst.FunctionDef) -> List[str]:
        """The names under which the file calls a function that its enclosing function returns
        (`return perform_train_step`): those bound to the factory's result (`train_step =
        make_train_step(...)`, `self.train_step_fn = self._make_train_step_fn()`) and the
        names bound to one of those (`step_fn = self.train_step_fn`)."""
        returned = any(
            isinstance(node, cst.Return) and isinstance(node.value, cst.Name) and node.value.value == function.name.value
            for node in scope_descendants(factory.body)
        )
        if not returned:
            return []
        handles = [_bound_identifier(self.parent(call)) for call in self._calls.get(factory.name.value, [])]
        found = [handle for handle in handles if handle]
        aliases = [
            _bound_identifier(node) for node in nodes_of_type(self.module, (cst.Assign,))
            if found and isinstance(node.value, (cst.Name, cst.Attribute)) and identifier(node.value) in found  # type: ignore[attr-defined]
        ]
        return found + [alias for alias in aliases if alias]

    def _from_call_sites(
        self, function: cst.FunctionDef, name: str, method: bool, sites: Optional[List[cst.Call]] = None
    ) -> Optional[Execution]:
        """How often the function runs as its most frequent call site runs (`sites`, by default
        the calls of `name`); None without one.
        Among call sites in step loops, the one whose loop itself runs most often decides
        (`reset()` in the training loop of `train_one_epoch()`, run every epoch, and in the
        test loop of a `test()` run once: the training loop's reasons, whatever the order)."""
        best: Optional[Tuple[Tuple[int, int, int], Execution, cst.Call]] = None
        for call in self._sites(name, method) if sites is None else sites:
            found = self.execution(call)
            # (a framework's hooks alike: the training step's call is the reason, then the fit's)
            hook = found.step_method()
            rank = (ORDER.index(found.frequency), self._loop_rank(found), 0 if hook in TRAINING_HOOKS else 1 if hook in FIT_HOOKS else 2)
            if best is None or rank < best[0]:
                best = (rank, found, call)
        if best is None:
            return None
        _, execution, call = best
        if self.external is not None and execution.reasons and execution.reasons[-1].text.endswith(PER_SAMPLE):
            # Data code runs it on the host for every sample; a training step of another module
            # (`mel_spectrogram(y_g_hat)` in the step loop) runs it on the device.
            found = self.external(function)
            if found is not None and found.frequency is Frequency.PER_STEP:
                return found
        if method and execution.frequency is Frequency.UNKNOWN and self.external is not None:
            # `obj.compute()` in this file may be any object's method of the name: the calls
            # of other modules (`self.cer.compute()` in a `validation_step`) may say more.
            found = self.external(function)
            if found is not None:
                return found
        caller = self.enclosing_function(call)
        if execution.frequency is Frequency.RARE:
            text = f"every call of `{name}()` is rare"
        else:
            text = f"`{name}()` is called from " + (f"`{caller.name.value}()`" if caller is not None else "module level")
        return Execution(execution.frequency, (Reason(text, call),) + execution.reasons, setup=execution.setup)

    def _loop_rank(self, execution: Execution) -> int:
        """For per-step code, how often the step loop that runs it runs (its place in `ORDER`);
        per-step code with no loop (`forward()`, assumed to run every step) ranks as a loop
        run an unknown number of times. 0 for other frequencies."""
        if execution.frequency is not Frequency.PER_STEP:
            return 0
        loop = execution.step_loop()
        return ORDER.index(self.execution(loop).frequency if loop is not None else Frequency.UNKNOWN)

    def _mode_branch(self, branch: cst.If, path: List[Tuple[cst.CSTNode, cst.CSTNode]]) -> Optional[Execution]:
        """How often a branch under an instance's mode flag runs (`if self.is_test:` in
        `select_action()`): as often as the calls of its method made by the methods that set the
        flag (`test()` with `self.is_test = True`), when every other call of the method in the
        file is in a method of the class that resets the flag (`train()` with `self.is_test =
        False`); None otherwise."""
        method = next((a for a, _ in path if isinstance(a, cst.FunctionDef)), None)
        owner = self.enclosing_class(method) if method is not None else None
        flagged = mode_flag(branch, method, owner, self.module) if method is not None and owner is not None else None
        if flagged is None:
            return None
        attribute, setters = flagged
        best: Optional[Execution] = None
        for call in self._sites(method.name.value, True):  # type: ignore[union-attr]
            caller = self.enclosing_function(call)
            if caller is None or self.enclosing_class(caller) is not owner:
                return None
            if caller not in setters:
                if not resets_flag(caller, attribute, self.module):
                    return None
                continue
            found = self.execution(call)
            if best is None or ORDER.index(found.frequency) < ORDER.index(best.frequency):
                best = found
        if best is None:
            return None
        text = f"under `{dotted_name(branch.test)}`, which only " + ", ".join(f"`{item.name.value}()`" for item in setters) + " sets"
        return Execution(best.frequency, (Reason(text, branch),) + best.reasons, setup=best.setup)

    def _in_function_named(self, call: cst.Call, name: str) -> bool:
        caller = self.enclosing_function(call)
        return caller is not None and caller.name.value == name

    def calls_named(self, name: str) -> List[cst.Call]:
        """The calls of the module whose callee is named `name` (`build(...)`, `self.build(...)`)."""
        self._index()
        return self._calls.get(name, [])

    def parent(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        return self._index().get(id(node))

    def runs_few_times(self, loop: cst.CSTNode, imported: bool = True) -> bool:
        """Whether `loop` runs at most `FEW_ITERATIONS` times in the whole program: a loop over
        `range(n)` at module level (a script's or notebook's top level, in no other loop) of a
        literal `n` or of a name the file binds only to one (`NUM_EPOCHS = 25`), or directly in
        a function over `range(n)` of a parameter `n` that each of the function's calls, all
        at module level, passes as such a literal (`model.train(x, y, num_epochs=50)`), in a
        file no other module calls (`imported` False: a notebook) or whose functions none does."""
        function = self._top_level_function(loop)
        if function is False:
            return False
        constants: Dict[str, int] = {}
        if isinstance(function, cst.FunctionDef):
            found = self._literal_arguments(function, imported)
            if found is None:
                return False
            constants = found
        count = _literal_trip_count(iterated_of(loop), {**self._integer_names, **constants})
        return count is not None and count <= FEW_ITERATIONS

    @cached_property
    def _integer_names(self) -> Dict[str, int]:
        """The names the module's own scope binds only to integer literals (a notebook's cells
        setting `NUM_EPOCHS = 25` again), each with the largest of them; found once per file."""
        found: Dict[str, List[int]] = {}
        other: Set[str] = set()
        for item in scope_descendants(self.module):
            if isinstance(item, cst.Assign):
                target = item.targets[0].target if len(item.targets) == 1 else None
                if isinstance(target, cst.Name) and isinstance(item.value, cst.Integer):
                    found.setdefault(target.value, []).append(int(item.value.value, 0))
                else:
                    other.update(name for each in item.targets for name in bound_names(each.target))
            elif not isinstance(item, cst.AssignTarget):
                other.update(names_bound_by(item))  # `+=`, a loop target, an import: not a constant
        return {name: max(values) for name, values in found.items() if name not in other}

    def _top_level_function(self, node: cst.CSTNode) -> "cst.FunctionDef | None | bool":
        """The function `node` is directly in, None at module level, False inside a loop, a
        lambda or a function nested in another."""
        function = None
        ancestor = self.parent(node)
        while ancestor is not None:
            if isinstance(ancestor, (cst.Lambda, *_LOOPS)) or (isinstance(ancestor, cst.FunctionDef) and function is not None):
                return False
            if isinstance(ancestor, cst.FunctionDef):
                function = ancestor
            ancestor = self.parent(ancestor)
        return function

    def _literal_arguments(self, function: cst.FunctionDef, imported: bool) -> Optional[Dict[str, int]]:
        """The largest integer literal each call of `function` passes for each of its
        parameters, where every call is at module level and no other module calls it (none
        can where the file is not `imported`); None otherwise. A parameter some call leaves
        out or passes otherwise is not in the answer."""
        method = isinstance(self._enclosing_scope(function), cst.ClassDef)
        sites = self._sites(function.name.value, method)
        if not sites or (imported and (self.called_in_project is None or self.called_in_project(function))):
            return None
        params = [param.name.value for param in function.params.params]
        if method and params:
            params = params[1:]
        found: Dict[str, List[int]] = {}
        for call in sites:
            if self._top_level_function(call) is not None:
                return None
            passed = {name: arg.value for name, arg in zip(params, positional(call))}
            passed.update({arg.keyword.value: arg.value for arg in call.args if arg.keyword is not None})
            for name in params:
                value = passed.get(name)
                found.setdefault(name, []).append(int(value.value, 0) if isinstance(value, cst.Integer) else -1)
        return {name: max(values) for name, values in found.items() if min(values) >= 0}

    def classes(self) -> Dict[str, List[cst.ClassDef]]:
        """The module's classes by name, computed once."""
        if self._classes is None:
            self._classes = {}
            for node in nodes_of_type(self.module, (cst.ClassDef,)):
                if isinstance(node, cst.ClassDef):
                    self._classes.setdefault(node.name.value, []).append(node)
        return self._classes

    def _configuration_holder(self, holder: cst.BaseExpression) -> Optional[bool]:
        """Whether a value a test looks a key up in is the run's configuration
        (`configuration_holder`), found once per holder: a test is read for every node it guards."""
        if id(holder) not in self._holders:
            self._holders[id(holder)] = configuration_holder(self.module, holder)
        return self._holders[id(holder)]

    @cached_property
    def _imported_names(self) -> FrozenSet[str]:
        """The names the module's import statements bind, at any depth (`dist` for `import
        torch.distributions as dist`, `Net` for `from .models import Net`): values of another
        module, a library's or the project's."""
        return frozenset(
            alias.evaluated_alias or alias.evaluated_name.split(".")[0]
            for node in nodes_of_type(self.module, (cst.Import, cst.ImportFrom))
            if not isinstance(node.names, cst.ImportStar)  # type: ignore[attr-defined]
            for alias in node.names  # type: ignore[attr-defined]
        )

    @cached_property
    def _torch_profiler_names(self) -> FrozenSet[str]:
        """`_imported_from_torch_profiler` of the module, found once."""
        return _imported_from_torch_profiler(self.module)

    def _ignite_step(self, function: cst.FunctionDef) -> bool:
        """An ignite process function (`Engine(update)`) or per-iteration handler."""
        return ignite_iteration_handler(function) or function.name.value in self._ignite_process_names()

    def ignite_processes(self) -> List[cst.FunctionDef]:
        """The file's ignite process functions (`Engine(update)`): `update(engine, batch)` runs
        for every batch the engine draws from the loader its `run()` is given."""
        names = self._ignite_process_names()
        return [function for name in names for function in self.local_functions().get(name, [])]

    def _ignite_process_names(self) -> List[str]:
        self._index()
        return ignite_process_functions(self._calls.get("Engine", []))

    # -- tree helpers ----------------------------------------------------------------------

    def _path(self, node: cst.CSTNode) -> List[Tuple[cst.CSTNode, cst.CSTNode]]:
        parents = self._index()
        path = []
        child = node
        parent = parents.get(id(child))
        while parent is not None:
            path.append((parent, child))
            child, parent = parent, parents.get(id(parent))
        return path

    def _enclosing_scope(self, node: cst.CSTNode) -> Optional[cst.CSTNode]:
        for ancestor, _ in self._path(node):
            if isinstance(ancestor, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                return ancestor
        return None

    def enclosing_class(self, node: cst.CSTNode) -> Optional[cst.ClassDef]:
        """The class whose body (not a nested function's) defines `node`."""
        scope = self._enclosing_scope(node)
        return scope if isinstance(scope, cst.ClassDef) else None

    def enclosing_function(self, node: cst.CSTNode) -> Optional[cst.FunctionDef]:
        return next((a for a, _ in self._path(node) if isinstance(a, cst.FunctionDef)), None)


def _enclosing_parameters(node: cst.CSTNode, parents: Dict[int, cst.CSTNode]) -> Set[str]:
    """The parameter names of the functions and lambdas around `node`."""
    found: Set[str] = set()
    current = parents.get(id(node))
    while current is not None:
        if isinstance(current, (cst.FunctionDef, cst.Lambda)):
            found.update(parameter_names(current.params))
        current = parents.get(id(current))
    return found


def _bound_identifier(node: Optional[cst.CSTNode]) -> str:
    """The last name of the one target an assignment binds (`step_fn`, `train_step_fn` of
    `self.train_step_fn`); "" for anything else."""
    if not isinstance(node, cst.Assign) or len(node.targets) != 1:
        return ""
    target = node.targets[0].target
    return identifier(target) if isinstance(target, (cst.Name, cst.Attribute)) else ""


def _profiles(manager: cst.BaseExpression, torch_profiler: AbstractSet[str] = frozenset()) -> bool:
    """`torch.profiler.profile(...)`, `profiler.profile(...)`, `profile(...)` (from
    `torch.profiler`), `torch.autograd.profiler.profile(...)`: a profiling session; not one
    switched by a setting (`profile(args.enable_profiling, use_cuda=True)`, `enabled=...`),
    off in a normal run, which runs the code under it as it is. `torch_profiler`: the names the
    file imports from `torch.profiler` (`profile`, `profiler`), whose `profile` takes its
    activities first (`profile(activities)`), not a switch as the autograd profiler does."""
    call = manager.func if isinstance(manager, cst.Call) else manager
    name = dotted_name(call) or ""
    if not (name == "profile" or name.endswith("profiler.profile")):
        return False
    if not isinstance(manager, cst.Call):
        return True
    switch = keyword(manager, "enabled")
    first = positional(manager)[0].value if positional(manager) else None
    activities_first = name.startswith("torch.profiler.") or name.partition(".")[0] in torch_profiler
    if switch is None and first is not None and not activities_first and not isinstance(first, (cst.List, cst.Tuple, cst.Set)):
        return is_literal(first, "True")  # `autograd.profiler.profile(enabled, ...)`
    return switch is None or is_literal(switch.value, "True")


def _imported_from_torch_profiler(module: cst.Module) -> FrozenSet[str]:
    """The names the module binds to `torch.profiler` or its `profile` (`from torch import
    profiler`, `from torch.profiler import profile`, `import torch.profiler as prof`)."""
    found: Set[str] = set()
    for node in nodes_of_type(module, (cst.Import, cst.ImportFrom)):
        if isinstance(node, cst.Import):
            found |= {
                alias.asname.name.value for alias in node.names
                if dotted_name(alias.name) == "torch.profiler" and alias.asname is not None and isinstance(alias.asname.name, cst.Name)
            }
            continue
        source = dotted_name(node.module) if node.module is not None and not node.relative else None
        if source not in ("torch", "torch.profiler") or isinstance(node.names, cst.ImportStar):
            continue
        for alias in node.names:
            imported = dotted_name(alias.name)
            if (source, imported) in (("torch", "profiler"), ("torch.profiler", "profile")):
                local = alias.asname.name if alias.asname is not None else alias.name
                found |= {local.value} if isinstance(local, cst.Name) else set()
    return frozenset(found)


def _may_call(call: cst.Call, method: bool) -> bool:
    """`f(...)` calls a plain function `f`; `self.f(...)`/`obj.f(...)` a method `f`."""
    if isinstance(call.func, cst.Name):
        return not method
    return method


def _raises(body: cst.BaseSuite) -> bool:
    """Whether a block ends by raising (an error branch)."""
    statements = body.body if isinstance(body, cst.IndentedBlock) else (body,)
    last = statements[-1] if statements else None
    if isinstance(last, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
        return any(isinstance(item, cst.Raise) for item in last.body)
    return False


def _initialises(branch: cst.If, path: List[Tuple[cst.CSTNode, cst.CSTNode]]) -> bool:
    """A lazy initialisation: `if x is None:`, `if not state:`, `if len(state) == 0:`,
    `if "k" not in cache:` (alone or as one of the conditions of an `and`) whose body assigns
    `x`, `state[...]` or `cache[...]`: `if ignore_grad and sample is None: sample = dummy()`.
    Not a parameter that defaults to None (`def forward(self, x, mask=None):` then `if mask is
    None: mask = ...`): that branch is the default path of every call that omits it."""
    test = branch.test
    conditions = [test.left, test.right] if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And) else [test]
    function = next((a for a, _ in path if isinstance(a, cst.FunctionDef)), None)
    defaults = _none_defaults(function) if function is not None else set()
    return any(_assigns_tested(branch, condition, defaults) for condition in conditions)


def _none_defaults(function: cst.FunctionDef) -> Set[str]:
    """The parameters of `function` whose default is None."""
    parameters = (*function.params.params, *function.params.kwonly_params)
    return {p.name.value for p in parameters if isinstance(p.default, cst.Name) and p.default.value == "None"}


def _assigns_tested(branch: cst.If, test: cst.BaseExpression, defaults: Set[str]) -> bool:
    """Whether the branch assigns what `test` finds unset; for `key not in cache`, the entry of
    that key (a cache written under another key, `cache[str(key) + suffix]`, never fills the
    tested one, so its branch runs on every call)."""
    tested = _tested_for_absence(test)
    if tested is None or tested in defaults:
        return False
    key = test.left if isinstance(test, cst.Comparison) and isinstance(test.comparisons[0].operator, cst.NotIn) else None
    for node in descendants(branch.body):
        targets = [target.target for target in node.targets] if isinstance(node, cst.Assign) else []
        for target in targets:
            base = target.value if isinstance(target, cst.Subscript) else target
            if dotted_name(base) == tested and (key is None or _writes_key(target, key)):
                return True
    return False


def _writes_key(target: cst.BaseExpression, key: cst.BaseExpression) -> bool:
    """Whether `target` is the container's entry under `key` (`cache[key]`)."""
    if not isinstance(target, cst.Subscript) or len(target.slice) != 1:
        return False
    index = target.slice[0].slice
    return isinstance(index, cst.Index) and index.value.deep_equals(key)


def _tested_for_absence(test: cst.BaseExpression) -> Optional[str]:
    """The dotted name a test checks for being unset: `x is None`, `not x`, `len(x) == 0`, `k not in x`."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return dotted_name(test.expression)
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        operator, right = test.comparisons[0].operator, test.comparisons[0].comparator
        if isinstance(operator, cst.Is) and isinstance(right, cst.Name) and right.value == "None":
            return dotted_name(test.left)
        if isinstance(operator, cst.NotIn):
            return dotted_name(right)
        left = test.left
        if (
            isinstance(operator, cst.Equal)
            and isinstance(right, cst.Integer)
            and right.value == "0"
            and isinstance(left, cst.Call)
            and identifier(left) == "len"
            and left.args
        ):
            return dotted_name(left.args[0].value)
    return None


def rare_test(
    test: cst.BaseExpression, counters: Set[str], steps: AbstractSet[str] = frozenset(), holders: Optional[Holders] = None
) -> str:
    """Why an `if` test limits its body to some steps ('' when it does not): an interval
    (`step % n == 0`), one step (`i == 0`), a logging or debugging switch, a failure check,
    an improvement on the best value so far (`if val_loss < best_loss:`, `if is_best:`).
    `holders` says where a value the test looks a key up in comes from (see `_setting_name`).
    Of `a and b` one side must be rare; of `a or b` one side, and no side that runs often
    (`epoch == last or epoch % val_every == 0` runs every few epochs), where a flag of unknown
    meaning (`step % 250 == 0 or last_step`) is neither."""
    if isinstance(test, cst.BooleanOperation):
        sides = [rare_test(side, counters, steps, holders) for side in (test.left, test.right)]
        if isinstance(test.operator, cst.And):
            return sides[0] or sides[1]
        flags = [not why and _flag(side) for why, side in zip(sides, (test.left, test.right))]
        if any(not why and not flag for why, flag in zip(sides, flags)) or not any(sides):
            return ""
        return UNDER_INTERVAL if UNDER_INTERVAL in sides else sides[0] or sides[1]
    nodes = list(descendants(test))
    modulos = [node for node in nodes if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Modulo)]
    if any(_interval(node, counters, steps) for node in modulos):
        return UNDER_INTERVAL  # first: `if step % n == 0 or step == 0:` runs every n steps
    # `epoch % val_every` is per-epoch work; `seq_len % period` is arithmetic, not a guard.
    inside = {id(item) for node in modulos for item in descendants(node)}
    nodes = [node for node in nodes if id(node) not in inside]
    for node in nodes:
        if isinstance(node, cst.Comparison) and _compares_to_one_step(node, counters):
            return ONE_STEP
        setting = _setting_name(node, holders)
        if has_word(setting, GUARD_WORDS):
            return f"under `{setting}`"
        if has_word(setting, BEST_WORDS):
            return "when a metric improves on its best value"
        if isinstance(node, cst.Call) and identifier(node) in FAILURE_CHECKS:
            return "on a failure check"
    return ""


def _flag(node: cst.BaseExpression) -> bool:
    """A bare name or attribute, maybe negated (`last_step`, `not self.done`): a flag whose
    meaning the test does not show."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        node = node.expression
    return isinstance(node, (cst.Name, cst.Attribute))


def _setting_name(node: cst.CSTNode, holders: Optional[Holders] = None) -> str:
    """The name a test reads a value under: `log_images`, `args.debug`, or the key of a
    configuration lookup (`config["enable_tensorboard"]`, `params["train"]["debug"]` after
    `params = yaml.safe_load(f)`; not a key of the data, `out["log_det"]`); '' for anything
    else. Where the holder comes from decides (`holders`, see `configuration.configuration_holder`:
    a parsed namespace, a loaded file, an OmegaConf or Hydra configuration, `self.hparams`);
    where that is unknown (a parameter without annotation, a test read without its file), the
    holder's name does, as a tie-breaker: a name of `SETTINGS_WORDS` (`cfg`, `args`, `hparams`)."""
    if isinstance(node, (cst.Name, cst.Attribute)):
        return identifier(node)
    if not isinstance(node, cst.Subscript):
        return ""
    owner = node.value
    while isinstance(owner, cst.Subscript):
        owner = owner.value
    if not isinstance(owner, (cst.Name, cst.Attribute)):
        return ""
    origin = holders(owner) if holders is not None else None
    settings = origin if origin is not None else has_word(identifier(owner), SETTINGS_WORDS)
    return (string_key(node) or "") if settings else ""


def _interval(modulo: cst.BinaryOperation, counters: Set[str], steps: AbstractSet[str]) -> bool:
    """`step % n`, `(i + 1) % accum`, `n % args.log_every`: a step counter, or any value tested
    against a logging or checkpointing setting (also a configuration lookup, `cfg["log_every"]`); not an epoch counter (`epoch % val_every`
    runs every few epochs: per-epoch work) unless its loop's every iteration is a step
    (`steps`), nor arithmetic (`seq_len % period`)."""
    if names_epoch(modulo.left) and identifier(modulo.left) not in steps:
        return False
    if _counter_expression(modulo.left, counters, interval=True):
        return True
    return any(_names_guard_setting(node) for node in descendants(modulo.right))


def _names_guard_setting(node: cst.CSTNode) -> bool:
    """`args.log_every`, `log_interval`, or the key of a configuration lookup
    (`cfg["train"]["log_every"]`): a logging, checkpointing or evaluation setting."""
    if isinstance(node, (cst.Name, cst.Attribute)):
        return has_word(identifier(node), GUARD_WORDS)
    return isinstance(node, cst.SimpleString) and has_word(string_value(node) or "", GUARD_WORDS)


# A counter tested below this bound (`if ni < 3:`) picks the first few steps of a run.
FIRST_STEPS = 10


def _compares_to_one_step(node: cst.Comparison, counters: Set[str]) -> bool:
    """`i == 0`, `step == len(loader) - 1`, `i + 1 == total_steps`, `step == args.max_steps`,
    `step in save_steps`, `ni < 3`: an iteration counter (or the counter plus a literal)
    compared for one value or a few (`rank == 0` is not a step guard, nor `mode == "train"`)."""
    if len(node.comparisons) != 1:
        return False
    operator, right = node.comparisons[0].operator, node.comparisons[0].comparator
    if isinstance(operator, cst.In):
        return _counter_expression(node.left, counters)
    if isinstance(operator, (cst.LessThan, cst.LessThanEqual)) and isinstance(right, cst.Integer):
        return _counter_expression(node.left, counters) and int(right.value, 0) <= FIRST_STEPS  # `if ni < 3:`
    if not isinstance(operator, cst.Equal):
        return False
    sides = ((node.left, right), (right, node.left))
    return any(_counter_expression(side, counters) and _may_be_a_step(other) for side, other in sides)


def _counter_expression(node: cst.BaseExpression, counters: Set[str], interval: bool = False) -> bool:
    """A counter (`step`, `self.global_step`, `self.get_num_updates()`) or a counter plus a
    literal (`i + 1`, `step - 1`; not `epoch % 10`, which `rare_test` reads as an interval).
    `interval`: the value is taken modulo n, where any index counts (`frame_idx % 1000`: every
    n-th value of an index is an interval of the iterations it numbers)."""
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Subtract)) and isinstance(node.right, cst.Integer):
        node = node.left
    if interval and COUNTER.search(identifier(node)) is not None:
        return True
    return _counter_name(node, counters)


def _may_be_a_step(node: cst.BaseExpression) -> bool:
    """A value a counter can reach: not a string, `None`, or a boolean."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
        return False
    return not (isinstance(node, cst.Name) and node.value in ("None", "True", "False"))


def _counter_name(node: cst.BaseExpression, counters: Set[str]) -> bool:
    name = identifier(node)
    return bool(name) and (name in counters or names_counter(name))


# A loop of the program's own top level that runs its body at most this many times in all (a
# toy demonstration: `for epoch in range(30):` around a full-batch step on a hundred points).
FEW_ITERATIONS = 100


# -- loops -------------------------------------------------------------------------------------


def _moves_what_it_draws(loop: cst.For) -> bool:
    """Whether a `for` loop whose target names no epoch moves what each iteration draws to a
    device in its own body (`src.cuda()`, `x.to(device)`, also of a name bound from them):
    a pass over batches, whatever its iterable is called (`for i, (eval, src) in
    enumerate(layer.iterate_one_epoch_eval()):`)."""
    if not isinstance(loop, cst.For) or names_epoch(loop.target):
        return False
    names = {item.value for item in descendants(loop.target) if isinstance(item, cst.Name)}
    nodes = list(outside_nested_loops(loop.body))
    for _ in range(2):  # `x, y = batch`, then `x = x.float()`
        for item in nodes:
            if isinstance(item, cst.Assign) and any(isinstance(n, cst.Name) and n.value in names for n in descendants(item.value)):
                names |= {n for target in item.targets for n in bound_names(target.target)}
    for item in nodes:
        found = method_call(item) if isinstance(item, cst.Call) else None
        if found is None or found[1] not in ("cuda", "to") or not (found[1] == "cuda" or _names_a_device(item)):
            continue
        receiver = found[0]
        while isinstance(receiver, (cst.Attribute, cst.Subscript)):
            receiver = receiver.value
        if isinstance(receiver, cst.Name) and receiver.value in names:
            return True
    return False


def _names_a_device(call: cst.Call) -> bool:
    """`.to(device)`, `.to("cuda")`, `.to(device=...)`: not a dtype (`torch.float16`) or the CPU."""
    target = next((arg.value for arg in call.args if arg.keyword is None or arg.keyword.value == "device"), None)
    if target is None:
        return False
    if isinstance(target, cst.SimpleString):
        return (string_value(target) or "").split(":")[0] not in ("cpu", "meta")
    return not (isinstance(target, cst.Attribute) and dotted_name(target.value) == "torch")


def loop_kind(loop: cst.CSTNode) -> Frequency:
    """PER_STEP for a loop over steps, PER_EPOCH over epochs, ONCE for a loop over a container
    (parameters, dict entries, a literal list) that runs once per call of its code.

    A comprehension maps over a collection (`[t.item() for t in values]`): after the first
    element's wait the device is idle, so it costs what one call costs where it stands. It
    is a step loop only when it iterates a data loader."""
    iterated = iterated_of(loop)
    if iterated is not None and _at_most_once(iterated):
        return Frequency.ONCE  # `for epoch in range(0, 1):` runs its body once
    if names_epoch_loop(loop):
        return Frequency.PER_EPOCH
    if isinstance(loop, (*COMPREHENSIONS, cst.CompFor)):
        return Frequency.PER_STEP if iterated is not None and is_loader_like(iterated) else Frequency.ONCE
    iterated = iterated_source(iterated) if iterated is not None else None
    if isinstance(iterated, (cst.List, cst.Tuple, cst.Set, cst.Dict)) or names_parameters(iterated):
        return Frequency.ONCE
    found = method_call(iterated) if iterated is not None else None
    return Frequency.ONCE if found is not None and found[1] in CONTAINER_ITERATORS else Frequency.PER_STEP


def _at_most_once(iterated: cst.BaseExpression) -> bool:
    """`range(1)`, `range(0, 1)`, `range(3, 4)`: a range of literal bounds with at most one step."""
    if not (isinstance(iterated, cst.Call) and isinstance(iterated.func, cst.Name) and iterated.func.value == "range"):
        return False
    bounds = [arg.value for arg in iterated.args]
    if not 1 <= len(bounds) <= 2 or not all(isinstance(bound, cst.Integer) for bound in bounds):
        return False
    values = [int(bound.value, 0) for bound in bounds]  # type: ignore[union-attr]
    start, stop = (0, values[0]) if len(values) == 1 else values
    return stop - start <= 1


def _literal_trip_count(iterated: Optional[cst.BaseExpression], integers: Dict[str, int]) -> Optional[int]:
    """How many times `range(n)` / `range(a, b)` iterates, where each bound is an integer
    literal or a name of `integers` (a parameter every call passes a literal, a name the file
    binds only to integer literals)."""
    if not (isinstance(iterated, cst.Call) and isinstance(iterated.func, cst.Name) and iterated.func.value == "range"):
        return None
    if not 1 <= len(iterated.args) <= 2 or any(arg.keyword is not None or arg.star for arg in iterated.args):
        return None
    values = []
    for arg in iterated.args:
        value = int(arg.value.value, 0) if isinstance(arg.value, cst.Integer) else integers.get(arg.value.value) if isinstance(arg.value, cst.Name) else None
        if value is None:
            return None
        values.append(value)
    start, stop = (0, values[0]) if len(values) == 1 else values
    return max(stop - start, 0)


def is_step_loop(loop: cst.CSTNode) -> bool:
    """False for loops that clearly run once per epoch or iterate a container once."""
    return loop_kind(loop) is Frequency.PER_STEP


def iterated_of(loop: cst.CSTNode) -> Optional[cst.BaseExpression]:
    if isinstance(loop, cst.For):
        return loop.iter
    if isinstance(loop, COMPREHENSIONS):
        return loop.for_in.iter
    if isinstance(loop, cst.CompFor):
        return loop.iter
    return None


def names_parameters(iterated: Optional[cst.BaseExpression]) -> bool:
    """`self.params`, `param_groups`, `zip(optimizer.params, names)`: lists of parameters."""
    parts = iterated.args if isinstance(iterated, cst.Call) and isinstance(iterated.func, cst.Name) and iterated.func.value == "zip" else []
    for item in [iterated, *(arg.value for arg in parts)]:
        name = item.value if isinstance(item, cst.Name) else item.attr.value if isinstance(item, cst.Attribute) else ""
        if name.endswith(("parameters", "params", "param_groups")):
            return True
    return False


def names_epoch_loop(loop: cst.CSTNode) -> bool:
    """A loop whose target or iterable mentions an epoch (`for epoch in range(args.epochs)`)."""
    target = loop.target if isinstance(loop, cst.For) else None
    return any(names_epoch(part) for part in (target, iterated_of(loop)) if part is not None)


def _repeated(loop: cst.CSTNode, path: List[Tuple[cst.CSTNode, cst.CSTNode]]) -> bool:
    """Whether another loop of the same function repeats `loop` (an evaluation loop inside
    the loop over epochs)."""
    below = True
    for ancestor, child in path:
        if isinstance(ancestor, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
            return False
        if not below and repeats(ancestor, child):
            return True
        below = below and ancestor is not loop
    return False


def _calls_backward(call: cst.Call) -> bool:
    found = method_call(call)
    return found is not None and found[1] == BACKWARD


# The nodes that repeat a child: asked of every ancestor of many nodes, so tested by exact type
# first (LibCST's concrete node classes are not subclassed) before the `isinstance` chain.
_LOOPS = frozenset({cst.For, cst.While, cst.CompFor, *COMPREHENSIONS})


def repeats(ancestor: cst.CSTNode, child: cst.CSTNode) -> bool:
    """Whether `child` of `ancestor` is evaluated once per iteration of a loop that `ancestor` is."""
    if type(ancestor) not in _LOOPS:
        return False
    if isinstance(ancestor, cst.For):
        return child is ancestor.body and not leaves_in_first_iteration(ancestor.body)
    if isinstance(ancestor, cst.While):
        return (child is ancestor.body or child is ancestor.test) and not leaves_in_first_iteration(ancestor.body)
    if isinstance(ancestor, COMPREHENSIONS):
        return child is not ancestor.for_in
    if isinstance(ancestor, cst.CompFor):
        return child is not ancestor.iter and child is not ancestor.target
    return False
