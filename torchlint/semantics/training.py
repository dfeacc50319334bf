"""The training step loop, DDP-wrapped modules and project-wide settings.

A *training loop* is a `for` loop over a data loader whose body runs a backward pass and an
optimizer step, directly or through functions defined in the same file. Rules whose evidence
is project-wide (mixed precision, cuDNN autotuning, TF32) ask whether the script, or a module
it imports from the same project, enables a feature anywhere; those modules are read as text,
never imported or executed.
"""

from __future__ import annotations

import io
import os
import re
import tokenize
import weakref
from functools import lru_cache
from typing import TYPE_CHECKING, Dict, FrozenSet, Iterator, List, Optional, Set, Tuple

import libcst as cst

from torchlint.semantics.calls import method_call
from torchlint.semantics.names import dotted_name
from torchlint.semantics.tree import children, descendants, iterated_source

if TYPE_CHECKING:
    from torchlint.engine.context import FileContext

DATALOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})
DISTRIBUTED_DATA_PARALLEL = frozenset(
    {"torch.nn.parallel.DistributedDataParallel", "torch.nn.parallel.distributed.DistributedDataParallel"}
)
BACKWARD = "backward"
STEP = "step"

# Features a script can enable (or deliberately set) somewhere, as patterns over its code
# with comments removed. Setting the switch to any value counts: `benchmark = args.benchmark`
# and `set_float32_matmul_precision("highest")` are deliberate choices, not omissions.
AUTOCAST = "autocast"
CUDNN_BENCHMARK = "cudnn_benchmark"
CUDNN_DETERMINISTIC = "cudnn_deterministic"
TF32 = "tf32"
CONVOLUTION = "convolution"
VARIABLE_SHAPES = "variable_shapes"
FEATURES: Dict[str, re.Pattern] = {
    # `torch.autocast`, `torch.amp.autocast`, `torch.cuda.amp.autocast`, `from torch import autocast`,
    # and low-precision training chosen by other means (`mixed_precision=`, `model.half()`).
    AUTOCAST: re.compile(r"\bautocast\b|\bmixed_precision\b|\.half\(\)|\.bfloat16\(\)"),
    CUDNN_BENCHMARK: re.compile(r"\bcudnn\.benchmark\s*=(?!=)|\bbenchmark_cudnn\b"),
    CUDNN_DETERMINISTIC: re.compile(r"\bcudnn\.deterministic\s*=(?!=)|\buse_deterministic_algorithms\s*\("),
    TF32: re.compile(
        r"\bmatmul\.allow_tf32\s*=(?!=)|\bset_float32_matmul_precision\s*\(|\bfp32_precision\s*=(?!=)"
    ),
    # Padded or packed variable-length batches: input shapes change from step to step.
    VARIABLE_SHAPES: re.compile(r"\bpad_sequence\b|\bpack_padded_sequence\b|\bpack_sequence\b"),
    CONVOLUTION: re.compile(
        r"\bConv(?:Transpose)?[123]d\b|\bLazyConv(?:Transpose)?[123]d\b|\bconv(?:_transpose)?[123]d\s*\(|"
        r"\btorchvision\.models\b|\bfrom\s+torchvision\s+import\s+[^\n]*\bmodels\b"
    ),
}
# `import torch.backends.cudnn as cb` / `from torch.backends import cudnn as cb`: `cb.benchmark = ...`.
_CUDNN_ALIAS = re.compile(r"(?:import\s+torch\.backends\.cudnn|from\s+torch\.backends\s+import\s+cudnn)\s+as\s+(\w+)")
_LOADER_WORD = "loader"
# Import statements of a module's text: `from .x import a, b`, `from pkg.x import (a, b)`, `import a.b, c as d`.
_FROM_IMPORT = re.compile(r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*)", re.MULTILINE)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([^\n#;]+)", re.MULTILINE)
_PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")
# How many project modules one script's imports may pull in (transitively) before the search stops.
MAX_PROJECT_MODULES = 200
# How far up from the script the search for a project root goes.
MAX_ROOT_LEVELS = 3


