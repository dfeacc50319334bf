"""The project index: imports between project files, function summaries, call sites,
dependencies, and cached runs that agree with uncached ones after any edit."""

from __future__ import annotations

import json
import os

import libcst as cst
import pytest
from click.testing import CliRunner
from conftest import write

from torchlint.cli import main
from torchlint.engine.context import FileContext, Options
from torchlint.engine.walker import walk
from torchlint.semantics import project
from torchlint.semantics.project import ABSENT, callers_of, project_function, project_modules, recording


def context(path: str) -> FileContext:
    text = open(path).read()
    ctx = FileContext(cst.parse_module(text), text, path, Options())
    walk(ctx, [])
    return ctx


def function(ctx: FileContext, expression: str):
    return project_function(ctx, cst.parse_expression(expression))


def relative(paths, root) -> set:
    return {os.path.relpath(path, root) for path in paths}


def test_imports_resolve_relative_packages_and_source_roots(tmp_path):
    write(tmp_path, "pyproject.toml", "")
    write(tmp_path, "src/lib/__init__.py", "from .core import run\n")
    write(tmp_path, "src/lib/core.py", "import torch\n")
    write(tmp_path, "app/__init__.py", "")
    write(tmp_path, "app/helpers/__init__.py", "")
    write(tmp_path, "app/helpers/io.py", "")
    write(tmp_path, "app/conditional.py", "")
    script = write(
        tmp_path,
        "app/train.py",
        """
        import lib
        from .helpers import io
        from . import (
            conditional,
        )
        import os, numpy as np
        try:
            from missing_pkg import thing
        except ImportError:
            thing = None
        """,
    )
    found = relative(project_modules(script, open(script).read()), tmp_path)
    assert found == {
        "src/lib/__init__.py", "src/lib/core.py", "app/helpers/__init__.py", "app/helpers/io.py", "app/conditional.py",
    }


def test_function_summaries(tmp_path):
    utils = write(
        tmp_path,
        "utils.py",
        """
        import torch
        from torch import inference_mode

        def smart_inference_mode(torch_1_9=True):
            def decorate(fn):
                return (torch.inference_mode if torch_1_9 else torch.no_grad)()(fn)
            return decorate

        class Frozen(torch.no_grad):
            pass

        class Evaluator:
            def run(self, dataset, model):
                dataset.epoch = 3
                model.zero_grad()
                loss = model(1)
                loss.backward()
                return model.weight.grad

        @inference_mode()
        def predict(model, x):
            with torch.autocast("cuda"):
                return model(x)

        def plain(x):
            return x
        """,
    )
    facts = project.module_facts(utils).functions
    assert facts["smart_inference_mode"].wraps_grad_off and not facts["smart_inference_mode"].grad_off
    assert facts["Frozen"].wraps_grad_off
    run = facts["Evaluator.run"]
    assert run.calls_backward and run.reads_grad and run.mutated_parameters == {"dataset", "model"}
    assert facts["predict"].grad_off and facts["predict"].uses_autocast and facts["predict"].wraps_grad_off
    assert not any((facts["plain"].wraps_grad_off, facts["plain"].calls_backward, facts["plain"].mutated_parameters))


def test_project_function_follows_imports_and_reexports(tmp_path):
    write(tmp_path, "setup.py", "")
    write(tmp_path, "utils/__init__.py", "from .torch_utils import smart_inference_mode\n")
    write(
        tmp_path,
        "utils/torch_utils.py",
        "import torch\ndef smart_inference_mode():\n    return torch.no_grad()\ndef other():\n    pass\n",
    )
    script = write(
        tmp_path,
        "val.py",
        """
        import torch
        import utils.torch_utils as tu
        from utils import smart_inference_mode
        from utils import torch_utils
        from utils.torch_utils import other as renamed
        def local_helper():
            return torch.inference_mode()
        """,
    )
    ctx = context(script)
    for name in ("smart_inference_mode", "tu.smart_inference_mode", "torch_utils.smart_inference_mode", "local_helper"):
        found = function(ctx, name)
        assert found is not None and found.wraps_grad_off, name
    assert not function(ctx, "renamed").wraps_grad_off
    for name in ("torch.no_grad", "missing", "tu.missing", "print"):
        assert function(ctx, name) is None, name


