import textwrap

from conftest import lines as rule_lines
from conftest import lint as lint_rules

RULE = "TL103"
# The rule only looks at files that place work on a device; this line does so without
# shifting the line numbers of the snippets.
ON_DEVICE = "model.cuda()\n"


def lines(code):
    return rule_lines(textwrap.dedent(code) + ON_DEVICE, RULE)


def test_conversions_truth_tests_printing_and_synchronize():
    code = """
    import torch
    for x, y in loader:
        loss = torch.nn.functional.mse_loss(model(x), y)
        a = float(loss)
        b = int(loss.argmax())
        c = bool((loss > 0).any())
        if loss > 1.0:
            scale = 0.5
        if not torch.isfinite(loss):
            skipped += 1
        print("loss", loss)
        msg = f"loss {loss:.3f}"
        torch.cuda.synchronize()
    """
    assert lines(code) == [5, 6, 7, 8, 10, 12, 13, 14]


def test_reported_once_per_call_with_position():
    [finding] = lint_rules(
        "import torch\nfor x in loader:\n    loss = torch.mean(x.cuda())\n    total += float(loss)\n", [RULE]
    )
    assert (finding.line, finding.column) == (4, 14)
    assert finding.fix is None and "`float()`" in finding.message


def test_unknown_and_host_values_are_silent():
    code = """
    import torch
    import numpy as np
    for x in loader:
        a = float(x)
        b = float(batch["loss"])
        c = float(loss.item())
        t = torch.ones(3)
        d = float(t.sum())
        e = int(np.sum(arr))
        n = len(x)
        if x.shape[0] > 1 or x.dim() == 4 or x.is_cuda:
            pass
        out = model(x)
        if out is None or out.grad is not None:
            pass
        print(x, n, step)
        msg = f"{step} {x}"
    """
    assert lines(code) == []


def test_shadowed_builtins_and_other_synchronize():
    code = """
    import torch
    from mylib import float
    def run(print):
        for x in loader:
            loss = torch.mean(x.cuda())
            print(loss)
            a = float(loss)
            mylib.synchronize()
    """
    assert lines(code) == []


def test_guards_epochs_and_outside_loops():
    code = """
    import torch
    loss = torch.mean(x.cuda())
    print(float(loss))
    for epoch in range(10):
        print(f"epoch {loss}")
    for step, x in enumerate(loader):
        loss = torch.mean(x.cuda())
        if step % log_every == 0:
            print(loss)
        if verbose:
            total = float(loss)
    for name, p in model.named_parameters():
        print(name, float(p.norm()))
    for x in loader:
        def report(t=torch.mean(x)):
            return float(t)
    """
    assert lines(code) == []


def test_control_flow_of_loops_that_do_not_train():
    code = """
    import torch
    while torch.mean(x.cuda()) > tol:
        x = refine(x)
    for i in range(100):
        err = torch.norm(x.cuda())
        if err < tol:
            break
        token = int(torch.argmax(model(token)))
    for i in range(10):
        out = torch.tanh(x.cuda())
        print(out)
    """
    assert lines(code) == []


def test_training_loops_get_no_control_flow_exemption():
    code = """
    import torch
    for x, y in loader:
        loss = torch.nn.functional.mse_loss(model(x.cuda()), y.cuda())
        if torch.isnan(loss):
            break
        loss.backward()
        optimizer.step()
    """
    assert lines(code) == [5]


def test_synchronize_for_timing_and_in_test_or_data_code():
    code = """
    import torch
    import time
    for x in loader:
        start = time.perf_counter()
        y = model(x.cuda())
        torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    def test_speed():
        for x in loader:
            torch.cuda.synchronize()
    class Data(torch.utils.data.Dataset):
        def __getitem__(self, i):
            for j in range(3):
                if torch.rand(1, device="cuda") > 0.5:
                    pass
    """
    assert lines(code) == []


def test_files_without_a_device_are_silent():
    code = "import torch\nfor x in loader:\n    loss = torch.mean(model(x))\n    print(float(loss))\n"
    assert [f for f in lint_rules(code, [RULE])] == []
