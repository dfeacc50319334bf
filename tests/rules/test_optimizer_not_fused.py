from conftest import lint, lines, preview_options

from torchlint.engine.fixer import fix_text
from torchlint.engine.rule import all_rules

RULE = "TL404"

SCRIPT = """
import torch
model = Net().to("cuda")
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
"""


def fixed(code: str, version=(2, 13)) -> str:
    rules = [rule for rule in all_rules() if rule.code == RULE]
    return fix_text(code, "train.py", rules, preview_options(version), unsafe=True).text


def test_adam_and_adamw_over_a_module_moved_to_cuda():
    [finding] = lint(SCRIPT, [RULE])
    assert finding.line == 4 and "fused=True" in finding.message and finding.fix.applicability.value == "unsafe"
    assert "torch.optim.AdamW(model.parameters(), lr=3e-4, fused=True)" in fixed(SCRIPT)


def test_ways_of_moving_the_module():
    for move in (
        "model = Net().cuda()",
        "model = Net()\nmodel.cuda()",
        "model = Net()\nif torch.cuda.is_available():\n    model = model.cuda()",
        "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\nmodel = Net().to(device)",
        "torch.cuda.set_device(args.device)\nmodel = Net()\nmodel.to(args.device)",
        "torch.cuda.set_device(local_rank)\nmodel = Net()\nmodel.to(local_rank)",
    ):
        code = f"import torch\n{move}\noptimizer = torch.optim.Adam(model.parameters())\n"
        assert lines(code, RULE) == [code.count("\n")], move


def test_wrappers_and_parameter_expressions():
    code = """
    import itertools
    import torch
    from torch import optim
    from torch.nn.parallel import DistributedDataParallel as DDP
    def main(rank):
        torch.cuda.set_device(rank)
        model = Net().to(rank)
        ddp = DDP(model, device_ids=[rank])
        compiled = torch.compile(ddp)
        a = optim.Adam(compiled.parameters())
        b = optim.Adam(itertools.chain(model.encoder.parameters(), model.decoder.parameters()))
        groups = [{"params": model.head.parameters(), "lr": 1e-3}, {"params": model.body.parameters()}]
        c = optim.AdamW(groups)
        d = optim.AdamW(params=[p for n, p in model.named_parameters() if "bias" not in n])
        model_without_ddp = ddp.module
        e = optim.AdamW([{"params": [p for p in model_without_ddp.parameters() if p.requires_grad]}])
    """
    assert lines(code, RULE) == [11, 12, 14, 15, 17]


def test_attributes_of_self_across_methods():
    code = """
    import torch
    class Trainer:
        def __init__(self, model):
            self.model = model.cuda()
        def optimizer(self):
            return torch.optim.Adam(self.model.parameters())
    class Other:
        def optimizer(self):
            return torch.optim.Adam(self.model.parameters())
    """
    assert lines(code, RULE) == [7]


def test_modules_not_moved_to_cuda_are_silent():
    for setup in (
        "model = Net()",
        "model = Net().to('cpu')",
        "model = Net().to(torch.float16)",
        "model = Net()\nmodel.half()",
    ):
        code = f"import torch\nx = x.cuda()\n{setup}\noptimizer = torch.optim.Adam(model.parameters())\n"
        assert lines(code, RULE) == [], setup


def test_parameters_not_from_modules_are_silent():
    for params in ("[model.weight, extra]", "params", "prepare(model)", "get_params(model.cpu())", "self.parameters()"):
        code = f"import torch\nmodel = Net().cuda()\noptimizer = torch.optim.Adam({params})\n"
        assert lines(code, RULE) == [], params


def test_a_module_moved_in_another_function_is_another_module():
    code = """
    import torch
    def train():
        model = Net().cuda()
    def export():
        model = Net()
        return torch.optim.Adam(model.parameters())
    """
    assert lines(code, RULE) == []


def test_without_cuda_in_the_file_nothing_is_reported():
    code = "import torch\ndevice = torch.device('mps')\nmodel = Net().to(device)\noptimizer = torch.optim.Adam(model.parameters())\n"
    assert lines(code, RULE) == []


def test_the_current_accelerator_is_cuda_on_nvidia_gpus():
    code = "import torch\ndevice = torch.accelerator.current_accelerator()\nmodel = Net().to(device)\noptimizer = torch.optim.Adam(model.parameters())\n"
    assert lines(code, RULE) == [4]


def test_decisions_and_unknown_keywords_are_silent():
    for arguments in ("fused=False", "fused=True", "foreach=False", "foreach=True", "differentiable=True", "differentiable=flag", "**options"):
        code = SCRIPT.replace("lr=3e-4", f"lr=3e-4, {arguments}")
        assert lines(code, RULE) == [], arguments
    assert lines(SCRIPT.replace("lr=3e-4", "lr=3e-4, differentiable=False"), RULE) == [4]


