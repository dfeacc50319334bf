from conftest import lines, lint

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
