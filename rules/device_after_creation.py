from typing import Dict, List, Optional, Set, Tuple

import libcst as cst

from torchlint.engine.findings import Applicability
from torchlint.engine.rule import NodeEdit, PendingFix, Rule
from torchlint.semantics.bindings import attribute_assignments, binds_locally, captured_values, execs_in_globals, imported_values, parameter_values, reaching_values, field_values_anywhere, stored_parameter_values, subscript_values
from torchlint.semantics.calls import arguments_by_parameter, has_star, is_literal, keyword, method_call, number_literal, positional, with_keyword
from torchlint.semantics.devices import LEGACY_HOST_TENSORS, legacy_sized_constructor, named_like_device, same_place_source
from torchlint.semantics.dtypes import python_integer, reads_dtype
from torchlint.semantics.names import dotted_name
from torchlint.semantics.execution import Frequency
from torchlint.semantics.project import project_function
from torchlint.semantics.training import called_function, runs_with_training_steps
from torchlint.semantics.kinds import HOST_KINDS, TENSOR_KINDS, Kind
from torchlint.semantics.moves import MOVES, later_moves, returned_creations, returns_moved
from torchlint.semantics.values import string_value
from torchlint.semantics.tree import scope_descendants

# Factories whose positional arguments are the size (`torch.zeros(2, 3)`, `torch.zeros((2, 3))`).
SIZED_FACTORIES = frozenset({"empty", "zeros", "ones", "rand", "randn"})
DETERMINISTIC_FACTORIES = frozenset(
    "zeros ones empty full arange range linspace logspace eye tensor empty_strided tril_indices "
    "triu_indices zeros_like ones_like empty_like full_like scalar_tensor "
    "hann_window hamming_window blackman_window bartlett_window kaiser_window".split()
)
RANDOM_FACTORIES = frozenset("rand randn randint randperm rand_like randn_like randint_like normal".split())
# Factories that compute their values with arithmetic, which the device's kernels round
# differently from the CPU's (`linspace` points, `arange` with a fractional step).
COMPUTED_FACTORIES = frozenset(
    {"arange", "range", "linspace", "logspace", "hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"}
)
# Window functions that compute their values with a cosine or a Bessel function, which the
# device's math library rounds differently from the CPU's vectorised one (a last bit of some
# points), whatever their length; `bartlett_window` only multiplies and adds.
TRANSCENDENTAL_WINDOWS = frozenset({"hann_window", "hamming_window", "blackman_window", "kaiser_window"})
# `.to()` keywords that have no meaning for a freshly created tensor and can be dropped.
TRANSFER_ONLY_KEYWORDS = frozenset({"non_blocking", "copy"})
# Calls that join tensors where they are.
CONCATENATIONS = frozenset({"torch.cat", "torch.concat", "torch.concatenate", "torch.stack", "torch.hstack", "torch.vstack"})
# Factories that copy data from the host (`torch.tensor(values)`): given `device=` they copy
# the same bytes over PCIe, so moving their result afterwards costs nothing extra.
DATA_FACTORIES = frozenset({"tensor", "scalar_tensor"})
# Methods of a `torch.distributions` object that draw a tensor where its parameters are.
SAMPLES = frozenset({"sample", "rsample", "sample_n"})


