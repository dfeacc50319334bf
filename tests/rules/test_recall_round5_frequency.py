"""The fifth recall round of issue 25, how often code runs: evaluation that records no graph
in old PyTorch, evaluation that runs once per program, evaluation mode written as
`train(False)`, per-step work reached through a base class's epoch loop or a list of metric
functions, a builder branch every caller takes, and audio written to disk per input. Each
cause has positives and hard negatives, in the default mode a user runs."""

from __future__ import annotations

import textwrap

import pytest

from conftest import lint
from test_recall_round2 import found, project

pytestmark = pytest.mark.stable_only

EVALUATE = """
from torch.autograd import Variable

def evaluate(model, test_loader):
    model.eval()
    for x, y in test_loader:
        x = x.cuda()
        {binding}
        out = model(x)
        print(out.argmax(1).eq(y).sum().data[0])

for epoch in range(10):
    train_one_epoch(model, loader, opt)
    evaluate(model, test_loader)
"""


@pytest.mark.parametrize(
    "binding, reported",
    [
        ("x, y = Variable(x, volatile=True), Variable(y)", False),
        ("x = Variable(x, volatile=True)", False),
        ("x = Variable(x)", True),
        ("x = Variable(x, volatile=False)", True),
        # The latest binding decides: `x` is no longer volatile.
        ("x = Variable(x, volatile=True); x = Variable(x.data)", True),
        # Another name is volatile, not the input the module runs on.
        ("z = Variable(x, volatile=True)", True),
    ],
)
def test_a_module_run_on_a_volatile_variable_records_no_graph(binding, reported):
    """`Variable(x, volatile=True)` was PyTorch 0.3's no-grad: a forward on it records nothing."""
    assert bool(found(EVALUATE.format(binding=binding), "TL402")) is reported


def test_volatile_is_ignored_in_a_file_written_for_pytorch_0_4_or_later():
    """A file that calls `.item()` runs on PyTorch 0.4 or later, which ignores `volatile`."""
    code = EVALUATE.format(binding="x = Variable(x, volatile=True)").replace(".data[0]", ".item()")
    assert found(code, "TL402") == [9]


def test_a_forward_on_a_variable_built_volatile_in_place_records_no_graph():
    code = EVALUATE.format(binding="pass").replace("model(x)", "model(Variable(x, volatile=True))")
    assert found(code, "TL402") == []
    assert found(code.replace("volatile=True", "requires_grad=False"), "TL402") == [9]


def test_a_module_level_volatile_variable_read_by_a_function_records_no_graph():
    """A fixed volatile input made once at module level (a GAN's sample noise) and read by the
    per-epoch function; rebinding the name inside the function takes it back."""
    code = EVALUATE.format(binding="pass").replace("def evaluate", "fixed = Variable(noise, volatile=True)\n\ndef evaluate")
    code = code.replace("model(x)", "model(fixed)")
    assert found(code, "TL402") == []
    assert found(code.replace("        pass", "        fixed = Variable(x)"), "TL402") == [11]
    assert found(code.replace("volatile=True", "requires_grad=False"), "TL402") == [11]


AGENT = """
class Agent:
    def __init__(self, net, opt):
        self.net, self.opt = net, opt
        self.is_test = False

    def select_action(self, state):
        if self.is_test:
            self.net.eval()
        return self.net(torch.as_tensor(state, device=device)).argmax().item()

    def update(self, batch):
        loss = self.net(batch).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()

    def train(self, frames):
        {reset}
        state = env.reset()
        for frame in range(frames):
            action = self.select_action(state)
            state, reward, done = env.step(action)
            self.update(memory.sample())

    def test(self):
        self.is_test = True
        state, done = env.reset(), False
        while not done:
            state, reward, done = env.step(self.select_action(state))
"""


def test_evaluation_mode_set_only_in_a_test_episode_at_the_end_of_the_program_runs_once():
    """`if self.is_test: self.net.eval()` runs only while `test()` runs, once at the end."""
    code = AGENT.format(reset="self.is_test = False") + "agent = Agent(net, opt)\nagent.train(10000)\nagent.test()\n"
    assert found(code, "TL402") == []


def test_a_test_episode_every_epoch_still_evaluates_often():
    code = AGENT.format(reset="self.is_test = False") + (
        "agent = Agent(net, opt)\nfor epoch in range(100):\n    agent.train(1000)\n    agent.test()\n"
    )
    assert found(code, "TL402") == [13]


def test_a_mode_flag_the_training_loop_does_not_reset_is_not_trusted():
    """Without `self.is_test = False` in `train()`, the flag may still be set while training
    selects actions every step: the branch is read as running with its method."""
    code = AGENT.format(reset="pass") + "agent = Agent(net, opt)\nagent.train(10000)\nagent.test()\n"
    assert found(code, "TL402") == [13]


MARIMO = (
    "\nimport marimo\n\napp = marimo.App()\n\n\n@app.cell\ndef _(torch, device):"
    + textwrap.indent(AGENT.format(reset="self.is_test = False"), "    ")
    + """    return (Agent,)


@app.cell
def _(Agent, net, opt):
    agent = Agent(net, opt)
    agent.train(10000)
    return (agent,)


@app.cell
def _(agent):
    agent.test()
    return
"""
)


