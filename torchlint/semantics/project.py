"""The project index: what a file's own project tells the rules, without importing it.

Design
------
* **Lazy, per process, memoised by content.** Nothing is computed until a rule asks, and
  most files never ask: the questions come from files with a CUDA training loop, or with an
  `.eval()` under a decorator of their own project. A module's text is cached per process
  by (path, mtime, size) and its summaries by content digest, so a module imported by
  many checked files is read and summarised once per process. The runner's worker
  processes each build what they need: building the index in the parent and shipping it
  would cost a pass over every module even when no file asks, and a pickled copy per
  worker. `clear()` forgets the per-run state (the listing of project files).
* **Two tiers per module.** A cheap textual tier: import statements (found at line starts,
  to follow imports between project files) and, over the code without its comments,
  project-wide settings (`cudnn.benchmark`, TF32, `torch.compile`, autocast) and kinds of
  work (convolutions, linear layers, attention and other matmuls). A CPython `ast` tier,
  per-function summaries and call sites, is built only for modules whose functions a rule
  asks about.
* **Never imports or executes checked code**: modules are read as text.
* **Dependencies.** Every module read, and every path whose presence or absence decided an
  import's resolution, is noted in the active `Dependencies` (see `recording`). The result
  cache stores them with a file's entry, so editing, adding or removing an imported module
  invalidates the files whose answers it could change. An answer about call sites depends on
  every module of the project, noted as one stamp of the project's module listing.

Interface: `project_enables(ctx, FEATURE)` (a setting or kind of work anywhere in the file
or the project modules it imports), `project_function(ctx, node)` (the `FunctionFacts` of
the project function an expression names, through imports and re-exports), `module_facts
(path)` (a module's function summaries), and `callers_of(path, function)` (every call of a
project function across the project, with the `if` guards, loop and handler at each call
site: what a frequency analysis needs to make `log_metrics` in utils.py rare when train.py
only calls it under `if step % log_every == 0:`).
`project_uses(ctx, FEATURE)` also looks at the modules that import the file (a model file
whose training script runs it under autocast).

Imports resolve against the importing file's directory, the parent of its top-level
package, its ancestors up to the project root (a directory with `pyproject.toml`,
`setup.py`, `setup.cfg` or `.git`), and the root's `src/`.
"""

from __future__ import annotations

import ast
import contextlib
import contextvars
import dataclasses
import fnmatch
import hashlib
import json
import os
import re
import stat
import weakref
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Callable, Dict, FrozenSet, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

from torchlint.files.syntax import ast_children as _ast_children, nests_too_deeply, python_tree
from torchlint.semantics.device_names import cuda_by_words, words_of
from torchlint.semantics.biased_layers import WrappedLayer, wrapped_layer
from torchlint.semantics.dataset_items import builds_graphs_per_item, items_in_memory, items_on_device, reads_storage
from torchlint.semantics.epochs import mentions_epoch
from torchlint.semantics.framework_names import FRAMEWORK_BASES, LIGHTNING, LIGHTNING_PACKAGES, TORCH_PACKAGES, TRAINER_PASSES, TRAINING_LOADER_HOOKS
from torchlint.semantics.pyast import PARTIALS, ast_argument, ast_dotted as _ast_dotted, ast_qualified as _ast_qualified, ast_walk as _ast_walk
from torchlint.semantics.test_paths import path_is_test, superseded_path

if TYPE_CHECKING:
    import libcst as cst

    from torchlint.semantics.facts import FileFacts

# ---------------------------------------------------------------------------------------------
# Project-wide settings, as patterns over a module's code with comments removed. Setting a
# switch to any value counts: `benchmark = args.benchmark` and `set_float32_matmul_precision
# ("highest")` are deliberate choices, not omissions.

