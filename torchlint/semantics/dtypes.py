"""What kind of numbers a value holds, where the code says so: complex values, Python numbers."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torchlint.semantics.facts import FileFacts
from torchlint.semantics.kinds import Kind
from torchlint.semantics.names import dotted_name
from torchlint.semantics.project import COMPLEX_VALUES, project_uses
from torchlint.semantics.tree import nodes_of_type
from torchlint.semantics.values import assigned_values, only_assigned_value, string_value

# PyTorch's complex dtypes, as `torch.<name>` attributes and as NumPy/string spellings.
COMPLEX_DTYPES = frozenset({"complex32", "complex64", "complex128", "cfloat", "cdouble", "chalf"})
# Functions that return complex values for real inputs: torch's, the eigen-decompositions of a
# general matrix, a short-time Fourier transform, and Python's `complex()`; and NumPy's
# `poly1d`, whose roots (`p.r`, `p.roots`, an attribute, not a call) may be complex.
COMPLEX_FUNCTIONS = frozenset(
    {"torch.polar", "torch.complex", "torch.view_as_complex", "torch.linalg.eig", "torch.linalg.eigvals", "torch.stft", "complex",
     "numpy.linalg.eig", "numpy.linalg.eigvals", "numpy.roots", "numpy.poly1d"}
)
# Modules of Fourier transforms, most of whose results are complex, and NumPy's functions that
# return complex values for negative inputs (`np.emath.sqrt(-1)`); the module itself handed on
# as a value (`spectrum = np.fft`, `getattr(np.fft, "fft")`) may reach any of them.
COMPLEX_MODULES = ("torch.fft", "numpy.fft", "scipy.fft", "numpy.emath", "numpy.lib.scimath")
# Transforms of those modules whose result is real (the inverse real transforms).
REAL_FFT_RESULTS = frozenset({"irfft", "irfft2", "irfftn", "hfft", "hfft2", "hfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"})
# `dtype.to_complex()` (`torch.float32.to_complex()` is `torch.complex64`) makes a complex dtype.
COMPLEX_METHODS = frozenset({"cfloat", "cdouble", "chalf", "to_complex"})
# NumPy's complex scalar types (`np.csingle`, `np.complex_`), and the strings NumPy reads as a
# complex dtype (`dtype="c8"`); `torch.from_numpy` keeps the dtype.
NUMPY_COMPLEX_TYPES = COMPLEX_DTYPES | {"csingle", "clongdouble", "clongfloat", "longcomplex", "singlecomplex", "complex_", "complex256"}
COMPLEX_STRINGS = COMPLEX_DTYPES | {"c8", "c16", "c32", "csingle", "clongdouble"}
# NumPy's one-letter complex type codes and the name `"complex"` (complex128), complex only
# where NumPy reads the string as a dtype (`dtype="D"`, `a.astype("F")`, `np.dtype("complex")`):
# elsewhere such a string is ordinary text.
COMPLEX_TYPE_CODES = frozenset({"F", "D", "G", "complex"})
# Functions and methods whose first argument NumPy reads as a dtype.
DTYPE_TAKING = frozenset({"astype", "dtype", "view"})
# Tensor methods and attributes whose result is a Python number, and builtins that make one.
NUMBER_METHODS = frozenset({"size", "dim", "numel", "item", "element_size", "ndimension", "nelement"})
NUMBER_BUILTINS = frozenset({"float", "int", "len"})
INTEGER_BUILTINS = frozenset({"int", "len"})
INTEGER_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)
MAX_STEPS = 4


def makes_complex(node: cst.CSTNode, qualified: Optional[str]) -> bool:
    """Whether evaluating `node` (whose callee or attribute resolves to `qualified`) yields a
    complex value from real ones: an imaginary literal (`torch.exp(1j * phase)`), a complex
    dtype (`torch.cfloat`, `dtype="complex64"`), `torch.polar`, `torch.complex`,
    `view_as_complex`, `torch.linalg.eig` (NumPy's too), `np.roots` (and `np.polynomial`'s
    `polyroots`, `chebroots`, ..., and `np.poly1d`, whose `.r` holds its roots), `torch.stft`, a forward
    transform of `torch.fft`, `numpy.fft` or `scipy.fft`, `np.emath`/`np.lib.scimath`,
    `.cfloat()`, `complex(...)` or a `cmath` function, a negative number literal raised to a
    power that is not an integer literal (`(-1) ** (2 * k / n)`, `pow(-1, 0.5)`: Python's
    result is complex); also NumPy's complex types
    (`np.csingle`, `dtype="c8"`) and Python's `complex` used as a dtype (`dtype=complex`)."""
    if isinstance(node, cst.Imaginary):
        return True
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Power):
        return _negative_literal(node.left) and not isinstance(node.right, cst.Integer)
    if isinstance(node, cst.SimpleString):
        return _type_string(node) in COMPLEX_STRINGS
    if isinstance(node, cst.Name):
        return qualified in ("complex", "builtins.complex")
    if isinstance(node, cst.Attribute):
        if qualified is not None and qualified.startswith("numpy."):
            return node.attr.value in NUMPY_COMPLEX_TYPES
        return qualified is not None and qualified.startswith("torch.") and node.attr.value in COMPLEX_DTYPES
    if not isinstance(node, cst.Call):
        return False
    if qualified in COMPLEX_FUNCTIONS or (qualified or "").startswith("cmath.") or _complex_type_code(node):
        return True
    if qualified in ("pow", "builtins.pow") and len(node.args) >= 2 and _negative_literal(node.args[0].value):
        return not isinstance(node.args[1].value, cst.Integer)
    if (qualified or "").startswith("numpy.polynomial.") and (qualified or "").endswith("roots"):
        return True  # `polyroots`, `chebroots`, ...: the roots of a real polynomial may be complex
    if qualified is not None and qualified.rpartition(".")[0] in COMPLEX_MODULES:
        return qualified.rpartition(".")[2] not in REAL_FFT_RESULTS
    return isinstance(node.func, cst.Attribute) and node.func.attr.value in COMPLEX_METHODS and not node.args