def test_project_function_passes_over_imports_of_other_packages_only(tmp_path):
    """An import of a module no project file is (`apex.helpers`, `torch`) is passed over
    without hiding a later import of the same name from the project, or a relative import."""
    write(tmp_path, "setup.py", "")
    write(tmp_path, "helpers.py", "def read_back(x):\n    return x.cuda().sum().item()\n")
    write(tmp_path, "pkg/__init__.py", "")
    write(tmp_path, "pkg/sibling.py", "def total(x):\n    return x.sum().item()\n")
    script = write(
        tmp_path,
        "pkg/train.py",
        """
        import torch
        try:
            from apex import helpers
        except ImportError:
            import helpers
        from . import sibling
        import torch.nn as sibling_nn
        """,
    )
    ctx = context(script)
    assert function(ctx, "helpers.read_back").reads_back_device_value
    assert function(ctx, "sibling.total").returns_read_back
    for name in ("torch.cat", "sibling_nn.Linear", "helpers.missing"):
        assert function(ctx, name) is None, name


def test_callers_of_reports_guards_across_modules(tmp_path):
    write(tmp_path, ".git/HEAD", "")
    utils = write(tmp_path, "pkg/utils.py", "def log_metrics(x):\n    pass\ndef helper():\n    log_metrics(1)\n")
    write(tmp_path, "pkg/__init__.py", "")
    write(
        tmp_path,
        "train.py",
        """
        from pkg.utils import log_metrics
        from pkg import utils
        def train(loader):
            for step, x in enumerate(loader):
                if step % log_every == 0:
                    log_metrics(x)
                else:
                    utils.log_metrics(x)
            try:
                pass
            except ValueError:
                log_metrics(0)
        """,
    )
    write(tmp_path, "other.py", "from elsewhere import log_metrics\nlog_metrics(2)\ndef log_metrics2():\n    pass\n")
    sites = sorted(callers_of(utils, "log_metrics"), key=lambda site: (site.path, site.line))
    summary = [(os.path.relpath(s.path, tmp_path), s.line, s.caller, s.guards, s.in_loop, s.in_handler) for s in sites]
    assert summary == [
        ("pkg/utils.py", 4, "helper", (), False, False),
        ("train.py", 7, "train", ("step % log_every == 0",), True, False),
        ("train.py", 9, "train", ("not (step % log_every == 0)",), True, False),
        ("train.py", 13, "train", (), False, True),
    ]


def test_guard_text_is_the_test_source_across_lines_and_non_ascii_text():
    """Guards keep the source of the `if` test: a multi-line test, text after non-ASCII
    characters (columns are byte offsets), lines ended by `\\r\\n` after a form feed."""
    text = "def f(s, n):\n    if 'é' in s and step % n == 0:\n        g()\n    if (a and\n            b):\n        h()\n\x0cx = 1\r\nif y: k()\n"
    calls = project._module_facts(text, "m.py").calls
    assert [calls[name][0].guards for name in ("g", "h", "k")] == [
        ("'é' in s and step % n == 0",),
        ("a and\n            b",),
        ("y",),
    ]


def test_recording_notes_modules_read_and_absent_candidates(tmp_path):
    write(tmp_path, "pyproject.toml", "")
    write(tmp_path, "helpers.py", "import torch\n")
    script = write(tmp_path, "train.py", "import helpers\nimport not_here\n")
    with recording() as consulted:
        project_modules(script, open(script).read())
    states = consulted.states
    assert states[str(tmp_path / "helpers.py")][0] == project.digest(b"import torch\n")
    assert states[str(tmp_path / "not_here.py")][0] == ABSENT
    with recording() as nothing:
        pass
    assert nothing.states == {}


# ---------------------------------------------------------------------------------------------
# Cached and uncached runs agree after edits to imported modules