AUTOCAST = "autocast"
CUDNN_BENCHMARK = "cudnn_benchmark"
CUDNN_DETERMINISTIC = "cudnn_deterministic"
TF32 = "tf32"
COMPILE = "compile"
CHANNELS_LAST = "channels_last"
CONVOLUTION = "convolution"
SPATIAL_CONVOLUTION = "spatial_convolution"
MATMUL = "matmul"
LINEAR = "linear"
RECURRENT = "recurrent"
VARIABLE_SHAPES = "variable_shapes"
CUDA = "cuda"
CPU_TRAINER = "cpu_trainer"
TRAINING = "training"
DOUBLE_BACKWARD = "double_backward"
FREEZES_LATER = "freezes_later"
HIGHER_ORDER_AUTOGRAD = "higher_order_autograd"
COMPLEX_VALUES = "complex_values"
FAST_PATH_MODULES = "fast_path_modules"
ENVIRONMENT = "environment"
DDP = "ddp"
FEATURES: Dict[str, re.Pattern] = {
    # `torch.autocast`, `torch.amp.autocast`, `torch.cuda.amp.autocast`, `from torch import autocast`,
    # and low-precision training chosen by other means (`mixed_precision=`, `model.half()`).
    # A training framework's precision setting (Lightning's `Trainer(precision=...)`,
    # `--precision`) is a decision about it too.
    AUTOCAST: re.compile(
        r"\bautocast\b|\bmixed_precision\b|\.half\(\)|\.bfloat16\(\)|--precision\b|"
        r"\bprecision\s*=\s*(?:[\"'](?:16|bf16|32|64|transformer)|(?:16|32|64)\b)"
    ),
    CUDNN_BENCHMARK: re.compile(r"\bcudnn\.benchmark\s*=(?!=)|\bbenchmark_cudnn\b|[(,]\s*benchmark\s*=\s*True\b"),
    CUDNN_DETERMINISTIC: re.compile(r"\bcudnn\.deterministic\s*=(?!=)|\buse_deterministic_algorithms\s*\("),
    TF32: re.compile(
        r"\bmatmul\.allow_tf32\s*=(?!=)|\bset_float32_matmul_precision\s*\(|\bfp32_precision\s*=(?!=)"
    ),
    # `torch.compile` (called or passed on), `torch._dynamo.optimize`, `model.compile()`, and
    # compilation chosen by an option: `compile=True`, `compile: bool = False`, `cfg.compile`,
    # `--compile`, `torch_compile` (`re.compile(pattern)` takes a positional pattern and is no such call).
    COMPILE: re.compile(
        r"\btorch\.compile\b|\bfrom\s+torch\s+import\s+[^\n]*\bcompile\b|\btorch\._dynamo\.optimize\b|"
        r"\.compile\b(?!\s*\()|\.compile\s*\(\s*(?:\)|\w+\s*=(?!=))|\bcompile\s*(?::\s*bool\b|=(?!=))|"
        r"--(?:torch-)?compile\b|\btorch_compile\b"
    ),
    # `memory_format=torch.channels_last` (or `channels_last_3d`) anywhere, and options named
    # after it (`--channels-last`, `args.channels_last`): a decision about the memory format.
    CHANNELS_LAST: re.compile(r"\bchannels_last(?:_3d)?\b|--channels-last\b"),
    # Code that runs on CUDA: `cuda` in a name or a string, the current accelerator (CUDA on
    # NVIDIA GPUs), or a Lightning trainer given GPUs (`gpus=[0]`, not `gpus=0`;
    # `accelerator="gpu"`).
    CUDA: re.compile(r"\bcuda\b|\btorch\.accelerator\b|\bgpus\s*=(?!=)\s*(?!0\b|None\b)|\baccelerator\s*=\s*[\"']gpu[\"']"),
    # A framework trainer told to run on the CPU (`pl.Trainer(accelerator="cpu")`, or a
    # `{"accelerator": "cpu"}` of trainer settings).
    CPU_TRAINER: re.compile(r"\baccelerator[\"']?\s*[=:]\s*[\"']cpu[\"']"),
    # A module that trains: a backward pass, or a trainer's `fit`.
    TRAINING: re.compile(r"\.backward\s*\(|\.fit\s*\("),
    # Parameters frozen after their module is built: `p.requires_grad = False` or
    # `p.requires_grad_(False)` in a function other than a constructor (`freeze_layers(model)`
    # in the training loop; see `_freezes_later`).
    FREEZES_LATER: re.compile(r"\.requires_grad\s*=\s*False\b|\.requires_grad_\(\s*False\s*\)"),
    # Gradients of gradients (`autograd.grad(..., create_graph=True)`, a gradient penalty):
    # compiled graphs have no double backward.
    DOUBLE_BACKWARD: re.compile(r"\bcreate_graph\s*=\s*True\b"),
    # Derivatives beyond one reverse pass, which fused kernels may lack: `create_graph=` with
    # any value but `False` (`create_graph=args.penalty`), Hessians and Hessian-vector products
    # (`torch.func.hessian`, `torch.autograd.functional.hvp`, which differentiate twice), and
    # forward-mode AD (`jvp`, `jacfwd`, `forward_ad.make_dual`); also `create_graph` given as a
    # dict key (`**{"create_graph": True}`) or by position: the fifth argument of
    # `autograd.grad(out, x, None, True, True)`, the third of `loss.backward(None, True, True)`;
    # `gradgradcheck`, and a `torch.func` transform of one (`grad(lambda x: grad(f)(x).sum())`).
    HIGHER_ORDER_AUTOGRAD: re.compile(
        r"\bcreate_graph\s*=\s*(?!\s*False\b)|\b(?:hessian|hvp|vhp|jvp|jacfwd|forward_ad|make_dual|gradgradcheck)\b|[\"']create_graph[\"']"
        r"|\b(?:grad|jacrev|vjp|grad_and_value)\s*\([^\n]*?\b(?:grad|jacrev|vjp|grad_and_value)\s*\("
        r"|\bgrad\s*\((?:(?:[^,()=\[\]]|\([^()]*\)|\[[^\[\]]*\])+,){4}\s*(?!False\b)[^\s,)=]"
        r"|\.backward\s*\((?:(?:[^,()=\[\]]|\([^()]*\)|\[[^\[\]]*\])+,){2}\s*(?!False\b)[^\s,)=]"
    ),
    # Modules whose eval-mode forward takes another path when gradients are off (the
    # "fast path": fused kernels, nested tensors that zero padded positions): transformer
    # encoder layers and multi-head attention (decoder layers run it inside), torchvision's
    # vision transformers built on them; `nn.LSTM`, which runs oneDNN's inference kernel on the
    # CPU (other rounding); and a `torch.nn` module chosen by name (`getattr(nn, rnn_type)(...)`).
    # Any mention of a class counts, not only a call of it: a subclass, an alias, a
    # `partial(nn.MultiheadAttention, ...)` or a dict of classes makes the same layers.
    # And matrix products (`a @ b`, `torch.matmul`): a product of a batch of matrices with one
    # matrix is folded into one `mm` when an operand requires gradients and run as a batched
    # `bmm` otherwise (a graph convolution `adj @ h` over a fixed adjacency), which rounds
    # differently. And singular values and eigenvalues: `torch.linalg.svdvals`, `eigvalsh` and
    # `eigvals` (and the matrix norms, condition numbers and ranks made from them) compute the
    # vectors too when an input requires gradients (for the backward), and only the values
    # without, through another LAPACK driver that rounds differently.
    FAST_PATH_MODULES: re.compile(
        r"\b(?:Transformer(?:Encoder|Decoder)?(?:Layer)?|MultiheadAttention|LSTM)\b|\bvit_[bhl]_\d+\b|"
        r"\bgetattr\s*\(\s*(?:torch\.)?nn\s*,|\bmatmul\s*\(|[\w)\]][ \t]*@=?[ \t]*[\w(]"
        r"|\b(?:svdvals|eigvalsh|eigvals|nuclear_norm|matrix_norm|matrix_rank|lstsq)\b|\blinalg\.(?:norm|cond)\b|\bcompute_uv\s*="
        r"|\bnorm\s*\([^\n]*[\"']nuc[\"']"
    ),
    # Complex values (see `dtypes.makes_complex`, which reads the checked file itself): an
    # imaginary literal, a complex dtype (torch's, NumPy's, `dtype=complex`), `polar`,
    # `view_as_complex`, a forward FFT, `eig`, `np.roots`, `emath`, `stft`, `complex()`, `cmath`,
    # `dtype.to_complex()`, and a torch or NumPy attribute looked up by a computed name.
    COMPLEX_VALUES: re.compile(
        r"(?<![\w.])\d[\d_]*(?:\.\d*)?j\b|\b(?:complex32|complex64|complex128|cfloat|cdouble|chalf|view_as_complex|polar)\b"
        r"|\btorch\.complex\b|\bfft\.(?:fft|rfft|ifft|ihfft)|\bcomplex\s*\(|\bcmath\.|\blinalg\.eig(?:vals)?\b|\bstft\s*\(|roots\s*\(|\bpoly1d\b|\b(?:emath|scimath)\."
        r"|\b(?:csingle|clongdouble|complex_)\b|\bdtype\s*=\s*(?:complex\b|[\"'][<>=|]?(?:c(?:8|16|32)|[FDG]|complex)[\"'])"
        r"|\b(?:astype|dtype)\s*\(\s*[\"'][<>=|]?(?:c(?:8|16|32)|[FDG]|complex)[\"']"
        r"|\.to_complex\s*\(|\bgetattr\s*\(\s*(?:torch|np|numpy)\s*,\s*(?![\"'\s])"
    ),
    # Modules wrapped in DistributedDataParallel: a backward pass all-reduces the gradients.
    DDP: re.compile(r"\bDistributedDataParallel\b"),
    # Reinforcement learning: a Gym or Gymnasium environment, or environments stepped with an
    # action (`envs.step(action)`).
    ENVIRONMENT: re.compile(r"^[ \t]*(?:import|from)[ \t]+(?:gym|gymnasium)\b|\benvs?\.step\(\s*\w", re.MULTILINE),
    # Padded or packed variable-length batches (torchtext's `BucketIterator` pads each batch of
    # similar lengths to its longest): input shapes change from step to step.
    VARIABLE_SHAPES: re.compile(r"\bpad_sequence\b|\bpack_padded_sequence\b|\bpack_sequence\b|\bBucketIterator\b"),
    CONVOLUTION: re.compile(
        r"\bConv(?:Transpose)?[123]d\b|\bLazyConv(?:Transpose)?[123]d\b|\bconv(?:_transpose)?[123]d\s*\(|"
        r"\btorchvision\.models\b|\bfrom\s+torchvision\s+import\s+[^\n]*\bmodels\b"
    ),
    # Convolutions over images and volumes (the ones a channels-last memory format speeds up);
    # 1-d convolutions over sequences are not among them.
    SPATIAL_CONVOLUTION: re.compile(
        r"\b(?:Lazy)?Conv(?:Transpose)?[23]d\b|\bconv(?:_transpose)?[23]d\s*\(|"
        r"\btorchvision\.models\b|\bfrom\s+torchvision\s+import\s+[^\n]*\bmodels\b"
    ),
    # Work that float32 matmuls (and so TF32) dominate: attention, transformer layers,
    # explicit matrix products (`a @ b` with spaces, as formatted code writes it),
    # Hugging Face transformers.
    MATMUL: re.compile(
        r"\bMultiheadAttention\b|\bTransformer(?:Encoder|Decoder)?(?:Layer)?\s*\(|\bscaled_dot_product_attention\b|"
        r"\b(?:matmul|bmm|baddbmm|addmm|einsum)\s*\(|[\w)\]][ \t]+@=?[ \t]+[\w(]|^[ \t]*(?:from|import)[ \t]+transformers\b",
        re.MULTILINE,
    ),
    # Linear layers: matmul-heavy in MLPs and sequence models, negligible as the head of a
    # convolutional network.
    LINEAR: re.compile(r"\b(?:Lazy)?Linear\s*\(|\blinear\s*\("),
    # Recurrent layers that run as one cuDNN kernel sequence (`nn.LSTM`, `nn.GRU`, `nn.RNN`;
    # not the `LSTMCell` family, which are ordinary matmuls step by step).
    RECURRENT: re.compile(r"\b(?:LSTM|GRU|RNN)\s*\("),
}
# `import torch.backends.cudnn as cb` / `from torch.backends import cudnn as cb`: `cb.benchmark = ...`.
_CUDNN_ALIAS = re.compile(r"(?:import\s+torch\.backends\.cudnn|from\s+torch\.backends\s+import\s+cudnn)\s+as\s+(\w+)")
# `import torchvision as tv`: `tv.models.resnet50()`.
_TORCHVISION_ALIAS = re.compile(r"\bimport\s+torchvision\s+as\s+(\w+)")
# Import statements of a module's text: `from .x import a, b`, `from pkg.x import (a, b)`, `import a.b, c as d`.
# A name list in parentheses, or on lines joined by a backslash (`import a, b,\` then `c`).
_FROM_IMPORT = re.compile(
    r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|(?:[^\n#;\\]|\\[ \t]*\r?\n)*)", re.MULTILINE
)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([^\n#;]+)", re.MULTILINE)
_PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")
# How many project modules one script's imports may pull in (transitively) before the search stops.
MAX_PROJECT_MODULES = 200
# How far up from the script the search for a project root goes.
MAX_ROOT_LEVELS = 3
# How many re-exports (`from .impl import helper` in a package) a function lookup follows.
MAX_REEXPORTS = 3
# Directories never searched for project modules (environments, build output, VCS data).
_SKIPPED_DIRECTORIES = frozenset({"node_modules", "site-packages", "build", "dist", "__pycache__"})
DATALOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})
# Library subclasses of torch's DataLoader that take its options by keyword as they are and
# collate batches of their own objects (PyTorch Geometric's `DataLoader` makes `Batch` graphs,
# MONAI's dicts of `MetaTensor`s).
COLLATING_LOADERS = frozenset({
    "torch_geometric.loader.DataLoader", "torch_geometric.loader.dataloader.DataLoader",
    "torch_geometric.data.DataLoader", "torch_geometric.data.dataloader.DataLoader",
    "monai.data.DataLoader", "monai.data.dataloader.DataLoader",
})
# Library factories that build a torch DataLoader from the keyword arguments they are given and
# pin its memory themselves when the program's device is CUDA (ignite's `idist.auto_dataloader`);
# `num_workers` stays DataLoader's default, 0, unless given.
AUTO_PINNING_LOADERS = frozenset({"ignite.distributed.auto_dataloader", "ignite.distributed.auto.auto_dataloader"})
GRAD_OFF = frozenset(
    {"torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad",
     "torch.autograd.inference_mode", "torch.autograd.grad_mode.inference_mode"}
)


# ---------------------------------------------------------------------------------------------
# Dependencies: what the answers given while checking one file were computed from.

ABSENT = "absent"
DIRECTORY = "dir"
PRESENT = "file"  # a file whose presence, not content, mattered
TREE = "tree:"  # prefix of the stamp of a whole project's module listing


@dataclass
class Dependencies:
    """Paths consulted, each with the state it was found in: `ABSENT`, `DIRECTORY`, `PRESENT`,
    a content digest (with the stat it was read under), or a `TREE` stamp of a project root."""

    states: Dict[str, Tuple[str, int, int]] = field(default_factory=dict)

    def note(self, path: str, state: str, mtime_ns: int = 0, size: int = 0) -> None:
        """Remember the first state seen; a file's content supersedes its mere presence."""
        if path not in self.states or self.states[path][0] == PRESENT:
            self.states[path] = (state, mtime_ns, size)


_RECORDING: contextvars.ContextVar[Optional[Dependencies]] = contextvars.ContextVar(
    "torchlint_dependencies", default=None
)


@contextlib.contextmanager
def recording() -> Iterator[Dependencies]:
    """Collect the dependencies of everything the index answers inside the block."""
    found = Dependencies()
    token = _RECORDING.set(found)
    try:
        yield found
    finally:
        _RECORDING.reset(token)


def _note(path: str, state: str, mtime_ns: int = 0, size: int = 0) -> None:
    current = _RECORDING.get()
    if current is not None:
        current.note(path, state, mtime_ns, size)


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def path_state(path: str) -> str:
    """`ABSENT`, `DIRECTORY` or `PRESENT`: what a path is, content aside."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return ABSENT
    return DIRECTORY if stat.S_ISDIR(mode) else PRESENT


# What each path the analysis asked about was found to be, kept until `clear` or
# `forget_paths`: resolving imports asks about the same candidate files for every module.
_PATH_STATES: Dict[str, str] = {}
# Each project root's modules by their lower-cased path (`_case_folded`), kept until `clear`.
_FOLDED_MODULES: Dict[str, Dict[str, List[str]]] = {}
# Each project root's `tree_stamp`, kept until `forget_paths`.
_TREE_STAMPS: Dict[str, str] = {}


def _state(path: str) -> str:
    state = _PATH_STATES.get(path)
    if state is None:
        state = _PATH_STATES[path] = path_state(path)
    _note(path, state)
    return state


def _is_file(path: str) -> bool:
    return _state(path) == PRESENT


def _is_dir(path: str) -> bool:
    return _state(path) == DIRECTORY


def _exists(path: str) -> bool:
    return _state(path) != ABSENT


# ---------------------------------------------------------------------------------------------
# Reading modules


@dataclass(frozen=True)
class Source:
    """A module's text and the digest of its bytes."""

    text: str
    digest: str


def read_module(path: str) -> Source:
    """A module's text, read once per process while it is unchanged; noted as a dependency."""
    try:
        status = os.stat(path)
    except OSError:
        _note(path, ABSENT)
        return Source("", "")
    source = _read(path, status.st_mtime_ns, status.st_size)
    _note(path, source.digest or ABSENT, status.st_mtime_ns, status.st_size)
    return source


@lru_cache(maxsize=4096)
def _read(path: str, mtime_ns: int, size: int) -> Source:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return Source("", "")
    return Source(data.decode("utf-8", "replace"), digest(data))


@lru_cache(maxsize=4096)
def code_text(text: str) -> str:
    """`text` without comments (so that `# torch.backends.cudnn.benchmark = True` does not count).

    One scan of the text that skips string literals (triple-quoted first, escapes honoured)
    and blanks each comment up to its line end. A quote the scan cannot close leaves the rest
    of its line as code.
    """
    if "#" not in text:
        return text
    return _STRING_OR_COMMENT.sub(_without_comment, text)


_STRING_OR_COMMENT = re.compile(
    "|".join((
        r'"""(?:[^"\\]|\\.|"(?!""))*"""',
        r"'''(?:[^'\\]|\\.|'(?!''))*'''",
        r'"(?:[^"\\\n]|\\.)*"',
        r"'(?:[^'\\\n]|\\.)*'",
        r"#[^\r\n]*",
    )),
    re.DOTALL,
)


def _without_comment(match: "re.Match[str]") -> str:
    found = match.group()
    return "" if found.startswith("#") else found


# ---------------------------------------------------------------------------------------------
# The textual tier: settings and imports


@dataclass(frozen=True)
class ImportFrom:
    """`from <dots><module> import <name> as <local>, ...` (`level` is the number of dots);
    a plain `import a.b as c` has `names == ()` and binds `local`."""

    level: int
    module: str
    names: Tuple[Tuple[str, str], ...] = ()
    local: str = ""


# The name list of `from module import *`.
STAR = "*"


@lru_cache(maxsize=4096)
def module_imports(text: str) -> Tuple[ImportFrom, ...]:
    """The import statements of a module's text. They are found at line starts, so comments
    need not be removed first (an import spelled out in a docstring counts, harmlessly)."""
    return _imports(text)


def features(text: str) -> FrozenSet[str]:
    """The settings and kinds of work (see FEATURES) a module's code mentions, comments ignored."""
    return frozenset(feature for feature in FEATURES if file_enables(text, feature))


def matmul_heavy(ctx: "FileFacts") -> bool:
    """Whether the file or its project imports run work that float32 matmuls dominate:
    attention or explicit matrix products, or linear layers in a model without convolutions
    (a linear head on a convolutional network is negligible next to its convolutions)."""
    if project_enables(ctx, MATMUL):
        return True
    return project_enables(ctx, LINEAR) and not project_enables(ctx, CONVOLUTION)


def recurrent_heavy(ctx: "FileFacts") -> bool:
    """Whether the file or its project imports run a model that cuDNN recurrent layers
    dominate (`nn.LSTM`, `nn.GRU`, `nn.RNN`) and nothing matmul-heavy: `torch.compile` leaves
    cuDNN's recurrent kernels as they are."""
    return project_enables(ctx, RECURRENT) and not project_enables(ctx, MATMUL)


def conv_heavy(ctx: "FileFacts") -> bool:
    """Whether the file or its project imports run work that 2-d and 3-d convolutions dominate:
    such convolutions (or `torchvision.models`) and nothing matmul-heavy (attention, transformer
    layers, explicit matrix products; a vision transformer's convolutional patch embedding is
    not what its step time is spent on). Linear layers alone do not count against it: a
    convolutional network's classifier head is one."""
    return project_enables(ctx, SPATIAL_CONVOLUTION) and not project_enables(ctx, MATMUL)


@lru_cache(maxsize=16384)
def file_enables(text: str, feature: str) -> bool:
    """Whether the code in `text` (comments ignored) enables or sets `feature` (see FEATURES).
    Each feature is looked for when it is first asked about: most are never asked of most files."""
    code = code_text(text)
    if FEATURES[feature].search(code):
        return feature != FREEZES_LATER or _freezes_later(text)
    if feature in (CUDNN_BENCHMARK, CUDNN_DETERMINISTIC):
        setting = "benchmark" if feature == CUDNN_BENCHMARK else "deterministic"
        return any(re.search(rf"\b{re.escape(alias)}\.{setting}\s*=(?!=)", code) for alias in _CUDNN_ALIAS.findall(code))
    if feature in (CONVOLUTION, SPATIAL_CONVOLUTION):
        return any(re.search(rf"\b{re.escape(alias)}\.models\b", code) for alias in _TORCHVISION_ALIAS.findall(code))
    return False


def _freezes_later(text: str) -> bool:
    """Whether a function of the code, other than an `__init__`, turns gradients off for
    something (`param.requires_grad = False`, `p.requires_grad_(False)`): parameters frozen
    at run time, after a wrapper such as DDP was built (not an EMA copy frozen in its
    constructor)."""
    for function in _ast_walk(python_tree(text)):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or function.name == "__init__":
            continue
        for node in _ast_walk(function):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and node.value.value is False:
                if any(isinstance(target, ast.Attribute) and target.attr == "requires_grad" for target in node.targets):
                    return True
            if isinstance(node, ast.Call) and _called_attribute(node) == "requires_grad_" and node.args:
                if isinstance(node.args[0], ast.Constant) and node.args[0].value is False:
                    return True
    return False



def _imports(code: str) -> Tuple[ImportFrom, ...]:
    found: List[ImportFrom] = []
    for dots, module, names in _FROM_IMPORT.findall(code):
        pairs = []
        for item in re.sub(r"\\[ \t]*\r?\n", " ", names).strip("() \t\n").replace("\n", " ").split(","):
            name, _, local = item.strip().partition(" as ")
            name, local = name.strip(), (local.strip() or name.strip())
            if (name.isidentifier() and local.isidentifier()) or name == STAR == local:
                pairs.append((name, local))
        found.append(ImportFrom(len(dots), module, tuple(pairs)))
    for clause in _IMPORT.findall(code):
        for item in clause.split(","):
            name, _, local = item.strip().partition(" as ")
            name = name.strip()
            if name and all(part.isidentifier() for part in name.split(".")):
                found.append(ImportFrom(0, name, local=local.strip() or name.split(".")[0]))
    return tuple(found)


def search_roots(path: str) -> Tuple[str, ...]:
    """Directories absolute imports of the file at `path` may resolve against: its own
    directory, the parent of its top-level package, and ancestors up to the project root."""
    directory = os.path.dirname(os.path.abspath(path))
    roots = [directory, _package_top(directory)]
    marked = _marked_root(directory)
    current = directory
    for _ in range(MAX_ROOT_LEVELS):
        parent = os.path.dirname(current)
        if current == marked or parent == current:
            break
        current = parent
        roots.append(current)
    if marked is not None:
        roots.extend([marked, os.path.join(marked, "src")])
    return tuple(dict.fromkeys(roots))


def _package_top(directory: str) -> str:
    """The parent of the top-level package `directory` belongs to (itself outside packages)."""
    top = directory
    while _is_file(os.path.join(top, "__init__.py")) and os.path.dirname(top) != top:
        top = os.path.dirname(top)
    return top


def _marked_root(directory: str) -> Optional[str]:
    """The nearest directory, `directory` or up to `MAX_ROOT_LEVELS` above, with a project marker."""
    current = directory
    for _ in range(MAX_ROOT_LEVELS + 1):
        if any(_exists(os.path.join(current, marker)) for marker in _PROJECT_MARKERS):
            return current
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    return None


def role_path(path: str) -> str:
    """The path a file's role (test, benchmark, demo, export script) is read from: relative to
    the nearest directory above it with a project marker, so that the directories a checkout
    lives in (`~/benchmarks/proj/`, `/srv/test/proj/`) say nothing about its files; as given
    for a file in no marked project, or text that is not a file."""
    if not os.path.isfile(path):
        return path
    absolute = os.path.abspath(path)
    current = os.path.dirname(absolute)
    while not any(_exists(os.path.join(current, marker)) for marker in _PROJECT_MARKERS):
        parent = os.path.dirname(current)
        if parent == current:
            return path
        current = parent
    return os.path.relpath(absolute, current)


def project_root(path: str) -> str:
    """The project root of the file at `path`: the nearest directory with a project marker,
    else the parent of its top-level package (its own directory for a loose script)."""
    directory = os.path.dirname(os.path.abspath(path))
    return _marked_root(directory) or _package_top(directory)


def _import_bases(path: str, statement: ImportFrom, roots: Tuple[str, ...]) -> Tuple[str, ...]:
    """The directories the module of `statement` (in the file at `path`) may be found under:
    `roots` for an absolute import, then, for `from X import name` that no module under them
    binds, the project's directories that hold a module `X` (`search_path_directories`)."""
    if not statement.level:
        extra = tuple(directory for directory in search_path_directories(path, statement.module) if directory not in roots) if statement.names else ()
        return roots + extra if extra and not _binds_names(roots, statement) else roots
    base = os.path.dirname(path)
    for _ in range(statement.level - 1):
        base = os.path.dirname(base)
    return (base,)


def _binds_names(roots: Tuple[str, ...], statement: ImportFrom) -> bool:
    """Whether a module that the absolute import `statement` finds under `roots` binds one of
    the names it imports (defines or imports it, or has it as a submodule)."""
    parts = [part for part in statement.module.split(".") if part]
    names = [name for name, _ in statement.names]
    for base in roots:
        files = _module_files(base, parts, names)
        if files and (len(files) > len(_module_files(base, parts, [])) or any(name == STAR or _defines(base, parts, name) for name in names)):
            return True
    return False


def search_path_directories(path: str, module: str) -> Tuple[str, ...]:
    """The directories of the project of the file at `path` that hold the module or package
    named by the first part of `module`: where an import of it resolves when a launcher puts
    them on the search path (`PYTHONPATH=src/solver python src/bin/train.py` for `from solver
    import Solver` next to an empty `src/solver/__init__.py`). The answer depends on the
    project's listing, noted as a dependency (its stamp taken once per run, with the index)."""
    if not os.path.isabs(path):
        return ()
    root = project_root(path)
    known = _MODULE_DIRECTORIES.get(root)
    if known is None:
        index: Dict[str, List[str]] = {}
        for file in project_files(root):
            directory, name = os.path.split(file)
            if name == "__init__.py":
                directory, name = os.path.split(directory)
                name += ".py"
            index.setdefault(name[: -len(".py")], []).append(directory)
        known = _MODULE_DIRECTORIES[root] = (tree_stamp(root), index)
    _note(root, known[0])
    return tuple(dict.fromkeys(known[1].get(module.partition(".")[0], ())))


def _case_folded(path: str) -> Optional[str]:
    """The one project module whose path is `path` but for case (`MyDiffusion/Diffusion.py`
    for `from MyDiffusion.diffusion import Diffusion`): the import works on the case-insensitive
    file systems of macOS and Windows, where such projects are written."""
    root = project_root(path)
    folded = _FOLDED_MODULES.get(root)
    if folded is None:
        folded = _FOLDED_MODULES[root] = {}
        for file in project_files(root):
            folded.setdefault(os.path.abspath(file).lower(), []).append(file)
    _note(root, tree_stamp(root))
    found = folded.get(os.path.abspath(path).lower(), [])
    return found[0] if len(found) == 1 else None


def imported_files(path: str, text: str, roots: Tuple[str, ...]) -> List[str]:
    """The project `.py` files that the import statements of `text` name (packages and modules)."""
    found: List[str] = []
    for statement in module_imports(text):
        parts = [part for part in statement.module.split(".") if part]
        names = [name for name, _ in statement.names]
        for base in _import_bases(path, statement, roots):
            found.extend(_module_files(base, parts, names))
    return [os.path.abspath(file) for file in dict.fromkeys(found)]


def _module_files(base: str, parts: List[str], names: List[str]) -> List[str]:
    """Files executed by importing `parts` (and submodules `names`) from directory `base`."""
    files: List[str] = []
    current = base
    for index, part in enumerate(parts):
        current = os.path.join(current, part)
        package = os.path.join(current, "__init__.py")
        if _is_file(package):
            files.append(package)
        elif index == len(parts) - 1 and _is_file(current + ".py"):
            files.append(current + ".py")
            return files
        elif index == len(parts) - 1 and not _is_dir(current) and _case_folded(current + ".py") is not None:
            files.append(_case_folded(current + ".py"))  # type: ignore[arg-type]
            return files
        elif not _is_dir(current):
            return files  # not a module of this project (or only a namespace directory)
    for name in names:
        candidate = os.path.join(current, name)
        if _is_file(candidate + ".py"):
            files.append(candidate + ".py")
        elif _is_file(os.path.join(candidate, "__init__.py")):
            files.append(os.path.join(candidate, "__init__.py"))
    return files


def project_modules(path: str, text: str) -> List[str]:
    """Absolute paths of the project's `.py` files that `text` (the file at `path`) imports,
    directly or through other project modules, in discovery order."""
    path = os.path.abspath(path)
    roots = search_roots(path)
    found: List[str] = []
    seen = {path}
    queue = [(path, text)]
    while queue and len(found) < MAX_PROJECT_MODULES:
        current, current_text = queue.pop(0)
        for module in imported_files(current, current_text, roots):
            if module not in seen:
                seen.add(module)
                found.append(module)
                queue.append((module, read_module(module).text))
    return found


def project_enables(ctx: "FileFacts", feature: str) -> bool:
    """Whether the file, or a module it imports (transitively) from the same project, sets `feature`."""
    if file_enables(ctx.text, feature):
        return True
    if not os.path.isfile(ctx.path):
        return False  # text from stdin or a test: there are no neighbours to read
    return any(file_enables(read_module(module).text, feature) for module in project_modules(ctx.path, ctx.text))


# ---------------------------------------------------------------------------------------------
# The ast tier: per-function summaries


@dataclass(frozen=True)
class FunctionFacts:
    """What a function of the project does, as far as its own body shows.

    `wraps_grad_off`: it refers to `torch.no_grad`/`torch.inference_mode` (directly or in a
    nested function), which makes it a grad-disabling decorator or context manager when used
    as one. `grad_off`: its own body runs under such a decorator.
    """

    name: str
    line: int
    calls_backward: bool = False
    # A `classmethod` or `staticmethod`: a call on an instance cannot change that instance.
    static: bool = False
    # A `classmethod` that returns what its class builds (`return cls(...)`, `return
    # cls.from_parameters(...)`): another constructor of the class (`Dataset.from_dataset(...)`).
    builds_instance: bool = False
    # It runs a backward pass outside its own loops: each call is a training step
    # (`agent.update(batch)` doing zero_grad, backward and step).
    steps_itself: bool = False
    reads_grad: bool = False
    uses_autocast: bool = False
    grad_off: bool = False
    wraps_grad_off: bool = False
    # Parameters in order, and those whose attributes it assigns or whose methods it calls
    # (a dataset it changes).
    parameters: Tuple[str, ...] = ()
    mutated_parameters: FrozenSet[str] = frozenset()
    # Parameters a `for` loop of the function iterates (`for x in tqdm(loader):`).
    iterated_parameters: FrozenSet[str] = frozenset()
    # A class: (parameter, method) for each parameter of its constructor that a call of the
    # method on an instance loops over, in the method's own loops or in the class's methods it
    # calls (`trainer.train(epoch)` passing the `train_loader` that `Trainer(model,
    # train_loader)` stored to `self.run_epoch(self.train_loader)`).
    entry_methods: FrozenSet[Tuple[str, str]] = frozenset()
    # Of those, the ones a loop iterates inside another loop of the function (`for epoch in
    # range(epochs): for x in loader:`): each call passes over them again and again.
    reiterated_parameters: FrozenSet[str] = frozenset()
    # And the ones whose items the loop moves to a device (`for x, y in loader: x.cuda()`).
    moved_parameters: FrozenSet[str] = frozenset()
    # Where it returns a DataLoader that pins memory (`WHOLE_RETURN` or the index in a returned
    # tuple), each with whether the loader collates by default (no `collate_fn`, no `**`).
    pinned_returns: FrozenSet[Tuple[int, bool]] = frozenset()
    # Where it returns a DataLoader whose `pin_memory=` is one of its parameters (`pin_memory=
    # pin_memory` in `get_loaders(..., pin_memory=True)`): (where, collates by default, the
    # parameter, whether its default is `True`). It pins where the call passes it `True`.
    pinned_by_parameter: FrozenSet[Tuple[int, bool, str, bool]] = frozenset()
    # A loader factory: it returns a `DataLoader(..., **kwargs)` built with the keyword
    # arguments it is given (`dataset.to_dataloader(batch_size=64, num_workers=0)`); the
    # keywords it sets itself (in that call, or in a dict it builds). None for other functions.
    loader_keywords: Optional[FrozenSet[str]] = None
    # A class that makes its data up: its code calls a torch factory (`torch.randint(...)`) and
    # reads nothing (no `open`, `load...`, `read...`, `imread`): a synthetic dataset.
    makes_data_up: bool = False
    # A dataset class whose items are already in memory and cheap to get: `__getitem__` only
    # indexes, converts and reshapes attributes holding data in memory (`dataset_items`).
    items_in_memory: bool = False
    # Such a class when its constructor is handed only values in memory (it stores them as given).
    items_in_memory_if_given: bool = False
    # A PyTorch Geometric dataset class that reads or builds each graph in `get(idx)`.
    builds_graphs_per_item: bool = False
    # A dataset class whose `__getitem__` moves its items to an accelerator (`dataset_items`).
    items_on_device: bool = False
    # Parameters the function calls (`model(user, item)`: a module it runs).
    called_parameters: FrozenSet[str] = frozenset()
    # Module globals its `for` loops iterate (`for x, y in test_loader:` in `def evaluate():`),
    # and those whose items such a loop moves to a device.
    iterated_globals: FrozenSet[str] = frozenset()
    moved_globals: FrozenSet[str] = frozenset()
    # It returns a value read back from the device (`return t.item()`) after placing work on it
    # (`.cuda()`, a collective such as `dist.all_reduce`): each call synchronises.
    reads_back_device_value: bool = False
    # It returns a value read back to the host (`return correct.sum().item() * 100 / n`):
    # each call with device tensors synchronises.
    returns_read_back: bool = False
    # The torch factory that makes what it returns on the host, when every `return` gives a
    # tensor a factory creates without `device=` (`return torch.randint(1, T, (n,))`, also
    # through a name bound only to such calls): its callers move it (`_host_factory_returned`).
    returns_host_factory: str = ""
    # It runs a backward pass, itself or through the functions of its module it calls
    # (`engine.train` calling `train_step` in its epoch loop).
    trains: bool = False
    # It has a loop of its own (`for`, `while`).
    loops: bool = False
    # Parameters whose items its loops yield (`for batch in iter(loader): yield batch`): a
    # call of it is an iterator over what it is handed.
    yielded_parameters: FrozenSet[str] = frozenset()
    # A `for` loop of its own names an epoch (`for epoch in range(epochs):`).
    loops_over_epochs: bool = False
    # A class that is a torch DataLoader taking DataLoader's options as they are: it subclasses
    # `DataLoader`, directly or through classes defined before it in its module, and each
    # `__init__` among them hands the options it is given on to its base (`_forwards_to_base`).
    dataloader: bool = False
    # Such a class that hands its base a `collate_fn` of its own: its batches may be objects.
    collates_itself: bool = False
    # A class whose `__init__` (its own, or the nearest project base's) takes no `**kwargs`:
    # the names it takes by keyword (`class EpochLoader(DataLoader)` with `__init__(self,
    # dataset, batch_size)` takes no `pin_memory=`); None when it takes any keyword.
    keyword_limits: Optional[FrozenSet[str]] = None
    # A Lightning module class: the parameters of its `__init__` that it stores as they are
    # and returns from a loader hook (`self.train_loader = train_loader`, then `def
    # train_dataloader(self): return self.train_loader`): the trainer iterates them every epoch.
    framework_fed_parameters: FrozenSet[str] = frozenset()
    # A class that derives from a Lightning class (`LightningModule`, `LightningDataModule`),
    # directly or through classes defined before it in its module: the framework runs its hooks.
    lightning: bool = False
    # Such a class whose `training_step` (its own or one it inherits in its module) never reads
    # the batch it is handed (`return torch.tensor(0.0, requires_grad=True)`): the trainer's
    # passes over its train loader train nothing (see `idle_training_step`).
    idle_training_step: bool = False
    # A class whose instances compute one biased layer's output (`ConvNorm` around an
    # `nn.Conv1d`; see `semantics.biased_layers`).
    wrapped_layer: Optional[WrappedLayer] = None
    # It moves something to a device itself (`.cuda()`, `.to(device)`; for a class, one of its
    # methods does): a program that calls it runs work on the device it picks.
    places_on_device: bool = False
    # Parameters it hands to a `fit` call (`trainer.fit(learner, train_loader, val_loader)`,
    # also in a list display: `val_dataloaders=[val_loader]`): a Lightning trainer's to iterate
    # in a project that imports Lightning.
    fitted_parameters: FrozenSet[str] = frozenset()
    # It builds a Lightning `Trainer` (`trainer = pl.Trainer(...)`): a builder of trainers.
    builds_trainer: bool = False
    # A class (its call builds an instance), not a function.
    klass: bool = False
    # The parameter that every `return` of the function hands back as it was given (or
    # `None`): `return loss` after `if torch.isnan(loss): return None`. Its call is that argument.
    passes_through: str = ""

    def fits_argument(self, call: cst.Call, name: str) -> bool:
        """Whether `call` (of this function) passes the name `name` to a parameter it hands to
        a `fit` call (see `fitted_parameters`)."""
        return bool(self._parameters_given(call, name) & self.fitted_parameters)

    def feeds_framework(self, call: cst.Call, name: str) -> bool:
        """Whether `call` (of this class) passes the name `name` to a parameter a framework
        iterates (see `framework_fed_parameters`)."""
        return bool(self._parameters_given(call, name) & self.framework_fed_parameters)

    def mutates_argument(self, call: cst.Call, name: str) -> bool:
        """Whether `call` (of this function) passes the name `name` to a parameter it changes."""
        return bool(self._parameters_given(call, name) & self.mutated_parameters)

    def yields_items_of(self, call: cst.Call, name: str) -> bool:
        """Whether `call` (of this function) hands it the name `name` as a parameter whose
        items it yields."""
        return bool(self._parameters_given(call, name) & self.yielded_parameters)

    def yields_items_of_argument(self, call: cst.Call, value: cst.BaseExpression) -> bool:
        """Whether `call` (of this function) hands it `value` (one of its arguments, the node
        itself: `cycle(DataLoader(...))`) as a parameter whose items it yields."""
        for index, arg in enumerate(call.args):
            if arg.value is value and not arg.star:
                given = arg.keyword.value if arg.keyword is not None else (self.parameters[index] if index < len(self.parameters) else None)
                return given in self.yielded_parameters
        return False

    def calls_argument(self, call: cst.Call, name: str) -> bool:
        """Whether `call` (of this function) passes the name `name` to a parameter it calls."""
        return bool(self._parameters_given(call, name) & self.called_parameters)

    def methods_iterating(self, call: cst.Call, name: str) -> Set[str]:
        """The methods (see `entry_methods`) whose calls loop over what `call` (of this class)
        passes as the name `name`."""
        given = self._parameters_given(call, name)
        return {method for parameter, method in self.entry_methods if parameter in given}

    def iterates_argument(self, call: "cst.Call | ast.Call", name: str) -> bool:
        """Whether `call` (of this function) passes the name `name` to a parameter it loops over."""
        return bool(self._parameters_given(call, name) & self.iterated_parameters)

    def passes_over_argument_once(self, call: "cst.Call | ast.Call", name: str) -> bool:
        """Whether `call` (of this function, not a class: the methods of a class may run every
        epoch) passes the name `name` to a parameter it loops over once per call only (a test
        after the training epochs)."""
        return not self.entry_methods and self.iterates_argument(call, name) and not self.reiterates_argument(call, name)

    def reiterates_argument(self, call: "cst.Call | ast.Call", name: str) -> bool:
        """Whether `call` passes the name `name` to a parameter it loops over again and again."""
        return bool(self._parameters_given(call, name) & self.reiterated_parameters)

    def moves_argument_items(self, call: "cst.Call | ast.Call", name: str) -> bool:
        """Whether `call` (in LibCST's tree or CPython's) passes the name `name` to a parameter
        whose items it moves to a device."""
        return bool(self._parameters_given(call, name) & self.moved_parameters)

    def _ast_parameters_given(self, call: ast.Call, name: str) -> Set[str]:
        """The parameters `call` passes `name` to; for an element name (`dloader[0]`, see
        `_element_name`), the same element of those parameters (`data_loader[0]`)."""
        name, bracket, element = name.partition("[")
        given = {keyword.arg for keyword in call.keywords if keyword.arg and isinstance(keyword.value, ast.Name) and keyword.value.id == name}
        for index, arg in enumerate(call.args):
            if isinstance(arg, ast.Starred):
                break
            if isinstance(arg, ast.Name) and arg.id == name and index < len(self.parameters):
                given.add(self.parameters[index])
        return {parameter + bracket + element for parameter in given}

    def _parameters_given(self, call: "cst.Call | ast.Call", name: str) -> Set[str]:
        if isinstance(call, ast.Call):
            return self._ast_parameters_given(call, name)
        name, bracket, element = name.partition("[")  # an element (`data['tr_loader']`): of the same parameter
        given = set()
        for index, arg in enumerate(call.args):
            if arg.star or _dotted_name(arg.value) != name:
                continue
            if arg.keyword is not None:
                given.add(arg.keyword.value)
            elif all(a.keyword is None and not a.star for a in call.args[:index]) and index < len(self.parameters):
                given.add(self.parameters[index])
        return {parameter + bracket + element for parameter in given}


@dataclass(frozen=True)
class CallSite:
    """A call of a project function: where, from which function, and under which guards.

    `guards` are the source of the enclosing `if` tests within the calling function,
    outermost first, an `else` branch's as `not (<test>)`."""

    path: str
    line: int
    caller: Optional[str]
    guards: Tuple[str, ...] = ()
    in_loop: bool = False
    in_handler: bool = False
    # In a `for` loop whose target or iterable names an epoch (`for epoch in range(n):`).
    in_epoch_loop: bool = False
    # In a loop that does not name an epoch (`for batch in loader:`, `for i in range(iters):`),
    # inside an epoch loop or not, nor walks a display (`for split in ("head", "tail"):`): with
    # a caller that trains, a step loop.
    in_other_loop: bool = False
    # The last names of the direct bases of the class whose method makes the call
    # (`LightningModule` for a call in its `validation_step`).
    caller_bases: Tuple[str, ...] = ()
    # In a loop that names no epoch (nor walks a display) inside a loop over epochs (`for
    # epoch in ...: for x, y in val_loader:`): once per batch of every epoch.
    in_batch_loop: bool = False
    # What the call returns goes to a Gym environment's `step()` in the same loop (`action =
    # agent.act(state)`, then `env.step(action)`): the environment takes it on the host.
    feeds_environment: bool = False
    # The counters of the enclosing loops (`i` of `for i, x in enumerate(loader):` or `for i
    # in range(n):`): a guard comparing one to a value (`if i == len(loader) - 1:`) picks one step.
    counters: Tuple[str, ...] = ()


@dataclass(frozen=True)
class ModuleFacts:
    functions: Dict[str, FunctionFacts]
    # Calls by the dotted name written at the call site (`log_metrics`, `utils.log`).
    calls: Dict[str, Tuple[CallSite, ...]]
    # The class each name or attribute holds, as written: `agent = SAC(...)`, `self.agent =
    # sac.SAC(...)`, `bpr: utils.BPRLoss = ...`, a parameter `bpr: BPRLoss`.
    instances: Dict[str, str] = field(default_factory=dict)
    # Each `DataLoader(...)` the module builds, torch's or another (`torch_geometric.loader.
    # DataLoader`, a class named `...DataLoader`): whether it pins memory (True for `True` or
    # `torch.cuda.is_available()`, False when it does not, None when the value is unknown).
    loaders: Tuple[Optional[bool], ...] = ()
    # The module's classes whose `.to()`/`.cuda()` may not take `non_blocking` (see `_moves_without`).
    blocking_moves: Tuple[str, ...] = ()
    # Calls of functions through a list, tuple or dict of handles (see `_handle_calls`), by the
    # dotted name of each function the handles name (`metric.*`: any public function of the
    # module `metric`).
    handle_calls: Dict[str, Tuple[CallSite, ...]] = field(default_factory=dict)
    # Parameters its module-level functions hand on unchanged to a function called by name
    # (see `_HandOff`), followed across modules by `_module_facts`.
    hand_offs: Tuple["_HandOff", ...] = ()
    # The calls of each loop's element, by the container the loop runs over (`for met in
    # self.metric_ftns: met(output, target)` under `self.metric_ftns`; see `_element_calls`).
    element_calls: Dict[str, Tuple[CallSite, ...]] = field(default_factory=dict)
    # Holders of handles handed to a call: (the callee as written, the argument's position
    # or keyword, the handles), followed into the callee's module by `_module_facts`.
    handed_handles: Tuple[Tuple[str, "int | str", Tuple[str, ...]], ...] = ()


@dataclass(frozen=True)
class _HandOff:
    """`caller` passes its parameter `parameter` unchanged to the function called `callee`,
    as the positional argument at index `slot` or the keyword `slot`; `looped`: the call is
    in a loop of the caller."""

    caller: str
    parameter: str
    callee: str
    slot: "int | str"
    looped: bool


# While a module is summarised: the nodes of each statement's `_ast_walk` read so far, by the
# statement's id (with the statement): a class's summary reads its methods' bodies again.
_WALKS: contextvars.ContextVar[Optional[Dict[int, Tuple[ast.AST, List[ast.AST]]]]] = contextvars.ContextVar("_WALKS", default=None)


def _statement_walk(statement: ast.AST) -> List[ast.AST]:
    """`_ast_walk(statement)`, read once per module summary (callers must not change it)."""
    walks = _WALKS.get()
    if walks is None:
        return _ast_walk(statement)
    known = walks.get(id(statement))
    if known is None or known[0] is not statement:
        known = walks[id(statement)] = (statement, _ast_walk(statement))
    return known[1]


@lru_cache(maxsize=1024)
def _module_facts(text: str, path: str) -> ModuleFacts:
    """Function summaries and call sites of the module at `path` with source `text`: its own
    (`_local_module_facts`), with the passes its functions hand on to functions imported by
    name from project modules (`from helper_evaluation import compute_accuracy`), read from
    those modules' own summaries (one step across modules, whatever order files come in)."""
    local = _local_module_facts(text, path)
    if not os.path.isabs(path):
        return local
    imported: Dict[str, FunctionFacts] = {}
    for name in {item.callee for item in local.hand_offs if item.callee not in local.functions}:
        found = _imported_own_function(path, text, name)
        if found is not None:
            imported[name] = found
    functions = _with_imported_steps(local, path, text)
    if imported:
        functions = _passes_handed_on(dict(functions), local.hand_offs, imported)
    handle_calls = _handed_handle_calls(local, path, text) if local.handed_handles else local.handle_calls
    if functions is local.functions and handle_calls is local.handle_calls:
        return local
    return dataclasses.replace(local, functions=functions, handle_calls=handle_calls)


def _with_imported_steps(local: ModuleFacts, path: str, text: str) -> Dict[str, FunctionFacts]:
    """The summaries of the module at `path` with the training steps it takes through functions
    imported by name from project modules: a call of one that steps itself (`update_params(optim,
    loss)` doing zero_grad, backward and step) outside the caller's loops makes the caller step
    itself, and inside them makes it train; callers within the module follow (a function by
    name, a method by `self.name(...)`), as `_with_training` and `_with_delegated_steps` have it
    for the module's own steps. The functions `local` has when nothing is imported that steps."""
    bound = {name for statement in module_imports(text) for _, name in statement.names if name != STAR}
    stepping = {
        written for written in local.calls
        if written in bound and written not in local.functions and (found := _imported_own_function(path, text, written)) is not None and found.steps_itself
    }
    stepping |= {written for written in local.calls if _held_method_steps(local, path, text, bound, written)}
    if not stepping:
        return local.functions
    functions = dict(local.functions)
    pending = True
    while pending:
        pending = False
        methods = {name.rpartition(".")[2] for name in stepping}
        for written, sites in local.calls.items():
            if written not in stepping and not (written.startswith("self.") and written[len("self."):] in methods):
                continue
            for site in sites:
                caller = _qualified_in(text, site)
                facts = functions.get(caller) if caller is not None and not site.in_handler else None
                if facts is None:
                    continue
                updated = dataclasses.replace(facts, trains=True, steps_itself=facts.steps_itself or not site.in_loop)
                if updated != facts:
                    functions[caller] = updated
                    if updated.steps_itself:
                        stepping.add(caller)
                    pending = True
    return functions


def _held_method_steps(local: ModuleFacts, path: str, text: str, bound: Set[str], written: str) -> bool:
    """Whether the call `written` is of a method of an instance the module holds (`self.optim.
    step(loss)` after `self.optim = ParamOptim(...)`) whose class, of this module or imported
    by name from a project module, has that method step itself: each call is a training step."""
    holder, _, method = written.rpartition(".")
    klass = local.instances.get(holder) if holder else None
    if klass is None or "." in klass:
        return False
    if klass in bound:
        facts = _imported_own_function(path, text, klass, method)
    else:
        facts = local.functions.get(f"{klass}.{method}")
    return facts is not None and facts.steps_itself


def _imported_own_function(path: str, text: str, name: str, member: str = "") -> Optional[FunctionFacts]:
    """The module-level function `name` that `text` (of the module at `path`) imports by name
    from a project module, as that module's own summary has it; with `member`, the method of
    that name of the class `name`."""
    defined = _imported_definition(path, text, name)
    if defined is None:
        return None
    file, original = defined
    return _local_module_facts(read_module(file).text, file).functions.get(f"{original}.{member}" if member else original)


def _imported_definition(path: str, text: str, name: str, depth: int = MAX_REEXPORTS) -> Optional[Tuple[str, str]]:
    """(the project module's file, the name it defines) for the name `text` (of the module at
    `path`) imports by name (or with `*`) from a project module, through packages that
    re-export it (`from .trainer import *` in `trainer/__init__.py`); None for any other name."""
    for statement in _imports_binding(text, name):
        original = next((item for item, local in statement.names if local == name), None)
        if original is None and any(local == STAR for _, local in statement.names):
            original = name
        module = [part for part in statement.module.split(".") if part]
        for base in _import_bases(path, statement, search_roots(path)) if original is not None and module else ():
            file = _module_file(base, module)
            if file is None:
                continue
            other = read_module(file).text
            if _defines_at_top(other, original):
                return file, original
            found = _imported_definition(file, other, original, depth - 1) if depth > 0 else None
            if found is not None:
                return found
    return None


@lru_cache(maxsize=1024)
def _local_module_facts(text: str, path: str) -> ModuleFacts:
    """`_module_facts` from the module's own text alone."""
    try:
        if nests_too_deeply(text):  # the summaries below recurse once per level
            return ModuleFacts({}, {})
        tree = python_tree(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ModuleFacts({}, {})
    token = _WALKS.set({})
    try:
        return _summarised_module(tree, text, path)
    finally:
        _WALKS.reset(token)


def _summarised_module(tree: ast.Module, text: str, path: str) -> ModuleFacts:
    """`_module_facts` of the module whose CPython tree is `tree`."""
    aliases = _ast_aliases(tree)
    functions: Dict[str, FunctionFacts] = {}
    calls: Dict[str, List[CallSite]] = {}
    classes = {node.name: node for node in _statements(tree.body) if isinstance(node, ast.ClassDef)}
    _summarise(tree, "", aliases, functions, classes)
    collector = _CallCollector(path, text, calls)
    collector.visit(tree)
    hand_offs = _hand_offs_of(tree, functions)
    functions = _passes_handed_on(_with_delegated_steps(_with_training(functions, calls), classes), hand_offs, {})
    loaders = _loaders(tree, aliases) if _may_build_loaders(text) else ()
    blocking = tuple(name for name, node in classes.items() if _moves_without(node, "non_blocking"))
    elements = _element_calls(tree, text, calls)
    holders = _handle_holders(tree) if _HANDLE_HINT.search(text) else {}
    return ModuleFacts(
        functions, {name: tuple(sites) for name, sites in calls.items()}, _instances(tree, collector.bindings), loaders, blocking,
        _handle_calls(holders, elements), hand_offs, elements, _handed_handles(tree, holders),
    )


# `getattr(module, name)` with a name that is no literal: a handle chosen at run time.
_GETATTR_HANDLE = re.compile(r"\bgetattr\(\s*([\w.]+)\s*,\s*(?![\s\"'])")


@lru_cache(maxsize=4096)
def _gets_module_handles(text: str) -> bool:
    """Whether `text` may take a function from a module by a name chosen at run time: a
    `getattr(name, ...)` with no literal name whose object the module's imports bind (a
    cheap test before summarising a module for `callers_of`: `getattr(self, name)` and
    `getattr(args, key)` are no such handles)."""
    objects = {match.group(1) for match in _GETATTR_HANDLE.finditer(text)}
    if not objects:
        return False
    imported = {local for statement in module_imports(text) for local in (statement.local, *(local for _, local in statement.names))}
    return bool(objects & imported)


def _handle_calls(holders: Dict[str, List[str]], elements: Dict[str, Tuple[CallSite, ...]]) -> Dict[str, Tuple[CallSite, ...]]:
    """Calls of the functions a module holds as handles: a name or attribute assigned a list,
    tuple or set of functions (`metrics = [accuracy, top_k_acc]`), a dict of them (`{"acc":
    accuracy}`), or `getattr(module, name)` with a name chosen at run time, alone or in a
    comprehension (`[getattr(module_metric, met) for met in config["metrics"]]`), then called
    as the element of a `for` loop over it in the same module (`for met in self.metric_ftns:
    met(output, target)`, also over `.values()`, `.items()` or `enumerate(...)`; see
    `_element_calls`). A `getattr` on a module stands for every public function of that
    module (an approximation: the names come from a configuration the analysis does not
    read). Holders handed to another module's class or function are followed by
    `_module_facts` (`_handed_handle_calls`)."""
    found: Dict[str, List[CallSite]] = {}
    for holder, handles in holders.items():
        for handle in handles if holder in elements else ():
            found.setdefault(handle, []).extend(elements[holder])
    return {handle: tuple(sites) for handle, sites in found.items()}


def _element_calls(tree: ast.Module, text: str, calls: Dict[str, List[CallSite]]) -> Dict[str, Tuple[CallSite, ...]]:
    """The call sites of each `for` loop's element that the loop's body calls, by the dotted
    container it runs over (`for met in self.metric_ftns: met(output, target)`; see
    `_loop_element`)."""
    if not {match.group(1) for match in _LOOP_ELEMENT.finditer(text)} & calls.keys():
        return {}  # no loop's element is called: the module is not walked
    found: Dict[str, List[CallSite]] = {}
    for node in _statements(tree.body):
        element = _loop_element(node) if isinstance(node, (ast.For, ast.AsyncFor)) else None
        if element is None or element[1] not in calls:
            continue
        lines = {
            call.lineno for statement in node.body for call in _ast_walk(statement)  # type: ignore[attr-defined]
            if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == element[1]
        }
        sites = [site for site in calls[element[1]] if site.line in lines]
        if sites:
            found.setdefault(element[0], []).extend(sites)
    return {container: tuple(sites) for container, sites in found.items()}


# A display, comprehension or `getattr` that may hold handles (a cheap test before the walk).
_HANDLE_HINT = re.compile(r"=\s*[\[({]|\bgetattr\(")


def _handle_holders(tree: ast.Module) -> Dict[str, List[str]]:
    """The names and attributes the module assigns handles to (see `_handles`), with them."""
    holders: Dict[str, List[str]] = {}
    for node in _statements(tree.body):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, _HANDLE_VALUES):
            holder = _ast_dotted(node.targets[0])
            handles = _handles(node.value)
            if holder is not None and handles:
                holders.setdefault(holder, []).extend(handles)
    return holders


def _handed_handles(tree: ast.Module, holders: Dict[str, List[str]]) -> Tuple[Tuple[str, "int | str", Tuple[str, ...]], ...]:
    """Each call that hands a holder of handles on (`Trainer(model, criterion, metrics,
    ...)`): the callee as written, the argument's position or keyword, and the handles."""
    if not holders:
        return ()
    found = []
    for call in _ast_walk(tree):
        callee = _ast_dotted(call.func) if isinstance(call, ast.Call) else None
        if callee is None:
            continue
        slots: List[Tuple["int | str", ast.AST]] = [*enumerate(call.args), *((item.arg, item.value) for item in call.keywords if item.arg)]
        for slot, value in slots:
            holder = _ast_dotted(value)
            if holder in holders:
                found.append((callee, slot, tuple(holders[holder])))
    return tuple(found)


def _handed_handle_calls(local: ModuleFacts, path: str, text: str) -> Dict[str, Tuple[CallSite, ...]]:
    """`local.handle_calls` with the calls of handles the module hands to a class or function
    imported by name from a project module, which loops over them under the parameter's name
    or as the attribute of that name (`Trainer(model, criterion, metrics, ...)`, then `for met
    in self.metric_ftns: met(output, target)` in the module that defines `Trainer`)."""
    found = {handle: list(sites) for handle, sites in local.handle_calls.items()}
    for callee, slot, handles in local.handed_handles:
        defined = _imported_definition(path, text, callee)
        if defined is None:
            continue
        file, original = defined
        other = _local_module_facts(read_module(file).text, file)
        target = other.functions.get(f"{original}.__init__") or other.functions.get(original)
        if target is None:
            continue
        parameters = [name for name in target.parameters if name not in ("self", "cls")]
        parameter = slot if isinstance(slot, str) else (parameters[slot] if slot < len(parameters) else None)
        if parameter is None:
            continue
        sites = [*other.element_calls.get(parameter, ()), *other.element_calls.get(f"self.{parameter}", ())]
        for handle in handles if sites else ():
            found.setdefault(handle, []).extend(sites)
    return {handle: tuple(sites) for handle, sites in found.items()}


# The name a `for` loop binds to each element (`for met in`, `for name, met in`).
_LOOP_ELEMENT = re.compile(r"\bfor\s+(?:\w+\s*,\s*)?(\w+)\s+in\b")
# The values that may hold handles (see `_handles`).
_HANDLE_VALUES = (ast.Call, ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp, ast.List, ast.Tuple, ast.Set, ast.Dict)


def _handles(value: ast.AST) -> List[str]:
    """The functions a value holds as handles (see `_handle_calls`), as written; none when an
    element is not a name (`[nn.ReLU(), 3]` holds no functions)."""
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "getattr" and len(value.args) == 2:
        module = _ast_dotted(value.args[0])
        return [f"{module}.*"] if module is not None and not isinstance(value.args[1], ast.Constant) else []
    if isinstance(value, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        return _handles(value.elt)
    if isinstance(value, ast.DictComp):
        return _handles(value.value)
    if isinstance(value, (ast.List, ast.Tuple, ast.Set, ast.Dict)):
        elements = value.values if isinstance(value, ast.Dict) else value.elts
        written = [_ast_dotted(element) for element in elements]
        return [name for name in written if name is not None] if written and None not in written else []
    return []


def _loop_element(loop: ast.AST) -> Optional[Tuple[str, str]]:
    """(the container, the name bound to each element) of `for f in handles`, `for f in
    handles.values()`, `for k, f in handles.items()`, `for i, f in enumerate(handles)`."""
    target, iterated = loop.target, loop.iter  # type: ignore[attr-defined]
    pair = isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[1], ast.Name)
    if isinstance(iterated, ast.Call) and not iterated.keywords:
        method = _ast_dotted(iterated.func) or ""
        if method == "enumerate" and len(iterated.args) == 1 and pair:
            container = _ast_dotted(iterated.args[0])
            return (container, target.elts[1].id) if container else None
        if isinstance(iterated.func, ast.Attribute) and not iterated.args and iterated.func.attr in ("values", "items"):
            container = _ast_dotted(iterated.func.value)
            if container is None:
                return None
            if iterated.func.attr == "items":
                return (container, target.elts[1].id) if pair else None
            return (container, target.id) if isinstance(target, ast.Name) else None
        return None
    container = _ast_dotted(iterated)
    return (container, target.id) if container is not None and isinstance(target, ast.Name) else None


MOVE_METHODS = ("to", "cuda")


def _moves_without(klass: ast.ClassDef, keyword: str) -> bool:
    """Whether the class's `.to()` or `.cuda()` may not take `keyword`: a method by that name
    without the parameter or a `**kwargs`, a binding of the name in the class body (`to =
    _move`), or a `__getattr__` (which may answer it)."""
    for statement in _statements(klass.body):
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if statement.name == "__getattr__":
                return True
            arguments = statement.args
            names = {argument.arg for argument in (*arguments.args, *arguments.kwonlyargs)}
            if statement.name in MOVE_METHODS and keyword not in names and arguments.kwarg is None:
                return True
        elif isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if any(isinstance(target, ast.Name) and target.id in (*MOVE_METHODS, "__getattr__") for target in targets):
                return True
    return False


def _may_build_loaders(text: str) -> bool:
    """A cheap screen for `_loaders`: the text names a loader class or ignite's
    `auto_dataloader` (`idist.auto_dataloader(...)`)."""
    return "DataLoader" in text or "auto_dataloader" in text


def _loaders(tree: ast.Module, aliases: Dict[str, str]) -> Tuple[Optional[bool], ...]:
    """`ModuleFacts.loaders` of a module."""
    found = []
    for node in _ast_walk(tree):
        if not isinstance(node, ast.Call):
            continue
        callee = _ast_qualified(node.func, aliases) or _ast_dotted(node.func) or ""
        if callee in DATALOADERS or callee in AUTO_PINNING_LOADERS or callee.rpartition(".")[2].endswith("DataLoader"):
            keywords = {keyword.arg: keyword.value for keyword in node.keywords}
            pins = _pins(keywords.get("pin_memory"), aliases, None in keywords or len(node.args) > 7)
            found.append(True if callee in AUTO_PINNING_LOADERS and "pin_memory" not in keywords else pins)
    return tuple(found)


def _pins(value: Optional[ast.AST], aliases: Dict[str, str], spread: bool) -> Optional[bool]:
    """Whether a loader's `pin_memory` argument pins: True for `True` or a test that holds where
    CUDA runs (`torch.cuda.is_available()`, `device.type == "cuda"`, a flag named for CUDA such
    as `use_gpu` or `not args.no_cuda`: `device_names.cuda_by_words`; also as `True if ...
    else False`), False for `False`, none given or a flag named for the CPU, else None."""
    if value is None:
        return None if spread else False
    if isinstance(value, ast.IfExp) and _constant(value.body, True) and _constant(value.orelse, False):
        value = value.test  # `True if device.type == "cuda" else False`
    if isinstance(value, ast.Constant):
        return value.value is True if isinstance(value.value, bool) else None
    if isinstance(value, ast.Call) and _ast_qualified(value.func, aliases) == "torch.cuda.is_available":
        return True
    if isinstance(value, ast.Compare) and len(value.ops) == 1 and isinstance(value.ops[0], ast.Eq) and any(
        isinstance(part, ast.Constant) and isinstance(part.value, str) and part.value.split(":")[0] == "cuda" for part in (value.left, *value.comparators)
    ):
        return True  # `device.type == "cuda"`
    negated = isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not)
    flag = _ast_dotted(value.operand if negated else value)  # type: ignore[attr-defined]
    return cuda_by_words(words_of(flag), negated) if flag else None  # `pin_memory=use_gpu`


def _constant(node: ast.AST, value: object) -> bool:
    return isinstance(node, ast.Constant) and node.value is value


def builds_unpinned_loader(facts: ModuleFacts) -> bool:
    """Whether a module builds a loader that does not pin memory: a `DataLoader`, torch's or
    another library's (`ModuleFacts.loaders`), whose `pin_memory` is not known to pin."""
    return any(pins is not True for pins in facts.loaders)


def file_builds_unpinned_loader(ctx: "FileFacts") -> bool:
    """`builds_unpinned_loader` of the checked file (a notebook's code, standard input too)."""
    return builds_unpinned_loader(_own_facts(ctx))


def project_pins_loaders(path: str, patterns: Sequence[str]) -> bool:
    """Whether every `DataLoader` the project of the file at `path` builds outside test code
    pins memory (and it builds one; another library's counts too: its batches are the ones a
    loop may draw), so that a batch of a loader whose construction the
    analysis cannot follow (`self.train_loader`, set by another module) is pinned. Noted as a
    dependency on the project's listing."""
    root = project_root(os.path.abspath(path))
    stamp = tree_stamp(root)
    note_listing(root, stamp)
    return _project_pins_loaders(root, stamp, tuple(patterns))


@lru_cache(maxsize=64)
def _project_pins_loaders(root: str, stamp: str, patterns: Tuple[str, ...]) -> bool:
    """`project_pins_loaders` of the project at `root` as `stamp` lists it."""
    modules = [
        module_facts(file)
        for file in project_files(root)
        if _may_build_loaders(read_module(file).text) and not test_module(file, patterns)
    ]
    return any(facts.loaders for facts in modules) and not any(builds_unpinned_loader(facts) for facts in modules)


def project_moves_without_non_blocking(path: str, patterns: Sequence[str]) -> Optional[str]:
    """A class of the project of the file at `path` (outside test code) whose `.to()` or
    `.cuda()` may not take `non_blocking` (`ModuleFacts.blocking_moves`): its objects may be a
    batch that another module moves. None when there is none. Noted as a dependency on the
    project's listing."""
    root = project_root(os.path.abspath(path))
    stamp = tree_stamp(root)
    note_listing(root, stamp)
    return _project_moves_without_non_blocking(root, stamp, tuple(patterns))


@lru_cache(maxsize=64)
def _project_moves_without_non_blocking(root: str, stamp: str, patterns: Tuple[str, ...]) -> Optional[str]:
    """`project_moves_without_non_blocking` of the project at `root` as `stamp` lists it."""
    for file in project_files(root):
        if not test_module(file, patterns):
            found = module_facts(file).blocking_moves
            if found:
                return found[0]
    return None


def _with_training(functions: Dict[str, FunctionFacts], calls: Dict[str, List[CallSite]]) -> Dict[str, FunctionFacts]:
    """The summaries with `trains` set: a function that runs a backward pass, and, within the
    module, every function that calls one that trains (by the last part of the names)."""
    callers: Dict[str, Set[str]] = {}
    for written, sites in calls.items():
        callers.setdefault(written.rsplit(".", 1)[-1], set()).update(site.caller.rsplit(".", 1)[-1] for site in sites if site.caller)
    training = _reaching({name.rsplit(".", 1)[-1] for name, facts in functions.items() if facts.calls_backward}, callers)
    return {
        name: dataclasses.replace(facts, trains=True) if name.rsplit(".", 1)[-1] in training else facts
        for name, facts in functions.items()
    }


def _hand_offs_of(tree: ast.Module, functions: Dict[str, FunctionFacts]) -> Tuple[_HandOff, ...]:
    """The parameters the module-level functions of `tree` pass unchanged to a function
    called by name (`evaluate(model, valid_loader, device)` in `train_model`)."""
    found: List[_HandOff] = []
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name not in functions:
            continue
        parameters = functions[node.name].parameters
        walked = [item for statement in node.body for item in _statement_walk(statement)]
        looped = {id(item) for loop in walked if isinstance(loop, (ast.For, ast.AsyncFor, ast.While)) for statement in loop.body for item in _ast_walk(statement)}
        rebound = {item.id for item in walked if isinstance(item, ast.Name) and isinstance(item.ctx, ast.Store)}
        for call in walked:
            if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name) or call.func.id == node.name:
                continue
            given: List[Tuple["int | str", ast.AST]] = []
            for index, arg in enumerate(call.args):
                if isinstance(arg, ast.Starred):
                    break
                given.append((index, arg))
            given += [(keyword.arg, keyword.value) for keyword in call.keywords if keyword.arg is not None]
            found += [
                _HandOff(node.name, value.id, call.func.id, slot, id(call) in looped)
                for slot, value in given
                if isinstance(value, ast.Name) and value.id in parameters and value.id not in rebound
            ]
    return tuple(found)


