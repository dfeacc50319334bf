from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Set, Tuple

import libcst as cst

from torchlint.engine.findings import Applicability
from torchlint.engine.rule import NodeEdit, PendingFix, Rule
from torchlint.semantics.values import string_value
from torchlint.semantics.calls import argument, has_star, is_literal, with_keyword
from torchlint.semantics.tree import descendants

@dataclass(frozen=True)
class _LayerSignature:
    """Where a layer constructor takes its output size and its bias, and the BatchNorm
    dimensionality its output feeds."""

    dim: int
    outputs: Tuple[str, int]
    bias_position: int


def _layers() -> Dict[str, _LayerSignature]:
    table = {
        "torch.nn.Linear": _LayerSignature(1, ("out_features", 1), 2),
        "torch.nn.LazyLinear": _LayerSignature(1, ("out_features", 0), 1),
    }
    for dim in (1, 2, 3):
        # Conv(in, out, kernel, stride, padding, dilation, groups, bias); ConvTranspose has
        # output_padding where Conv has dilation; the Lazy variants have no `in_channels`.
        for name in ("Conv", "ConvTranspose"):
            table[f"torch.nn.{name}{dim}d"] = _LayerSignature(dim, ("out_channels", 1), 7)
            table[f"torch.nn.Lazy{name}{dim}d"] = _LayerSignature(dim, ("out_channels", 0), 6)
    return table


BIASED_LAYERS = _layers()
NORMS = {
    "torch.nn.BatchNorm1d": 1,
    "torch.nn.BatchNorm2d": 2,
    "torch.nn.BatchNorm3d": 3,
    "torch.nn.LazyBatchNorm1d": 1,
    "torch.nn.LazyBatchNorm2d": 2,
    "torch.nn.LazyBatchNorm3d": 3,
    "torch.nn.SyncBatchNorm": 0,
}
SEQUENTIAL = "torch.nn.Sequential"
UNORDERED_CONTAINERS = frozenset({"torch.nn.ModuleList", "torch.nn.ModuleDict", "torch.nn.ParameterList"})
ORDERED_DICTS = frozenset({"collections.OrderedDict", "typing.OrderedDict"})


@dataclass
class _ClassModules:
    """Submodules assigned as `self.<name> = Layer(...)` and how each one's output is consumed."""

    constructors: Dict[str, cst.Call] = field(default_factory=dict)
    # For each submodule called in the class, the submodule that consumes each call's output
    # directly (None when the output goes anywhere else).
    consumers: Dict[str, List[Optional[str]]] = field(default_factory=dict)