def _negative_literal(node: cst.BaseExpression) -> bool:
    """A negative number written out (`-1`, `(-2.0)`): raised to a power that is not an
    integer literal (`(-1) ** (2 * k / n)`, `pow(-1, 0.5)`), Python gives a complex number."""
    return isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) and isinstance(node.expression, (cst.Integer, cst.Float))


def _dtype_by_computed_name(ctx: FileFacts, call: cst.Call) -> bool:
    """Whether `call` looks up an attribute of torch or NumPy by a name that is not a string
    literal (`getattr(torch, cfg["dtype"])`, `getattr(torch, f"complex{2 * bits}")`): it may
    name a complex dtype, which no text of the file spells."""
    if _qualified(ctx, call.func) not in ("getattr", "builtins.getattr") or len(call.args) < 2:
        return False
    owner = _qualified(ctx, call.args[0].value)
    return owner in ("torch", "numpy") and not isinstance(call.args[1].value, cst.SimpleString)


def _type_string(node: cst.SimpleString) -> Optional[str]:
    """The dtype a string names, without a NumPy byte-order prefix (`"<c8"` is `c8`)."""
    value = string_value(node)
    return value[1:] if value and len(value) > 1 and value[0] in "<>=|" else value


def _complex_type_code(call: cst.Call) -> bool:
    """Whether `call` hands NumPy a complex type code as its dtype: `dtype="D"` (also
    `dtype="complex"`, with a byte-order prefix `"<F"`), or the first argument of `astype`,
    `np.dtype` or `view` (`a.astype("F")`)."""
    for arg in call.args:
        given = arg.keyword is not None and arg.keyword.value == "dtype"
        first = arg.keyword is None and arg is call.args[0] and _callee_name(call.func) in DTYPE_TAKING
        if (given or first) and isinstance(arg.value, cst.SimpleString) and _type_string(arg.value) in COMPLEX_TYPE_CODES:
            return True
    return False


def _callee_name(func: cst.BaseExpression) -> Optional[str]:
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return func.value if isinstance(func, cst.Name) else None


