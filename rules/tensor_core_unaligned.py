from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from typing import Dict, List, Optional, Set, Tuple

import libcst as cst

from torchlint.engine.rule import Rule
from torchlint.semantics.calls import argument, has_star, is_literal
from torchlint.semantics.names import dotted_name
from torchlint.semantics.project import AUTOCAST, project_uses
from torchlint.semantics.tree import bound_names, nodes_of_type

# Tensor cores read 16-byte-aligned tiles: 8 elements of float16/bfloat16.
ALIGNMENT = 8
# Below these a layer's GEMMs are bound by memory and launch latency, not by tensor-core
# throughput, and their alignment does not show: an unaligned size under 64 (an output of 1,
# 3 input channels, 10 classes), a layer with fewer weights than a 512x512 matrix, or, when
# the layer's other size is not a literal, an unaligned size below vocabulary scale.
SMALLEST_SIZE = 64
SMALLEST_WEIGHTS = 512 * 512
SMALLEST_UNPAIRED = 4096


@dataclass(frozen=True)
class _Layer:
    """Where a layer constructor takes the sizes of its GEMMs, its kernel and its groups."""

    sizes: Tuple[Tuple[str, int], Tuple[str, int]]
    kernel: Optional[Tuple[str, int]] = None
    groups: Optional[Tuple[str, int]] = None


def _layers() -> Dict[str, _Layer]:
    table = {"torch.nn.Linear": _Layer((("in_features", 0), ("out_features", 1)))}
    for dim in (1, 2, 3):
        # Conv(in, out, kernel, stride, padding, dilation, groups); ConvTranspose has
        # output_padding where Conv has dilation.
        for name in ("Conv", "ConvTranspose"):
            table[f"torch.nn.{name}{dim}d"] = _Layer((("in_channels", 0), ("out_channels", 1)), ("kernel_size", 2), ("groups", 6))
    return table


LAYERS = _layers()
EMBEDDING = "torch.nn.Embedding"
EMBEDDING_SIZES = (("num_embeddings", 0), ("embedding_dim", 1))
# Calls through which an embedding's weight becomes the output projection of a tied model.
PROJECTIONS = frozenset({"torch.nn.functional.linear", "torch.matmul", "torch.mm"})


