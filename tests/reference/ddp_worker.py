"""One rank of the two-process DDP test, started with torchrun's environment variables.

It trains one accumulation window of two micro-batches with `AmpStep` (full precision)
and saves what the test compares to the path given as its argument.
"""

import sys

import torch
from torch import nn
from torch.utils.data import TensorDataset

from torchlint.reference import (
    AmpStep,
    distributed,
    distributed_loader,
    set_epoch,
    wrap_model,
)

LR = 0.1


def dataset() -> TensorDataset:
    """16 samples, the same on every rank; the last column is the sample's index."""
    generator = torch.Generator().manual_seed(0)
    inputs = torch.randn(16, 4, generator=generator)
    return TensorDataset(inputs, inputs.sum(dim=1, keepdim=True), torch.arange(16))


def loss_fn(model: nn.Module, batch) -> torch.Tensor:
    inputs, targets, _ = batch
    return nn.functional.mse_loss(model(inputs), targets)


def main(output: str) -> None:
    with distributed() as ctx:
        torch.manual_seed(ctx.rank)  # different initial weights: DDP must broadcast rank 0's
        model = wrap_model(nn.Linear(4, 1), ctx)
        initial = [parameter.detach().clone() for parameter in model.parameters()]
        loader = distributed_loader(dataset(), 4, ctx, num_workers=0)
        optimizer = torch.optim.SGD(model.parameters(), lr=LR)
        step = AmpStep(model, optimizer, device_type="cpu", accumulation_steps=2, enabled=False)
        indices, first_grads = [], None
        for epoch in range(2):
            set_epoch(loader, epoch)
            indices.append(torch.cat([batch[2] for batch in loader]).tolist())
        set_epoch(loader, 0)
        for batch in loader:
            if not step.step(batch, loss_fn).updated:
                first_grads = [parameter.grad.clone() for parameter in model.parameters()]
        record = {
            "context": (ctx.rank, ctx.local_rank, ctx.world_size, ctx.local_world_size, str(ctx.device)),
            "initial": initial,
            "first_grads": first_grads,
            "final": [parameter.detach().clone() for parameter in model.parameters()],
            "indices": indices,
        }
    torch.save(record, output)


if __name__ == "__main__":
    main(sys.argv[1])