TRAIN = """
import torch
import torch.nn as nn
from setup_utils import configure
from utils import smart_inference_mode

model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.Flatten(), nn.Linear(8, 2)).cuda()

@smart_inference_mode()
def evaluate(x):
    model.eval()
    return model(x)

for x, y in train_loader:
    loss = model(x.cuda()).sum()
    loss.backward()
    optimizer.step()
"""
UTILS_GRAD_OFF = "import torch\ndef smart_inference_mode():\n    return torch.no_grad()\n"
# A trainer module that never names CUDA: its program (an entry script importing it) decides.
TRAINER_MODULE = "import torch\ndef train_one_epoch(model, data_loader, optimizer):\n    for x, y in data_loader:\n        model(x).sum().backward()\n        optimizer.step()\n"


def check(*args: str):
    result = CliRunner().invoke(main, ["check", "--output-format", "json", "--select", "TL402,TL601,TL603,TL604,TL605", *args])
    assert result.exit_code in (0, 1), result.output
    return sorted((d["path"], d["code"], d["line"]) for d in json.loads(result.stdout))


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "pyproject.toml", "")
    write(tmp_path, "train.py", TRAIN)
    write(tmp_path, "setup_utils.py", "import torch\ndef configure():\n    pass\n")
    write(tmp_path, "utils.py", UTILS_GRAD_OFF)
    write(tmp_path, "engine.py", TRAINER_MODULE)
    return tmp_path


EDITS = [
    ("setup_utils.py", "import torch\ntorch.backends.cudnn.benchmark = True\ndef configure():\n    pass\n"),
    ("setup_utils.py", "import torch\n# torch.backends.cudnn.benchmark = True\ndef configure():\n    pass\n"),
    ("setup_utils.py", "import torch\nfrom amp_helpers import scaler\ndef configure():\n    pass\n"),
    ("amp_helpers.py", "import torch\nscaler = torch.autocast('cuda')\n"),  # a module that was missing
    ("amp_helpers.py", "import torch\ntorch.set_float32_matmul_precision('high')\n"),
    ("amp_helpers.py", "import torch.nn as nn\nencoder = nn.LSTM(8, 8)\n"),  # a recurrent model: no TL605
    ("utils.py", "def smart_inference_mode():\n    return lambda fn: fn\n"),
    ("utils.py", UTILS_GRAD_OFF),
    ("setup_utils.py", None),  # deleted
    ("utils/__init__.py", "from .impl import smart_inference_mode\n"),  # a package next to the module
    ("utils.py", None),
    ("utils/impl.py", UTILS_GRAD_OFF.replace("no_grad", "enable_grad")),
    ("main.py", "from engine import train_one_epoch\ndevice = 'cuda'\n"),  # the engine now runs on CUDA
    ("main.py", "import gymnasium\nfrom engine import train_one_epoch\ndevice = 'cuda'\n"),  # an RL program
    ("main.py", None),
]


def test_cached_and_uncached_runs_agree_after_edits_to_project_files(tree):
    seen_last = check("--no-cache")
    seen = {tuple(seen_last)}
    assert check() == check("--no-cache")
    for relative_path, text in EDITS:
        path = tree / relative_path
        if text is None:
            path.unlink()
        else:
            write(tree, relative_path, text)
        uncached = check("--no-cache")
        assert check() == uncached, (relative_path, text)
        assert check() == uncached  # the entry stored by the run above is valid too
        if relative_path == "main.py":  # the entry script decides whether the engine's loop gets advice
            advised = any(path.endswith("engine.py") for path, _, _ in uncached)
            assert advised == (text is not None and "gymnasium" not in text), text
        if text is not None and "LSTM" in text:  # an imported module makes the model recurrent
            assert [code for _, code, _ in seen_last if code == "TL605"] and "TL605" not in [code for _, code, _ in uncached]
        seen.add(tuple(uncached))
        seen_last = uncached
    assert len(seen) >= 4  # the edits changed what is reported


def test_callers_of_in_a_loose_directory_depends_on_the_whole_listing(tmp_path):
    utils = write(tmp_path, "scripts/utils.py", "def log_metrics(x):\n    pass\n")
    write(tmp_path, "scripts/train.py", "import utils\nfor step in range(9):\n    utils.log_metrics(step)\n")
    write(tmp_path, "elsewhere.py", "from scripts.utils import log_metrics\nlog_metrics(1)\n")  # outside the project
    project.clear()
    with recording() as consulted:
        [site] = callers_of(utils, "log_metrics")
    assert (os.path.basename(site.path), site.line, site.in_loop) == ("train.py", 3, True)
    root = str(tmp_path / "scripts")
    stamp = consulted.states[root][0]
    assert stamp.startswith(project.TREE) and project.tree_stamp(root) == stamp
    write(tmp_path, "scripts/eval.py", "import utils\nutils.log_metrics(0)\n")
    project.clear()
    assert project.tree_stamp(root) != stamp and len(callers_of(utils, "log_metrics")) == 2


