from conftest import in_step_loop, lines, lint

RULE = "TL401"


def test_set_to_none_false_and_manual_zeroing():
    code = """
    import torch
    optimizer.zero_grad(set_to_none=False)
    model.zero_grad(set_to_none=False)
    for p in model.parameters():
        p.grad.zero_()
        p.grad.data.zero_()
    optimizer.zero_grad(False)
    """
    assert lines(in_step_loop(code), RULE) == [3, 4, 6, 7, 8]
    assert lint(in_step_loop(code), [RULE])[-1].fix.edits[0].content == "optimizer.zero_grad()"


def test_modern_defaults_and_look_alikes():
    code = """
    import torch
    optimizer.zero_grad()
    optimizer.zero_grad(set_to_none=True)
    for p in model.parameters():
        p.grad = None
        p.data.zero_()
        buf.zero_()
        p.grad.zero_(x)
    """
    assert lines(code, RULE) == []


def test_plain_zero_grad_only_on_old_targets():
    code = "import torch\nfor batch in loader:\n    optimizer.zero_grad()\n"
    assert lines(code, RULE) == []
    [finding] = lint(code, [RULE], torch_version=(1, 13))
    assert "set_to_none=True" in finding.message
    assert finding.fix.edits[0].content == "optimizer.zero_grad(set_to_none=True)"


def test_fix_contents_and_applicability():
    code = """
    import torch
    optimizer.zero_grad(set_to_none=False)
    for p in params:
        p.grad.data.zero_()
    """
    first, second = lint(in_step_loop(code), [RULE])
    assert first.fix.edits[0].content == "optimizer.zero_grad()"
    assert first.fix.applicability.value == "unsafe"  # an explicit `set_to_none=False` is a decision
    assert "(fix: unsafe: optimizers skip parameters whose gradient is None" in first.message
    assert second.fix.edits[0].content == "p.grad = None"
    assert second.fix.applicability.value == "unsafe"


def test_no_reset_fix_when_the_file_reads_grad_anywhere():
    code = """
    import torch
    def step(model, optimizer):
        optimizer.zero_grad(set_to_none=False)
    def norm(model):
        return sum(p.grad.sum() for p in model.parameters())
    """
    [finding] = lint(code, [RULE])
    assert finding.fix is None
    assert finding.message.endswith("(fix: none: the file reads `.grad`, which would be None)")


def test_gradients_used_as_buffers():
    code = """
    import torch
    class ParameterServer:
        def __init__(self, model):
            for p in model.parameters():
                p.grad = torch.zeros_like(p)
        def update(self, grads):
            for p, g in zip(self.model.parameters(), grads):
                p.grad += g
            self.optimizer.step()
            self.optimizer.zero_grad(set_to_none=False)
    """
    assert lines(code, RULE) == []
    in_place = "import torch\nopt.zero_grad(set_to_none=False)\nfor p, g in pairs:\n    p.grad.add_(g)\n"
    assert lines(in_place, RULE) == []


def test_manual_zeroing_only_per_parameter_outside_optimizer_code():
    code = """
    import torch

    class LARS(torch.optim.Optimizer):
        def step(self):
            for group in self.param_groups:
                for p in group["params"]:
                    p.grad.zero_()

    def zero_grad(model):
        for p in model.parameters():
            p.grad.zero_()

    def attack(model, x):
        for _ in range(10):
            model(x).sum().backward()
            x.grad.zero_()

    def train_step(model):
        for group in optimizer.param_groups:
            for p in group["params"]:
                p.grad.zero_()
    """
    assert lines(code, RULE) == [22]


def test_manual_resets_that_run_once_are_silent():
    code = """
    import torch
    for p in model.parameters():
        p.grad.zero_()

    class Trainer:
        def __init__(self):
            for p in self.model.parameters():
                p.grad.zero_()

        def train_step(self, batch):
            for p in self.model.parameters():
                p.grad.zero_()
    """
    assert lines(code, RULE) == [13]
