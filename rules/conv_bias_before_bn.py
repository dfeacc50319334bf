import os
from dataclasses import dataclass, field
from functools import cached_property
from typing import AbstractSet, Dict, List, Optional, Sequence, Set, Tuple, Union

import libcst as cst

from torchlint.engine.findings import Applicability
from torchlint.engine.rule import NodeEdit, PendingFix, Rule
from torchlint.semantics.biased_layers import BIASED_LAYERS, LayerSignature, WrappedLayer
from torchlint.semantics.flags import only_when_switched_on
from torchlint.semantics.instantiation import unbuilt_definitions
from torchlint.semantics.modes import branch_no_call_takes
from torchlint.semantics.module_lists import indexed_pairs, module_list_layers, next_consumer, rows_view, same_size
from torchlint.semantics.project import callers_of, project_function
from torchlint.semantics.names import dotted_name
from torchlint.semantics.values import string_key, string_value
from torchlint.semantics.passed_values import true_in_every_call
from torchlint.semantics.calls import argument, has_star, is_literal, method_call, with_keyword
from torchlint.semantics.tree import bound_names, descendants, names_bound_by, nodes_of_type, per_module, scope_descendants

# The norms that subtract a per-channel mean over every position of a channel, by the
# dimensionality of the input they take (0: any). GroupNorm and LayerNorm subtract means over
# several channels at once, which a per-channel bias survives.
BATCH_NORMS = {f"torch.nn.{lazy}BatchNorm{dim}d": dim for dim in (1, 2, 3) for lazy in ("", "Lazy")}
BATCH_NORMS["torch.nn.SyncBatchNorm"] = 0
INSTANCE_NORMS = {f"torch.nn.{lazy}InstanceNorm{dim}d": dim for dim in (1, 2, 3) for lazy in ("", "Lazy")}
NORMS = {**BATCH_NORMS, **INSTANCE_NORMS}
SEQUENTIAL = "torch.nn.Sequential"
# Methods that load trained weights into a module.
WEIGHT_LOADERS = frozenset({"load_state_dict", "load_from_checkpoint"})
UNORDERED_CONTAINERS = frozenset({"torch.nn.ModuleList", "torch.nn.ModuleDict", "torch.nn.ParameterList"})
ORDERED_DICTS = frozenset({"collections.OrderedDict", "typing.OrderedDict"})


@dataclass(frozen=True)
class _Conditional:
    """A layer appended to a list under `if <test>:` (without `else`)."""

    layer: cst.BaseExpression
    test: cst.BaseExpression


# An item of a sequence of layers: an expression, a conditionally added layer, or None when unknown.
_Item = Union[cst.BaseExpression, _Conditional, None]


@dataclass
class _ClassModules:
    """Submodules assigned as `self.<name> = Layer(...)` and how each one's output is consumed."""

    constructors: Dict[str, cst.Call] = field(default_factory=dict)
    # Of those, the norms built or applied only under a test (`self.bn = nn.BatchNorm2d(c) if bn
    # else None`, then `if self.bn: x = self.bn(x)`; `if self.activation == "relu": x =
    # F.relu(self.bn(x))`): the layer before keeps its bias for the other case.
    optional: Set[str] = field(default_factory=set)
    # For each submodule called in the class, the submodule that consumes each call's output
    # directly (None when the output goes anywhere else).
    consumers: Dict[str, List[Optional[str]]] = field(default_factory=dict)


