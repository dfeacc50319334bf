from typing import Set

import libcst as cst

from torchlint.engine.findings import Applicability
from torchlint.engine.rule import NodeEdit, PendingFix, Rule
from torchlint.semantics.calls import argument, has_star, is_literal, keyword, with_keyword
from torchlint.semantics.names import dotted_name

DATALOADERS = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})
NUM_WORKERS_POSITION = 5  # DataLoader(dataset, batch_size, shuffle, sampler, batch_sampler, num_workers, ...)
PIN_MEMORY_POSITION = 7
# Datasets of tensors already in memory: indexing them is all a worker would do.
IN_MEMORY_DATASETS = frozenset({"torch.utils.data.TensorDataset", "torch.utils.data.dataset.TensorDataset"})
# The worker count the fix writes: four workers per process is the tuning guide's usual starting
# point, portable across machines and small enough not to oversubscribe a shared node.
FIX_WORKERS = "4"


class DataloaderNoWorkers(Rule):
    """## What it does
    Flags `torch.utils.data.DataLoader(...)` created with `num_workers=0` or without
    `num_workers` (whose default is 0).

    ## Why is this slow?
    With no workers, loading, decoding and augmentation run in the training process, one
    batch at a time, between training steps: the GPU waits for every batch. With workers,
    batches are prepared in parallel processes while the GPU computes. Practitioners report
    going from 3 to 13 iterations per second by raising the worker count, and a data-bound
    input pipeline is the most common cause of low GPU utilisation in production studies
    (about 46% of such issues).

    The rule is silent when `num_workers` is any expression other than the literal `0`
    (`num_workers=args.workers`), when `**kwargs` may supply it, for a `DataLoader` that
    is not torch's, and for a `TensorDataset` (tensors already in memory: workers would only
    pickle slices of them).

    ## Example
    ```python
    loader = DataLoader(dataset, batch_size=64, shuffle=True)
    ```

    ## Use instead
    ```python
    loader = DataLoader(
        dataset, batch_size=64, shuffle=True,
        num_workers=4, pin_memory=True, persistent_workers=True,
    )
    ```
    The bundled `torchlint.reference.make_loader` chooses these for the machine, and
    `torchlint.reference.CUDAPrefetcher` overlaps the copy to the GPU with the step.

    ## Fix applicability
    Unsafe: workers are separate processes, so the dataset must be picklable and, under the
    `spawn` start method (macOS, Windows), the script needs an `if __name__ == "__main__":`
    guard. The fix sets `num_workers=4` (a portable starting point: about four workers per
    GPU), adds `persistent_workers=True` so workers survive across epochs, and adds
    `pin_memory=True` when the file moves data to CUDA. Arguments already given are kept.
    """

    code = "TL201"
    name = "dataloader-no-workers"
    summary = "DataLoader loads data in the training process (`num_workers=0`)"
    triggers = ("DataLoader",)
    fix_applicability = Applicability.UNSAFE
    bad_examples = (
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, batch_size=32)\n",
        "import torch\nloader = torch.utils.data.DataLoader(ds, num_workers=0)\n",
        "from torch.utils import data as tud\nloader = tud.DataLoader(ds, 8, True)\n",
    )
    good_examples = (
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, batch_size=32, num_workers=4)\n",
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, num_workers=args.workers)\n",
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, **loader_kwargs)\n",
        "import torch\nfrom mylib import DataLoader\nloader = DataLoader(ds)\n",
        "from torch.utils.data import DataLoader\nloader = DataLoader(ds, 32, True, None, None, 8)\n",
        "from torch.utils.data import DataLoader, TensorDataset\nds = TensorDataset(x, y)\nloader = DataLoader(ds, 32)\n",
        "from torch.utils.data import DataLoader, TensorDataset\nloader = DataLoader(TensorDataset(x, y), 32)\nmodel.to(device)\n",
    )

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        # Names assigned a dataset of in-memory tensors.
        self.in_memory: Set[str] = set()

    def visit_Assign(self, node: cst.Assign) -> None:
        if self._in_memory(node.value):
            self.in_memory.update(filter(None, (dotted_name(target.target) for target in node.targets)))

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.qualified_name(node.func) not in DATALOADERS or has_star(node, "**") or has_star(node, "*"):
            return
        workers = argument(node, "num_workers", NUM_WORKERS_POSITION)
        if workers is not None and not is_literal(workers.value, "0"):
            return
        dataset = argument(node, "dataset", 0)
        if dataset is not None and self._in_memory(dataset.value):
            return
        self.report(
            node,
            "DataLoader without worker processes loads every batch in the training loop; set `num_workers`",
            fix=self._fix(node),
        )

    def _in_memory(self, dataset: cst.BaseExpression) -> bool:
        if isinstance(dataset, cst.Call):
            return self.ctx.qualified_name(dataset.func) in IN_MEMORY_DATASETS
        return dotted_name(dataset) in self.in_memory

    def _fix(self, node: cst.Call) -> PendingFix:
        workers = argument(node, "num_workers", NUM_WORKERS_POSITION)
        if workers is not None and workers.keyword is None:
            new_call = node.deep_replace(workers, workers.with_changes(value=cst.Integer(FIX_WORKERS)))
        else:
            new_call = with_keyword(node, "num_workers", cst.Integer(FIX_WORKERS))
        assert isinstance(new_call, cst.Call)
        if argument(node, "pin_memory", PIN_MEMORY_POSITION) is None and self.ctx.uses_cuda:
            new_call = with_keyword(new_call, "pin_memory", cst.Name("True"))
        if keyword(node, "persistent_workers") is None:
            new_call = with_keyword(new_call, "persistent_workers", cst.Name("True"))
        return self.fix(NodeEdit(node, new_call), message="Load batches in 4 worker processes")