def test_tree_stamp_is_taken_once_until_paths_are_forgotten(tmp_path):
    """The stamp stats every file of the project: taken once per run or server analysis, and
    again after `forget_paths` (a fix wrote a file, an editor changed one)."""
    module = write(tmp_path, "train.py", "x = 1\n")
    write(tmp_path, "setup.py", "")
    project.clear()
    root = str(tmp_path)
    stamp = project.tree_stamp(root)
    os.utime(module, ns=(1, 1))
    assert project.tree_stamp(root) == stamp
    project.forget_paths()
    assert project.tree_stamp(root) != stamp


def test_project_uses_follows_the_modules_that_import_the_file(tmp_path):
    write(tmp_path, "pyproject.toml", "")
    layers = write(tmp_path, "pkg/models/layers.py", "import torch.nn as nn\n")
    write(tmp_path, "pkg/models/__init__.py", "from .layers import nn\n")
    write(tmp_path, "pkg/train.py", "from pkg.models import nn\nfrom pkg import trainer\n")
    write(tmp_path, "pkg/trainer.py", "import torch\ndef step(model, x):\n    with torch.autocast('cuda'):\n        return model(x)\n")
    write(tmp_path, "pkg/__init__.py", "")
    alone = write(tmp_path, "tools/alone.py", "import torch\n")
    project.clear()
    with recording() as dependencies:
        assert project.project_uses(context(layers), project.AUTOCAST)
    assert any(state.startswith(project.TREE) for state, _, _ in dependencies.states.values())
    assert not project.project_uses(context(alone), project.AUTOCAST)
    assert not project.project_uses(context(layers), project.COMPILE)


def test_features_channels_last_spatial_convolution_and_compile_options():
    found = project.features
    assert project.CHANNELS_LAST in found("x = x.to(memory_format=torch.channels_last)\n")
    assert project.CHANNELS_LAST in found("parser.add_argument('--channels-last')\n")
    assert project.CHANNELS_LAST not in found("# x = x.to(memory_format=torch.channels_last)\n")
    assert project.SPATIAL_CONVOLUTION in found("conv = nn.Conv3d(1, 2, 3)\n")
    assert project.SPATIAL_CONVOLUTION in found("import torchvision as tv\nnet = tv.models.resnet18()\n")
    assert found("conv = nn.Conv1d(1, 2, 3)\n") == {project.CONVOLUTION}
    for text in ("m = torch.compile(m)\n", "m.compile()\n", "run(compile=True)\n", "if cfg.compile:\n    pass\n"):
        assert project.COMPILE in found(text), text
    for text in ("import re\nr = re.compile(r'x')\n", "code = compile(src, 'f', 'exec')\n", "ok = compile == 1\n"):
        assert project.COMPILE not in found(text), text


ADVICE = """
import torch
from models import Net
model = Net().cuda()
for x, y in train_loader:
    with torch.autocast("cuda"):
        loss = model(x.cuda()).sum()
    loss.backward()
    optimizer.step()
"""
NET = "import torch.nn as nn\nclass Net(nn.Module):\n    conv = nn.Conv2d(3, 8, 3)\n"


def test_cached_runs_drop_advice_when_an_imported_module_makes_the_choice(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "pyproject.toml", "")
    write(tmp_path, "train.py", ADVICE)
    write(tmp_path, "models.py", NET)

    def advice(*args: str):
        result = CliRunner().invoke(main, ["check", "--output-format", "json", "--select", "TL303,TL605", *args])
        assert result.exit_code in (0, 1), result.output
        return sorted(d["code"] for d in json.loads(result.stdout))

    assert advice() == advice("--no-cache") == ["TL303", "TL605"]
    assert advice() == ["TL303", "TL605"]  # from the cache
    write(tmp_path, "models.py", NET + "    def prepare(self):\n        return self.to(memory_format=torch.channels_last)\n")
    assert advice() == advice("--no-cache") == ["TL605"]
    write(tmp_path, "models.py", NET + "def build():\n    return torch.compile(Net())\n")
    assert advice() == advice("--no-cache") == ["TL303"]


