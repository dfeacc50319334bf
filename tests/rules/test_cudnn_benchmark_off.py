from conftest import lines, lint

RULE = "TL603"

TRAIN = """
import torch
import torch.nn as nn
model = nn.Sequential(nn.Conv2d(3, 16, 3), nn.ReLU()).cuda()
for x, y in train_loader:
    loss = criterion(model(x.cuda()), y.cuda())
    loss.backward()
    optimizer.step()
for x, y in train_loader:
    loss = criterion(model(x.cuda()), y.cuda())
    loss.backward()
    optimizer.step()
"""


def test_reported_once_at_the_first_training_loop():
    [finding] = lint(TRAIN, [RULE])
    assert finding.line == 5 and finding.fix is None and "cudnn.benchmark = True" in finding.message


def test_convolutions_however_spelled():
    for model in (
        "torchvision.models.resnet50().cuda()",
        "Net().cuda()\nw = F.conv2d(x, weight)",
        "nn.ConvTranspose3d(3, 3, 3).cuda()",
        "tv.models.resnet50().cuda()\nimport torchvision as tv",
        "vision.models.resnet50().cuda()\nimport torchvision as vision",
    ):
        code = TRAIN.replace("nn.Sequential(nn.Conv2d(3, 16, 3), nn.ReLU()).cuda()", model)
        assert lines(code, RULE) == [5 + model.count("\n")], model


def test_torchvision_alias_without_models_is_not_convolution():
    code = TRAIN.replace("nn.Sequential(nn.Conv2d(3, 16, 3), nn.ReLU()).cuda()", "Net(tv.transforms.ToTensor()).cuda()")
    assert lines("import torchvision as tv\n" + code, RULE) == []


def test_silent_when_set_or_determinism_chosen():
    for line in (
        "torch.backends.cudnn.benchmark = True",
        "torch.backends.cudnn.benchmark = args.cudnn_benchmark",
        "from torch.backends import cudnn\ncudnn.benchmark = True",
        "import torch.backends.cudnn as cb\ncb.benchmark = True",
        "torch.backends.cudnn.deterministic = True",
        "torch.use_deterministic_algorithms(True)",
    ):
        assert lines(line + "\n" + TRAIN, RULE) == [], line


def test_look_alikes_do_not_silence():
    for line in ("# torch.backends.cudnn.benchmark = True", "benchmark = True", "print(torch.backends.cudnn.benchmark == True)"):
        assert lines(line + "\n" + TRAIN, RULE) == [6], line


def test_no_convolution_no_cuda_or_no_training_loop():
    assert lines(TRAIN.replace("nn.Conv2d(3, 16, 3)", "nn.Linear(3, 16)"), RULE) == []
    assert lines(TRAIN.replace(".cuda()", ""), RULE) == []
    assert lines(TRAIN.replace("optimizer.step()", "pass"), RULE) == []
