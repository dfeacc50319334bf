"""Review of session 15's round: regressions the new semantics brought, each pinned by a
positive and a hard negative."""

from __future__ import annotations

import textwrap

import pytest

from conftest import lint, project_findings
from test_recall_round9_lead import EXPERIMENT as ROUND9_EXPERIMENT, MODELS as ROUND9_MODELS, PROFILED as ROUND9_PROFILED, TRAINER
from test_recall_round9_loaders import CHOSEN_CLASS, _lines, test_loader_options_in_a_built_dict as built_dict_findings

pytestmark = pytest.mark.stable_only

FRAMES = """
import torch


def train(self, env, model, optimizer, num_frames, device):
    {counter} = 0
    state = env.reset()
    while {counter} < num_frames:
        x = torch.as_tensor(state, device=device)
        loss = model(x).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        {counter} += 1
        if {test}:
            print("loss", loss.item())
        state = env.step(0)
"""


@pytest.mark.parametrize("counter", ["frame_idx", "sample_idx", "self.frame_idx"])
def test_every_nth_value_of_an_index_is_an_interval(counter: str) -> None:
    # `frame_idx % 1000 == 0` in an agent's frame loop logs every 1000 frames, whatever the
    # index's noun: `names_counter` leaves out indices of other things only for one value.
    assert lint(FRAMES.format(counter=counter, test=f"{counter} % 1000 == 0"), "TL101") == []


@pytest.mark.parametrize("test", ["frame_idx == 3", "frame_idx > 1000", "num_frames % 1000 == 0"])
def test_an_index_of_something_else_compared_once_or_a_non_counter_modulo_still_reports(test: str) -> None:
    assert [finding.line for finding in lint(FRAMES.format(counter="frame_idx", test=test), "TL101")] == [16]


# -- torch.profiler's profile takes its activities first, not a switch ---------------------------

PROFILED = ROUND9_PROFILED.replace("import torch\n", "import torch\n{imports}\n", 1)


@pytest.mark.parametrize(
    "imports, manager",
    [
        ("from torch.profiler import profile", "profile(acts)"),
        ("from torch.profiler import profile", "profile(acts, record_shapes=True)"),
        ("from torch import profiler", "profiler.profile(acts)"),
        ("import torch.profiler as profiler", "profiler.profile(acts)"),
        ("", "torch.profiler.profile(acts)"),
    ],
)
def test_activities_given_by_position_are_a_profiling_session(imports: str, manager: str) -> None:
    assert lint(PROFILED.format(imports=imports, manager=manager), "TL101") == []


@pytest.mark.parametrize(
    "imports, manager",
    [
        ("from torch.autograd.profiler import profile", "profile(acts, use_cuda=True)"),
        ("from torch.autograd import profiler", "profiler.profile(acts)"),
        ("import torch.autograd.profiler as profiler", "profiler.profile(acts)"),
        ("from torch.profiler import profile", "profile(acts, enabled=acts is None)"),
    ],
)
def test_the_autograd_profiler_switched_by_position_still_runs_its_body(imports: str, manager: str) -> None:
    found = lint(PROFILED.format(imports=imports, manager=manager), "TL101")
    assert [finding.line for finding in found] == [14]


# -- project_pins_loaders: another library's DataLoader counts ---------------------------------

LOADERS = """
from torch.utils.data import DataLoader
{imports}


def loaders(train_set, graphs, batch_size):
    images = DataLoader(train_set, batch_size=batch_size, pin_memory=True)
    graphs = {graph_loader}
    return images, graphs
"""


def _tl106(tmp_path, monkeypatch, imports: str, graph_loader: str) -> set:
    files = {"trainer.py": TRAINER, "data.py": LOADERS.format(imports=imports, graph_loader=graph_loader)}
    return {(name, line) for name, _, line in project_findings(tmp_path, monkeypatch, files, "TL106")}


@pytest.mark.parametrize(
    "imports, graph_loader",
    [
        ("from torch_geometric.loader import DataLoader as GraphLoader", "GraphLoader(graphs, batch_size=batch_size)"),
        ("import torch_geometric", "torch_geometric.loader.DataLoader(graphs, batch_size=batch_size)"),
        ("from dgl.dataloading import GraphDataLoader", "GraphDataLoader(graphs, pin_memory=False)"),
    ],
)
def test_an_unpinned_loader_of_another_library_means_the_project_does_not_pin_all(tmp_path, monkeypatch, imports: str, graph_loader: str) -> None:
    assert _tl106(tmp_path, monkeypatch, imports, graph_loader) == set()