# ---------------------------------------------------------------------------------------------
# Training loops


def loader_names(module: cst.Module, ctx: "FileContext") -> FrozenSet[str]:
    """Dotted names (`loader`, `self.train_dl`) assigned a torch `DataLoader(...)` in the file.

    Names resolve through the module's imports (aliases included): call it after the traversal
    has seen them, for example from `leave_Module`.
    """
    names: Set[str] = set()
    for node in descendants(module):
        if isinstance(node, cst.Assign) and isinstance(node.value, cst.Call):
            if ctx.qualified_name(node.value.func) in DATALOADERS:
                names.update(filter(None, (dotted_name(target.target) for target in node.targets)))
        elif isinstance(node, cst.AnnAssign) and isinstance(node.value, cst.Call):
            if ctx.qualified_name(node.value.func) in DATALOADERS:
                name = dotted_name(node.target)
                if name:
                    names.add(name)
    return frozenset(names)


def is_loader_like(node: cst.BaseExpression, loaders: FrozenSet[str] = frozenset()) -> bool:
    """Whether a loop iterates a data loader: `loader`, `enumerate(tqdm(self.train_loader))`,
    `loaders["train"]`, `dm.train_dataloader()`, or a name in `loaders` (see `loader_names`)."""
    node = iterated_source(node)
    if dotted_name(node) in loaders:
        return True
    while True:
        if isinstance(node, cst.Subscript):
            node = node.value
        elif isinstance(node, cst.Call):
            node = node.func
        else:
            break
    if isinstance(node, cst.Name):
        return _LOADER_WORD in node.value.lower()
    if isinstance(node, cst.Attribute):
        return _LOADER_WORD in node.attr.value.lower()
    return False


def local_functions(module: cst.Module) -> Dict[str, List[cst.FunctionDef]]:
    """Functions and methods defined anywhere in the file, by name."""
    found: Dict[str, List[cst.FunctionDef]] = {}
    for node in descendants(module):
        if isinstance(node, cst.FunctionDef):
            found.setdefault(node.name.value, []).append(node)
    return found


def called_function(call: cst.Call, functions: Dict[str, List[cst.FunctionDef]]) -> List[cst.FunctionDef]:
    """The same-file functions a call may run: `train_step(...)` or `self.train_step(...)`."""
    func = call.func
    if isinstance(func, cst.Name):
        return functions.get(func.value, [])
    if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in ("self", "cls"):
        return functions.get(func.attr.value, [])
    return []


