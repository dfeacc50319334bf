"""Per-file state shared by all rules during the single traversal."""

from __future__ import annotations

import os
import re
from functools import cached_property
from typing import Callable, Dict, Iterator, List, Optional, Set, Tuple

import libcst as cst

from torchlint.engine.options import Options
from torchlint.engine.reports import Report
from torchlint.semantics.execution import EVALUATION_STEP_CALLEE, Frequency, Reason
from torchlint.semantics.host_programs import devices_default_to_the_cpu, leaves_its_device_unused, notebook_on_the_host, picks_only_the_cpu
from torchlint.semantics.frequency import Execution, FrequencyAnalysis, called_elsewhere, rare_guard, repeats
from torchlint.semantics.argument_kinds import ArgumentKinds
from torchlint.semantics.names import NameResolver
from torchlint.semantics.passed_values import branch_never_taken
from torchlint.semantics.roles import imports_test_framework, inside_test_code, is_evaluation_script, is_one_off_script
from torchlint.semantics.instantiation import unbuilt_definitions
from torchlint.semantics.training import called_every_step_elsewhere, inference_only, local_functions, trains, training_loops, untrained_script
from torchlint.semantics.tree import descendants
from torchlint.semantics.kinds import Kind
from torchlint.semantics.values import ValueInference
from torchlint.semantics.project import CUDA, GRAD_OFF, CallSite, callers_of, qualified_caller, code_text, importers_of, module_facts, project_function, project_uses, role_path, star_bindings, test_module, torch_reexport

_CUDA = re.compile(r"\bcuda\b")
_ACCELERATOR = re.compile(r"\btorch\.accelerator\b")
# Code that changes where factories create tensors by default.
_DEFAULT_DEVICE = re.compile(r"set_default_device|set_default_tensor_type|with\s+torch\.device")
# Any sign that the file places work on an accelerator.
# A device named in the text; `.to(torch.float)`, a cast to a dtype, names none.
_DEVICE_USE = re.compile(
    r"cuda|device|\.to\((?!\s*(?:dtype\s*=\s*)?torch\.(?:float|half|double|bfloat16|int|long|bool|u?int(?:8|16|32|64)|float(?:16|32|64))\s*\))"
    r"|accelerat|\b(?:xla|mps|xpu|npu|hpu)\b"
)
_SCOPE_BOUNDARIES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
GRAD_ENABLING = frozenset({"torch.enable_grad", "torch.autograd.enable_grad"})
SET_GRAD_ENABLED = frozenset({"torch.set_grad_enabled", "torch.autograd.set_grad_enabled"})