class ConvBiasBeforeBn(Rule):
    """## What it does
    Flags a convolution (`nn.Conv1d/2d/3d`, `nn.ConvTranspose*d`) or `nn.Linear` with its bias
    enabled (the default) whose output goes straight into a BatchNorm (`nn.BatchNorm1d/2d/3d`,
    `nn.SyncBatchNorm`) or, for a convolution, an InstanceNorm (`nn.InstanceNorm1d/2d/3d`).

    ## Why is this slow?
    BatchNorm subtracts the per-channel mean of its input over the batch and every position,
    InstanceNorm the per-channel mean of each sample over every position, so a per-channel
    bias added just before either is cancelled exactly: in training mode the output is the
    same with or without it, and in eval mode the running mean absorbs it as it converges. The bias still
    costs parameters, optimizer state, memory traffic and an extra add per element, and its
    gradient is zero. GroupNorm and LayerNorm average over several channels at once, which a
    per-channel bias survives; they are never reported. Nor is a `Linear` before an
    InstanceNorm1d, which normalises the positions of each feature rather than the features.

    Detected in adjacent items of `nn.Sequential(...)` (positional or an `OrderedDict`), list
    literals of layers (`layers += [conv, nn.BatchNorm2d(c), nn.ReLU()]`), lists built by
    `layers.append(...)`/`.extend(...)` and then passed as `nn.Sequential(*layers)` (adjacent
    in the final list, or returned by a helper whose callers splice it into one), an empty
    `nn.Sequential()` filled by `add_module(name, layer)` or `append(layer)` (the DCGAN style;
    judged when its function ends; layers added
    one after another in the body of a `for` or `while` loop that runs its body through are adjacent in
    every pass, and the loop's first and last layers are not known to be; anything added in a
    nested block or an `if` with an `else` counts as unknown and breaks adjacency), a
    norm appended under `if normalize:` right after the layer (the GAN helper
    `layers = [conv]; if normalize: layers.append(nn.InstanceNorm2d(c))`, also in the body of
    the loop that builds the list, `for d_in, d_out in ...: layers.append(nn.Linear(d_in,
    d_out)); if batchnorm: layers.append(nn.BatchNorm1d(d_out))`; not when the flag
    is off by default, a parameter defaulting to `False`, `None` or `0`, a constant set to
    `False`, a `store_true` option; see `semantics.flags`: such a norm is opt-in, unless every
    call in the project passes `True`, `passed_values.true_in_every_call`), and submodules
    wired in a module's methods as `self.bn(self.conv(x))` or `x = self.conv(x); x = self.bn(x)`
    (what the norm's output is made into next does not matter: `self.bn(x).view(n, m, c)`;
    a Linear's output may reach a BatchNorm1d as rows of its features, `x.view(-1, c)` or
    `.reshape(-1, c)` with `c` written as the Linear's output features and the norm's;
    also a norm applied in the first branch of an `if` right after the layer, `if self.bn: x =
    self.bn(x)` after `self.bn = nn.BatchNorm2d(c) if bn else None`, or `if self.activation ==
    "relu": x = F.relu(self.bn(x))`, reported without a fix: the blocks that skip the norm need
    the bias, and the fix is the user's, `bias=not bn`),
    when every call of the convolution feeds the BatchNorm, and layers held in
    `nn.ModuleList`s applied at the same position in a loop that starts at the lists' first
    element (`self.bns[i](self.fcs[i](h))` over `range(n)`, `x = lin(x)` then
    `x = self.bns[i](x)` over `enumerate(self.lins[:-1])`, `bn(conv(x))` over
    `zip(self.convs, self.bns)`: the first layer appended to `fcs` feeds `bns`; reported
    without a fix, since the list's other uses are not followed). A layer given by name must
    be followed by the norm in every list it joins, except a list built in a branch of a
    module-level builder that no call of the project takes (`else: layers += [conv2d,
    nn.ReLU()]` under `if batch_norm:` when every call, all in the builder's file, passes
    `batch_norm=True`): reported without a fix, since a caller outside the project may take
    that branch; when some call takes it, the bias is needed there and nothing is reported. A
    `bias=bias` taken from a parameter counts as on when every call of the block in the project
    leaves its `True` default or passes `True` (no fix then: the default or the calls change).
    A call of a project class that only wraps one such layer counts as that layer: its
    `forward` ends in `return self.conv(x)` (directly or through one name), returns nowhere
    else, and may prepare the input first (`x = F.pad(x, ...)` of a causal conv); its
    `__init__` assigns `self.conv` once, with the bias on or taken from a constructor
    parameter (Tacotron 2's `ConvNorm`, in its own module or imported; see
    `semantics.biased_layers`): `nn.Sequential(ConvNorm(80, 512, 5), nn.BatchNorm1d(512))` is
    reported at the `ConvNorm(...)` call, whose fix passes the wrapper's bias parameter as
    `False` (no fix when the wrapper has no such parameter or reads its layer's `.bias`).
    Silent when anything (an
    activation, pooling, dropout) sits between the two, when `bias=False` is passed, when
    `**kwargs` may pass it, or when the channel counts are literals that differ. Silent too in
    a module-level class that nothing in a project that trains builds (an abandoned variant
    next to the model every script trains; see `semantics.instantiation`): its name occurs in
    no other module (import, export, subclass, registry, string), nowhere in its own module
    outside the bodies of classes that are themselves never built, no decorator may register
    it, and no module star-imports its module, looks names up on it dynamically or imports
    modules by name. A library keeps every class, its users build them: a project that trains
    nothing, or a directory most of whose other modules nothing in the project imports (a
    model zoo whose users import each module themselves). Silent too in a program that never
    trains and loads trained weights (a notebook or script that loads a checkpoint, with
    `torch.load` or `load_state_dict`, and runs the model; see `training.inference_only`): its
    classes must match the weights it loads, which were trained with the bias, and in
    inference the bias costs one add. A module whose `__main__` block only builds its model
    (a self-test) is still judged.

    ## Example
    ```python
    block = nn.Sequential(nn.Conv2d(64, 128, 3, padding=1), nn.BatchNorm2d(128), nn.ReLU())
    ```

    ## Use instead
    ```python
    block = nn.Sequential(nn.Conv2d(64, 128, 3, padding=1, bias=False), nn.BatchNorm2d(128), nn.ReLU())
    ```

    ## Fix applicability
    Unsafe. Removing the bias removes `bias` from the module's parameters (a printed parameter
    count, optimizer groups, `print(model)`, which shows `bias=False`) and state dict, so checkpoints saved before the change no longer
    load with `strict=True`; with `strict=False` the checkpoint's
    bias is dropped silently while the norm's running mean, learned with it, still contains
    it, so eval outputs change. A conv built without a bias draws fewer random numbers, so
    later random values change, and the model has fewer parameters (a printed parameter
    count, the length of `parameters_to_vector(model.parameters())`). In training mode the norm cancels the bias (up to float
    rounding: the last bits of its outputs can differ), but in
    eval mode only the running mean absorbs it, as it converges (momentum 0.1 by default):
    eval outputs change after short training, and always for a BatchNorm frozen in eval mode
    (fine-tuning with frozen statistics) or an InstanceNorm with `track_running_stats=True`
    evaluated before its statistics settle. Whatever sees the layer's own output changes too:
    a forward hook on it, a slice of the `nn.Sequential` that ends with it (`features[:1]`),
    features taken between the two. The fix passes `bias=False`
    (or turns `bias=True` into `bias=False`); for a norm appended under `if <condition>:` it
    passes `bias=not <condition>`, so the layer keeps its bias exactly when no norm follows,
    provided the condition reads only literals and parameters the function never rebinds
    (else no fix). No fix when the file reads `.bias` other than
    under an `if m.bias is not None:` check without an `else` (`nn.init.zeros_(m.bias)` would
    get None; an `else:` branch would run for the layer once it has no bias), captures it in a
    class pattern (`case nn.Conv2d(bias=b):`), reads a module's `_parameters` dict, or names
    a bias in a string (`getattr(m, "bias")`, `"bi" "as"`, a state-dict key); when the file
    takes a module's parameters by position (`weight, bias = conv.parameters()`,
    `list(model.parameters())[1]`, `list(model.state_dict().values())[4]`, `next(params)` of
    `params = iter(model.parameters())`, a slice of a name bound to that list, `params[2:]`, an
    optimizer group's `param_groups[0]["params"][1]`, pairs them with another module's,
    `zip(src.parameters(), dst.parameters())`, or with anything else, `zip(params, lrs)`,
    `enumerate(...)`, `itertools.islice(...)`, or fills them from a vector,
    `vector_to_parameters(vec, model.parameters())`), which the missing bias shifts; when the file strictly loads
    one module's `state_dict()` into another (`conv.load_state_dict(pretrained.state_dict())`:
    a source that keeps its bias would no longer load), or strictly loads any state not shown
    to be saved by the file from a model built by the same expression (`torch.save(
    teacher.state_dict(), buf)`, then `student.load_state_dict(torch.load(buf))`; a
    checkpoint from outside the file); when the BatchNorm attribute
    is assigned more than once (it may be an `nn.Identity`); for a `Linear`, whose
    3-D output a BatchNorm normalises over another axis than its features, keeping the bias;
    and for a pair found only in a list literal that is not shown to run its layers one after
    another: spliced into `nn.Sequential`, its `OrderedDict`, returned by a helper whose
    callers splice it, or added (`=`, `+=`, `.extend`, a concatenation) to a list that the
    same function splices into `nn.Sequential(*layers)` or returns. Any other list may hold
    parallel branches whose outputs are summed (RepVGG's `[conv, bn, nn.Identity()]` in an
    `nn.ModuleList`).

    ## Measured precision
    stable. 1.00 on both halves (84/0 dev, 32/0 held out, InstanceNorm and conditionally
    appended norms included: 37 of the dev findings and 1 held out come from them). The fresh
    held-out repositories added one false positive, a norm behind an opt-in flag off by
    default (DINO's projection head), now silent. Batch 13 measured 0.50 (3/3: a model class
    no script builds); with classes the project never builds left out, 1.00 (3/0).
    See docs/precision.md.
    """

    code = "TL301"
    impact = "medium"
    name = "conv-bias-before-bn"
    summary = "Convolution or Linear bias right before BatchNorm (or a conv's before InstanceNorm) is cancelled by it"
    triggers = ("BatchNorm", "InstanceNorm")
    fix_applicability = Applicability.UNSAFE
    bad_examples = (
        "import torch.nn as nn\nblock = nn.Sequential(nn.Conv2d(3, 16, 3), nn.BatchNorm2d(16))\n",
        "from torch import nn\nlayers = [nn.Linear(8, 8), nn.BatchNorm1d(8), nn.ReLU()]\n",
        "import torch.nn as nn\nclass M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.conv = nn.Conv2d(3, 8, 3)\n        self.bn = nn.BatchNorm2d(8)\n"
        "    def forward(self, x):\n        return self.bn(self.conv(x))\n",
    )
    good_examples = (
        "import torch.nn as nn\nblock = nn.Sequential(nn.Conv2d(3, 16, 3, bias=False), nn.BatchNorm2d(16))\n",
        "import torch.nn as nn\nblock = nn.Sequential(nn.Conv2d(3, 16, 3), nn.ReLU(), nn.BatchNorm2d(16))\n",
        "import torch.nn as nn\nblock = nn.ModuleList([nn.Conv2d(3, 16, 3), nn.BatchNorm2d(16)])\n",
        "import torch.nn as nn\nblock = nn.Sequential(nn.Conv2d(3, 16, 3, **kw), nn.BatchNorm2d(16))\n",
        "import torch.nn as nn\nclass M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.conv = nn.Conv2d(3, 8, 3)\n        self.bn = nn.BatchNorm2d(8)\n"
        "    def forward(self, x):\n        y = self.conv(x)\n        return self.bn(y) + y\n",
        "import torch\nfrom mylib import Conv2d, BatchNorm2d\nimport torch.nn as nn\nblock = nn.Sequential(Conv2d(3, 16, 3), BatchNorm2d(16))\n",
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.classes: List[_ClassModules] = []
        # Layers assigned to plain names, keyed by (scope, name), and for each whether the
        # sequences it appears in put a BatchNorm right after it.
        self.assigned: Dict[Tuple[int, str], cst.Call] = {}
        # For each use, the norm that cancels its bias there (None: none does).
        self.named_uses: Dict[Tuple[int, str], List[Optional[cst.Call]]] = {}
        # Lists of layers built step by step (`layers = []; layers.append(conv)`), by (scope,
        # name): the items so far and the block the list was made in.
        self.built: Dict[Tuple[int, str], Tuple[List[_Item], cst.CSTNode]] = {}
        # The `for` or `while` loop (directly in the block the list was made in) whose body is
        # adding the latest items to such a list, by (scope, name).
        self.built_loops: Dict[Tuple[int, str], Union[cst.For, cst.While]] = {}
        # Of those, the empty `nn.Sequential()`s filled by `add_module(name, layer)` or
        # `append(layer)` (the DCGAN style): judged when their scope ends.
        self.sequentials: Set[Tuple[int, str]] = set()
        self.reported: Set[int] = set()
        # Pairs seen in list literals not shown to run in order (they may be parallel branches),
        # by layer id: (layer, norm, condition, the list they were added to). Judged at the end:
        # in order when that list is spliced into an `nn.Sequential` or returned (`spliced`),
        # else reported without a fix, unless a sequence that runs them in order reported them.
        self.unordered: Dict[int, Tuple[cst.Call, cst.Call, Optional[cst.BaseExpression], Optional[Tuple[int, str]]]] = {}
        # The same for layers given by name: the lists each was added to.
        self.unordered_names: Dict[Tuple[int, str], List[Optional[Tuple[int, str]]]] = {}
        # Layers given by name whose uses without a norm are in branches no call takes.
        self.untaken: Set[Tuple[int, str]] = set()
        self.spliced: Set[Optional[Tuple[int, str]]] = set()

    # Sequences of layers -------------------------------------------------------------

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.ctx.qualified_name(node.func)
        if qualified == SEQUENTIAL:
            layers = [None if arg.star else arg.value for arg in node.args if arg.keyword is None]
            if len(layers) == 1 and isinstance(layers[0], cst.Call) and self.ctx.qualified_name(layers[0].func) in ORDERED_DICTS:
                return  # the OrderedDict's list literal is checked by visit_List
            self._check_sequence([item for arg in node.args if arg.keyword is None for item in self._arguments_items(arg)])
        self._record_submodule_call(node)
        self._record_list_call(node)
        self._forget_handed_sequentials(node)

    def _arguments_items(self, arg: cst.Arg) -> List[_Item]:
        """The layers an argument of `nn.Sequential` adds: itself, or the items of a list built
        in this scope (`*layers`); unknown for any other `*args`."""
        if not arg.star:
            return [arg.value]
        if arg.star == "*" and isinstance(arg.value, cst.Name):
            self.spliced.add((self._scope(), arg.value.value))
        built = self.built.get((self._scope(), arg.value.value)) if arg.star == "*" and isinstance(arg.value, cst.Name) else None
        return list(built[0]) if built is not None else [None]

    # Lists built step by step ---------------------------------------------------------

    def visit_Return(self, node: cst.Return) -> None:
        """A helper that returns the list it built (`return layers`): its callers splice it into
        an `nn.Sequential`, so adjacent items run one after the other."""
        if isinstance(node.value, cst.Name):
            self.spliced.add((self._scope(), node.value.value))
            built = self.built.get((self._scope(), node.value.value))
            if built is not None:
                self._check_sequence(built[0])

    def _record_list_call(self, node: cst.Call) -> None:
        """`layers.append(x)` / `layers.extend([...])` on a list being built; any other method
        call on it (`insert`, `pop`, ...) makes its order unknown."""
        func = node.func
        if not isinstance(func, cst.Attribute) or not isinstance(func.value, cst.Name):
            return
        key = (self._scope(), func.value.value)
        if key not in self.built:
            return
        args: List[_Item] = [arg.value for arg in node.args if arg.keyword is None and not arg.star]
        method = func.attr.value
        statement_call = len(self.ctx.ancestors) >= 3 and isinstance(self.ctx.ancestors[-1], cst.Expr)
        if key in self.sequentials and method == "add_module" and len(args) == len(node.args) == 2 and statement_call:
            self._extend_built(key, args[1:], -2)  # `main.add_module("conv", nn.Conv2d(...))`
        elif method == "append" and len(args) == len(node.args) == 1 and statement_call:
            self._extend_built(key, args, -2)
        elif method == "extend" and len(args) == len(node.args) == 1 and isinstance(args[0], cst.List) and statement_call:
            self._extend_built(key, _list_items(args[0]), -2)
        else:
            del self.built[key]
            self.built_loops.pop(key, None)

    def _forget_handed_sequentials(self, node: cst.Call) -> None:
        """An `nn.Sequential()` being filled that a call is handed (`add_block(main, c)`) may
        get modules the scope does not show: its order is unknown."""
        for arg in node.args:
            key = (self._scope(), arg.value.value) if isinstance(arg.value, cst.Name) else None
            if key in self.sequentials:
                self.sequentials.discard(key)
                self.built.pop(key, None)  # type: ignore[arg-type]

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name) and (self._scope(), node.target.value) in self.built:
            key = (self._scope(), node.target.value)
            if isinstance(node.operator, cst.AddAssign) and isinstance(node.value, cst.List) and len(self.ctx.ancestors) >= 2:
                self._extend_built(key, _list_items(node.value), -1)
            else:
                del self.built[key]
                self.built_loops.pop(key, None)

    def _extend_built(self, key: Tuple[int, str], items: List[_Item], line: int) -> None:
        """Add items to a list being built by the statement whose line is `ancestors[line]`.
        In the block the list was made in, they are added as they are; directly in the body of
        a `for` loop there that runs its body through (no `break`, `continue`, `return`), as
        they are too, between unknown items (each pass adds them one after another); directly
        under an `if` without `else` there, each as a conditional item; anywhere else (a nested
        block) they are one unknown item."""
        current, made_in = self.built[key]
        path = self.ctx.ancestors
        index = len(path) + line
        loop = self.built_loops.get(key)
        if path[index - 1] is made_in:
            if loop is not None:
                current.append(None)  # after a loop: its last layer of each pass but the last is followed by its first
                del self.built_loops[key]
            current.extend(items)
            return
        body_of = _loop_in(path, index - 2, made_in)
        test = _condition_in(path, index, made_in)
        if body_of is None and test is None:
            body_of = _loop_in(path, index - 4, made_in)  # `if batchnorm: layers.append(bn)` in the loop's body
            test = _condition_in(path, index, body_of.body) if body_of is not None else None
        if body_of is not None:
            if loop is not body_of:
                current.append(None)  # what came before the loop is followed by its first layer in the first pass only
                self.built_loops[key] = body_of
            if test is None:
                current.extend(items)  # added one after another in every pass
                return
        known = test is not None and None not in items
        current.extend([_Conditional(item, test) for item in items if item is not None] if known else [None])  # type: ignore[arg-type]

    def visit_List(self, node: cst.List) -> None:
        parent_call = self._enclosing_call_of_argument()
        if parent_call is not None and self.ctx.qualified_name(parent_call.func) in UNORDERED_CONTAINERS:
            return
        items = _list_items(node)
        if parent_call is not None and self.ctx.qualified_name(parent_call.func) in ORDERED_DICTS:
            items = [item.elements[1].value if isinstance(item, cst.Tuple) and len(item.elements) == 2 else None for item in items]
        self._check_sequence(items, ordered=self._runs_in_order(parent_call), into=self._list_added_to(node))

    def _list_added_to(self, node: cst.List) -> Optional[Tuple[int, str]]:
        """The list the literal being visited goes into, by (scope, name): `layers = [...]`,
        `layers += [...]` or `layers.extend([...])`, also as a part of a concatenation
        (`layers = [conv, bn] + extra`), which keeps its items adjacent."""
        ancestors = self.ctx.ancestors
        index = len(ancestors) - 1
        while index > 0 and isinstance(ancestors[index], cst.BinaryOperation) and isinstance(ancestors[index].operator, cst.Add):
            index -= 1
        parent = ancestors[index] if index >= 0 else None
        target: Optional[cst.BaseExpression] = None
        if isinstance(parent, cst.AugAssign) and isinstance(parent.operator, cst.AddAssign):
            target = parent.target
        elif isinstance(parent, cst.Assign) and len(parent.targets) == 1:
            target = parent.targets[0].target
        elif isinstance(parent, cst.Arg) and index >= 1:
            found = method_call(ancestors[index - 1])
            target = found[0] if found is not None and found[1] == "extend" else None
        return (self._scope(), target.value) if isinstance(target, cst.Name) else None

    def _runs_in_order(self, parent_call: Optional[cst.Call]) -> bool:
        """Whether the list literal being visited is shown to run its layers one after
        another: spliced into `nn.Sequential(*[...])`, the `OrderedDict` of an `nn.Sequential`,
        or returned (a helper whose callers splice it). A list built step by step is judged
        where it is spliced or returned (`_arguments_items`, `visit_Return`); any other list
        (`branches = [conv, bn, nn.Identity()]` summed in `forward`) may hold parallel branches."""
        ancestors = self.ctx.ancestors
        if parent_call is None:
            return bool(ancestors) and isinstance(ancestors[-1], cst.Return)
        if self.ctx.qualified_name(parent_call.func) == SEQUENTIAL:
            return True
        outer = ancestors[-4] if len(ancestors) >= 4 and isinstance(ancestors[-3], cst.Arg) else None
        return isinstance(outer, cst.Call) and self.ctx.qualified_name(outer.func) == SEQUENTIAL

    def _enclosing_call_of_argument(self) -> Optional[cst.Call]:
        ancestors = self.ctx.ancestors
        if len(ancestors) >= 2 and isinstance(ancestors[-1], cst.Arg) and isinstance(ancestors[-2], cst.Call):
            return ancestors[-2]
        return None

    def _check_sequence(self, items: Sequence[_Item], ordered: bool = True, into: Optional[Tuple[int, str]] = None) -> None:
        """Adjacent layer pairs of a sequence; `None` items (`*rest`) break adjacency, and so
        does a conditional item that is not a norm (when it is left out, another layer follows).
        Pairs of a list not shown to run in order (`ordered` False) are judged at the end: in
        order when the list they were added to (`into`) is spliced into an `nn.Sequential` or
        returned, else reported without a fix.

        A layer given by name (`conv2d = nn.Conv2d(...)`, then `[conv2d, bn]`) is judged when
        its scope ends: every sequence it appears in must put a norm right after it.
        """
        for index, item in enumerate(items):
            value = item.layer if isinstance(item, _Conditional) else item
            layer = self._constructor(value)
            if layer is None or not self._biased(layer):
                continue
            following = items[index + 1] if index + 1 < len(items) else None
            condition = following.test if isinstance(following, _Conditional) else None
            norm = self._constructor(following.layer if isinstance(following, _Conditional) else following)
            cancelling = norm if norm is not None and self._cancels(layer, norm) else None
            scope = self.ctx.names.scopes[-1].node
            opt_in = condition is not None and only_when_switched_on(condition, self.ctx.module, scope) and not true_in_every_call(self.ctx, condition)
            if isinstance(value, cst.Name):
                use = cancelling if condition is None else None
                if use is None and self._in_branch_no_caller_takes():
                    self.untaken.add((self._scope(), value.value))
                    continue
                self.named_uses.setdefault((self._scope(), value.value), []).append(use)
                if not ordered:
                    self.unordered_names.setdefault((self._scope(), value.value), []).append(into)
            elif cancelling is not None and not opt_in and not ordered:
                self.unordered.setdefault(id(layer), (layer, cancelling, condition, into))
            elif cancelling is not None and not opt_in:
                self._report(layer, cancelling, condition=condition)

    def _in_branch_no_caller_takes(self) -> bool:
        """Whether the list being visited is built in a branch of a module-level builder that
        no call in the project takes (`else:` of `if batch_norm:` when every call passes
        `batch_norm=True`); all calls must be in this file, where their arguments are seen."""
        function = self.ctx.enclosing(cst.FunctionDef)
        if not isinstance(function, cst.FunctionDef) or function not in self.ctx.module.body:
            return False
        name = function.name.value
        here = os.path.abspath(self.ctx.path)
        if not os.path.isfile(here) or any(os.path.abspath(site.path) != here for site in callers_of(here, name)):
            return False
        calls = [call for call in self.ctx.frequency.calls_named(name) if isinstance(call.func, cst.Name)]
        return branch_no_call_takes(self.ctx.ancestors, calls)

    def _constructor(self, item: _Item) -> Optional[cst.Call]:
        if isinstance(item, cst.Name):
            return self.assigned.get((self._scope(), item.value))
        return item if isinstance(item, cst.Call) else None

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._judge_named_layers()
        self._judge_sequentials()

    def leave_Module(self, node: cst.Module) -> None:
        self._judge_named_layers()
        self._judge_sequentials()
        for layer, norm, condition, into in self.unordered.values():
            self._report(layer, norm, "" if into in self.spliced else UNORDERED, condition)

    def _judge_sequentials(self) -> None:
        """The layers added to an empty `nn.Sequential()` of the scope that ends, in order."""
        scope = self._scope()
        for key in [key for key in self.sequentials if key[0] == scope]:
            self.sequentials.discard(key)
            built = self.built.get(key)
            if built is not None:
                self._check_sequence(built[0])

    def _judge_named_layers(self) -> None:
        scope = self._scope()
        for key in [key for key in self.named_uses if key[0] == scope]:
            uses = self.named_uses.pop(key)
            layer = self.assigned.get(key)
            if layer is not None and uses[0] is not None and all(uses):
                in_order = all(into in self.spliced for into in self.unordered_names.get(key, []))
                withheld = UNORDERED if not in_order else UNTAKEN if key in self.untaken else ""
                self._report(layer, uses[0], withheld)

    def visit_Assign(self, node: cst.Assign) -> None:
        for assigned in node.targets:
            if isinstance(assigned.target, cst.Name):
                self.built.pop((self._scope(), assigned.target.value), None)
                self.built_loops.pop((self._scope(), assigned.target.value), None)
        empty = isinstance(node.value, cst.Call) and not node.value.args and isinstance(node.value.func, cst.Name) and node.value.func.value == "list" and self.ctx.names.lookup("list") is None
        sequential = isinstance(node.value, cst.Call) and not node.value.args and self.ctx.qualified_name(node.value.func) == SEQUENTIAL
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name) and (isinstance(node.value, cst.List) or empty or sequential):
            if len(self.ctx.ancestors) >= 2:
                key = (self._scope(), node.targets[0].target.value)
                self.built[key] = (_list_items(node.value) if isinstance(node.value, cst.List) else [], self.ctx.ancestors[-2])
                if sequential:
                    self.sequentials.add(key)
        target = node.targets[0].target if len(node.targets) == 1 else None
        built = _built_or_none(node.value)
        if built is not None and target is not None and _self_attribute(target) and self.classes:
            self.classes[-1].constructors[target.attr.value] = built  # type: ignore[union-attr]
            self.classes[-1].optional.add(target.attr.value)  # type: ignore[union-attr]
            return
        if target is None or not isinstance(node.value, cst.Call):
            return
        if isinstance(target, cst.Name):
            self.assigned[(self._scope(), target.value)] = node.value
        elif _self_attribute(target) and self.classes:
            self.classes[-1].constructors[target.attr.value] = node.value  # type: ignore[union-attr]

    def _scope(self) -> int:
        return id(self.ctx.names.scopes[-1].node)

    # Submodules wired in methods -----------------------------------------------------

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.classes.append(_ClassModules())

    def leave_ClassDef(self, node: cst.ClassDef) -> None:
        record = self.classes.pop()
        if "ModuleList" in self.ctx.text:
            self._judge_module_lists(node)
        for name, consumers in record.consumers.items():
            layer = record.constructors.get(name)
            if layer is None or not consumers or None in consumers:
                continue
            norms = [record.constructors.get(consumer or "") for consumer in consumers]
            if all(norm is not None and self._cancels(layer, norm) for norm in norms):
                reassigned = next((c for c in consumers if _attribute_assignments(node, c or "") > 1), None)
                optional = next((c for c in consumers if c in record.optional), None)
                withheld = f"`self.{reassigned}` is assigned more than once: it may not be a norm" if reassigned else ""
                if optional is not None:
                    withheld = f"`self.{optional}` is built or applied only under a test: the bias is needed without it"
                self._report(layer, norms[0], withheld)  # type: ignore[arg-type]

    def _judge_module_lists(self, klass: cst.ClassDef) -> None:
        """`self.bns[i](self.fcs[i](h))` in a loop over `range(n)`: the first layer of `fcs`
        feeds the norms of `bns` (`semantics.module_lists`)."""
        for first, second in indexed_pairs(klass):
            layers = module_list_layers(klass, first, self.ctx.qualified_name)
            norms = module_list_layers(klass, second, self.ctx.qualified_name)
            if layers is None or norms is None or not layers.indexed or not norms.every:
                continue
            if all(norm is not None and self._cancels(layers.indexed[0], norm) for norm in norms.every):
                self._report(layers.indexed[0], norms.every[0], INDEXED)  # type: ignore[arg-type]

    def _record_submodule_call(self, node: cst.Call) -> None:
        if not self.classes or not _self_attribute(node.func):
            return
        name = node.func.attr.value  # type: ignore[union-attr]
        self.classes[-1].consumers.setdefault(name, []).append(self._consumer_of(node))

    def _consumer_of(self, node: cst.Call) -> Optional[str]:
        """The submodule that takes this call's output as its only input, if any; as rows of
        its features (`self.bn(self.fc(x).view(-1, n))`) only for a Linear whose `n` output
        features a BatchNorm1d of `n` features normalises (see `_rows_of_features`)."""
        ancestors = self.ctx.ancestors
        parent = ancestors[-1] if ancestors else None
        viewed = len(ancestors) >= 3 and isinstance(parent, cst.Attribute) and ancestors[-2] is not None and rows_view(ancestors[-2]) is not None
        if viewed:
            parent, ancestors = ancestors[-3], ancestors[:-2]
        if isinstance(parent, cst.Arg) and len(ancestors) >= 2:
            outer = ancestors[-2]
            if isinstance(outer, cst.Call) and len(outer.args) == 1 and _self_attribute(outer.func):
                norm = outer.func.attr.value  # type: ignore[union-attr]
                return norm if not viewed or self._rows_of_features(node, norm, outer.args[0].value) else None
            return None
        if isinstance(parent, cst.Assign) and len(ancestors) >= 3 and not viewed:
            consumer = _next_statement_consumer(parent, ancestors[-2], ancestors[-3])
            if consumer is None:
                return None
            norm, taken, conditional = consumer
            if conditional and self.classes:
                self.classes[-1].optional.add(norm)
            return norm if rows_view(taken) is None or self._rows_of_features(node, norm, taken) else None
        return None

    def _rows_of_features(self, layer_call: cst.Call, norm: str, view: cst.BaseExpression) -> bool:
        """Whether `view` (`y.view(-1, n)`) keeps the features of the submodule `layer_call`
        calls in its last axis for the BatchNorm1d `self.<norm>`: the layer is a Linear, built
        before in the class with `n` written as its output features and the norm's."""
        record = self.classes[-1]
        layer = record.constructors.get(layer_call.func.attr.value) if _self_attribute(layer_call.func) else None  # type: ignore[union-attr]
        built = record.constructors.get(norm)
        rows = rows_view(view)
        if layer is None or built is None or rows is None or not self._is_linear(layer):
            return False
        outputs, features = argument(layer, "out_features", 1), argument(built, "num_features", 0)
        norm_1d = NORMS.get(self.ctx.qualified_name(built.func) or "") == 1
        return norm_1d and outputs is not None and features is not None and same_size(rows[1], outputs.value) and same_size(rows[1], features.value)

    # Shared ----------------------------------------------------------------------------

    def _layer_name(self, layer: cst.Call) -> str:
        """The torch layer `layer` builds: itself, or the one a project class wraps."""
        wrapped = self._wrapped(layer)
        return wrapped.layer if wrapped is not None else self.ctx.qualified_name(layer.func) or ""

    def _wrapped(self, layer: cst.Call) -> Optional[WrappedLayer]:
        """The biased layer a call of a project class computes alone (`ConvNorm(80, 512, 5)`
        whose `forward` returns `self.conv(x)`; `semantics.biased_layers`)."""
        if (self.ctx.qualified_name(layer.func) or "").startswith("torch."):
            return None
        facts = project_function(self.ctx, layer.func)
        return facts.wrapped_layer if facts is not None else None

    def _signature(self, layer: cst.Call) -> Optional[LayerSignature]:
        return BIASED_LAYERS.get(self._layer_name(layer))

    def _bias_argument(self, layer: cst.Call) -> Tuple[Optional[cst.Arg], bool]:
        """The argument that sets the layer's bias (None when not passed), and whether leaving
        it out keeps the bias on. For a wrapper, its bias parameter's."""
        wrapped = self._wrapped(layer)
        if wrapped is None:
            signature = self._signature(layer)
            assert signature is not None
            return argument(layer, "bias", signature.bias_position), True
        if wrapped.parameter is None:
            return None, True
        return argument(layer, wrapped.parameter, wrapped.position), wrapped.default_on

    def _biased(self, layer: cst.Call) -> bool:
        """A known layer whose bias is on: not passed, passed as a literal `True`, or passed a
        parameter that is `True` on every call the project makes (`bias=bias` in a block whose
        `bias=True` default no call changes; `passed_values.true_in_every_call`). The same for
        a wrapper's bias parameter, or a wrapper whose layer always has its bias."""
        signature = self._signature(layer)
        if signature is None or has_star(layer) or has_star(layer, "*"):
            return False
        bias, default_on = self._bias_argument(layer)
        if bias is None:
            return default_on
        return is_literal(bias.value, "True") or true_in_every_call(self.ctx, bias.value)

    def _cancels(self, layer: cst.Call, norm: cst.Call) -> bool:
        """Whether `layer` has a bias that `norm` (a batch or instance norm over the same
        channels) cancels. A Linear's features are the last axis, which an InstanceNorm1d
        normalises over per channel, not per feature: its bias survives."""
        signature = self._signature(layer)
        norm_name = self.ctx.qualified_name(norm.func) or ""
        norm_dim = NORMS.get(norm_name)
        if signature is None or norm_dim is None or (norm_dim and norm_dim != signature.dim) or not self._biased(layer):
            return False
        if norm_name in INSTANCE_NORMS and self._is_linear(layer):
            return False
        outputs = argument(layer, *signature.outputs) if self._wrapped(layer) is None else None
        features = argument(norm, "num_features", 0)
        if outputs is not None and features is not None:
            if isinstance(outputs.value, cst.Integer) and isinstance(features.value, cst.Integer):
                return outputs.value.value == features.value.value
        return True

    def _is_linear(self, layer: cst.Call) -> bool:
        return self._layer_name(layer).endswith("Linear")

    def _report(self, layer: cst.Call, norm: cst.Call, withheld: str = "", condition: Optional[cst.BaseExpression] = None) -> None:
        if id(layer) in self.reported:
            return  # seen in a list literal and again in the list it was added to
        self.reported.add(id(layer))
        if self._in_unbuilt_class(layer) or (self.ctx.inference_only and self._loads_weights):
            return  # never built, or built by a program that never trains and loads weights trained with the bias
        kind = (self.ctx.qualified_name(norm.func) or "").rsplit(".", 1)[-1]
        bias = _not(condition) if condition is not None else cst.Name("False")
        bias_text = self.ctx.module.code_for_node(bias)
        wrapped = self._wrapped(layer)
        subject = "bias" if wrapped is None else f"the bias of the {wrapped.layer.rpartition('.')[2]} that `{dotted_name(layer.func)}` wraps"
        keyword = "bias" if wrapped is None else wrapped.parameter
        advice = f"pass `{keyword}={bias_text}`" if keyword else "build it without a bias"
        if condition is None:
            message = f"{subject} is cancelled by the {kind} that follows; {advice}"
        else:
            added_when = self.ctx.module.code_for_node(condition.with_changes(lpar=[], rpar=[]))
            message = f"{subject} is cancelled by the {kind} that follows whenever `{added_when}` holds; {advice}"
        self.report(layer, message, fix=self._fix(layer, withheld, bias, condition))

    @cached_property
    def _loads_weights(self) -> bool:
        """Whether the file loads trained weights (`torch.load`, `.load_state_dict(...)`,
        Lightning's `load_from_checkpoint`); asked once per file."""
        return any(
            self.ctx.qualified_name(call.func) == "torch.load" or (isinstance(call.func, cst.Attribute) and call.func.attr.value in WEIGHT_LOADERS)
            for call in nodes_of_type(self.ctx.module, (cst.Call,))
        )

    def _in_unbuilt_class(self, layer: cst.Call) -> bool:
        """Whether the layer is built by a module-level class that nothing in the project
        builds (`semantics.instantiation`): its bias costs nothing in any run."""
        unbuilt = unbuilt_definitions(self.ctx.path, self.ctx.text)
        return bool(unbuilt) and any(
            isinstance(statement, cst.ClassDef) and statement.name.value in unbuilt and any(node is layer for node in descendants(statement))
            for statement in self.ctx.module.body
        )

    def _fix(self, layer: cst.Call, withheld: str, bias_value: cst.BaseExpression, condition: Optional[cst.BaseExpression]) -> PendingFix:
        """`bias=False` (`bias=not <condition>` for a conditional norm), unless something may
        need the bias: code that reads `.bias` (init code such as `nn.init.zeros_(m.bias)`
        would get None), a `Linear` whose output a `BatchNorm1d` may normalise over another
        axis (3-D input), a norm that may be something else, or a condition whose value may
        differ where the layer is built."""
        wrapped = self._wrapped(layer)
        if withheld:
            return self.withheld(withheld)
        if wrapped is not None and wrapped.parameter is None:
            return self.withheld(f"`{dotted_name(layer.func)}` builds its layer with a bias that no parameter turns off")
        if wrapped is not None and wrapped.reads_bias:
            return self.withheld(f"`{dotted_name(layer.func)}` reads its layer's `.bias`, which would be None")
        if _reads_bias(self.ctx.module):
            return self.withheld("the file reads `.bias`, which would be None")
        if _parameters_by_position(self.ctx.module):
            return self.withheld("the file takes a module's parameters by position (`weight, bias = conv.parameters()`): without the bias they shift")
        if _copies_state_dicts(self.ctx.module):
            return self.withheld("the file loads one module's `state_dict()` into another, strictly: one that keeps the bias would no longer load")
        if self._is_linear(layer):
            return self.withheld("on a 3-D input the BatchNorm normalises another axis than the Linear's features, which keeps the bias")
        if condition is not None and not _fixed_in_function(condition, self.ctx.names.scopes[-1].node):
            return self.withheld("the norm's condition reads more than the function's unchanged parameters")
        bias, _ = self._bias_argument(layer)
        keyword = wrapped.parameter if wrapped is not None and wrapped.parameter else "bias"
        if bias is not None and not is_literal(bias.value, "True"):
            return self.withheld("the bias comes from a parameter: change its default, or what the calls pass")
        if bias is not None and bias.keyword is None:
            fixed = layer.deep_replace(bias, bias.with_changes(value=bias_value))
        else:
            fixed = with_keyword(layer, keyword, bias_value)
        return self.fix(NodeEdit(layer, fixed), message=f"Pass `{keyword}={self.ctx.module.code_for_node(bias_value)}`")


