"""Names of the training frameworks' classes and hooks, shared by the LibCST tier
(`frameworks`) and the project index (`project`), which must not load LibCST."""

from __future__ import annotations

from typing import Dict, FrozenSet

# Packages whose import makes a file a PyTorch file: torch, the training frameworks built on it,
# and PyTorch Geometric (its loaders are torch DataLoaders, its models torch modules).
TORCH_PACKAGES: FrozenSet[str] = frozenset({"torch", "pytorch_lightning", "lightning", "torch_geometric"})
# Other libraries whose tensors have a `.backward()`: a file importing one is not PyTorch code
# by its backward pass alone.
OTHER_AUTOGRAD_PACKAGES: FrozenSet[str] = frozenset(
    {"mxnet", "chainer", "paddle", "tensorflow", "jax", "oneflow", "mindspore", "dynet", "autograd", "tinygrad", "micrograd"}
)
LIGHTNING = "Lightning"
# The packages Lightning's classes are imported from (`pytorch_lightning.Trainer`,
# `lightning.pytorch.LightningModule`).
LIGHTNING_PACKAGES: FrozenSet[str] = frozenset({"pytorch_lightning", "lightning"})
# The methods of Lightning's trainer that run a module's training and validation hooks and pass
# over the loaders they are handed (`fit` every epoch, `validate`).
TRAINER_PASSES: FrozenSet[str] = frozenset({"fit", "validate"})


def lightning_class(qualified: str, name: str) -> bool:
    """Whether the qualified name `qualified` is Lightning's class `name` (`Trainer`,
    `LightningModule`), by any path it is imported through."""
    return qualified.split(".")[0] in LIGHTNING_PACKAGES and qualified.rpartition(".")[2] == name
# Lightning's callbacks, whose hooks the trainer calls (`on_train_batch_end` every batch).
LIGHTNING_CALLBACK = "the Lightning trainer"
HUGGING_FACE = "Hugging Face Trainer"

# The framework base classes, by the last part of their dotted name.
FRAMEWORK_BASES: Dict[str, str] = {
    "LightningModule": LIGHTNING,
    "LightningDataModule": LIGHTNING,
    "Callback": LIGHTNING_CALLBACK,
    "Trainer": HUGGING_FACE,
    "Seq2SeqTrainer": HUGGING_FACE,
}
# Methods whose returned loaders feed every epoch of training (a test loader runs once).
TRAINING_LOADER_HOOKS: FrozenSet[str] = frozenset({"train_dataloader", "val_dataloader"})
# Lightning hooks that run once per `fit` (or per stage), not per epoch or batch.
LIGHTNING_ONCE_HOOKS: FrozenSet[str] = frozenset(
    {"prepare_data", "setup", "teardown", "on_fit_start", "on_fit_end", "on_train_start", "on_train_end"}
)
# The validation loader hook, and the step hook without which Lightning never iterates it.
VALIDATION_LOADER_HOOK = "val_dataloader"
VALIDATION_STEP = "validation_step"
TRAINING_STEP = "training_step"
