import textwrap

from conftest import lint, lines, preview_options

from torchlint.engine.fixer import fix_text
from torchlint.engine.rule import all_rules

RULE = "TL302"

TIMM = """
import torch
import torch.nn as nn

class Attention(nn.Module):
    def forward(self, x):
        q, k, v = self.qkv(x).unbind(0)
        attn = (q @ k.transpose(-2, -1)) * self.scale
        attn = attn.softmax(dim=-1)
        x = (attn @ v).transpose(1, 2)
        return self.proj(x)
"""


def fixed(code: str, version=(2, 13)) -> str:
    rules = [rule for rule in all_rules() if rule.code == RULE]
    return fix_text(textwrap.dedent(code), "model.py", rules, preview_options(version), unsafe=True).text


def fix_reason(code: str) -> str:
    [finding] = lint(code, [RULE])
    return finding.message


def test_consecutive_statements_in_forward_are_rewritten():
    [finding] = lint(TIMM, [RULE])
    assert finding.line == 10 and finding.fix.applicability.value == "unsafe"
    after = fixed(TIMM)
    # `self.scale` is set nowhere in the file, so it may be a tensor: it multiplies the queries.
    assert "x = (torch.nn.functional.scaled_dot_product_attention(q * self.scale, k, v, scale=1.0)).transpose(1, 2)" in after
    assert "softmax" not in after and "attn =" not in after
    assert fixed(after) == after and not lint(after, [RULE])


def test_a_scale_known_to_be_a_number_is_passed_as_scale():
    numbered = TIMM.replace("    def forward", "    def __init__(self):\n        self.scale = 64 ** -0.5\n\n    def forward")
    assert "scaled_dot_product_attention(q, k, v, scale=self.scale)" in fixed(numbered)
    learned = TIMM.replace("    def forward", "    def __init__(self):\n        self.scale = nn.Parameter(torch.ones(1))\n\n    def forward")
    assert "scaled_dot_product_attention(q * self.scale, k, v, scale=1.0)" in fixed(learned)


def test_an_added_mask_is_converted_to_the_queries_dtype():
    code = "import torch\nclass A(torch.nn.Module):\n    def forward(self, q, k, v, m):\n        return ((q @ k.mT) + m[0]).softmax(-1) @ v\n"
    assert "attn_mask=m[0].to(q.dtype)" in fixed(code)
    added_number = code.replace("m[0]", "0.5")
    assert "number" in fix_reason(added_number)


def test_no_fix_where_the_program_differentiates_twice_or_f_is_local():
    code = "import torch\nimport torch.nn.functional as F\nclass A(torch.nn.Module):\n    def forward(self, q, k, v):\n        out = (q @ k.mT).softmax(-1) @ v\n        return out\n"
    assert "twice" in fix_reason(code + "g = torch.autograd.grad(y, x, create_graph=True)\n")
    local = fixed(code.replace("        return out\n", "        B, T, F = out.shape\n        return out\n"))
    assert "torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=1.0)" in local


def test_spellings_of_product_softmax_scale_and_mask():
    for body in (
        "return F.softmax(q @ k.transpose(-2, -1) / math.sqrt(d), dim=-1) @ v",
        "return torch.matmul(torch.softmax(torch.matmul(q, k.transpose(-1, -2)) * d ** -0.5, -1), v)",
        "return (q.matmul(k.mT) + mask).softmax(-1).matmul(v)",
        "return torch.bmm(F.softmax(torch.bmm(q, k.transpose(-2, -1)), dim=-1), v)",
        "s = q @ k.transpose(-2, -1)\n    s = s.masked_fill(m == 0, float('-inf'))\n    return s.softmax(dim=-1) @ v",
    ):
        code = f"import math\nimport torch\nimport torch.nn.functional as F\nclass A(torch.nn.Module):\n  def forward(self, q, k, v, m, d, mask):\n    {body}\n"
        assert len(lint(code, [RULE])) == 1, body


def test_fix_arguments():
    code = """
    import torch
    import torch.nn.functional as F
    class A(torch.nn.Module):
        def forward(self, q, k, v, mask, bias):
            a = q @ k.transpose(-2, -1) / 8
            a = a.masked_fill(mask == 0, float("-inf"))
            return F.softmax(a, dim=-1) @ v
        def other(self, q, k, v, keep):
            return torch.softmax((q @ k.mT).masked_fill(~keep, -math.inf) * 0.5, dim=-1) @ v
    """
    after = fixed(code)
    assert "return F.scaled_dot_product_attention(q, k, v, attn_mask=mask != 0, scale=1 / 8)" in after
    assert "a = " not in after


def test_import_is_added_when_torch_is_imported_under_another_form():
    code = "from torch import nn\nclass A(nn.Module):\n    def forward(self, q, k, v):\n        return (q @ k.transpose(-2, -1)).softmax(-1) @ v\n"
    after = fixed(code)
    assert after.startswith("from torch import nn\nimport torch\n")
    assert "torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=1.0)" in after
    compile(after, "a", "exec")


