from conftest import lint, lines, write

from torchlint.engine.context import Options
from torchlint.engine.linter import lint_text
from torchlint.engine.rule import all_rules
from torchlint.semantics import project

RULE = "TL304"
AMP = "with torch.autocast('cuda'):\n    y = model(x)\n"


def layer_lines(layer: str, amp: str = AMP, prelude: str = "") -> list:
    return lines(f"import torch\nimport torch.nn as nn\n{prelude}layer = {layer}\n{amp}", RULE)


def test_large_unaligned_sizes_in_a_mixed_precision_model():
    for layer in (
        "nn.Linear(768, 50257)",
        "nn.Linear(784, 500)",
        "nn.Linear(in_features=1000, out_features=1001)",
        "nn.Conv2d(512, 1001, 3)",
        "nn.ConvTranspose2d(250, 256, kernel_size=(3, 3))",
        "nn.Conv1d(100, 768, 5)",
        "nn.Linear(hidden, 50257, bias=False)",
        "nn.Linear(30522, hidden)",
    ):
        assert layer_lines(layer) == [3], layer
    [finding] = lint(f"import torch\nimport torch.nn as nn\nlayer = nn.Linear(768, 50257)\n{AMP}", [RULE])
    assert "`out_features=50257`" in finding.message and "pad 50257 to 50304" in finding.message and finding.fix is None


def test_mixed_precision_however_chosen():
    for amp in ("model = model.half()\n", "model.bfloat16()\n", "ctx = torch.cuda.amp.autocast()\n"):
        assert layer_lines("nn.Linear(768, 50257)", amp) == [3], amp


def test_small_layers_cost_nothing_measurable():
    for layer in (
        "nn.Linear(256, 1)",
        "nn.Conv2d(3, 64, 7)",
        "nn.Linear(512, 10)",
        "nn.Linear(512, 100)",
        "nn.Linear(120, 84)",
        "nn.Conv2d(64, 100, 3)",
        "nn.Linear(hidden, 1001)",
    ):
        assert layer_lines(layer) == [], layer


def test_aligned_or_unknown_sizes_are_silent():
    for layer in ("nn.Linear(768, 50304)", "nn.Linear(768, len(vocab))", "nn.Linear(768, config.vocab_size)", "nn.Linear(*dims)", "nn.Linear(768, **kw)"):
        assert layer_lines(layer) == [], layer


def test_grouped_convolutions_are_silent():
    assert layer_lines("nn.Conv2d(1001, 1001, 3, groups=1001)") == []
    assert layer_lines("nn.Conv2d(1001, 1001, 3, groups=1)") == [3]


def test_sizes_from_names_bound_once_to_a_literal():
    assert layer_lines("nn.Linear(768, VOCAB)", prelude="VOCAB = 50257\n") == [4]
    assert layer_lines("nn.Linear(768, vocab)", prelude="vocab: int = 50257\n") == [4]
    for prelude in ("VOCAB = 50257\nVOCAB = 50304\n", "VOCAB = 50257\ndef f(VOCAB):\n    pass\n", "VOCAB = 50257\nVOCAB += 47\n"):
        assert layer_lines("nn.Linear(768, VOCAB)", prelude=prelude) == [], prelude


def test_fp32_models_look_alikes_and_test_code_are_silent():
    assert layer_lines("nn.Linear(768, 50257)", amp="y = model(x)\n") == []
    assert layer_lines("nn.Linear(768, 50257)", amp="# with torch.autocast('cuda'):\ny = model(x)\n") == []
    assert lines(f"import torch\nfrom mylib import Linear\nlayer = Linear(768, 50257)\n{AMP}", RULE) == []
    assert lines(f"import torch\nimport torch.nn as nn\ndef test_head():\n    layer = nn.Linear(768, 50257)\n{AMP}", RULE) == []


def test_an_embedding_tied_to_the_output_projection():
    code = """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    class LM(nn.Module):
        def __init__(self, width):
            super().__init__()
            self.embed = nn.Embedding(50257, width)
            self.pos = nn.Embedding(50257, width)
        def forward(self, x):
            return F.linear(x, self.embed.weight)
    with torch.autocast("cuda"):
        pass
    """
    assert lines(code, RULE) == [8]
    assert lines(code.replace("F.linear(x, self.embed.weight)", "x @ self.embed.weight.T"), RULE) == [8]
    assert lines(code.replace("F.linear(x, self.embed.weight)", "self.embed(x)"), RULE) == []
    in_a_test = "import torch\nimport torch.nn.functional as F\ndef test_tied():\n    embed = torch.nn.Embedding(50257, 768)\n    F.linear(x, embed.weight)\n"
    assert lines(in_a_test + "with torch.autocast('cuda'):\n    pass\n", RULE) == []
    assert lines(in_a_test.replace("def test_tied():", "def tied():") + "with torch.autocast('cuda'):\n    pass\n", RULE) == [4]


def test_the_training_script_that_imports_a_model_file_decides(tmp_path):
    write(tmp_path, "pyproject.toml", "")
    model = write(tmp_path, "pkg/models/gpt.py", "import torch.nn as nn\nhead = nn.Linear(768, 50257)\n")
    write(tmp_path, "pkg/models/__init__.py", "from .gpt import head\n")
    rules = [rule for rule in all_rules() if rule.code == RULE]

    def found() -> list:
        return [f.line for f in lint_text(open(model).read(), model, rules, Options()).findings]

    assert found() == []
    write(tmp_path, "pkg/train.py", "import torch\nfrom pkg.models import head\nwith torch.autocast('cuda'):\n    y = head(x)\n")
    project.clear()  # a new run lists the project again
    assert found() == [2]