class FileContext:
    """What a rule can ask about the node it is visiting: names, values, loops, grad mode."""

    def __init__(self, module: cst.Module, text: str, path: str, options: Options) -> None:
        self.module = module
        self.text = text
        self.path = path
        self.options = options
        self.names = NameResolver(lambda: star_bindings(path, text), lambda module, name: torch_reexport(path, module, name) if os.path.isfile(path) else None)
        self.values = ValueInference(
            self.names, factories_on_host=_DEFAULT_DEVICE.search(text) is None, text=text, module=module,
            computes_where_given=self._computes_where_given, passed_through=self._passed_through,
        )
        self.arguments = ArgumentKinds(module, self.values.module_classes)
        self.ancestors: List[cst.CSTNode] = []
        self.reports: List[Report] = []
        # The top-level statement that holds each node the traversal visited (names aside), by node id.
        self.statement_of: Dict[int, cst.CSTNode] = {}
        self._qualified: Dict[int, Tuple[cst.CSTNode, Optional[str]]] = {}

    def _computes_where_given(self, func: cst.BaseExpression) -> bool:
        """Whether `func` names a project function (not a class) that places nothing on a device."""
        facts = project_function(self, func)
        return facts is not None and not facts.klass and not facts.places_on_device

    def _passed_through(self, func: cst.BaseExpression) -> Optional[Tuple[int, str]]:
        """The parameter (position, name) that the project function `func` returns as given."""
        facts = project_function(self, func)
        if facts is None or facts.klass or not facts.passes_through:
            return None
        return facts.parameters.index(facts.passes_through), facts.passes_through

    @cached_property
    def uses_cuda(self) -> bool:
        """Whether the file's code (not its comments) mentions CUDA: a name or a string."""
        if _ACCELERATOR.search(self.text) is not None and _code_mentions(self.text, "accelerator"):
            return True  # `torch.accelerator.current_accelerator()`: CUDA on NVIDIA GPUs
        return _CUDA.search(self.text) is not None and _code_mentions(self.text, "cuda")

    @cached_property
    def uses_device(self) -> bool:
        """Whether the file mentions a device at all; a file that never does runs on the CPU,
        and so does one that picks only the CPU (`host_programs.picks_only_the_cpu`), picks a
        device it never uses (`host_programs.leaves_its_device_unused`), takes its devices
        from command-line options that default to the CPU (`host_programs.
        devices_default_to_the_cpu`), or is a notebook that
        names no accelerator (`host_programs.notebook_on_the_host`)."""
        return (
            mentions_device(self.text)
            and not notebook_on_the_host(self.path, self.text)
            and not picks_only_the_cpu(self.module, self.text)
            and not leaves_its_device_unused(self.module, self.text)
            and not devices_default_to_the_cpu(self.path, self.module, self.text)
        )

    @cached_property
    def serves_device(self) -> bool:
        """Whether the file places work on a device or serves a program that runs on CUDA (a
        builder or helper module whose entry script picks the device; see `project_uses`). A
        notebook is a program that nothing imports: one that never names a device runs its own
        cells on the CPU unless it calls a project function or class that moves work to a
        device itself (`StepByStep(model, loss_fn, optimizer)` picking CUDA in `__init__`),
        whatever else the helper modules it imports do for other programs. So does a module
        that picks a device and never uses it (`host_programs.leaves_its_device_unused`)."""
        if self.uses_device:
            return True
        if not self.path.endswith(".ipynb") and not leaves_its_device_unused(self.module, self.text):
            return project_uses(self, CUDA)
        return project_uses(self, CUDA) and any(
            getattr(project_function(self, node.func), "places_on_device", False)
            for node in descendants(self.module) if isinstance(node, cst.Call)
        )

    @cached_property
    def role_path(self) -> str:
        """The file's path within its project, which its role is read from (`project.role_path`)."""
        return role_path(self.path)

    @cached_property
    def test_file(self) -> bool:
        """Whether the whole file is test code: because it imports pytest, or by its path
        (`project.test_module`)."""
        return imports_test_framework(self.module) or test_module(self.path, self.options.test_paths)

    def in_test_code(self) -> bool:
        """Whether the node being visited is test code: in a test file, test class or test function."""
        return self.test_file or inside_test_code(self.ancestors, self.names)

    @cached_property
    def inference_only(self) -> bool:
        """Whether the file is a program that never trains (see `training.inference_only`)."""
        return inference_only(self)

    @cached_property
    def untrained_script(self) -> bool:
        """Whether the file is a script without an entry-point block that never trains (see
        `training.untrained_script`)."""
        return untrained_script(self)

    @cached_property
    def frequency(self) -> FrequencyAnalysis:
        """How often nodes of this file run (indexed on the first question)."""
        return FrequencyAnalysis(
            self.module,
            lambda: bool(training_loops(self)),
            one_off=self._one_off_script(),
            external=self._called_elsewhere,
            never_taken=lambda branch, body: branch_never_taken(self, branch, body),
            called_in_project=self._called_in_project,
            never_built=lambda: unbuilt_definitions(self.path, self.text),
            named=lambda node: project_function(self, node),
            imported=lambda: not os.path.isfile(self.path) or bool(importers_of(self.path)),
        )

    def _one_off_script(self) -> bool:
        """A script named for a one-off job (`export.py`, `evaluate.py`, `demos/`) that no
        program imports: imported by a module that is neither test code nor itself such a
        script, its functions serve the importer (the per-epoch `evaluate()`). A program named
        for evaluation whose own loops train (backward and an optimizer step: a linear
        evaluation fitting a classifier for many epochs) is a training program."""
        if not is_one_off_script(self.role_path):
            return False
        if is_evaluation_script(self.role_path) and self._trains_itself():
            return False
        return all(
            is_one_off_script(role_path(importer)) or test_module(importer, self.options.test_paths)
            for importer in importers_of(self.path)
        )

    def _trains_itself(self) -> bool:
        functions = local_functions(self.module)
        return any(trains(loop, functions) for loop in descendants(self.module) if isinstance(loop, (cst.For, cst.While)))

    def _called_elsewhere(self, function: cst.FunctionDef) -> Optional[Execution]:
        """How often a module-level function of this file, or a method of a module-level
        class, runs, from its calls in the other modules of the project (see
        `frequency.called_elsewhere`); an `__init__` as often as its class is built."""
        name = self._top_level_name(function)
        if name is None or not os.path.isfile(self.path):
            return None
        if name.endswith(".__init__"):
            name = name.rpartition(".")[0]
        here = os.path.abspath(self.path)
        return _elsewhere(here, name, lambda site: os.path.abspath(site.path) != here, CALLER_DEPTH)

    def _called_in_project(self, function: cst.FunctionDef) -> bool:
        """Whether another module of the project is seen to call a module-level function of
        this file or a method of a module-level class (`project.callers_of`)."""
        name = self._top_level_name(function)
        if name is None or not os.path.isfile(self.path):
            return False
        here = os.path.abspath(self.path)
        return any(os.path.abspath(site.path) != here for site in callers_of(here, name))

    def _top_level_name(self, function: cst.FunctionDef) -> Optional[str]:
        """`f` for a module-level function, `Class.f` for a method of a module-level class."""
        if function in self.module.body:
            return function.name.value
        owner = next(
            (item for item in self.module.body if isinstance(item, cst.ClassDef) and function in item.body.body), None
        )
        return f"{owner.name.value}.{function.name.value}" if owner is not None else None

    def execution(self, node: cst.CSTNode) -> Execution:
        """How often `node` runs, and why (see `semantics.frequency`)."""
        return self.frequency.execution(node)

    def qualified_name(self, node: cst.BaseExpression) -> Optional[str]:
        """The qualified name of `node`, resolved once: every rule asks about the same calls
        while the traversal stands on them, with the same bindings in force."""
        cached = self._qualified.get(id(node))
        if cached is None or cached[0] is not node:  # the node itself is kept: ids are reused
            cached = self._qualified[id(node)] = (node, self.names.qualified_name(node))
        return cached[1]

    def kind_of(self, node: cst.BaseExpression) -> Optional[Kind]:
        return self.values.kind_of(node)

    def parent(self) -> Optional[cst.CSTNode]:
        return self.ancestors[-1] if self.ancestors else None

    def path_to(self, node: cst.CSTNode) -> Iterator[Tuple[cst.CSTNode, cst.CSTNode]]:
        """(ancestor, child-on-the-path) pairs from the innermost ancestor of `node` outwards."""
        child = node
        for ancestor in reversed(self.ancestors):
            yield ancestor, child
            child = ancestor

    def enclosing_loops(self, node: cst.CSTNode) -> List[cst.CSTNode]:
        """Loops (for, while, comprehensions) that run `node` once per iteration, innermost first.

        Stops at the enclosing function, class or lambda: a function defined in a loop body
        does not run per iteration of that loop.
        """
        loops: List[cst.CSTNode] = []
        for ancestor, child in self.path_to(node):
            if isinstance(ancestor, _SCOPE_BOUNDARIES):
                break
            if repeats(ancestor, child):
                loops.append(ancestor)
        return loops

    def loop_counters(self, node: cst.CSTNode) -> Set[str]:
        """Names that count iterations around `node`: targets of the enclosing `for` loops."""
        names: Set[str] = set()
        for loop in self.enclosing_loops(node):
            if isinstance(loop, cst.For):
                names.update(item.value for item in descendants(loop.target) if isinstance(item, cst.Name))
        return names

    def grad_disabled(self, node: cst.CSTNode) -> bool:
        """Whether `node` runs under `no_grad`/`inference_mode`/`set_grad_enabled(False)`."""
        for ancestor, child in self.path_to(node):
            if isinstance(ancestor, cst.With) and child is ancestor.body:
                for item in reversed(ancestor.items):
                    state = self.grad_mode_set_by(item.item)
                    if state is not None:
                        return not state
            elif isinstance(ancestor, cst.FunctionDef):
                for decorator in reversed(ancestor.decorators):  # the innermost decorator sets the mode last
                    state = self.grad_mode_set_by(decorator.decorator)
                    if state is not None:
                        return not state
        return False

    def grad_mode_set_by(self, node: cst.BaseExpression) -> Optional[bool]:
        """True/False if `node` (a context manager or decorator) enables/disables grad, else None."""
        call_args: Tuple[cst.Arg, ...] = ()
        if isinstance(node, cst.Call):
            call_args = tuple(node.args)
            node = node.func
        qualified = self.qualified_name(node)
        if qualified in GRAD_OFF:
            if qualified.endswith("inference_mode") and call_args and _is_false(call_args[0].value):
                return None
            return False
        if qualified in GRAD_ENABLING:
            return True
        if qualified in SET_GRAD_ENABLED and call_args:
            value = call_args[0].value
            if isinstance(value, cst.Name) and value.value in ("True", "False"):
                return value.value == "True"
        return None

    def enclosing(self, *types: type) -> Optional[cst.CSTNode]:
        for ancestor in reversed(self.ancestors):
            if isinstance(ancestor, types):
                return ancestor
        return None