def _passes_handed_on(
    functions: Dict[str, FunctionFacts], hand_offs: Tuple[_HandOff, ...], imported: Dict[str, FunctionFacts]
) -> Dict[str, FunctionFacts]:
    """The summaries with the passes their functions hand on (`hand_offs`, to the module's
    functions or those `imported` by name): a parameter given unchanged to a function that
    loops over it is iterated by the caller too, moved where the callee moves its items, and
    iterated again and again where the callee does so or the call is in a loop of the caller
    (every epoch). Followed through chains of up to three such calls."""
    for _ in range(3):
        changed = False
        for item in hand_offs:
            facts = functions.get(item.caller)
            inner = functions.get(item.callee) or imported.get(item.callee)
            if facts is None or inner is None:
                continue  # (a class built with the value counts: it is built to be run)
            given = item.slot if isinstance(item.slot, str) else inner.parameters[item.slot] if item.slot < len(inner.parameters) else None
            if given is None:
                continue
            again = given in inner.reiterated_parameters or (item.looped and given in inner.iterated_parameters)
            updated = dataclasses.replace(
                facts,
                iterated_parameters=facts.iterated_parameters | ({item.parameter} if given in inner.iterated_parameters else set()),
                moved_parameters=facts.moved_parameters | ({item.parameter} if given in inner.moved_parameters else set()),
                reiterated_parameters=facts.reiterated_parameters | ({item.parameter} if again else set()),
            )
            if updated != facts:
                functions[item.caller] = updated
                changed = True
        if not changed:
            break
    return functions


def _reaching(start: Set[str], callers: Dict[str, Set[str]]) -> Set[str]:
    """`start` and every name that reaches one of them through `callers` (callee -> callers)."""
    found = set(start)
    pending = list(found)
    while pending:
        for caller in callers.get(pending.pop(), ()):
            if caller not in found:
                found.add(caller)
                pending.append(caller)
    return found


def _with_delegated_steps(functions: Dict[str, FunctionFacts], classes: Dict[str, ast.ClassDef]) -> Dict[str, FunctionFacts]:
    """The summaries with `steps_itself` set also for a method that calls, outside its loops,
    a method of its class that steps itself (`update()` calling `self.update_critic(...)`,
    which runs the backward pass): each call of it is a training step too."""
    delegates: Dict[str, Set[str]] = {}
    for klass, node in classes.items():
        for method in node.body:
            if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and method.args.args:
                own = method.args.args[0].arg
                delegates[f"{klass}.{method.name}"] = {
                    f"{klass}.{item.func.attr}"
                    for statement in method.body
                    for item in _walk_outside(statement, _LOOPS_AND_DEFINITIONS)
                    if isinstance(item, ast.Call) and isinstance(item.func, ast.Attribute) and _ast_dotted(item.func.value) == own
                }
    stepping = {name for name, facts in functions.items() if facts.steps_itself}
    pending = True
    while pending:
        pending = False
        for name, called in delegates.items():
            if name not in stepping and name in functions and called & stepping:
                stepping.add(name)
                pending = True
    return {name: dataclasses.replace(facts, steps_itself=True) if name in stepping else facts for name, facts in functions.items()}


def _instances(tree: ast.Module, bindings: Optional[List[ast.AST]] = None) -> Dict[str, str]:
    """The class written for each name or attribute the module binds to an instance: the
    callee of a constructor call whose name starts with a capital (`agent = SAC(...)`), or an
    annotation (`bpr: utils.BPRLoss = loss`, a parameter `loss: BPRLoss`), or a call of a
    method of a capitalised name, which may be another constructor of that class
    (`TimeSeriesDataSet.from_dataset`, see `_instance_method`; not a method of the name
    itself, `self.C = self.C.cuda()`), or a call of a module-level factory function of the
    module that only returns instances of one class (`agent = make_agent(...)` where
    `make_agent` returns `CurlSacAgent(...)`). A name bound to different classes is left out,
    but where classes of the module each bind a `self.` attribute to one class of its own, each
    class's is kept under its name (`Runner.self.trainer`).
    `bindings`: the module's assignments and parameters (`ast.arg`), when already collected."""
    factories = _factories(tree)
    nodes = bindings if bindings is not None else list(_ast_walk(tree))
    renamed = _class_aliases(nodes)
    found = _written_classes(nodes, factories, renamed)
    single = {name: next(iter(classes)) for name, classes in found.items() if len(classes) == 1}
    if any(name.startswith("self.") for name in found.keys() - single.keys()):
        # `self.trainer` of two classes of the module, each bound to a class of its own: each
        # class's, under `Class.self.trainer` (see `_own_instance_method`).
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                owned = _written_classes(_ast_walk(node), factories, renamed)
                single.update(
                    (f"{node.name}.{name}", next(iter(classes))) for name, classes in owned.items()
                    if name.startswith("self.") and name not in single and len(classes) == 1
                )
    return single


def _written_classes(nodes: Iterable[ast.AST], factories: Dict[str, ast.AST], renamed: Dict[str, str]) -> Dict[str, Set[str]]:
    """The classes written for each name or attribute `nodes` bind (see `_instances`)."""
    found: Dict[str, Set[str]] = {}
    for node in nodes:
        pairs: List[Tuple[ast.AST, Optional[ast.AST]]] = []
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call):
            func = node.value.func
            pairs.append((node.targets[0], factories.get(func.id, func) if isinstance(func, ast.Name) else func))
        elif isinstance(node, ast.AnnAssign):
            pairs.append((node.target, node.annotation))
        elif isinstance(node, ast.arg) and node.annotation is not None:
            pairs.append((ast.Name(node.arg), node.annotation))
        for target, written in pairs:
            name, klass = _ast_dotted(target), _ast_dotted(written)
            klass = renamed.get(klass, klass) if klass else klass
            if name and klass and klass.rpartition(".")[0] != name and any(part[:1].isupper() for part in klass.split(".")[-2:]):
                found.setdefault(name, set()).add(klass)
    return {name: {klass for klass in classes if klass.rpartition(".")[0] not in classes} for name, classes in found.items()}


def _class_aliases(bindings: Sequence[ast.AST]) -> Dict[str, str]:
    """Names bound to exactly one capitalised name as it is, not a call (`Exp = Exp_Main`,
    then `exp = Exp(args)` builds an `Exp_Main`), with what they are bound to."""
    found: Dict[str, Set[str]] = {}
    for node in bindings:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = _ast_dotted(node.value) if isinstance(node.value, (ast.Name, ast.Attribute)) else None
            found.setdefault(node.targets[0].id, set()).add(value if value and value.rpartition(".")[2][:1].isupper() else "")
    return {name: next(iter(values)) for name, values in found.items() if len(values) == 1 and "" not in values}


def _factories(tree: ast.Module) -> Dict[str, ast.AST]:
    """The module-level functions whose every `return` returns a constructor call of one
    capitalised class, with that callee as written (`make_agent` -> `CurlSacAgent`)."""
    found: Dict[str, ast.AST] = {}
    for function in tree.body:
        if not isinstance(function, ast.FunctionDef):
            continue
        returns = [node for node in _statements(function.body) if isinstance(node, ast.Return)]
        callees = {_ast_dotted(node.value.func) for node in returns if isinstance(node.value, ast.Call)}
        if len(callees) == 1 and len(returns) == sum(isinstance(node.value, ast.Call) for node in returns):
            callee = next(iter(callees))
            if callee and callee.rpartition(".")[2][:1].isupper():
                found[function.name] = returns[0].value.func  # type: ignore[union-attr]
    return found


def _ast_aliases(tree: ast.Module) -> Dict[str, str]:
    """Local name -> qualified name for the module's absolute imports."""
    aliases: Dict[str, str] = {}
    for node in _statements(tree.body):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                aliases[alias.asname or top] = alias.name if alias.asname else top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return aliases


@lru_cache(maxsize=1024)
def _text_aliases(text: str) -> Dict[str, str]:
    """`_ast_aliases` of the module with source `text`, once per text (callers must not change it)."""
    return _ast_aliases(python_tree(text))


def _statements(body: List[ast.AST]) -> Iterator[ast.AST]:
    """The statements of `body` and of every block nested in them (expressions are not
    entered: imports are statements)."""
    for statement in body:
        yield statement
        for block in ("body", "orelse", "finalbody", "handlers", "cases"):
            nested = getattr(statement, block, None)
            if isinstance(nested, list):
                yield from _statements(nested)


def _summarise(
    scope: ast.AST, prefix: str, aliases: Dict[str, str], out: Dict[str, FunctionFacts], classes: Dict[str, ast.ClassDef]
) -> None:
    """Summaries of the functions and classes defined in `scope`; `classes` are the module's
    class definitions by name (the bases a class may derive from)."""
    for node in ast.iter_child_nodes(scope):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out[prefix + node.name] = _function_facts(node, prefix + node.name, aliases)
        elif isinstance(node, ast.ClassDef):
            inner = f"{prefix}{node.name}."
            _summarise(node, inner, aliases, out, classes)
            if not prefix:
                _inherit_members(node, out, classes)
            members = [facts for key, facts in out.items() if key.startswith(inner)]
            facts = _class_facts(node, prefix + node.name, aliases, members, out, classes)
            held = items_in_memory(node, classes, aliases)
            given = held or items_in_memory(node, classes, aliases, given=True)
            graphs = builds_graphs_per_item(node, classes, aliases)
            out[prefix + node.name] = dataclasses.replace(
                facts, items_in_memory=held, items_in_memory_if_given=given, builds_graphs_per_item=graphs,
                items_on_device=items_on_device(node, classes),
            )
        elif isinstance(node, (ast.If, ast.Try)):
            _summarise(node, prefix, aliases, out, classes)  # definitions under `if`/`try` at the same level


def _qualified_names(nodes: Iterable[ast.AST], aliases: Dict[str, str]) -> Set[Optional[str]]:
    return {_ast_qualified(item, aliases) for item in nodes if isinstance(item, (ast.Name, ast.Attribute))}


def _by_type(nodes: Iterable[ast.AST]) -> Dict[type, List[ast.AST]]:
    """`nodes` grouped by exact class (CPython's node classes have no subclasses the parser
    builds), each group in the order given: the facts of a body filter these groups instead
    of each walking every node."""
    grouped: Dict[type, List[ast.AST]] = {}
    for item in nodes:
        same = grouped.get(type(item))
        if same is None:
            grouped[type(item)] = [item]
        else:
            same.append(item)
    return grouped