UTILS = """
import torch
def dump(outputs):
    for out in outputs:
        print(out.cuda().item())
"""
CALLER = """
from utils import dump
for step, (x, y) in enumerate(loader):
    if step % 100 == 0:
        dump(outputs)
    try:
        step_once()
    except RuntimeError:
        dump(outputs)
"""


def test_a_helper_called_only_under_guards_in_other_modules_is_rare(tmp_path, monkeypatch):
    """Every call of `dump` in the project sits under an interval test or in an `except`
    handler, so its loop is not a per-step cost; one unguarded call makes it count again."""
    write(tmp_path, ".git/HEAD", "")
    write(tmp_path, "utils.py", UTILS)
    write(tmp_path, "train.py", CALLER)
    monkeypatch.chdir(tmp_path)

    def found() -> list:
        result = CliRunner().invoke(main, ["check", "--preview", "--select", "TL101", "--no-cache", "--output-format", "json", "utils.py"])
        return [item["line"] for item in json.loads(result.stdout)]

    assert found() == []
    write(tmp_path, "other.py", "from utils import dump\nfor batch in loader:\n    dump(batch)\n")
    assert found() == [5]


ENGINE = """
import torch

def evaluate(model, loader, device):
    for images, labels in loader:
        output = model(images.to(device))
        acc = (output.argmax(1) == labels.to(device)).float().mean().item()
"""


@pytest.mark.stable_only
def test_a_function_another_module_calls_every_epoch_runs_per_epoch(tmp_path, monkeypatch):
    """`evaluate()` is defined in the engine and called from the training script's epoch loop:
    its batch loop is the per-epoch validation, which the stable TL101 reports. Called once
    after training, or only in a loop that does not name epochs, it stays of unknown
    frequency (preview only); every few epochs (`epoch % 5 == 0`) is still per-epoch work."""
    write(tmp_path, ".git/HEAD", "")
    write(tmp_path, "engine.py", ENGINE)
    monkeypatch.chdir(tmp_path)

    def found() -> list:
        result = CliRunner().invoke(main, ["check", "--select", "TL101", "--no-cache", "--output-format", "json", "engine.py"])
        return [item["line"] for item in json.loads(result.stdout)]

    once = "from engine import evaluate\nfor epoch in range(10):\n    train_one_epoch(model)\nevaluate(model, val_loader, 'cuda')\n"
    write(tmp_path, "main.py", once)
    assert found() == []
    write(tmp_path, "main.py", "from engine import evaluate\nfor epoch in range(10):\n    if args.debug:\n        evaluate(model, val_loader, 'cuda')\n")
    assert found() == []  # only under a debugging switch: rare
    write(tmp_path, "main.py", "from engine import evaluate\nfor epoch in range(10):\n    if epoch % 5 == 0:\n        evaluate(model, val_loader, 'cuda')\n")
    assert found() == [7]  # every few epochs: per-epoch work
    write(tmp_path, "main.py", "from engine import evaluate\nfor epoch in range(10):\n    train_one_epoch(model)\n    evaluate(model, val_loader, 'cuda')\n")
    assert found() == [7]


def test_call_sites_note_loops_over_epochs():
    text = "for epoch in range(args.epochs):\n    f()\n    for x in loader:\n        g()\nfor i in range(n_epochs):\n    h()\nwhile True:\n    k()\nfor x in loader:\n    m()\n"
    calls = project._module_facts(text, "m.py").calls
    assert {name: sites[0].in_epoch_loop for name, sites in calls.items() if name in "fghkm"} == {
        "f": True,
        "g": True,
        "h": True,
        "k": False,
        "m": False,
    }


