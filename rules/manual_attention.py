import re
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Sequence, Tuple

import libcst as cst

from torchlint.engine.edits import binds_otherwise, module_name
from torchlint.engine.findings import Applicability
from torchlint.engine.rule import NodeEdit, PendingFix, Rule
from torchlint.semantics.bindings import binds_locally
from torchlint.semantics.calls import argument, keyword, method_call, positional
from torchlint.semantics.dtypes import python_number
from torchlint.semantics.frequency import MAY_RUN_EVERY_STEP
from torchlint.semantics.names import dotted_name
from torchlint.semantics.project import HIGHER_ORDER_AUTOGRAD, project_uses
from torchlint.semantics.shapes import may_be_vector, varies_along_last_axis
from torchlint.semantics.tree import bound_names, scope_descendants

SOFTMAX = frozenset({"torch.nn.functional.softmax", "torch.softmax", "torch.special.softmax"})
MATMUL = frozenset({"torch.matmul", "torch.bmm"})
DROPOUT = frozenset({"torch.nn.functional.dropout", "torch.dropout"})
# A class or function that calls one of these already has a fused path (the hand-written one
# is its fallback for old PyTorch versions or for returning the weights).
FUSED_ATTENTION = ("scaled_dot_product_attention", "flash_attn", "memory_efficient_attention")
NEGATIVE_INFINITY = frozenset({"float('-inf')", 'float("-inf")', "-float('inf')", '-float("inf")', "-math.inf", "-torch.inf", "-np.inf", "-numpy.inf"})
AUGMENTED = {cst.AddAssign: cst.Add, cst.MultiplyAssign: cst.Multiply, cst.DivideAssign: cst.Divide}
SDPA_SINCE = (2, 0)
SCALE_SINCE = (2, 1)
LAST_TWO = frozenset({("-2", "-1"), ("-1", "-2")})
FOURTH_DIMENSIONS = frozenset({("2", "3"), ("3", "2")})


@dataclass
class _Attention:
    """What the hand-written attention computes: SDPA's arguments as code, and why it cannot be rewritten."""

    query: cst.BaseExpression
    key: cst.BaseExpression
    scales: List[str] = field(default_factory=list)
    # The factors the scales read, each of which must be a Python number for `scale=`.
    factors: List[cst.BaseExpression] = field(default_factory=list)
    mask: str = ""
    statements: List[cst.CSTNode] = field(default_factory=list)
    withheld: str = ""

    def withhold(self, reason: str) -> None:
        self.withheld = self.withheld or reason


class _Chain:
    """Follows the names of a block's consecutive assignments backwards from one statement:
    `attn = q @ k.transpose(-2, -1); attn = attn.softmax(-1); out = attn @ v`."""

    def __init__(self, body: Sequence[cst.CSTNode], index: int) -> None:
        self.body = body
        self.position = index
        self.statements: List[cst.CSTNode] = []
        self.problem = ""

    def value(self, node: cst.BaseExpression) -> cst.BaseExpression:
        """The value last assigned to the name `node` before the current position, else `node`.
        A compound statement that only updates the name from itself (`if bias is not None: attn
        = attn + bias`) is stepped over, and the chain then has no fix."""
        if not isinstance(node, cst.Name):
            return node
        for index in range(self.position - 1, -1, -1):
            statement = self.body[index]
            assigned = _assignment(statement, node.value)
            if assigned is None:
                assigned = _conditional(statement, node.value)
                self._note(assigned is not None, "a step of the computation is conditional")
            if assigned is not None:
                self._note(index != self.position - 1, "other statements run between the steps")
                self.position = index
                self.statements.append(statement)
                return assigned
            updates = _updates(statement, node.value)
            if updates is None:
                return node
            self._note(updates, "a step of the computation is conditional")
        return node

    def _note(self, condition: bool, problem: str) -> None:
        if condition and not self.problem:
            self.problem = problem