def _of(grouped: Dict[type, List[ast.AST]], *kinds: type) -> List[ast.AST]:
    """The nodes of `grouped` of the classes `kinds`, class by class."""
    return [item for kind in kinds for item in grouped.get(kind, ())]


def _fitted_names(calls: List[ast.Call]) -> Iterator[str]:
    """The names handed to `fit` calls among `calls`, as arguments or in list and tuple
    displays of them (`trainer.fit(model, train_loader, val_dataloaders=[val_loader])`)."""
    for call in calls:
        if _called_attribute(call) != "fit":
            continue
        for value in (*call.args, *(keyword.value for keyword in call.keywords)):
            for item in value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value]:
                if isinstance(item, ast.Name):
                    yield item.id


def _function_facts(node: ast.AST, name: str, aliases: Dict[str, str]) -> FunctionFacts:
    """One walk of the body, its nodes grouped by class; the decorators and the signature are
    walked for names only."""
    decorators = getattr(node, "decorator_list", ())
    grad_off_decorator = any(_ast_qualified(d.func if isinstance(d, ast.Call) else d, aliases) in GRAD_OFF for d in decorators)
    args = getattr(node, "args", None)
    parameters = tuple(a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)) if args is not None else ()
    body = _by_type(item for statement in getattr(node, "body", ()) for item in _statement_walk(statement))
    calls, returns, assigns = body.get(ast.Call, []), body.get(ast.Return, []), body.get(ast.Assign, [])
    loops = _of(body, ast.For, ast.AsyncFor)
    signature = [item for part in (*decorators, args, getattr(node, "returns", None)) if part is not None for item in _ast_walk(part)]
    qualified = _qualified_names(_of(body, ast.Name, ast.Attribute), aliases) | _qualified_names(signature, aliases)
    holders = _local_holders([*assigns, *body.get(ast.withitem, ())], {parameter: {parameter} for parameter in parameters})
    iterated = {parameter for name in _iterated_names(loops) for parameter in holders.get(name, ())}
    passes = _passes(_of(body, ast.For, ast.AsyncFor, ast.While), holders) if iterated else (set(), set())
    drawn = _hand_drawn_passes(_of(body, ast.For, ast.AsyncFor, ast.While), assigns, holders) if "iter" in {_ast_dotted(c.func) for c in calls} else None
    if drawn is not None:
        iterated |= drawn[0]
        passes = (passes[0] | drawn[1], passes[1] | drawn[2])
    local = set(parameters) | {item.id for item in body.get(ast.Name, ()) if isinstance(item.ctx, ast.Store)}
    free = {loop: names - local for loop in loops if (names := _iterated_names([loop]) - local)}
    returns_read_back = any(
        item.value is not None and any(_called_attribute(part) in READ_BACKS for part in _ast_walk(item.value))
        for item in returns
    )
    pinning = _pinned_returns(returns + assigns, aliases)
    return FunctionFacts(
        name=name,
        line=getattr(node, "lineno", 0),
        calls_backward=any(_called_attribute(item) == "backward" for item in calls)
        or "torch.autograd.grad" in qualified or "torch.autograd.backward" in qualified,
        static=any(_ast_dotted(d) in ("classmethod", "staticmethod") for d in decorators),
        builds_instance=_builds_instance(decorators, parameters, returns),
        steps_itself=_steps_itself(node),
        reads_grad=any(item.attr == "grad" for item in body.get(ast.Attribute, ())),
        uses_autocast=any(q is not None and q.split(".")[-1] == "autocast" for q in qualified),
        grad_off=grad_off_decorator,
        wraps_grad_off=bool(qualified & GRAD_OFF),
        parameters=parameters,
        mutated_parameters=frozenset(_mutated(_of(body, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Call)) & set(parameters)),
        iterated_parameters=frozenset(iterated),
        reiterated_parameters=frozenset(passes[0]),
        moved_parameters=frozenset(passes[1]),
        pinned_returns=frozenset((slot, collates) for slot, collates, flag in pinning if flag is None),
        pinned_by_parameter=frozenset(
            (slot, collates, flag, _true_default(args, flag)) for slot, collates, flag in pinning if flag is not None and flag in parameters
        ),
        loader_keywords=_loader_keywords(_of(body, ast.Return, ast.Call, ast.Dict), aliases, _loader_classes(args, aliases))
        if args is not None and args.kwarg is not None else None,
        called_parameters=frozenset(_runs_parameter(item) for item in calls) & set(parameters),
        passes_through=_passed_through(returns, parameters, body.get(ast.Name, ())),
        fitted_parameters=frozenset(_fitted_names(calls)) & set(parameters),
        builds_trainer=any(name.split(".")[0] in LIGHTNING_PACKAGES and name.rsplit(".", 1)[-1] == "Trainer" for name in qualified if name),
        iterated_globals=frozenset(name for names in free.values() for name in names),
        moved_globals=frozenset(name for loop, names in free.items() if _moves_items(loop) for name in names),
        reads_back_device_value=returns_read_back and any(_called_attribute(item) in DEVICE_WORK for item in calls),
        returns_read_back=returns_read_back,
        returns_host_factory=_host_factory_returned(returns, assigns, aliases),
        places_on_device=any((_called_attribute(item) in ("cuda", "to") and _to_device(item)) or _created_on_device(item) for item in calls),
        loops_over_epochs=any(
            mentions_epoch(name for part in (item.target, item.iter) for name in _identifiers(part))
            for item in loops
        ),
        loops=bool(loops) or ast.While in body,
        yielded_parameters=frozenset(_yielded_parameters(loops, parameters)) if ast.Yield in body else frozenset(),
    )


# Torch factories whose result a `device=` would place (not `tensor` or `as_tensor`, which
# copy host values anyway; not the `*_like` ones, which follow their input).
_PLACED_FACTORIES = frozenset("zeros ones empty full arange linspace logspace eye rand randn randint randperm".split())


def _host_factory_returned(returns: List[ast.AST], assigns: List[ast.AST], aliases: Dict[str, str]) -> str:
    """`FunctionFacts.returns_host_factory` of a function with these `return` statements and
    assignments: the factory's name, or ""."""
    bound: Dict[str, List[ast.AST]] = {}
    for assign in assigns:
        for target in assign.targets:  # type: ignore[attr-defined]
            for item in _ast_walk(target):
                if isinstance(item, ast.Name):
                    bound.setdefault(item.id, []).append(assign.value if isinstance(target, ast.Name) else target)  # type: ignore[attr-defined]
    made = set()
    for item in returns:
        value = item.value  # type: ignore[attr-defined]
        values = bound.get(value.id, [None]) if isinstance(value, ast.Name) else [value]
        for made_by in values:
            qualified = _ast_qualified(made_by.func, aliases) if isinstance(made_by, ast.Call) else None
            name = qualified[len("torch."):] if qualified and qualified.startswith("torch.") else ""
            if name not in _PLACED_FACTORIES or any(keyword.arg in ("device", "out") or keyword.arg is None for keyword in made_by.keywords):  # type: ignore[union-attr]
                return ""
            made.add(name)
    return made.pop() if len(made) == 1 else ""


def _yielded_parameters(loops: List[ast.AST], parameters: Tuple[str, ...]) -> Set[str]:
    """The parameters among `parameters` that one of `loops` iterates (`for batch in
    iter(loader):`) while its body yields an item it binds (`yield batch`)."""
    found: Set[str] = set()
    for loop in loops:
        assert isinstance(loop, (ast.For, ast.AsyncFor))
        items = {item.id for item in _ast_walk(loop.target) if isinstance(item, ast.Name)}
        if any(isinstance(item, ast.Yield) and isinstance(item.value, ast.Name) and item.value.id in items for statement in loop.body for item in _ast_walk(statement)):
            found.update(item.id for item in _ast_walk(loop.iter) if isinstance(item, ast.Name) and item.id in parameters)
    return found


def _builds_instance(decorators: Sequence[ast.AST], parameters: Tuple[str, ...], body: List[ast.AST]) -> bool:
    """`FunctionFacts.builds_instance` of a function with these decorators, parameters and body nodes."""
    if not parameters or not any(_ast_dotted(d) == "classmethod" for d in decorators):
        return False
    returned = [item.value for item in body if isinstance(item, ast.Return) and item.value is not None]
    return bool(returned) and all(
        isinstance(value, ast.Call) and (_ast_dotted(value.func) or "").split(".")[0] == parameters[0] for value in returned
    )


# (module, name) of the torch factories that make a dataset's data up (random or constant
# tensors), as synthetic and demo datasets do; `torch.tensor`/`from_numpy` convert loaded data.
TORCH_FACTORIES = frozenset(
    ("torch", name) for name in "rand randn randint randperm zeros ones empty full arange linspace".split()
)
# Calls that read a tensor back to the host, and calls that place work on the device (a move
# to CUDA, a collective: NCCL runs on CUDA tensors).
READ_BACKS = frozenset({"item", "tolist", "cpu"})
# The methods `torch.nn.Module` itself defines: housekeeping, not a computation of the module.
MODULE_METHODS = frozenset(
    "add_module apply bfloat16 buffers children compile cpu cuda double eval extra_repr float get_buffer "
    "get_extra_state get_parameter get_submodule half ipu load_state_dict modules mtia named_buffers "
    "named_children named_modules named_parameters parameters register_backward_hook register_buffer "
    "register_forward_hook register_forward_pre_hook register_full_backward_hook "
    "register_full_backward_pre_hook register_load_state_dict_post_hook register_load_state_dict_pre_hook "
    "register_module register_parameter register_state_dict_post_hook register_state_dict_pre_hook "
    "requires_grad_ set_extra_state set_submodule share_memory state_dict to to_empty train type "
    "xpu zero_grad".split()
)


def _runs_parameter(call: ast.Call) -> str:
    """The name a call runs: `model(x)`, or a method of it that is the module's own computation
    (`model.predict(users, items)`, `model.generate(ids)`), not `nn.Module`'s housekeeping
    (`model.eval()`, `model.parameters()`); "" for anything else."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.attr not in MODULE_METHODS and not func.attr.startswith("_"):
        return func.value.id
    return ""
DEVICE_WORK = frozenset({"cuda", "all_reduce", "all_gather", "reduce", "broadcast"})


def _iterated_names(body: List[ast.AST]) -> Set[str]:
    """Names in the iterables of the `for` loops among `body` (`loader` in `enumerate(tqdm(loader))`)."""
    return {item.id for loop in body if isinstance(loop, (ast.For, ast.AsyncFor)) for item in _ast_walk(loop.iter) if isinstance(item, ast.Name)}


# The slot of a value a function returns whole (not in a tuple).
WHOLE_RETURN = -1


def _pinned_loader(value: Optional[ast.AST], aliases: Dict[str, str]) -> Optional[bool]:
    """For `DataLoader(..., pin_memory=True)`: whether it collates by default (no `collate_fn`,
    no `**` arguments, no more than the six positional ones before `collate_fn`); None for
    anything else."""
    found = _loader_pinning(value, aliases)
    return found[0] if found is not None and found[1] is None else None


def _loader_pinning(value: Optional[ast.AST], aliases: Dict[str, str]) -> Optional[Tuple[bool, Optional[str]]]:
    """For a `DataLoader(...)` that pins memory, `pin_memory=True` or `pin_memory=<name>`:
    whether it collates by default (see `_pinned_loader`), and the name (None for `True`)."""
    if not (isinstance(value, ast.Call) and _ast_qualified(value.func, aliases) in DATALOADERS):
        return None
    keywords = {keyword.arg: keyword.value for keyword in value.keywords}
    pinned = keywords.get("pin_memory")
    collates = None not in keywords and "collate_fn" not in keywords and len(value.args) <= 6
    if isinstance(pinned, ast.Constant) and pinned.value is True:
        return collates, None
    return (collates, pinned.id) if isinstance(pinned, ast.Name) else None


def _true_default(args: Optional[ast.arguments], name: str) -> bool:
    """Whether the parameter `name` defaults to `True`."""
    if args is None:
        return False
    positional = [*args.posonlyargs, *args.args]
    pairs = [*zip(positional[len(positional) - len(args.defaults):], args.defaults), *zip(args.kwonlyargs, args.kw_defaults)]
    return any(arg.arg == name and isinstance(default, ast.Constant) and default.value is True for arg, default in pairs)


def _loader_classes(args: ast.arguments, aliases: Dict[str, str]) -> FrozenSet[str]:
    """The parameters whose default is torch's DataLoader (`klass=DataLoader`): the class a
    loader factory builds unless told otherwise."""
    positional = [*args.posonlyargs, *args.args]
    pairs = [*zip(positional[len(positional) - len(args.defaults):], args.defaults), *zip(args.kwonlyargs, args.kw_defaults)]
    return frozenset(arg.arg for arg, default in pairs if default is not None and _ast_qualified(default, aliases) in DATALOADERS)


def _loader_keywords(body: List[ast.AST], aliases: Dict[str, str], classes: FrozenSet[str] = frozenset()) -> Optional[FrozenSet[str]]:
    """`FunctionFacts.loader_keywords` of a function that takes `**kwargs` and whose body's
    nodes are `body`: it returns a DataLoader built with them, by torch's class or by one of
    its parameters `classes` whose default is that class (`return klass(dataset, **kwargs)`)."""
    returned = [item.value for item in body if isinstance(item, ast.Return)]
    loaders = [value for value in returned if isinstance(value, ast.Call) and any(keyword.arg is None for keyword in value.keywords)
               and (_ast_qualified(value.func, aliases) in DATALOADERS or (isinstance(value.func, ast.Name) and value.func.id in classes))]
    if not loaders:
        return None
    keywords = {keyword.arg for loader in loaders for keyword in loader.keywords if keyword.arg}
    keywords |= {keyword.arg for item in body if isinstance(item, ast.Call) and _ast_dotted(item.func) == "dict"
                 for keyword in item.keywords if keyword.arg}
    keywords |= {key.value for item in body if isinstance(item, ast.Dict) for key in item.keys
                 if isinstance(key, ast.Constant) and isinstance(key.value, str)}
    return frozenset(keywords)


def _pinned_returns(body: List[ast.AST], aliases: Dict[str, str]) -> FrozenSet[Tuple[int, bool, Optional[str]]]:
    """Where a function whose body's nodes are `body` returns a DataLoader that pins memory
    (see `_loader_pinning`): (where, collates by default, the name `pin_memory=` is given or
    None for `True`); `FunctionFacts.pinned_returns` and `pinned_by_parameter` are read from it."""
    returns = [item.value for item in body if isinstance(item, ast.Return) and item.value is not None]
    if not returns:
        return frozenset()
    named = {target.id: found for item in body if isinstance(item, ast.Assign) and len(item.targets) == 1
             for target in item.targets if isinstance(target, ast.Name)
             for found in [_loader_pinning(item.value, aliases)] if found is not None}

    def pinned(value: ast.AST) -> Optional[Tuple[bool, Optional[str]]]:
        return named.get(value.id) if isinstance(value, ast.Name) else _loader_pinning(value, aliases)

    found: Set[Tuple[int, bool, Optional[str]]] = set()
    for value in returns:
        elements = list(enumerate(value.elts)) if isinstance(value, ast.Tuple) else [(WHOLE_RETURN, value)]
        found |= {(slot, *pinning) for slot, element in elements for pinning in [pinned(element)] if pinning is not None}
    return frozenset(found)


def _passes(body: List[ast.AST], holders: Dict[str, Set[str]], repeated: FrozenSet[int] = frozenset()) -> Tuple[Set[str], Set[str]]:
    """Of the parameters that the (dotted) names `holders` may hold (a parameter itself, the
    `self.loader` attribute `__init__` stores it in, a local name bound to that attribute),
    those a `for` loop among `body` iterates
    inside another loop (or among the nodes `repeated`, run again and again by their
    caller), and those whose items such a loop moves to a device: `.cuda()` or `.to(...)`
    (not to a dtype or the CPU) on the loop's target or a name assigned from it."""
    nested = {id(inner) for loop in body if isinstance(loop, (ast.For, ast.AsyncFor, ast.While))
              for statement in loop.body for inner in _ast_walk(statement)} | repeated
    reiterated, moved = set(), set()
    for loop in body:
        if not isinstance(loop, (ast.For, ast.AsyncFor)):
            continue
        held = {parameter for item in _ast_walk(loop.iter) for parameter in holders.get(_ast_dotted(item) or "", ())}
        if not held:
            continue
        if id(loop) in nested:
            reiterated |= held
        if _moves_items(loop):
            moved |= held
    return reiterated, moved


def _passed_through(returns: List[ast.AST], parameters: Tuple[str, ...], names: Iterable[ast.AST]) -> str:
    """The parameter every `return` among `returns` gives back unchanged (see
    `FunctionFacts.passes_through`), `""` when there is none: some return gives another value,
    or the function binds the name again."""
    given = {getattr(item, "value", None) for item in returns}
    values = {value.id for value in given if isinstance(value, ast.Name)}
    others = [value for value in given if value is not None and not isinstance(value, ast.Name) and not (isinstance(value, ast.Constant) and value.value is None)]
    if others or len(values) != 1 or not values <= set(parameters):
        return ""
    name = next(iter(values))
    rebound = any(isinstance(item, ast.Name) and item.id == name and isinstance(item.ctx, ast.Store) for item in names)
    return "" if rebound else name


def _hand_drawn_passes(
    loops: List[ast.AST], assigns: List[ast.AST], holders: Dict[str, Set[str]]
) -> Tuple[Set[str], Set[str], Set[str]]:
    """Passes drawn by hand over parameters (see `_passes`): `it = iter(loader)`, then `batch =
    next(it)` in a loop (`while True:`, ending at `StopIteration`). The parameters drawn from,
    those whose iterator is made again inside another loop (a pass every epoch), and those
    whose drawn items the drawing loop moves to a device."""
    nested = {id(inner) for loop in loops for statement in getattr(loop, "body", ()) for inner in _ast_walk(statement)}
    iterators: Dict[str, Set[str]] = {}
    again: Set[str] = set()
    for assign in assigns:
        value = getattr(assign, "value", None)
        if isinstance(value, ast.Call) and _ast_dotted(value.func) == "iter" and len(value.args) == 1:
            held = {parameter for item in _ast_walk(value.args[0]) for parameter in holders.get(_ast_dotted(item) or "", ())}
            for target in getattr(assign, "targets", ()):
                if held and isinstance(target, ast.Name):
                    iterators.setdefault(target.id, set()).update(held)
                    again |= {target.id} if id(assign) in nested else set()
    iterated, reiterated, moved = set(), set(), set()
    for loop in loops:
        for statement in getattr(loop, "body", ()):
            for item in _ast_walk(statement):
                if not (isinstance(item, ast.Assign) and isinstance(item.value, ast.Call) and _ast_dotted(item.value.func) == "next"):
                    continue
                source = item.value.args[0] if item.value.args else None
                held = iterators.get(source.id, set()) if isinstance(source, ast.Name) else set()
                if not held:
                    continue
                iterated |= held
                reiterated |= held if source.id in again else set()  # type: ignore[union-attr]
                drawn = {n.id for target in item.targets for n in _ast_walk(target) if isinstance(n, ast.Name)}
                moved |= held if _moves_items(loop, drawn) else set()
    return iterated, reiterated, moved


def _moves_items(loop: ast.AST, drawn: Optional[Set[str]] = None) -> bool:
    """Whether a loop's body moves its target (or the names `drawn` it binds), or a name
    assigned from it, to a device (or an element of it: `[x.to(device) for x in batch]`)."""
    nodes = [item for statement in getattr(loop, "body", ()) for item in _ast_walk(statement)]
    names = set(drawn) if drawn is not None else {item.id for item in _ast_walk(getattr(loop, "target")) if isinstance(item, ast.Name)}
    bindings = [(item.value, item.targets) for item in nodes if isinstance(item, ast.Assign)]
    bindings += [(item.iter, [item.target]) for item in nodes if isinstance(item, ast.comprehension)]
    for _ in range(2):  # `x, y = batch`, then `x = x.float()`
        for source, targets in bindings:
            if any(isinstance(n, ast.Name) and n.id in names for n in _ast_walk(source)):
                names |= {n.id for target in targets for n in _ast_walk(target) if isinstance(n, ast.Name)}
    return any(
        _called_attribute(item) in ("cuda", "to") and isinstance(item, ast.Call) and _to_device(item)
        and any(isinstance(n, ast.Name) and n.id in names for n in _ast_walk(item.func))
        for item in nodes
    )


def _to_device(call: ast.Call) -> bool:
    """`.cuda(...)`, or `.to(...)` with an argument that is not a dtype (`torch.float16`) or `"cpu"`."""
    if isinstance(call.func, ast.Attribute) and call.func.attr == "cuda":
        return True
    target = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "device"), None)
    return target is not None and _names_device(target)


def _names_device(value: ast.expr) -> bool:
    """Whether a value given as a device may name an accelerator: a string other than the CPU
    or `meta`, or a value that is not a torch attribute (`torch.float16` is a dtype)."""
    if isinstance(value, ast.Constant):
        return isinstance(value.value, str) and value.value.split(":")[0] not in ("cpu", "meta")
    return not (isinstance(value, ast.Attribute) and _ast_dotted(value.value) == "torch")


def _created_on_device(call: ast.Call) -> bool:
    """A call that builds a tensor or layer on a device it is given (`torch.zeros(n,
    device=self.device)`, `nn.Linear(a, b, device=device)`): not the CPU or `meta`, and not
    the device another tensor already lives on (`device=x.device` moves nothing new)."""
    device = next((keyword.value for keyword in call.keywords if keyword.arg == "device"), None)
    return device is not None and not (isinstance(device, ast.Attribute) and device.attr == "device") and _names_device(device)


def _inherit_members(node: ast.ClassDef, out: Dict[str, FunctionFacts], classes: Dict[str, ast.ClassDef]) -> None:
    """Add to `out` the summaries of the methods the module-level class `node` inherits from
    classes of its module summarised before it (`FinetuneTrainer.train` of `Trainer.train`),
    nearest base first, under the class's own name."""
    for base in node.bases:
        parent = _ast_dotted(base) or ""
        if parent == node.name or parent not in classes:
            continue
        for key, facts in list(out.items()):
            method = key[len(parent) + 1:]
            if key.startswith(parent + ".") and "." not in method:
                out.setdefault(f"{node.name}.{method}", facts)


def _class_facts(
    node: ast.ClassDef, name: str, aliases: Dict[str, str], members: Iterable[FunctionFacts], known: Dict[str, FunctionFacts],
    classes: Dict[str, ast.ClassDef],
) -> FunctionFacts:
    """A class as a callable: a context manager or decorator class that disables grad
    (subclasses `torch.no_grad`, or its methods refer to it), or a DataLoader (see
    `FunctionFacts.dataloader`; `known` holds the module's classes summarised before it).
    `members` are the summaries of the functions and classes defined in it (and the methods
    it inherits), so only the rest of the class is walked; `classes` are the module's classes
    by name (its bases)."""
    definitions = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    rest = [item for part in (*node.decorator_list, *node.bases, *node.keywords) for item in _ast_walk(part)]
    rest += [item for statement in node.body for item in _walk_outside(statement, definitions)]
    wraps = bool(_qualified_names(rest, aliases) & GRAD_OFF) or any(member.wraps_grad_off for member in members)
    kept = _keeps_signature(node)
    loader_bases = [
        known.get(_ast_dotted(base) or "") for base in node.bases
        if _ast_qualified(base, aliases) in DATALOADERS or getattr(known.get(_ast_dotted(base) or ""), "dataloader", False)
    ]
    dataloader = kept is not None and bool(loader_bases)
    collates_itself = dataloader and (bool(kept) or any(getattr(base, "collates_itself", False) for base in loader_bases))
    called = {_ast_qualified(item.func, aliases) or _ast_dotted(item.func) or "" for item in _class_nodes(node) if isinstance(item, ast.Call)}
    made_up = any(name.rpartition(".")[::2] in TORCH_FACTORIES for name in called) and not any(reads_storage(name) for name in called)
    lightning = any(
        FRAMEWORK_BASES.get((_ast_dotted(base) or "").rpartition(".")[2]) == LIGHTNING or getattr(known.get(_ast_dotted(base) or ""), "lightning", False)
        for base in node.bases
    )
    step = _methods(node, classes).get("training_step") if name in classes else None
    idle = idle_training_step(step) if step is not None else any(getattr(known.get(_ast_dotted(base) or ""), "idle_training_step", False) for base in node.bases)
    facts = FunctionFacts(
        name, node.lineno, wraps_grad_off=wraps, dataloader=dataloader, collates_itself=collates_itself, makes_data_up=made_up, lightning=lightning, klass=True,
        idle_training_step=lightning and idle, keyword_limits=_keyword_limits(node, known),
        wrapped_layer=wrapped_layer(node, aliases), places_on_device=any(member.places_on_device for member in members),
    )
    init, stored = _constructor(node, classes) if name in classes else (None, {})
    if init is None or not stored:
        return facts
    methods = _methods(node, classes)
    own = {facts.name.rpartition(".")[2]: facts for facts in members if facts.name.count(".") == name.count(".") + 1}
    passes = _attribute_passes(methods, stored, {method: own.get(method) or known.get(f"{name}.{method}") for method in methods})
    return dataclasses.replace(
        facts, parameters=_parameter_names(init)[1:],
        calls_backward=any(member.calls_backward for member in members), iterated_parameters=passes.iterated,
        reiterated_parameters=passes.reiterated, moved_parameters=passes.moved, entry_methods=passes.entries,
        framework_fed_parameters=_hooked_parameters(node, list(methods.values()), stored),
    )


def idle_training_step(step: ast.AST) -> bool:
    """Whether a `training_step(self, batch, ...)` never reads its batch (no `*args` either)."""
    names = _parameter_names(step)
    if len(names) < 2 or getattr(step, "args").vararg is not None:
        return False
    return not any(isinstance(item, ast.Name) and item.id == names[1] for item in _ast_walk(step))


def _parameter_names(function: ast.AST) -> Tuple[str, ...]:
    args = getattr(function, "args")
    return tuple(a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs))