def mentions_device(text: str) -> bool:
    """Whether `text` mentions a device at all (`FileContext.uses_device`)."""
    return _DEVICE_USE.search(text) is not None


def _code_mentions(text: str, word: str) -> bool:
    """Whether `word` occurs in the code of `text`, comments ignored (`project.code_text`,
    shared with the settings the file enables). A mention with no `#` before it on its line
    is not in a comment, which starts at a `#`: only otherwise is the text tokenized."""
    pattern = re.compile(rf"\b{word}\b")
    for match in pattern.finditer(text):
        if "#" not in text[text.rfind("\n", 0, match.start()) + 1 : match.start()]:
            return True
    return pattern.search(code_text(text)) is not None


def _is_false(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "False"


# How many callers up a function's frequency follows calls from other modules.
CALLER_DEPTH = 2


def _elsewhere(path: str, name: str, counted: Callable[[CallSite], bool], depth: int, steps: bool = False) -> Optional[Execution]:
    """How often the function `name` of the module at `path` runs from the calls the project
    index records (`counted` picks them: the other modules' for the file's own functions,
    whose in-file calls the file's analysis reads): `frequency.called_elsewhere`, or else
    through the callers' own frequency, `depth` callers up: a call outside loops in a function
    that runs every step runs every step (a metric helper of `calculate_metrics()` that a step
    loop calls, a helper of `_get_embeddings()` that a Lightning `training_step` calls), and a call in a loop of a function that runs every epoch runs for every batch
    of that pass (`calculate_metrics(batch)` in a per-epoch `validate()`). `steps`: a function
    it calls outside loops takes a training step (the agent's `learn()` that a base class's
    `train_step_interval()` calls): each call of it does too."""
    sites = [site for site in callers_of(path, name) if counted(site)]
    functions = module_facts(path).functions
    facts = functions.get(name)
    steps = steps or (facts is not None and facts.steps_itself)
    klass = name.rpartition(".")[0]
    trainer_method = bool(klass) and any(key.startswith(f"{klass}.") and other.steps_itself for key, other in functions.items())
    found = called_elsewhere(name.rpartition(".")[2], sites, steps, facts is None or facts.loops, trainer_method)
    if found is not None or depth == 0:
        return found
    for site in sites:
        rare = any(rare_guard(guard, site.counters) for guard in site.guards)
        caller = qualified_caller(site) if not (rare or site.in_handler or site.in_epoch_loop) else None
        outer = _elsewhere(os.path.abspath(site.path), caller, lambda _: True, depth - 1, steps and not site.in_loop) if caller is not None else None
        if outer is None:
            continue
        every_step = called_every_step_elsewhere(outer) or outer.step_method() == "forward" or outer.framework() is not None
        if outer.frequency is Frequency.PER_STEP and not site.in_loop and every_step:
            text = f"`{name.rpartition('.')[2]}()` is called by `{site.caller}()`, which runs every step ({site.path}:{site.line})"
            return Execution(Frequency.PER_STEP, (Reason(text, method=outer.step_method(), external=True),) + outer.reasons)
        if outer.frequency is Frequency.PER_EPOCH and site.in_other_loop:
            text = f"`{name.rpartition('.')[2]}()` is called for every batch of `{site.caller}()`, which runs every epoch ({site.path}:{site.line})"
            return Execution(Frequency.PER_STEP, (Reason(text, method=EVALUATION_STEP_CALLEE, external=True),) + outer.reasons)
    return None