@pytest.mark.stable_only
def test_roles_are_read_within_the_project_not_from_the_directories_above_it(tmp_path, monkeypatch):
    """A checkout under `~/benchmarks/` or `/srv/demo/` is not benchmark or demo code: the role
    of a file is read from its path inside its project, however the path is given."""
    root = tmp_path / "benchmarks" / "demo"
    write(root, ".git/HEAD", "")
    code = "import torch\nmodel = Net().cuda()\nfor x, y in train_loader:\n    loss = model(x.cuda()).sum()\n    loss.backward()\n    optimizer.step()\n    print(loss.item())\n"
    write(root, "train.py", code)
    write(root, "tests/train.py", code)
    monkeypatch.chdir(tmp_path)

    def found(path: str) -> list:
        result = CliRunner().invoke(main, ["check", "--select", "TL101,TL605", "--no-cache", "--output-format", "json", path])
        return sorted((os.path.relpath(item["path"], root) if os.path.isabs(item["path"]) else item["path"], item["code"]) for item in json.loads(result.stdout))

    expected = [("train.py", "TL101"), ("train.py", "TL605")]
    assert found(str(root)) == expected  # an absolute path
    assert [code for _, code in found("benchmarks/demo")] == ["TL101", "TL605"]  # a relative one
    assert project.role_path(str(root / "tests" / "train.py")) == os.path.join("tests", "train.py")


def test_a_module_nested_too_deeply_is_left_out_of_the_index(tmp_path):
    """Every Python, 3.10 included (whose parser accepts any depth), indexes the other
    modules and gives up on this one rather than recursing through it."""
    write(tmp_path, "pyproject.toml", "")
    utils = write(tmp_path, "utils.py", "def log(x):\n    pass\n")
    write(tmp_path, "train.py", "from utils import log\nlog(1)\n")
    write(tmp_path, "deep.py", "from utils import log\nlog(0 + " + " + ".join(["1"] * 30000) + ")\n")
    assert [os.path.basename(site.path) for site in callers_of(utils, "log")] == ["train.py"]


def test_paths_are_asked_once_per_run_and_anew_after_forget_paths(tmp_path):
    write(tmp_path, "pyproject.toml", "")
    script = write(tmp_path, "train.py", "import helpers\n")
    project.clear()
    assert project_modules(script, open(script).read()) == []
    write(tmp_path, "helpers.py", "import torch\n")
    assert project_modules(script, open(script).read()) == []  # the same run: the path was absent
    project.forget_paths()
    assert relative(project_modules(script, open(script).read()), tmp_path) == {"helpers.py"}


def test_comments_are_removed_from_the_lines_the_tokenizer_reads_even_after_a_form_feed():
    text = "x = 1\x0cy = 2  # torch.backends.cudnn.benchmark = True\nz = 'cuda'  # channels_last\n"
    assert project.code_text(text) == "x = 1\x0cy = 2  \nz = 'cuda'  \n"
    assert not project.file_enables(text, project.CUDNN_BENCHMARK)


@pytest.mark.parametrize(
    "text, code",
    [
        ('s = "# not a comment"  # a comment\n', 's = "# not a comment"  \n'),
        ("s = '''\n# inside a docstring\n'''  # after it\n", "s = '''\n# inside a docstring\n'''  \n"),
        ('s = "a \\" # still a string"  # gone\n', 's = "a \\" # still a string"  \n'),
        ("x = 1\r\n# whole line\r\ny = 2\r\n", "x = 1\r\n\r\ny = 2\r\n"),
    ],
)
def test_comments_are_told_from_strings(text, code):
    assert project.code_text(text) == code


@pytest.mark.parametrize("bind, trains", [
    ("step = partial(train_step, scale=2)", True),
    ("step = functools.partial(train_step, scale=2)", True),
    ("step = partial(log_step, scale=2)", False),
])
def test_a_function_bound_by_partial_is_called_through_it(bind, trains):
    text = (
        "import functools\nfrom functools import partial\n\n"
        "def train_step(batch, model, scale):\n    (model(batch) * scale).sum().backward()\n\n"
        "def log_step(batch, model, scale):\n    print(batch)\n\n"
        f"def train(loader, model):\n    {bind}\n    for batch in loader:\n        step(batch, model)\n"
    )
    assert project._module_facts(text, "m.py").functions["train"].trains is trains