def _methods(node: ast.ClassDef, classes: Dict[str, ast.ClassDef], seen: Tuple[str, ...] = ()) -> Dict[str, ast.AST]:
    """The methods an instance of the module-level class `node` has, by name: its own, then
    those it inherits from classes of its module (`classes`), nearest base first."""
    found: Dict[str, ast.AST] = {item.name: item for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for parent in _module_bases(node, classes, seen):
        for method, item in _methods(parent, classes, (*seen, node.name)).items():
            found.setdefault(method, item)
    return found


def _module_bases(node: ast.ClassDef, classes: Dict[str, ast.ClassDef], seen: Tuple[str, ...]) -> List[ast.ClassDef]:
    """The bases of `node` that are classes of its module, not among `seen` (a cycle)."""
    names = [_ast_dotted(base) or "" for base in node.bases]
    return [classes[base] for base in names if base in classes and base != node.name and base not in seen]


def _constructor(node: ast.ClassDef, classes: Dict[str, ast.ClassDef], seen: Tuple[str, ...] = ()) -> Tuple[Optional[ast.AST], Dict[str, str]]:
    """The `__init__` instances of the module-level class `node` are built with (its own, or
    the one it inherits from a class of its module) and what it stores on `self` (see
    `_stored_parameters`), also through the `__init__` of such a base it calls
    (`super().__init__(model, train_loader)`, `Trainer.__init__(self, model, train_loader)`)."""
    bases = _module_bases(node, classes, seen)
    init = next((item for item in node.body if isinstance(item, ast.FunctionDef) and item.name == "__init__"), None)
    if init is None:
        return _constructor(bases[0], classes, (*seen, node.name)) if bases else (None, {})
    stored = _stored_parameters(init)
    parameters = set(_parameter_names(init))
    for call in (item for item in _ast_walk(init) if isinstance(item, ast.Call)):
        base, args = _base_init_call(call, bases)
        inherited, kept = _constructor(base, classes, (*seen, node.name)) if base is not None else (None, {})
        if inherited is None:
            continue
        given = _arguments_by_parameter(_parameter_names(inherited)[1:], args, call.keywords)
        for attribute, held in kept.items():
            parameter, bracket, element = held.partition("[")
            value = given.get(parameter)
            if isinstance(value, ast.Name) and value.id in parameters:
                stored.setdefault(attribute, value.id + bracket + element)
    return init, stored


def _base_init_call(call: ast.Call, bases: List[ast.ClassDef]) -> Tuple[Optional[ast.ClassDef], List[ast.AST]]:
    """For `super().__init__(...)` (the first base) or `Base.__init__(self, ...)`: the base
    and the arguments after `self`."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "__init__" and bases):
        return None, []
    if isinstance(func.value, ast.Call) and _ast_dotted(func.value.func) == "super":
        return bases[0], list(call.args)
    named = _ast_dotted(func.value)
    return next(((base, list(call.args[1:])) for base in bases if base.name == named), (None, []))


def _arguments_by_parameter(parameters: Sequence[str], args: List[ast.AST], keywords: List[ast.keyword]) -> Dict[str, ast.AST]:
    """The argument a call gives each of `parameters` (positional ones up to the first `*`)."""
    given: Dict[str, ast.AST] = {}
    for parameter, arg in zip(parameters, args):
        if isinstance(arg, ast.Starred):
            break
        given[parameter] = arg
    given.update((keyword.arg, keyword.value) for keyword in keywords if keyword.arg is not None)
    return given


def _class_nodes(node: ast.ClassDef) -> Iterator[ast.AST]:
    """The nodes of the class's body (as `_ast_walk` of each statement gives them, in another
    order): a method's body is read from its statements' walks, which its summary read."""
    for statement in node.body:
        if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield from _statement_walk(statement)
            continue
        yield statement
        for part in (statement.args, *statement.decorator_list, statement.returns, *getattr(statement, "type_params", ())):
            if part is not None:
                yield from _ast_walk(part)
        for inner in statement.body:
            yield from _statement_walk(inner)


def _hooked_parameters(node: ast.ClassDef, methods: List[ast.AST], stored: Dict[str, str]) -> FrozenSet[str]:
    """`FunctionFacts.framework_fed_parameters` of the class `node` (a direct subclass of a
    Lightning class), whose `__init__` stores the parameters `stored`."""
    if not any(FRAMEWORK_BASES.get((_ast_dotted(base) or "").rpartition(".")[2]) == LIGHTNING for base in node.bases):
        return frozenset()
    hooks = [method for method in methods if getattr(method, "name", "") in TRAINING_LOADER_HOOKS]
    returned = {_ast_dotted(item.value) for hook in hooks for item in _ast_walk(hook) if isinstance(item, ast.Return) and item.value is not None}
    return frozenset(parameter for attribute, parameter in stored.items() if attribute in returned)


@dataclass(frozen=True)
class _AttributePasses:
    """What a class's methods do with the constructor parameters it stores (`_attribute_passes`)."""

    iterated: FrozenSet[str]
    reiterated: FrozenSet[str]
    moved: FrozenSet[str]
    entries: FrozenSet[Tuple[str, str]]


def _attribute_passes(
    methods: Dict[str, ast.AST], stored: Dict[str, str], summaries: Dict[str, Optional[FunctionFacts]]
) -> _AttributePasses:
    """Of the parameters stored on `self` (`stored`: attribute -> parameter), those a `for`
    loop of the class's `methods` iterates, through the attribute or a name its method binds
    to it (`data_loader = self.val_loader` on one branch of an `if`, `self.train_loader` on
    the other), or that a method hands to a parameter another method loops over (`summaries`:
    the methods' own summaries); those it iterates again and again, those whose items it
    moves (`_passes`), and which methods' calls loop over each (`entry_methods`)."""
    body = [item for method in methods.values() for statement in getattr(method, "body", ()) for item in _statement_walk(statement)]
    repeated = _run_in_loops(list(methods.values()), body)
    reiterated: Set[str] = set()
    moved: Set[str] = set()
    looped: Dict[str, Set[str]] = {}
    callees: Dict[str, Set[str]] = {}
    for name, method in methods.items():
        nodes = [item for statement in getattr(method, "body", ()) for item in _statement_walk(statement)]
        holders = _local_holders(nodes, {attribute: {parameter} for attribute, parameter in stored.items()})
        looped[name] = {parameter for loop in nodes if isinstance(loop, (ast.For, ast.AsyncFor))
                        for item in _ast_walk(loop.iter) for parameter in holders.get(_ast_dotted(item) or "", ())}
        callees[name] = set()
        for call in nodes:
            called = (_ast_dotted(call.func) or "").partition("self.")[2] if isinstance(call, ast.Call) else ""
            summary = summaries.get(called)
            if summary is None:
                continue
            callees[name].add(called)
            given = _arguments_by_parameter(summary.parameters[1:], call.args, call.keywords)  # after `self`
            for parameter, value in given.items():
                held = holders.get(_ast_dotted(value) or "", set())
                looped[name] |= held if parameter in summary.iterated_parameters else set()
                moved |= held if parameter in summary.moved_parameters else set()
        again, items = _passes(nodes, holders, repeated)
        reiterated |= again
        moved |= items
    reached = {name: set(parameters) for name, parameters in looped.items()}
    for _ in range(3):  # methods calling methods that loop: `fit` -> `train_epoch` -> `run`
        for name, called in callees.items():
            for callee in called:
                reached[name] |= reached.get(callee, set())
    return _AttributePasses(
        frozenset(parameter for parameters in looped.values() for parameter in parameters), frozenset(reiterated),
        frozenset(moved), frozenset((parameter, name) for name, parameters in reached.items() for parameter in parameters),
    )


def _local_holders(nodes: List[ast.AST], holders: Dict[str, Set[str]]) -> Dict[str, Set[str]]:
    """`holders` (a dotted name -> the parameters it may hold), with the local names that
    `nodes` (one function's, in source order) bind to one of them, to a choice between them
    (`loader = self.train_loader if train else self.val_loader`) or to a call that takes one
    of them among its positional arguments and so wraps its iteration (`pbar =
    tqdm(loader)`, `logprog = LogProgress(logger, loader)`; not `len(loader)`, a number), and
    the names a `with` statement binds to such a value (`with tqdm(loader) as pbar:`)."""
    found = {name: set(parameters) for name, parameters in holders.items()}
    for item in nodes:
        if isinstance(item, ast.Assign) and len(item.targets) == 1 and isinstance(item.targets[0], ast.Name):
            target, value = item.targets[0].id, item.value
        elif isinstance(item, ast.withitem) and isinstance(item.optional_vars, ast.Name):
            target, value = item.optional_vars.id, item.context_expr
        else:
            continue
        held = {parameter for value in _held_values(value) for parameter in found.get(_ast_dotted(value) or "", ())}
        if held:
            found.setdefault(target, set()).update(held)
    return found


def _held_values(value: ast.AST) -> List[ast.AST]:
    """The values an assignment of `value` may hand on whole or wrapped for iteration: both
    choices of a conditional expression, the positional arguments of a call other than
    `len` (wrappers nest: `tqdm(enumerate(loader))`), or the value itself."""
    if isinstance(value, ast.IfExp):
        return [*_held_values(value.body), *_held_values(value.orelse)]
    if isinstance(value, ast.Call) and _ast_dotted(value.func) != "len":
        return [held for arg in value.args if not isinstance(arg, ast.Starred) for held in _held_values(arg)]
    return [value]


def _run_in_loops(methods: List[ast.AST], body: List[ast.AST]) -> FrozenSet[int]:
    """The nodes of the methods that a loop of the class's own methods (`body`) calls on
    `self` (`for epoch in ...: self.train_one_epoch(epoch)`): they run again and again."""
    called = {(_ast_dotted(item.func) or "").partition("self.")[2] for loop in body if isinstance(loop, (ast.For, ast.AsyncFor, ast.While))
              for statement in loop.body for item in _ast_walk(statement) if isinstance(item, ast.Call)}
    return frozenset(id(item) for method in methods if getattr(method, "name", "") in called - {""}
                     for statement in getattr(method, "body", ()) for item in _ast_walk(statement))


def _stored_parameters(init: ast.FunctionDef) -> Dict[str, str]:
    """`self.<attribute>` -> parameter, for the parameters `__init__` stores as they are
    (`self.train_loader = train_loader`, `self.a, self.b = a, b`), or an element of one
    (`self.train_loader = data_loader[0]`: "data_loader[0]", see `_element_name`)."""
    parameters = {a.arg for a in (*init.args.posonlyargs, *init.args.args, *init.args.kwonlyargs)}
    stored: Dict[str, str] = {}
    for item in _ast_walk(init):
        if not isinstance(item, ast.Assign) or len(item.targets) != 1:
            continue
        target, value = item.targets[0], item.value
        pairs = list(zip(target.elts, value.elts)) if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple) else [(target, value)]
        for slot, given in pairs:
            name = _ast_dotted(slot)
            held = _element_name(given)
            if name is not None and name.startswith("self.") and held is not None and held.partition("[")[0] in parameters:
                stored[name] = held
    return stored


def _element_name(value: ast.AST) -> Optional[str]:
    """`name` for a name, `name[0]` for an element of it at a literal index (`data_loader[0]`
    of a `(train_loader, valid_loader)` tuple handed on whole), `name['key']` for one at a
    literal key (`data['tr_loader']` of a dict of loaders, see `element_name`); None otherwise."""
    if isinstance(value, ast.Name):
        return value.id
    index = value.slice if isinstance(value, ast.Subscript) else None
    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) and isinstance(index, ast.Constant) and type(index.value) in (int, str):
        return element_name(value.value.id, index.value)
    return None


def element_name(container: str, index: "int | str") -> str:
    """How the index names the element `index` of the container `container` holds: the
    container's name and the index as Python writes it (`loaders[0]`, `data['tr_loader']`)."""
    return f"{container}[{index!r}]"


def _keeps_signature(node: ast.ClassDef) -> Optional[bool]:
    """Whether the class takes its base's loader options as they are: no `__init__`,
    `__init__(self, *args, **kwargs)` that sets none on `self`, or one that hands them on to the base
    (`_forwards_to_base`). True when it also hands over a `collate_fn` of its own (see
    `FunctionFacts.collates_itself`), False when it does not, None when it does not keep them."""
    init = next((item for item in node.body if isinstance(item, ast.FunctionDef) and item.name == "__init__"), None)
    if init is None:
        return False
    args = init.args
    if len(args.posonlyargs) + len(args.args) == 1 and not args.kwonlyargs and args.vararg is not None and args.kwarg is not None:
        return _collates_after(init, set())
    return _forwards_to_base(init)


def _keyword_limits(node: ast.ClassDef, known: Dict[str, "FunctionFacts"]) -> Optional[FrozenSet[str]]:
    """The names a call of the class may pass by keyword when its `__init__` takes no
    `**kwargs` (see `FunctionFacts.keyword_limits`); a class without an `__init__` of its own
    takes what its nearest project base takes."""
    init = next((item for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == "__init__"), None)
    if init is None:
        for base in node.bases:
            facts = known.get(_ast_dotted(base) or "")
            if facts is not None:
                return facts.keyword_limits
        return None
    if init.args.kwarg is not None:
        return None
    return frozenset(a.arg for a in (*init.args.args[1:], *init.args.kwonlyargs))


# DataLoader's own options: a subclass that fixes one of them, or sets it on `self` after its
# base's `__init__`, changes what the loader does.
LOADER_OPTIONS = frozenset({"num_workers", "pin_memory", "persistent_workers", "prefetch_factor", "batch_size", "pin_memory_device"})
# DataLoader's parameters in their positional order, and the defaults of those the rules read.
LOADER_POSITIONS = (
    "dataset", "batch_size", "shuffle", "sampler", "batch_sampler", "num_workers", "collate_fn", "pin_memory", "drop_last",
    "timeout", "worker_init_fn", "multiprocessing_context", "generator",
)
_READ_DEFAULTS: Dict[str, object] = {
    "batch_size": 1, "num_workers": 0, "pin_memory": False, "persistent_workers": False, "prefetch_factor": None,
    "pin_memory_device": "", "sampler": None, "batch_sampler": None, "collate_fn": None, "worker_init_fn": None,
}
# Arguments a subclass may hand its base itself without changing what the rules read of a
# call of it (a `collate_fn` of its own is recorded: batches may then be its objects).
_FIXED_FREELY = frozenset(LOADER_POSITIONS) - LOADER_OPTIONS - {"sampler", "batch_sampler", "worker_init_fn"}


def _forwards_to_base(init: ast.FunctionDef) -> Optional[bool]:
    """`def __init__(self, dataset, batch_size=1, shuffle=True, **kwargs)` whose one
    `super().__init__(dataset, batch_size, shuffle, collate_fn=collate, **kwargs)` hands each
    parameter on under its own name or at DataLoader's position for it, and its `**kwargs` as
    they are: a call of the class gives the base the options it is given by name (a class that
    orders its parameters otherwise is taken to be called with keywords). A parameter the rules
    read (an option, a sampler, a worker callable) may have DataLoader's default only; the class
    may hand the base arguments of its own (`collate_fn`, `drop_last`) but none of the loader's
    options (`LOADER_OPTIONS`), nor set one on `self`. True when it hands over or sets a
    `collate_fn` of its own, False when not, None when the class does not keep the options.
    Or `def __init__(self, *args, LFR_m=1, **kwargs)` handing `*args, **kwargs` on as they
    are (`_hands_on_all`)."""
    args = init.args
    if args.vararg is not None:
        return _hands_on_all(init)
    own = [*args.posonlyargs, *args.args, *args.kwonlyargs][1:]
    defaults = dict(zip([a.arg for a in (*args.posonlyargs, *args.args)][::-1], args.defaults[::-1]))
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    if args.vararg is not None or any(
        name in _READ_DEFAULTS and not (isinstance(value, ast.Constant) and value.value == _READ_DEFAULTS[name])
        for name, value in defaults.items()
    ):
        return None
    bases = [item for item in _ast_walk(init) if isinstance(item, ast.Call) and _super_init(item.func)]
    if len(bases) != 1:
        return None
    call = bases[0]
    # The dataset may have a name of its own (`def __init__(self, data, **kwargs)` handing
    # `data` first): no rule reads it as an option.
    first = [*args.posonlyargs, *args.args][1:2]
    renamed = {first[0].arg: LOADER_POSITIONS[0]} if first and call.args and _ast_dotted(call.args[0]) == first[0].arg else {}
    handed = [
        LOADER_POSITIONS[index] if index < len(LOADER_POSITIONS) and isinstance(arg, ast.Name) and renamed.get(arg.id, arg.id) == LOADER_POSITIONS[index] else None
        for index, arg in enumerate(call.args)
    ]
    fixed = set()
    for keyword in call.keywords:
        if keyword.arg is None:
            continue
        if isinstance(keyword.value, ast.Name) and keyword.value.id == keyword.arg:
            handed.append(keyword.arg)
        elif keyword.arg in _FIXED_FREELY:
            fixed.add(keyword.arg)
        else:
            return None
    spread = [_ast_dotted(keyword.value) for keyword in call.keywords if keyword.arg is None]
    if None in handed or sorted(handed) != sorted(renamed.get(a.arg, a.arg) for a in own) or spread != ([args.kwarg.arg] if args.kwarg is not None else []):
        return None
    return _collates_after(init, fixed)


def _hands_on_all(init: ast.FunctionDef) -> Optional[bool]:
    """`def __init__(self, *args, LFR_m=1, LFR_n=1, **kwargs)` whose one `super().__init__(*args,
    **kwargs)` hands the base everything it is given but keyword-only parameters of its own,
    none of them a DataLoader parameter: a call of the class gives the base its options as
    they are. As `_forwards_to_base` answers."""
    args = init.args
    own = {a.arg for a in args.kwonlyargs}
    if len(args.posonlyargs) + len(args.args) != 1 or args.kwarg is None or own & (set(LOADER_POSITIONS) | LOADER_OPTIONS):
        return None
    bases = [item for item in _ast_walk(init) if isinstance(item, ast.Call) and _super_init(item.func)]
    if len(bases) != 1:
        return None
    call = bases[0]
    starred = [arg.value for arg in call.args if isinstance(arg, ast.Starred)]
    if len(call.args) != 1 or len(starred) != 1 or _ast_dotted(starred[0]) != args.vararg.arg:
        return None
    spread = [_ast_dotted(keyword.value) for keyword in call.keywords if keyword.arg is None]
    fixed = {keyword.arg for keyword in call.keywords if keyword.arg is not None}
    if spread != [args.kwarg.arg] or not fixed <= _FIXED_FREELY:
        return None
    return _collates_after(init, fixed)


def _collates_after(init: ast.FunctionDef, fixed: Set[str]) -> Optional[bool]:
    """For an `__init__` that hands its base the loader options it is given (with the
    arguments `fixed` of its own): None when it then sets an option on `self`, else whether it
    hands over or sets a `collate_fn` of its own."""
    set_on_self = {
        target.attr for item in _ast_walk(init) if isinstance(item, (ast.Assign, ast.AugAssign, ast.AnnAssign))
        for target in (item.targets if isinstance(item, ast.Assign) else [item.target])
        if isinstance(target, ast.Attribute) and _ast_dotted(target.value) == "self"
    }
    if set_on_self & LOADER_OPTIONS:
        return None
    return "collate_fn" in fixed | set_on_self


def _super_init(func: ast.AST) -> bool:
    """`super().__init__` or `super(Cls, self).__init__`."""
    return (
        isinstance(func, ast.Attribute) and func.attr == "__init__" and isinstance(func.value, ast.Call)
        and isinstance(func.value.func, ast.Name) and func.value.func.id == "super"
    )


_LOOPS_AND_DEFINITIONS = (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _walk_outside(node: ast.AST, skipped: Tuple[type, ...]) -> Iterator[ast.AST]:
    """`ast.walk`, not entering nodes of the `skipped` types (nor yielding them)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, skipped):
            continue
        yield current
        stack.extend(_ast_children(current))


def _called_attribute(node: ast.AST) -> Optional[str]:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr
    return None


def _mutated(body: List[ast.AST]) -> Set[str]:
    """Names whose attributes are assigned, or whose methods are called, in `body`."""
    names: Set[str] = set()
    for item in body:
        targets: List[ast.AST] = []
        if isinstance(item, ast.Assign):
            targets = list(item.targets)
        elif isinstance(item, (ast.AugAssign, ast.AnnAssign)):
            targets = [item.target]
        elif isinstance(item, ast.Call) and isinstance(item.func, ast.Attribute):
            targets = [item.func]
        for target in targets:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                names.add(target.value.id)
    return names


class _CallCollector(ast.NodeVisitor):
    """Call sites by the dotted name written, with the enclosing function and guards."""

    def __init__(self, path: str, text: str, out: Dict[str, List[CallSite]]) -> None:
        self.path = path
        self.lines = _source_lines(text)
        self.out = out
        self.function: List[str] = []
        self.guards: List[str] = []
        self.loops = 0
        self.epoch_loops = 0
        # Loops that name no epoch inside loops over epochs (`CallSite.in_batch_loop`).
        self.batch_loops = 0
        # Loops over a display (`for split in ("head", "tail"):`): a few passes, not batches.
        self.display_loops = 0
        self.handlers = 0
        # The bases of the class whose body is being visited, and of the method's class.
        self.class_bases: Tuple[str, ...] = ()
        self.method_bases: Tuple[str, ...] = ()
        # The assignments and parameters visited, in order.
        self.bindings: List[ast.AST] = []
        # The calls of the loops being visited whose results an environment step takes.
        self.feeding: Set[int] = set()
        # The counters of the `for` loops being visited (`CallSite.counters`).
        self.counters: List[str] = []

    def visit(self, node: ast.AST) -> None:
        """`ast.NodeVisitor.visit`, with the method for each node class looked up once."""
        method = _COLLECTOR_METHODS.get(type(node))
        if method is None:
            method = _COLLECTOR_METHODS[type(node)] = getattr(_CallCollector, "visit_" + type(node).__name__, _CallCollector.generic_visit)
        method(self, node)

    def generic_visit(self, node: ast.AST) -> None:
        for child in _ast_children(node):
            self.visit(child)

    def _binding(self, node: ast.AST) -> None:
        """An assignment or a parameter, which may bind an instance (see `_instances`)."""
        self.bindings.append(node)
        self.generic_visit(node)

    visit_Assign = visit_AnnAssign = visit_arg = _binding

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        saved = self.class_bases
        self.class_bases = tuple((_ast_dotted(base) or "").rpartition(".")[2] for base in node.bases)
        self.generic_visit(node)
        self.class_bases = saved

    def visit_FunctionDef(self, node: ast.AST) -> None:
        saved = (self.guards, self.loops, self.epoch_loops, self.batch_loops, self.display_loops, self.handlers, self.class_bases, self.method_bases)
        self.guards, self.loops, self.epoch_loops, self.batch_loops, self.display_loops, self.handlers = [], 0, 0, 0, 0, 0
        self.method_bases, self.class_bases = self.class_bases, ()
        self.function.append(getattr(node, "name", ""))
        self.generic_visit(node)
        self.function.pop()
        self.guards, self.loops, self.epoch_loops, self.batch_loops, self.display_loops, self.handlers, self.class_bases, self.method_bases = saved

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_If(self, node: ast.If) -> None:
        self.visit(node.test)
        test = self._source(node.test)
        for guard, body in ((test, node.body), (f"not ({test})", node.orelse)):
            self.guards.append(guard)
            for statement in body:
                self.visit(statement)
            self.guards.pop()

    def _source(self, node: ast.expr) -> str:
        """The source text of `node` (as `ast.get_source_segment`, which splits the whole
        module into lines on every call); columns are UTF-8 byte offsets."""
        end_line, end_column = node.end_lineno, node.end_col_offset
        if end_line is None or end_column is None:
            return ast.unparse(node)
        lines = [line.encode("utf-8") for line in self.lines[node.lineno - 1 : end_line]]
        if len(lines) == 1:
            return lines[0][node.col_offset : end_column].decode("utf-8")
        return b"".join([lines[0][node.col_offset :], *lines[1:-1], lines[-1][:end_column]]).decode("utf-8")

    def _loop(self, node: ast.AST) -> None:
        batch = self.epoch_loops > 0
        self.loops += 1
        self.batch_loops += batch
        self.feeding |= _environment_inputs(node)
        self.generic_visit(node)
        self.loops -= 1
        self.batch_loops -= batch

    visit_While = _loop

    def visit_For(self, node: ast.AST) -> None:
        """The iterable and target run once; the body once per iteration, per epoch when
        the loop names one (as `frequency.names_epoch_loop` reads it)."""
        assert isinstance(node, (ast.For, ast.AsyncFor))
        # A loop whose own iteration runs a backward pass is a step loop, whatever it is named
        # (a full-batch `for epoch in range(n):`; `frequency.loop_kind` reads it so too).
        epoch = mentions_epoch(name for part in (node.target, node.iter) for name in _identifiers(part)) and not _steps_itself(node)
        self.visit(node.iter)
        self.visit(node.target)
        self.epoch_loops += epoch
        display = not epoch and isinstance(node.iter, (ast.Tuple, ast.List, ast.Set))
        batch = not epoch and not display and self.epoch_loops > epoch
        self.display_loops += display
        self.batch_loops += batch
        self.loops += 1
        self.feeding |= _environment_inputs(node)
        counter = _loop_counter(node, self.bindings)
        self.counters += [counter] if counter else []
        for statement in node.body:
            self.visit(statement)
        del self.counters[len(self.counters) - bool(counter):]
        self.loops -= 1
        self.epoch_loops -= epoch
        self.display_loops -= display
        self.batch_loops -= batch
        for statement in node.orelse:
            self.visit(statement)

    visit_AsyncFor = visit_For

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        self.handlers += 1
        self.generic_visit(node)
        self.handlers -= 1

    def visit_Call(self, node: ast.Call) -> None:
        parts: List[str] = []
        func: ast.AST = node.func
        while isinstance(func, ast.Attribute):
            parts.append(func.attr)
            func = func.value
        if isinstance(func, ast.Name):
            parts.append(func.id)
            site = CallSite(
                self.path,
                node.lineno,
                ".".join(self.function) or None,
                tuple(self.guards),
                self.loops > 0,
                self.handlers > 0,
                self.epoch_loops > 0,
                self.loops > self.epoch_loops + self.display_loops,
                self.method_bases,
                self.batch_loops > 0,
                id(node) in self.feeding,
                tuple(self.counters),
            )
            self.out.setdefault(".".join(reversed(parts)), []).append(site)
            bound = node.args[0] if ".".join(reversed(parts)) in PARTIALS and node.args else None
            if isinstance(bound, (ast.Name, ast.Attribute)) and _ast_dotted(bound):
                # `step = partial(train_step, gp=gp)`, called as `step(batch)`: a call of `train_step`
                self.out.setdefault(_ast_dotted(bound), []).append(site)  # type: ignore[arg-type]
        self.generic_visit(node)


def _loop_counter(loop: ast.AST, bindings: Sequence[ast.AST]) -> str:
    """The counter a `for` loop binds: `i` of `for i in range(n):` or of `for i, batch in
    enumerate(loader):`, also through names the assignments visited before (`bindings`) bind to
    the iterable or to a wrapper of it (`pbar = enumerate(loader)`, `pbar = tqdm(pbar)`); `""`
    for any other loop."""
    iterated, target = getattr(loop, "iter"), getattr(loop, "target")
    index = len(bindings)
    for _ in range(3):  # `pbar = tqdm(pbar)` after `pbar = enumerate(loader)`
        name = iterated.id if isinstance(iterated, ast.Name) else None
        if name is None and isinstance(iterated, ast.Call) and _ast_dotted(iterated.func) not in ("range", "enumerate") and iterated.args:
            name = iterated.args[0].id if isinstance(iterated.args[0], ast.Name) else None
        if name is None:
            break
        index = next((i for i in range(index - 1, -1, -1) if _assigns(bindings[i], name)), -1)
        if index < 0:
            return ""
        iterated = getattr(bindings[index], "value")
    called = _ast_dotted(iterated.func) if isinstance(iterated, ast.Call) else None
    if called == "range" and isinstance(target, ast.Name):
        return target.id
    if called == "enumerate" and isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name):
        return target.elts[0].id
    return ""


def _assigns(binding: ast.AST, name: str) -> bool:
    """Whether `binding` is a plain assignment `name = ...`."""
    return isinstance(binding, ast.Assign) and any(isinstance(target, ast.Name) and target.id == name for target in binding.targets)


def _steps_itself(node: ast.AST) -> bool:
    """Whether the body of `node` (a loop or a function) calls `.backward()` outside the loops
    and functions nested in it: each iteration, or each call, is a training step."""
    return any(
        _called_attribute(item) == "backward"
        for statement in getattr(node, "body", ())
        for item in _walk_outside(statement, _LOOPS_AND_DEFINITIONS)
    )


def _environment_inputs(loop: ast.AST) -> Set[int]:
    """The ids of the calls in `loop` whose results its Gym environment step takes (see
    `training.environment_steps`): inside the step's arguments (`env.step(agent.act(s))`), or
    assigned to a name among them (`action = agent.act(s)`; `a, logp = policy.act(s)`)."""
    body = [item for statement in getattr(loop, "body", ()) for item in _ast_walk(statement)]
    steps = [
        node.value for node in body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and node.value.args
        and isinstance(node.value.func, ast.Attribute) and node.value.func.attr == "step"
        and isinstance(node.targets[0], ast.Tuple) and len(node.targets[0].elts) >= 3
    ]
    if not steps:
        return set()
    handed = [item for step in steps for arg in (*step.args, *(k.value for k in step.keywords)) for item in _ast_walk(arg)]
    names = {item.id for item in handed if isinstance(item, ast.Name)}
    found = {id(item) for item in handed if isinstance(item, ast.Call)}
    for node in body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            bound = {item.id for target in node.targets for item in _ast_walk(target) if isinstance(item, ast.Name)}
            if bound & names:
                found.add(id(node.value))
    return found


# The method of `_CallCollector` that visits each node class.
_COLLECTOR_METHODS: Dict[type, Callable[[_CallCollector, ast.AST], None]] = {}


def _identifiers(node: ast.AST) -> Iterator[str]:
    """The names and attribute names in an expression, outside keyword arguments and
    f-strings (`tqdm(loader, desc=f"epoch {epoch}")` iterates the loader, not epochs)."""
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, ast.Name):
            yield item.id
        elif isinstance(item, ast.Attribute):
            yield item.attr
        if isinstance(item, ast.Call):
            stack += [item.func, *item.args]
        elif not isinstance(item, ast.JoinedStr):
            stack += _ast_children(item)


def _source_lines(text: str) -> List[str]:
    """The lines of `text` with their ends, split where Python's tokenizer ends a line
    (`\r\n`, `\r`, `\n`; not form feeds and other separators `str.splitlines` knows)."""
    lines, start = [], 0
    for end in re.finditer(r"\r\n|\r|\n", text):
        lines.append(text[start : end.end()])
        start = end.end()
    lines.append(text[start:])
    return lines


def module_facts(path: str) -> ModuleFacts:
    """The function summaries and call sites of the module (or notebook) at `path`."""
    source = read_code(path)
    return _module_facts(source.text, path)


def _own_facts(ctx: "FileFacts") -> ModuleFacts:
    """The checked file's own summaries, from its text (a notebook's code, standard input);
    by its absolute path, as the project's call sites are (`callers_of`), which share them."""
    return _module_facts(ctx.text, os.path.abspath(ctx.path) if os.path.isfile(ctx.path) else ctx.path)