class ConvBiasBeforeBn(Rule):
    """## What it does
    Flags a convolution (`nn.Conv1d/2d/3d`, `nn.ConvTranspose*d`) or `nn.Linear` with its bias
    enabled (the default) whose output goes straight into a BatchNorm (`nn.BatchNorm1d/2d/3d`,
    `nn.SyncBatchNorm`).

    ## Why is this slow?
    BatchNorm subtracts the per-channel mean of its input, so a per-channel bias added just
    before it is cancelled exactly: in training mode the output is identical with or without
    it, and the running statistics absorb it in eval mode. The bias still costs parameters,
    optimizer state, memory traffic and an extra add per element, and its gradient is zero.

    Detected in adjacent items of `nn.Sequential(...)` (positional or an `OrderedDict`), list
    literals of layers (`layers += [conv, nn.BatchNorm2d(c), nn.ReLU()]`), lists built by
    `layers.append(...)`/`.extend(...)` and then passed as `nn.Sequential(*layers)` (adjacent
    in the final list; anything added under a condition or in a loop counts as unknown and
    breaks adjacency), and submodules
    wired in a module's methods as `self.bn(self.conv(x))` or `x = self.conv(x); x = self.bn(x)`,
    when every call of the convolution feeds the BatchNorm. Silent when anything (an
    activation, pooling, dropout) sits between the two, when `bias=False` is passed, when
    `**kwargs` may pass it, or when the channel counts are literals that differ.

    ## Example
    ```python
    block = nn.Sequential(nn.Conv2d(64, 128, 3, padding=1), nn.BatchNorm2d(128), nn.ReLU())
    ```

    ## Use instead
    ```python
    block = nn.Sequential(nn.Conv2d(64, 128, 3, padding=1, bias=False), nn.BatchNorm2d(128), nn.ReLU())
    ```

    ## Fix applicability
    Unsafe: removing the bias removes `bias` from the module's state dict, so checkpoints saved
    before the change no longer load with `strict=True`, and a conv built without a bias
    draws fewer random numbers, so later random values change. The fix passes `bias=False`
    (or turns `bias=True` into `bias=False`). No fix when the file reads `.bias` other than
    under an `if m.bias is not None:` check (`nn.init.zeros_(m.bias)` would get None) or names
    a bias in a string (`getattr(m, "bias")`, a state-dict key); when the BatchNorm attribute
    is assigned more than once (it may be an `nn.Identity`); and for a `Linear`, whose
    3-D output a BatchNorm normalises over another axis than its features, keeping the bias.

    ## Measured precision
    stable. 1.00 on both halves (47/0 dev, 5/0 held out). See docs/precision.md.
    """

    code = "TL301"
    impact = "low"
    name = "conv-bias-before-bn"
    summary = "Convolution or Linear bias right before BatchNorm is cancelled by it"
    triggers = ("BatchNorm",)
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
        self.named_uses: Dict[Tuple[int, str], List[bool]] = {}
        # Lists of layers built step by step (`layers = []; layers.append(conv)`), by (scope,
        # name): the items so far (None where unknown) and the block the list was made in.
        self.built: Dict[Tuple[int, str], Tuple[List[Optional[cst.BaseExpression]], cst.CSTNode]] = {}
        self.reported: Set[int] = set()

    # Sequences of layers -------------------------------------------------------------

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.ctx.qualified_name(node.func)
        if qualified == SEQUENTIAL:
            layers = [None if arg.star else arg.value for arg in node.args if arg.keyword is None]
            if len(layers) == 1 and isinstance(layers[0], cst.Call) and self.ctx.qualified_name(layers[0].func) in ORDERED_DICTS:
                return  # the OrderedDict's list literal is checked by visit_List
            if len(node.args) == 1 and node.args[0].star == "*" and isinstance(node.args[0].value, cst.Name):
                built = self.built.get((self._scope(), node.args[0].value.value))
                if built is not None:
                    self._check_sequence(built[0])
                return
            self._check_sequence(layers)
        self._record_submodule_call(node)
        self._record_list_call(node)

    # Lists built step by step ---------------------------------------------------------

    def _record_list_call(self, node: cst.Call) -> None:
        """`layers.append(x)` / `layers.extend([...])` on a list being built; any other method
        call on it (`insert`, `pop`, ...) makes its order unknown."""
        func = node.func
        if not isinstance(func, cst.Attribute) or not isinstance(func.value, cst.Name):
            return
        key = (self._scope(), func.value.value)
        if key not in self.built:
            return
        args = [arg.value for arg in node.args if arg.keyword is None and not arg.star]
        method = func.attr.value
        statement_call = len(self.ctx.ancestors) >= 3 and isinstance(self.ctx.ancestors[-1], cst.Expr)
        if method == "append" and len(args) == len(node.args) == 1 and statement_call:
            self._extend_built(key, args, self.ctx.ancestors[-3])
        elif method == "extend" and len(args) == len(node.args) == 1 and isinstance(args[0], cst.List) and statement_call:
            self._extend_built(key, _list_items(args[0]), self.ctx.ancestors[-3])
        else:
            del self.built[key]

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name) and (self._scope(), node.target.value) in self.built:
            key = (self._scope(), node.target.value)
            if isinstance(node.operator, cst.AddAssign) and isinstance(node.value, cst.List) and len(self.ctx.ancestors) >= 2:
                self._extend_built(key, _list_items(node.value), self.ctx.ancestors[-2])
            else:
                del self.built[key]

    def _extend_built(self, key: Tuple[int, str], items: List[Optional[cst.BaseExpression]], block: cst.CSTNode) -> None:
        """Add items to a list being built; added in another block (under a condition, in a
        loop), they are only one unknown item."""
        current, made_in = self.built[key]
        current.extend(items if block is made_in else [None])

    def visit_List(self, node: cst.List) -> None:
        parent_call = self._enclosing_call_of_argument()
        if parent_call is not None and self.ctx.qualified_name(parent_call.func) in UNORDERED_CONTAINERS:
            return
        items = _list_items(node)
        if parent_call is not None and self.ctx.qualified_name(parent_call.func) in ORDERED_DICTS:
            items = [item.elements[1].value if isinstance(item, cst.Tuple) and len(item.elements) == 2 else None for item in items]
        self._check_sequence(items)

    def _enclosing_call_of_argument(self) -> Optional[cst.Call]:
        ancestors = self.ctx.ancestors
        if len(ancestors) >= 2 and isinstance(ancestors[-1], cst.Arg) and isinstance(ancestors[-2], cst.Call):
            return ancestors[-2]
        return None

    def _check_sequence(self, items: Sequence[Optional[cst.BaseExpression]]) -> None:
        """Adjacent layer pairs of a sequence; `None` items (`*rest`) break adjacency.

        A layer given by name (`conv2d = nn.Conv2d(...)`, then `[conv2d, bn]`) is judged when
        its scope ends: every sequence it appears in must put a BatchNorm right after it.
        """
        layers = [self._constructor(item) for item in items]
        for index, (item, layer) in enumerate(zip(items, layers)):
            if layer is None or not self._biased(layer):
                continue
            following = layers[index + 1] if index + 1 < len(layers) else None
            cancelled = following is not None and self._cancels(layer, following)
            if isinstance(item, cst.Name):
                self.named_uses.setdefault((self._scope(), item.value), []).append(cancelled)
            elif cancelled:
                self._report(layer)

    def _constructor(self, item: Optional[cst.BaseExpression]) -> Optional[cst.Call]:
        if isinstance(item, cst.Name):
            return self.assigned.get((self._scope(), item.value))
        return item if isinstance(item, cst.Call) else None

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._judge_named_layers()

    def leave_Module(self, node: cst.Module) -> None:
        self._judge_named_layers()

    def _judge_named_layers(self) -> None:
        scope = self._scope()
        for key in [key for key in self.named_uses if key[0] == scope]:
            uses = self.named_uses.pop(key)
            layer = self.assigned.get(key)
            if layer is not None and all(uses):
                self._report(layer)

    def visit_Assign(self, node: cst.Assign) -> None:
        for assigned in node.targets:
            if isinstance(assigned.target, cst.Name):
                self.built.pop((self._scope(), assigned.target.value), None)
        if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name) and isinstance(node.value, cst.List):
            if len(self.ctx.ancestors) >= 2:
                key = (self._scope(), node.targets[0].target.value)
                self.built[key] = (_list_items(node.value), self.ctx.ancestors[-2])
        if len(node.targets) != 1 or not isinstance(node.value, cst.Call):
            return
        target = node.targets[0].target
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
        for name, consumers in record.consumers.items():
            layer = record.constructors.get(name)
            if layer is None or not consumers or None in consumers:
                continue
            norms = [record.constructors.get(consumer or "") for consumer in consumers]
            if all(norm is not None and self._cancels(layer, norm) for norm in norms):
                reassigned = next((c for c in consumers if _attribute_assignments(node, c or "") > 1), None)
                self._report(layer, f"`self.{reassigned}` is assigned more than once: it may not be a BatchNorm" if reassigned else "")

    def _record_submodule_call(self, node: cst.Call) -> None:
        if not self.classes or not _self_attribute(node.func):
            return
        name = node.func.attr.value  # type: ignore[union-attr]
        self.classes[-1].consumers.setdefault(name, []).append(self._consumer_of(node))

    def _consumer_of(self, node: cst.Call) -> Optional[str]:
        """The submodule that takes this call's output as its only input, if any."""
        ancestors = self.ctx.ancestors
        parent = ancestors[-1] if ancestors else None
        if isinstance(parent, cst.Arg) and len(ancestors) >= 2:
            outer = ancestors[-2]
            if isinstance(outer, cst.Call) and len(outer.args) == 1 and _self_attribute(outer.func):
                return outer.func.attr.value  # type: ignore[union-attr]
            return None
        if isinstance(parent, cst.Assign) and len(ancestors) >= 3:
            return _next_statement_consumer(parent, ancestors[-2], ancestors[-3])
        return None

    # Shared ----------------------------------------------------------------------------

    def _signature(self, layer: cst.Call) -> Optional[_LayerSignature]:
        return BIASED_LAYERS.get(self.ctx.qualified_name(layer.func) or "")

    def _biased(self, layer: cst.Call) -> bool:
        """A known layer whose bias is on: not passed, or passed as a literal `True`."""
        signature = self._signature(layer)
        if signature is None or has_star(layer) or has_star(layer, "*"):
            return False
        bias = argument(layer, "bias", signature.bias_position)
        return bias is None or is_literal(bias.value, "True")

    def _cancels(self, layer: cst.Call, norm: cst.Call) -> bool:
        """Whether `layer` has a bias that `norm` (a BatchNorm over the same channels) cancels."""
        signature = self._signature(layer)
        norm_dim = NORMS.get(self.ctx.qualified_name(norm.func) or "")
        if signature is None or norm_dim is None or (norm_dim and norm_dim != signature.dim) or not self._biased(layer):
            return False
        outputs = argument(layer, *signature.outputs)
        features = argument(norm, "num_features", 0)
        if outputs is not None and features is not None:
            if isinstance(outputs.value, cst.Integer) and isinstance(features.value, cst.Integer):
                return outputs.value.value == features.value.value
        return True

    def _report(self, layer: cst.Call, withheld: str = "") -> None:
        if id(layer) in self.reported:
            return  # seen in a list literal and again in the list it was added to
        self.reported.add(id(layer))
        self.report(layer, "bias is cancelled by the BatchNorm that follows; pass `bias=False`", fix=self._fix(layer, withheld))

    def _fix(self, layer: cst.Call, withheld: str) -> PendingFix:
        """`bias=False`, unless something may need the bias: code that reads `.bias` (init
        code such as `nn.init.zeros_(m.bias)` would get None), a `Linear` whose output a
        `BatchNorm1d` may normalise over another axis (3-D input), or a norm that may be
        something else."""
        signature = self._signature(layer)
        assert signature is not None
        if withheld:
            return self.withheld(withheld)
        if _reads_bias(self.ctx.module):
            return self.withheld("the file reads `.bias`, which would be None")
        if (self.ctx.qualified_name(layer.func) or "").endswith("Linear"):
            return self.withheld("on a 3-D input the BatchNorm normalises another axis than the Linear's features, which keeps the bias")
        bias = argument(layer, "bias", signature.bias_position)
        false = cst.Name("False")
        if bias is not None and bias.keyword is None:
            fixed = layer.deep_replace(bias, bias.with_changes(value=false))
        else:
            fixed = with_keyword(layer, "bias", false)
        return self.fix(NodeEdit(layer, fixed), message="Pass `bias=False`")