def _loop_in(path: Sequence[cst.CSTNode], index: int, block: cst.CSTNode) -> Optional[cst.CSTNode]:
    """`path[index]`, when it is a `for` or `while` loop, a statement of `block`, that runs its
    body through (no `break`, `continue`, `return`) and whose body holds `path[index + 1]`."""
    loop = path[index] if 1 <= index < len(path) - 1 else None
    if isinstance(loop, (cst.For, cst.While)) and path[index + 1] is loop.body and path[index - 1] is block and _runs_through(loop):
        return loop
    return None


def _condition_in(path: Sequence[cst.CSTNode], index: int, block: cst.CSTNode) -> Optional[cst.BaseExpression]:
    """The test of an `if` without `else` or `elif`, a statement of `block`, whose body holds
    the statement line `path[index]` (or is the one-line suite `path[index]`); else None."""
    if isinstance(path[index], cst.SimpleStatementSuite) and index >= 2:
        branch, outer = path[index - 1], path[index - 2]
    elif index >= 3 and isinstance(path[index - 1], cst.IndentedBlock):
        branch, outer = path[index - 2], path[index - 3]
    else:
        return None
    if isinstance(branch, cst.If) and branch.orelse is None and outer is block:
        return branch.test
    return None


def _not(condition: cst.BaseExpression) -> cst.BaseExpression:
    """`not <condition>`, parenthesised unless it is a name; `not not x` is `x` (a layer's
    `bias` argument is read for its truth only)."""
    if isinstance(condition, cst.UnaryOperation) and isinstance(condition.operator, cst.Not):
        return condition.expression
    if not isinstance(condition, cst.Name) and not condition.lpar:
        condition = condition.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.UnaryOperation(cst.Not(), condition)


