from typing import Dict, FrozenSet, Optional, Set, Tuple

import libcst as cst

from torchlint.engine.findings import Applicability
from torchlint.engine.rule import NodeEdit, PendingFix, Rule
from torchlint.engine.edits import module_name
from torchlint.semantics.bindings import bound_besides_imports
from torchlint.semantics.calls import has_star, is_literal, keyword, positional, reads_classes, result_shown, uncalled_references, with_keyword
from torchlint.semantics.names import dotted_name
from torchlint.semantics.tree import descendants, nodes_of_type, per_module

# Deprecated callable -> (device string, name in `torch.amp`, old positional parameters).
# The old autocast takes (enabled, dtype, cache_enabled) but `torch.amp.autocast` takes
# (device_type, dtype, enabled, cache_enabled), so its positional arguments become keywords;
# the old GradScaler's parameters follow `device` in the same order, so they stay positional.
AUTOCAST_PARAMETERS = ("enabled", "dtype", "cache_enabled")
DEPRECATED: Dict[str, Tuple[str, str, Tuple[str, ...]]] = {
    "torch.cuda.amp.autocast": ("cuda", "autocast", AUTOCAST_PARAMETERS),
    "torch.cuda.amp.autocast_mode.autocast": ("cuda", "autocast", AUTOCAST_PARAMETERS),
    "torch.cpu.amp.autocast": ("cpu", "autocast", AUTOCAST_PARAMETERS),
    "torch.cpu.amp.autocast_mode.autocast": ("cpu", "autocast", AUTOCAST_PARAMETERS),
    "torch.cuda.amp.GradScaler": ("cuda", "GradScaler", ()),
    "torch.cuda.amp.grad_scaler.GradScaler": ("cuda", "GradScaler", ()),
    "torch.cpu.amp.GradScaler": ("cpu", "GradScaler", ()),
    "torch.cpu.amp.grad_scaler.GradScaler": ("cpu", "GradScaler", ()),
}
# PyTorch 2.4 deprecated the device-specific classes (`torch.amp.GradScaler` exists since 2.3).
DEPRECATED_SINCE = (2, 4)
# The dtype the old autocast classes use when none is given; the new one reads the current
# autocast dtype instead, so the fix writes it out.
DEFAULT_DTYPES = {"cuda": "float16", "cpu": "bfloat16"}


