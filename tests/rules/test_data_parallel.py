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
    """
    assert lines(code, RULE) == [6]


def test_silent_for_one_device_or_no_sign_of_several():
    code = """
    import torch
    import torch.nn as nn
    a = nn.DataParallel(model, device_ids=[0])
    b = nn.DataParallel(model, device_ids=[args.gpu])
    c = nn.DataParallel(model).cuda()
    """
    assert lines(code, RULE) == []


def test_a_gpus_option_in_the_entry_script_counts_for_the_model_module(tmp_path):
    from click.testing import CliRunner

    from torchlint.cli import main

    (tmp_path / "model.py").write_text("import torch.nn as nn\ndef wrap(net):\n    return nn.DataParallel(net)\n")
    (tmp_path / "train.py").write_text("import argparse\nfrom model import wrap\nparser = argparse.ArgumentParser()\nparser.add_argument('--gpus', type=int)\n")
    (tmp_path / "other.py").write_text("import torch.nn as nn\nnet = nn.DataParallel(net)\n")
    result = CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", "TL501", "--output-format", "concise", str(tmp_path)])
    assert "model.py:3:12: TL501" in result.stdout and "other.py" not in result.stdout


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