class DeviceAfterCreation(Rule):
    """## What it does
    Flags a tensor factory (`torch.zeros`, `torch.randn`, `torch.arange`, window functions
    such as `torch.hann_window`, `torch.normal` given a size, `torch.normal(0, std,
    size=s)`, or a host mean, `torch.normal(torch.zeros(n), std)`, ..., and a legacy
    typed constructor given a size, `torch.FloatTensor(b, 1, 1, 1)`, and a draw of a
    `torch.distributions` object whose parameters are numbers or host factories,
    `Normal(0, 1).sample(mean.shape)`, which samples on the host; no fix: the distribution
    needs its parameters on the device) whose result is
    immediately moved with `.cuda()`, `.to(<device>)` or `.type_as(t)` (where `t` is, as
    `.to(t.device)` reads; `.to(t)` for a tensor `t` known to be on the device), also through
    steps that keep it on the host (dtype and shape methods, `.type(torch.uint8)`, a triangle,
    `torch.triu(torch.ones(n, n), 1)`, a reshaping function, `torch.tile(torch.arange(n),
    (b, 1))`), alone or
    joined with other host factories (`torch.cat((torch.ones(n), torch.zeros(n))).cuda()`),
    or returned by a same-file helper that its caller moves (`def sample_gumbel(shape,
    eps=1e-10): U = torch.rand(shape); return -torch.log(eps - torch.log(U + eps))`, then
    `noise = sample_gumbel(size)` and `noise = noise.cuda()`, reported at the helper's
    factory when every `return` of the helper gives such a value; a parameter that defaults
    to a number counts as a number literal), or returned by a helper of another project
    module whose every `return` gives a factory's tensor, directly or through a name bound
    only to one (`self.scheduler.sample_timesteps(n).to(device)` with `return torch.randint(1,
    T, (n,))`: reported at the move, `project.FunctionFacts.returns_host_factory`), or handed to a same-file helper
    that returns its parameter moved (`get_variable(torch.randn(b, 100))` with `return
    Variable(arg).cuda()` or `return Variable(arg.cuda())`), or assigned to a name that a later statement of the same loop
    moves before anything else reads it (`mask = torch.BoolTensor(x.size()).fill_(0)`, then
    `if x.is_cuda: mask = mask.cuda()`; constants written into it in place, `attr[:, 0] = 4`,
    joins of such names, `lbl = torch.cat((lbl_1, lbl_2), 1)`, and elementwise computations
    of them with number literals, `labels = (labels.unsqueeze(0) == labels.unsqueeze(1)).float()`,
    `weights = 1 / torch.log2(position.float())`, keep it the created value, as does a new
    name that takes it through such steps, `expanded = seq_range.unsqueeze(0).expand(b, n)`
    (when the old name is read nowhere else), and an
    in-place write of other values that returns it, `torch.zeros(b, 10).scatter_(1, targets,
    1)`; a join of host factories, `labels = torch.cat([torch.arange(b) for _ in
    range(k)])`, is followed like a factory; see `semantics.moves`), or copied into a tensor
    known to be on the device
    (`noises.data.copy_(torch.randn(b, nz, 1, 1))`, no fix: fill it in place or create on its
    device), in code that runs every step
    (a step loop, `forward()` and the loops in it, a function called from them, also from
    another module's `forward()` or training step loop; a PyTorch Geometric layer's
    `message()` or `update()`, which its `propagate()` runs in every forward). The helpers, later-move,
    concatenation, in-place write, `type_as` and legacy forms get no fix: the helper's other
    callers may pass other values, the statements between, the joined parts and the
    arguments of the write (its index must be on the device too) are the user's to rewrite,
    a helper that returns the tensor needs the device from its callers,
    a move to another tensor also takes its dtype, and a legacy constructor takes no device. A factory given `device=` (other than the CPU) is already
    where it goes.

    ## Why is this slow?
    The tensor is allocated and filled on the CPU, then copied over PCIe to the device.
    Creating it on the device skips the host allocation, the fill and the copy.

    The rule does not fire for dtype-only moves (`.to(torch.float16)`), for `.to(x)` when `x`
    is not known to be a device (a device string, `torch.device(...)`, `t.device`, or a name
    such as `device`, `dev`, `*_device`, `rank`, `local_rank`, `gpu`), for `torch.from_numpy`/`torch.as_tensor` (the data
    already lives on the host), for pinned factories, or for modules (`model.cuda()`).
    A computation that also reads another value (`scale / position`, which may be on the
    device) ends the created value. It is silent for empty tensors
    (`torch.empty(0).to(device)`: a literal size of 0 leaves nothing to fill or copy), for
    `torch.normal(mean, std)` of tensors that may be on the device (it draws where they
    are), and for `torch.tensor(values)`: with `device=` the same values
    are still copied
    from the host, so the rewrite saves nothing (but a range, `torch.tensor(range(n))` or of
    `list(range(n))`, is reported without a fix: `torch.arange(n, device=...)` fills it on the
    device); for `torch.zeros_like(x)` and the other
    `*_like` factories unless `x` is known to be on the host (they create where `x` lives);
    and for code that runs once (module level, `__init__`, setup), once per epoch, or rarely
    (behind a logging interval, in an error branch), where one copy costs nothing measurable.
    Nor in a program that runs on the CPU (`FileContext.serves_device`, as for TL101): a
    notebook whose code names no accelerator (`.to(x.device)` in its model's `forward` moves
    nothing), a script that picks only the CPU.

    ## Example
    ```python
    noise = torch.randn(batch, dim).cuda()
    mask = torch.zeros(n, dtype=torch.bool).to(device)
    ```

    ## Use instead
    ```python
    noise = torch.randn(batch, dim, device="cuda")
    mask = torch.zeros(n, dtype=torch.bool, device=device)
    ```

    ## Fix applicability
    The fix passes `device=` to the factory; `.cuda(1)` becomes `device="cuda:1"`, `.cuda(i)`
    becomes `device=i`, and `non_blocking=`/`copy=` are dropped since nothing is copied. A
    dtype the move also set stays in a `.to(dtype)` after the factory
    (`torch.arange(0, 10, 0.3).to(device, torch.long)` becomes
    `torch.arange(0, 10, 0.3, device=device).to(torch.long)`): passed to the factory as
    `dtype=` it would change what `arange`, `linspace` or `full_like` compute.

    Safe for deterministic factories (`zeros`, `ones`, `full`, `eye`, `arange` of integers, ...) moved
    to a value known to be a device (a device string, `torch.device(...)`, `t.device` of a
    tensor or of an object whose `device` the file never assigns or defines, an attribute such as
    `self.device` that every assignment in the file sets to a device string or
    `torch.device(...)`, or a variable that every assignment reaching the move gives one, a
    later rebinding in the loop and a function's `global` included): the result is
    identical. `self.device = device` from a constructor's argument may hold anything the
    caller passes, and so may a `device` that a class of the file defines as a property or
    method (computed when read) or as an annotated field (a dataclass's constructor sets
    it), so those moves are only named like a device, as is the `device` field of a
    `namedtuple` built from values the file cannot read; no fix when such a property returns a
    value that is not a device (`return torch.float64`, also through an attribute the file
    sets to one, `return self._precision`), or when the file gives any object's
    `device` a non-device, by whatever name it reaches the object (`trainer.device =
    torch.float64` for the `self.device` of a method, also in a tuple target, an annotated
    assignment or as a loop's target, `for trainer.device in ("cpu", torch.float64)`,
    `vars(self)["device"] = ...`,
    `setattr(trainer, "device", ...)`, `object.__setattr__(self, "device", ...)` in a frozen
    dataclass's `__post_init__`; a `setattr` whose name the file cannot read makes the
    move only named like a device) or by
    building it (`SimpleNamespace(device=torch.float64)`, a `namedtuple` field, also by
    position, of the functional form or a `NamedTuple` class or dataclass of the file,
    `RunConfig(torch.float64, 2)`, a dict literal's `"device"` entry), or passes one to the parameter a method stores there
    (`Trainer(torch.float64)` with `self.device = device` in `__init__`, also by a starred
    tuple, through `cls = Trainer` or a dict literal of classes, `TRAINERS["base"](...)`). Unsafe, with the reason in the message,
    for random factories (`rand`, `randn`, `randint`, ...), because the device's random
    generator draws other numbers than the CPU one; for `linspace`, `logspace`, the windows
    computed with a cosine or a Bessel function (`hann_window`, `hamming_window`,
    `blackman_window`, `kaiser_window`, of any length; not `bartlett_window`), and `arange`
    or `range` with a bound or step not known to be an integer, because the device's kernels
    round the computed values differently from the CPU's (PyTorch issues 40904 and 47043: a
    last bit of a point, an element at a bound); for factories with `requires_grad=True`,
    because the device tensor becomes the leaf that receives `.grad`; and when the target is
    a device only by its name (`.to(dev)`; if the name holds something else, such as a
    parameter a caller in another module gives a dtype, the rewritten factory raises
    `TypeError`). No fix when an assignment that can reach the target gives it a non-device
    (`device = torch.float64`, also as a branch of a conditional expression, or an entry of
    a dict literal (or a `dict(...)` call) it is read from, `SETTINGS["device"]`; an element
    of a list or tuple literal it is read from by index, `PLACES[1]`; an operand of `or`,
    `override or "cpu"` with `override = torch.float64`; `getattr(torch, "float64")`; what a
    function of the file it is assigned from returns, `device = pick(name)`; also an element of a tuple it is
    unpacked from, `model, device = setup()` where `setup` returns one, or `run.device,
    run.steps = torch.float64, 2`; an element of a literal a loop runs over, `for device in
    ("cpu", torch.float64)`, also through a module-level name bound to one, `for device in
    placements`; what a context manager of the file yields to `with ... as
    device`; an entry of a dict `globals().update(...)` binds from; or an entry under the key
    a `match` case captures it from, `case {"device": device}`; an assignment in a nested
    function that declares it `nonlocal`, also next to a binding whose value it cannot read,
    such as a walrus; a default or dict entry it is read through, `cfg.get("device", "cpu")`,
    `getattr(args, "device", "cpu")`; a `:=` in a comprehension, which binds the enclosing
    scope's name, `[d for d in PLACES if (device := d)]`, with the elements of the literal it
    iterates; what a lambda it is assigned from returns, `pick = lambda: torch.float64`; an
    import that binds the name to a torch value other than `torch.device`, `from torch import
    float64 as device`; code of a string run among the module's names, `exec("device =
    torch.float64")`, for a module-level name), or the
    target is a parameter (of the function, or of an enclosing one a closure reads) whose default or an argument
    a call of the file passes is one (`make_targets(4, torch.float64)`, also from a tuple it
    unpacks, `make_targets(*args)` with `args = (4, torch.float64)`, or a keyword of its name
    given to a decorator of the function, `@with_placement(device=torch.float64)`, which may
    bind it as `functools.partial` does), when the factory
    takes `out=`, a
    `generator=` (both live on the CPU) or `**kwargs` (which may already hold `device=`), or
    when the move unpacks `*args`/`**kwargs`.

    ## Measured precision
    Over every development half together after the eighth recall round (concatenations,
    `type_as`, `.to(device tensor)`): 0.92 (172 true, 16 false; the new forms added 13 true
    findings, 4 labelled misses and 2 false findings, a beam search's once-per-batch setup).
    Stable for code that runs with training: in `forward()` (or what it calls), or in a step
    loop that trains or is run again every epoch of a program that trains, or in a
    framework's batch hook that runs with a fit (a `LightningModule`'s `validation_step`,
    every epoch; see `semantics.training.runs_with_training_steps`): 1.00 on the dev half of the real-code
    benchmark (12/0) and 1.00 held out (29/0, fifteen fresh repositories included; an empty
    tensor, once a false finding, is silent). Other step loops (metrics such as a
    per-class mAP loop run once at the end, inference helpers) are the preview variant,
    reported only with `--preview`: 0.00 dev (0/5), 0.00 held out (0/3). See
    docs/precision.md.
    """

    code = "TL102"
    impact = "medium"
    name = "device-after-creation"
    preview_variant = "step loops that neither train nor run every epoch of a program that trains (metrics, inference helpers)"
    summary = "Tensor created on the CPU and then moved to the device"
    triggers = (".cuda(", ".to(", ".type_as(")
    fix_applicability = Applicability.SAFE
    unsafe_when = "for random factories, with `requires_grad=True`, and when the target is a device only by its name"
    frequencies = frozenset({Frequency.PER_STEP})
    bad_examples = (
        "import torch\nfor x in loader:\n    mask = torch.zeros(3, 4).cuda()\n",
        "import torch\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return x + torch.randn(2, 2).to(device)\n",
        "import torch as th\ndev = th.device('cuda')\nwhile True:\n    x = th.arange(10).to(dev)\n",
    )
    good_examples = (
        "import torch\nfor x in loader:\n    mask = torch.zeros(3, 4, device='cuda')\n",
        "import torch\nx = torch.zeros(3, 4).cuda()\n",
        "import torch\nfor x in loader:\n    y = torch.tensor([1, 2, 3]).to(device)\n",
        "import torch\nfor x in loader:\n    y = torch.zeros_like(x).to(x.device)\n",
        "import torch\nx = torch.zeros(3).to(torch.float16)\n",
        "import torch\nx = torch.zeros(3).to(other)\n",
        "import torch\nx = torch.from_numpy(a).cuda()\n",
        "import torch\nmodel = torch.nn.Linear(2, 2).cuda()\n",
        "import numpy as np\nimport torch\nx = np.zeros(3).to(device)\n",
        "import torch\nx = torch.zeros(3).to('cpu')\n",
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        # `semantics.moves.later_moves` of each scope asked about, by the scope's id.
        self.moves: Dict[int, Dict[int, Tuple[cst.Call, ...]]] = {}
        # `semantics.moves.returned_creations` of each helper asked about, by the helper's id,
        # and the creations reported where a caller moves what a helper returns: once each.
        self.creations: Dict[int, Tuple[cst.Call, ...]] = {}
        self.returned: Set[int] = set()

    def visit_Call(self, node: cst.Call) -> None:
        if not self.ctx.serves_device:
            return  # a program that runs on the CPU (a notebook naming no accelerator): no copy happens
        created = self._later_move(node)
        if created is not None:
            for factory in created:
                self._check_later_move(node, factory)
            return
        found = method_call(node)
        if found is not None and found[1] == "copy_":
            self._check_copy_into_device(node, found[0])
            return
        if found is None or found[1] not in MOVES:
            self._check_moving_helper(node)
            return
        moved, method = found
        factory = self._created_by(moved)
        name = self._host_factory(factory, node) if factory is not None else None
        if factory is None or name is None:
            created, (factory, name) = factory, self._concatenated_factory(moved)
            if factory is None and created is not None:
                self._check_returned(node, created)
        if factory is None or name is None:
            return
        device = self._target_device(node, method)
        if device is None or not self._reported_often(node):
            return
        # A legacy constructor takes no `device=` other than the CPU, and a move to another
        # tensor's device takes its dtype too: the rewrite is the user's.
        # A distribution draws where its parameters are: the rewrite is the user's.
        by_hand = (
            self.ctx.qualified_name(factory.func) in LEGACY_HOST_TENSORS or self._to_tensor_device(node, method)
            or name.startswith("distributions.") or name in DATA_FACTORIES
        )
        self.report(
            node,
            f"`torch.{name}(...)` is created on the CPU and then copied to the device; {_remedy(name)}",
            # Through a conversion, a concatenation or a wrapper, the rewrite is the user's: no fix.
            fix=self._fix(node, factory, device, random=name in RANDOM_FACTORIES) if factory is moved and not by_hand else None,
        )

    def _check_copy_into_device(self, node: cst.Call, target: cst.BaseExpression) -> None:
        """`noise.data.copy_(torch.randn(b, nz, 1, 1))` into a tensor known to be on the device,
        every step: the values are made on the host and copied over. No fix: filling the
        tensor in place (`noise.normal_()`) or creating on its device is the user's rewrite."""
        source = positional(node)
        factory = source[0].value if len(source) == 1 else None
        if not isinstance(factory, cst.Call) or self.ctx.kind_of(target) is not Kind.DEVICE_TENSOR:
            return
        name = self._host_factory(factory, None)
        if name is None or not self._reported_often(node):
            return
        self.report(
            factory,
            f"`torch.{name}(...)` is created on the CPU and then copied into a device tensor; "
            f"create it on that device (`device=`) or fill the tensor in place",
        )

    def _concatenated_factory(self, moved: cst.BaseExpression) -> Tuple[Optional[cst.Call], Optional[str]]:
        """The first factory of a concatenation of host factories (`torch.cat((torch.ones(n),
        torch.zeros(n)))`, `torch.stack([torch.arange(b) for _ in range(k)])`), each under
        host-side steps that keep it where it is: the result is on the host too."""
        joined = same_place_source(moved, self.ctx.qualified_name, self.ctx.kind_of)
        if not (isinstance(joined, cst.Call) and joined.args and self.ctx.qualified_name(joined.func) in CONCATENATIONS):
            return None, None
        parts = joined.args[0].value
        items = [parts.elt] if isinstance(parts, (cst.ListComp, cst.GeneratorExp)) else [element.value for element in getattr(parts, "elements", ())]
        factories = [factory for factory in map(self._created_by, items) if factory is not None]
        made = [(factory, self._host_factory(factory, None)) for factory in factories]
        if not made or len(made) < len(items) or any(name is None for _, name in made):
            return None, None
        return made[0]

    def _to_tensor_device(self, move: cst.Call, method: str) -> bool:
        """`.type_as(t)` or `.to(t)`: the move goes where `t` is, in `t`'s dtype."""
        args = positional(move)
        return method == "type_as" or (method == "to" and bool(args) and self.ctx.kind_of(args[0].value) in TENSOR_KINDS)

    def _created_by(self, moved: cst.BaseExpression) -> Optional[cst.Call]:
        """The call that made the value a move copies: the value itself, or the factory under
        host-side steps that keep a tensor where it is (`devices.same_place_source`)."""
        source = same_place_source(moved, self.ctx.qualified_name, self.ctx.kind_of)
        return source if isinstance(source, cst.Call) else None

    def _later_move(self, node: cst.Call) -> Optional[Tuple[cst.Call, ...]]:
        """The creations earlier statements made of the name `node` moves (`semantics.moves`),
        asking once per scope and only of calls that may move a name: `x.cuda()`, `x.to(...)`,
        or a same-file function given a name."""
        found = method_call(node)
        if found is not None and found[1] in MOVES:
            if not isinstance(same_place_source(found[0], self.ctx.qualified_name, self.ctx.kind_of), cst.Name):
                return None
        elif not any(isinstance(arg.value, cst.Name) for arg in node.args) or not called_function(node, self.ctx.frequency.local_functions()):
            return None
        scope = self.ctx.enclosing(cst.FunctionDef) or self.ctx.module
        if id(scope) not in self.moves:
            # The walk reads the scope ahead of the traversal: names are resolved there without
            # `ctx.qualified_name`, whose memo would keep those answers for every rule.
            self.moves[id(scope)] = later_moves(scope, self.ctx.frequency.local_functions, self.ctx.names.qualified_name)
        return self.moves[id(scope)].get(id(node))

    def _check_later_move(self, move: cst.Call, factory: cst.Call) -> None:
        """`mask = torch.BoolTensor(x.size()).fill_(0)` and later `mask = mask.cuda()`, or a
        same-file helper that returns it moved (`semantics.moves`): reported at the creation,
        without a fix (the statements between are the user's to rewrite). A join of host
        factories (`labels = torch.cat([torch.arange(b) for _ in range(k)])`) is reported at
        the join."""
        name = self._host_factory(factory, None) or self._concatenated_factory(factory)[1]
        if name is None:
            self._check_returned(move, factory)
            return
        if not self._moves_to_device(move):
            return
        if self._reported_often(factory):
            self.report(
                factory,
                f"`torch.{name}(...)` is created on the CPU and moved to the device by a later statement; {_remedy(name)}",
            )

    def _moves_to_device(self, move: cst.Call) -> bool:
        """Whether `move` copies to a device: a `.cuda()`/`.to()`/`.type_as()` with a known
        device target, or a same-file helper that returns its argument moved."""
        found = method_call(move)
        return found is None or found[1] not in MOVES or self._target_device(move, found[1]) is not None

    def _check_returned(self, move: cst.Call, call: cst.Call) -> None:
        """`sample_gumbel(size).cuda()`, or `noise = sample_gumbel(size)` then `noise =
        noise.cuda()`, where every `return` of the same-file helper gives a value a host
        factory made (`semantics.moves.returned_creations`): reported at those factories,
        without a fix (the helper needs the device from its callers)."""
        functions = called_function(call, self.ctx.frequency.local_functions())
        if not functions:
            self._check_returned_elsewhere(move, call)
            return
        if len(functions) != 1:
            return
        if id(functions[0]) not in self.creations:
            self.creations[id(functions[0])] = returned_creations(functions[0], self.ctx.frequency.local_functions, self.ctx.names.qualified_name)
        made = [(factory, self._host_factory(factory, None)) for factory in self.creations[id(functions[0])]]
        if not made or any(name is None for _, name in made) or not self._moves_to_device(move) or not self._reported_often(move):
            return
        for factory, name in made:
            if id(factory) not in self.returned:
                self.returned.add(id(factory))
                self.report(
                    factory,
                    f"`torch.{name}(...)` is created on the CPU, returned by `{functions[0].name.value}()` and "
                    f"moved to the device by its caller; {_remedy(name)}",
                )

    def _check_returned_elsewhere(self, move: cst.Call, call: cst.Call) -> None:
        """`self.scheduler.sample_timesteps(n).to(device)` where the helper, of another project
        module, returns what a torch factory creates on the host (`return torch.randint(1, T,
        (n,))`, `project.FunctionFacts.returns_host_factory`): reported at the move, without a
        fix (the helper needs the device from its callers)."""
        facts = project_function(self.ctx, call.func)
        if facts is None or not facts.returns_host_factory or not self._moves_to_device(move) or not self._reported_often(move):
            return
        self.report(
            move,
            f"`torch.{facts.returns_host_factory}(...)` is created on the CPU by `{facts.name.rpartition('.')[2]}()` and copied here "
            f"to the device; pass the device to the helper and create it there (`device=`)",
        )

    def _check_moving_helper(self, node: cst.Call) -> None:
        """`get_variable(torch.randn(b, 100))` where the same-file helper returns its parameter
        moved to the device (`return Variable(arg).cuda()`): the tensor is created on the host
        and copied. Reported without a fix: the helper's other callers may pass other values."""
        if not any(isinstance(arg.value, cst.Call) for arg in node.args):
            return  # cheap test first: this runs for every call
        functions = called_function(node, self.ctx.frequency.local_functions())
        if not functions:
            return
        for arg, parameter in arguments_by_parameter(node, functions[0]):
            if not isinstance(arg, cst.Call):
                continue
            name = self._host_factory(arg, None)
            if name is not None and returns_moved(functions[0], parameter) and self._reported_often(node):
                self.report(
                    arg,
                    f"`torch.{name}(...)` is created on the CPU and then copied to the device by "
                    f"`{functions[0].name.value}()`; {_remedy(name)}",
                )

    def _host_factory(self, factory: cst.Call, move: Optional[cst.Call]) -> Optional[str]:
        """The name of the torch factory `factory` calls when it creates a tensor on the host
        that is worth creating on the device instead, else None."""
        qualified = self.ctx.qualified_name(factory.func)
        if isinstance(factory.func, cst.Attribute) and factory.func.attr.value in SAMPLES:
            return self._host_distribution(factory.func.value)
        if legacy_sized_constructor(factory, qualified):
            return qualified.rpartition(".")[2]  # type: ignore[union-attr]
        name = (qualified or "").rpartition(".")
        if name[0] == "torch" and name[2] in DATA_FACTORIES and _of_a_range(factory):
            return name[2]  # `torch.tensor(range(n))`: `torch.arange(n, device=d)` fills it on the device
        if name[0] != "torch" or name[2] not in DETERMINISTIC_FACTORIES | RANDOM_FACTORIES or name[2] in DATA_FACTORIES:
            return None
        if name[2] == "normal" and not (_sized_normal(factory) or self._normal_of_host_mean(factory)):
            return None  # `torch.normal(mean, std)` of tensors draws where they are
        if name[2].endswith("_like") and (move is None or not self._like_host_tensor(factory, move)):
            return None  # `zeros_like(x)` is created where `x` lives, usually on the device already
        if keyword(factory, "pin_memory") is not None or (name[2] in SIZED_FACTORIES and _empty(factory)):
            return None
        placed = keyword(factory, "device")
        if placed is not None and (string_value(placed.value) or "").split(":")[0] != "cpu":
            return None  # made where `device=` says: the move is a dtype conversion or a no-op
        return name[2]

    def _host_distribution(self, owner: cst.BaseExpression) -> Optional[str]:
        """`Normal(0, 1)`, or a name every assignment reaching here gives such a value: a
        `torch.distributions` object whose parameters are numbers or host factories, so its
        `.sample(shape)` draws on the host. Its display name (`distributions.Normal(...).sample`),
        else None (parameters that may be on the device draw there)."""
        values = [owner] if isinstance(owner, cst.Call) else self._assigned(owner) or []
        kinds = set()
        for value in values:
            qualified = self.ctx.qualified_name(value.func) if isinstance(value, cst.Call) else None
            if not (qualified or "").startswith("torch.distributions.") or not value.args:  # type: ignore[union-attr]
                return None
            if not all(number_literal(arg.value) or _boolean(arg.value) or self._host_made(arg.value) for arg in value.args):  # type: ignore[union-attr]
                return None
            kinds.add(qualified.rpartition(".")[2])  # type: ignore[union-attr]
        return f"distributions.{kinds.pop()}(...).sample" if len(kinds) == 1 else None

    def _host_made(self, value: cst.BaseExpression) -> bool:
        made = self._created_by(value)
        return made is not None and self._host_factory(made, None) is not None

    def _normal_of_host_mean(self, factory: cst.Call) -> bool:
        """`torch.normal(torch.zeros(n), std)`: the mean is a host factory, so the draws are
        made on the host too (this form takes no `device=`)."""
        mean = keyword(factory, "mean") or next(iter(positional(factory)), None)
        made = self._created_by(mean.value) if mean is not None else None
        return made is not None and made is not factory and self._host_factory(made, None) is not None

    def _reported_often(self, node: cst.Call) -> bool:
        if not self.runs_often(node):
            return False
        return not self.withholds_preview_variant() or runs_with_training_steps(self.ctx, self.ctx.execution(node))

    def _target_device(self, move: cst.Call, method: str) -> Optional[cst.BaseExpression]:
        """The device expression the move targets, or None if it is not a known device move."""
        if method == "cuda":
            target = keyword(move, "device") or (positional(move)[0] if positional(move) else None)
            if target is None or (isinstance(target.value, cst.Name) and target.value.value == "None"):
                return cst.SimpleString('"cuda"')
            if isinstance(target.value, cst.Integer):
                return cst.SimpleString(f'"cuda:{target.value.value}"')
            return target.value
        args = positional(move)
        if self._to_tensor_device(move, method):
            # Where another tensor is: `.type_as(imgs)` as `.to(imgs.device)` reads (not a tensor
            # known to be on the host), `.to(actions)` only for a tensor known to be on the device.
            kind = self.ctx.kind_of(args[0].value) if len(args) == 1 else Kind.OTHER
            if kind in HOST_KINDS or (method == "to" and kind is not Kind.DEVICE_TENSOR):
                return None
            return cst.Attribute(args[0].value, cst.Name("device"))
        target_arg = keyword(move, "device") or (args[0] if args else None)
        if target_arg is None:
            return None
        target = target_arg.value
        literal = string_value(target)
        if literal is not None and literal.split(":")[0] == "cpu":
            return None
        if self.ctx.kind_of(target) is Kind.DEVICE or named_like_device(target):
            return target
        return None

    def _like_host_tensor(self, factory: cst.Call, move: cst.Call) -> bool:
        """Whether a `*_like(x)` factory's `x` is known to be on the host, and the move is
        not to `x.device` (where the new tensor already is)."""
        source = positional(factory)
        if not source or self.ctx.kind_of(source[0].value) is not Kind.HOST_TENSOR:
            return False
        target = positional(move)
        return not (target and dotted_name(target[0].value) == f"{dotted_name(source[0].value)}.device")

    def _always_device(self, device: cst.BaseExpression) -> bool:
        """Whether `device` is known to be a device every time the move runs: a name must get a
        device from every assignment that can reach it (`semantics.bindings.reaching_values`),
        not only from the one before it in the source (a loop or a function may rebind it)."""
        if self.ctx.kind_of(device) is not Kind.DEVICE:
            return False
        if isinstance(device, cst.Attribute) and device.attr.value == "device" and self.ctx.kind_of(device.value) not in TENSOR_KINDS:
            # `self.device`: what the file assigns to it (a constructor's argument may be anything)
            if None in field_values_anywhere(self.ctx.module, self.ctx.names, device.attr.value):
                return False  # a field of a `namedtuple` built from values it cannot read
            dotted = dotted_name(device)
            return dotted is None or all(self._made_device(value) for value in attribute_assignments(self.ctx.module, dotted))
        if not isinstance(device, cst.Name):
            return True
        values = self._assigned(device)
        return values is not None and all(_is_device_literal(value) or self.ctx.kind_of(value) is Kind.DEVICE for value in values)

    def _made_device(self, value: Optional[cst.BaseExpression]) -> bool:
        """A device string or a `torch.device(...)` call."""
        if isinstance(value, cst.Call):
            return self.ctx.names.qualified_name(value.func) == "torch.device"
        return value is not None and _is_device_literal(value)

    def _computed_with_rounding(self, factory: cst.Call) -> bool:
        """`linspace`/`logspace`, the cosine and Bessel windows (`hann_window`, ...), and
        `arange`/`range` unless every bound and step is known to be an integer: their device
        kernels compute fractional values with other rounding (a last bit, and at a bound one
        element more or less) than the CPU's."""
        name = (self.ctx.qualified_name(factory.func) or "").rpartition(".")[2]
        if name not in COMPUTED_FACTORIES:
            return False
        if name in TRANSCENDENTAL_WINDOWS:
            return True
        return name in ("linspace", "logspace") or not all(python_integer(self.ctx, arg.value) for arg in positional(factory))

    def _assigned(self, device: cst.BaseExpression, partial: bool = False) -> Optional[List[cst.BaseExpression]]:
        if not isinstance(device, cst.Name):
            return None
        return reaching_values(self.ctx.module, self._binding_function(device.value), device.value, partial)

    def _binding_function(self, name: str) -> Optional[cst.FunctionDef]:
        """The function whose binding of `name` the move reads: the innermost enclosing one
        that binds it (a closure reads its outer function's parameter), else the nearest."""
        nearest = self.ctx.enclosing(cst.FunctionDef)
        function = nearest
        while isinstance(function, cst.FunctionDef) and not binds_locally(function, name):
            function = self.ctx.frequency.enclosing_function(function)
        found = function if function is not None else nearest
        return found if isinstance(found, cst.FunctionDef) else None

    def _sometimes_other(self, device: cst.BaseExpression) -> bool:
        """Whether an assignment that can reach `device`, or a call of the enclosing function
        of the file passing it as a parameter, gives it a value known not to be a device
        (`device = torch.float64` later in the loop, `make(4, torch.float64)`), or what the
        file assigns to the attribute it names (`self.device = torch.float64`, a property
        returning one) or to an attribute assigned to it (`return self._precision`): the
        factory would reject it."""
        function = self._binding_function(device.value) if isinstance(device, cst.Name) else None
        others = parameter_values(self.ctx.module, function, device.value) if isinstance(function, cst.FunctionDef) and isinstance(device, cst.Name) else []
        if isinstance(device, cst.Name):
            others += captured_values(self.ctx.module, device.value)
        if isinstance(device, cst.Attribute) and dotted_name(device) is not None:
            assigned = [*attribute_assignments(self.ctx.module, dotted_name(device) or ""), *field_values_anywhere(self.ctx.module, self.ctx.names, device.attr.value)]
            others = [value for value in assigned if value is not None] + stored_parameter_values(self.ctx.module, dotted_name(device) or "")
            # an attribute it is given (a property's `return self._precision`): what the file assigns to that
            others += [
                followed
                for value in others
                if isinstance(value, cst.Attribute) and dotted_name(value) is not None
                for followed in attribute_assignments(self.ctx.module, dotted_name(value) or "")
                if followed is not None
            ]
        if isinstance(device, cst.Name) and any(q.startswith("torch.") and q != "torch.device" for q in imported_values(self.ctx.module, device.value)):
            return True  # `from torch import float64 as device`
        if isinstance(device, cst.Name) and not (function is not None and binds_locally(function, device.value)) and execs_in_globals(self.ctx.module):
            return True  # `exec("device = torch.float64")` may bind it to anything
        values = _alternatives([*(self._assigned(device, partial=True) or []), *others])
        values += [  # a name among them (`device = override or "cpu"`): what it is assigned
            item
            for value in values
            if isinstance(value, cst.Name) and value.value != getattr(device, "value", None)
            for item in _alternatives(reaching_values(self.ctx.module, self._binding_function(value.value), value.value, True) or [])
        ]
        values += [item for value in values for item in self._returned(value)]
        for value in _alternatives([*values, *(item for value in values for item in subscript_values(self.ctx.module, value))]):
            if _is_device_literal(value) or isinstance(value, cst.Integer):
                continue  # an integer is a device index (`.cuda(0)`, `device=0`)
            kind = self.ctx.kind_of(value)
            torch_constant = isinstance(value, cst.Attribute) and (self.ctx.qualified_name(value) or "").startswith("torch.")
            if (kind is not None and kind is not Kind.DEVICE) or (kind is None and torch_constant) or reads_dtype(value):
                return True  # a torch constant read, not called (a dtype such as `torch.float64`), or `ref.dtype`
        return False

    def _returned(self, value: cst.BaseExpression) -> List[cst.BaseExpression]:
        """What a call of a function of the file (`pick("cpu")`) may return: the values of its
        `return` statements, and what the names they return are assigned in it."""
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Name)):
            return []
        found: List[cst.BaseExpression] = [
            item.body for item in self._assigned(value.func, partial=True) or [] if isinstance(item, cst.Lambda)
        ]  # `pick = lambda: torch.float64`
        for function in self.ctx.frequency.local_functions().get(value.func.value, []):
            if not isinstance(function, cst.FunctionDef):
                continue
            for item in scope_descendants(function.body):
                if isinstance(item, cst.Return) and item.value is not None:
                    found += _alternatives([item.value])
                    if isinstance(item.value, cst.Name):
                        found += _alternatives(reaching_values(self.ctx.module, function, item.value.value, True) or [])
        return found

    def _fix(self, move: cst.Call, factory: cst.Call, device: cst.BaseExpression, random: bool) -> Optional[PendingFix]:
        """Move `device=` into the factory call; a dtype the move also sets stays in a
        `.to(dtype)` after it, so the factory still computes in its own dtype.

        `.to(device, dtype, non_blocking, copy)` and `.cuda(device, non_blocking)`: only
        `.to` can change the dtype. Withheld when the factory writes into `out=`, draws from a
        `generator=` (both live on the CPU), or may get `device=` from `**kwargs`, and when the
        move unpacks arguments.
        """
        if has_star(move, "*") or has_star(move, "**"):
            return self.withheld("the move unpacks arguments")
        if has_star(factory, "**"):
            return self.withheld("the factory call has **kwargs")
        if any(keyword(factory, name) is not None for name in ("out", "generator", "device")):
            return None
        if (self.ctx.qualified_name(factory.func) or "").endswith(".normal") and not _sized_normal(factory):
            return None  # `normal(mean_tensor, std)` takes no `device=`
        moved = positional(move)
        is_to = isinstance(move.func, cst.Attribute) and move.func.attr.value == "to"
        dtype_arg = keyword(move, "dtype") or (moved[1] if is_to and len(moved) > 1 else None)
        if any(a.keyword is not None and a.keyword.value not in ("device", "dtype", *TRANSFER_ONLY_KEYWORDS) for a in move.args):
            return None
        new_call: cst.BaseExpression = with_keyword(factory, "device", device)
        if dtype_arg is not None:
            conversion = cst.Arg(dtype_arg.value)
            new_call = cst.Call(cst.Attribute(new_call, cst.Name("to")), [conversion])
        message = "Create the tensor on the device"
        grad = keyword(factory, "requires_grad")
        if random:
            return self.unsafe_fix("the device's random generator draws other numbers", NodeEdit(move, new_call), message=message)
        if self._computed_with_rounding(factory):
            return self.unsafe_fix("the device computes the values with other rounding than the CPU", NodeEdit(move, new_call), message=message)
        if grad is not None and not is_literal(grad.value, "False"):
            return self.unsafe_fix("the device tensor becomes the leaf that gets `.grad`", NodeEdit(move, new_call), message=message)
        if self._sometimes_other(device):
            return self.withheld(f"`{dotted_name(device)}` is also given values that are not devices")
        if not _is_device_literal(device) and not self._always_device(device):
            shown = dotted_name(device) or "the target"
            return self.unsafe_fix(f"`{shown}` is only named like a device", NodeEdit(move, new_call), message=message)
        return self.fix(NodeEdit(move, new_call), message=message)