def test_capturable_keeps_the_finding_without_a_fix():
    [finding] = lint(SCRIPT.replace("lr=3e-4", "lr=3e-4, capturable=True"), [RULE])
    assert finding.fix is None or finding.fix.applicability.value == "none"
    assert "capturable" in fixed(SCRIPT.replace("lr=3e-4", "lr=3e-4, capturable=True")) and "fused" not in fixed(
        SCRIPT.replace("lr=3e-4", "lr=3e-4, capturable=True")
    )


def test_other_optimizers_and_look_alikes_are_silent():
    for optimizer in ("torch.optim.RMSprop", "torch.optim.Adagrad", "Adam", "fairseq.optim.Adam"):
        code = SCRIPT.replace("torch.optim.AdamW", optimizer)
        if optimizer == "Adam":
            code = "from mylib import Adam\n" + code
        assert lines(code, RULE) == [], optimizer


def test_torch_version_decides_the_remedy():
    sgd = SCRIPT.replace("AdamW", "SGD")
    assert lines(sgd, RULE) == []
    for code in (SCRIPT, sgd):
        [finding] = lint(code, [RULE], torch_version=(1, 13))
        assert "foreach=True" in finding.message
        assert "foreach=True" in fixed(code, (1, 13)) and "fused" not in fixed(code, (1, 13))
    assert lint(SCRIPT, [RULE], torch_version=(1, 11)) == []


def test_test_code_is_silent():
    code = "import torch\ndef test_step():\n    model = Net().cuda()\n    opt = torch.optim.Adam(model.parameters())\n"
    assert lines(code, RULE) == []


def test_fixing_twice_changes_nothing_more():
    once = fixed(SCRIPT)
    assert fixed(once) == once and lint(once, [RULE]) == []


def test_parameter_groups_built_by_a_helper():
    """A helper named for parameters (or whose result is) builds the groups of the module it is
    given: `utils.get_params_groups(student)`, `param_groups = add_weight_decay(model, wd)`."""
    code = """
    import torch
    student = Net().cuda()
    a = torch.optim.AdamW(utils.get_params_groups(student))
    param_groups = optim_factory.add_weight_decay(student, args.weight_decay)
    b = torch.optim.AdamW(param_groups, lr=args.lr)
    groups = build(student, args.weight_decay)
    c = torch.optim.AdamW(groups)
    d = torch.optim.AdamW(get_params_groups(teacher))
    """
    assert lines(code, RULE) == [4, 6]


def test_a_head_trained_on_a_frozen_backbone_is_silent():
    """The step of a small head is negligible next to the frozen forward. Freezing another
    module (a teacher) leaves the optimizer of the trained one reported."""
    code = """
    import torch
    model = models.resnet18(pretrained=True).cuda()
    for param in model.parameters():
        param.requires_grad = False
    model.fc = nn.Linear(512, 2).cuda()
    a = torch.optim.Adam(model.parameters())
    b = torch.optim.Adam(model.fc.parameters())
    bert_model = Net().cuda()
    for name, param in bert_model.named_parameters():
        if name.startswith("bert"):
            param.requires_grad = False
    c = torch.optim.Adam(bert_model.parameters())
    encoder = Encoder().cuda()
    encoder.requires_grad_(False)
    d = torch.optim.Adam(encoder.parameters())
    student = Net().cuda()
    teacher = Net().cuda()
    for p in teacher.parameters():
        p.requires_grad = False
    e = torch.optim.Adam(student.parameters())
    for p in student.parameters():
        p.requires_grad = True
    critic = Critic().cuda()
    f = torch.optim.Adam(critic.parameters())
    for p in critic.parameters():
        p.requires_grad = False  # during the generator's step
    for p in critic.parameters():
        p.requires_grad = True
    """
    assert lines(code, RULE) == [21, 25]


def test_silent_in_rpc_programs():
    assert lines("import torch.distributed.rpc as rpc\n" + SCRIPT, RULE) == []


def test_optimizers_built_only_behind_an_opt_in_flag():
    """`if args.use_optimizer:` (a store_true option) and `Adam(...) if fine_tune_encoder else
    None` (a module constant set to False) are choices the default run never makes; an
    optimizer chosen by name is not opt-in."""
    code = """
    import argparse
    import torch
    parser = argparse.ArgumentParser()
    parser.add_argument('--use-optimizer', action='store_true')
    args = parser.parse_args()
    fine_tune_encoder = False
    model = Net().cuda()
    if args.use_optimizer:
        a = torch.optim.AdamW(model.parameters())
    b = torch.optim.Adam(model.parameters()) if fine_tune_encoder else None
    if args.optimizer == "adam":
        c = torch.optim.Adam(model.parameters())
    """
    assert lines(code, RULE) == [13]