def test_hard_negatives():
    for body in (
        "return torch.softmax(q @ k.transpose(-2, -1), dim=-2) @ v",  # another dimension
        "return (q @ k.transpose(-2, -1)) @ v",  # no softmax
        "return torch.softmax(q, dim=-1) @ (k.transpose(-2, -1) @ v)",  # linear attention
        "return torch.softmax(x @ w, dim=-1) @ v",  # logits, not q @ kᵀ
        "return torch.softmax(q @ k.permute(1, 0, 2), dim=-1) @ v",
    ):
        code = f"import torch\nclass A(torch.nn.Module):\n    def forward(self, q, k, v, x, w):\n        {body}\n"
        assert not lint(code, [RULE]), body


def test_silent_with_a_fused_path_in_setup_code_tests_and_old_torch():
    fallback = TIMM.replace("        q, k, v", "        if self.fused:\n            return F.scaled_dot_product_attention(q, k, v)\n        q, k, v")
    assert not lint(fallback, [RULE])
    assert not lint(TIMM.replace("def forward(self, x)", "def __init__(self, x)"), [RULE])
    assert not lint("import pytest\n" + TIMM, [RULE])
    assert not lint(TIMM, [RULE], torch_version=(1, 13))
    [finding] = lint(TIMM, [RULE], torch_version=(2, 0))
    assert "needs PyTorch 2.1" in finding.message and fixed(TIMM, (2, 0)) == textwrap.dedent(TIMM)


def test_findings_without_a_fix():
    cases = {
        "return weights": TIMM.replace("return self.proj(x)", "return self.proj(x), attn"),
        "dropout": TIMM.replace("        x = (attn", "        attn = self.attn_drop(attn)\n        x = (attn"),
        "-1e9": TIMM.replace("attn = attn.softmax", "attn = attn.masked_fill(m == 0, -1e9)\n        attn = attn.softmax"),
        "conditional": TIMM.replace("        attn = attn.softmax", "        if m is not None:\n            attn = attn + m\n        attn = attn.softmax"),
        "between": TIMM.replace("        attn = attn.softmax", "        log(x)\n        attn = attn.softmax"),
        "2, 3": TIMM.replace("transpose(-2, -1)", "transpose(2, 3)"),
        "inline": TIMM.replace("(attn @ v)", "(attn @ self.v(x))"),
        "scaled after": TIMM.replace("(q @ k.transpose(-2, -1)) * self.scale", "(q @ k.transpose(-2, -1) + m) * self.scale"),
        "rebinds": TIMM.replace("        attn = attn.softmax(dim=-1)", "        attn = attn.softmax(dim=-1)\n        v = attn"),
    }
    for case, code in cases.items():
        [finding] = lint(code, [RULE])
        assert finding.fix is None and "fix: none" in finding.message, case
        assert fixed(code) == textwrap.dedent(code), case


def test_function_called_once_at_module_level_is_not_reported():
    code = "import torch\ndef attend(q, k, v):\n    return (q @ k.transpose(-2, -1)).softmax(-1) @ v\nout = attend(a, b, c)\n"
    assert not lines(code, RULE)
    assert lines(code.replace("out = attend(a, b, c)\n", ""), RULE) == [3]


def test_permuted_keys_augmented_steps_and_conditional_updates():
    code = """
    import torch
    class A(torch.nn.Module):
        def forward(self, q, k, v, m, bias):
            energy = torch.matmul(q, k.permute(0, 1, 3, 2)) / self.scale
            energy += m
            return torch.matmul(torch.softmax(energy, dim=-1), v)
    """
    assert "scaled_dot_product_attention(q * (1 / self.scale), k, v, attn_mask=m.to(q.dtype), scale=1.0)" in fixed(code)
    assert not lint(code.replace("permute(0, 1, 3, 2)", "permute(0, 2, 1, 3)"), [RULE])
    conditional = code.replace("            energy += m", "            if bias is not None:\n                energy = energy + bias\n                energy += m")
    assert "conditional" in fix_reason(conditional)
    rebound = code.replace("            energy += m", "            if bias is not None:\n                energy = bias")
    assert not lint(rebound, [RULE])
    widened = code.replace("torch.softmax(energy, dim=-1)", "energy.softmax(dim=-1, dtype=torch.float32)")
    assert "dtype" in fix_reason(widened)


def test_weights_read_again_in_the_final_statement_or_after_it():
    code = """
    import torch
    class A(torch.nn.Module):
        def forward(self, q, k, v, v2):
            w = (q @ k.transpose(-2, -1)).softmax(-1)
            return (w @ v) + (w @ v2)
    """
    assert all(finding.fix is None for finding in lint(code, [RULE])) and fixed(code) == textwrap.dedent(code)
    rebound = """
    import torch
    class A(torch.nn.Module):
        def forward(self, q, k, v):
            attn = (q @ k.transpose(-2, -1)).softmax(-1)
            attn = attn @ v
            return attn
    """
    assert "attn = torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=1.0)\n        return attn" in fixed(rebound)
