"""Decisions that rested on names now rest on shared semantics (issue 25, review of session
15): what a file's loaders pin, which class a call's receiver holds, where a configuration
comes from, which functions change a keyword dict. Each has a positive and hard negatives."""

from __future__ import annotations

import json
import textwrap

import pytest

from conftest import lint, project_findings
from test_recall_round9_lead import TRAINER
from test_review15 import FLOW as REVIEW15_FLOW, GLOBAL as REVIEW15_GLOBAL

pytestmark = pytest.mark.stable_only


# -- TL106: the checked file's own loaders count as the project's do ---------------------------

PINNED = """
from torch.utils.data import DataLoader


def loaders(train_set, batch_size):
    return DataLoader(train_set, batch_size=batch_size, pin_memory=True)
"""


def _notebook(*cells: str) -> str:
    return json.dumps(
        {
            "cells": [{"cell_type": "code", "metadata": {}, "source": textwrap.dedent(cell), "outputs": [], "execution_count": None} for cell in cells],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


@pytest.mark.parametrize(
    "imports, loader, expected",
    [
        # the notebook builds another library's loader without pinning: its batches may be the
        # ones the trainer draws (as a project module's would be)
        ("from torch_geometric.loader import DataLoader as GraphLoader", "GraphLoader(graphs, batch_size=8)", set()),
        ("import torch_geometric", "torch_geometric.loader.DataLoader(graphs, batch_size=8)", set()),
        ("from torch.utils.data import DataLoader", "DataLoader(graphs, batch_size=8)", set()),
        # hard negatives: pinned, or not a loader class
        ("from torch_geometric.loader import DataLoader as GraphLoader", "GraphLoader(graphs, batch_size=8, pin_memory=True)", {14}),
        ("from mylib import make_graphs", "make_graphs(graphs)", {14}),
    ],
)
def test_a_notebooks_own_loaders_of_any_library_count(tmp_path, monkeypatch, imports: str, loader: str, expected: set) -> None:
    notebook = _notebook(TRAINER, f"{imports}\ngraph_loader = {loader}\n")
    found = project_findings(tmp_path, monkeypatch, {"data.py": PINNED, "train.ipynb": notebook}, "TL106")
    assert {line for name, _, line in found if name == "train.ipynb"} == expected


# -- calls of this file's methods: the receiver built by another module's callable -------------

SAMPLED = """
import torch
{imports}

class VAE(torch.nn.Module):
    def sample(self, n, device):
        z = torch.randn(n, 8)
        return z.to(device)

    def loss_function(self, x):
        noise = {receiver}.sample(4, x.device)
        return x.mean() + noise.mean()

{binding}
def fit(loader, epochs):
    vae = VAE().to("cuda")
    optimizer = torch.optim.Adam(vae.parameters())
    for epoch in range(epochs):
        for images, _ in loader:
            optimizer.zero_grad()
            vae.loss_function(images.to("cuda")).backward()
            optimizer.step()
"""


@pytest.mark.parametrize(
    "imports, receiver, binding, expected",
    [
        # made by an imported callable, whatever the case of its name: not this file's `sample`
        ("from noise import make_noise", "make_noise(8)", "", []),
        ("import noise as nz", "nz.gaussian(8)", "", []),
        ("from .priors import Prior", "Prior(8)", "", []),
        # hard negatives: a callee the file binds itself builds this file's class, or is it
        ("", "Sampler()", "Sampler = VAE", [7]),
        ("", "VAE()", "", [7]),
        ("", "make_vae()", "def make_vae():\n    return VAE()", [7]),
        ("from noise import make_noise", "self", "", [7]),
    ],
)
def test_a_receiver_built_by_another_modules_callable_does_not_run_this_files_method(
    imports: str, receiver: str, binding: str, expected: list
) -> None:
    code = SAMPLED.format(imports=imports, receiver=receiver, binding=binding)
    assert [finding.line for finding in lint(code, "TL102")] == expected


# -- keyword dicts: the functions that may change a dict, read from the module's bindings ------

KEYWORDS = """
import torch
from torch.utils.data import DataLoader
{helpers}

def main(model, optimizer, ds):
    train_kwargs = {{"batch_size": 64}}
{run}
    loader = DataLoader(ds, **train_kwargs)
    for epoch in range(10):
        for x, y in loader:
            loss = model(x.cuda()).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
"""


def _dict_findings(tmp_path, monkeypatch, helpers: str, run: str) -> set:
    text = KEYWORDS.format(helpers=textwrap.dedent(helpers), run=textwrap.indent(textwrap.dedent(run), "    "))
    line = textwrap.dedent(text).splitlines().index("    loader = DataLoader(ds, **train_kwargs)") + 1
    found = project_findings(tmp_path, monkeypatch, {"train.py": text}, "TL201,TL202")
    assert all(at == line for _, _, at in found)
    return {code for _, code, _ in found}


@pytest.mark.parametrize(
    "helpers, run, expected",
    [
        # a called function that only reads the dict, or changes another function's dict of the
        # same name (its own or a global one): the dict is read
        ("def show():\n    pass\n", "def report():\n    print(train_kwargs['batch_size'], train_kwargs.get('shuffle'))\nreport()\n", {"TL201", "TL202"}),
        ("def other():\n    train_kwargs['num_workers'] = 2\n", "other()\n", {"TL201", "TL202"}),
        ("def other():\n    global train_kwargs\n    train_kwargs = {'num_workers': 2}\n", "other()\n", {"TL201", "TL202"}),
        # hard negatives: a nested function that changes it, rebinds it (`nonlocal`), hands it on
        # or returns it, called in view or not
        ("", "def tune(n):\n    train_kwargs['num_workers'] = n\n", set()),
        ("", "def reset():\n    nonlocal_kwargs = 1\n    train_kwargs.update(num_workers=2)\n", set()),
        ("", "def setup():\n    configure(train_kwargs)\n", set()),
        ("", "def options():\n    return train_kwargs\noptions()['num_workers'] = 4\n", set()),
        ("", "fill = lambda n: train_kwargs.__setitem__('num_workers', n)\n", set()),
        ("", "def tune(n):\n    kwargs = train_kwargs\n    kwargs['num_workers'] = n\n", set()),
    ],
)
def test_the_functions_that_may_change_a_dict_are_read_from_the_bindings(
    tmp_path, monkeypatch, helpers: str, run: str, expected: set
) -> None:
    assert _dict_findings(tmp_path, monkeypatch, helpers, run) == expected


# The module-level dict and loop of test_review15's GLOBAL, after a helper of this test's.
GLOBAL_DICT = "import torch\nfrom torch.utils.data import DataLoader\n\n{helper}" + REVIEW15_GLOBAL[REVIEW15_GLOBAL.index("\ntrain_kwargs = {{") :].replace("{call}\n", "")


@pytest.mark.parametrize(
    "helper, expected",
    [
        # a global statement makes a function's assignment rebind the module's dict
        ("def reset():\n    global train_kwargs\n    train_kwargs = {'num_workers': 8}\n", set()),
        ("def reset():\n    global train_kwargs\n    train_kwargs |= {'num_workers': 8}\n", set()),
        # hard negatives: without it, the function's assignment binds a local of its own; a
        # method's `self.train_kwargs` is an attribute
        ("def reset():\n    train_kwargs = {'num_workers': 8}\n    return train_kwargs\n", {"TL201", "TL202"}),
        ("class Options:\n    def reset(self):\n        self.train_kwargs = {}\n        self.train_kwargs['num_workers'] = 8\n", {"TL201", "TL202"}),
    ],
)
def test_a_global_statement_lets_a_function_rebind_a_module_dict(tmp_path, monkeypatch, helper: str, expected: set) -> None:
    found = project_findings(tmp_path, monkeypatch, {"train.py": GLOBAL_DICT.format(helper=helper)}, "TL201,TL202")
    assert {code for _, code, _ in found} == expected


# -- a configuration lookup: where the holder comes from decides, its name only when unknown ---

# test_review15's FLOW with the imports of configurations, a header line and a binding before the loop.
LOOKUP = "\n".join(["import json", "import yaml", "import hydra", "from omegaconf import DictConfig, OmegaConf"]) + REVIEW15_FLOW.replace(
    "\n\n\ndef train(model, loader, optimizer, device, flow, config, args):\n",
    "\n{header}\ndef train(model, loader, optimizer, device, flow, {parameter}):\n{binding}\n",
)


def _lookup_lines(header: str = "", parameter: str = "params", binding: str = "", test: str = 'params["log_images"]') -> list:
    code = LOOKUP.format(header=header, parameter=parameter, binding=textwrap.indent(binding, "    ") or "    pass", test=test)
    det = textwrap.dedent(code).splitlines().index('            det = out["log_det"].sum().item()') + 1
    return ["det" if finding.line == det else finding.line for finding in lint(code, "TL101")]


@pytest.mark.parametrize(
    "header, parameter, binding",
    [
        # a loaded file, a parsed namespace, OmegaConf, a part of one of them: any name
        ("", "path", 'params = yaml.safe_load(open(path))'),
        ("", "path", 'with open(path) as f:\n    params = json.load(f)'),
        ("", "path", 'params = OmegaConf.load(path)["train"]'),
        ("", "parser", 'params = vars(parser.parse_args())\nparams = parser.parse_args()'),
        ("", "path", 'loaded = yaml.safe_load(open(path))\nparams = loaded["logging"]'),
        ("", "path", 'conf = OmegaConf.load(path)\nparams = conf.logging'),
        ("", "path", 'params = OmegaConf.load(path).logging'),
        # a parameter annotated as a configuration, a Hydra entry point's parameter
        ("", "params: DictConfig", ""),
        ("import argparse", "params: argparse.Namespace", ""),
        ("@hydra.main(config_path='conf')", "params", ""),
        # a module-level configuration read by the function
        ("params = yaml.safe_load(open('config.yaml'))", "path", ""),
    ],
)
def test_a_lookup_in_a_configuration_by_its_origin_is_a_switch(header: str, parameter: str, binding: str) -> None:
    assert _lookup_lines(header, parameter, binding) == []


@pytest.mark.parametrize(
    "header, parameter, binding, test",
    [
        # origin unknown: the name decides (a parameter without annotation, `params` no setting word)
        ("", "params", "", 'params["log_images"]'),
        # one binding of another origin: unknown, and the name is no setting word
        ("", "path", 'params = yaml.safe_load(open(path))\nparams = flow.stats(path)', 'params["log_images"]'),
        # a library's other type or a scalar, whatever the name
        ("", "config: torch.Tensor", "", 'config["log_images"]'),
        ("", "args: str", "", 'args["debug"]'),
        # a key of the data, or a configuration key that is no switch
        ("", "path", 'params = yaml.safe_load(open(path))', 'out["log_det"]'),
        ("", "path", 'params = yaml.safe_load(open(path))', 'params["lr"] > 0'),
    ],
)
def test_a_lookup_in_something_else_is_no_switch(header: str, parameter: str, binding: str, test: str) -> None:
    assert _lookup_lines(header, parameter, binding, test) == ["det"]


@pytest.mark.parametrize("parameter, test", [("cfg", 'cfg["log_images"]'), ("args", 'args["train"]["debug"]'), ("hparams: dict", 'hparams["verbose"]')])
def test_an_unknown_origin_falls_back_to_the_holders_name(parameter: str, test: str) -> None:
    assert _lookup_lines(parameter=parameter, test=test) == []


def test_lightning_hparams_are_a_configuration() -> None:
    code = LOOKUP.format(header="", parameter="path", binding="    pass", test='self.hparams["log_images"]')
    assert [finding.line for finding in lint(code, "TL101")] == []


# -- a method called on an object of a class the caller does not write -------------------------

from test_recall_round9_lead import MODELS as METHODS  # noqa: E402

HOLDER = """
import torch
import timm
import pytorch_lightning as pl
from models import REGISTRY
from models import build as build_model


class Experiment(pl.LightningModule):
    def __init__(self, params, model):
        {binding}

    def training_step(self, batch, batch_idx):
        x, _ = batch
        return self.model.{name}(self.model(x), x)
"""

STEPPING = """
import torch
import torch.nn as nn


class Agent(nn.Module):
    def {name}(self, recons, x):
        target = torch.ones(x.size(0), 1).to(x.device)
        loss = ((recons - x) ** 2).mean() + target.mean()
        loss.backward()
        self.optimizer.step()
        return loss
"""


def _held(tmp_path, monkeypatch, binding: str, name: str, models: str = METHODS) -> set:
    files = {"models.py": models.format(name=name) + "\nREGISTRY = {}\n\ndef build(p):\n    return REGISTRY[p](p)\n", "experiment.py": HOLDER.format(binding=binding, name=name)}
    return {(file, line) for file, _, line in project_findings(tmp_path, monkeypatch, files, "TL102")}


@pytest.mark.parametrize(
    "binding",
    [
        # built by a project module's registry or factory: any of its classes, whatever the method's name
        'self.model = REGISTRY[params["name"]](**params)',
        "self.model = build_model(params)",
        "self.model = build_model(params) if params else REGISTRY['vae'](params)",
    ],
)
@pytest.mark.parametrize("name", ["loss", "update", "loss_function"])
def test_an_object_a_project_module_builds_runs_its_methods(tmp_path, monkeypatch, binding: str, name: str) -> None:
    assert _held(tmp_path, monkeypatch, binding, name) == {("models.py", 8)}


@pytest.mark.parametrize(
    "binding",
    [
        # hard negatives: a library's object, also when the project builds it elsewhere too
        "self.model = timm.create_model(params)",
        "self.model = torch.hub.load('repo', 'model')",
        # the origin is not shown (a parameter): only a method that takes a step is followed
        "self.model = model",
    ],
)
@pytest.mark.parametrize("name", ["loss", "update", "loss_function", "compute_loss"])
def test_an_object_of_a_library_or_of_unknown_origin_does_not_run_a_project_method(tmp_path, monkeypatch, binding: str, name: str) -> None:
    assert _held(tmp_path, monkeypatch, binding, name) == set()


@pytest.mark.parametrize("name", ["update", "learn_from"])
def test_an_object_of_unknown_origin_runs_a_project_method_that_takes_a_step(tmp_path, monkeypatch, name: str) -> None:
    assert _held(tmp_path, monkeypatch, "self.model = model", name, STEPPING) == {("models.py", 8)}


TRAIN_SCRIPT = """
import torch
{imports}


def validate(model, batch):
    return model.{name}(batch, batch)


def train(hparams, loader):
{binding}
    optimizer = torch.optim.Adam(model.parameters())
    for batch in loader:
        loss = model(batch).mean() + model.{name}(batch, batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
"""


@pytest.mark.parametrize(
    "imports, binding, expected",
    [
        # the calling function's own binding decides, not a parameter of the same name elsewhere;
        # an unpacked result of a project function, a library's wrapper beside it; a factory
        # handed a project module
        ("from models import VAE", "    model = VAE().cuda()", {("models.py", 8)}),
        ("from models import VAE\nfrom apex import amp", "    model = VAE().cuda()\n    model, optimizer = amp.initialize(model, 1)", {("models.py", 8)}),
        ("from models import VAE\nfrom checkpoints import restore", "    model, step = restore(VAE())", {("models.py", 8)}),
        ("import models as zoo", "    model = hparams.build('vae', zoo)", {("models.py", 8)}),
        # hard negatives: a library's model, or one whose origin the function does not show
        ("import timm", "    model = timm.create_model('vae')", set()),
        ("import timm", "    model = hparams.build('vae', timm)", set()),
        ("", "    model = hparams.model", set()),
    ],
)
@pytest.mark.parametrize("name", ["loss", "loss_function"])
def test_the_calling_functions_binding_of_the_receiver_decides(tmp_path, monkeypatch, imports: str, binding: str, expected: set, name: str) -> None:
    files = {"models.py": METHODS.format(name=name), "checkpoints.py": "def restore(model):\n    return model, 0\n", "train.py": TRAIN_SCRIPT.format(imports=imports, binding=binding, name=name)}
    assert {(file, line) for file, _, line in project_findings(tmp_path, monkeypatch, files, "TL102")} == expected