# What each dotted name called in a checked file resolves to, kept while the file is checked.
_RESOLVED: "weakref.WeakKeyDictionary[FileFacts, Dict[str, Optional[FunctionFacts]]]" = weakref.WeakKeyDictionary()


def project_function(ctx: "FileFacts", node: cst.BaseExpression) -> Optional[FunctionFacts]:
    """The summary of the project function (or class) that `node` names in the checked file:
    defined in the file (`helper`) or imported from a project module (`from .utils import
    helper`, `utils.helper`, re-exported by a package's `__init__`). None when unknown."""
    dotted = _dotted_name(node)
    if dotted is None:
        return None
    resolved = _RESOLVED.setdefault(ctx, {})
    if dotted not in resolved:
        resolved[dotted] = _resolve_function(ctx, dotted)
    if resolved[dotted] is None and dotted.startswith("self.") and dotted.count(".") > 1:
        return _own_instance_method(ctx, node, dotted, resolved)
    return resolved[dotted]


def _own_instance_method(ctx: "FileFacts", node: cst.BaseExpression, dotted: str, resolved: Dict[str, Optional[FunctionFacts]]) -> Optional[FunctionFacts]:
    """`self.trainer.train` in a method of a class that binds `self.trainer` to an instance
    of a project class, where another class of the module binds it to another one."""
    function = ctx.frequency.enclosing_function(node)
    owner = ctx.frequency.enclosing_class(function) if function is not None else None
    if owner is None:
        return None
    key = f"{owner.name.value}.{dotted}"
    if key not in resolved:
        resolved[key] = _instance_method(ctx, key, dotted.rpartition(".")[0])
    return resolved[key]


def _resolve_function(ctx: "FileFacts", dotted: str) -> Optional[FunctionFacts]:
    head, _, rest = dotted.partition(".")
    path = os.path.abspath(ctx.path) if os.path.isfile(ctx.path) else ctx.path
    for statement in _imports_binding(ctx.text, head):
        if not _imports_project_module(ctx, path, statement):
            continue  # `import torch`: no name it binds is a project function
        found = _imported_function(path, statement, head, rest, MAX_REEXPORTS)
        if found is not None:
            return found
    if not rest and (f"def {head}" in ctx.text or f"class {head}" in ctx.text):
        return _own_facts(ctx).functions.get(dotted)
    return _instance_method(ctx, dotted)


def _instance_method(ctx: "FileFacts", dotted: str, written: Optional[str] = None) -> Optional[FunctionFacts]:
    """The method `dotted` calls on an instance of a project class (`simclr.train` after
    `simclr = SimCLR(...)`, `self.agent.update` after `self.agent = sac.SAC(...)`; see
    `ModuleFacts.instances`), as called: without its `self` parameter. Only names the file
    binds to a call of a capitalised name are looked up. `written`: the receiver as the file
    writes it, where `dotted` names it through its class (`Runner.self.trainer.train`)."""
    receiver, _, method = dotted.rpartition(".")
    if not receiver or (written or receiver) not in _instance_names(ctx):
        return None
    klass = _own_facts(ctx).instances.get(receiver)
    if klass and not klass.rsplit(".", 1)[-1][:1].isupper():  # `Dataset.from_dataset(...)`
        # on a class, not on an instance the file binds (a method of that would be looked up here again)
        constructor = _resolve_function(ctx, klass) if klass.rpartition(".")[0] not in _instance_names(ctx) else None
        klass = klass.rpartition(".")[0] if constructor is not None and constructor.builds_instance else None
    facts = _resolve_function(ctx, f"{klass}.{method}") if klass and klass != receiver else None
    if facts is None or facts.static or not facts.parameters:
        return None
    return dataclasses.replace(facts, parameters=facts.parameters[1:])


# Per checked file: whether each of its import statements names a module of the project.
_PROJECT_IMPORTS: "weakref.WeakKeyDictionary[FileFacts, Dict[ImportFrom, bool]]" = weakref.WeakKeyDictionary()


def _imports_project_module(ctx: "FileFacts", path: str, statement: ImportFrom) -> bool:
    """Whether `statement` of the checked file (at `path`) may import a project module: false
    when the module it names (`torch` of `import torch`) is a file under none of the
    directories it may resolve against, where `_imported_function` finds nothing whatever
    name it is asked for. Kept per checked file, as `_RESOLVED` is: the paths it consults are
    noted while that file is checked. Imports of the package itself (`from . import x`) may, and
    so do those of a directory without `__init__.py` (`from src import train`: a namespace
    package whose names are its modules)."""
    known = _PROJECT_IMPORTS.setdefault(ctx, {})
    found = known.get(statement)
    if found is None:
        parts = [part for part in statement.module.split(".") if part]
        found = known[statement] = not parts or not os.path.isabs(path) or any(
            _module_file(base, parts) is not None or _is_dir(os.path.join(base, *parts))  # a namespace package's submodules
            for base in _import_bases(path, statement, search_roots(path))
        )
    return found


_INSTANCE_BINDING = re.compile(r"(?<![\w.])([A-Za-z_][\w.]*)\s*=\s*[\w.]*\b[A-Z]\w*(?:\.\w+)?\s*\(")
_INSTANCE_NAMES: "weakref.WeakKeyDictionary[FileFacts, FrozenSet[str]]" = weakref.WeakKeyDictionary()


def _instance_names(ctx: "FileFacts") -> FrozenSet[str]:
    """The (dotted) names the file's text assigns a call of a capitalised name to (`simclr =
    SimCLR(...)`, `self.agent = sac.SAC(...)`), read once per file."""
    names = _INSTANCE_NAMES.get(ctx)
    if names is None:
        names = _INSTANCE_NAMES[ctx] = frozenset(match.group(1) for match in _INSTANCE_BINDING.finditer(ctx.text))
    return names


@lru_cache(maxsize=16384)
def _imports_binding(text: str, head: str) -> Tuple[ImportFrom, ...]:
    """The import statements of `text` that may bind the name `head` (by name, or `*`), in
    order: the only ones `_imported_function` looks further into."""
    return tuple(
        statement for statement in module_imports(text)
        if (statement.local == head and not statement.names) or any(local in (head, STAR) for _, local in statement.names)
    )


def _imported_function(path: str, statement: ImportFrom, head: str, rest: str, depth: int) -> Optional[FunctionFacts]:
    """The function `head.rest` if `statement` (in the file at `path`) binds `head`."""
    parts = [part for part in statement.module.split(".") if part]
    star = False
    if statement.local == head and not statement.names:
        target, attribute = parts, rest.split(".") if rest else []
    else:
        name = next((name for name, local in statement.names if local in (head, STAR)), None)
        if name is None:
            return None
        star = name == STAR
        name = head if star else name  # `from utils import *` binds every public name
        target, attribute = parts, [name, *(rest.split(".") if rest else [])]
    if not os.path.isabs(path):
        return None
    for base in _import_bases(path, statement, search_roots(path)):
        if star and not _defines(base, target, head):
            continue  # cheap first: only a module that defines the name is summarised
        found = _function_in(base, target, attribute, depth)
        if found is not None:
            return found
    return None


def _defines(base: str, module: List[str], name: str) -> bool:
    """Whether the module file `module` under `base` defines `name` at its top level (a
    `def` or `class` at the start of a line, read as text), or imports it by name (a
    package's `__init__` re-exporting it: `from .utils.train import Trainer`)."""
    files = _module_files(base, module, [])
    if not files:
        return False
    text = read_module(files[-1]).text
    return _defines_at_top(text, name) or any(local == name for statement in _imports_binding(text, name) for _, local in statement.names)


def _defines_at_top(text: str, name: str) -> bool:
    """Whether the module `text` has a `def` or `class` of `name` at the start of a line."""
    return re.search(rf"^(?:async[ \t]+)?(?:def|class)[ \t]+{re.escape(name)}\b", text, re.MULTILINE) is not None


def _function_in(base: str, module: List[str], attribute: List[str], depth: int) -> Optional[FunctionFacts]:
    """Find `attribute` (a function, `Class.method`, or `submodule.function`) in `module`."""
    if not attribute:
        return None
    if not module:  # `from . import x`: a submodule, or a name of the package itself
        found = _function_in(base, attribute[:1], attribute[1:], depth) if len(attribute) > 1 else None
        init = os.path.join(base, "__init__.py")
        return found if found is not None or not _is_file(init) else _lookup(init, attribute, depth)
    file = _module_file(base, module)
    if file is None and len(attribute) > 1 and _is_dir(os.path.join(base, *module)):
        # a namespace package (a directory without `__init__.py`): `from data import dataloader`
        return _function_in(os.path.join(base, *module), attribute[:1], attribute[1:], depth)
    return _lookup(file, attribute, depth) if file is not None else None


def star_imports_torch(path: str, text: str) -> bool:
    """Whether the module at `path` (source `text`) star-imports a project module that imports
    torch (`from utils import *` where utils.py does `import torch`), itself or through a
    star import of its own: torch's names reach the module through it."""
    return any(qualified.split(".")[0] in TORCH_PACKAGES for qualified in star_bindings(path, text).values())


def torch_reexport(path: str, module: str, name: str) -> Optional[str]:
    """What `name`, imported from the project module `module` by the file at `path`, stands
    for when that module binds it by importing it from torch (`from torch.utils.data import
    DataLoader` in `data/dataset.py`, then `from data.dataset import DataLoader`):
    `torch.utils.data.DataLoader`; None for a name the module defines, or a module outside the
    project."""
    parts = [part for part in module.split(".") if part]
    for base in search_roots(path):
        file = _module_file(base, parts)
        if file is None:
            continue
        for statement in _imports_binding(read_module(file).text, name):
            original = next((imported for imported, local in statement.names if local == name), None)
            if original is not None and original != STAR and statement.module.split(".")[0] in TORCH_PACKAGES:
                return f"{statement.module}.{original}"
        return None
    return None


def star_bindings(path: str, text: str) -> Dict[str, str]:
    """The names the module at `path` (source `text`) receives from the imports of the project
    modules it star-imports, with what each stands for: `nn` -> `torch.nn` after `from model
    import *` where model.py does `import torch.nn as nn`. Star imports in those modules are
    followed too; a later star import's names win, as they do when Python runs the imports.
    Private names and the modules' own relative imports are left out."""
    return _star_bindings(os.path.abspath(path), text, MAX_REEXPORTS)


def _star_bindings(path: str, text: str, depth: int) -> Dict[str, str]:
    bound: Dict[str, str] = {}
    for statement in module_imports(text):
        module = [part for part in statement.module.split(".") if part]
        if not module or not any(local == STAR for _, local in statement.names):
            continue
        for base in _import_bases(path, statement, search_roots(path)):
            file = _module_file(base, module)
            if file is None:
                continue
            imported = read_module(file).text
            if depth > 0:
                bound.update(_star_bindings(os.path.abspath(file), imported, depth - 1))
            bound.update(_import_bindings(imported))
            break
    return bound


def _import_bindings(text: str) -> Dict[str, str]:
    """What a module's absolute imports bind, public names only: `nn` -> `torch.nn` for
    `import torch.nn as nn` or `from torch import nn`, `torch` -> `torch` for `import torch.nn`."""
    bound: Dict[str, str] = {}
    for statement in module_imports(text):
        if statement.level:
            continue
        if not statement.names:
            bound[statement.local] = statement.module if statement.local != statement.module.split(".")[0] else statement.local
        for name, local in statement.names:
            if name != STAR:
                bound[local] = f"{statement.module}.{name}"
    return {local: qualified for local, qualified in bound.items() if not local.startswith("_")}


def _module_file(base: str, module: List[str]) -> Optional[str]:
    """The file of `module` under `base` (its `.py` file or its package's `__init__.py`)."""
    files = _module_files(base, module, [])
    stem = os.path.join(base, *module)
    return files[-1] if files and files[-1] in (stem + ".py", os.path.join(stem, "__init__.py")) else None


def _lookup(file: str, attribute: List[str], depth: int) -> Optional[FunctionFacts]:
    facts = module_facts(file)
    qualified = ".".join(attribute)
    if qualified in facts.functions:
        return facts.functions[qualified]
    if os.path.basename(file) == "__init__.py" and len(attribute) > 1:
        found = _function_in(os.path.dirname(file), attribute[:1], attribute[1:], depth)
        if found is not None:
            return found
    if depth <= 0:
        return None
    for statement in _imports_binding(read_module(file).text, attribute[0]):  # a re-export
        found = _imported_function(file, statement, attribute[0], ".".join(attribute[1:]), depth - 1)
        if found is not None:
            return found
    return None


# ---------------------------------------------------------------------------------------------
# Call sites across the project


_PROJECT_FILES: Dict[str, Tuple[str, ...]] = {}
# Per project root: its Jupyter notebooks, which call the project's functions but are no module.
_PROJECT_NOTEBOOKS: Dict[str, Tuple[str, ...]] = {}
# Per project root: the files at its root that declare its dependencies.
_DEPENDENCY_FILES: Dict[str, Tuple[str, ...]] = {}
# Their names: pip requirements, setup scripts, pyproject tables and conda environments.
DEPENDENCY_PATTERNS = (
    "requirements*.txt", "requirements/*.txt", "setup.py", "setup.cfg", "pyproject.toml", "environment*.yml", "environment*.yaml",
)
# Per project root: its configuration files (`configuration_file`).
_CONFIG_FILES: Dict[str, Tuple[str, ...]] = {}
# Per project root: its shell scripts (`launch_script`), which may run its training scripts.
_LAUNCH_SCRIPTS: Dict[str, Tuple[str, ...]] = {}
# Words in a JSON file's name or directory that make it a configuration file (a JSON file of
# another name holds data: annotations, vocabularies, results).
CONFIG_WORDS = ("config", "conf", "cfg", "hparam", "hyper", "param", "setting", "option", "args")
# Per project root: the project modules each module imports directly, and those that import it.
_IMPORT_GRAPHS: Dict[str, Tuple[Dict[str, Tuple[str, ...]], Dict[str, Tuple[str, ...]]]] = {}
# Per project root: the directories that hold each module name (`search_path_directories`).
_MODULE_DIRECTORIES: Dict[str, Tuple[str, Dict[str, List[str]]]] = {}
# Per project root: whether a module imports Lightning (`project_imports_lightning`).
_LIGHTNING_PROJECTS: Dict[str, bool] = {}
# Per project root and word: whether a module's code names it (`project_mentions`).
_PROJECT_WORDS: Dict[Tuple[str, str], bool] = {}


def clear() -> None:
    """Forget per-run state (the listing of each project's modules, their import graph and
    what each path was found to be)."""
    _PROJECT_FILES.clear()
    _PROJECT_NOTEBOOKS.clear()
    _DEPENDENCY_FILES.clear()
    _CONFIG_FILES.clear()
    _LAUNCH_SCRIPTS.clear()
    _IMPORT_GRAPHS.clear()
    _MODULE_DIRECTORIES.clear()
    _LIGHTNING_PROJECTS.clear()
    _PROJECT_WORDS.clear()
    _FOLDED_MODULES.clear()
    forget_paths()


def forget_paths() -> None:
    """Forget what each path was found to be (files created, removed or changed since are
    seen), and the projects' stamps."""
    _PATH_STATES.clear()
    _TREE_STAMPS.clear()


def project_files(root: str) -> Tuple[str, ...]:
    """The `.py` files under a project root, without hidden, environment and build directories;
    listed once per run, together with the project's dependency files (`dependency_files`)."""
    found = _PROJECT_FILES.get(root)
    if found is None:
        files: List[str] = []
        notebooks: List[str] = []
        declared: List[str] = []
        configurations: List[str] = []
        scripts: List[str] = []
        for directory, subdirectories, names in os.walk(root):
            subdirectories[:] = sorted(
                d
                for d in subdirectories
                if not d.startswith(".") and d not in _SKIPPED_DIRECTORIES and not _is_environment(directory, d)
            )
            files.extend(os.path.join(directory, name) for name in sorted(names) if name.endswith(".py"))
            notebooks.extend(os.path.join(directory, name) for name in sorted(names) if name.endswith(".ipynb"))
            declared.extend(os.path.join(directory, name) for name in sorted(names) if declares_dependencies(directory, name))
            configurations.extend(os.path.join(directory, name) for name in sorted(names) if configuration_file(directory, name))
            scripts.extend(os.path.join(directory, name) for name in sorted(names) if launch_script(name))
        found = _PROJECT_FILES[root] = tuple(files)
        _CONFIG_FILES[root] = tuple(configurations)
        _LAUNCH_SCRIPTS[root] = tuple(scripts)
        _PROJECT_NOTEBOOKS[root] = tuple(notebooks)
        _DEPENDENCY_FILES[root] = tuple(declared)
    return found


def project_notebooks(root: str) -> Tuple[str, ...]:
    """The Jupyter notebooks under a project root (listed with `project_files`)."""
    project_files(root)
    return _PROJECT_NOTEBOOKS[root]


def read_code(path: str) -> Source:
    """The Python code of a module or notebook (`read_notebook` for `.ipynb`): what a call
    site's line numbers (`callers_of`) refer to."""
    return read_notebook(path) if path.endswith(".ipynb") else read_module(path)


def read_notebook(path: str) -> Source:
    """The code of a notebook's code cells joined in order, each line of an IPython magic or
    shell escape (`%matplotlib`, `!pip`) left blank, as the project index reads it (lines are
    those of the joined code); noted as a dependency like a module."""
    source = read_module(path)
    return Source(_notebook_code(source.text), source.digest)


@lru_cache(maxsize=256)
def _notebook_code(text: str) -> str:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's stack
        return ""
    cells = data.get("cells") if isinstance(data, dict) else None
    parts = []
    for cell in cells if isinstance(cells, list) else ():
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            source = cell.get("source", "")
            code = "".join(source) if isinstance(source, list) else str(source)
            parts.append("\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in code.splitlines()))
    return "\n".join(parts) + "\n"


def dependency_files(root: str) -> Tuple[str, ...]:
    """The files under a project root that declare dependencies (`DEPENDENCY_PATTERNS`: pip
    requirements, setup scripts, pyproject tables, conda environments), in any of its
    directories (a repository of week-by-week copies keeps one `requirements.txt` in each);
    listed once per run with the modules."""
    project_files(root)
    return _DEPENDENCY_FILES[root]


def config_files(root: str) -> Tuple[str, ...]:
    """The configuration files under a project root (`configuration_file`), listed once per
    run with the modules."""
    project_files(root)
    return _CONFIG_FILES[root]


def launch_scripts(root: str) -> Tuple[str, ...]:
    """The shell scripts under a project root (`launch_script`), listed once per run with the modules."""
    project_files(root)
    return _LAUNCH_SCRIPTS[root]


def launch_script(name: str) -> bool:
    """Whether the file `name` is a shell script, which may run the project's training
    scripts with command-line options (`python train.py --num_workers 2`)."""
    return name.lower().endswith(".sh")


def configuration_file(directory: str, name: str) -> bool:
    """Whether the file `name` in `directory` may configure a run: a YAML file, or a JSON
    file whose name or directory says so (`CONFIG_WORDS`: `config.json`, `configs/base.json`,
    `hparams.json`); not a dependency file (`environment.yml`)."""
    lowered = name.lower()
    if lowered.endswith((".yaml", ".yml")):
        return not declares_dependencies(directory, name)
    return lowered.endswith(".json") and any(word in f"{os.path.basename(directory)}/{lowered}".lower() for word in CONFIG_WORDS)


def declares_dependencies(directory: str, name: str) -> bool:
    """Whether the file `name` in `directory` is a dependency file (`requirements/*.txt` too)."""
    if any(fnmatch.fnmatchcase(name, pattern) for pattern in DEPENDENCY_PATTERNS if "/" not in pattern):
        return True
    return os.path.basename(directory) == "requirements" and name.endswith(".txt")


def _is_environment(directory: str, name: str) -> bool:
    return os.path.isfile(os.path.join(directory, name, "pyvenv.cfg"))


def note_listing(root: str, stamp: str) -> None:
    """Note that an answer depends on every module of the project (`tree_stamp`)."""
    _note(root, stamp)


def tree_stamp(root: str) -> str:
    """A stamp of the project's module listing, its dependency files and its configuration
    files, with each file's (mtime, size); taken once until `forget_paths` (a run, a server
    analysis, a file a fix writes)."""
    found = _TREE_STAMPS.get(root)
    if found is None:
        found = _TREE_STAMPS[root] = _tree_stamp(root)
    return found


def _tree_stamp(root: str) -> str:
    material = []
    for file in (*project_files(root), *project_notebooks(root), *dependency_files(root), *config_files(root), *launch_scripts(root)):
        try:
            status = os.stat(file)
        except OSError:
            continue
        material.append(f"{file}\0{status.st_mtime_ns}\0{status.st_size}")
    # A name that is not valid UTF-8 holds surrogate escapes (`os.fsdecode`); encode it back.
    return TREE + digest("\n".join(material).encode("utf-8", "surrogateescape"))


def hands_result_to_training(site: CallSite, slot: int = -1, repeatedly: bool = False) -> bool:
    """Whether the scope of the call at `site` hands what the call returns (the name its
    assignment binds, or the one at index `slot` of a tuple target: `train_loader, test_loader,
    classes = data_setup.create_dataloaders(...)`) to a project function that trains
    (`engine.train(model, train_loader, ...)`; see `FunctionFacts.trains`). `repeatedly`: that
    function loops over epochs, or the hand-off is in a loop of the scope. A function known to
    pass over the value once only (`train_model(..., test_loader=test_loader)` testing after
    its epochs) is no such hand-off."""
    found = _bound_result(site, slot)
    if found is None:
        return False
    text, statements, bound = found
    looped = {id(item) for node in statements if isinstance(node, (ast.For, ast.While)) for item in ast.walk(node)}
    return any(
        facts.trains and (not repeatedly or facts.loops_over_epochs or id(node) in looped)
        and not any(facts.passes_over_argument_once(node, name) for name in bound)
        for node, facts in _hand_offs(site, text, statements, bound)
    )


def project_imports_lightning(path: str) -> bool:
    """Whether a module of the project of the file at `path` imports Lightning (once per run)."""
    root = project_root(os.path.abspath(path))
    found = _LIGHTNING_PROJECTS.get(root)
    if found is None:
        found = _LIGHTNING_PROJECTS[root] = any(
            item.module.split(".")[0] in LIGHTNING_PACKAGES
            for file in project_files(root) if "lightning" in read_code(file).text for item in module_imports(read_code(file).text)
        )
    _note(root, tree_stamp(root))
    return found


def project_mentions(path: str, word: str) -> bool:
    """Whether the code of a module of the project of the file at `path` names `word`
    (`validation_step`: some module defines the hook Lightning's validation loop runs), once
    per run and word."""
    root = project_root(os.path.abspath(path))
    key = (root, word)
    found = _PROJECT_WORDS.get(key)
    if found is None:
        pattern = re.compile(rf"\b{re.escape(word)}\b")
        found = _PROJECT_WORDS[key] = any(
            word in read_code(file).text and pattern.search(code_text(read_code(file).text)) is not None for file in project_files(root)
        )
    _note(root, tree_stamp(root))
    return found


def hands_result_to_lightning(site: CallSite, slot: int = -1) -> bool:
    """Whether the scope of the call at `site`, in a project that imports Lightning, hands
    what the call returns (see `hands_result_to_training`) to a trainer's `fit` or `validate`
    (`train_loader, val_loader = prepare_dataloader(args)`, then `trainer.fit(model,
    train_loader, val_loader)`, also with a trainer another project function builds: `trainer
    = prepare_trainer(args)`): the trainer iterates it and moves its batches every epoch."""
    text = read_code(site.path).text
    if not any(f".{name}(" in text for name in TRAINER_PASSES) or not project_imports_lightning(site.path):
        return False  # cheap first: most modules hand nothing to a trainer
    found = _bound_result(site, slot)
    if found is None:
        return False
    text, statements, bound = found
    return any(
        isinstance(node, ast.Call) and _called_attribute(node) in TRAINER_PASSES
        and any(isinstance(value, ast.Name) and value.id in bound for value in (*node.args, *(keyword.value for keyword in node.keywords)))
        for statement in statements for node in _ast_walk(statement)
    )


def moves_result_every_epoch(site: CallSite, slot: int = -1, moved: bool = True, handed_only: bool = False) -> bool:
    """Whether the scope of the call at `site` moves the items of what the call returns (see
    `hands_result_to_training`) to a device again and again: in a `for` loop over it that runs
    in another loop (every epoch) or runs a backward pass, or in a project function it hands
    it to that passes over it every epoch (`FunctionFacts.reiterated_parameters`), or from a
    loop of the scope. With `moved` False, whether it passes over it again and again, moving
    its items or not (a loader's workers start at each pass). `handed_only`: through the
    project functions it hands it to only (the scope's own loops are its file's to judge)."""
    found = _bound_result(site, slot)
    if found is None:
        return False
    text, statements, bound = found
    loops = [node for node in statements if isinstance(node, (ast.For, ast.AsyncFor, ast.While))]
    nested = {id(item) for loop in loops for statement in loop.body for item in _ast_walk(statement)}
    for loop in loops if not handed_only else ():
        over = isinstance(loop, (ast.For, ast.AsyncFor)) and any(isinstance(n, ast.Name) and n.id in bound for n in _ast_walk(loop.iter))
        trains = any(_called_attribute(item) == "backward" for statement in loop.body for item in _ast_walk(statement))
        repeated = id(loop) in nested if not moved else id(loop) in nested or trains
        if over and repeated and (not moved or _moves_items(loop)):
            return True
    if any(
        any((id(node) in nested and facts.iterates_argument(node, name)) or facts.reiterates_argument(node, name) for name in bound)
        and (not moved or any(facts.moves_argument_items(node, name) for name in bound))
        for node, facts in _hand_offs(site, text, statements, bound)
    ):
        return True
    return site.caller is None and not handed_only and _global_passes(site, text, statements, nested, bound, moved)


def passes_result_once(site: CallSite, slot: int = -1) -> bool:
    """Whether the scope of the call at `site` uses what the call returns (see
    `hands_result_to_training`) for single passes only: every use of it is outside the
    scope's loops, each loop over it runs no backward pass, each hand-off of it goes to a
    project function known to loop over it once (`test_acc = compute_accuracy(model,
    test_loader)` after training), and there is at least one pass."""
    found = _bound_result(site, slot)
    if found is None:
        return False
    text, statements, bound = found
    names = {name.partition("[")[0] for name in bound}
    loops = [node for node in statements if isinstance(node, (ast.For, ast.AsyncFor, ast.While))]
    nested = {id(item) for loop in loops for statement in loop.body for item in _ast_walk(statement)}
    if any(isinstance(node, ast.Name) and node.id in names and id(node) in nested for node in statements):
        return False
    passes = 0
    for loop in loops:
        if isinstance(loop, (ast.For, ast.AsyncFor)) and any(isinstance(n, ast.Name) and n.id in names for n in _ast_walk(loop.iter)):
            if any(_called_attribute(item) == "backward" for statement in loop.body for item in _ast_walk(statement)):
                return False
            passes += 1
    for node, facts in _hand_offs(site, text, statements, bound):
        if not any(facts.passes_over_argument_once(node, name) for name in bound):
            return False
        passes += 1
    return passes > 0


def _global_passes(site: CallSite, text: str, statements: List[ast.AST], nested: Set[int], bound: Set[str], moved: bool) -> bool:
    """Whether module-level code calls, in a loop, a function of its module that passes over
    the module global bound to the result (`test_loader = get_test_dataloader(...)`, then
    `evaluate(epoch)` every epoch with `for x, y in test_loader:`), moving its items when
    `moved`."""
    calls = [node for node in statements if isinstance(node, ast.Call) and id(node) in nested and isinstance(node.func, ast.Name)]
    functions = _module_facts(text, site.path).functions if calls else {}
    for call in calls:
        facts = functions.get(call.func.id)  # type: ignore[attr-defined]
        if facts is not None and bound & (facts.moved_globals if moved else facts.iterated_globals):
            return True
    return False


def _bound_result(site: CallSite, slot: int) -> Optional[Tuple[str, List[ast.AST], Set[str]]]:
    """The text of the module of `site`, the statements of the calling scope and the names
    its assignment of the call's result binds (at index `slot` of a tuple target, or all)."""
    found = _calling_scope(site)
    if found is None:
        return None
    text, statements = found
    bound = _bound_names(statements, site, slot)
    return (text, statements, bound | _held_in_displays(statements, bound)) if bound else None


def _held_in_displays(statements: List[ast.AST], names: Set[str]) -> Set[str]:
    """The elements (`element_name`) of the dict, tuple and list displays that `statements`
    bind to a name and that hold one of `names`: `data['tr_loader']` for `data =
    {"tr_loader": tr_loader}`, handed on whole to a class that keeps that element."""
    found: Set[str] = set()
    for node in statements:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)):
            continue
        if isinstance(node.value, ast.Dict):
            pairs = [(key.value, value) for key, value in zip(node.value.keys, node.value.values) if isinstance(key, ast.Constant) and isinstance(key.value, str)]
        elif isinstance(node.value, (ast.Tuple, ast.List)):
            pairs = list(enumerate(node.value.elts))
        else:
            continue
        found |= {element_name(node.targets[0].id, key) for key, value in pairs if isinstance(value, ast.Name) and value.id in names}
    return found


