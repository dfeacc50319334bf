import pytest

from conftest import lines, lint

RULE = "TL108"


def test_moves_of_known_modules_in_step_loops():
    code = """
    import torch
    import torch.nn as nn
    class Net(nn.Module):
        pass
    model = Net()
    head = nn.Linear(4, 2)
    dev = torch.device("cuda")
    for step, (x, y) in enumerate(loader):
        model.to(dev)
        head.cuda(0)
        model.to(device=device)
        head = head.to("cuda:1")
    while step < n:
        model.cuda()
        step += 1
    """
    assert lines(code, RULE) == [10, 11, 12, 13, 15]


def test_reported_span_and_message():
    [finding] = lint("import torch.nn as nn\nnet = nn.Linear(2, 2)\nfor x in loader:\n    net.to(device)\n", [RULE])
    assert (finding.line, finding.column, finding.end_column) == (4, 5, 19)
    assert "`net.to(...)`" in finding.message and "before the loop" in finding.message


def test_aliases_resolve():
    code = """
    from torch import nn as tnn
    from torch.nn import Sequential as Seq, Linear
    a = tnn.Conv2d(3, 8, 3)
    b = Seq(Linear(2, 2))
    for x in loader:
        a.cuda()
        b.cuda()
    """
    assert lines(code, RULE) == [7, 8]


def test_not_modules():
    code = """
    import torch
    import torch.nn as nn
    from mylib import nn as fake_nn
    t = torch.zeros(3)
    fake = fake_nn.Linear(2, 2)
    model = build_model()
    for x, y in loader:
        x = x.to(device)
        t.cuda()
        fake.cuda()
        model.cuda()
        self.model.to(device)
        nn.Linear(2, 2).cuda()
    """
    assert lines(code, RULE) == []


def test_dtype_and_host_moves_are_not_device_moves():
    code = """
    import torch
    import torch.nn as nn
    model = nn.Linear(4, 2)
    for x in loader:
        model.to(torch.float16)
        model.to(dtype=torch.bfloat16)
        model.to(other_tensor)
        model.to()
    """
    assert lines(code, RULE) == []


def test_offloading_loops_move_the_module_back():
    code = """
    import torch.nn as nn
    teacher = nn.Linear(4, 2)
    for x in loader:
        teacher.cuda()
        soft = teacher(x)
        teacher.to("cpu")
    for x in loader:
        teacher.to(device)
        soft = teacher(x)
        teacher.cpu()
    """
    assert lines(code, RULE) == []


def test_modules_built_in_the_loop_and_changing_devices():
    code = """
    import torch
    import torch.nn as nn
    model = nn.Linear(4, 2)
    for cfg in configs:
        net = nn.Linear(cfg.width, 2)
        net.cuda()
    for device in devices:
        model.to(device)
    for x in loader:
        device = pick_device(x)
        model.to(device)
    for x in loader:
        model = nn.Linear(4, 2)
        model.to(device)
    """
    assert lines(code, RULE) == []


def test_epoch_loops_guards_and_functions():
    code = """
    import torch.nn as nn
    model = nn.Linear(4, 2)
    for epoch in range(epochs):
        model.to(device)
        train(model)
    for name, p in model.named_parameters():
        model.cuda()
    for step, x in enumerate(loader):
        if step == 0:
            model.cuda()
        if step % 100 == 0:
            model.to(device)
        if next(model.parameters()).device != device:
            model.to(device)
        def later():
            model.cuda()
    model.cuda()
    """
    assert lines(code, RULE) == []


def test_inner_step_loop_inside_an_epoch_loop():
    code = """
    import torch.nn as nn
    model = nn.Linear(4, 2)
    for epoch in range(epochs):
        for x, y in train_loader:
            model.to(device)
    """
    assert lines(code, RULE) == [6]


def test_test_code_is_skipped():
    code = """
    import torch.nn as nn
    def test_moves():
        model = nn.Linear(2, 2)
        for x in batches:
            model.cuda()
    """
    assert lines(code, RULE) == []


def test_no_fix():
    [finding] = lint("import torch.nn as nn\nnet = nn.Linear(2, 2)\nfor x in loader:\n    net.cuda()\n", [RULE])
    assert finding.fix is None


@pytest.mark.stable_only
def test_stable_in_loops_that_train_preview_in_one_pass_loops(monkeypatch):
    training = """
    import torch
    import torch.nn as nn
    model = nn.Linear(4, 2)
    for x, y in loader:
        model.to(device)
        loss = criterion(model(x.to(device)), y.to(device))
        loss.backward()
        optimizer.step()
    """
    prediction = """
    import torch
    import torch.nn as nn
    model = nn.Linear(4, 2)
    def predict(test_loader):
        for x, _ in test_loader:
            model.to(device)
            predictions.append(model(x.to(device)))
    predict(test_loader)
    """
    assert (lines(training, RULE), lines(prediction, RULE)) == ([6], [])
    monkeypatch.setenv("TORCHLINT_PREVIEW", "1")
    assert lines(prediction, RULE) == [7]
