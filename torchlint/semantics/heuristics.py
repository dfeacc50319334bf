"""The naming conventions the analysis relies on, in one place.

Static analysis cannot know what `args.log_every` holds or what `setup()` does; these word
lists encode the conventions of training code that the rules trust. Names are split into
words (`log_every` -> log, every; `printFreq` -> print, freq), so `logits` is not a `log`.
"""

from __future__ import annotations

import re
from typing import List

import libcst as cst

from torchlint.semantics.epochs import mentions_epoch
from torchlint.semantics.tree import children

# Words in an `if` test that limit its body to some steps or to an opt-in: logging and
# reporting intervals, debugging and verbosity switches.
GUARD_WORDS = frozenset(
    "log logs logger logging print printing verbose verbosity interval intervals freq frequency every "
    "display report reporting debug debugging vis viz visualize visualise visualization plot plots tensorboard wandb visdom "
    "save show dump profile profiler profiling nvtx".split()
)
# Words of a running best value (`best_acc`, `is_best`): a test on one holds only when a
# metric improves, which gets rarer as training converges.
BEST_WORDS = frozenset({"best"})
# Functions that run once per program or per model: construction, setup, conversion of a
# trained model for deployment (`fuse`, `reparameterize`, `switch_to_deploy`).
SETUP_FUNCTION_WORDS = frozenset(
    "init setup build create construct configure export convert parse prepare register fuse "
    "reparameterize reparametrize reparam deploy".split()
)
# Words in a file or directory name that mark a one-off program: conversion, export and
# evaluation scripts and demos, run once per use rather than once per training step.
EVALUATION_SCRIPT_WORDS = frozenset("eval evaluate evaluation".split())
ONE_OFF_SCRIPT_WORDS = frozenset("convert conversion converter export exporter demo demos".split()) | EVALUATION_SCRIPT_WORDS
# Words in a file, directory or function name that mark code written to measure speed.
PROFILING_WORDS = frozenset("profile profiler profiling prof benchmark benchmarks bench perf timing speed throughput".split())
# Methods a framework calls once per training or validation step.
STEP_METHODS = frozenset(
    {"forward", "training_step", "validation_step", "test_step", "predict_step", "train_step", "step"}
)
# Those of them that training runs (`validation_step` and the like do not).
TRAINING_STEP_METHODS = frozenset({"forward", "training_step", "train_step"})
# Words of a call that show a program trains (`loss.backward()`, `trainer.fit(model)`,
# `model.train()`, `train_one_epoch(...)`), and of the optimizer module; and the names a
# call that trains may have whole (`optimizer.step()`; not `task.inference_step()`).
TRAINING_CALL_WORDS = frozenset({"backward", "fit", "train", "trainer", "training", "optimizer", "optim", "autograd"})
TRAINING_CALL_NAMES = frozenset({"step", "zero_grad"})
# Words of an iterable of training batches (`training_data`, `batches`): a loop over one that
# runs a backward pass and an optimizer step is a training loop. Not `dataset`: iterated
# directly, a dataset yields single samples, not batches.
DATA_WORDS = frozenset({"data", "batches"})
# Words that, beside `batch`, name a call that draws the next batch (`get_batch`, `next_batch`).
BATCH_DRAWING_WORDS = frozenset({"get", "next", "sample", "fetch", "load", "draw"})
# Words of an optimizer's name (`optimizer`, `self.optim`, `opt_g`) and of a loss (`loss`,
# `total_loss`, `d_loss`): a call handed both runs a training step (`loss_scaler(loss, optimizer)`).
OPTIMIZER_WORDS = frozenset({"optimizer", "optim", "opt"})
LOSS_WORDS = frozenset({"loss"})
# Words of a helper, or of the name of its result, that builds the parameter groups of the
# module it is given (`get_params_groups(model)`, `param_groups = add_weight_decay(model, wd)`).
PARAMETER_WORDS = frozenset({"param", "params", "parameters"})
# Methods the data loader calls once per sample or batch.
DATA_METHODS = frozenset({"__getitem__", "__iter__", "__next__", "collate_fn"})
# Names of iteration counters, for one-step tests such as `if step == 0`.
COUNTER = re.compile(r"step|iter|batch|idx|count|epoch|update")
# Words of a name that holds a program's settings (`config`, `self.cfg`, `args`, `hparams`,
# `os.environ`): a key looked up in it names a setting (`config["debug"]`), unlike a key of
# the data (`out["log_det"]`).
SETTINGS_WORDS = frozenset("config configs configuration cfg cfgs conf args opt opts options hparams hp hyperparams settings environ flags".split())
# Words naming a position: after another noun they index that noun, not the iterations
# (`optimizer_idx`, `dataloader_idx`, `layer_index`), unless the noun counts iterations.
INDEX_WORDS = frozenset({"idx", "index", "ix", "id"})
# Loops over containers of parameters or dict entries run once per call, not once per step.
CONTAINER_ITERATORS = frozenset(
    "items keys values parameters named_parameters modules named_modules children named_children "
    "buffers named_buffers state_dict".split()
)
# Functions that test for numerical failure: a branch on them is an error path.
FAILURE_CHECKS = frozenset({"isnan", "isinf", "isfinite", "isneginf", "isposinf"})

_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def words(name: str) -> List[str]:
    """The lower-case words of an identifier: `logEvery_n` -> ["log", "every", "n"]."""
    return [word.lower() for word in _WORD.findall(name)]


def has_word(name: str, vocabulary: frozenset) -> bool:
    return any(word in vocabulary for word in words(name))


def names_counter(name: str) -> bool:
    """`step`, `batch_idx`, `global_step`, `n_iter`: a name of an iteration counter; not an
    index of something else (`optimizer_idx`: Lightning runs the step once per optimizer)."""
    if COUNTER.search(name) is None:
        return False
    parts = words(name)
    if len(parts) > 1 and parts[-1] in INDEX_WORDS:
        return any(COUNTER.search(word) for word in parts[:-1])
    return True


def identifier(node: cst.BaseExpression) -> str:
    """The last name of `x`, `a.b.x` or `f()`'s callee, else ''."""
    if isinstance(node, cst.Call):
        node = node.func
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return node.attr.value
    return ""


def names_epoch(node: cst.CSTNode) -> bool:
    """Whether a name or attribute in `node` mentions an epoch (`epoch`, `args.epochs`,
    `n_epoch`), outside keyword arguments and f-strings (`tqdm(loader, desc=f"epoch
    {epoch}")` iterates the loader)."""
    names: List[str] = []
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, (cst.Name, cst.Attribute)):
            names.append(identifier(item))
        if isinstance(item, cst.Arg) and item.keyword is not None:
            continue
        if not isinstance(item, cst.FormattedString):
            stack.extend(children(item))
    return mentions_epoch(names)



def is_setup_function(name: str) -> bool:
    """`setup`, `build_model`, `export_onnx`, `fuse_bn`: code that builds or converts, once."""
    return has_word(name, SETUP_FUNCTION_WORDS)
