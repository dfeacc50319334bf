import textwrap

from conftest import lines, lint, write, preview_options

from torchlint.engine.linter import lint_text
from torchlint.engine.rule import all_rules
from torchlint.semantics import project

RULE = "TL303"

TRAIN = """
import torch
import torch.nn as nn
model = nn.Sequential(nn.Conv2d(3, 16, 3), nn.ReLU(), nn.Flatten(), nn.LazyLinear(10)).cuda()
for x, y in train_loader:
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = criterion(model(x.cuda()), y.cuda())
    loss.backward()
    optimizer.step()
for x, y in train_loader:
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = criterion(model(x.cuda()), y.cuda())
    loss.backward()
    optimizer.step()
"""
MODEL = "nn.Sequential(nn.Conv2d(3, 16, 3), nn.ReLU(), nn.Flatten(), nn.LazyLinear(10)).cuda()"


def test_reported_once_at_the_first_training_loop():
    [finding] = lint(TRAIN, [RULE])
    assert finding.line == 5 and finding.fix is None and "memory_format=torch.channels_last" in finding.message


def test_spatial_convolutions_however_spelled_and_low_precision_however_chosen():
    for model in (
        "torchvision.models.resnet50().cuda()",
        "nn.Conv3d(3, 8, 3).cuda()",
        "nn.ConvTranspose2d(3, 8, 3).cuda()",
        "Net().cuda()\ny = F.conv2d(x, weight)",
        "tv.models.resnet50().cuda()\nimport torchvision as tv",
    ):
        assert lines(TRAIN.replace(MODEL, model), RULE) == [5 + model.count("\n")], model
    half = TRAIN.replace('with torch.autocast("cuda", dtype=torch.bfloat16):\n        ', "if True:\n        ")
    assert lines(half, RULE) == []
    assert lines(half.replace(".cuda()\n", ".cuda().half()\n", 1), RULE) == [5]


def test_silent_when_channels_last_is_chosen_anywhere_in_the_file():
    for line in (
        "model = model.to(memory_format=torch.channels_last)",
        "x = x.contiguous(memory_format=torch.channels_last_3d)",
        "parser.add_argument('--channels-last', action='store_true')",
        "if args.channels_last:\n    pass",
    ):
        assert lines(line + "\n" + TRAIN, RULE) == [], line
    assert lines("# model = model.to(memory_format=torch.channels_last)\n" + TRAIN, RULE) == [6]


def test_float32_cpu_sequence_and_matmul_heavy_models_are_silent():
    fp32 = TRAIN.replace('with torch.autocast("cuda", dtype=torch.bfloat16):\n        ', "if True:\n        ")
    assert lines(fp32, RULE) == []
    assert lines(TRAIN.replace(".cuda()", "").replace('"cuda"', '"cpu"'), RULE) == []
    for model in (
        "nn.Conv1d(3, 16, 3).cuda()",
        "nn.Sequential(nn.Linear(3, 16), nn.ReLU()).cuda()",
        "VisionTransformer(patch=nn.Conv2d(3, 16, 16), attention=nn.MultiheadAttention(16, 2)).cuda()",
    ):
        assert lines(TRAIN.replace(MODEL, model), RULE) == [], model


def test_inference_test_and_demo_code_are_silent():
    inference = "import torch\nmodel = torchvision.models.resnet50().cuda()\nfor x in loader:\n" \
        "    with torch.autocast('cuda'):\n        preds = model(x.cuda())\n"
    assert lines(inference, RULE) == []
    assert lines("import pytest\n" + TRAIN, RULE) == []
    rules = [rule for rule in all_rules() if rule.code == RULE]
    for path in ("tests/test_train.py", "demo.py", "export_model.py"):
        assert not list(lint_text(textwrap.dedent(TRAIN), path, rules, preview_options()).findings), path


def test_channels_last_in_a_project_module_imported_or_importing(tmp_path):
    write(tmp_path, "pyproject.toml", "")
    write(tmp_path, "models.py", "import torch.nn as nn\nclass Net(nn.Module):\n    conv = nn.Conv2d(3, 8, 3)\n")
    script = write(tmp_path, "train.py", "from models import Net\n" + textwrap.dedent(TRAIN).replace(MODEL, "Net().cuda()"))
    text = open(script).read()
    rules = [rule for rule in all_rules() if rule.code == RULE]
    assert [f.line for f in lint_text(text, script, rules, preview_options()).findings] == [6]
    write(tmp_path, "models.py", "import torch.nn as nn\nclass Net(nn.Module):\n    conv = nn.Conv2d(3, 8, 3)\n"
          "    def prepare(self):\n        return self.to(memory_format=torch.channels_last)\n")
    assert not list(lint_text(text, script, rules, preview_options()).findings)
    write(tmp_path, "models.py", "import torch.nn as nn\nclass Net(nn.Module):\n    conv = nn.Conv2d(3, 8, 3)\n")
    write(tmp_path, "launch.py", "import torch\nimport train\ntrain.model.to(memory_format=torch.channels_last)\n")
    project.clear()  # a new run lists the project's modules again
    assert not list(lint_text(text, script, rules, preview_options()).findings)
