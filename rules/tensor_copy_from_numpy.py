from typing import Callable, Dict, Optional, Tuple

import libcst as cst

from torchlint.engine.findings import Applicability
from torchlint.engine.edits import module_name
from torchlint.engine.rule import NodeEdit, PendingFix, Rule
from torchlint.semantics.calls import has_star, keyword, method_call, positional
from torchlint.semantics.dtypes import python_integer
from torchlint.semantics.frequency import MAY_RUN_EVERY_STEP
from torchlint.semantics.kinds import TENSOR_KINDS, Kind
from torchlint.semantics.tree import descendants, per_module
from torchlint.semantics.values import only_assigned_value

COPYING_CONSTRUCTORS = frozenset({"torch.tensor", "torch.Tensor"})
# NumPy functions that always return an array with non-negative strides (never a NumPy scalar,
# which `torch.from_numpy` refuses, and never a read-only or reversed view).
ARRAY_FUNCTIONS = frozenset(
    "array asarray ascontiguousarray asfortranarray copy zeros ones empty full zeros_like ones_like "
    "empty_like full_like arange linspace logspace geomspace eye identity tri tril triu "
    "stack vstack hstack dstack column_stack concatenate reshape transpose expand_dims atleast_1d "
    "atleast_2d atleast_3d tile repeat pad load loadtxt genfromtxt fromfile".split()
)
# `numpy.random` functions that return an array when given a shape (positionally or as `size=`).
RANDOM_SHAPED = frozenset({"rand", "randn"})
RANDOM_SIZED = frozenset("random random_sample uniform normal standard_normal randint choice".split())
# Methods of an array that return another array.
ARRAY_METHODS = frozenset(
    "astype reshape copy transpose swapaxes squeeze flatten ravel clip round cumsum cumprod".split()
)
# NumPy functions and array methods that may return a view of their array argument (or the
# array itself), which is read-only when that array is (a memory map opened with `mmap_mode="r"`).
VIEW_FUNCTIONS = frozenset(
    "asarray asanyarray ascontiguousarray asfortranarray reshape transpose expand_dims squeeze ravel "
    "swapaxes moveaxis atleast_1d atleast_2d atleast_3d".split()
)
VIEW_METHODS = frozenset("reshape transpose swapaxes squeeze ravel view".split())
# Array methods that return a NumPy scalar, not an array, when the array has no dimensions
# (`np.array(reward).clip(-1, 1)`), and those that always return at least one dimension.
SCALAR_ON_0D_METHODS = frozenset({"clip", "round"})
FLAT_METHODS = frozenset({"flatten", "ravel", "cumsum", "cumprod"})
# NumPy functions whose result has the dimensions of their first argument, those that take a
# shape first, and those whose result has at least one dimension whatever they are given.
SHAPE_KEEPING = frozenset("zeros_like ones_like empty_like full_like copy asfortranarray transpose".split())
SHAPE_TAKING = frozenset({"zeros", "ones", "empty", "full"})
NEVER_0D = frozenset(
    "arange linspace logspace geomspace eye identity tri tril triu stack vstack hstack dstack column_stack "
    "concatenate expand_dims atleast_1d atleast_2d atleast_3d tile repeat fromfile ascontiguousarray".split()
)
# Position of `copy` in the array methods that take it (`a.astype(dtype, order, casting,
# subok, copy)`); NumPy functions take it as a keyword only.
COPY_POSITIONS = {"astype": 4}
# Keywords `torch.tensor` shares with a copy-free constructor: `torch.as_tensor(a, dtype=...)`
# copies only when the dtype differs. `device=`, `requires_grad=` and `pin_memory=` need a copy
# or a separate leaf anyway, so calls with them are not reported.
SHARED_KEYWORDS = frozenset({"dtype"})