class ManualAttention(Rule):
    """## What it does
    Flags hand-written scaled dot-product attention, `softmax(q @ k.transpose(-2, -1) / sqrt(d),
    dim=-1) @ v`, in code that runs every step (a module's `forward` and what it calls): the
    product spelled `@`, `torch.matmul`, `.matmul` or `torch.bmm`, the keys transposed with
    `transpose(-2, -1)`, `.mT` or a `permute` that swaps the last two dimensions, the scale as
    a division or a multiplication, an optional additive mask (`+` or `+=`) or `masked_fill`,
    optional dropout of the weights, in one expression or over consecutive assignments of one block (`attn = q @
    k.transpose(-2, -1) * self.scale; attn = attn.softmax(dim=-1); x = attn @ v`).

    It is silent when the softmax is over another dimension than the last, when the softmax's
    input is not a product of queries with transposed keys (linear attention, a softmax over
    logits), in a class or function that already calls `scaled_dot_product_attention` or a
    flash-attention kernel (the hand-written path is then a fallback), in code that runs once
    (`__init__`) or rarely, in test code, and when the configured `torch-version` is below
    2.0, which has no `scaled_dot_product_attention`.

    ## Why is this slow?
    The hand-written form writes the whole L×S score matrix to memory, reads it back for the
    softmax, writes the weights, and reads them again for the product with `v`: three or four
    passes over a matrix that grows with the square of the sequence length, and as much
    activation memory kept for the backward pass. `F.scaled_dot_product_attention` dispatches
    to FlashAttention or memory-efficient kernels that never materialise the matrix. PyTorch's
    SDPA tutorial measures the fused kernels several times faster than the math
    implementation on a GPU (FlashAttention 2 reports 2-4x over a standard PyTorch
    implementation, and up to 10-20x less memory for the attention at long sequences).

    ## Example
    ```python
    def forward(self, q, k, v):
        attn = (q @ k.transpose(-2, -1)) * self.scale
        attn = attn.softmax(dim=-1)
        return attn @ v
    ```

    ## Use instead
    ```python
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, scale=self.scale)
    ```

    ## Fix applicability
    Unsafe, and offered only for the forms whose result is the same up to float rounding
    (differential tests run each on CPU torch): no mask, an additive mask (`scores + mask`,
    passed as `attn_mask=mask.to(q.dtype)`: SDPA reads a boolean mask as keep/drop and takes
    only a float mask of the queries' dtype, so an integer, half or boolean mask that the code
    adds is converted to the values it adds; a mask that may be one-dimensional,
    `torch.tensor([0, 0, 1])`, is passed as a row, `.unsqueeze(0)`, which broadcasts the same
    way and which SDPA accepts with 4-D queries), and
    `masked_fill(cond, float('-inf'))`, passed as the boolean `attn_mask=` that keeps the
    other positions (`mask == 0` becomes `mask != 0`; a causal `tril` buffer is rewritten the
    same way, not to `is_causal=True`, which also needs the buffer proven to be the causal
    mask of the right size). The scale is always passed explicitly (`scale=1.0` when the code
    has none), so the fix needs `torch-version` 2.1; `scale=` takes a Python float, so a scale
    that is not known to be a number (a learned temperature `logit_scale.exp()`, a scale
    buffer, an attribute set elsewhere) multiplies the queries instead (`q * scale`, with
    `scale=1.0`), which rounds differently and keeps the gradient to the scale; that is the
    same product only for a scale constant along the keys (a number, one element, `(heads, 1,
    1)`): no fix when the file makes the scale with values along the keys (a per-key
    temperature `nn.Parameter(torch.linspace(a, b, keys))`, a decay matrix buffer), and for a
    scale handed in from elsewhere the fix takes it to be constant along the keys (one that is
    not makes the fixed program compute other values, or raise where its length differs from
    the head size). Rows whose
    every position is masked give NaN before and zeros after on recent PyTorch versions. The
    fused kernels run on other code paths than the hand-written matmuls, so results agree to
    float rounding, not bitwise. `torch.nn.functional` is named through a name bound to it
    (`F`) unless the enclosing function binds that name itself anywhere (which would make it
    local there) or module-level code also binds it to something else (`F = 2 * p * r / (p +
    r)`, an F1 score computed below the model), else as `torch.nn.functional`. The fix replaces the final product and
    deletes the assignments before it.

    No fix is offered (the finding says why) when the weights go through dropout (SDPA draws
    a different dropout mask), when they are used elsewhere (returned, stored, logged: SDPA
    does not return them), when the mask fills another value than `-inf` (`-1e9` differs on
    fully masked rows), when a mask is scaled after being applied, when a step is
    conditional (`if mask is not None:`) or other statements run between the steps, when the
    keys are transposed with `transpose(2, 3)` (the last two dimensions only of a 4-D
    tensor), when `q`, `k` or `v` is computed inline, when a dtype conversion wraps the
    softmax, when the term added to the scores is a number, when the queries or the values
    may be one-dimensional (`semantics.shapes`: a learned query vector
    `nn.Parameter(torch.randn(d))` pooling a set of keys), which SDPA rejects, and when the program (the file, a
    module it imports or one that imports it) differentiates twice (`create_graph=` with any
    value but `False`, also by position, `autograd.grad(out, x, None, True, True)`,
    `loss.backward(None, True, True)`, or as a dict key, `**{"create_graph": True}`; a
    gradient penalty, `torch.func.hessian`,
    `torch.autograd.functional.hvp`, `gradgradcheck`, a `torch.func` transform applied to
    one, `grad(lambda q: grad(f)(q).sum())` or `jacrev(jacrev(f))`) or in forward mode (`jvp`, `jacfwd`, `forward_ad`): the
    fused CPU kernel has neither a double backward nor a forward-mode derivative.

    ## Measured precision
    preview. 1.00 on the development half (3/0: two ViT attentions in fairseq's data2vec and
    a tutorial Transformer) and 0.62 on the held-out half (5/3, 2 debatable: the false
    positives are class attention of a single CLS query, whose 1 x N score row costs nothing,
    and channel attention over a small C x C map), below the 0.90 bar and with too few
    findings. See docs/precision.md.
    """

    code = "TL302"
    name = "manual-attention"
    summary = "hand-written attention instead of `F.scaled_dot_product_attention`"
    impact = "high"
    preview = True
    triggers = ("softmax",)
    fix_applicability = Applicability.UNSAFE
    frequencies = MAY_RUN_EVERY_STEP
    bad_examples = (
        "import math\nimport torch\nimport torch.nn.functional as F\n"
        "def attention(q, k, v):\n    return F.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.size(-1)), dim=-1) @ v\n",
        "import torch\nclass Attention(torch.nn.Module):\n    def forward(self, q, k, v):\n"
        "        attn = (q @ k.transpose(-2, -1)) * self.scale\n        attn = attn.softmax(dim=-1)\n"
        "        return attn @ v\n",
    )
    good_examples = (
        "import torch\ndef attention(q, k, v):\n    return torch.softmax(q @ k.transpose(-2, -1), dim=-2) @ v\n",
        "import torch\ndef attention(q, k, v):\n    return torch.softmax(q, dim=-1) @ (k.transpose(-2, -1) @ v)\n",
        "import torch\ndef attention(q, k, v):\n    return torch.nn.functional.scaled_dot_product_attention(q, k, v)\n",
        "import torch\ndef logits(x, w, v):\n    return torch.softmax(x @ w, dim=-1) @ v\n",
    )

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        if isinstance(node.operator, cst.MatrixMultiply):
            self._check(node, node.left, node.right)

    def visit_Call(self, node: cst.Call) -> None:
        operands = self._product(node)
        if operands is not None:
            self._check(node, *operands)

    # ---------------------------------------------------------------------------------

    def _product(self, node: cst.BaseExpression) -> Optional[Tuple[cst.BaseExpression, cst.BaseExpression]]:
        """The operands of `a @ b`, `torch.matmul(a, b)`, `torch.bmm(a, b)` or `a.matmul(b)`."""
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.MatrixMultiply):
            return node.left, node.right
        if not isinstance(node, cst.Call):
            return None
        args = positional(node)
        if len(args) == 2 and len(node.args) == 2 and self.ctx.qualified_name(node.func) in MATMUL:
            return args[0].value, args[1].value
        found = method_call(node)
        if found is not None and found[1] == "matmul" and len(args) == 1 and len(node.args) == 1:
            return found[0], args[0].value
        return None

    def _check(self, node: cst.BaseExpression, weights: cst.BaseExpression, value: cst.BaseExpression) -> None:
        if self.ctx.options.torch_version < SDPA_SINCE or not self.runs_often(node):
            return
        place = self._statement()
        if place is None or self._has_fused_path():
            return
        chain = _Chain(*place)
        attention = self._weights(chain.value(weights), chain)
        if attention is None:
            return
        attention.statements = chain.statements
        attention.withhold(chain.problem)
        self.report(
            node,
            "hand-written attention materialises the whole score matrix; `F.scaled_dot_product_attention` runs fused "
            "flash / memory-efficient kernels",
            fix=self._fix(node, value, attention, place),
        )

    def _statement(self) -> Optional[Tuple[Sequence[cst.CSTNode], int]]:
        """The block holding the statement being visited, and its index there."""
        for index, ancestor in enumerate(reversed(self.ctx.ancestors)):
            if isinstance(ancestor, cst.SimpleStatementLine):
                block = self.ctx.ancestors[-index - 2] if index + 2 <= len(self.ctx.ancestors) else None
                if isinstance(block, (cst.IndentedBlock, cst.Module)) and len(ancestor.body) == 1:
                    return block.body, next(i for i, item in enumerate(block.body) if item is ancestor)
                return None
            if isinstance(ancestor, (cst.FunctionDef, cst.Lambda, cst.ClassDef)):
                return None
        return None

    def _has_fused_path(self) -> bool:
        scope = self.ctx.enclosing(cst.ClassDef) or self.ctx.enclosing(cst.FunctionDef)
        if scope is None:
            return False
        code = self.ctx.module.code_for_node(scope)
        return any(name in code for name in FUSED_ATTENTION)

    def _weights(self, node: cst.BaseExpression, chain: _Chain) -> Optional[_Attention]:
        """The attention whose softmax weights `node` is (through dropout), else None."""
        dropped = self._dropout_input(node)
        if dropped is not None:
            return _without_fix(self._weights, dropped, chain, "the weights go through dropout, which SDPA draws differently")
        converted = _conversion_input(node)
        if converted is not None:
            return _without_fix(self._weights, converted, chain, "a dtype conversion wraps the softmax")
        scores = self._softmax_input(node)
        if scores is None:
            return None
        attention = self._scores(chain.value(scores), chain)
        if attention is not None and keyword(node, "dtype") is not None:  # type: ignore[arg-type]
            attention.withhold("a dtype conversion wraps the softmax")
        return attention

    def _softmax_input(self, node: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        """`x` of `softmax(x, dim=-1)` in its spellings; None for any other dimension or call."""
        if not isinstance(node, cst.Call):
            return None
        found = method_call(node)
        if found is not None and found[1] == "softmax" and self.ctx.qualified_name(node.func) not in SOFTMAX:
            source, dim, extra = found[0], argument(node, "dim", 0), len(node.args) - 1
        elif self.ctx.qualified_name(node.func) in SOFTMAX:
            input_arg = argument(node, "input", 0)
            source, dim, extra = (input_arg.value if input_arg else None), argument(node, "dim", 1), len(node.args) - 2
        else:
            return None
        extra -= keyword(node, "dtype") is not None
        if source is None or dim is None or extra != 0 or self.ctx.module.code_for_node(dim.value) != "-1":
            return None
        return source

    def _dropout_input(self, node: cst.BaseExpression) -> Optional[cst.BaseExpression]:
        """`x` of `self.attn_drop(x)`, `dropout(x)` or `F.dropout(x, p, training)`."""
        if not isinstance(node, cst.Call) or not node.args or node.args[0].keyword or node.args[0].star:
            return None
        named = dotted_name(node.func) or ""
        if self.ctx.qualified_name(node.func) in DROPOUT or ("drop" in named.rsplit(".", 1)[-1].lower() and len(node.args) == 1):
            return node.args[0].value
        return None

    def _scores(self, node: cst.BaseExpression, chain: _Chain) -> Optional[_Attention]:
        """The attention whose scores `node` is: `q @ kᵀ`, scaled, masked, in any order."""
        found = method_call(node)
        if found is not None and found[1] == "masked_fill" and len(node.args) == 2:  # type: ignore[attr-defined]
            attention = self._scores(chain.value(found[0]), chain)
            if attention is not None:
                condition, fill = (argument(node, name, i) for i, name in enumerate(("mask", "value")))  # type: ignore[arg-type]
                kept = _kept(self.ctx.module, condition.value) if condition and fill else ""
                self._add_mask(attention, f"({kept}).unsqueeze(0)" if kept and self._may_be_vector(condition.value) else kept)
                if fill is None or self.ctx.module.code_for_node(fill.value).replace(" ", "") not in NEGATIVE_INFINITY:
                    attention.withhold("the mask fills another value than -inf")
            return attention
        converted = _conversion_input(node)
        if converted is not None:
            return _without_fix(self._scores, converted, chain, "a dtype conversion wraps the scores")
        if isinstance(node, cst.BinaryOperation) and not isinstance(node.operator, cst.MatrixMultiply):
            return self._scaled_or_masked(node, chain)
        return self._query_key(node)

    def _scaled_or_masked(self, node: cst.BinaryOperation, chain: _Chain) -> Optional[_Attention]:
        code = self.ctx.module.code_for_node
        if isinstance(node.operator, (cst.Multiply, cst.Divide)):
            sides = ((node.left, node.right),) if isinstance(node.operator, cst.Divide) else ((node.left, node.right), (node.right, node.left))
            for scores, factor in sides:
                attention = self._scores(chain.value(scores), chain)
                if attention is not None:
                    if attention.mask:
                        attention.withhold("the mask is applied before the scale")
                    text = code(factor.with_changes(lpar=[], rpar=[]))
                    attention.scales.append(text if isinstance(node.operator, cst.Multiply) else f"1 / {_atom(text, factor)}")
                    attention.factors.append(factor)
                    return attention
        if isinstance(node.operator, cst.Add):
            for scores, mask in ((node.left, node.right), (node.right, node.left)):
                attention = self._scores(chain.value(scores), chain)
                if attention is not None:
                    if python_number(self.ctx, mask):
                        attention.withhold("a number is added to the scores, not a mask")
                    text = _atom(code(mask.with_changes(lpar=[], rpar=[])), mask)
                    # SDPA rejects a one-dimensional mask with 4-D queries; as a row it broadcasts alike
                    row = ".unsqueeze(0)" if self._may_be_vector(mask) else ""
                    self._add_mask(attention, f"{text}.to({code(attention.query)}.dtype){row}")
                    return attention
        return None

    def _may_be_vector(self, mask: cst.BaseExpression) -> bool:
        """Whether a mask, or what it compares or negates (`pad == 0`, `~pad`), may be one-dimensional."""
        function = self.ctx.enclosing(cst.FunctionDef)
        scope = function if isinstance(function, cst.FunctionDef) else None
        bare = mask.with_changes(lpar=[], rpar=[]) if isinstance(mask, (cst.Comparison, cst.UnaryOperation)) else mask
        if isinstance(bare, cst.Comparison):
            operands: Sequence[cst.BaseExpression] = (bare.left, *(item.comparator for item in bare.comparisons))
        elif isinstance(bare, cst.UnaryOperation):
            operands = (bare.expression,)
        else:
            operands = (bare,)
        return any(may_be_vector(self.ctx, item, scope) for item in operands)

    def _query_key(self, node: cst.BaseExpression) -> Optional[_Attention]:
        """`q @ k.transpose(-2, -1)` (or `.mT`, `torch.matmul`), else None."""
        operands = self._product(node)
        if operands is None:
            return None
        query, transposed = operands
        if isinstance(transposed, cst.Attribute) and transposed.attr.value == "mT":
            return _Attention(query, transposed.value)
        found = method_call(transposed)
        if found is None or found[1] not in ("transpose", "permute"):
            return None
        dims = tuple(self.ctx.module.code_for_node(arg.value) for arg in positional(transposed))  # type: ignore[arg-type]
        if found[1] == "permute" and len(dims) == len(transposed.args) >= 2:  # type: ignore[attr-defined]
            rank = len(dims)
            swapped = tuple(str(i) for i in (*range(rank - 2), rank - 1, rank - 2))
            return _Attention(query, found[0]) if dims == swapped else None
        if found[1] != "transpose" or len(transposed.args) != 2:  # type: ignore[attr-defined]
            return None
        if dims not in LAST_TWO | FOURTH_DIMENSIONS:
            return None
        attention = _Attention(query, found[0])
        if dims in FOURTH_DIMENSIONS:
            attention.withhold("`transpose(2, 3)` swaps the last two dimensions only of 4-D keys")
        return attention

    @staticmethod
    def _add_mask(attention: _Attention, mask: str) -> None:
        if attention.mask or not mask:
            attention.withhold("more than one mask is applied")
        attention.mask = mask

    # ---------------------------------------------------------------------------------

    def _fix(
        self, node: cst.BaseExpression, value: cst.BaseExpression, attention: _Attention, place: Tuple[Sequence[cst.CSTNode], int]
    ) -> PendingFix:
        if attention.withheld:
            return self.withheld(attention.withheld)
        if not all(_plain(item) for item in (attention.query, attention.key, value)):
            return self.withheld("`q`, `k` or `v` is computed inline")
        if self._rebinds_inputs(attention, value):
            return self.withheld("a step rebinds a name the attention reads")
        function = self.ctx.enclosing(cst.FunctionDef)
        if any(may_be_vector(self.ctx, item, function if isinstance(function, cst.FunctionDef) else None) for item in (attention.query, value)):
            return self.withheld("the query or the values may be a vector (`torch.randn(d)`), and SDPA takes at least two dimensions")
        if self._escapes(attention.statements, node, *place):
            return self.withheld("the attention weights are used elsewhere, and SDPA does not return them")
        if self.ctx.options.torch_version < SCALE_SINCE:
            return self.withheld("`scale=` of `scaled_dot_product_attention` needs PyTorch 2.1")
        if project_uses(self.ctx, HIGHER_ORDER_AUTOGRAD):
            return self.withheld(
                "the program differentiates twice (`create_graph=`, a Hessian) or in forward mode (`jvp`, `jacfwd`), "
                "and the fused kernels have neither derivative"
            )
        binding = self._functional(node)
        if binding is None:
            return self.withheld("`torch` cannot be imported here")
        functional, imports = binding
        code = self.ctx.module.code_for_node
        query = code(attention.query)
        scales = attention.scales if len(attention.scales) == 1 else [f"({scale})" for scale in attention.scales]
        scale = " * ".join(scales) if scales else "1.0"
        if not all(python_number(self.ctx, factor) for factor in attention.factors):
            # `scale=` takes a float: a tensor scale (a learned temperature) multiplies the queries.
            if any(varies_along_last_axis(self.ctx, factor) for factor in attention.factors):
                return self.withheld("the scale is a tensor the file makes with values along the keys (a per-key temperature, a decay matrix), which multiplying the queries cannot reproduce")
            query, scale = f"{query} * {_parenthesised(scale)}", "1.0"
        arguments = [query, code(attention.key), code(value.with_changes(lpar=[], rpar=[]))]
        if attention.mask:
            arguments.append(f"attn_mask={attention.mask}")
        arguments.append(f"scale={scale}")
        call = f"{functional}.scaled_dot_product_attention({', '.join(arguments)})"
        edits = [NodeEdit(node, call), *imports, *(NodeEdit(s, "", delete_lines=True) for s in attention.statements)]
        return self.fix(*edits, message="Call `F.scaled_dot_product_attention`")

    @staticmethod
    def _rebinds_inputs(attention: _Attention, value: cst.BaseExpression) -> bool:
        """Whether the deleted statements bind a name that `q`, `k`, `v`, the mask or the scale read."""
        bound = {name for statement in attention.statements for item in _targets(statement) for name in bound_names(item.target)}
        read = {item.value for node in (attention.query, attention.key, value) for item in scope_descendants(node) if isinstance(item, cst.Name)}
        words = set(re.findall(r"\w+", " ".join([attention.mask, *attention.scales])))
        return bool(bound & (read | words))

    def _functional(self, node: cst.CSTNode) -> Optional[Tuple[str, Tuple[NodeEdit, ...]]]:
        """How to name `torch.nn.functional` here: a name bound to it (`F`), else
        `torch.nn.functional`; never a name that an enclosing function binds itself anywhere
        (`B, T, F = out.shape` later makes `F` local to the whole function), nor one that
        module-level code also binds to something else (`F = 2 * p * r / (p + r)` below the
        class rebinds it before the next call)."""
        functions = [ancestor for ancestor in self.ctx.ancestors if isinstance(ancestor, cst.FunctionDef)]
        for name in ("F", "nnf", "functional"):
            if (
                self.ctx.names.lookup(name) == "torch.nn.functional"
                and not any(binds_locally(f, name) for f in functions)
                and not binds_otherwise(self.ctx.module, name, "torch.nn.functional")
            ):
                return name, ()
        binding = module_name(self.ctx.module, "torch", node)
        if binding is None or any(binds_locally(f, binding[0]) for f in functions):
            return None
        return f"{binding[0]}.nn.functional", binding[1]

    def _escapes(self, statements: List[cst.CSTNode], product: cst.CSTNode, body: Sequence[cst.CSTNode], index: int) -> bool:
        """Whether a name the deleted statements bind is read anywhere but in them and in the
        product being replaced, or after the final statement when that does not bind it again."""
        names = {name for statement in statements for item in _targets(statement) for name in bound_names(item.target)}
        final = body[index]
        rebound = {name for item in _targets(final) for name in bound_names(item.target)}
        allowed = {id(item) for node in (*statements, product, *_targets(final)) for item in scope_descendants(node)}
        allowed |= {id(item) for later in body[index + 1 :] for item in scope_descendants(later) if getattr(item, "value", None) in rebound}
        scope = self.ctx.enclosing(cst.FunctionDef) or self.ctx.module
        return any(isinstance(item, cst.Name) and item.value in names and id(item) not in allowed for item in scope_descendants(scope))


def _without_fix(match: Callable[[cst.BaseExpression, _Chain], Optional[_Attention]], inner: cst.BaseExpression, chain: _Chain, reason: str) -> Optional[_Attention]:
    """The attention `match` finds in the value of `inner`, with no fix because of `reason`."""
    attention = match(chain.value(inner), chain)
    if attention is not None:
        attention.withhold(reason)
    return attention


def _targets(statement: cst.CSTNode) -> Tuple[cst.AssignTarget, ...]:
    if isinstance(statement, cst.SimpleStatementLine):
        return tuple(t for small in statement.body if isinstance(small, cst.Assign) for t in small.targets)
    return ()


def _assignment(statement: cst.CSTNode, name: str) -> Optional[cst.BaseExpression]:
    """The value of `name = value`, a statement of its own; `name + value` for `name += value`
    (likewise `*=` and `/=`)."""
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        small = statement.body[0]
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            target = small.targets[0].target
            if isinstance(target, cst.Name) and target.value == name:
                return small.value
        if isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name) and small.target.value == name:
            operator = AUGMENTED.get(type(small.operator))
            if operator is not None:
                return cst.BinaryOperation(cst.Name(name), operator(), small.value)
    return None