def body_nodes(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Nodes that run when `node` runs: its descendants, without nested function/class bodies."""
    stack: List[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        yield current
        if current is not node and isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            continue
        stack.extend(children(current))


def methods_called(
    node: cst.CSTNode, functions: Dict[str, List[cst.FunctionDef]], _seen: Optional[Set[int]] = None
) -> Set[str]:
    """Names of the methods called by `node`, directly or in same-file functions it calls."""
    seen = _seen if _seen is not None else set()
    names: Set[str] = set()
    for item in body_nodes(node):
        if not isinstance(item, cst.Call):
            continue
        found = method_call(item)
        if found is not None:
            names.add(found[1])
        for function in called_function(item, functions):
            if id(function) not in seen:
                seen.add(id(function))
                names |= methods_called(function.body, functions, seen)
    return names


def is_training_loop(
    loop: cst.CSTNode,
    ctx: "FileContext",
    functions: Optional[Dict[str, List[cst.FunctionDef]]] = None,
    loaders: Optional[FrozenSet[str]] = None,
) -> bool:
    """A `for` loop over a data loader whose body calls `.backward()` and `.step()`,
    directly or in functions defined in the same file that it calls."""
    if not isinstance(loop, cst.For):
        return False
    if loaders is None:
        loaders = loader_names(ctx.module, ctx)
    if not is_loader_like(loop.iter, loaders):
        return False
    if functions is None:
        functions = local_functions(ctx.module)
    called = methods_called(loop.body, functions)
    return BACKWARD in called and STEP in called


_TRAINING_LOOPS: "weakref.WeakKeyDictionary[FileContext, Tuple[cst.For, ...]]" = weakref.WeakKeyDictionary()


def training_loops(ctx: "FileContext") -> Tuple[cst.For, ...]:
    """The file's training loops in source order, computed once per file.

    Call it after the traversal has seen the module's imports (from `leave_Module`).
    """
    found = _TRAINING_LOOPS.get(ctx)
    if found is None:
        functions = local_functions(ctx.module)
        loaders = loader_names(ctx.module, ctx)
        loops = [node for node in _in_order(ctx.module) if is_training_loop(node, ctx, functions, loaders)]
        found = tuple(loops)  # type: ignore[arg-type]
        _TRAINING_LOOPS[ctx] = found
    return found


def _in_order(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))


def is_ddp_wrap(call: cst.Call, ctx: "FileContext") -> bool:
    """`DistributedDataParallel(model, ...)` from torch, however imported."""
    return ctx.qualified_name(call.func) in DISTRIBUTED_DATA_PARALLEL


# ---------------------------------------------------------------------------------------------
# Features enabled in the file or the project


@lru_cache(maxsize=16)
def code_text(text: str) -> str:
    """`text` without comments (so that `# torch.backends.cudnn.benchmark = True` does not count).

    Text that does not tokenize is returned as it is. Cached: every rule asking about a
    project-wide feature asks about the same file.
    """
    lines = text.splitlines(keepends=True)
    try:
        comments = [token.start for token in tokenize.generate_tokens(io.StringIO(text).readline) if token.type == tokenize.COMMENT]
    except (tokenize.TokenError, IndentationError, SyntaxError, ValueError):
        return text
    for row, column in comments:
        line = lines[row - 1]
        lines[row - 1] = line[:column] + line[len(line.rstrip("\r\n")):]
    return "".join(lines)


def file_enables(text: str, feature: str) -> bool:
    """Whether the code in `text` (comments ignored) enables or sets `feature` (see FEATURES)."""
    return feature in _features(code_text(text))


@lru_cache(maxsize=1024)
def _features(code: str) -> FrozenSet[str]:
    found = {name for name, pattern in FEATURES.items() if pattern.search(code)}
    for alias in _CUDNN_ALIAS.findall(code):
        escaped = re.escape(alias)
        if re.search(rf"\b{escaped}\.benchmark\s*=(?!=)", code):
            found.add(CUDNN_BENCHMARK)
        if re.search(rf"\b{escaped}\.deterministic\s*=(?!=)", code):
            found.add(CUDNN_DETERMINISTIC)
    return frozenset(found)


def project_enables(ctx: "FileContext", feature: str) -> bool:
    """Whether the file, or a module it imports (transitively) from the same project, sets `feature`."""
    if file_enables(ctx.text, feature):
        return True
    if not os.path.isfile(ctx.path):
        return False  # text from stdin or a test: there are no neighbours to read
    path = os.path.abspath(ctx.path)
    return any(feature in _file_features(module, *_stamp(module)) for module in project_modules(path, ctx.text))


def project_modules(path: str, text: str) -> List[str]:
    """Absolute paths of the project's `.py` files that `text` (the file at `path`) imports,
    directly or through other project modules, in discovery order."""
    return list(_project_modules(os.path.abspath(path), text))


@lru_cache(maxsize=256)
def _project_modules(path: str, text: str) -> Tuple[str, ...]:
    roots = search_roots(path)
    found: List[str] = []
    seen = {os.path.abspath(path)}
    queue = [(os.path.abspath(path), text)]
    while queue and len(found) < MAX_PROJECT_MODULES:
        current, current_text = queue.pop(0)
        for module in imported_files(current, current_text, roots):
            if module not in seen:
                seen.add(module)
                found.append(module)
                queue.append((module, _read(module, *_stamp(module))))
    return tuple(found)


def search_roots(path: str) -> Tuple[str, ...]:
    """Directories absolute imports of the file at `path` may resolve against: its own
    directory, the parent of its top-level package, and ancestors up to the project root."""
    directory = os.path.dirname(os.path.abspath(path))
    roots = [directory]
    top = directory
    while os.path.isfile(os.path.join(top, "__init__.py")) and os.path.dirname(top) != top:
        top = os.path.dirname(top)
    roots.append(top)
    current = directory
    for _ in range(MAX_ROOT_LEVELS):
        if any(os.path.exists(os.path.join(current, marker)) for marker in _PROJECT_MARKERS):
            break
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
        roots.append(current)
    if any(os.path.exists(os.path.join(current, marker)) for marker in _PROJECT_MARKERS):
        roots.extend([current, os.path.join(current, "src")])
    unique: List[str] = []
    for root in roots:
        if root not in unique:
            unique.append(root)
    return tuple(unique)


def imported_files(path: str, text: str, roots: Tuple[str, ...]) -> List[str]:
    """The project `.py` files that the import statements of `text` name (packages and modules)."""
    directory = os.path.dirname(path)
    found: List[str] = []
    code = code_text(text)
    for dots, module, names in _FROM_IMPORT.findall(code):
        imported = [name.split(" as ")[0].strip() for name in names.strip("() \t\n").replace("\n", " ").split(",")]
        imported = [name for name in imported if name.isidentifier()]
        if dots:
            base = directory
            for _ in range(len(dots) - 1):
                base = os.path.dirname(base)
            bases: Tuple[str, ...] = (base,)
        else:
            bases = roots
        parts = [part for part in module.split(".") if part]
        for base in bases:
            found.extend(_module_files(base, parts, imported))
    for clause in _IMPORT.findall(code):
        for item in clause.split(","):
            name = item.strip().split(" as ")[0].strip()
            if name and all(part.isidentifier() for part in name.split(".")):
                for base in roots:
                    found.extend(_module_files(base, name.split("."), []))
    return [os.path.abspath(file) for file in dict.fromkeys(found)]


def _module_files(base: str, parts: List[str], names: List[str]) -> List[str]:
    """Files executed by importing `parts` (and submodules `names`) from directory `base`."""
    files: List[str] = []
    current = base
    for index, part in enumerate(parts):
        current = os.path.join(current, part)
        package = os.path.join(current, "__init__.py")
        if os.path.isfile(package):
            files.append(package)
        elif index == len(parts) - 1 and os.path.isfile(current + ".py"):
            files.append(current + ".py")
            return files
        elif not os.path.isdir(current):
            return files  # not a module of this project (or only a namespace directory)
    for name in names:
        candidate = os.path.join(current, name)
        if os.path.isfile(candidate + ".py"):
            files.append(candidate + ".py")
        elif os.path.isfile(os.path.join(candidate, "__init__.py")):
            files.append(os.path.join(candidate, "__init__.py"))
    return files


def _stamp(path: str) -> Tuple[int, int]:
    try:
        stat = os.stat(path)
    except OSError:
        return (0, 0)
    return (stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=4096)
def _read(path: str, mtime_ns: int, size: int) -> str:
    """A module's text (cached per process while the file is unchanged); never imported."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""


@lru_cache(maxsize=4096)
def _file_features(path: str, mtime_ns: int, size: int) -> FrozenSet[str]:
    return _features(code_text(_read(path, mtime_ns, size)))


def first_training_loop(ctx: "FileContext") -> Optional[cst.For]:
    """The file's first training loop, where once-per-script advice is reported."""
    loops = training_loops(ctx)
    return loops[0] if loops else None


def advice_site(ctx: "FileContext", *enabling: str) -> Optional[cst.For]:
    """Where once-per-script advice goes: the first training loop of a file that runs on CUDA,
    unless the file or its project imports already enable one of the `enabling` features."""
    if not ctx.uses_cuda:
        return None
    loop = first_training_loop(ctx)
    if loop is None or any(project_enables(ctx, feature) for feature in enabling):
        return None
    return loop