CONSTANT_NAMES = frozenset({"True", "False", "None"})
UNTAKEN = "the layer is also used without the norm in a branch no call of this project takes; a caller elsewhere may take it"
UNORDERED = "the list is not shown to run its layers one after another: it may hold parallel branches"
INDEXED = "the layer is an element of a `ModuleList` applied by index: its other uses are not followed"



def _fixed_in_function(condition: cst.BaseExpression, scope: cst.CSTNode) -> bool:
    """Whether `condition` has the same value everywhere in the function `scope`: it reads only
    literals and parameters the function never rebinds, and calls nothing."""
    if not isinstance(scope, cst.FunctionDef):
        return False
    params = scope.params
    parameters = {
        param.name.value
        for param in (*params.posonly_params, *params.params, *params.kwonly_params)
    }
    nodes = list(descendants(condition))
    if any(isinstance(node, (cst.Call, cst.Attribute, cst.Subscript, cst.NamedExpr, cst.Await, cst.Lambda)) for node in nodes):
        return False
    read = {node.value for node in nodes if isinstance(node, cst.Name)} - CONSTANT_NAMES
    rebound = {name for node in scope_descendants(scope.body) for name in names_bound_by(node)}
    return read <= parameters and not read & rebound


PARAMETER_LISTS = frozenset({"parameters", "named_parameters"})


