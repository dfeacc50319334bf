from typing import Optional

import libcst as cst

from torchlint.engine.findings import Applicability
from torchlint.engine.rule import NodeEdit, PendingFix, Rule
from torchlint.semantics.calls import keyword, method_call, positional, with_keyword
from torchlint.semantics.devices import named_like_device
from torchlint.semantics.names import dotted_name
from torchlint.semantics.frequency import Frequency
from torchlint.semantics.kinds import Kind
from torchlint.semantics.values import string_value

DETERMINISTIC_FACTORIES = frozenset(
    "zeros ones empty full arange range linspace logspace eye tensor empty_strided tril_indices "
    "triu_indices zeros_like ones_like empty_like full_like scalar_tensor".split()
)
RANDOM_FACTORIES = frozenset("rand randn randint randperm rand_like randn_like randint_like".split())
# `.to()` keywords that have no meaning for a freshly created tensor and can be dropped.
TRANSFER_ONLY_KEYWORDS = frozenset({"non_blocking", "copy"})
# Factories that copy data from the host (`torch.tensor(values)`): given `device=` they copy
# the same bytes over PCIe, so moving their result afterwards costs nothing extra.
DATA_FACTORIES = frozenset({"tensor", "scalar_tensor"})


class DeviceAfterCreation(Rule):
    """## What it does
    Flags a tensor factory (`torch.zeros`, `torch.randn`, `torch.arange`, ...) whose result
    is immediately moved with `.cuda()` or `.to(<device>)`, in code that runs every step (a
    step loop, `forward()`, a function called from them).

    ## Why is this slow?
    The tensor is allocated and filled on the CPU, then copied over PCIe to the device.
    Creating it on the device skips the host allocation, the fill and the copy.

    The rule does not fire for dtype-only moves (`.to(torch.float16)`), for `.to(x)` when `x`
    is not known to be a device (a device string, `torch.device(...)`, `t.device`, or a name
    such as `device`, `dev`, `*_device`, `rank`, `local_rank`, `gpu`), for `torch.from_numpy`/`torch.as_tensor` (the data
    already lives on the host), for pinned factories, or for modules (`model.cuda()`).
    It is silent for `torch.tensor(values)`: with `device=` the same values are still copied
    from the host, so the rewrite saves nothing; for `torch.zeros_like(x)` and the other
    `*_like` factories unless `x` is known to be on the host (they create where `x` lives);
    and for code that runs once (module level, `__init__`, setup), once per epoch, or rarely
    (behind a logging interval, in an error branch), where one copy costs nothing measurable.

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
    Safe for deterministic factories (`zeros`, `ones`, `full`, `arange`, ...): the
    result is identical. Unsafe for random factories (`rand`, `randn`, `randint`, ...),
    because the device's random generator produces a different stream than the CPU one, so
    seeded results change, and for factories with `requires_grad=True`, because the device
    tensor becomes the leaf that receives `.grad`. `.cuda(1)` becomes `device="cuda:1"`,
    `.cuda(i)` becomes `device=i`; `non_blocking=` is dropped since nothing is copied. No fix
    when the move also changes the dtype in a way that conflicts with the factory's arguments,
    or when the factory takes `out=` or a `generator=` (both live on the CPU).
    """

    code = "TL102"
    name = "device-after-creation"
    summary = "Tensor created on the CPU and then moved to the device"
    triggers = (".cuda(", ".to(")
    fix_applicability = Applicability.SAFE
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

    def visit_Call(self, node: cst.Call) -> None:
        found = method_call(node)
        if found is None or found[1] not in ("cuda", "to"):
            return
        factory, method = found
        if not isinstance(factory, cst.Call):
            return
        name = (self.ctx.qualified_name(factory.func) or "").rpartition(".")
        if name[0] != "torch" or name[2] not in DETERMINISTIC_FACTORIES | RANDOM_FACTORIES or name[2] in DATA_FACTORIES:
            return
        if name[2].endswith("_like") and not self._like_host_tensor(factory, node):
            return  # `zeros_like(x)` is created where `x` lives, usually on the device already
        if keyword(factory, "pin_memory") is not None:
            return
        device = self._target_device(node, method)
        if device is None or not self.runs_often(node):
            return
        self.report(
            node,
            f"`torch.{name[2]}(...)` is created on the CPU and then copied to the device; pass `device=` to create it there",
            fix=self._fix(node, factory, device, random=name[2] in RANDOM_FACTORIES),
        )

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

    def _fix(self, move: cst.Call, factory: cst.Call, device: cst.BaseExpression, random: bool) -> Optional[PendingFix]:
        """Move `device=` (and a `dtype` the move sets) into the factory call.

        `.to(device, dtype, non_blocking, copy)` and `.cuda(device, non_blocking)`: only
        `.to` can change the dtype. No fix when the factory writes into `out=` or draws from
        a `generator=`, both of which live on the CPU.
        """
        moved = positional(move)
        is_to = isinstance(move.func, cst.Attribute) and move.func.attr.value == "to"
        dtype_arg = keyword(move, "dtype") or (moved[1] if is_to and len(moved) > 1 else None)
        other = [a for a in move.args if a.keyword is not None and a.keyword.value not in ("device", "dtype", *TRANSFER_ONLY_KEYWORDS)]
        if other or any(keyword(factory, name) is not None for name in ("out", "generator")):
            return None
        if dtype_arg is not None and keyword(factory, "dtype") is not None:
            return None
        new_call = with_keyword(factory, "device", device)
        if dtype_arg is not None:
            new_call = with_keyword(new_call, "dtype", dtype_arg.value)
        grad = keyword(factory, "requires_grad")
        unsafe = random or (grad is not None and not (isinstance(grad.value, cst.Name) and grad.value.value == "False"))
        return self.fix(
            NodeEdit(move, new_call),
            applicability=Applicability.UNSAFE if unsafe else Applicability.SAFE,
            message="Create the tensor on the device",
        )
