"""Layers that add a per-channel bias (`nn.Conv2d`, `nn.Linear`, ...), and project classes
that only wrap one (`ConvNorm`: `__init__` builds `self.conv = nn.Conv1d(..., bias=bias)`,
`forward` ends in `return self.conv(x)`), so that a call of the class stands for the layer."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from torchlint.semantics.pyast import ast_argument, ast_dotted, ast_qualified, ast_walk


@dataclass(frozen=True)
class LayerSignature:
    """Where a layer constructor takes its output size and its bias, and the BatchNorm
    dimensionality its output feeds."""

    dim: int
    outputs: Tuple[str, int]
    bias_position: int


def _layers() -> Dict[str, LayerSignature]:
    table = {
        "torch.nn.Linear": LayerSignature(1, ("out_features", 1), 2),
        "torch.nn.LazyLinear": LayerSignature(1, ("out_features", 0), 1),
    }
    for dim in (1, 2, 3):
        # Conv(in, out, kernel, stride, padding, dilation, groups, bias); ConvTranspose has
        # output_padding where Conv has dilation; the Lazy variants have no `in_channels`.
        for name in ("Conv", "ConvTranspose"):
            table[f"torch.nn.{name}{dim}d"] = LayerSignature(dim, ("out_channels", 1), 7)
            table[f"torch.nn.Lazy{name}{dim}d"] = LayerSignature(dim, ("out_channels", 0), 6)
    return table


BIASED_LAYERS = _layers()


@dataclass(frozen=True)
class WrappedLayer:
    """A class whose instances compute exactly one biased layer's output.

    `layer`: the layer's qualified name. `parameter`: the constructor parameter the layer's
    `bias=` takes (with its position after `self`), or None when the layer always has its
    bias. `default_on`: that parameter defaults to `True`. `reads_bias`: the class's code
    reads a `.bias` or names one in a string (it would break without the bias)."""

    layer: str
    parameter: Optional[str]
    position: int
    default_on: bool
    reads_bias: bool


def wrapped_layer(node: ast.ClassDef, aliases: Dict[str, str]) -> Optional[WrappedLayer]:
    """The layer `node` wraps: its own `forward(self, x)` returns `self.<a>(x)`, directly or
    through one name, and its own `__init__` assigns `self.<a>` once, to a biased layer whose
    bias is on or comes from a constructor parameter. None for any other class (an activation
    or a second layer after the layer, a bias from any other expression)."""
    methods = {item.name: item for item in node.body if isinstance(item, ast.FunctionDef)}
    init, forward = methods.get("__init__"), methods.get("forward")
    if init is None or forward is None:
        return None
    attribute = _forwarded_attribute(forward)
    if attribute is None:
        return None
    built = [item for item in ast_walk(node) if isinstance(item, (ast.Assign, ast.AnnAssign)) and attribute in _self_targets(item)]
    if len(built) != 1 or not isinstance(built[0].value, ast.Call) or not any(item is built[0] for item in ast_walk(init)):
        return None
    layer = built[0].value
    name = ast_qualified(layer.func, aliases) or ""
    signature = BIASED_LAYERS.get(name)
    if signature is None or any(isinstance(arg, ast.Starred) for arg in layer.args) or any(k.arg is None for k in layer.keywords):
        return None
    bias = ast_argument(layer, "bias", signature.bias_position)
    reads = _reads_bias(node)
    if bias is None or (isinstance(bias, ast.Constant) and bias.value is True):
        return WrappedLayer(name, None, -1, True, reads)
    parameters = [a.arg for a in (*init.args.posonlyargs, *init.args.args)][1:]
    if not isinstance(bias, ast.Name) or bias.id not in parameters or _rebinds(init, bias.id):
        return None
    defaults = dict(zip(reversed(parameters), reversed(init.args.defaults)))
    default = defaults.get(bias.id)
    on = isinstance(default, ast.Constant) and default.value is True
    return WrappedLayer(name, bias.id, parameters.index(bias.id), on, reads)


def _forwarded_attribute(forward: ast.FunctionDef) -> Optional[str]:
    """`a` when `forward` ends in `return self.a(<input>)`, or in `y = self.a(<input>)` then
    `return y`, and returns nowhere else: the class's output is the layer's, whatever it did
    to the input first (`inputs = F.pad(inputs, ...)`)."""
    body: List[ast.stmt] = [s for s in forward.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    returned = body[-1].value if body and isinstance(body[-1], ast.Return) else None
    if returned is None or sum(isinstance(item, ast.Return) for item in ast_walk(forward)) != 1:
        return None
    if isinstance(returned, ast.Name):
        before = body[-2] if len(body) >= 2 else None
        if not (isinstance(before, ast.Assign) and len(before.targets) == 1):
            return None
        target = before.targets[0]
        if not (isinstance(target, ast.Name) and target.id == returned.id):
            return None
        returned = before.value
    if not (isinstance(returned, ast.Call) and len(returned.args) == 1 and not returned.keywords):
        return None
    func = returned.func
    if isinstance(returned.args[0], ast.Starred) or not isinstance(func, ast.Attribute) or ast_dotted(func.value) != "self":
        return None
    return None if any(func.attr in _self_targets(item) for item in ast_walk(forward) if isinstance(item, (ast.Assign, ast.AnnAssign))) else func.attr


def _self_targets(statement: ast.AST) -> List[str]:
    targets = statement.targets if isinstance(statement, ast.Assign) else [getattr(statement, "target")]
    return [t.attr for target in targets for t in ast_walk(target) if isinstance(t, ast.Attribute) and ast_dotted(t.value) == "self"]


def _rebinds(function: ast.FunctionDef, name: str) -> bool:
    return any(isinstance(item, ast.Name) and item.id == name and isinstance(item.ctx, ast.Store) for item in ast_walk(function))


def _reads_bias(node: ast.ClassDef) -> bool:
    return any(
        (isinstance(item, ast.Attribute) and item.attr == "bias")
        or (isinstance(item, ast.Constant) and isinstance(item.value, str) and item.value.rpartition(".")[2] == "bias")
        for item in ast_walk(node)
    )