class TensorCopyFromNumpy(Rule):
    """## What it does
    Flags `torch.tensor(array)` and `torch.Tensor(array)` when the argument is known to be a
    NumPy array: the result of a NumPy function that returns arrays (`np.zeros`,
    `np.asarray`, `np.stack`, `np.load`, ...), of `.numpy()`, or a name annotated
    `np.ndarray`.

    ## Why is this slow?
    `torch.tensor()` always copies its data: it allocates a new buffer and copies every
    element of the array into it, which costs time and memory in proportion to the array's
    size. `torch.from_numpy()` and `torch.as_tensor()` wrap the array's existing buffer
    instead, so creating the tensor costs the same for any size (on an H200, copying a
    batch of host arrays each step made an MLP step 1.35x slower, docs/gpu-results.md).
    `torch.Tensor(array)` (the legacy constructor) also copies, and converts to the default
    dtype on the way.

    To stay precise the rule is silent for lists, Python numbers and values of unknown type;
    for NumPy results that may be scalars (`np.mean(a)`, `a.sum()`, `a[0]`), which
    `torch.from_numpy` does not accept; and for calls that need a copy anyway or a separate
    tensor: `device=` (the copy to the device happens either way), `requires_grad=` and
    `pin_memory=`. It is also silent in code that runs once (module level, `__init__`, setup
    functions) or rarely: one copy of an array at startup costs nothing measurable.

    ## Example
    ```python
    batch = np.stack(images)
    x = torch.tensor(batch)
    ```

    ## Use instead
    ```python
    batch = np.stack(images)
    x = torch.from_numpy(batch)  # or torch.as_tensor(batch, dtype=...)
    ```

    ## Fix applicability
    Unsafe: the new tensor shares memory with the array, so later in-place writes to either
    one are visible in the other (a tensor changed in place changes the array, and an array
    changed after the call changes the tensor). The fix rewrites `torch.tensor(array)` to
    `torch.from_numpy(array)` only when no other argument is passed and the value is known to
    be an array from its assignment (not a NumPy scalar: an operator on arrays that may have
    no dimensions, `np.array(3.0) * 2`, gives one, which `torch.from_numpy` rejects; so do
    `clip` and `round` of such an array, `np.array(reward).clip(-1, 1)`, an operator on an
    array whose shape the file does not spell out, `np.zeros(obs.shape[1:]) * 0.9`,
    `np.ones_like(w) * 0.5` of such an array, or of `np.load`/`np.loadtxt`, and a
    `numpy.random` draw whose `size=` may be None, `size=noise_shape`: no fix); with `dtype=`, or for `torch.Tensor(array)`, it suggests
    `torch.as_tensor(array, dtype=...)` without a fix. No fix for a parameter that is an
    array only by its annotation: called with a list or a tensor, `torch.from_numpy` raises
    where `torch.tensor` did not. No fix either unless the array is known to be writable: a
    new array made by a NumPy function known to make one (`np.load` without `mmap_mode`,
    also not by position as in `np.load(path, "r")`, nor with arguments it cannot read,
    `np.load(path, **opts)`; not `np.memmap`, `np.broadcast_to` or
    `sliding_window_view`, which may be read-only), an operator, a
    copying method (`astype`, `copy`) or `Tensor.numpy()` (not in a file that makes tensor
    views whose elements share memory, `t.expand(n, d)`, `broadcast_to`, `as_strided`: the
    array of such a view is writable, but an in-place change of a tensor over it raises),
    or a view of such an array (a
call that may return its input is one: `np.array(mm, copy=False)`, `copy=None`,
`a.astype(np.float32, copy=False)`, `out=`), with
    no `a.flags.writeable = ...` or `a.setflags(...)` in between. An array of unknown origin
    may be read-only (`np.asarray(rows[i])` of a memory map opened with `mmap_mode="r"`), and
    an in-place change of a tensor sharing it crashes the process. No fix when the file
    resizes a value in place (`t.resize_(n)`, NumPy's `a.resize(n)` as a statement): shared
    memory cannot grow, so both raise.

    ## Measured precision
    preview. 0 TP, 6 FP over both halves of the real-code benchmark. See docs/precision.md.
    """

    code = "TL105"
    impact = "high"  # 1.35x on the H200 at size large (docs/gpu-results.md)
    name = "tensor-copy-from-numpy"
    preview = True  # measured precision below 0.90 (docs/precision.md)
    summary = "`torch.tensor()` copies a NumPy array that `torch.from_numpy()` could share"
    triggers = ("tensor(", "Tensor(")
    fix_applicability = Applicability.UNSAFE
    frequencies = MAY_RUN_EVERY_STEP
    bad_examples = (
        "import numpy as np\nimport torch\nfor i in range(n):\n    x = torch.tensor(np.zeros((3, 4)))\n",
        "import numpy as np\nimport torch\ndef f(a: np.ndarray):\n    return torch.tensor(a)\n",
        "import numpy\nfrom torch import Tensor\nfor rows in batches:\n    batch = numpy.stack(rows)\n    x = Tensor(batch)\n",
        "import torch as th\nfor t in outputs:\n    y = th.tensor(t.cpu().numpy(), dtype=th.float32)\n",
    )
    good_examples = (
        "import numpy as np\nimport torch\nx = torch.from_numpy(np.zeros((3, 4)))\n",
        "import numpy as np\nimport torch\nclass Net(torch.nn.Module):\n    def __init__(self, a: np.ndarray):\n        self.a = torch.tensor(a)\n",
        "import torch\nx = torch.tensor([1, 2, 3])\n",
        "import torch\nx = torch.tensor(data)\n",
        "import numpy as np\nimport torch\nx = torch.tensor(np.mean(a))\n",
        "import numpy as np\nimport torch\nx = torch.tensor(np.zeros(3), device='cuda')\n",
        "import numpy as np\nfrom mylib import tensor\nx = tensor(np.zeros(3))\n",
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        # (scope node id, name) -> whether its latest NumPy assignment certainly holds an array.
        self.arrays: Dict[Tuple[int, str], bool] = {}
        # (scope node id, name) -> whether that array is known to be writable (a new array).
        self.writable: Dict[Tuple[int, str], bool] = {}
        # (scope node id, name) -> whether that array may have no dimensions (`np.array(3.0)`).
        self.dimensionless: Dict[Tuple[int, str], bool] = {}
        # The same, read more strictly for the fix (a shape the file does not spell out may be
        # empty: `np.zeros(obs.shape[1:])`), and whether the value may be a NumPy scalar.
        self.shapeless: Dict[Tuple[int, str], bool] = {}
        self.scalar: Dict[Tuple[int, str], bool] = {}

    def leave_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                self._note(target.target.value, node.value)
            else:
                self._lose_writability(target.target)  # `a.flags.writeable = False`

    def leave_AnnAssign(self, node: cst.AnnAssign) -> None:
        if not isinstance(node.target, cst.Name):
            return
        if self.ctx.values.annotation_kind(node.annotation.annotation) is Kind.NDARRAY:
            self.arrays[(self._scope(), node.target.value)] = True
        elif node.value is not None:
            self._note(node.target.value, node.value)

    def leave_NamedExpr(self, node: cst.NamedExpr) -> None:
        if isinstance(node.target, cst.Name):
            self._note(node.target.value, node.value)

    def _note(self, name: str, value: cst.BaseExpression) -> None:
        key = (self._scope(), name)
        if self.ctx.kind_of(value) is Kind.NDARRAY:
            self.arrays[key] = self._is_array(value)
            self.writable[key] = self._writable(value)
            self.dimensionless[key] = self._may_be_dimensionless(value)
            self.shapeless[key] = self._may_lack_dimensions(value)
            self.scalar[key] = self._may_be_scalar(value)
        else:
            for table in (self.arrays, self.writable, self.dimensionless, self.shapeless, self.scalar):
                table.pop(key, None)

    def _through_names_and_operators(
        self, node: cst.BaseExpression, table: Dict[Tuple[int, str], bool], test: Callable[[cst.BaseExpression], bool]
    ) -> Optional[bool]:
        """`test`'s answer for a name (what `table` holds for it, True when unknown) or an
        operator on arrays (every array operand's answer); None for anything else."""
        if isinstance(node, cst.Name):
            key = self._key(node)
            return key is None or table.get(key, True)
        if isinstance(node, (cst.BinaryOperation, cst.UnaryOperation)):
            operands = [node.left, node.right] if isinstance(node, cst.BinaryOperation) else [node.expression]
            return all(test(operand) for operand in operands if self.ctx.kind_of(operand) is Kind.NDARRAY)
        return None

    def _may_be_dimensionless(self, node: cst.BaseExpression) -> bool:
        """Whether an array may have no dimensions: made by `np.array`/`np.asarray` of
        something other than a list or tuple literal (`np.array(3.0)`), or with an empty
        shape (`np.zeros(())`), or from such an array. An operator on such arrays gives a
        NumPy scalar, which `torch.from_numpy` rejects."""
        known = self._through_names_and_operators(node, self.dimensionless, self._may_be_dimensionless)
        if known is not None:
            return known
        if not isinstance(node, cst.Call):
            return True
        first = positional(node)[0].value if positional(node) else None
        name = (self.ctx.qualified_name(node.func) or "").rpartition(".")[2]
        if name in ("array", "asarray", "asanyarray", "ascontiguousarray"):
            return not isinstance(first, (cst.List, cst.Tuple, cst.ListComp))
        return isinstance(first, cst.Tuple) and not first.elements

    def _may_lack_dimensions(self, node: cst.BaseExpression) -> bool:
        """For the fix: whether an array may have no dimensions, unless the code shows it has
        one: a shape it spells out (`np.zeros(3)`, `np.zeros((n, 2))`), a function or method
        that always returns one (`np.stack`, `.flatten()`), or an array with one that a
        function or method keeps the shape of (`np.zeros_like(a)`, `a.astype(...)`). A shape
        read at run time may be empty (`np.zeros(obs.shape[1:])` of 1-D observations), and
        `np.load`, `np.loadtxt` or `.squeeze()` may return an array without dimensions."""
        known = self._through_names_and_operators(node, self.shapeless, self._may_lack_dimensions)
        if known is not None:
            return known
        if not isinstance(node, cst.Call):
            return True
        args = positional(node)
        qualified = self.ctx.qualified_name(node.func) or ""
        if qualified.startswith("numpy."):
            name = qualified.partition(".")[2]
            if name in ("array", "asarray", "asanyarray"):
                return not (args and isinstance(args[0].value, (cst.List, cst.Tuple, cst.ListComp)))
            if name in SHAPE_TAKING:
                shape = keyword(node, "shape") or (args[0] if args else None)
                return shape is None or not self._shape_given(shape.value)
            if name in SHAPE_KEEPING:
                return not args or self._may_lack_dimensions(args[0].value)
            if name == "reshape":
                return len(args) < 2 or not self._shape_given(args[1].value)
            if name.startswith("random."):
                size = keyword(node, "size")
                if size is not None:
                    return not self._shape_given(size.value)
                return not (name == "random.permutation" or (name.partition(".")[2] in RANDOM_SHAPED and args))
            return name not in NEVER_0D
        found = method_call(node)
        if found is None or self.ctx.kind_of(found[0]) is not Kind.NDARRAY:
            return True
        receiver, method = found
        if method in FLAT_METHODS:
            return False
        if method == "reshape":
            return len(args) == 0 or not all(self._shape_given(arg.value) for arg in args)
        return method == "squeeze" or method not in ARRAY_METHODS or self._may_lack_dimensions(receiver)

    def _shape_given(self, node: cst.BaseExpression, depth: int = 0) -> bool:
        """Whether `node` is a shape with at least one dimension: an int, a non-empty tuple
        or list literal, or a name the file binds only to one."""
        if isinstance(node, (cst.Tuple, cst.List)):
            return bool(node.elements) and not any(isinstance(e, cst.StarredElement) for e in node.elements)
        if isinstance(node, cst.Subscript) and any(isinstance(element.slice, cst.Slice) for element in node.slice):
            return False  # `obs.shape[1:]` is a shape, which may be empty
        if isinstance(node, cst.Integer) or python_integer(self.ctx, node):
            return True
        if isinstance(node, cst.Name) and depth < 3:
            value = only_assigned_value(self.ctx.module, node)
            return value is not None and self._shape_given(value, depth + 1)
        return False

    def _may_be_scalar(self, node: cst.BaseExpression) -> bool:
        """For the fix: whether a value the rule takes for an array may be a NumPy scalar,
        which `torch.from_numpy` rejects: an operator on arrays that may have no dimensions
        (`running * 0.9` after `running = np.zeros(obs.shape[1:])`), `clip` or `round` of
        such an array (`np.array(reward).clip(-1, 1)`), a copying method of such a scalar, or
        a `numpy.random` draw whose `size=` may be None (`size=noise_shape`)."""
        if isinstance(node, cst.Name):
            key = self._key(node)
            return key is not None and self.scalar.get(key, False)
        if isinstance(node, cst.BinaryOperation):
            return self._may_lack_dimensions(node)
        if not isinstance(node, cst.Call):
            return False
        qualified = self.ctx.qualified_name(node.func) or ""
        if qualified.startswith("numpy.random."):
            size = keyword(node, "size")
            return size is not None and not (isinstance(size.value, cst.Tuple) or self._shape_given(size.value))
        found = method_call(node)
        if found is None or self.ctx.kind_of(found[0]) is not Kind.NDARRAY or found[1] in FLAT_METHODS:
            return False
        receiver, method = found
        return (method in SCALAR_ON_0D_METHODS and self._may_lack_dimensions(receiver)) or self._may_be_scalar(receiver)

    def _lose_writability(self, changed: cst.BaseExpression) -> None:
        """An array whose attributes are set (`a.flags.writeable = False`) or whose flags are
        changed (`a.setflags(write=False)`) is no longer known to be writable."""
        if isinstance(changed, cst.Subscript):
            changed = changed.value  # `a.flags["WRITEABLE"] = False`; not `a[0] = 1`
        if not isinstance(changed, cst.Attribute):
            return
        while isinstance(changed, cst.Attribute):
            changed = changed.value
        key = self._key(changed) if isinstance(changed, cst.Name) else None
        if key is not None:
            self.writable[key] = False

    def _key(self, name: cst.Name) -> Optional[Tuple[int, str]]:
        """(scope node id, name) of the scope that binds `name`."""
        for scope in reversed(self.ctx.names.scopes):
            if name.value in scope.bindings:
                return id(scope.node), name.value
        return None

    def _writable(self, node: cst.BaseExpression) -> bool:
        """Whether `node` is known to be a writable array: a new array made by a NumPy
        function, an operator, a copying method or `Tensor.numpy()`, or a view of one; not a
        memory map or an array of unknown origin (its item, slice or `np.asarray` of it may be
        read-only, and a tensor sharing it would crash on an in-place change)."""
        if isinstance(node, cst.Name):
            key = self._key(node)
            return key is not None and self.writable.get(key, False)
        if isinstance(node, (cst.BinaryOperation, cst.UnaryOperation)):
            return True
        if not isinstance(node, cst.Call):
            return False
        qualified = self.ctx.qualified_name(node.func) or ""
        if qualified.startswith("numpy."):
            if qualified.partition(".")[2] not in VIEW_FUNCTIONS and not _may_return_input(node, None):
                # a new array only from the functions known to make one (`np.memmap`,
                # `np.broadcast_to` and `sliding_window_view` may be read-only)
                return _array_function(qualified, node)
            source = positional(node)[0].value if positional(node) else None
            return source is not None and (self.ctx.kind_of(source) is Kind.OTHER or self._writable(source))
        found = method_call(node)
        if found is None:
            return False
        receiver, method = found
        if method == "numpy":
            # a tensor's memory is writable, but an expanded view's elements share it (zero
            # strides), and an in-place change of a tensor over such memory raises
            return not _makes_overlapping_views(self.ctx.module)
        shares = method in VIEW_METHODS or _may_return_input(node, COPY_POSITIONS.get(method))
        return self.ctx.kind_of(receiver) is Kind.NDARRAY and (not shares or self._writable(receiver))

    def _scope(self) -> int:
        return id(self.ctx.names.scopes[-1].node)

    def visit_Call(self, node: cst.Call) -> None:
        found = method_call(node)
        if found is not None and found[1] == "setflags":
            self._lose_writability(node.func)
        qualified = self.ctx.qualified_name(node.func)
        if qualified not in COPYING_CONSTRUCTORS or has_star(node, "*") or has_star(node, "**"):
            return
        args = positional(node)
        if len(args) != 1 or any(arg.keyword is not None and arg.keyword.value not in SHARED_KEYWORDS for arg in node.args):
            return
        if qualified == "torch.Tensor" and len(node.args) != 1:
            return
        data = args[0].value
        if self.ctx.kind_of(data) is not Kind.NDARRAY or not self._is_array(data) or not self.runs_often(node):
            return
        if qualified == "torch.tensor" and len(node.args) == 1:
            advice = "use `torch.from_numpy()` to share its memory"
        else:
            advice = "use `torch.as_tensor(array, dtype=...)`, which copies only when the dtype differs"
        shown = "torch.tensor()" if qualified == "torch.tensor" else "torch.Tensor()"
        fix = self._fix(node, qualified)
        if fix is not None and self._annotated_only(data):
            fix = self.withheld(f"`{data.value}` is an array only by its annotation; `torch.from_numpy` raises for a list or a reversed view")  # type: ignore[attr-defined]
        elif fix is not None and not self._writable(data):
            fix = self.withheld(
                "the array may be read-only or have elements that share memory (a memory map, a view of one, `.numpy()` of an expanded tensor): "
                "a tensor sharing it would crash on an in-place change"
            )
        elif fix is not None and self._may_be_scalar(data):
            fix = self.withheld("the value may be a NumPy scalar (an operator, `clip` or `round` on an array without dimensions, a draw with `size=None`), which `torch.from_numpy` rejects")
        elif fix is not None and _resizes_in_place(self.ctx.module):
            fix = self.withheld("the file resizes a tensor or an array in place (`resize_`, `ndarray.resize`), which fails for memory they share")
        self.report(node, f"`{shown}` copies the whole NumPy array; {advice}", fix=fix)

    def _annotated_only(self, node: cst.BaseExpression) -> bool:
        """A name whose array kind comes from an annotation, not from an assignment seen here."""
        if not isinstance(node, cst.Name):
            return False
        for scope in reversed(self.ctx.names.scopes):
            if node.value in scope.bindings:
                return (id(scope.node), node.value) not in self.arrays
        return False

    def _is_array(self, node: cst.BaseExpression) -> bool:
        """Whether `node` certainly evaluates to an ndarray, not a NumPy scalar."""
        if isinstance(node, cst.Name):
            for scope in reversed(self.ctx.names.scopes):
                if node.value in scope.bindings:
                    # A name without a tracked assignment got its kind from an annotation.
                    return self.arrays.get((id(scope.node), node.value), True)
            return False
        if isinstance(node, cst.BinaryOperation) and not isinstance(node.operator, cst.MatrixMultiply):
            # broadcasting keeps an array of at least one dimension; on arrays without one,
            # an operator gives a NumPy scalar
            return any(self._is_array(side) and not self._may_be_dimensionless(side) for side in (node.left, node.right))
        if not isinstance(node, cst.Call):
            return False
        qualified = self.ctx.qualified_name(node.func) or ""
        if qualified.startswith("numpy."):
            return _array_function(qualified, node)
        if isinstance(node.func, cst.Attribute):
            method = node.func.attr.value
            if method == "numpy" and not node.args:
                # `Tensor.numpy()` returns an ndarray even for zero-dimensional tensors (other
                # libraries' `.numpy()` may return NumPy scalars).
                return self.ctx.kind_of(node.func.value) in TENSOR_KINDS
            return method in ARRAY_METHODS and self.ctx.kind_of(node.func.value) is Kind.NDARRAY and self._is_array(node.func.value)
        return False

    def _fix(self, node: cst.Call, qualified: str) -> Optional[PendingFix]:
        if qualified != "torch.tensor" or len(node.args) != 1:
            return None
        func = node.func
        imports: Tuple[NodeEdit, ...] = ()
        if isinstance(func, cst.Attribute):
            new_func: cst.BaseExpression = func.with_changes(attr=cst.Name("from_numpy"))
        else:
            binding = module_name(self.ctx.module, "torch", node)
            if binding is None:
                return None
            new_func = cst.Attribute(value=cst.Name(binding[0]), attr=cst.Name("from_numpy"))
            imports = binding[1]
        return self.fix(NodeEdit(func, new_func), *imports, message="Share the array's memory with `torch.from_numpy()`")


def _array_function(qualified: str, call: cst.Call) -> bool:
    """`numpy.<function>(...)` calls that return arrays for any arguments."""
    parts = qualified.split(".")
    if any(arg.star for arg in call.args):
        # `np.load(path, **opts)` may map the file read-only, `np.array(a, **opts)` may
        # return `a` itself (`copy=False`): arguments it cannot read may say either.
        return False
    if len(parts) == 2:
        # `np.load` may map the file read-only or unpickle objects (also by position:
        # `np.load(path, "r")` is `mmap_mode="r"`).
        loads_plainly = parts[1] != "load" or (
            len(positional(call)) <= 1 and keyword(call, "allow_pickle") is None and keyword(call, "mmap_mode") is None
        )
        return parts[1] in ARRAY_FUNCTIONS and loads_plainly
    if len(parts) == 3 and parts[1] == "random":
        if parts[2] == "permutation":
            return True
        if parts[2] in RANDOM_SHAPED:
            return bool(call.args)
        return parts[2] in RANDOM_SIZED and keyword(call, "size") is not None
    return False


def _may_return_input(call: cst.Call, copy_position: Optional[int]) -> bool:
    """Whether a NumPy call that makes a new array by default may return its input (or a
    view of it) instead: `copy=` other than a literal `True` (`np.array(mm, copy=False)`,
    `copy=None`, `a.astype(np.float32, copy=False)` of an array already of that dtype, also
    by position), or `out=` (the result is the array it names)."""
    given = keyword(call, "copy")
    copy = given.value if given is not None else None
    if copy is None and copy_position is not None and len(positional(call)) > copy_position:
        copy = positional(call)[copy_position].value
    if copy is not None and not (isinstance(copy, cst.Name) and copy.value == "True"):
        return True
    out = keyword(call, "out")
    return out is not None and not (isinstance(out.value, cst.Name) and out.value.value == "None")


# Calls that make a view whose elements may share memory (zero or overlapping strides).
OVERLAPPING_VIEWS = frozenset({"expand", "expand_as", "broadcast_to", "broadcast_tensors", "as_strided"})


@per_module
def _makes_overlapping_views(module: cst.Module) -> bool:
    """Whether the file makes a tensor view whose elements may share memory (`t.expand(n, d)`,
    `torch.broadcast_to`, `as_strided`): its `.numpy()` is such an array too, writable, and an
    in-place change of a tensor over it raises ("more than one element of the written-to
    tensor refers to a single memory location")."""
    return any(
        isinstance(node, cst.Call) and isinstance(node.func, (cst.Attribute, cst.Name))
        and (node.func.attr.value if isinstance(node.func, cst.Attribute) else node.func.value) in OVERLAPPING_VIEWS
        for node in descendants(module)
    )


@per_module
def _resizes_in_place(module: cst.Module) -> bool:
    """Whether the file resizes a value in place: `t.resize_(n)`, or `a.resize(n)` as a
    statement of its own (NumPy's in-place resize returns None; PIL's `img.resize(size)`
    returns a new image that the code uses)."""
    for node in descendants(module):
        found = method_call(node.value if isinstance(node, cst.Expr) else node)
        if found is not None and (found[1] == "resize_" or (found[1] == "resize" and isinstance(node, cst.Expr))):
            return True
    return False
