"""Datasets whose items are already tensors in memory: loading them has no work for worker
processes to overlap, and no decoding to speed up."""

from __future__ import annotations

from typing import AbstractSet

import libcst as cst

from torchlint.semantics.facts import FileFacts
from torchlint.semantics.names import dotted_name
from torchlint.semantics.tree import descendants
from torchlint.semantics.values import assigned_values

IN_MEMORY_DATASETS = frozenset({"torch.utils.data.TensorDataset", "torch.utils.data.dataset.TensorDataset"})
SUBSETS = frozenset({"torch.utils.data.Subset", "torch.utils.data.dataset.Subset"})
MAX_DATASET_STEPS = 4
# (module, name) of the torch factories that make a dataset's data up (random or constant
# tensors), as synthetic and demo datasets do; `torch.tensor`/`from_numpy` convert loaded data.
_TORCH_FACTORIES = frozenset(
    ("torch", name) for name in "rand randn randint randperm zeros ones empty full arange linspace".split()
)


def in_memory(ctx: FileFacts, dataset: cst.BaseExpression, known: AbstractSet[str] = frozenset(), depth: int = 0) -> bool:
    """A dataset of tensors already in memory: a `TensorDataset`, a dataset class of the file
    that makes its data up (`self.data = torch.randn(length, size)`, reading nothing), a
    `Subset` of one, a name in `known`, or a `self.` attribute the file only ever binds to one
    (`self.random_train = Subset(self.random_full, ...)`)."""
    if isinstance(dataset, cst.Call):
        qualified = ctx.qualified_name(dataset.func)
        if qualified in SUBSETS and dataset.args and depth < MAX_DATASET_STEPS:
            return in_memory(ctx, dataset.args[0].value, known, depth + 1)
        return qualified in IN_MEMORY_DATASETS or _makes_data_up(ctx, dataset.func)
    name = dotted_name(dataset)
    if name in known:
        return True
    if name is None or not name.startswith("self.") or depth >= MAX_DATASET_STEPS:
        return False
    values = assigned_values(ctx.module, name)
    return bool(values) and all(in_memory(ctx, value, known, depth + 1) for value in values)


def _makes_data_up(ctx: FileFacts, func: cst.BaseExpression) -> bool:
    """A dataset class of the file that makes its data with a torch factory (in `__init__`, or
    item by item) and reads nothing (no file, array or image loading anywhere in the class)."""
    classes = ctx.frequency.classes().get(func.value, []) if isinstance(func, cst.Name) else []
    for klass in classes:
        calls = [node for node in descendants(klass) if isinstance(node, cst.Call)]
        if any(_reads(call) for call in calls):
            continue
        if any((ctx.names.qualified_name(call.func) or "").rpartition(".")[::2] in _TORCH_FACTORIES for call in calls):
            return True
    return False


def _reads(call: cst.Call) -> bool:
    """`open(path)`, `np.load(...)`, `Image.open(...)`, `cv2.imread(...)`, `f.read()`: a call that reads data."""
    name = (dotted_name(call.func) or "").rpartition(".")[2]
    return name == "open" or name.startswith(("load", "read", "imread"))