class DeprecatedAmpApi(Rule):
    """## What it does
    Flags calls of the device-specific AMP classes `torch.cuda.amp.autocast`,
    `torch.cuda.amp.GradScaler`, `torch.cpu.amp.autocast` and `torch.cpu.amp.GradScaler`
    (however they are imported), which PyTorch deprecated in favour of `torch.amp.autocast`
    and `torch.amp.GradScaler` with the device type as first argument.

    ## Why it matters
    Since PyTorch 2.4 the old names are thin deprecated subclasses of the `torch.amp`
    classes: they do the same work, but every construction emits a `FutureWarning` (inside
    the training loop, once per `with` block), and they are slated for removal, so code that
    keeps them breaks on a future release. `torch.amp` is also the device-generic spelling that the rest of the
    AMP tooling (bf16 on CPU, other accelerators) shares.

    Only calls are reported, including `@torch.cuda.amp.autocast()` used as a decorator. Bare
    references (`isinstance(s, torch.cuda.amp.GradScaler)`, `ctx = torch.cuda.amp.autocast`)
    are not: they emit no warning, and rewriting them would change their meaning (an
    `isinstance` test against the new class matches more objects). `torch.amp.autocast`,
    `torch.autocast` and classes of the same name from other libraries are not reported, and
    nothing is reported when the configured `torch-version` is below 2.4, where the old names
    are not deprecated (and `torch.amp.GradScaler` only exists from 2.3).

    ## Example
    ```python
    scaler = torch.cuda.amp.GradScaler()
    with torch.cuda.amp.autocast(dtype=torch.bfloat16):
        loss = model(x)
    ```

    ## Use instead
    ```python
    scaler = torch.amp.GradScaler("cuda")
    with torch.amp.autocast("cuda", dtype=torch.bfloat16):
        loss = model(x)
    ```

    ## Fix applicability
    Safe: the call becomes the `torch.amp` form with the device string inserted as the first
    argument and every other argument kept; positional arguments of the old `autocast`
    become keywords (`enabled=`, `dtype=`, `cache_enabled=`), because the new signature
    orders them differently. What changes is only the `FutureWarning` the old spelling emits,
    which is the point of the fix (code that records warnings counts one fewer). An
    autocast that passes no dtype gets the old class's default
    written out (`dtype=torch.float16` for CUDA, `dtype=torch.bfloat16` for the CPU): without
    it the new class would take the current autocast dtype, which an enclosing autocast or
    `torch.set_autocast_dtype` may have changed at run time. The fix spells `torch` with the
    name an earlier plain top-level `import torch` (or `import torch as th`) binds, and adds
    `import torch` after the file's last import above the call when there is none. No fix
    when `torch` is bound to something else, when the called name is imported from more than
    one place (`from torch.cpu.amp import autocast` under an `if`, `from torch.cuda.amp
    import autocast` under its `else`: which device it means is known only at run time),
    when the file may bind the imported name to something else (an assignment in module-level
    code or in a function that declares it `global`, a `match` capture, `globals().update(...)`
    or `exec` code): the call may not make the old class's object,
    when `*args` is unpacked into the old autocast,
    or when `**kwargs` may set its dtype. Unsafe when the file also uses one of the old
    classes other than by calling it (`isinstance(ctx, torch.cpu.amp.autocast)`, a subclass,
    `factory = autocast`): the fixed calls make `torch.amp` objects, which are not instances
    of the old subclass, so such a test changes its answer; and when the file reads the class
    of an object (`type(x)`, `x.__class__`): the class's name and module change; so do the
    old object's text, which names its class (`<torch.cpu.amp.autocast_mode.autocast object
    at ...>`), so the fix is unsafe too when the name the object is bound to (`ctx = ...`,
    `with ... as ctx`) is turned into text (`print(ctx)`, `str(ctx)`, an f-string, a
    logger's or file's `write`).

    ## Measured precision
    stable. 1.00 on the dev half (7/0) and held out (18/0). See docs/precision.md.
    """

    code = "TL602"
    impact = "low"
    name = "deprecated-amp-api"
    summary = "Deprecated `torch.cuda.amp`/`torch.cpu.amp` instead of `torch.amp` with a device type"
    triggers = ("autocast", "GradScaler")
    fix_applicability = Applicability.SAFE
    unsafe_when = "when the file also uses an old class itself, as in `isinstance` or a subclass, reads classes (`type(x)`), or turns an old object into text"
    bad_examples = (
        "import torch\nwith torch.cuda.amp.autocast():\n    loss = model(x)\n",
        "import torch\nfrom torch.cuda.amp import GradScaler\nscaler = GradScaler(enabled=use_amp)\n",
        "import torch\nwith torch.cpu.amp.autocast(dtype=torch.bfloat16):\n    loss = model(x)\n",
    )
    good_examples = (
        'import torch\nwith torch.amp.autocast("cuda"):\n    loss = model(x)\n',
        'import torch\nwith torch.autocast(device_type="cuda", dtype=torch.bfloat16):\n    loss = model(x)\n',
        'import torch\nscaler = torch.amp.GradScaler("cuda")\n',
        "import torch\nfrom apex.amp import autocast\nwith autocast():\n    loss = model(x)\n",
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.uncalled: Optional[Set[str]] = None  # `semantics.calls.uncalled_references`, asked once

    def _compatibility_shim(self, node: cst.Call) -> bool:
        """The old name kept on purpose as the fallback for older PyTorch: in an `except`
        whose `try` uses `torch.amp`, or in one branch of a conditional whose other branch does."""
        ancestors = self.ctx.ancestors
        for index in range(len(ancestors) - 1, 0, -1):
            ancestor, parent = ancestors[index], ancestors[index - 1]
            child = ancestors[index + 1] if index + 1 < len(ancestors) else node
            if isinstance(ancestor, cst.ExceptHandler) and isinstance(parent, (cst.Try, cst.TryStar)):
                return self._uses_new_api(parent.body)
            if isinstance(ancestor, (cst.If, cst.IfExp)):
                other = ancestor.orelse if child is ancestor.body else ancestor.body
                if other is not None and self._uses_new_api(other):
                    return True
        return False

    def _uses_new_api(self, node: cst.CSTNode) -> bool:
        return any(
            isinstance(item, cst.Attribute) and (self.ctx.qualified_name(item) or "").startswith("torch.amp.")
            for item in descendants(node)
        )

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.options.torch_version < DEPRECATED_SINCE:
            return
        qualified = self.ctx.qualified_name(node.func)
        if qualified not in DEPRECATED or self._compatibility_shim(node):
            return
        device, new_name, parameters = DEPRECATED[qualified]
        shown = f'torch.amp.{new_name}("{device}", ...)'
        self.report(
            node,
            f"`{qualified.replace('.autocast_mode', '').replace('.grad_scaler', '')}` is deprecated; use `{shown}`",
            fix=self._fix(node, device, new_name, parameters),
        )

    def _fix(self, node: cst.Call, device: str, new_name: str, parameters: Tuple[str, ...]) -> Optional[PendingFix]:
        """The `torch.amp` call. An autocast that relied on the old class's default dtype gets
        it written out (`dtype=torch.float16` for CUDA, `torch.bfloat16` for the CPU): the new
        class without `dtype=` takes the current autocast dtype, which an enclosing autocast
        or `torch.set_autocast_dtype` may have changed at run time."""
        root = (dotted_name(node.func) or "").partition(".")[0]
        if len(_imported_as(self.ctx.module, root)) > 1:
            return self.withheld(f"`{root}` is imported from more than one place (`torch.cpu.amp` or `torch.cuda.amp` by a condition): which device it means is not known")
        if _imported_as(self.ctx.module, root) and bound_besides_imports(self.ctx.module, root):
            return self.withheld(f"the file may bind `{root}` to something else (an assignment, `global`, a `match` capture, `globals()` or `exec`): the call may not be the old class's")
        binding = module_name(self.ctx.module, "torch", node)
        if binding is None:
            return self.withheld("`torch` cannot be imported above the call")
        torch_name, imports = binding
        if parameters and has_star(node, "*"):
            return self.withheld("unpacked positional arguments cannot be given keywords")
        args = list(node.args)
        for index, arg in enumerate(args):
            if arg.keyword is not None or arg.star:
                break
            if parameters:
                if index >= len(parameters):
                    return None  # more positional arguments than the old signature takes
                no_space = cst.SimpleWhitespace("")
                args[index] = arg.with_changes(
                    keyword=cst.Name(parameters[index]), equal=cst.AssignEqual(no_space, no_space)
                )
        device_arg = cst.Arg(cst.SimpleString(f'"{device}"'))
        if args:
            device_arg = device_arg.with_changes(comma=cst.Comma(whitespace_after=_separator(node)))
        new_call = node.with_changes(
            func=cst.parse_expression(f"{torch_name}.amp.{new_name}"), args=[device_arg, *args]
        )
        if new_name == "autocast" and _default_dtype(node):
            if has_star(node, "**"):
                return self.withheld("`**kwargs` may or may not set the dtype")
            new_call = with_keyword(new_call, "dtype", cst.parse_expression(f"{torch_name}.{DEFAULT_DTYPES[device]}"))
        edit, message = NodeEdit(node, new_call), f'Use `torch.amp.{new_name}("{device}", ...)`'
        if self.uncalled is None:
            self.uncalled = uncalled_references(self.ctx.module, self.ctx.qualified_name) & set(DEPRECATED)
        if self.uncalled:
            used = sorted(self.uncalled)[0].replace(".autocast_mode", "").replace(".grad_scaler", "")
            return self.unsafe_fix(f"the file also uses `{used}` itself (an `isinstance` test, a subclass), which the new objects are not", edit, *imports, message=message)
        shown = result_shown(self.ctx.module, node)
        if shown is not None:
            return self.unsafe_fix(f"`{shown}` is turned into text, which names the object's class, `torch.amp`'s after the fix", edit, *imports, message=message)
        if reads_classes(self.ctx.module, self.ctx.qualified_name):
            return self.unsafe_fix("the file reads the class of an object (`type(x)`, `x.__class__`), which names `torch.amp` after the fix", edit, *imports, message=message)
        return self.fix(edit, *imports, message=message)


def _default_dtype(call: cst.Call) -> bool:
    """Whether an old autocast call relies on its default dtype while enabled."""
    enabled = keyword(call, "enabled") or (positional(call)[0] if positional(call) else None)
    if enabled is not None and is_literal(enabled.value, "False"):
        return False
    return keyword(call, "dtype") is None and len(positional(call)) < 2


def _separator(call: cst.Call) -> cst.BaseParenthesizableWhitespace:
    """What follows the inserted device argument: the line break and indent before the first
    argument when it sits on a line of its own (without any comment there), else a space."""
    before = call.whitespace_before_args
    if isinstance(before, cst.ParenthesizedWhitespace):
        return before.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=())
    return cst.SimpleWhitespace(" ")