def program_makes_complex(ctx: FileFacts) -> bool:
    """Whether the file makes complex values (`makes_complex`), or another module of its
    program (one it imports, or one that imports it) spells a complex value or dtype. A module
    of `COMPLEX_MODULES` used as a value rather than to name one of its functions
    (`spectrum = np.fft`, `getattr(np.fft, "fft")`) counts as making one, and so does a dtype
    looked up by a name the file does not spell (`getattr(torch, cfg["dtype"])`)."""
    nodes = nodes_of_type(ctx.module, (cst.Imaginary, cst.SimpleString, cst.Name, cst.Attribute, cst.Call, cst.BinaryOperation))
    named_through = {id(node.value) for node in nodes if isinstance(node, cst.Attribute)}
    for node in nodes:
        func = node.func if isinstance(node, cst.Call) else node
        if isinstance(node, (cst.Imaginary, cst.SimpleString, cst.Name, cst.Attribute, cst.Call, cst.BinaryOperation)) and makes_complex(
            node, None if isinstance(node, cst.BinaryOperation) else _qualified(ctx, func)
        ):
            return True
        if isinstance(node, cst.Call) and _dtype_by_computed_name(ctx, node):
            return True
        if isinstance(node, (cst.Name, cst.Attribute)) and id(node) not in named_through and _qualified(ctx, node) in COMPLEX_MODULES:
            return True
    return project_uses(ctx, COMPLEX_VALUES)


def _qualified(ctx: FileFacts, node: cst.CSTNode) -> Optional[str]:
    """The qualified name of `node`, read as written when the import that binds it is out of
    scope here (an import inside a function). Asked of nodes the traversal has not reached, so
    never through the context's cache, which holds the names of the nodes it stands on."""
    if not isinstance(node, (cst.Name, cst.Attribute)):
        return None
    return ctx.names.qualified_name(node) or dotted_name(node)


def reads_dtype(node: cst.BaseExpression) -> bool:
    """Whether `node` reads a tensor's or a parameter's dtype (`ref.dtype`,
    `next(model.parameters()).dtype`): a dtype whatever its name, never a device."""
    return isinstance(node, cst.Attribute) and node.attr.value == "dtype"


def python_number(ctx: FileFacts, node: cst.BaseExpression, depth: int = 0) -> bool:
    """Whether `node` is known to evaluate to a Python number, not a tensor: a literal, a
    `math` function, `float()`/`int()`/`len()`, a size (`x.size(-1)`, `x.shape[-1]`, `.ndim`,
    `.item()`), arithmetic on numbers, a name whose only assignment in the file is one, or an
    attribute `self.x` that every assignment in the file sets to one."""
    return _number(ctx, node, False, depth)


def python_integer(ctx: FileFacts, node: cst.BaseExpression) -> bool:
    """Whether `node` is known to evaluate to a Python int: as `python_number`, without
    floats (no float literal, `math` function, `.item()` or true division)."""
    return _number(ctx, node, True, 0)


def _number(ctx: FileFacts, node: cst.BaseExpression, integer: bool, depth: int) -> bool:
    if isinstance(node, cst.Integer) or (not integer and (ctx.kind_of(node) is Kind.NUMBER or isinstance(node, cst.Float))):
        return True
    if depth >= MAX_STEPS:
        return False
    if isinstance(node, cst.UnaryOperation):
        return (not integer or isinstance(node.operator, (cst.Minus, cst.Plus))) and _number(ctx, node.expression, integer, depth + 1)
    if isinstance(node, cst.BinaryOperation):
        if integer and not isinstance(node.operator, INTEGER_OPERATORS):
            return False
        return _number(ctx, node.left, integer, depth + 1) and _number(ctx, node.right, integer, depth + 1)
    if isinstance(node, cst.Call):
        qualified = _qualified(ctx, node.func) or ""
        builtins = INTEGER_BUILTINS if integer else NUMBER_BUILTINS
        if (not integer and qualified.startswith("math.")) or (isinstance(node.func, cst.Name) and node.func.value in builtins and ctx.names.lookup(node.func.value) is None):
            return True
        methods = NUMBER_METHODS - {"item"} if integer else NUMBER_METHODS
        return isinstance(node.func, cst.Attribute) and node.func.attr.value in methods and (node.func.attr.value != "size" or bool(node.args))
    if isinstance(node, cst.Subscript):
        return isinstance(node.value, cst.Attribute) and node.value.attr.value == "shape"
    if isinstance(node, cst.Attribute) and node.attr.value == "ndim":
        return True
    if isinstance(node, cst.Name):
        value = only_assigned_value(ctx.module, node)
        return value is not None and _number(ctx, value, integer, depth + 1)
    dotted = dotted_name(node)
    if dotted is not None and dotted.startswith("self.") and dotted.count(".") == 1:
        values = assigned_values(ctx.module, dotted)
        return bool(values) and all(_number(ctx, value, integer, depth + 1) for value in values)
    return False
