"""The ninth recall round of issue 25 (lead): what a one-step guard is. `if optimizer_idx == 0:`
in a Lightning `training_step` selects one optimizer of several (the framework runs the step
once per optimizer per batch), it does not pick one step of the run; nor does
`dataloader_idx` or `layer_index`. A position of the iterations themselves (`batch_idx`,
`step_index`, a bare `idx`) still guards one step."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from conftest import lint, project_findings
from torchlint.cli import main

pytestmark = pytest.mark.stable_only

STEP = """
import pytorch_lightning as pl

class GAN(pl.LightningModule):
    def training_step(self, batch, batch_idx, optimizer_idx, dataloader_idx=0, idx=0, step_index=0, layer_index=0):
        imgs, _ = batch
        loss = self.loss(self(imgs), imgs)
        if {test}:
            print(loss.item())
        return loss
"""


@pytest.mark.parametrize("test", ["optimizer_idx == 0", "dataloader_idx == 1", "layer_index == 0", "optimizer_idx == 1"])
def test_an_index_of_something_else_is_not_a_one_step_guard(test: str) -> None:
    assert [finding.line for finding in lint(STEP.format(test=test), "TL101")] == [9]


@pytest.mark.parametrize("test", ["batch_idx == 0", "idx == 0", "step_index == 0", "self.global_step == 0"])
def test_a_position_of_the_iterations_still_guards_one_step(test: str) -> None:
    assert lint(STEP.format(test=test), "TL101") == []


LOOP = """
import torch
import torch.nn as nn

device = torch.device("cuda")
model = nn.Linear(4, 1).to(device)
opt = torch.optim.Adam(model.parameters())
for step in range(1000):
    x = torch.randn(8, 4, device=device)
    b = x.size(0)
    host = [1.0, 2.0]
    {line}
    loss = (model(x) - value).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


@pytest.mark.parametrize(
    "line",
    [
        "value = torch.Tensor(b, 1).fill_(1.0).to(device)",
        "value = torch.Tensor(x.size(0), 1).cuda()",
        "value = torch.Tensor(x.size()).zero_().to(device)",
    ],
)
def test_the_default_dtype_constructor_given_a_size_is_a_host_allocation(line: str) -> None:
    found = lint(LOOP.format(line=line), "TL102")
    assert [(finding.line, finding.fix) for finding in found] == [(12, None)]  # no fix: fill by hand


@pytest.mark.parametrize(
    "line",
    [
        "value = torch.Tensor(host).to(device)",  # data: a device constructor copies it too
        "value = torch.Tensor([[1.0]]).to(device)",
        "value = torch.Tensor(b, 1).fill_(1.0)",  # never moved
        "value = torch.cuda.FloatTensor(b, 1).fill_(1.0)",
    ],
)
def test_the_default_dtype_constructor_of_data_or_on_the_host_is_silent(line: str) -> None:
    assert lint(LOOP.format(line=line), "TL102") == []


AGENT = """
import torch
import torch.nn.functional as F

class Agent:
    def __init__(self, critic, opt, use_tb):
        self.critic = critic.cuda()
        self.critic_opt = opt
        self.use_tb = use_tb

    def update_critic(self, obs, target, step):
        metrics = {{}}
        loss = F.mse_loss(self.critic(obs), target)
        {line}
        self.critic_opt.zero_grad(set_to_none=True)
        loss.backward()
        {step}
        return metrics

    def update(self, replay_iter, step):
        obs, target = next(replay_iter)
        return self.update_critic(obs.cuda(), target.cuda(), step)
"""


@pytest.mark.parametrize(
    "line, reported",
    [
        ('metrics["critic_loss"] = loss.item()', 14),
        ('if self.use_tb:\n            metrics["critic_loss"] = loss.item()', 15),  # a switch, not an interval
    ],
)
def test_a_method_that_takes_an_optimizer_step_runs_every_step_whoever_calls_it(line: str, reported: int) -> None:
    """The agent is built from a configuration elsewhere (`hydra.utils.instantiate`): no call
    site shows how often `update()` runs, its effects do."""
    found = lint(AGENT.format(line=line, step="self.critic_opt.step()"), "TL101")
    assert [finding.line for finding in found] == [reported]
    assert "every training step" in found[0].message


