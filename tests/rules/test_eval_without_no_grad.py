import textwrap

from conftest import lines, lint, preview_options

from torchlint.engine.linter import lint_text
from torchlint.engine.rule import all_rules

RULE = "TL402"


def test_reported_on_the_eval_call():
    code = """
    import torch
    def evaluate(model, loader):
        model.eval()
        for x, y in loader:
            out = model(x)
    """
    [finding] = lint(code, [RULE])
    assert (finding.line, finding.column, finding.end_column) == (4, 11, 17)
    assert finding.fix.applicability.value == "safe"
    assert finding.fix.edits[0].content == "@torch.no_grad()\n"


def test_attribute_modules_and_forward_calls():
    code = """
    import torch
    def validate(self):
        self.net.eval()
        return self.net.forward(self.x)
    """
    assert lines(code, RULE) == [4]


def test_grad_disabled_by_context_decorator_or_call():
    code = """
    import torch
    from torch import no_grad
    @torch.no_grad()
    def a(model, x):
        model.eval()
        return model(x)
    @torch.inference_mode()
    def b(model, x):
        model.eval()
        return model(x)
    @no_grad()
    def c(model, x):
        model.eval()
        return model(x)
    def d(model, x):
        model.eval()
        with torch.inference_mode():
            return model(x)
    def e(model, x):
        model.eval()
        with torch.set_grad_enabled(False):
            return model(x)
    def f(model, x):
        torch.set_grad_enabled(False)
        model.eval()
        return model(x)
    """
    assert lines(code, RULE) == []


def test_torch_reached_through_a_star_import_is_torch():
    code = """
    import torch.nn as nn
    from utils import *
    def evaluate(model, x):
        model.eval()
        with torch.no_grad():
            return model(x)
    def other(model, x):
        model.eval()
        with helpers.no_grad():
            return model(x)
    """
    assert lines(code, RULE) == [9]


def test_enable_grad_inside_no_grad_counts_as_enabled():
    code = """
    import torch
    @torch.no_grad()
    def probe(model, x):
        model.eval()
        with torch.enable_grad():
            return model(x)
    """
    assert lines(code, RULE) == [5]


def test_functions_that_compute_gradients():
    code = """
    import torch
    def saliency(model, x):
        model.eval()
        model(x).sum().backward()
    def attack(model, x):
        model.eval()
        g, = torch.autograd.grad(model(x).sum(), x)
    def reads(model, x):
        model.eval()
        model(x)
        return x.grad
    def toggles(model, x):
        model.eval()
        model.train()
        return model(x)
    """
    assert lines(code, RULE) == []


def test_eval_without_a_later_call_or_on_non_modules():
    code = """
    import torch
    import numpy as np
    def finish(model):
        model.eval()
        return model
    def other(model, x):
        out = model(x)
        model.eval()
    def expr(x):
        t = torch.zeros(3)
        t.eval()
        return t(x)
    """
    assert lines(code, RULE) == []


def test_callers_in_no_grad_silence_the_function():
    code = """
    import torch
    def evaluate(model, x):
        model.eval()
        return model(x)
    with torch.no_grad():
        evaluate(m, x)
    """
    assert lines(code, RULE) == []


def test_module_level_scripts_report_without_fix():
    code = """
    import torch
    model.eval()
    for x, y in loader:
        out = model(x)
    """
    [finding] = lint(code, [RULE])
    assert finding.fix is None


def test_one_off_and_guarded_evaluation_is_not_reported():
    """A single forward pass at module level (a demo, an export dry run) runs once; a sample
    dump called only every N batches runs rarely: neither costs anything per step."""
    code = """
    import torch
    def sample_images(model, batch):
        model.eval()
        return model(batch)
    def train(model, loader, opt):
        for step, (x, y) in enumerate(loader):
            loss = model(x).sum()
            loss.backward()
            opt.step()
            if step % 100 == 0:
                sample_images(model, x)
    model.eval()
    out = model(example)
    """
    assert lines(code, RULE) == []


def test_evaluation_called_every_epoch_is_reported():
    code = """
    import torch
    def evaluate(model, loader):
        model.eval()
        return [model(x) for x in loader]
    def train(model, loader, opt):
        for epoch in range(10):
            for x, y in loader:
                model(x).sum().backward()
                opt.step()
            evaluate(model, loader)
    """
    assert lines(code, RULE) == [4]