class TensorCoreUnaligned(Rule):
    """## What it does
    Flags `nn.Linear` and convolution (`nn.Conv1d/2d/3d`, `nn.ConvTranspose1d/2d/3d`) sizes that
    are not a multiple of 8, given as integer literals or as names assigned one integer literal
    once in the file (`VOCAB_SIZE = 50257`), in a model that runs in mixed precision: the file,
    a project module it imports, or a project module that imports it (the training script of a
    model file) uses `autocast` or converts with `.half()`/`.bfloat16()`. An `nn.Embedding`
    is flagged for its number of embeddings when its weight is also the model's output
    projection (`F.linear(x, self.embed.weight)`, `x @ self.wte.weight.T`).

    ## Why is this slow?
    Tensor cores multiply tiles whose rows are 16 bytes wide, 8 elements of float16 or
    bfloat16. NVIDIA's Deep Learning Performance guides ask for the input and output features
    of linear layers and the channels of convolutions to be multiples of 8 in 16-bit
    precision (16 for int8). Since cuBLAS 11 and cuDNN 7.6.3 the tensor cores are used either
    way, but an unaligned size forces kernels with narrower memory accesses, and the GEMMs
    of the layer (forward, and both of backward) run at a fraction of the aligned speed. The
    best-known case is a language model's vocabulary: nanoGPT pads GPT-2's 50257 tokens to
    50304, a multiple of 64, "for efficiency", and Megatron pads every vocabulary to a
    multiple of 128 by default.

    Small layers are not reported, because their GEMMs are limited by memory traffic and
    launch latency rather than by tensor-core throughput: an unaligned size below 64 (an
    output of 1, the 3 input channels of an RGB image, 10 classes), a layer with fewer
    weights than a 512x512 matrix (a 512-to-100 classifier head), and, when the layer's other
    size is not a literal, an unaligned size below 4096. Grouped and depthwise convolutions
    (`groups=` other than 1) are not reported. A size computed from data (`len(vocab)`) is
    not a literal and is not reported: the vocabulary may happen to be aligned. Models that
    never run in reduced precision, and test code, are not reported.

    ## Example
    ```python
    VOCAB_SIZE = 50257

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.lm_head = nn.Linear(768, VOCAB_SIZE, bias=False)
    ```

    ## Use instead
    ```python
    VOCAB_SIZE = 50257
    PADDED_VOCAB_SIZE = 50304  # a multiple of 64; the extra logits are never targets

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.lm_head = nn.Linear(768, PADDED_VOCAB_SIZE, bias=False)
    ```
    Padding outputs adds classes that no target uses; slice them off (`logits[...,
    :VOCAB_SIZE]`) where the exact distribution matters, as in sampling.

    ## Fix applicability
    None: padding changes the shapes of the weights (checkpoints no longer load) and the
    outputs the rest of the program sees.

    ## Measured precision
    preview: no finding on either half of the real-code benchmark (the models there that run
    in mixed precision compute their sizes from configurations or data), so there is nothing
    to measure yet. See docs/precision.md.
    """

    code = "TL304"
    name = "tensor-core-unaligned"
    summary = "Layer size not a multiple of 8 in a mixed-precision model: slower tensor-core kernels"
    impact = "high"
    preview = True
    triggers = ("Linear", "Conv", "Embedding")
    bad_examples = (
        "import torch\nimport torch.nn as nn\nhead = nn.Linear(768, 50257)\nwith torch.autocast('cuda'):\n    y = head(x)\n",
        "import torch\nfrom torch import nn\nconv = nn.Conv2d(512, 1001, 3)\nmodel = model.half()\n",
    )
    good_examples = (
        "import torch\nimport torch.nn as nn\nhead = nn.Linear(768, 50304)\nwith torch.autocast('cuda'):\n    y = head(x)\n",
        "import torch\nimport torch.nn as nn\nhead = nn.Linear(768, 50257)\n",
        "import torch\nimport torch.nn as nn\nhead = nn.Linear(512, 10)\nwith torch.autocast('cuda'):\n    y = head(x)\n",
        "import torch\nimport torch.nn as nn\nhead = nn.Linear(768, len(vocab))\nwith torch.autocast('cuda'):\n    y = head(x)\n",
        "import torch\nfrom mylib import Linear\nhead = Linear(768, 50257)\nwith torch.autocast('cuda'):\n    y = head(x)\n",
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        # Embeddings assigned to a name or attribute, reported if their weight is a projection.
        self.embeddings: List[Tuple[str, cst.Call]] = []

    @cached_property
    def constants(self) -> Dict[str, int]:
        """Names bound exactly once in the file, to an integer literal."""
        return _integer_constants(self.ctx.module)

    @cached_property
    def mixed_precision(self) -> bool:
        return project_uses(self.ctx, AUTOCAST)

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.ctx.qualified_name(node.func)
        layer = LAYERS.get(qualified or "")
        if layer is not None and not has_star(node) and not has_star(node, "*") and self._ungrouped(node, layer):
            self._check(node, layer.sizes, self._kernel_elements(node, layer))

    def visit_Assign(self, node: cst.Assign) -> None:
        value = node.value
        if len(node.targets) != 1 or not isinstance(value, cst.Call) or self.ctx.qualified_name(value.func) != EMBEDDING:
            return
        target = dotted_name(node.targets[0].target)
        if target is not None and not has_star(value) and not self.in_skipped_code():
            self.embeddings.append((target, value))

    def leave_Module(self, node: cst.Module) -> None:
        if not self.embeddings:
            return
        projected = _projected_weights(self.ctx.module, self.ctx.qualified_name)
        for target, embedding in self.embeddings:
            if target in projected:
                self._check(embedding, EMBEDDING_SIZES, 1, only=EMBEDDING_SIZES[0][0], what="the output projection through this weight runs")

    # ---------------------------------------------------------------------------------

    def _check(
        self, node: cst.Call, sizes: Tuple[Tuple[str, int], ...], kernel: int, only: str = "", what: str = "the layer's GEMMs run"
    ) -> None:
        values = {name: self._size(node, name, index) for name, index in sizes}
        unaligned = [(name, value) for name, value in values.items() if value is not None and value % ALIGNMENT and value >= SMALLEST_SIZE]
        if only:
            unaligned = [(name, value) for name, value in unaligned if name == only]
        if not unaligned or not self._large(values, kernel, unaligned) or not self.mixed_precision:
            return
        described = ", ".join(f"`{name}={value}`" for name, value in unaligned)
        padded = ", ".join(f"{value} to {_padded(value)}" for _, value in unaligned)
        self.report(
            node,
            f"{described} is not a multiple of {ALIGNMENT}: in this mixed-precision model {what} on slower "
            f"unaligned tensor-core kernels; pad {padded}",
        )

    def _size(self, node: cst.Call, name: str, index: int) -> Optional[int]:
        found = argument(node, name, index)
        if found is None:
            return None
        return _integer(found.value) if not isinstance(found.value, cst.Name) else self.constants.get(found.value.value)

    @staticmethod
    def _large(values: Dict[str, Optional[int]], kernel: int, unaligned: List[Tuple[str, int]]) -> bool:
        """Whether the layer is large enough for tensor-core alignment to show."""
        known = [value for value in values.values() if value is not None]
        if len(known) == len(values):
            weights = kernel
            for value in known:
                weights *= value
            return weights >= SMALLEST_WEIGHTS
        return all(value >= SMALLEST_UNPAIRED for _, value in unaligned)

    def _ungrouped(self, node: cst.Call, layer: _Layer) -> bool:
        groups = argument(node, *layer.groups) if layer.groups else None
        return groups is None or is_literal(groups.value, "1")

    def _kernel_elements(self, node: cst.Call, layer: _Layer) -> int:
        """The number of elements of the kernel when its size is literal, else 1."""
        kernel = argument(node, *layer.kernel) if layer.kernel else None
        if kernel is None:
            return 1
        sizes = [_integer(element.value) for element in kernel.value.elements] if isinstance(kernel.value, cst.Tuple) else [_integer(kernel.value)]
        if None in sizes:
            return 1
        dims = int((self.ctx.qualified_name(node.func) or "d")[-2])
        product = 1
        for size in sizes * (dims if len(sizes) == 1 else 1):
            product *= size  # type: ignore[operator]
        return product


def _integer(node: cst.BaseExpression) -> Optional[int]:
    if isinstance(node, cst.Integer):
        value = node.evaluated_value
        return value if isinstance(value, int) else None
    return None


def _padded(value: int) -> int:
    """The next multiple of 8, or of 64 for vocabulary-sized dimensions."""
    step = 64 if value >= SMALLEST_UNPAIRED else ALIGNMENT
    return -(-value // step) * step


# The nodes `_integer_constants` reads.
_BINDINGS = (cst.Assign, cst.AnnAssign, cst.AugAssign, cst.For, cst.CompFor, cst.NamedExpr, cst.Param, cst.ImportAlias, cst.AsName)


def _integer_constants(module: cst.Module) -> Dict[str, int]:
    """Names bound exactly once anywhere in the module, by `name = <integer>`."""
    bindings: Counter = Counter()
    values: Dict[str, int] = {}
    for node in nodes_of_type(module, _BINDINGS):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                bindings.update(bound_names(target.target))
            value = _integer(node.value)
            if len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name) and value is not None:
                values[node.targets[0].target.value] = value
        elif isinstance(node, cst.AnnAssign) and isinstance(node.target, cst.Name):
            bindings[node.target.value] += 1
            value = _integer(node.value) if node.value is not None else None
            if value is not None:
                values[node.target.value] = value
        elif isinstance(node, (cst.AugAssign, cst.For, cst.CompFor, cst.NamedExpr)):
            bindings.update(bound_names(node.target))
        elif isinstance(node, cst.Param):
            bindings[node.name.value] += 1
        elif isinstance(node, cst.ImportAlias):
            bindings[(node.evaluated_alias or node.evaluated_name).split(".")[0]] += 1
        elif isinstance(node, cst.AsName) and isinstance(node.name, cst.Name):
            bindings[node.name.value] += 1
    return {name: value for name, value in values.items() if bindings[name] == 1}


def _projected_weights(module: cst.Module, qualified_name) -> Set[str]:
    """Modules whose `.weight` is multiplied as a projection matrix: an argument of
    `F.linear`/`torch.matmul`/`torch.mm` or an operand of `@` (possibly transposed)."""
    operands: List[cst.BaseExpression] = []
    for node in nodes_of_type(module, (cst.Call, cst.BinaryOperation)):
        if isinstance(node, cst.Call) and qualified_name(node.func) in PROJECTIONS:
            operands.extend(arg.value for arg in node.args)
        elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.MatrixMultiply):
            operands.extend((node.left, node.right))
    found: Set[str] = set()
    for operand in operands:
        while isinstance(operand, cst.Call) and isinstance(operand.func, cst.Attribute) and operand.func.attr.value in ("t", "transpose"):
            operand = operand.func.value
        if isinstance(operand, cst.Attribute) and operand.attr.value == "T":
            operand = operand.value
        if isinstance(operand, cst.Attribute) and operand.attr.value == "weight":
            owner = dotted_name(operand.value)
            if owner is not None:
                found.add(owner)
    return found