@pytest.mark.parametrize(
    "imports, graph_loader",
    [
        ("from torch_geometric.loader import DataLoader as GraphLoader", "GraphLoader(graphs, batch_size=batch_size, pin_memory=True)"),
        ("from mylib import make_graphs", "make_graphs(graphs)"),  # not a loader class
    ],
)
def test_pinned_loaders_of_another_library_still_count_as_pinned(tmp_path, monkeypatch, imports: str, graph_loader: str) -> None:
    assert _tl106(tmp_path, monkeypatch, imports, graph_loader) == {("trainer.py", 14)}


# -- TL106: a batch changed in place through its items ------------------------------------------

ITEMS = """
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda")
model = torch.nn.Linear(4, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(dataset, batch_size=8, pin_memory=True)
for batch in loader:
    moved = [x.to(device) for x in batch]
    {change}
    loss = model(moved[0]).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
"""


@pytest.mark.parametrize(
    "change",
    [
        "for x in batch: x.zero_()",
        "_ = [t.div_(255) for t in batch]",
        "for i, t in enumerate(batch): t[0] = 0",
        "for t in batch: flat = t.view(-1); flat.mul_(2)",
    ],
)
def test_items_changed_in_place_after_the_move_keep_the_copy_blocking(change: str) -> None:
    assert lint(ITEMS.format(change=change), "TL106") == []


@pytest.mark.parametrize(
    "change",
    [
        "for x in batch: print(x.sum())",
        "for y in others: y.zero_()",
        "_ = [t.div_(255) for t in others]",
        "fill = lambda: [t.zero_() for t in batch]",  # defined, never run
    ],
)
def test_items_read_or_other_tensors_changed_still_report(change: str) -> None:
    found = lint(ITEMS.format(change=change), "TL106")
    assert [(finding.line, finding.fix is not None) for finding in found] == [(10, True)]


# -- keyword dicts: a function of the file that changes the dict through its scope -----------

_CLOSURE = ("def tune(workers):", "    train_kwargs['num_workers'] = workers")
_BUILT = ('train_kwargs = {"batch_size": 64}',)
_SAME = ("test_kwargs = train_kwargs",)


@pytest.mark.parametrize(
    "kwargs",
    [
        _lines(*_CLOSURE, *_BUILT, "tune(4)", *_SAME),
        _lines(*_CLOSURE, *_BUILT, "x = tune(4)", *_SAME),
        _lines(*_CLOSURE, *_BUILT, "if tune(4): pass", *_SAME),
        _lines(*_CLOSURE, *_BUILT, "train_kwargs.setdefault('shuffle', tune(4))", *_SAME),
    ],
)
def test_a_dict_a_called_function_of_the_file_may_change_is_unknown(tmp_path, monkeypatch, kwargs: str) -> None:
    assert built_dict_findings(tmp_path, monkeypatch, kwargs, set()) is None


@pytest.mark.parametrize(
    "kwargs",
    [
        _lines("def tune(workers):", "    print(workers)", *_BUILT, "tune(4)", *_SAME),  # the function does not mention the dict
    ],
)
# A function of the file that changes the dict by its enclosing or global name makes it unknown
# even when no call of it is seen (`keyword_dicts._changed_by_other_functions`).
def test_a_dict_no_called_function_mentions_is_still_read(tmp_path, monkeypatch, kwargs: str) -> None:
    expected = {(code, loader) for code in ("TL201", "TL202") for loader in ("train", "test")}
    assert built_dict_findings(tmp_path, monkeypatch, kwargs, expected) is None


GLOBAL = """
import torch
from torch.utils.data import DataLoader


def tune(workers):
    {body}


class Options:
    def tune_more(self, workers):
        {body}


train_kwargs = {{"batch_size": 64}}
{call}
loader = DataLoader(ds, **train_kwargs)
for epoch in range(10):
    for x, y in loader:
        model(x.cuda()).sum().backward()
        optimizer.step()
"""


