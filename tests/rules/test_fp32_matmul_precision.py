import textwrap

from conftest import lines, lint

from torchlint.engine.context import Options
from torchlint.engine.linter import lint_text
from torchlint.engine.rule import all_rules

RULE = "TL604"

TRAIN = """
import torch
model = torch.nn.Linear(8, 2).to("cuda")
def step(x, y):
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
for epoch in range(10):
    for x, y in train_loader:
        step(x.cuda(), y.cuda())
"""


def test_reported_once_at_the_training_loop():
    [finding] = lint(TRAIN + "for x, y in train_loader:\n    step(x, y)\n", [RULE])
    assert finding.line == 9 and finding.fix is None and "set_float32_matmul_precision" in finding.message


def test_silent_when_precision_is_chosen():
    for line in (
        "torch.set_float32_matmul_precision('high')",
        "torch.set_float32_matmul_precision(args.precision)",
        "torch.backends.cuda.matmul.allow_tf32 = True",
        "torch.backends.cuda.matmul.fp32_precision = 'tf32'",
    ):
        assert lines(line + "\n" + TRAIN, RULE) == [], line


def test_look_alikes_do_not_silence():
    for line in (
        "torch.backends.cudnn.allow_tf32 = True",  # convolutions only, and already the default
        "# torch.set_float32_matmul_precision('high')",
        "if torch.backends.cuda.matmul.allow_tf32 == False: pass",
        "from torch import autocast",  # matmuls outside autocast regions still run in full float32
    ):
        assert lines(line + "\n" + TRAIN, RULE) == [10], line


def test_cpu_or_no_training_loop_is_silent():
    assert lines(TRAIN.replace('"cuda"', '"cpu"').replace(".cuda()", ""), RULE) == []
    assert lines(TRAIN.replace("loss.backward()", "pass"), RULE) == []


def test_only_with_matmul_heavy_work():
    for model in (
        "torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.BatchNorm2d(8))",
        "torch.nn.LSTM(8, 16)",
        "torch.nn.GRU(8, 16, num_layers=2)",
        "torchvision.models.resnet50()",
        "Net()",
        "torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.Flatten(), torch.nn.Linear(8, 2))",
    ):
        assert lines(TRAIN.replace("torch.nn.Linear(8, 2)", model), RULE) == [], model
    for model in (
        "torch.nn.Sequential(torch.nn.LSTM(8, 16), torch.nn.Linear(16, 30000))",
        "torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), SelfAttention(8))\nw = torch.bmm(q, k)",
        "torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(64, 8), 2)",
        "Net()\nscores = torch.einsum('bhd,bkd->bhk', q, k)",
    ):
        assert lines(TRAIN.replace("torch.nn.Linear(8, 2)", model), RULE) == [9 + model.count("\n")], model


def test_matmul_work_in_an_imported_project_module(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "__init__.py").write_text("from .head import Head\n")
    (tmp_path / "models" / "head.py").write_text("import torch.nn as nn\nclass Head(nn.Module):\n    pass\n")
    script = tmp_path / "train.py"
    text = "from models import Head\n" + textwrap.dedent(TRAIN).replace("torch.nn.Linear(8, 2)", "Head()")
    script.write_text(text)
    rules = [rule for rule in all_rules() if rule.code == RULE]
    assert not list(lint_text(text, str(script), rules, Options()).findings)
    (tmp_path / "models" / "head.py").write_text("import torch.nn as nn\nclass Head(nn.Module):\n    fc = nn.Linear(8, 2)\n")
    assert [f.code for f in lint_text(text, str(script), rules, Options()).findings] == [RULE]