def _remedy(name: str) -> str:
    """What to do instead for a factory (by `_host_factory`'s name) made on the host."""
    if name.startswith("distributions."):
        return "build the distribution from tensors on the device (`Normal(torch.zeros((), device=d), 1.0)`) so it draws there"
    if name in DATA_FACTORIES:
        return "build the range with `torch.arange(..., device=...)`, which fills it on the device"
    return "pass `device=` to create it there"


def _of_a_range(factory: cst.Call) -> bool:
    """`torch.tensor(range(n))` or `torch.tensor(list(range(n)))`: numbers in a row, which
    `torch.arange` makes on the device without a host copy."""
    given = positional(factory)
    values = given[0].value if given else None
    if isinstance(values, cst.Call) and dotted_name(values.func) == "list" and len(values.args) == 1:
        values = values.args[0].value
    return isinstance(values, cst.Call) and dotted_name(values.func) == "range" and not any(arg.star for arg in values.args)


def _boolean(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value in ("True", "False")


def _sized_normal(factory: cst.Call) -> bool:
    """`torch.normal(0.0, 1.0, size=(b, d))` (or its size third): numbers for the mean and
    standard deviation, drawn on the host unless `device=` says otherwise."""
    return keyword(factory, "size") is not None or len(positional(factory)) >= 3


def _empty(factory: cst.Call) -> bool:
    """`torch.empty(0)`, `torch.zeros(0, 4)`, `torch.zeros((0,))` (a factory that takes its size
    first): a literal 0 among the sizes, so there is nothing to fill or copy."""
    sizes = positional(factory)
    if len(sizes) == 1 and isinstance(sizes[0].value, (cst.Tuple, cst.List)):
        values = [element.value for element in sizes[0].value.elements]
    else:
        values = [arg.value for arg in sizes]
    return any(isinstance(value, cst.Integer) and value.value == "0" for value in values)


def _is_device_literal(node: cst.BaseExpression) -> bool:
    """A device string such as `"cuda:1"` (what `.cuda()` becomes)."""
    literal = string_value(node)
    return literal is not None and literal.split(":")[0] in ("cuda", "cpu", "mps", "xpu", "meta")


def _alternatives(values: List[cst.BaseExpression]) -> List[cst.BaseExpression]:
    """`values` with each conditional expression replaced by its branches (`torch.float64 if
    dtype_only else "cpu"` may be either), and each `a or b`/`a and b` by its operands."""
    result: List[cst.BaseExpression] = []
    for value in values:
        if isinstance(value, cst.IfExp):
            result += _alternatives([value.body, value.orelse])
        elif isinstance(value, cst.BooleanOperation):  # `override or "cpu"` is either operand
            result += _alternatives([value.left, value.right])
        else:
            result.append(value)
    return result