@pytest.mark.parametrize(
    "body, call, expected",
    [
        ("train_kwargs['num_workers'] = workers", "tune(4)", set()),
        ("train_kwargs['num_workers'] = workers", "Options().tune_more(4)", set()),
        ("print(workers)", "tune(4)", {"TL201", "TL202"}),
        ("print(workers)", "Options().tune_more(4)", {"TL201", "TL202"}),
    ],
)
def test_a_module_dict_changed_by_a_called_function(tmp_path, monkeypatch, body: str, call: str, expected: set) -> None:
    text = GLOBAL.format(body=body, call=call)
    line = textwrap.dedent(text).splitlines().index("loader = DataLoader(ds, **train_kwargs)") + 1
    assert project_findings(tmp_path, monkeypatch, {"train.py": text}, "TL201,TL202") == {("train.py", code, line) for code in expected}


# -- a key of the data is no setting ------------------------------------------------------------

FLOW = """
import torch


def train(model, loader, optimizer, device, flow, config, args):
    for x in loader:
        x = x.to(device)
        out = flow(x)
        loss = -out["log_prob"].mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if {test}:
            det = out["log_det"].sum().item()
"""


@pytest.mark.parametrize("test", ['out["log_det"] is not None', 'out["plot"]', 'batch_stats["debug_mask"].any()'])
def test_a_key_of_the_data_is_not_a_logging_switch(test: str) -> None:
    assert [finding.line for finding in lint(FLOW.format(test=test), "TL101")] == [14]


@pytest.mark.parametrize("test", ['config["log_images"]', 'self.cfg["train"]["debug"]', 'args["verbose"] > 1', 'os.environ["DEBUG"]'])
def test_a_key_of_the_configuration_is_a_switch(test: str) -> None:
    assert lint(FLOW.format(test=test), "TL101") == []


# -- a loader class chosen by a choice that names itself or another choice ----------------------


@pytest.mark.parametrize(
    "choice, expected",
    [
        # the choice keeps the value an earlier assignment gives: followed, no recursion
        ("cls = DataLoader\n        cls = IterableDataLoader if self.streaming else cls", {("data.py", "TL202", 24), ("data.py", "TL203", 24)}),
        ("cls = IterableDataLoader if self.streaming else DataLoader", {("data.py", "TL202", 23), ("data.py", "TL203", 23)}),
    ],
)
def test_a_class_choice_that_keeps_its_earlier_value(tmp_path, monkeypatch, choice: str, expected: set) -> None:
    files = {"data.py": CHOSEN_CLASS.format(other="Batches", hook="train_dataloader", parameter="", choice=choice)}
    assert project_findings(tmp_path, monkeypatch, files, "TL202,TL203") == expected


CHOICES = """
from torch.utils.data import DataLoader


class FastLoader(DataLoader):
    pass


def make(ds, fast):
    {choice}
    return Loader(ds, batch_size=32)
"""


@pytest.mark.parametrize(
    "choice",
    [
        "Loader = FastLoader if fast else Loader",
        "Loader = DataLoader; Loader = FastLoader if fast else Loader",
        "Other = Loader if fast else DataLoader; Loader = Other if fast else FastLoader",
    ],
)
def test_a_class_choice_that_names_itself_or_a_cycle_is_analysed(choice: str) -> None:
    """A recursion without end loses every finding of the file (the `.item()` of a training
    loop next to the builder here)."""
    code = CHOICES.format(choice=choice) + ROUND9_PROFILED.format(manager="contextlib.nullcontext()")
    assert "TL101" in {finding.code for finding in lint(code)}


# -- a method of an object of unknown class: not when the caller's module has its own ----------

LOCAL_CLASS = """

class Scorer:
    def {method}(self, recons, x):
        return ((recons - x) ** 2).mean()
"""


@pytest.mark.parametrize("method, expected", [("compute_loss", set()), ("score_batch", {("models.py", 8)})])
def test_a_method_the_callers_module_defines_is_its_own(tmp_path, monkeypatch, method: str, expected: set) -> None:
    files = {
        "models.py": ROUND9_MODELS.format(name="compute_loss"),
        "experiment.py": ROUND9_EXPERIMENT.format(name="compute_loss") + LOCAL_CLASS.format(method=method),
    }
    assert {(file, line) for file, _, line in project_findings(tmp_path, monkeypatch, files, "TL102")} == expected