def _reads_bias(module: cst.Module) -> bool:
    """`m.bias` anywhere but under a `m.bias is not None` check, or a string naming a bias
    (`getattr(m, "bias")`, a state-dict key such as `"conv.bias"`)."""
    guarded = set()
    for node in descendants(module):
        if isinstance(node, cst.If) and any(_checks_bias(item) for item in descendants(node.test)):
            guarded |= {id(item) for part in (node.test, node.body) for item in descendants(part)}
    for node in descendants(module):
        if isinstance(node, cst.Attribute) and node.attr.value == "bias" and id(node) not in guarded:
            return True
        text = string_value(node) if isinstance(node, cst.SimpleString) else None
        if text is not None and (text == "bias" or text.endswith(".bias")):
            return True
    return False


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


def _list_items(node: cst.List) -> List[Optional[cst.BaseExpression]]:
    """The items of a list literal, None for a `*starred` one."""
    return [None if isinstance(element, cst.StarredElement) else element.value for element in node.elements]


def _self_attribute(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self"


def _next_statement_consumer(assign: cst.Assign, line: cst.CSTNode, block: cst.CSTNode) -> Optional[str]:
    """For `v = self.a(...)`, the submodule `b` when the next statement is `v = self.b(v)`
    (or `w = self.b(v)` with `v` not used again in the block)."""
    if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
        return None
    variable = assign.targets[0].target.value
    body = getattr(block, "body", ())
    index = next((i for i, statement in enumerate(body) if statement is line), None) if isinstance(body, (list, tuple)) else None
    if index is None:
        return None
    if index + 1 >= len(body):
        return None
    following = body[index + 1]
    if not isinstance(following, cst.SimpleStatementLine) or len(following.body) != 1:
        return None
    statement = following.body[0]
    if not isinstance(statement, (cst.Assign, cst.Return)) or not isinstance(statement.value, cst.Call):
        return None
    call = statement.value
    if len(call.args) != 1 or not isinstance(call.args[0].value, cst.Name) or call.args[0].value.value != variable:
        return None
    if not _self_attribute(call.func):
        return None
    rebinds = isinstance(statement, cst.Assign) and any(
        isinstance(t.target, cst.Name) and t.target.value == variable for t in statement.targets
    )
    if not rebinds and not isinstance(statement, cst.Return) and _mentions(body[index + 2 :], variable):
        return None
    return call.func.attr.value  # type: ignore[union-attr]


def _mentions(statements: Sequence[cst.CSTNode], name: str) -> bool:
    return any(
        isinstance(node, cst.Name) and node.value == name for statement in statements for node in descendants(statement)
    )
