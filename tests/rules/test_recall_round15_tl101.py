"""Round 15 of TL101: a loop over the elements of a tensor in a trained module's `forward()`
(or a helper of it, also nested in a loop of the forward: `for module in self.sequential:`)
reads each element back on every training step: `length.item()` per sequence of the batch,
`min_values[b].tolist()` per series. A loop `for i, vec in enumerate(batch)` counts over the
first dimension as `range(len(batch))` does (`predicted[i].item()`). Hard negatives: a module
the project never builds, an inference forward (gradients off), a forward called only by
a script that does not train, a loop over something other than elements, a host tensor."""

from __future__ import annotations

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only

MODEL = """
import torch
from torch import nn


class Regulator(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.layers = layers

    def expand(self, batch, predicted):
        out = []
        for i, vec in enumerate(batch):
            size = predicted[i].item()
            out.append(vec.expand(max(int(size), 0), -1))
        return torch.cat(out, 0)

    def forward(self, x, durations, lengths):
        output = [self.expand(seq, target) for seq, target in zip(x, durations)]
        for layer in self.layers:
            x = layer(x)
            for idx, length in enumerate(lengths):
                x[idx, length.item():] = 0
        stats = torch.min(x, dim=1)[0]
        prompts = []
        for b in range(x.shape[0]):
            prompts.append(f"min {stats[b].tolist()}")
        return output, x, prompts
"""

TRAIN = """
import torch
from model import Regulator

model = Regulator(torch.nn.ModuleList()).cuda()
optimizer = torch.optim.Adam(model.parameters())
for epoch in range(10):
    for x, durations, lengths in loader:
        x, durations, lengths = x.cuda(), durations.cuda(), lengths.cuda()
        output, y, prompts = model(x, durations, lengths)
        loss = y.mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""



def line_of(code: str, text: str) -> int:
    """The line number of the line of `code` that holds `text`, as the checker counts."""
    return next(number for number, line in enumerate(code.splitlines(), 1) if text in line)


SYNCS = ("predicted[i].item()", "length.item()", "stats[b].tolist()")
EXPECTED = {("model.py", "TL101", line_of(MODEL, sync)) for sync in SYNCS}


def test_element_reads_in_a_trained_forward_and_its_helpers(tmp_path, monkeypatch):
    assert project_findings(tmp_path, monkeypatch, {"model.py": MODEL, "train.py": TRAIN}, "TL101") == EXPECTED


@pytest.mark.parametrize(
    "old, new",
    [
        # an inference forward: gradients off
        ("    def forward(self", "    @torch.no_grad()\n    def forward(self"),
        # not a torch module
        ("class Regulator(nn.Module):\n    def __init__(self, layers):\n        super().__init__()\n", "class Regulator:\n    def __init__(self, layers):\n"),
    ],
)
def test_hard_negatives_of_the_module(tmp_path, monkeypatch, old, new):
    assert old in MODEL
    train = TRAIN.replace("Regulator(torch.nn.ModuleList()).cuda()", "Regulator(torch.nn.ModuleList())")
    assert project_findings(tmp_path, monkeypatch, {"model.py": MODEL.replace(old, new), "train.py": train}, "TL101") == set()


@pytest.mark.parametrize(
    "old, new, sync",
    [
        # a loop that walks no tensor's elements: a zip with a counter, a fixed count
        ("for i, vec in enumerate(batch):", "for i, vec in zip(counter, batch):", "predicted[i].item()"),
        ("for b in range(x.shape[0]):", "for b in range(3):", "stats[b].tolist()"),
        # the elements of a host copy made before the loop
        ("stats = torch.min(x, dim=1)[0]", "stats = torch.min(x, dim=1)[0].cpu()", "stats[b].tolist()"),
    ],
)
def test_hard_negatives_of_the_loop(tmp_path, monkeypatch, old, new, sync):
    assert old in MODEL
    found = project_findings(tmp_path, monkeypatch, {"model.py": MODEL.replace(old, new), "train.py": TRAIN}, "TL101")
    assert ("model.py", "TL101", line_of(MODEL, sync)) not in found
    assert found <= EXPECTED


def test_a_library_module_that_no_training_program_uses(tmp_path, monkeypatch):
    """Without a program that trains, a module's users may hand it host tensors (lengths kept
    on the CPU for packing)."""
    assert project_findings(tmp_path, monkeypatch, {"model.py": MODEL}, "TL101") == set()


def test_in_test_code_it_is_not(tmp_path, monkeypatch):
    trains = "\n\ndef test_training(loader):\n" + "\n".join("    " + line for line in TRAIN.splitlines() if "import" not in line)
    (tmp_path / "script").mkdir()
    (tmp_path / "test").mkdir()
    assert project_findings(tmp_path / "script", monkeypatch, {"train.py": MODEL + trains}, "TL101") != set()
    assert project_findings(tmp_path / "test", monkeypatch, {"test_model.py": "import pytest\n" + MODEL + trains}, "TL101") == set()


# Early stopping on a validation loss that a helper returns through a name of its own
# (`loss_val = ....item()`, then `return loss_val, acc`), or that the loop appends to a list
# it reads for the stop test (`loss_values.append(train(epoch))`, `loss_values[-1] < best`):
# the test that leaves the loop reads the value, which must reach the host.
EARLY_STOPPING = """
import torch

model = Net().cuda()
optimizer = torch.optim.Adam(model.parameters())


def train():
    optimizer.zero_grad()
    loss = model(features)[mask].sum()
    loss.backward()
    optimizer.step()
    return loss.item()


def validate():
    loss_val = model(features)[val_mask].sum().item()
    return loss_val, 0