def _parameter_list(node: cst.BaseExpression, names: AbstractSet[str] = frozenset()) -> bool:
    """`m.parameters()` or the values of `m.state_dict()`, or it made a list, tuple or iterator
    (`list(m.parameters())`, `[*m.parameters()]`, `iter(m.parameters())`), a name in `names`
    (assigned one of these), or an optimizer group's list (`group["params"]`)."""
    if isinstance(node, cst.Name):
        return node.value in names
    if string_key(node) == "params":
        return True
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "values":
        return _state_dict_of(node.func.value)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        return node.func.attr.value in PARAMETER_LISTS
    if isinstance(node, cst.Call) and dotted_name(node.func) in ("list", "tuple", "iter") and len(node.args) == 1:
        return _parameter_list(node.args[0].value, names)
    if isinstance(node, (cst.List, cst.Tuple)) and len(node.elements) == 1 and isinstance(node.elements[0], cst.StarredElement):
        return _parameter_list(node.elements[0].value, names)
    return False


@per_module
def _parameters_by_position(module: cst.Module) -> bool:
    """Whether the file takes parameters of a module by their position: unpacks its
    parameter list into names (`weight, bias = conv.parameters()`), indexes or slices it
    (`list(model.parameters())[1]`, `params[2:]` of `params = list(model.parameters())`,
    `opt.param_groups[0]["params"][1]`, `list(model.state_dict().values())[4]`), draws from it
    by `next` (`next(iter(model.parameters()))`, `next(params)`) or pairs it with positions
    (`zip`, `enumerate`, `itertools.islice`). Removing a bias shifts the parameters after it."""
    names = {
        name
        for node in nodes_of_type(module, (cst.Assign,))
        if isinstance(node, cst.Assign) and _parameter_list(node.value)
        for target in node.targets
        if isinstance(target.target, cst.Name)
        for name in bound_names(target.target)
    }
    for node in descendants(module):
        if isinstance(node, cst.Assign) and _parameter_list(node.value, names) and any(isinstance(t.target, (cst.Tuple, cst.List)) for t in node.targets):
            return True
        if isinstance(node, cst.Subscript) and _parameter_list(node.value, names):
            return True
        if isinstance(node, cst.Call) and _pairs_parameters(node, names):
            return True
    return False


