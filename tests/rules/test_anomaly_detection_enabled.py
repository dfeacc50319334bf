from conftest import lines, lint, preview_options

from torchlint.engine.linter import lint_text
from torchlint.rules.anomaly_detection_enabled import AnomalyDetectionEnabled

RULE = "TL403"


def test_every_import_path_and_form():
    code = """
    import torch
    import torch.autograd as ag
    from torch.autograd import set_detect_anomaly, detect_anomaly
    from torch.autograd import profiler
    from torch.autograd.anomaly_mode import set_detect_anomaly as sda
    torch.autograd.set_detect_anomaly(True)
    ag.set_detect_anomaly(mode=True)
    set_detect_anomaly(True, check_nan=False)
    sda(True)
    torch.set_anomaly_enabled(True)
    with torch.autograd.detect_anomaly():
        pass
    with detect_anomaly(check_nan=False), torch.no_grad():
        pass
    with torch.autograd.profiler.profile(use_cuda=True) as prof:
        pass
    with profiler.emit_nvtx():
        pass
    with profiler.profile(True):
        pass
    with torch.autograd.set_detect_anomaly(True):
        pass
    """
    assert lines(code, RULE) == [7, 8, 9, 10, 11, 12, 14, 16, 18, 20, 22]


def test_switched_off_or_non_literal():
    code = """
    import torch
    torch.autograd.set_detect_anomaly(False)
    torch.autograd.set_detect_anomaly(mode=False)
    torch.autograd.set_detect_anomaly(args.debug)
    torch.autograd.set_detect_anomaly(config.get("anomaly", False))
    with torch.autograd.profiler.profile(enabled=False):
        pass
    with torch.autograd.profiler.profile(enabled=args.profile):
        pass
    with torch.autograd.profiler.emit_nvtx(False):
        pass
    """
    assert lines(code, RULE) == []


def test_objects_not_entered_and_other_profilers():
    code = """
    import torch
    guard = torch.autograd.detect_anomaly()
    prof = torch.autograd.profiler.profile()
    with torch.profiler.profile(schedule=torch.profiler.schedule(wait=1, warmup=1, active=2)) as p:
        pass
    with torch.autograd.profiler.record_function("forward"):
        pass
    with torch.cuda.profiler.profile():
        pass
    enabled = torch.is_anomaly_enabled()
    """
    assert lines(code, RULE) == []


def test_opt_in_switches():
    code = """
    import os
    import torch
    if args.debug:
        torch.autograd.set_detect_anomaly(True)
    if cfg.detect_anomaly and rank == 0:
        torch.autograd.set_detect_anomaly(True)
    if os.environ.get("TORCH_ANOMALY"):
        torch.autograd.set_detect_anomaly(True)
    ctx = torch.autograd.detect_anomaly() if args.debug else contextlib.nullcontext()
    if profiling:
        with torch.autograd.profiler.profile() as prof:
            step()
    def debug_step(batch):
        with torch.autograd.detect_anomaly():
            step(batch)
    """
    assert lines(code, RULE) == []
    unrelated = """
    import torch
    if args.epochs > 1:
        torch.autograd.set_detect_anomaly(True)
    """
    assert lines(unrelated, RULE) == [4]


def test_test_code_is_silent():
    code = """
    import unittest
    import torch
    def test_backward_is_finite():
        with torch.autograd.detect_anomaly():
            loss.backward()
    class GradTests(unittest.TestCase):
        def setUp(self):
            torch.autograd.set_detect_anomaly(True)
    """
    assert lines(code, RULE) == []
    module_level = "import torch\ntorch.autograd.set_detect_anomaly(True)\n"
    for path, expected in (("test_training.py", 0), ("training_test.py", 0), ("conftest.py", 0), ("train.py", 1)):
        assert len(lint_text(module_level, path, [AnomalyDetectionEnabled], preview_options()).findings) == expected, path


def test_look_alikes():
    code = """
    import torch
    from mylib import set_detect_anomaly, detect_anomaly, profiler
    set_detect_anomaly(True)
    with detect_anomaly():
        pass
    with profiler.profile():
        pass
    def f(torch):
        torch.autograd.set_detect_anomaly(True)
    """
    assert lines(code, RULE) == []
    assert lines("torch.autograd.set_detect_anomaly(True)\n", RULE) == []  # torch not imported


def test_message_and_no_fix():
    [finding] = lint("import torch\ntorch.autograd.set_detect_anomaly(True)\n", [RULE])
    assert "traceback" in finding.message and "NaN" in finding.message
    assert finding.fix is None


def test_debugging_tools_by_file_name():
    code = "import torch\nwith torch.autograd.profiler.profile() as prof:\n    step()\n"
    for path, expected in (("profile_model.py", 0), ("tools/debug_nan.py", 0), ("detect.py", 1), ("train.py", 1)):
        assert len(lint_text(code, path, [AnomalyDetectionEnabled], preview_options()).findings) == expected, path
    in_detector = """
    import torch
    def train_detector():
        torch.autograd.set_detect_anomaly(True)
    """
    assert lines(in_detector, RULE) == [4]