@pytest.mark.parametrize(
    "line, step",
    [
        ('metrics["critic_loss"] = loss.item()', "pass"),  # backward alone (gradients inspected): not a step
        ('if step % 1000 == 0:\n            metrics["critic_loss"] = loss.item()', "self.critic_opt.step()"),
        ('metrics["critic_loss"] = torch.tensor(1.0).item()', "self.critic_opt.step()"),  # host tensor
    ],
)
def test_a_step_function_stays_silent_without_a_step_an_interval_or_a_device_value(line: str, step: str) -> None:
    assert lint(AGENT.format(line=line, step=step), "TL101") == []


def test_a_step_function_called_once_by_its_own_file_runs_once() -> None:
    code = AGENT.format(line='metrics["critic_loss"] = loss.item()', step="self.critic_opt.step()") + """
agent = Agent(torch.nn.Linear(4, 1), None, False)
agent.update(iter([(torch.randn(2, 4), torch.randn(2, 1))]), 0)
"""
    assert lint(code, "TL101") == []


def test_a_step_function_in_test_code_is_silent() -> None:
    code = AGENT.format(line='metrics["critic_loss"] = loss.item()', step="self.critic_opt.step()")
    assert lint(code.replace("class Agent:", "class TestAgent:"), "TL101") == []


# -- TL106: batches of a loader the analysis cannot follow, in a project that pins every loader --

TRAINER = """
import torch
from tqdm import tqdm


class Trainer:
    def __init__(self, model, optimizer, train_loader, device):
        self.model, self.optimizer, self.device = model, optimizer, device
        self.train_loader = train_loader

    def train_one_epoch(self):
        loader = tqdm(self.train_loader)
        for batch_idx, batch in enumerate(loader):
            batch = [x.to(self.device) for x in batch]
            loss = self.model(*batch).mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
"""

LOADERS = """
import torch
from torch.utils.data import DataLoader


def loaders(train_set, val_set, batch_size):
    train = DataLoader(train_set, batch_size=batch_size, shuffle=True, pin_memory={train_pin})
    val = DataLoader(val_set, batch_size=batch_size, pin_memory={val_pin}{collate})
    return train, val
"""


def tl106(tmp_path, monkeypatch, train_pin: str = "True", val_pin: str = "True", collate: str = "", **extra: str) -> set:
    files = {"trainer.py": TRAINER, "data.py": LOADERS.format(train_pin=train_pin, val_pin=val_pin, collate=collate), **extra}
    return {(name, line) for name, code, line in project_findings(tmp_path, monkeypatch, files, "TL106")}


def test_a_loader_of_a_project_that_pins_every_loader_is_pinned(tmp_path, monkeypatch) -> None:
    assert tl106(tmp_path, monkeypatch) == {("trainer.py", 14)}


def test_a_cuda_availability_test_pins_where_cuda_runs(tmp_path, monkeypatch) -> None:
    assert tl106(tmp_path, monkeypatch, val_pin="torch.cuda.is_available()") == {("trainer.py", 14)}


@pytest.mark.parametrize("val_pin", ["False", "args.pin_memory"])
def test_a_project_with_one_unpinned_or_unknown_loader_says_nothing(tmp_path, monkeypatch, val_pin: str) -> None:
    assert tl106(tmp_path, monkeypatch, val_pin=val_pin) == set()


def test_loaders_of_test_code_do_not_count(tmp_path, monkeypatch) -> None:
    test = "from torch.utils.data import DataLoader\n\ndef test_loader():\n    DataLoader([1, 2])\n"
    assert tl106(tmp_path, monkeypatch, **{"test_data.py": test}) == {("trainer.py", 14)}


def test_a_project_without_loaders_says_nothing(tmp_path, monkeypatch) -> None:
    assert {(name, line) for name, _, line in project_findings(tmp_path, monkeypatch, {"trainer.py": TRAINER}, "TL106")} == set()


def test_a_pinned_loader_with_its_own_collation_still_counts(tmp_path, monkeypatch) -> None:
    assert tl106(tmp_path, monkeypatch, collate=", collate_fn=pad") == {("trainer.py", 14)}


def test_the_fix_for_a_loader_not_followed_is_unsafe(tmp_path, monkeypatch) -> None:
    """The batches may be objects of another module whose `.to()` has no `non_blocking`."""
    tl106(tmp_path, monkeypatch)
    CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", "TL106", "--fix", "."])
    assert "non_blocking" not in (tmp_path / "trainer.py").read_text()
    CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", "TL106", "--fix", "--unsafe-fixes", "."])
    assert "x.to(self.device, non_blocking=True) for x in batch" in (tmp_path / "trainer.py").read_text()


# -- a profiler switched by a setting does not make its body rare ---------------------------------