@per_module
def _imports_by_name(module: cst.Module) -> Dict[str, FrozenSet[str]]:
    """What each name the file's imports bind refers to: `{"autocast": {"torch.cpu.amp.autocast",
    "torch.cuda.amp.autocast"}}` for imports under `if`/`else` branches; a plain `import
    torch.nn` binds `torch` to the package `torch`."""
    found: Dict[str, Set[str]] = {}
    for node in nodes_of_type(module, (cst.Import, cst.ImportFrom)):
        if isinstance(node.names, cst.ImportStar):
            continue
        source = dotted_name(node.module) if isinstance(node, cst.ImportFrom) and node.module is not None else None
        for alias in node.names:
            full = dotted_name(alias.name) or ""
            if isinstance(node, cst.ImportFrom):
                full = f"{'.' * len(node.relative)}{source or ''}.{full}"
            bound = alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else full.partition(".")[0]
            if isinstance(node, cst.Import) and alias.asname is None:
                full = bound  # `import torch.nn` binds `torch`
            found.setdefault(bound if isinstance(node, cst.Import) or alias.asname else full.rpartition(".")[2], set()).add(full)
    return {name: frozenset(targets) for name, targets in found.items()}


def _imported_as(module: cst.Module, name: str) -> FrozenSet[str]:
    """The distinct things the file's imports bind `name` to."""
    return _imports_by_name(module).get(name, frozenset())