best, bad_counter, losses = 1e9, 0, []
for epoch in range(1000):
    losses.append(train())
    loss_val, acc = validate()
    if losses[-1] < best:
        best = losses[-1]
        bad_counter = 0
    else:
        bad_counter += 1
    if bad_counter == 10:
        break
"""


def on_validation_loss(code: str) -> str:
    """The loop stopping on the validation loss rather than the training losses it appends."""
    return code.replace("if losses[-1] < best:", "if loss_val < best:").replace("best = losses[-1]", "best = loss_val")


def test_a_loss_returned_through_a_name_or_appended_for_the_stop_test(tmp_path, monkeypatch):
    code = on_validation_loss(EARLY_STOPPING)
    (tmp_path / "named").mkdir()
    (tmp_path / "appended").mkdir()
    # the stop test reads the validation loss: only the training loss (logged) is reported
    assert project_findings(tmp_path / "named", monkeypatch, {"train.py": code}, "TL101") == {("train.py", "TL101", line_of(code, "return loss.item()"))}
    # the stop test reads the appended training losses: only the validation loss is reported
    found = project_findings(tmp_path / "appended", monkeypatch, {"train.py": EARLY_STOPPING}, "TL101")
    assert found == {("train.py", "TL101", line_of(EARLY_STOPPING, "loss_val = model"))}


@pytest.mark.parametrize(
    "old, new",
    [
        # the name returned is not the value read back
        ("    return loss_val, 0\n", "    return 0, loss_val * 2\n"),
        # no stop test reads the values
        ("    if bad_counter == 10:\n        break\n", "    print(bad_counter)\n"),
        # appended to a list the stop test does not read
        ("losses.append(train())", "history.append(train())"),
    ],
)
def test_hard_negatives_of_early_stopping(tmp_path, monkeypatch, old, new):
    code = EARLY_STOPPING if "history" in new else on_validation_loss(EARLY_STOPPING)
    assert old in code
    code = code.replace(old, new)
    found = project_findings(tmp_path, monkeypatch, {"train.py": code}, "TL101")
    if "history" in new:
        assert ("train.py", "TL101", line_of(code, "return loss.item()")) in found
    else:
        assert ("train.py", "TL101", line_of(code, "loss_val = model")) in found


# A trained module's `forward()` that returns a dict it built with `.item()` values through
# a name (`loss_item = {"loss": loss.item()}`, then `return loss, loss_item`) syncs every step
# for the caller's logging, as `return loss, {"loss": loss.item()}` does.
FORWARD_OUTPUT = """
import torch
from torch import nn


class PreModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(8, 8)

    def forward(self, x):
        loss = self.encoder(x).pow(2).mean()
        loss_item = {"loss": loss.item()}
        return loss, loss_item


model = PreModel().cuda()
optimizer = torch.optim.Adam(model.parameters())
for epoch in range(10):
    for x in loader:
        loss, loss_dict = model(x.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""


def test_a_dict_of_read_back_values_a_forward_returns_by_name(tmp_path, monkeypatch):
    expected = {("train.py", "TL101", line_of(FORWARD_OUTPUT, '{"loss": loss.item()}'))}
    assert project_findings(tmp_path, monkeypatch, {"train.py": FORWARD_OUTPUT}, "TL101") == expected


@pytest.mark.parametrize(
    "old, new",
    [
        # the name is not what the forward returns
        ("        return loss, loss_item\n", "        return loss, len(loss_item)\n"),
        # the value is computed on before it is bound: the forward needs it
        ('loss_item = {"loss": loss.item()}', 'loss_item = int(loss.item()) + 1'),
        # an inference forward: gradients off
        ("    def forward(self, x):", "    @torch.no_grad()\n    def forward(self, x):"),
        # a value bound without a display, which the forward itself may use, and rebound
        ('loss_item = {"loss": loss.item()}', "loss_item = loss.tolist()\n        loss_item = sizes(loss_item)"),
        # the forward reads the display itself
        ("        return loss, loss_item\n", "        print(loss_item)\n        return loss, loss_item\n"),
    ],
)
def test_hard_negatives_of_a_forward_output(tmp_path, monkeypatch, old, new):
    assert old in FORWARD_OUTPUT
    assert project_findings(tmp_path, monkeypatch, {"train.py": FORWARD_OUTPUT.replace(old, new)}, "TL101") == set()


POST_PROCESS = """
import torch
from torch import nn


class PostProcess(nn.Module):
    def __init__(self, names):
        super().__init__()
        self.names = names

    def forward(self, outputs):
        classes = outputs.argmax(-1)
        out = []
        for c in classes:
            out.append(self.names[c.item()])
        return out


def build(names):
    return nn.Linear(4, 4).cuda(), PostProcess(names)


model, post = build(["a", "b"])
optimizer = torch.optim.Adam(model.parameters())
for epoch in range(10):
    for x in loader:
        loss = model(x.cuda()).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""


def test_a_module_without_layers_built_by_a_function_is_a_post_processor(tmp_path, monkeypatch):
    """A module that runs no layers, built by a function rather than by another module: its
    forward post-processes outputs for evaluation (detr's `PostProcessPanoptic`)."""
    (tmp_path / "post").mkdir()
    (tmp_path / "layers").mkdir()
    assert project_findings(tmp_path / "post", monkeypatch, {"train.py": POST_PROCESS}, "TL101") == set()
    # the same module holding a layer it runs is part of the trained model
    layered = POST_PROCESS.replace("        self.names = names\n", "        self.names = names\n        self.head = nn.Linear(4, 4)\n").replace(
        "classes = outputs.argmax(-1)", "classes = self.head(outputs).argmax(-1)"
    )
    found = project_findings(tmp_path / "layers", monkeypatch, {"train.py": layered}, "TL101")
    assert found == {("train.py", "TL101", line_of(layered, "self.names[c.item()]"))}