PROFILED = """
import torch

device = torch.device("cuda")
model = torch.nn.Linear(4, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
with {manager} as prof:
    for step in range(1000):
        loss = model(torch.randn(8, 4, device=device)).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total = loss.item()
"""


@pytest.mark.parametrize(
    "manager",
    [
        "torch.autograd.profiler.profile(args.enable_profiling, use_cuda=True, record_shapes=True)",
        "torch.autograd.profiler.profile(enabled=args.profile)",
        "torch.profiler.profile(activities=acts, enabled=profiling)",
    ],
)
def test_a_profiler_switched_by_a_setting_runs_its_body_as_usual(manager: str) -> None:
    assert [finding.line for finding in lint(PROFILED.format(manager=manager), "TL101")] == [13]


@pytest.mark.parametrize(
    "manager",
    [
        "torch.autograd.profiler.profile(use_cuda=True)",
        "torch.autograd.profiler.profile(True)",
        "torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA])",
        "torch.profiler.profile([torch.profiler.ProfilerActivity.CUDA], enabled=True)",
    ],
)
def test_a_profiling_session_is_measured_not_run(manager: str) -> None:
    assert lint(PROFILED.format(manager=manager), "TL101") == []


def test_a_file_that_builds_an_unpinned_loader_itself_says_nothing(tmp_path, monkeypatch) -> None:
    """A notebook or script next to the project's modules, whose own loaders do not pin."""
    own = TRAINER + "\nloader = torch.utils.data.DataLoader(data, batch_size=8)\n"
    files = {"trainer.py": own, "data.py": LOADERS.format(train_pin="True", val_pin="True", collate="")}
    assert project_findings(tmp_path, monkeypatch, files, "TL106") == set()


# -- a method called on an object of a class the caller does not show ----------------------------

MODELS = """
import torch
import torch.nn as nn


class VAE(nn.Module):
    def {name}(self, recons, x):
        target = torch.ones(x.size(0), 1).to(x.device)
        return ((recons - x) ** 2).mean() + target.mean()
"""

EXPERIMENT = """
import pytorch_lightning as pl
from models import REGISTRY


class Experiment(pl.LightningModule):
    def __init__(self, params):
        super().__init__()
        self.model = REGISTRY[params["name"]](**params)

    def training_step(self, batch, batch_idx):
        x, _ = batch
        return self.model.{name}(self.model(x), x)
"""


def dispatched(tmp_path, monkeypatch, name: str) -> set:
    files = {"models.py": MODELS.format(name=name), "experiment.py": EXPERIMENT.format(name=name)}
    return {(file, line) for file, _, line in project_findings(tmp_path, monkeypatch, files, "TL102")}


@pytest.mark.parametrize("name", ["loss_function", "compute_loss"])
def test_a_distinctive_method_of_an_object_of_unknown_class_is_the_project_method(tmp_path, monkeypatch, name: str) -> None:
    assert dispatched(tmp_path, monkeypatch, name) == {("models.py", 8)}


@pytest.mark.parametrize("name", ["loss", "update", "load_state_dict"])
def test_a_name_library_objects_share_is_followed_on_an_object_the_project_builds(tmp_path, monkeypatch, name: str) -> None:
    # what the receiver can hold decides, not the method's name (tests/rules/test_semantics_not_names.py)
    assert dispatched(tmp_path, monkeypatch, name) == {("models.py", 8)}



# -- a configuration lookup names a switch as an attribute does -----------------------------------


@pytest.mark.parametrize("test, reported", [
    ('config["enable_tensorboard"]', []),
    ("config['log_images'] and step > 0", []),
    ("args.debug", []),
    ('config["mode"] == "train"', [14]),  # not a logging switch
    ('config[mode_key]', [14]),
])
def test_a_switch_read_from_a_configuration_lookup(test: str, reported: list) -> None:
    code = PROFILED.format(manager="contextlib.nullcontext()").replace(
        "        total = loss.item()", f"        if {test}:\n            total = loss.item()"
    )
    assert [finding.line for finding in lint(code, "TL101")] == reported