def test_methods_of_modules_report_without_fix():
    code = """
    import torch
    import torch.nn as nn
    class Student(nn.Module):
        def forward(self, x):
            self.teacher.eval()
            return self.head(x), self.teacher(x)
    """
    [finding] = lint(code, [RULE])
    assert finding.fix is None


def test_fix_imports_torch_when_missing_and_uses_alias_otherwise():
    code = '''
    """Docstring."""
    from __future__ import annotations
    from torch import nn
    def evaluate(model, x):
        model.eval()
        return model(x)
    '''
    [finding] = lint(code, [RULE])
    contents = sorted(edit.content for edit in finding.fix.edits)
    assert contents == ["\nimport torch", "@torch.no_grad()\n"]
    assert [e.line for e in finding.fix.edits] == [5, 4]  # after the last import, before the function
    aliased = "import torch as th\nclass A:\n    def run(self, m, x):\n        m.eval()\n        return m(x)\n"
    [finding] = lint(aliased, [RULE])
    assert [e.content for e in finding.fix.edits] == ["@th.no_grad()\n    "]


def test_eval_chained_on_construction():
    code = """
    import torch
    import torchvision
    def test_model(x):
        model = torchvision.models.resnet18().eval()
        return model(x)
    """
    assert lines(code, RULE) == [5]


def test_fix_applicability_follows_what_the_function_returns():
    code = """
    import torch
    def features(backbone, x):
        backbone.eval()
        return backbone(x)
    def show(model, x):
        model.eval()
        print(model(x).argmax(1).tolist())
        return None
    async def serve(model, x):
        model.eval()
        return model(x)
    """
    fixes = [f.fix.applicability.value if f.fix else None for f in lint(code, [RULE])]
    assert fixes == ["unsafe", "safe", None]


def test_fix_adds_a_runtime_import_when_torch_is_only_imported_for_typing():
    code = """
    from typing import TYPE_CHECKING
    from torch import nn
    if TYPE_CHECKING:
        import torch
    def show(model, x):
        model.eval()
        print(model(x).shape)
    """
    [finding] = lint(code, [RULE])
    assert sorted(edit.content for edit in finding.fix.edits) == ["\nimport torch", "@torch.no_grad()\n"]


SMART = """
import torch
def smart_inference_mode(torch_1_9=True):
    def decorate(fn):
        return (torch.inference_mode if torch_1_9 else torch.no_grad)()(fn)
    return decorate
"""
VALIDATE = """
import torch
from utils.torch_utils import smart_inference_mode
from .helpers import frozen

@smart_inference_mode()
def run(model, x):
    model.eval()
    return model(x)

def run_with(model, x):
    model.eval()
    with frozen():
        return model(x)
"""


def _project_lines(tmp_path, helpers: str) -> list:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "utils").mkdir(exist_ok=True)
    (tmp_path / "utils" / "__init__.py").write_text("")
    (tmp_path / "utils" / "torch_utils.py").write_text(textwrap.dedent(SMART))
    (tmp_path / "pkg").mkdir(exist_ok=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "helpers.py").write_text(helpers)
    script = tmp_path / "pkg" / "val.py"
    text = textwrap.dedent(VALIDATE)
    script.write_text(text)
    rules = [rule for rule in all_rules() if rule.code == RULE]
    return [f.line for f in lint_text(text, str(script), rules, preview_options()).findings]


def test_project_decorators_and_context_managers_that_disable_grad(tmp_path):
    grad_off = "import torch\nclass frozen(torch.no_grad):\n    pass\n"
    assert _project_lines(tmp_path, grad_off) == []
    plain = "import contextlib\n@contextlib.contextmanager\ndef frozen():\n    yield\n"
    assert _project_lines(tmp_path, plain) == [12]


def test_same_file_wrapper_and_look_alikes():
    code = """
    import torch
    from contextlib import contextmanager
    @contextmanager
    def quiet():
        with torch.no_grad():
            yield
    @contextmanager
    def timed():
        yield
    def evaluate(model, x):
        model.eval()
        with quiet():
            return model(x)
    def evaluate_timed(model, x):
        model.eval()
        with timed():
            return model(x)
    """
    assert lines(code, RULE) == [16]


def test_gradients_computed_in_a_called_function():
    code = """
    import torch
    def attack(model, x):
        loss = model(x).sum()
        loss.backward()
        return x.grad
    def robust_accuracy(model, x):
        model.eval()
        adversarial = attack(model, x)
        return model(adversarial)
    def plain_accuracy(model, x):
        model.eval()
        shown = describe(model)
        return model(x)
    def describe(model):
        return str(model)
    """
    assert lines(code, RULE) == [12]