def _pairs_parameters(call: cst.Call, names: AbstractSet[str]) -> bool:
    """A call that takes parameters by position: `next(params)`, which draws the next one,
    `zip(src.parameters(), dst.parameters())`,
    which copies a reference's weights one by one, `zip(model.parameters(), lrs)`,
    `enumerate(model.parameters())`, `itertools.islice(model.parameters(), 1, 3)`, or
    `vector_to_parameters(vec, model.parameters())`, which fills them from a flat vector in
    order."""
    lists = sum(_parameter_list(arg.value, names) for arg in call.args)
    name = (dotted_name(call.func) or "").rpartition(".")[2]
    if name == "next":
        return lists >= 1
    if name == "zip":
        return lists >= 1 and len(call.args) >= 2
    return name in ("vector_to_parameters", "enumerate", "islice") and lists >= 1


@per_module
def _reads_bias(module: cst.Module) -> bool:
    """`m.bias` anywhere but under a `m.bias is not None` check, a class pattern capturing it
    (`case nn.Conv2d(bias=b):`), the module's own parameter dict (`m._parameters.values()`,
    which holds the bias), or a string naming a bias
    (`getattr(m, "bias")`, a state-dict key such as `"conv.bias"`); also such a check with an
    `else` or `elif` branch, whose code runs for the layer once the fix removes its bias
    (`else: print("conv without bias")`)."""
    guarded = set()
    for node in nodes_of_type(module, (cst.If,)):
        if isinstance(node, cst.If) and any(_checks_bias(item) for item in descendants(node.test)):
            if node.orelse is not None:
                return True
            guarded |= {id(item) for part in (node.test, node.body) for item in descendants(part)}
    for node in descendants(module):
        if id(node) in guarded:
            continue
        if isinstance(node, cst.Attribute) and node.attr.value in ("bias", "_parameters"):
            return True
        if isinstance(node, cst.MatchKeywordElement) and node.key.value == "bias":
            return True
        text = string_value(node) if isinstance(node, cst.SimpleString) else _concatenated_value(node)
        if text is not None and (text == "bias" or text.endswith(".bias")):
            return True
    return False