def _updates(statement: cst.CSTNode, name: str) -> Optional[bool]:
    """False when `statement` does not bind `name`; True when it is a compound statement that
    only updates it from itself (`attn = attn + bias`, `attn += bias`); None otherwise."""
    found = False
    for item in scope_descendants(statement):
        if isinstance(item, cst.AugAssign) and name in bound_names(item.target):
            found = True
        elif isinstance(item, cst.Assign) and any(name in bound_names(t.target) for t in item.targets):
            if not any(isinstance(n, cst.Name) and n.value == name for n in scope_descendants(item.value)):
                return None
            found = True
        elif isinstance(item, (cst.For, cst.NamedExpr, cst.AnnAssign)) and name in bound_names(item.target):
            return None
        elif isinstance(item, cst.AsName) and name in bound_names(item.name):  # type: ignore[arg-type]
            return None
    return None if found and isinstance(statement, cst.SimpleStatementLine) else found


def _conditional(statement: cst.CSTNode, name: str) -> Optional[cst.BaseExpression]:
    """The value of `if cond: name = value` with nothing else in the branch and no `else`."""
    if isinstance(statement, cst.If) and statement.orelse is None and isinstance(statement.body, cst.IndentedBlock):
        if len(statement.body.body) == 1:
            return _assignment(statement.body.body[0], name)
    return None