def _bound_names(statements: List[ast.AST], site: CallSite, slot: int) -> Set[str]:
    """The names that the assignment of the call at `site`, among `statements`, binds (at
    index `slot` of a tuple target, or all)."""
    return {name for node in statements if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
            and node.value.lineno == site.line for name in _slot_names(node.targets, slot)}


def _calling_scope(site: CallSite) -> Optional[Tuple[str, List[ast.AST]]]:
    """The text of the module of `site` and the nodes of the calling scope, outside the
    functions and classes it defines."""
    source = read_code(site.path)
    try:
        tree = python_tree(source.text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    scope = _caller_scope(tree, site)
    return source.text, [node for child in ast.iter_child_nodes(scope) for node in _walk_outside(child, _DEFINITIONS)]


def _hand_offs(site: CallSite, text: str, statements: List[ast.AST], bound: Set[str]) -> Iterator[Tuple[ast.Call, FunctionFacts]]:
    """The calls among `statements` that pass one of the names `bound` to a project function,
    with its summary."""
    names = {name.partition("[")[0] for name in bound}
    for node in statements:
        if not isinstance(node, ast.Call) or not any(
            isinstance(value, ast.Name) and value.id in names for value in (*node.args, *(k.value for k in node.keywords))
        ):
            continue
        dotted = _ast_dotted(node.func)
        facts = _function_of(site.path, text, dotted) if dotted else None
        if facts is not None:
            yield node, facts


def pinned_argument(path: str, function: str, parameter: str, depth: int = 2) -> Optional[bool]:
    """Whether a call of `function` (defined in the module at `path`) in the project passes its
    `parameter` a DataLoader that pins memory: one the calling scope builds (`loader =
    DataLoader(..., pin_memory=True)`), one a project function returns to it (`train_loader,
    test_loader = data_setup.create_dataloaders(...)`), or, `depth` calls up, the caller's own
    parameter that its callers pass one to (`train()` handing its loader to `train_step()`).
    True when such a loader collates by default, False when it has a `collate_fn`, None when
    no call passes one."""
    found: List[bool] = []
    for site, text, scope, statements, call, parameters in _calls_of(path, function):
        given = _argument_for(call, parameters, parameter)
        pinned = _pinned_name(site, text, scope, statements, given.id, depth) if isinstance(given, ast.Name) else None
        found += [pinned] if pinned is not None else []
    return all(found) if found else None


def arguments_given(path: str, function: str, parameter: str) -> Optional[List[Optional[ast.AST]]]:
    """What every call in the project of `function` (a function or class defined in the module
    at `path`) passes to its `parameter`, None for a call that leaves it to its default; None
    as a whole where the calls are not all known (see `calls_given`)."""
    given = calls_given(path, function)
    return None if given is None else [arguments.get(parameter) for arguments in given]


def calls_given(path: str, function: str, handles: bool = True) -> Optional[List[Dict[str, ast.AST]]]:
    """The arguments of every call in the project of `function` (a function or class defined
    in the module at `path`), each call's by the parameter they fill (keywords the callee
    takes in `**kwargs` under their own name). None when that is not known: a call spreads
    `*args` or `**kwargs`, or (`handles`) a project module uses the name other than by
    calling it (`LightningCLI(Model, DataModule)` builds it from a configuration; a subclass
    may pass other values; `return dataset.get100` is called wherever the handle goes).
    Without `handles`, the calls made by name only."""
    if function not in module_facts(path).functions:
        return None
    root = project_root(os.path.abspath(path))
    stamp = tree_stamp(root)
    note_listing(root, stamp)
    found = _calls_given(os.path.abspath(path), function, handles, stamp)
    return None if found is None else list(found)


@lru_cache(maxsize=1024)
def _calls_given(path: str, function: str, handles: bool, stamp: str) -> Optional[Tuple[Dict[str, ast.AST], ...]]:
    """`calls_given`, once per state of the project tree (`stamp`)."""
    name = function.rsplit(".", 1)[-1]
    for file in project_files(project_root(path)) if handles else ():
        text = read_module(file).text
        if name in text and name in _names_used_other_than_called(text):
            return None
    given: List[Dict[str, ast.AST]] = []
    for site, text, _, _, call, parameters in _calls_of(path, function):
        if any(isinstance(arg, ast.Starred) for arg in call.args) or any(keyword.arg is None for keyword in call.keywords):
            return None
        arguments: Dict[str, ast.AST] = dict(zip(parameters, call.args))
        arguments.update((keyword.arg, keyword.value) for keyword in call.keywords if keyword.arg is not None)
        given.append({parameter: _constant_argument(site.path, text, value) for parameter, value in arguments.items()})
    restored = _restored_with(project_root(path), name) if handles else []
    return None if restored is None else tuple(given + restored)


# Lightning's constructor from a checkpoint, and its own parameters (not the model's).
_RESTORE = "load_from_checkpoint"
_RESTORE_PARAMETERS = frozenset({"checkpoint_path", "map_location", "hparams_file", "strict", "weights_only"})


def _restored_with(root: str, name: str) -> Optional[List[Dict[str, ast.AST]]]:
    """The arguments `Name.load_from_checkpoint(path, **overrides)` calls in the project hand
    the class's `__init__`: the hyperparameters the checkpoint saved, which one of the calls
    of the class gave, with the keywords it overrides; None where a call spreads `**kwargs`."""
    found: List[Dict[str, ast.AST]] = []
    for file in project_files(root):
        text = read_module(file).text
        if _RESTORE not in text or name not in text:
            continue
        try:
            tree = python_tree(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for node in _ast_walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == _RESTORE and (_ast_dotted(node.func.value) or "").rsplit(".", 1)[-1] == name:
                if any(keyword.arg is None for keyword in node.keywords):
                    return None
                found.append({keyword.arg: keyword.value for keyword in node.keywords if keyword.arg not in _RESTORE_PARAMETERS})
    return found


def _constant_argument(path: str, text: str, value: ast.AST) -> ast.AST:
    """`value`, or the constant it reads where that is a setting of the project (see
    `_module_constants`) that the calling module defines or imports by name from a project
    module: `SETTINGS['num workers']` after `from settings import SETTINGS`, with `SETTINGS =
    {'num workers': 0}` in `settings.py`, is `0`."""
    head, key = (value.value, value.slice) if isinstance(value, ast.Subscript) else (value, None)
    if not isinstance(head, ast.Name) or not (key is None or (isinstance(key, ast.Constant) and isinstance(key.value, str))):
        return value
    found = _module_constants(text).get(head.id, _UNKNOWN)
    for statement in _imports_binding(text, head.id) if found is _UNKNOWN and os.path.isabs(path) else ():
        name = next((name for name, local in statement.names if local == head.id), None)
        module = [part for part in statement.module.split(".") if part]
        files = [file for base in _import_bases(path, statement, search_roots(path)) if (file := _module_file(base, module)) is not None]
        if name is not None and files:
            found = _module_constants(read_module(files[0]).text).get(name, _UNKNOWN)
            break
    if key is not None:
        found = found.get(key.value, _UNKNOWN) if isinstance(found, dict) else _UNKNOWN  # type: ignore[union-attr]
    return value if found is _UNKNOWN or isinstance(found, (dict, list, tuple, set)) else ast.copy_location(ast.Constant(found), value)


# No constant known.
_UNKNOWN = object()


@lru_cache(maxsize=256)
def _module_constants(text: str) -> Dict[str, object]:
    """The module's settings: names that one statement at module level binds to a literal
    (`BATCH_SIZE = 64`, `SETTINGS = {'num workers': 0}`) and that no other statement binds,
    declares `global`, or changes through an item or a method (`SETTINGS['x'] = 1`,
    `SETTINGS.update(...)`)."""
    try:
        tree = python_tree(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    literals: Dict[str, object] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            try:
                literals[statement.targets[0].id] = ast.literal_eval(statement.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue
    stores: Dict[str, int] = {}
    for node in _ast_walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            stores[node.id] = stores.get(node.id, 0) + 1
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            stores.update((name, 2) for name in node.names)
        elif isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.value, ast.Name) and (
            not isinstance(node.ctx, ast.Load) or isinstance(node, ast.Attribute)
        ):
            stores[node.value.id] = 2  # `SETTINGS['x'] = 1`, `SETTINGS.update(...)`
    return {name: value for name, value in literals.items() if stores.get(name) == 1}


class _Everything(frozenset):
    """The answer for text that does not parse: every name may be used so."""

    def __contains__(self, item: object) -> bool:
        return True


@lru_cache(maxsize=256)
def _names_used_other_than_called(text: str) -> FrozenSet[str]:
    """The names (and attribute names) the module `text` uses other than as the callee of a
    call: handed on, subclassed, compared; every name for text that does not parse. A class
    named in `super(Class, self)` or tested by `isinstance(x, Class)` is not handed on."""
    try:
        tree = python_tree(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return _Everything()
    nodes = _ast_walk(tree)
    called = {id(node.func) for node in nodes if isinstance(node, ast.Call)}
    called |= {id(item) for node in nodes if isinstance(node, ast.Call) for item in _named_not_handed(node)}
    return frozenset(
        (_ast_dotted(node) or "").rsplit(".", 1)[-1]
        for node in nodes
        if isinstance(node, (ast.Name, ast.Attribute)) and id(node) not in called
    )


def _named_not_handed(call: ast.Call) -> List[ast.AST]:
    """The class arguments of `super(Class, self)` and `isinstance(x, Class)` (also a tuple of
    classes): names a call reads without handing the class on."""
    if isinstance(call.func, ast.Attribute) and call.func.attr == _RESTORE:
        return [call.func.value]  # `Model.load_from_checkpoint(path)`: see `_restored_with`
    callee = call.func.id if isinstance(call.func, ast.Name) else ""
    if callee == "super" and call.args:
        return [call.args[0]]
    if callee in ("isinstance", "issubclass") and len(call.args) == 2:
        second = call.args[1]
        return list(second.elts) if isinstance(second, ast.Tuple) else [second]
    return []


def _calls_of(path: str, function: str) -> Iterator[Tuple[CallSite, str, ast.AST, List[ast.AST], ast.Call, Tuple[str, ...]]]:
    """Each call in the project of `function` defined in the module at `path` (see
    `callers_of`): its site, the calling module's text, the calling scope and its statements,
    the call and the parameters its positional arguments fill (a method's and a class's
    without `self`)."""
    callee = module_facts(path).functions.get(function)
    init = module_facts(path).functions.get(f"{function}.__init__")
    if callee is None:
        return
    if init is not None:
        parameters = init.parameters[1:]
    else:
        parameters = callee.parameters[1:] if "." in function and not callee.static else callee.parameters
    for site in callers_of(path, function):
        source = read_code(site.path)
        try:
            tree = python_tree(source.text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        scope = _caller_scope(tree, site)
        statements = [node for child in ast.iter_child_nodes(scope) for node in _walk_outside(child, _DEFINITIONS)]
        for call in statements:
            if isinstance(call, ast.Call) and call.lineno == site.line and (_ast_dotted(call.func) or "").endswith(function.rsplit(".", 1)[-1]):
                yield site, source.text, scope, statements, call, parameters


_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _caller_scope(tree: ast.Module, site: CallSite) -> ast.AST:
    """The function that makes the call at `site` (the module for a call at module level)."""
    caller = site.caller.rsplit(".", 1)[-1] if site.caller else None
    return next((node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                 and node.name == caller and node.lineno <= site.line <= (node.end_lineno or node.lineno)), tree) if caller else tree


def _argument_for(call: ast.Call, parameters: Tuple[str, ...], parameter: str) -> Optional[ast.AST]:
    """The argument `call` passes to `parameter` (by keyword, or by position before any `*`)."""
    return ast_argument(call, parameter, parameters.index(parameter) if parameter in parameters else -1)


def _pinned_name(site: CallSite, text: str, scope: ast.AST, statements: List[ast.AST], name: str, depth: int) -> Optional[bool]:
    """Whether `name`, in the calling scope of `site`, holds a DataLoader that pins memory (see
    `pinned_argument`)."""
    aliases = _text_aliases(text)
    for node in statements:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call)):
            continue
        target = node.targets[0]
        if isinstance(target, ast.Name) and target.id == name:
            pinned = _pinned_loader(node.value, aliases)
            if pinned is not None:
                return pinned
        slots = [WHOLE_RETURN] if isinstance(target, ast.Name) and target.id == name else [
            index for index, element in enumerate(getattr(target, "elts", [])) if isinstance(element, ast.Name) and element.id == name
        ]
        dotted = _ast_dotted(node.value.func) if slots else None
        facts = _function_of(site.path, text, dotted) if dotted else None
        for slot, default in facts.pinned_returns if facts is not None else ():
            if slot in slots:
                return default
        spread = any(isinstance(arg, ast.Starred) for arg in node.value.args) or any(keyword.arg is None for keyword in node.value.keywords)
        for slot, default, flag, true_default in facts.pinned_by_parameter if facts is not None and not spread else ():
            given = _argument_for(node.value, facts.parameters, flag) if slot in slots else None
            if slot in slots and (_true_value(given, text, statements) if given is not None else true_default):
                return default
    if depth > 0 and isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)) and site.caller:
        if name in {a.arg for a in (*scope.args.posonlyargs, *scope.args.args, *scope.args.kwonlyargs)}:
            return pinned_argument(site.path, site.caller, name, depth - 1)
    return None


def _true_value(value: ast.AST, text: str, statements: List[ast.AST]) -> bool:
    """`True`, a test that holds where CUDA runs (`True if device.type == "cuda" else False`,
    see `_pins`), or a name that the calling scope or the module binds only to `True`
    (`PIN_MEMORY = True` at the top of a training script)."""
    if isinstance(value, ast.Constant):
        return value.value is True
    if not isinstance(value, ast.Name):
        return _pins(value, _text_aliases(text), False) is True
    try:
        module = python_tree(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    bound = [
        node.value for node in [*statements, *module.body]
        if isinstance(node, ast.Assign) and any(isinstance(target, ast.Name) and target.id == value.id for target in node.targets)
    ]
    return bool(bound) and all(isinstance(item, ast.Constant) and item.value is True for item in bound)


def _slot_names(targets: List[ast.expr], slot: int) -> List[str]:
    """The names an assignment binds: all of them, or the one at index `slot` of its tuple
    (`name[slot]` when one name holds the whole tuple, see `_element_name`)."""
    if slot >= 0:
        if len(targets) == 1 and isinstance(targets[0], ast.Name):
            return [element_name(targets[0].id, slot)]  # the tuple bound whole: `dloader = get_loaders(...)`
        elements = targets[0].elts if len(targets) == 1 and isinstance(targets[0], (ast.Tuple, ast.List)) else []
        chosen = elements[slot] if slot < len(elements) else None
        return [chosen.id] if isinstance(chosen, ast.Name) else []
    return [item.id for target in targets for item in ast.walk(target) if isinstance(item, ast.Name)]


def _function_of(path: str, text: str, dotted: str) -> Optional[FunctionFacts]:
    """The summary of the project function `dotted` names in the module at `path`: defined
    there or imported from a project module."""
    head, _, rest = dotted.partition(".")
    for statement in module_imports(text):
        found = _imported_function(os.path.abspath(path), statement, head, rest, MAX_REEXPORTS)
        if found is not None:
            return found
    return module_facts(path).functions.get(dotted) if not rest else None


def caller_trains(site: CallSite) -> bool:
    """Whether the function that makes a call runs a backward pass itself (module level: the
    module runs one or a trainer's `fit`)."""
    if site.caller is None:
        return file_enables(read_code(site.path).text, TRAINING)
    facts = module_facts(site.path).functions.get(qualified_caller(site) or site.caller)
    return facts is not None and facts.calls_backward


def callers_of(path: str, function: str) -> Tuple[CallSite, ...]:
    """Every call in the project of `function` (a name or `Class.method`) defined in the module
    at `path`: calls in the same module by name, and calls in other modules and notebooks through an import
    of it (`from utils import log_metrics`, `import utils; utils.log_metrics(...)`, or of a
    package that re-exports it: `import d2lzh_pytorch as d2l; d2l.train_ch5(...)`), with the
    guards at each call site; and calls through handles (`for met in self.metric_ftns:
    met(output, target)` over a list, tuple or dict of functions, see `_handle_calls`), where
    a `getattr(module, name)` with a name chosen at run time reaches every public function of
    that module (an approximation: the names come from a configuration). The answer depends
    on the whole project, which is noted as a dependency on its listing."""
    path = os.path.abspath(path)
    root = project_root(path)
    _note(root, tree_stamp(root))
    name = function.split(".")[-1]
    klass = function.rpartition(".")[0]
    called = klass.rpartition(".")[2] if name == "__call__" else name  # an instance call names its class where it is built
    mentioned = re.compile(rf"\b{re.escape(called)}\b")  # a call names it as a whole word
    sites: List[CallSite] = []
    for file in (*project_files(root), *project_notebooks(root)):  # a notebook's loops call the modules' helpers too
        source = read_code(file)
        if (called not in source.text or mentioned.search(source.text) is None) and not _gets_module_handles(source.text):
            continue
        facts = _module_facts(source.text, file)
        if name == "__call__" and klass:
            sites.extend(_instance_calls(file, source.text, facts, path, klass))
            continue
        for written, found in facts.handle_calls.items():
            if written.endswith(".*") and "." not in function and not name.startswith("_"):
                written = written[:-1] + name  # any public function of the module
            if written.split(".")[-1] == name and _names_function(file, source.text, written, path, function):
                sites.extend(found)
        for written, found in facts.calls.items():
            if written.split(".")[-1] == name and _names_function(file, source.text, written, path, function):
                sites.extend(found)
            elif written == f"self.{name}" and "." in function:
                sites.extend(site for site in found if _self_call(file, source.text, site, path, function))
            elif written.split(".")[-1] == name and "." in written:
                sites.extend(_method_sites(file, source.text, facts, written, path, function, found))
    return tuple(sites)


def option_default(path: str, dest: str) -> Optional[object]:
    """The default of the command-line option `dest` (`args.num_workers` for
    `parser.add_argument("--num-workers", type=int, default=0)`): the one the module at `path`
    gives it where it defines the option itself (each script of a project parses its own
    command line), or else the one the modules of the project that define it agree on; None
    otherwise (no such option, defaults that differ or are not constants)."""
    path = os.path.abspath(path)
    own = _file_option_defaults(read_module(path).text).get(dest)
    if own is None:
        root = project_root(path)
        stamp = tree_stamp(root)
        note_listing(root, stamp)
        own = _option_defaults(root, stamp).get(dest, frozenset())
    return next(iter(own)) if len(own) == 1 and _UNKNOWN_DEFAULT not in own else None


def launched_values(path: str, dest: str) -> FrozenSet[str]:
    """The values the project's shell scripts pass to the command-line option `dest` when
    they run a Python program (`python train.py --num_workers 2`, `--num-workers=2`, also on
    lines continued with a backslash)."""
    root = project_root(os.path.abspath(path))
    stamp = tree_stamp(root)
    note_listing(root, stamp)
    return _launched_options(root, stamp).get(dest, frozenset())


# A line of a shell script that runs a Python program, and an option it passes a value.
_PYTHON_LAUNCH = re.compile(r"(^|[\s;&|/])(python[\d.]*|torchrun|accelerate|deepspeed)\s")
_LAUNCHED_OPTION = re.compile(r"\s--([A-Za-z][\w-]*)(?:=|\s+)([^\s;&|\\\-][^\s;&|\\]*)")


@lru_cache(maxsize=8)
def _launched_options(root: str, stamp: str) -> Dict[str, FrozenSet[str]]:
    """For each option the project's shell scripts pass a Python program, the values they
    pass; built once per state of the project tree (`stamp`)."""
    found: Dict[str, Set[str]] = {}
    for file in launch_scripts(root):
        for line in read_module(file).text.replace("\\\n", " ").splitlines():
            if _PYTHON_LAUNCH.search(line):
                for option, value in _LAUNCHED_OPTION.findall(line):
                    found.setdefault(option.replace("-", "_"), set()).add(value.strip("'\""))
    return {dest: frozenset(values) for dest, values in found.items()}


def defines_option(path: str, dest: str) -> bool:
    """Whether a module of the project defines the command-line option `dest` with
    `add_argument` (whatever its default)."""
    root = project_root(os.path.abspath(path))
    stamp = tree_stamp(root)
    note_listing(root, stamp)
    return dest in _option_defaults(root, stamp)


# A default that is not a constant (`default=os.cpu_count()`).
_UNKNOWN_DEFAULT = object()


@lru_cache(maxsize=8)
def _option_defaults(root: str, stamp: str) -> Dict[str, FrozenSet[object]]:
    """For each option the project's modules define with `add_argument`, the defaults they
    give it; built once per state of the project tree (`stamp`)."""
    found: Dict[str, Set[object]] = {}
    for file in project_files(root):
        for dest, defaults in _file_option_defaults(read_module(file).text).items():
            found.setdefault(dest, set()).update(defaults)
    return {dest: frozenset(defaults) for dest, defaults in found.items()}


@lru_cache(maxsize=256)
def _file_option_defaults(text: str) -> Dict[str, FrozenSet[object]]:
    """For each option one module's text defines with `add_argument`, the defaults it gives it."""
    if "add_argument" not in text:
        return {}
    try:
        tree = python_tree(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    found: Dict[str, Set[object]] = {}
    for node in _ast_walk(tree):
        dest = _option_dest(node) if isinstance(node, ast.Call) and _called_attribute(node) == "add_argument" else None
        if dest is not None:
            default = next((keyword.value for keyword in node.keywords if keyword.arg == "default"), None)
            found.setdefault(dest, set()).add(default.value if isinstance(default, ast.Constant) else _UNKNOWN_DEFAULT)
    return {dest: frozenset(defaults) for dest, defaults in found.items()}


def _option_dest(call: ast.Call) -> Optional[str]:
    """The attribute an `add_argument` call stores its option in: `dest=`, or the first long
    option name with dashes as underscores."""
    dest = next((keyword.value for keyword in call.keywords if keyword.arg == "dest"), None)
    if isinstance(dest, ast.Constant) and isinstance(dest.value, str):
        return dest.value
    names = [arg.value for arg in call.args if isinstance(arg, ast.Constant) and isinstance(arg.value, str)]
    long = next((name for name in names if name.startswith("--")), None)
    return long.lstrip("-").replace("-", "_") if long else None


def result_sites(path: str, function: str, slot: int = WHOLE_RETURN, depth: int = 3) -> Iterator[Tuple[CallSite, int]]:
    """The calls of `function` (see `callers_of`), each with where the value of interest is in
    its result (`slot`: `WHOLE_RETURN` or a tuple index); and where a calling function returns
    that value unchanged (`data_set, data_loader = data_provider(args, flag)`, then `return
    data_set, data_loader`), the calls of that function in turn, up to `depth` levels: a
    loader builder reached through a wrapper (`train_data, train_loader =
    self._get_data(flag="train")`)."""
    for site in callers_of(path, function):
        yield site, slot
        forwarded = _forwarded(site, slot) if depth > 1 else None
        if forwarded is not None:
            yield from result_sites(site.path, forwarded[0], forwarded[1], depth - 1)


def _forwarded(site: CallSite, slot: int) -> Optional[Tuple[str, int]]:
    """Where the function that makes the call at `site` returns the call's value at `slot`
    unchanged: that function (a module-level function or `Class.method` of a module-level
    class, as `callers_of` names it) and the slot in its own result; None when it does not."""
    found = _calling_scope(site) if site.caller else None
    if found is None:
        return None
    text, statements = found
    names = _bound_names(statements, site, slot)
    klass = _class_at(text, site.line)
    for node in statements:
        if not isinstance(node, ast.Return) or node.value is None:
            continue
        elements = list(enumerate(node.value.elts)) if isinstance(node.value, ast.Tuple) else [(WHOLE_RETURN, node.value)]
        returned = next((index for index, value in elements if isinstance(value, ast.Name) and value.id in names), None)
        if isinstance(node.value, ast.Call) and node.value.lineno == site.line:
            returned = slot  # `return data_provider(args, flag)`
        if returned is not None:
            name = site.caller.rsplit(".", 1)[-1]
            return (f"{klass}.{name}" if klass else name), returned
    return None


def _self_call(file: str, text: str, site: CallSite, path: str, function: str) -> bool:
    """Whether `self.method(...)` at `site` (in the module `file` with source `text`) calls
    `function` (`Class.method` of the module at `path`): made by another method of that class,
    or by a method of a direct base class (`BaseTrainer.train` calling
    `self._train_epoch(epoch)`, which `Trainer(BaseTrainer)` overrides, runs the subclass's
    method on its instances). Bases match by class name."""
    klass = function.rpartition(".")[0]
    own = _module_classes(read_module(path).text).get(klass)
    caller = _class_at(text, site.line)
    if own is None or caller is None:
        return False
    return caller in own[0] if caller != klass else os.path.abspath(file) == path


def _class_at(text: str, line: int) -> Optional[str]:
    """The module-level class of the module `text` whose definition spans `line`."""
    return next((name for name, (_, first, last) in _module_classes(text).items() if first <= line <= last), None)


@lru_cache(maxsize=256)
def _module_classes(text: str) -> Dict[str, Tuple[Tuple[str, ...], int, int]]:
    """For each module-level class of the module `text`: the last names of its direct bases,
    and its first and last lines."""
    try:
        tree = python_tree(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    return {
        node.name: (tuple((_ast_dotted(base) or "").rpartition(".")[2] for base in node.bases), node.lineno, node.end_lineno or node.lineno)
        for node in tree.body
        if isinstance(node, ast.ClassDef)
    }


def _instance_calls(file: str, text: str, facts: ModuleFacts, path: str, klass: str) -> List[CallSite]:
    """The calls in the module `file` of instances of the class `klass` of the module at `path`
    (`augment(x)` after `augment = BatchAugs(params)`), which run its `__call__`."""
    return [
        site
        for written, found in facts.calls.items()
        if written in facts.instances and _names_function(file, text, facts.instances[written], path, klass)
        for site in found
    ]


def _method_sites(
    file: str, text: str, facts: ModuleFacts, written: str, path: str, function: str, found: Tuple[CallSite, ...]
) -> List[CallSite]:
    """The calls `found` of `written` (`receiver.method`) in the module `file` that call the
    method `function` (`Class.method`) of the module at `path`: on an instance of that class
    (`agent.update(...)` after `agent = Agent(...)`), or on an object whose class the module
    does not write but may be one of the project's: what its calling scope assigns the receiver
    is built with project modules only (`self.model = REGISTRY[name](**params)` after `from
    models import REGISTRY`, `loader = config.init_obj("data_loader", module_data)`; see
    `_receiver_modules`), not a library's (`self.scaler = GradScaler()`); where the module does
    not show what builds it (a parameter, `self.model = model`), a method that takes a
    training step itself."""
    receiver, _, method = written.rpartition(".")
    klass, _, _ = function.rpartition(".")
    if not klass or receiver in ("self", "cls"):
        return []  # a method of the caller's own class or its bases (`_self_call`)
    written_class = facts.instances.get(receiver)
    if written_class is not None:
        # The class written, or a subclass of the module that inherits the method (`trainer.valid(epoch)`
        # on a `FinetuneTrainer(Trainer)` runs `Trainer.valid`; see `_inherit_members`).
        owners = {key.rpartition(".")[0] for key, summary in module_facts(path).functions.items() if key.endswith(f".{method}") and summary.name == function}
        return list(found) if any(_names_function(file, text, written_class, path, owner) for owner in owners | {klass}) else []
    owner = module_facts(path).functions.get(klass)
    if owner is not None and owner.lightning:
        return []  # the framework calls a Lightning class's hooks, whatever their names
    if os.path.abspath(file) != path and any(key.rpartition(".")[2] == method for key in facts.functions if "." in key):
        return []  # the caller's module has a method of that name (`Scorer.compute_loss`): its own
    called = module_facts(path).functions.get(function)
    steps = called is not None and (called.steps_itself or called.calls_backward)
    held: Dict[Optional[str], Optional[FrozenSet[str]]] = {}  # by the calling function (an attribute's: by none)
    kept = []
    for site in found:
        scope = site.caller if "." not in receiver else None
        if scope not in held:
            held[scope] = _receiver_modules(os.path.abspath(file), text, receiver, scope)
        modules = held[scope]
        if (path in modules) if modules is not None else steps:
            kept.append(site)
    return kept


def _receiver_modules(file: str, text: str, receiver: str, caller: Optional[str], depth: int = 0) -> Optional[FrozenSet[str]]:
    """The project modules whose classes `receiver` (a name or attribute the module at `file`
    assigns) may hold where the function `caller` reads it, from every value assigned to it
    there (a name by the nearest scope that binds it, an attribute anywhere in the module):
    what a callable or value of a project module builds, or a call handed a project module or
    class (`config.init_obj("data_loader", module_data)`): the modules those come from and the
    project modules they import (a registry or factory of a package, a base class); nothing for
    a library's. An attribute set from a parameter of its class's `__init__` (`self.model =
    model`) holds what every construction of the class in the project hands that parameter
    (`_handed_modules`). None when the module does not show every origin (a parameter, a local
    value, no assignment)."""
    values = _scope_values(text, receiver, caller)
    if not values:
        return None
    found: Set[str] = set()
    choices = [branch for value in values for branch in ((value.body, value.orelse) if isinstance(value, ast.IfExp) else (value,))]
    for value in choices:
        roots = _value_roots(value) if value is not None else []
        modules = [_root_modules(file, text, root) for root in roots]
        if modules and modules[0] is None and isinstance(value, ast.Name) and receiver.startswith("self.") and depth < HANDED_DEPTH:
            parameter = _init_parameter(text, receiver, value.id)
            handed = _handed_modules(file, *parameter, depth + 1) if parameter is not None else None
            modules[0] = sorted(handed) if handed is not None else None
        if not modules or modules[0] is None and not any(modules[1:]):
            return None  # built by something the module does not show, with no project module handed to it
        found.update(module for known in modules if known for module in known)
    return _import_closure(frozenset(found))


# How many constructor parameters `_receiver_modules` follows back to what the project hands them.
HANDED_DEPTH = 3


def _init_parameter(text: str, receiver: str, name: str) -> Optional[Tuple[str, int, str]]:
    """(class, position, parameter) when the module `text` sets `receiver` (`self.model`) once,
    to `name`, in the `__init__` of a top-level class where `name` is a parameter (its
    position after `self`); None otherwise."""
    if sum(len(bound.get(receiver, ())) for bound in _assigned_values(text).values()) != 1:
        return None
    try:
        tree = python_tree(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    for node in tree.body:
        init = _own_init(node) if isinstance(node, ast.ClassDef) else None
        if init is not None and any(
            isinstance(item, ast.Assign) and isinstance(item.value, ast.Name) and item.value.id == name
            and any(_ast_dotted(target) == receiver for target in item.targets)
            for item in _ast_walk(init)
        ):
            return next(((node.name, position, name) for position, param in _init_parameters(text, node.name) if param == name), None)
    return None


def _init_parameters(text: str, klass: str) -> List[Tuple[int, str]]:
    """(position after `self`, name) of the parameters of `klass.__init__` in the module `text`."""
    init = _class_init(text, klass)
    if init is None:
        return []
    return [(position - 1, arg.arg) for position, arg in enumerate((*init.args.posonlyargs, *init.args.args)) if position > 0]


def _class_init(text: str, klass: str) -> Optional[ast.FunctionDef]:
    """The `__init__` the top-level class `klass` of the module `text` defines, if any."""
    try:
        tree = python_tree(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return next((_own_init(node) for node in tree.body if isinstance(node, ast.ClassDef) and node.name == klass), None)


def _own_init(klass: ast.ClassDef) -> Optional[ast.FunctionDef]:
    return next((item for item in klass.body if isinstance(item, ast.FunctionDef) and item.name == "__init__"), None)


def _handed_modules(file: str, klass: str, position: int, parameter: str, depth: int) -> Optional[FrozenSet[str]]:
    """The project modules whose classes every construction of `klass` (a top-level class of
    the module at `file`) hands its `__init__` parameter: a call `klass(...)` anywhere in the
    project, or a subclass of the module whose `__init__` hands its own parameter on through
    `super().__init__(...)`; None when one of them does not show it, or none is found."""
    text = read_module(file).text
    found: Set[str] = set()
    sites = 0
    for site in callers_of(file, klass):
        source = read_code(site.path).text
        handed = _site_argument(source, site.line, klass, parameter, position)
        modules = _argument_modules(site.path, source, handed, site.caller, depth) if handed is not None else None
        if modules is None:
            return None
        found |= modules
        sites += 1
    for handing in _subclasses_handing_on(text, klass, parameter, position):
        modules = _handed_modules(file, *handing, depth + 1) if handing is not None and depth < HANDED_DEPTH else None
        if modules is None:
            return None
        found |= modules
        sites += 1
    return frozenset(found) if sites else None


def _site_argument(text: str, line: int, klass: str, parameter: str, position: int) -> Optional[ast.AST]:
    """What the call of `klass` at `line` of the module `text` passes to `parameter`."""
    try:
        tree = python_tree(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    calls = [
        node for node in _ast_walk(tree)
        if isinstance(node, ast.Call) and node.lineno == line and (_ast_dotted(node.func) or "").rpartition(".")[2] == klass
    ]
    return ast_argument(calls[0], parameter, position) if len(calls) == 1 else None


def _argument_modules(file: str, text: str, value: ast.AST, caller: Optional[str], depth: int) -> Optional[FrozenSet[str]]:
    """The project modules of what a call in the module at `file` hands on: the modules the
    value's root names (`S3RecModel(args)`), or, for a name assigned in the calling scope,
    those of its values (`model = S3RecModel(args)`); None when unknown."""
    roots = _value_roots(value)
    known = _root_modules(file, text, roots[0]) if roots else None
    if known is not None:
        return frozenset(known)
    if isinstance(value, ast.Name):
        return _receiver_modules(file, text, value.id, caller, depth)
    return None


def _subclasses_handing_on(text: str, klass: str, parameter: str, position: int) -> List[Optional[Tuple[str, int, str]]]:
    """(subclass, position, parameter) for each top-level subclass of `klass` in the module
    `text`: one without an `__init__` takes the parameter where `klass` does; one whose
    `__init__` calls `super().__init__(...)` hands on its own parameter. None for a subclass
    that hands on anything else, or calls the base class's `__init__` otherwise (what it holds
    is not known). Subclasses in other modules are not read."""
    try:
        tree = python_tree(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    found: List[Optional[Tuple[str, int, str]]] = []
    for node in tree.body:
        if not (isinstance(node, ast.ClassDef) and any((_ast_dotted(base) or "").rpartition(".")[2] == klass for base in node.bases)):
            continue
        init = _own_init(node)
        if init is None:
            found.append((node.name, position, parameter))
            continue
        own = {name: index for index, name in _init_parameters(text, node.name)}
        calls = [call for call in _ast_walk(init) if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "__init__"]
        for call in calls:
            handed = ast_argument(call, parameter, position) if _calls_super(call.func.value) else None  # type: ignore[attr-defined]
            found.append((node.name, own[handed.id], handed.id) if isinstance(handed, ast.Name) and handed.id in own else None)
        if not calls:
            found.append(None)  # the base class's `__init__` not called as the module shows
    return found


def _calls_super(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def _value_roots(value: ast.AST) -> List[str]:
    """The name an expression starts from (`REGISTRY` in `REGISTRY[name](**params)`,
    `models` in `models.build(cfg).cuda()`), then those of what a call in it is handed
    (`module_data` in `config.init_obj("data_loader", module_data)`, `VAE` in
    `restore(VAE())`); [] without a root name."""
    handed: List[str] = []
    while isinstance(value, (ast.Call, ast.Attribute, ast.Subscript)):
        if isinstance(value, ast.Call):
            handed += [root for arg in (*value.args, *(keyword.value for keyword in value.keywords)) for root in _value_roots(arg)]
        value = value.func if isinstance(value, ast.Call) else value.value
    return [value.id, *handed] if isinstance(value, ast.Name) else []


def _root_modules(file: str, text: str, root: str) -> Optional[List[str]]:
    """The project modules a name of the module at `file` comes from: those an import of it
    names ([] for a library's), the module itself for one of its top-level definitions; None
    for any other name (a parameter, a local value)."""
    statements = _imports_binding(text, root)
    if statements:
        return [os.path.abspath(f) for statement in statements for f in _statement_files(file, statement)]
    return [file] if root in _module_definitions(text) else None


# How far `_import_closure` follows the project's imports (a package's `__init__`, then its modules).
IMPORT_DEPTH = 3


def _import_closure(modules: FrozenSet[str]) -> FrozenSet[str]:
    """`modules` and the project modules they import, up to `IMPORT_DEPTH` imports away."""
    found, frontier = set(modules), set(modules)
    for _ in range(IMPORT_DEPTH):
        frontier = {
            imported for module in frontier for imported in imported_files(module, read_module(module).text, search_roots(module))
        } - found
        found |= frontier
    return frozenset(found)


def _statement_files(file: str, statement: ImportFrom) -> List[str]:
    """The project files an import statement of the module at `file` names."""
    parts = [part for part in statement.module.split(".") if part]
    names = [name for name, _ in statement.names if name != STAR]
    return [f for base in _import_bases(file, statement, search_roots(file)) for f in _module_files(base, parts, names)]


def _scope_values(text: str, receiver: str, caller: Optional[str]) -> Tuple[Optional[ast.AST], ...]:
    """The values the module `text` assigns to `receiver` where the function `caller` (as
    `CallSite.caller` names it) reads it: an attribute's anywhere in the module; a name's in
    the nearest of `caller`, its enclosing functions and the module that binds it."""
    assigned = _assigned_values(text)
    if "." in receiver:
        return tuple(value for values in assigned.values() for value in values.get(receiver, ()))
    scope = caller or ""
    while True:
        values = assigned.get(scope, {}).get(receiver)
        if values is not None or not scope:
            return values or ()
        scope = scope.rpartition(".")[0]


@lru_cache(maxsize=256)
def _assigned_values(text: str) -> Dict[str, Dict[str, Tuple[Optional[ast.AST], ...]]]:
    """For each function of the module `text` (its enclosing functions' names and its own,
    dotted, as `CallSite.caller` names it; "" for the module) and each name or attribute it
    binds (`model`, `self.model`), the values assigned (see `_unpacked`); None for a binding
    without a value to read (a parameter, a loop target, `with ... as`)."""
    try:
        tree = python_tree(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    found: Dict[str, Dict[str, List[Optional[ast.AST]]]] = {}
    stack: List[Tuple[ast.AST, str]] = [(tree, "")]
    while stack:
        node, scope = stack.pop()
        for child in ast.iter_child_nodes(node):
            inner = scope
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inner = f"{scope}.{child.name}" if scope else child.name
                for argument in ast.walk(child.args):
                    if isinstance(argument, ast.arg):
                        found.setdefault(inner, {}).setdefault(argument.arg, []).append(None)
            for target, value in _bindings(child):
                for bound, part in _unpacked(target, value):
                    name = _ast_dotted(bound)
                    if name:
                        found.setdefault(scope, {}).setdefault(name, []).append(part)
            stack.append((child, inner))
    return {scope: {name: tuple(values) for name, values in names.items()} for scope, names in found.items()}


def _unpacked(target: ast.AST, value: Optional[ast.AST]) -> List[Tuple[ast.AST, Optional[ast.AST]]]:
    """The names and attributes a target binds, each with its part of `value`: the element of a
    display of the same length (`a, b = A(), B()`), else the whole value, a call whose result is
    unpacked (`model, optimizer = load_checkpoint(path, model, optimizer)`)."""
    if isinstance(target, ast.Starred):
        return _unpacked(target.value, None)
    if not isinstance(target, (ast.Tuple, ast.List)):
        return [(target, value)]
    if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts):
        return [pair for element, part in zip(target.elts, value.elts) for pair in _unpacked(element, part)]
    return [pair for element in target.elts for pair in _unpacked(element, value if isinstance(value, ast.Call) else None)]


def _bindings(node: ast.AST) -> List[Tuple[ast.AST, Optional[ast.AST]]]:
    """The targets a node binds, each with the value it assigns (None when it has none to read)."""
    if isinstance(node, ast.Assign):
        return [(target, node.value) for target in node.targets]
    if isinstance(node, ast.AnnAssign):
        return [(node.target, node.value)]
    if isinstance(node, (ast.AugAssign, ast.For, ast.AsyncFor, ast.NamedExpr)):
        return [(node.target, None)]
    if isinstance(node, ast.withitem) and node.optional_vars is not None:
        return [(node.optional_vars, None)]
    return []


@lru_cache(maxsize=256)
def _module_definitions(text: str) -> FrozenSet[str]:
    """The functions and classes the module `text` defines at its top level."""
    return frozenset(_module_classes(text)) | frozenset(re.findall(r"^(?:async[ \t]+)?def[ \t]+(\w+)", text, re.MULTILINE))


def keeps_instance(path: str, method: str) -> bool:
    """Whether a call of `method` on an instance of a project class cannot change the instance
    (`train_dst.decode_target(mask)`), whatever the class: the project of the module at `path`
    defines `method`, and every definition is a `classmethod` or `staticmethod` that changes
    neither its class (assigns its attributes, calls its methods) nor anything else's."""
    path = os.path.abspath(path)
    root = project_root(path)
    _note(root, tree_stamp(root))
    found: List[FunctionFacts] = []
    for file in project_files(root):
        source = read_module(file)
        if f"def {method}" in source.text:
            functions = _module_facts(source.text, file).functions
            found += [facts for key, facts in functions.items() if key.rpartition(".")[2] == method and "." in key]
    return bool(found) and all(
        facts.static and not (facts.parameters[:1] and facts.parameters[0] in facts.mutated_parameters) for facts in found
    )


def _names_function(file: str, text: str, written: str, path: str, function: str) -> bool:
    """Whether `written` (a dotted name called in `file`) is `function` of the module at `path`."""
    if file == path and written == function.split(".")[-1]:
        return True
    head, _, rest = written.partition(".")
    roots = search_roots(file)
    for statement in module_imports(text):
        parts = [part for part in statement.module.split(".") if part]
        if statement.local == head and not statement.names:
            module, attribute = parts, rest
        else:
            name = next((name for name, local in statement.names if local in (head, STAR)), None)
            if name is None:
                continue
            name = head if name == STAR else name
            module, attribute = parts, ".".join([name, *([rest] if rest else [])])
        if attribute.split(".")[-1] != function.split(".")[-1]:
            continue
        for base in _import_bases(file, statement, roots):
            files = _module_files(base, module, [attribute.split(".")[0]] if "." in attribute or statement.names else [])
            if path in (os.path.abspath(f) for f in files):
                return True
            if attribute == function and files and _reexports(files[-1], function.split(".")[0], path, MAX_REEXPORTS):
                return True  # `import d2lzh_pytorch as d2l; d2l.train_ch5(...)`, its `__init__` doing `from .utils import *`
    return False


def _reexports(file: str, name: str, path: str, depth: int) -> bool:
    """Whether the module at `file` binds `name` by importing it from the module at `path`
    (`from .utils import *`, `from .utils import helper` in a package's `__init__`), directly
    or through up to `depth` such imports."""
    if depth <= 0 or not _is_file(file):
        return False
    for statement in _imports_binding(read_module(file).text, name):
        imported = next((imported for imported, local in statement.names if local in (name, STAR)), None)
        if imported is None:
            continue  # `import helper`: a module, not a name taken from one
        original = name if imported == STAR else imported
        parts = [part for part in statement.module.split(".") if part]
        for base in _import_bases(file, statement, search_roots(file)):
            target = _module_file(base, parts)
            if target is None:
                continue
            target = os.path.abspath(target)
            if target == path or (target != os.path.abspath(file) and _reexports(target, original, path, depth - 1)):
                return True
    return False


def _dotted_name(node: "cst.BaseExpression") -> Optional[str]:
    """`names.dotted_name`, imported on use: a run the cache answers never loads LibCST, and
    its dependency checks live in this module."""
    from torchlint.semantics.names import dotted_name

    return dotted_name(node)


# ---------------------------------------------------------------------------------------------
# Importers across the project


def _import_graph(root: str) -> Tuple[Dict[str, Tuple[str, ...]], Dict[str, Tuple[str, ...]]]:
    """(imports, importers): for each project module and notebook, the project modules it
    imports directly, and for each module those that import it directly (a notebook that
    imports a course's helper modules is their program); built once per run."""
    found = _IMPORT_GRAPHS.get(root)
    if found is None:
        imports: Dict[str, Tuple[str, ...]] = {}
        importers: Dict[str, List[str]] = {}
        for file in (*project_files(root), *project_notebooks(root)):
            file = os.path.abspath(file)
            imports[file] = tuple(imported_files(file, read_code(file).text, search_roots(file)))
            for module in imports[file]:
                importers.setdefault(module, []).append(file)
        found = _IMPORT_GRAPHS[root] = (imports, {module: tuple(files) for module, files in importers.items()})
    return found


def _project_graph(checked: str) -> Optional[Tuple[str, Tuple[Dict[str, Tuple[str, ...]], Dict[str, Tuple[str, ...]]]]]:
    """The checked file's absolute path and its project's import graph (noted as a dependency
    on the project's listing); None for text that is not a file."""
    if not os.path.isfile(checked):
        return None
    path = os.path.abspath(checked)
    root = project_root(path)
    _note(root, tree_stamp(root))
    return path, _import_graph(root)


def imported_by_project(ctx: "FileFacts") -> bool:
    """Whether another module of the project imports the checked file."""
    return bool(importers_of(ctx.path))


def importers_of(path: str) -> Tuple[str, ...]:
    """The paths of the project modules that import the file at `path`."""
    found = _project_graph(path)
    return tuple(found[1][1].get(found[0], ())) if found is not None else ()


def imported_global_hand_offs(path: str, name: str) -> List[Tuple[ast.Call, FunctionFacts, str]]:
    """The calls in the project modules that import the module-level name `name` of the
    module at `path` (`from dataloaders import train_loader as loader`) and hand it to a project
    function (`train(loader, ...)`, anywhere in the importer), each with the callee's summary
    and the name the importer gives it."""
    stem = os.path.splitext(os.path.basename(path))[0]
    found: List[Tuple[ast.Call, FunctionFacts, str]] = []
    for importer in importers_of(path):
        text = read_code(importer).text
        locals_ = {
            local for statement in module_imports(text) if statement.module.rpartition(".")[2] == stem and _resolves_to(importer, statement, path)
            for imported, local in statement.names if imported == name
        }
        if not locals_:
            continue
        try:
            tree = python_tree(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for node in _ast_walk(tree):
            if not isinstance(node, ast.Call):
                continue
            given = [value.id for value in (*node.args, *(k.value for k in node.keywords)) if isinstance(value, ast.Name) and value.id in locals_]
            dotted = _ast_dotted(node.func) if given else None
            facts = _function_of(importer, text, dotted) if dotted else None
            found += [(node, facts, local) for local in given] if facts is not None else []
    return found


def _resolves_to(importer: str, statement: ImportFrom, path: str) -> bool:
    """Whether `from <module> import ...` in the file at `importer` imports the module at
    `path`: the first directory it resolves under holds that module (a script's own
    directory before the others)."""
    parts = [part for part in statement.module.split(".") if part]
    for base in _import_bases(importer, statement, search_roots(importer)):
        found = _module_file(base, parts)
        if found is not None:
            return os.path.abspath(found) == path
    return False


def test_module(path: str, patterns: Sequence[str]) -> bool:
    """Whether the file at `path` is test code by its path within its project (`role_path`),
    unless a project module that is not test code imports it (a `test.py` whose evaluation
    function the training script calls every epoch)."""
    if not path_is_test(role_path(path), patterns):
        return False
    return all(path_is_test(role_path(importer), patterns) for importer in importers_of(path))


def superseded_module(path: str) -> bool:
    """Whether the file at `path` is code its project keeps without running it, by a directory
    of its path within the project (`test_paths.superseded_path`: `temp/`, `archive/`, ...),
    unless a project module outside such directories imports it."""
    if not (os.path.isfile(path) and superseded_path(_within_project(path))):
        return False  # text that is no file (an editor's buffer) has no project to place it in
    return all(superseded_path(_within_project(importer)) for importer in importers_of(path))


def _within_project(path: str) -> str:
    """The path of a file relative to its project root (`project_root`: its own directory for
    a loose script), so that the directories above a checkout (`/tmp/...`) say nothing."""
    return os.path.relpath(os.path.abspath(path), project_root(path))


def project_uses(ctx: "FileFacts", feature: str) -> bool:
    """Whether the program the file is part of enables `feature`: the file or a project module it
    imports (`project_enables`), a project module that imports it, directly or through other
    project modules (the training script that imports a model file), or a module such an
    importer imports directly (the trainer module next to that script). The answer depends on
    the whole project, which is noted as a dependency on its listing."""
    if project_enables(ctx, feature):
        return True
    found = _project_graph(ctx.path)
    if found is None:
        return False
    path, (imports, importers) = found
    seen, queue = {path}, [path]
    while queue and len(seen) < MAX_PROJECT_MODULES:
        for importer in importers.get(queue.pop(0), ()):
            if importer in seen:
                continue
            seen.add(importer)
            queue.append(importer)
            if any(file_enables(read_code(module).text, feature) for module in (importer, *imports.get(importer, ()))):
                return True
    return False


# ---------------------------------------------------------------------------------------------
# Gradient mode at the call sites of a function


def runs_without_grad(path: str, function: str, depth: int = 2) -> bool:
    """Whether every call in the project of `function` (a name or `Class.method`) defined in
    the module at `path` runs with gradients off: inside a `with torch.no_grad():` (or
    `inference_mode()`, `set_grad_enabled(False)`) block or a function decorated with one, or
    in a function all of whose calls run so (`depth` callers up). False when the project calls
    it nowhere: a caller outside it may run it with gradients on."""
    sites = callers_of(path, function)
    return bool(sites) and all(_called_without_grad(site, depth) for site in sites)


def _called_without_grad(site: CallSite, depth: int) -> bool:
    text = read_code(site.path).text
    if any(first <= site.line <= last for first, last in _grad_off_blocks(text)):
        return True
    caller = qualified_caller(site) if depth > 0 else None
    return caller is not None and runs_without_grad(site.path, caller, depth - 1)


def qualified_caller(site: CallSite) -> Optional[str]:
    """The function that makes the call at `site` as `callers_of` names functions: `train`, or
    `Trainer.validate` for a method of a module-level class; None at module level."""
    return _qualified_in(read_code(site.path).text, site)


def _qualified_in(text: str, site: CallSite) -> Optional[str]:
    """`qualified_caller` of a call site of the module whose source is `text`."""
    if site.caller is None:
        return None
    klass = _class_at(text, site.line) if "." not in site.caller else None
    return f"{klass}.{site.caller}" if klass is not None else site.caller


@lru_cache(maxsize=256)
def _grad_off_blocks(text: str) -> Tuple[Tuple[int, int], ...]:
    """The (first, last) lines of the blocks of the module `text` that run with gradients off:
    bodies of `with` statements and of functions whose context manager or decorator turns
    them off."""
    try:
        tree = python_tree(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ()
    aliases = _ast_aliases(tree)
    blocks: List[Tuple[int, int]] = []
    for node in _ast_walk(tree):
        if isinstance(node, (ast.With, ast.AsyncWith)):
            wrappers = [item.context_expr for item in node.items]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            wrappers = list(node.decorator_list)
        else:
            continue
        if any(_turns_grad_off(wrapper, aliases) for wrapper in wrappers):
            blocks.append((node.body[0].lineno, node.body[-1].end_lineno or node.body[-1].lineno))
    return tuple(blocks)


def _turns_grad_off(wrapper: ast.AST, aliases: Dict[str, str]) -> bool:
    """`torch.no_grad()`, `torch.inference_mode()` (not `inference_mode(False)`), their bare
    decorator forms, or `torch.set_grad_enabled(False)`."""
    call = wrapper if isinstance(wrapper, ast.Call) else None
    qualified = _ast_qualified(call.func if call is not None else wrapper, aliases) or ""
    first = call.args[0] if call is not None and call.args else None
    false_argument = isinstance(first, ast.Constant) and first.value is False
    if qualified in GRAD_OFF:
        return not false_argument
    return qualified.startswith("torch.") and qualified.rpartition(".")[2] == "set_grad_enabled" and false_argument