@per_module
def _copies_state_dicts(module: cst.Module) -> bool:
    """A strict `load_state_dict` of a state not shown to be the receiver's own: another
    module's `state_dict()` (`conv.load_state_dict(pretrained.state_dict())`, also through a
    name bound to it), or a checkpoint the file did not write, or wrote with `torch.save` from a
    module not built by the same expression as the receiver (`torch.save(teacher.state_dict(),
    buf)`, then `student.load_state_dict(torch.load(buf))`): the two may differ in a bias."""
    copied = {
        name
        for node in nodes_of_type(module, (cst.Assign,))
        if isinstance(node, cst.Assign) and _state_dict_of(node.value)
        for target in node.targets
        for name in bound_names(target.target)
    }
    saved = _saved_state_owners(module)
    builders = _builders(module)
    for node in nodes_of_type(module, (cst.Call,)):
        found = method_call(node)
        if found is None or found[1] != "load_state_dict" or not node.args:  # type: ignore[union-attr]
            continue
        strict = argument(node, "strict", 1)  # type: ignore[arg-type]
        if strict is not None and is_literal(strict.value, "False"):
            continue
        source = node.args[0].value  # type: ignore[union-attr]
        if _state_dict_of(source) or (isinstance(source, cst.Name) and source.value in copied):
            return True
        receiver = dotted_name(found[0])
        if not saved or not all(_built_alike(owner, receiver, builders) for owner in saved):
            return True
    return False