def test_a_method_of_an_object_built_from_another_module_is_not_this_files() -> None:
    """`dist.Cauchy(...).sample(shape)` in a per-step loss is not the model's `sample()`."""
    code = """
import torch
import torch.distributions as dist

class VAE(torch.nn.Module):
    def sample(self, n, device):
        z = torch.randn(n, 8)
        return z.to(device)

    def loss_function(self, x):
        noise = dist.Cauchy(torch.tensor([0.0]), torch.tensor([1.0])).sample((4, 8))
        {other}
        return x.mean() + noise.mean()

model = VAE().cuda()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x in loader:
    loss = model.loss_function(x.cuda())
    opt.zero_grad()
    loss.backward()
    opt.step()
"""
    assert lint(code.format(other="pass"), "TL102") == []
    assert [finding.line for finding in lint(code.format(other="self.sample(4, x.device)"), "TL102")] == [7]


# -- an `__init__` runs as often as its class is built ------------------------------------------

MASK = """
import torch
import torch.nn as nn


class CausalMask:
    def __init__(self, b, n, device):
        self.mask = torch.ones(b, n, n).to(device).triu(1)


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        {setup}

    def forward(self, q):
        {built}
        return q
"""


def test_a_class_built_in_forward_runs_its_init_every_step() -> None:
    code = MASK.format(setup="pass", built="m = CausalMask(q.size(0), q.size(1), q.device)")
    assert [finding.line for finding in lint(code, "TL102")] == [8]


def test_a_class_built_once_in_setup_runs_its_init_once() -> None:
    code = MASK.format(setup="self.m = CausalMask(1, 8, 'cuda')", built="pass")
    assert lint(code, "TL102") == []


def test_a_class_another_module_builds_in_forward_runs_its_init_every_step(tmp_path, monkeypatch) -> None:
    masking = MASK.split("class Attention")[0]
    attention = "import torch.nn as nn\nfrom masking import CausalMask\n\n\nclass Attention" + MASK.split("class Attention")[1]
    files = {"masking.py": masking, "attention.py": attention.format(setup="pass", built="m = CausalMask(q.size(0), q.size(1), q.device)")}
    assert project_findings(tmp_path, monkeypatch, files, "TL102") == {("masking.py", "TL102", 8)}
    files["attention.py"] = attention.format(setup="self.m = CausalMask(1, 8, 'cuda')", built="pass")
    assert project_findings(tmp_path, monkeypatch, files, "TL102") == set()


HELPER_ATTENTION = """
import torch.nn as nn
from masking import CausalMask


class Attention(nn.Module):
    def __init__(self, mask_flag=True, debug=False):
        super().__init__()
        self.mask_flag, self.debug = mask_flag, debug

    def _update_context(self, q):
        if self.{flag}:
            m = CausalMask(q.size(0), q.size(1), q.device)
        return q

    def forward(self, q):
        return self._update_context(q)
"""


@pytest.mark.parametrize("flag, reported", [("mask_flag", {("masking.py", "TL102", 8)}), ("debug", set())])
def test_a_helper_method_of_forward_in_another_module_runs_every_step_unless_rare(tmp_path, monkeypatch, flag: str, reported: set) -> None:
    files = {"masking.py": MASK.split("class Attention")[0], "attention.py": HELPER_ATTENTION.format(flag=flag)}
    assert project_findings(tmp_path, monkeypatch, files, "TL102") == reported


def test_an_assert_in_a_step_function_is_reported() -> None:
    """An `assert` runs unless Python is started with `-O` (round 23), whichever path makes
    the function run every step."""
    line = 'assert (loss > 0).all().item(), "negative loss"'
    assert lint(AGENT.format(line=line, step="self.critic_opt.step()"), "TL101") != []


# -- a dataset fed by a method of the object that builds it ---------------------------------------

RL_MODULE = """
import torch
import pytorch_lightning as pl
from torch.utils.data import DataLoader, IterableDataset


class ExperienceSourceDataset(IterableDataset):
    def __init__(self, generate_batch):
        self.generate_batch = generate_batch

    def __iter__(self):
        return self.generate_batch()


class DQN(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.dataset = None

    def train_batch(self):
        for _ in range(1000):
            yield self.buffer.sample()

    def training_step(self, batch, batch_idx):
        return self.net(batch).sum()

    def train_dataloader(self):
        self.dataset = ExperienceSourceDataset({source})
        return DataLoader(dataset=self.dataset, batch_size=32)
"""


def test_a_dataset_fed_by_a_method_of_the_object_that_builds_it_needs_no_workers() -> None:
    assert lint(RL_MODULE.format(source="self.train_batch"), ["TL201", "TL202"]) == []


def test_a_dataset_fed_by_anything_else_still_counts() -> None:
    found = lint(RL_MODULE.format(source="load_episodes"), ["TL201", "TL202"])
    assert sorted(finding.code for finding in found) == ["TL201", "TL202"]
