import textwrap

from conftest import lines, lint, write

from torchlint.engine.context import Options
from torchlint.engine.linter import lint_text
from torchlint.engine.rule import all_rules
from torchlint.semantics import project

RULE = "TL605"

TRAIN = """
import torch
import torch.nn as nn
model = Net().cuda()
for x, y in train_loader:
    loss = criterion(model(x.cuda()), y.cuda())
    loss.backward()
    optimizer.step()
for x, y in train_loader:
    loss = criterion(model(x.cuda()), y.cuda())
    loss.backward()
    optimizer.step()
"""


def only_rule():
    return [rule for rule in all_rules() if rule.code == RULE]


def test_reported_once_at_the_first_training_loop():
    [finding] = lint(TRAIN, [RULE])
    assert finding.line == 5 and finding.fix is None and "torch.compile(model)" in finding.message


def test_silent_when_compilation_is_chosen_in_any_form():
    for line in (
        "model = torch.compile(model)",
        "compiled = torch.compile",
        "from torch import compile as tc",
        "model = torch._dynamo.optimize('inductor')(model)",
        "model.compile()",
        "model.compile(mode='max-autotune')",
        "trainer = make_trainer(compile=False)",
        "if cfg.compile:\n    pass",
        "parser.add_argument('--compile', action='store_true')",
        "@dataclass\nclass Config:\n    compile: bool = False",
        "use_torch_compile = args.torch_compile",
    ):
        assert lines(line + "\n" + TRAIN, RULE) == [], line


def test_look_alikes_do_not_silence():
    for line in (
        "# model = torch.compile(model)",
        "import re\npattern = re.compile(r'\\d+')",
        "pattern = regex.compile('a', flags=0)",
        "same = compile == 3",
        "code = compile(source, 'x.py', 'exec')",
    ):
        assert lines(line + "\n" + TRAIN, RULE) == [5 + line.count("\n") + 1], line


def test_old_torch_cpu_inference_variable_shapes_test_and_demo_code_are_silent():
    assert [f.line for f in lint(TRAIN, [RULE], torch_version=(1, 13))] == []
    assert [f.line for f in lint(TRAIN, [RULE], torch_version=(2, 0))] == [5]
    assert lines(TRAIN.replace(".cuda()", ""), RULE) == []
    inference = "import torch\nmodel = Net().cuda()\nfor x in loader:\n    with torch.no_grad():\n        preds = model(x.cuda())\n"
    assert lines(inference, RULE) == []
    padded = "from torch.nn.utils.rnn import pad_sequence\n" + textwrap.dedent(TRAIN)
    assert lines(padded, RULE) == []
    assert lines("import pytest\n" + TRAIN, RULE) == []
    for path in ("tests/test_train.py", "demo.py", "convert_checkpoint.py"):
        assert not list(lint_text(textwrap.dedent(TRAIN), path, only_rule(), Options()).findings), path


def test_lightning_trainer_scripts_have_no_loop_of_their_own():
    code = "import torch\nimport lightning as L\nmodel = LitNet()\ntrainer = L.Trainer(accelerator='cuda')\n" \
        "trainer.fit(model, train_loader)\n"
    assert lines(code, RULE) == []


def test_compiled_by_a_helper_in_another_module(tmp_path):
    write(tmp_path, "pyproject.toml", "")
    write(tmp_path, "build.py", "import torch\ndef build_model():\n    return Net().cuda()\n")
    script = write(tmp_path, "train.py", "from build import build_model\n" + textwrap.dedent(TRAIN).replace("Net().cuda()", "build_model()"))
    text = open(script).read()
    assert [f.line for f in lint_text(text, script, only_rule(), Options()).findings] == [6]
    write(tmp_path, "build.py", "import torch\ndef build_model():\n    return torch.compile(Net().cuda())\n")
    assert not list(lint_text(text, script, only_rule(), Options()).findings)
    write(tmp_path, "build.py", "import torch\ndef build_model():\n    return Net().cuda()\n")
    write(tmp_path, "run.py", "import torch\nimport train\ntrain.model = torch.compile(train.model)\n")
    project.clear()  # a new run lists the project's modules again
    assert not list(lint_text(text, script, only_rule(), Options()).findings)


def test_silent_for_models_that_cudnn_recurrent_layers_dominate():
    recurrent = TRAIN.replace("model = Net().cuda()", "model = nn.LSTM(128, 256, num_layers=2).cuda()\nhead = nn.Linear(256, 1)")
    assert lines(recurrent, RULE) == []
    cells = TRAIN.replace("model = Net().cuda()", "model = nn.LSTMCell(128, 256).cuda()")
    assert lines(cells, RULE) == [5]  # a cell runs as ordinary matmuls, step by step
    attention = recurrent.replace("head = nn.Linear(256, 1)", "head = nn.MultiheadAttention(256, 8)")
    assert lines(attention, RULE) == [6]