def _built_alike(first: Optional[str], second: Optional[str], builders: Dict[str, Optional[str]]) -> bool:
    """Whether two dotted names hold the same model, or models built by the same code."""
    if first is None or second is None:
        return False
    built = builders.get(first)
    return first == second or (built is not None and built == builders.get(second))


def _saved_state_owners(module: cst.Module) -> List[Optional[str]]:
    """The modules whose `state_dict()` the file writes with `torch.save` (dotted names, None
    when not a name)."""
    return [
        dotted_name(found[0])
        for node in nodes_of_type(module, (cst.Call,))
        if isinstance(node, cst.Call) and (dotted_name(node.func) or "").rpartition(".")[2] == "save" and node.args
        for item in descendants(node.args[0].value)
        for found in [method_call(item)]
        if found is not None and found[1] == "state_dict"
    ]


def _builders(module: cst.Module) -> Dict[str, Optional[str]]:
    """For each name the file assigns a call to, the call's code (None when assigned more than
    once): two names built by the same code are models built alike."""
    built: Dict[str, Optional[str]] = {}
    for node in nodes_of_type(module, (cst.Assign,)):
        if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
            name = node.targets[0].target.value
            code = module.code_for_node(node.value) if isinstance(node.value, cst.Call) else None
            built[name] = code if name not in built else None
    return built


def _state_dict_of(expression: cst.BaseExpression) -> bool:
    """Whether `expression` reads a module's `state_dict()`."""
    return any((method_call(item) or (None, ""))[1] == "state_dict" for item in [expression, *descendants(expression)])


def _checks_bias(node: cst.CSTNode) -> bool:
    """`x.bias is not None`."""
    return (
        isinstance(node, cst.Comparison)
        and isinstance(node.left, cst.Attribute)
        and node.left.attr.value == "bias"
        and len(node.comparisons) == 1
        and isinstance(node.comparisons[0].operator, cst.IsNot)
        and is_literal(node.comparisons[0].comparator, "None")
    )


def _attribute_assignments(klass: cst.ClassDef, attribute: str) -> int:
    """How many assignments to `self.<attribute>` the class makes."""
    return sum(
        1
        for node in descendants(klass)
        if isinstance(node, cst.AssignTarget) and _self_attribute(node.target) and node.target.attr.value == attribute  # type: ignore[union-attr]
    )


def _runs_through(loop: Union[cst.For, cst.While]) -> bool:
    """Whether every pass of the loop runs its whole body: no `break`, `continue` or `return`
    in it (outside nested functions), and no `else` clause."""
    return loop.orelse is None and not any(
        isinstance(node, (cst.Break, cst.Continue, cst.Return)) for node in scope_descendants(loop.body)
    )


def _list_items(node: cst.List) -> List[Optional[cst.BaseExpression]]:
    """The items of a list literal, None for a `*starred` one."""
    return [None if isinstance(element, cst.StarredElement) else element.value for element in node.elements]


def _self_attribute(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self"


def _next_statement_consumer(assign: cst.Assign, line: cst.CSTNode, block: cst.CSTNode) -> Optional[Tuple[str, cst.BaseExpression, bool]]:
    """For `v = self.a(...)`, the submodule `b` when the next statement is `v = self.b(v)`
    (or `w = self.b(v)` with `v` not used again in the block, or `self.b(v.view(-1, n))`),
    with what it takes and whether it runs only under a test: also when that statement is the
    whole first branch of an `if` that follows (`if self.bn: v = self.bn(v)`, `if
    self.activation == "relu": v = F.relu(self.bn(v))`)."""
    if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
        return None
    body = getattr(block, "body", ())
    index = next((i for i, statement in enumerate(body) if statement is line), None) if isinstance(body, (list, tuple)) else None
    variable = assign.targets[0].target.value
    call = next_consumer(body, index, variable) if index is not None else None
    conditional = False
    following = body[index + 1] if index is not None and index + 1 < len(body) else None
    if call is None and isinstance(following, cst.If) and len(following.body.body) == 1:
        branch = following.body.body[0]
        rebinds = isinstance(branch, cst.SimpleStatementLine) and isinstance(branch.body[0], cst.Assign)
        call, conditional = (next_consumer([branch], -1, variable) if rebinds else None), True
    if call is None or not _self_attribute(call.func):
        return None
    return call.func.attr.value, call.args[0].value, conditional  # type: ignore[union-attr]


def _built_or_none(value: cst.BaseExpression) -> Optional[cst.Call]:
    """The layer of `Layer(...) if flag else None` (either way round), else None."""
    if not isinstance(value, cst.IfExp):
        return None
    for built, other in ((value.body, value.orelse), (value.orelse, value.body)):
        if isinstance(built, cst.Call) and isinstance(other, cst.Name) and other.value == "None":
            return built
    return None


def _concatenated_value(node: cst.CSTNode) -> Optional[str]:
    """The value of adjacent string literals (`"bi" "as"`), else None."""
    if isinstance(node, cst.ConcatenatedString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None
