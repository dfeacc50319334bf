from conftest import lines

RULE = "TL501"


def test_every_import_path():
    code = """
    import torch
    import torch.nn as nn
    from torch.nn import DataParallel as DP
    from torch.nn.parallel import DataParallel
    from torch.nn.parallel.data_parallel import DataParallel as Old
    a = torch.nn.DataParallel(m, device_ids=args.gpu_ids)
    b = nn.DataParallel(m, device_ids=[0, 1])
    c = DP(m, device_ids=[0, 1])
    d = DataParallel(m, None, [0, 1, 2])
    e = Old(m, device_ids=devices)
    f = nn.parallel.DataParallel(m, device_ids=(2, 3))
    """
    assert lines(code, RULE) == [7, 8, 9, 10, 11, 12]


def test_isinstance_ddp_and_look_alikes():
    code = """
    import torch
    import torch.nn as nn
    from torch.nn.parallel import DistributedDataParallel
    from apex.parallel import DataParallel
    if isinstance(model, nn.DataParallel):
        model = model.module
    a = DistributedDataParallel(m)
    b = DataParallel(m)
    class Wrapper(nn.DataParallel):
        pass
    """
    assert lines(code, RULE) == []


def test_reported_where_the_program_may_use_several_gpus():
    code = """
    import torch
    import torch.nn as nn
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    """
    assert lines(code, RULE) == [5]
    code = """
    import argparse
    import torch.nn as nn
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpus", type=int, default=1)
    model = nn.DataParallel(model)
    model(x).sum().backward()
    """
    assert lines(code, RULE) == [6]


def test_silent_for_one_device():
    code = """
    import torch
    import torch.nn as nn
    a = nn.DataParallel(model, device_ids=[0])
    b = nn.DataParallel(model, device_ids=[args.gpu])
    """
    assert lines(code, RULE) == []


def test_without_device_ids_it_takes_every_visible_gpu():
    """A training script that wraps its model whenever CUDA is available takes over a
    multi-GPU machine; the branch that runs only without CUDA drives no GPU."""
    code = """
    import torch
    import torch.nn as nn
    if torch.cuda.is_available():
        model = nn.DataParallel(model).cuda()
    else:
        model = nn.DataParallel(model)
    """
    assert lines(code, RULE) == [5]


def test_silent_in_the_main_block_of_a_module_that_never_trains(tmp_path):
    """A feature-extraction script other modules import from: its `__main__` block runs only as
    that program, which passes over the data once; a training module's block is reported."""
    from click.testing import CliRunner

    from torchlint.cli import main

    (tmp_path / "setup.py").write_text("")
    main_block = "if __name__ == '__main__':\n    net = nn.DataParallel(load()).eval().cuda()\n{extra}"
    features = "import torch.nn as nn\ndef load():\n    return nn.Linear(2, 2)\n" + main_block.format(extra="")
    (tmp_path / "features.py").write_text(features)
    (tmp_path / "fid.py").write_text("from features import load\n")
    (tmp_path / "train.py").write_text(features.replace("{extra}", "") + "    net(x).sum().backward()\n")
    result = CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", "TL501", "--output-format", "concise", str(tmp_path)])
    assert "train.py:5:11: TL501" in result.stdout and "features.py" not in result.stdout


def test_found_when_another_rule_asks_about_the_rest_of_the_file_first():
    """TL401's fix looks at every call of the file while the traversal stands on line 2; the
    import on line 3 must still bind `nn` for TL501 on line 4 (no stale cached name)."""
    from torchlint.engine.linter import lint_text
    from torchlint.engine.options import Options
    from torchlint.engine.rule import all_rules

    text = "import torch\noptimizer.zero_grad(set_to_none=False)\nimport torch.nn as nn\nm = nn.DataParallel(x, device_ids=[0, 1])\n"
    rules = [rule for rule in all_rules() if rule.code in ("TL401", "TL404", "TL501")]
    found = [(finding.code, finding.line) for finding in lint_text(text, "both.py", rules, Options()).findings]
    assert ("TL501", 4) in found and ("TL401", 2) in found