def test_a_marimo_cell_runs_once_per_run_of_the_notebook():
    """The test episode a cell runs once is not per-step evaluation."""
    assert found(MARIMO, "TL402") == []


def test_a_function_decorated_cell_of_something_else_is_not_a_notebook_cell():
    code = MARIMO.replace("app = marimo.App()", "app = Router()")
    assert found(code, "TL402") == [20]


@pytest.mark.parametrize(
    "switch, reported",
    [
        ("eval()", True),
        ("train(False)", True),
        ("train(mode=False)", True),
        ("train()", False),
        ("train(True)", False),
        ("train(is_training)", False),  # the mode is not known
        ("train(False); model.train()", False),  # back in training mode before the forward
    ],
)
def test_train_false_is_evaluation_mode_like_eval(switch, reported):
    """`module.train(False)` is what `module.eval()` calls: the same evaluation mode."""
    code = EVALUATE.format(binding="pass").replace("model.eval()", f"model.{switch}")
    assert bool(found(code, "TL402")) is reported


BASE_TRAINER = """
class BaseTrainer:
    def __init__(self, epochs):
        self.epochs = epochs

    def _valid_epoch(self, epoch):
        raise NotImplementedError

    def train(self):
        for epoch in range(self.epochs):
            self._train_epoch(epoch)
            log = self._valid_epoch(epoch)
"""
TRAINER = """
import torch
from base_trainer import BaseTrainer


class {name}:
    def _train_epoch(self, epoch):
        for x, y in self.loader:
            loss = self.criterion(self.model(x.cuda()), y.cuda())
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()

    def _valid_epoch(self, epoch):
        with torch.no_grad():
            for x, y in self.valid_loader:
                x, y = x.to("cuda"), y.to("cuda")
                loss = self.criterion(self.model(x), y)
                self.total += loss.item()
                self.writer.add_image("input", x.cpu())
"""


@pytest.mark.parametrize(
    "name, reported",
    [
        ("Trainer(BaseTrainer)", [("trainer.py", 19), ("trainer.py", 20)]),
        # Not a subclass: the base class's `self._valid_epoch(...)` never runs this method.
        ("Trainer", []),
        ("Trainer(Logger)", []),
    ],
)
def test_a_subclass_method_the_base_class_epoch_loop_calls_runs_every_epoch(tmp_path, monkeypatch, name, reported):
    """`BaseTrainer.train()` loops over epochs calling `self._valid_epoch(epoch)`, which the
    subclass in another module defines: its loop over the validation loader runs per batch."""
    files = {"base_trainer.py": BASE_TRAINER, "trainer.py": TRAINER.format(name=name)}
    assert project(tmp_path, monkeypatch, files, "TL101") == reported


SYNTHESIS = """
from scipy.io.wavfile import write

def main(mel_files, vocoder):
    vocoder.cuda().eval()
    for path in mel_files:
        mel = torch.autograd.Variable(torch.load(path).cuda())
        with torch.no_grad():
            audio = vocoder.infer(mel){extra}
        audio = audio.squeeze().cpu().numpy()
        write(path + ".wav", 22050, audio.astype("int16"))

if __name__ == "__main__":
    main(args.files, torch.load(args.checkpoint)["model"])
"""


@pytest.mark.parametrize(
    "extra, reported",
    [
        ("", []),
        # A loop that computes gradients is training: its host copies are per-step costs.
        ("\n        torch.autograd.grad(audio.sum(), mel)", [15]),
    ],
)
def test_audio_written_to_a_file_once_per_input_must_reach_the_host(extra, reported):
    """Wrapping the input in `torch.autograd.Variable` builds a value and does not train: the
    loop synthesises one file per input, and its audio must reach the host to be written."""
    assert found(SYNTHESIS.format(extra=extra), "TL101") == reported


BUILDER = """
import torch.nn as nn

def make_layers(cfg, batch_norm=False):
    layers = []
    in_channels = 3
    for v in cfg:
        conv2d = nn.Conv2d(in_channels, v, kernel_size=3, padding=1)
        if batch_norm:
            layers += [conv2d, nn.BatchNorm2d(v), nn.ReLU()]
        else:
            layers += [conv2d, nn.ReLU()]
        in_channels = v
    return nn.Sequential(*layers)

{callers}
"""


@pytest.mark.parametrize(
    "callers, reported",
    [
        ("small = make_layers([64, 128], batch_norm=True)\nlarge = make_layers([64, 128, 256], True)", [8]),
        # One caller takes the branch without the norm: the bias is needed there.
        ("small = make_layers([64, 128], batch_norm=True)\nplain = make_layers([64, 128])", []),
        ("plain = make_layers([64, 128], batch_norm=False)", []),
        # The flag is not a literal: either branch may run.
        ("small = make_layers([64, 128], batch_norm=args.bn)", []),
        # Nobody in the project calls the builder: an importer may take either branch.
        ("", []),
    ],
)
def test_a_builder_branch_every_caller_takes_keeps_its_cancelled_bias(tmp_path, monkeypatch, callers, reported):
    """`make_layers(cfg, batch_norm=True)` in every call: the `else:` list never runs, and the
    conv's bias is always cancelled by the BatchNorm (reported without a fix: a caller outside
    the project may still take the other branch)."""
    files = {"model.py": BUILDER.format(callers=callers)}
    assert [line for _, line in project(tmp_path, monkeypatch, files, "TL301")] == reported
