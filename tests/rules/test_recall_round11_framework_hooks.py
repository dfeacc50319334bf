"""The eleventh round of issue 25, framework hooks: TL103 reports implicit syncs in a
`LightningModule`'s batch hooks and their helpers, also in files that never mention a device
(`ptr = int(self.queue_ptr)` of a registered buffer, MoCo's queue); a registered buffer that
the file never rebinds is a tensor. And a helper of another module that a Lightning hook's
helper calls (`utils.BatchShuffleDDP.shuffle(x)` from `_get_embeddings()` from
`training_step()`) runs every step: its `torch.randperm(n).to(x.device)` is TL102's."""

from __future__ import annotations

import textwrap

import pytest
from conftest import lint, project_findings

pytestmark = pytest.mark.stable_only

MOCO = """
import torch
import pytorch_lightning as pl


class MoCo(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.register_buffer("queue_ptr", torch.zeros(1, dtype=torch.long))
        {extra}

    def _dequeue_and_enqueue(self, keys):
        ptr = int(self.queue_ptr)
        self.queue_ptr[0] = (ptr + keys.shape[0]) % 4096

    def {hook}(self, batch, batch_idx):
        loss = self.model(batch).mean()
        self._dequeue_and_enqueue(batch)
        return loss
"""


def _lines(hook: str = "training_step", extra: str = "pass", base: str = "pl.LightningModule") -> list:
    code = textwrap.dedent(MOCO.format(hook=hook, extra=extra)).replace("pl.LightningModule", base)
    return [f.line for f in lint(code, ["TL103"])]


def test_int_of_a_buffer_in_a_helper_of_training_step() -> None:
    assert _lines() == [13]


def test_validation_step_helper_too() -> None:
    assert _lines(hook="validation_step") == [13]


def test_rebound_attribute_is_not_known_to_be_a_tensor() -> None:
    assert _lines(extra="self.queue_ptr = 0") == []


def test_plain_class_outside_a_framework_is_silent() -> None:
    assert _lines(base="object") == []


def test_method_no_hook_calls_is_silent() -> None:
    assert _lines(hook="configure_queue") == []


def test_print_of_a_tensor_in_an_evaluation_hook_is_its_output() -> None:
    code = textwrap.dedent(MOCO.format(hook="validation_step", extra="pass")).replace(
        "ptr = int(self.queue_ptr)", "print(self.queue_ptr)\n        ptr = 0"
    )
    assert lint(code, ["TL103"]) == []


UTILS = """
import torch


class BatchShuffle:
    @staticmethod
    def shuffle(x):
        idx = torch.randperm(x.shape[0]).to(x.device)
        return x[idx], torch.argsort(idx)
"""

MODULE = """
import torch
import pytorch_lightning as pl
import utils


class Model(pl.LightningModule):
    def _embed(self, x):
        if self.hparams.shuffle_batch_norm:
            x, back = utils.BatchShuffle.shuffle(x)
        return self.model(x)

    def {hook}(self, batch, batch_idx):
        return self._embed(batch).mean()
"""


@pytest.mark.parametrize(("hook", "expected"), [("training_step", {("utils.py", "TL102", 8)}), ("configure_queue", set())])
def test_helper_of_a_hook_helper_in_another_module(tmp_path, monkeypatch, hook, expected) -> None:
    files = {"utils.py": UTILS, "model.py": MODULE.format(hook=hook)}
    assert project_findings(tmp_path, monkeypatch, files, "TL102") == expected


CALLBACK = """
import time
import torch
import pytorch_lightning as pl


class Monitor(pl.Callback):
    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        if outputs["loss"] > 10:
            print("spike")
"""


def test_callback_hooks_do_the_monitoring_they_are_added_for() -> None:
    assert lint(textwrap.dedent(CALLBACK), ["TL103"]) == []


@pytest.mark.parametrize(("hook", "expected"), [("validation_step", []), ("training_step", [16])])
def test_timing_and_raising_in_a_hook_helper(hook, expected) -> None:
    # The timing's synchronisation is needed in both hooks. A test that decides a `raise` is
    # needed in an evaluation hook; in a training hook it waits every step (round 24: the
    # helper's `keys` is the hook's batch, a tensor, as `if torch.isnan(loss): return None`
    # in `training_step` is reported since round 23).
    code = textwrap.dedent(MOCO.format(hook=hook, extra="pass")).replace(
        "ptr = int(self.queue_ptr)",
        "torch.cuda.synchronize()\n        start = time.perf_counter()\n        if bool(keys.isnan().any()):\n            raise ValueError('nan')\n        ptr = 0",
    ).replace("import torch\n", "import time\nimport torch\n", 1)
    assert [finding.line for finding in lint(code, ["TL103"])] == expected