def _conversion_input(node: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """`x` of `x.float()`, `x.type_as(y)` or `x.to(dtype)`."""
    found = method_call(node)
    return found[0] if found is not None and found[1] in ("float", "type_as", "to") else None


def _plain(node: cst.BaseExpression) -> bool:
    """A name, attribute or subscript with no call in it: reading it twice gives the same tensor."""
    if isinstance(node, cst.Name):
        return True
    if isinstance(node, cst.Attribute):
        return _plain(node.value)
    if isinstance(node, cst.Subscript):
        return _plain(node.value) and not any(isinstance(item, cst.Call) for item in _all(node.slice))
    return False


def _all(nodes: Sequence[cst.CSTNode]) -> List[cst.CSTNode]:
    return [item for node in nodes for item in scope_descendants(node)]


def _atom(text: str, node: cst.BaseExpression) -> str:
    """`text` as an operand of `*` or `/`: in parentheses unless it is a name, call, number or the like."""
    atomic = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float)
    return text if isinstance(node, atomic) else f"({text})"


def _parenthesised(text: str) -> str:
    """`text` as an operand of `*`: as it is when it is a (dotted) name, else in parentheses."""
    return text if re.fullmatch(r"[\w.]+", text) else f"({text})"


def _kept(module: cst.Module, condition: cst.BaseExpression) -> str:
    """The boolean mask of the positions `masked_fill(condition, -inf)` keeps: `mask != 0` for
    `mask == 0`, `mask` for `~mask`, else `~(condition)`."""
    bare = condition.with_changes(lpar=[], rpar=[])
    if isinstance(bare, cst.Comparison) and len(bare.comparisons) == 1:
        flipped = {cst.Equal: "!=", cst.NotEqual: "=="}.get(type(bare.comparisons[0].operator))
        if flipped is not None:
            return f"{module.code_for_node(bare.left)} {flipped} {module.code_for_node(bare.comparisons[0].comparator)}"
    if isinstance(bare, cst.UnaryOperation) and isinstance(bare.operator, cst.BitInvert):
        return module.code_for_node(bare.expression)
    text = module.code_for_node(bare)
    return f"~{text}" if isinstance(bare, (cst.Name, cst.Attribute, cst.Subscript, cst.Call)) else f"~({text})"
