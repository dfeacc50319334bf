"""Round 13: a project class that only wraps one biased layer (`ConvNorm`, whose `forward`
returns `self.conv(x)`) stands for that layer, in its own module or imported from another:
`nn.Sequential(ConvNorm(80, 512, 5), nn.BatchNorm1d(512))` wastes the conv's bias
(`semantics.biased_layers`)."""

from __future__ import annotations

import textwrap

from conftest import lint, project_findings

RULE = "TL301"

CONV_NORM = """
import torch
import torch.nn as nn


class ConvNorm(torch.nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size=1, bias=True, w_init_gain="linear"):
        super(ConvNorm, self).__init__()
        self.conv = torch.nn.Conv1d(in_channels, out_channels, kernel_size=kernel_size, bias=bias)
        torch.nn.init.xavier_uniform_(self.conv.weight, gain=torch.nn.init.calculate_gain(w_init_gain))

    def forward(self, signal):
        conv_signal = self.conv(signal)
        return conv_signal
"""


def _lines(code: str) -> list:
    return [finding.line for finding in lint(code, [RULE])]


def test_wrapper_in_its_own_module_is_its_layer():
    code = CONV_NORM + """
block = nn.Sequential(ConvNorm(80, 512, kernel_size=5), nn.BatchNorm1d(512))
kept = nn.Sequential(ConvNorm(80, 512, 5, True), nn.BatchNorm1d(512))
"""
    assert _lines(code) == [16, 17]
    [finding, _] = lint(code, [RULE])
    assert "the bias of the Conv1d that `ConvNorm` wraps" in finding.message
    assert finding.fix is not None and finding.fix.edits[0].content == "ConvNorm(80, 512, kernel_size=5, bias=False)"


def test_wrapper_submodule_wired_in_forward():
    code = CONV_NORM + """
class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = ConvNorm(80, 512, 5)
        self.bn = nn.BatchNorm1d(512)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))
"""
    assert _lines(code) == [19]


def test_hard_negatives_bias_off_activation_inside_or_other_norms():
    code = CONV_NORM + """
off = nn.Sequential(ConvNorm(80, 512, 5, bias=False), nn.BatchNorm1d(512))
positional_off = nn.Sequential(ConvNorm(80, 512, 5, False), nn.BatchNorm1d(512))
group = nn.Sequential(ConvNorm(80, 512, 5), nn.GroupNorm(8, 512))
between = nn.Sequential(ConvNorm(80, 512, 5), nn.ReLU(), nn.BatchNorm1d(512))
spread = nn.Sequential(ConvNorm(80, 512, **options), nn.BatchNorm1d(512))


class ConvReLU(nn.Module):
    def __init__(self, c_in, c_out):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, 3)

    def forward(self, x):
        return torch.relu(self.conv(x))


class ConvOff(nn.Module):
    def __init__(self, c_in, c_out, bias=False):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, 3, bias=bias)

    def forward(self, x):
        return self.conv(x)


class Twice(nn.Module):
    def __init__(self, c_in, c_out):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, 3)
        if c_in == c_out:
            self.conv = nn.Identity()

    def forward(self, x):
        return self.conv(x)


class Lookalike(nn.Module):
    def __init__(self, c_in, c_out):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, 3)

    def forward(self, x, scale):
        return self.conv(x) * scale


a = nn.Sequential(ConvReLU(3, 8), nn.BatchNorm2d(8))
b = nn.Sequential(ConvOff(3, 8), nn.BatchNorm2d(8))
c = nn.Sequential(Twice(3, 8), nn.BatchNorm2d(8))
d = nn.Sequential(Lookalike(3, 8), nn.BatchNorm2d(8))
"""
    assert _lines(code) == []


def test_wrapper_without_a_bias_parameter_is_reported_without_a_fix():
    code = """
import torch.nn as nn


class Conv(nn.Module):
    def __init__(self, c_in, c_out):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, 3, padding=1)

    def forward(self, x):
        return self.conv(x)


block = nn.Sequential(Conv(3, 8), nn.BatchNorm2d(8))
"""
    [finding] = lint(code, [RULE])
    assert finding.line == 14 and "build it without a bias" in finding.message
    assert finding.fix is None and "no parameter turns off" in finding.message


def test_wrapper_that_reads_its_bias_gets_no_fix():
    code = """
import torch.nn as nn


class Conv(nn.Module):
    def __init__(self, c_in, c_out, bias=True):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, 3, bias=bias)
        nn.init.zeros_(self.conv.bias)

    def forward(self, x):
        return self.conv(x)


block = nn.Sequential(Conv(3, 8), nn.BatchNorm2d(8))
"""
    [finding] = lint(code, [RULE])
    assert finding.fix is None and "reads its layer's `.bias`" in finding.message


def test_wrapper_imported_from_another_module(tmp_path, monkeypatch):
    model = """
    import torch.nn as nn
    from layers import ConvNorm
    from layers import ConvNorm as Plain


    class Postnet(nn.Module):
        def __init__(self):
            super().__init__()
            self.convolutions = nn.ModuleList()
            self.convolutions.append(nn.Sequential(ConvNorm(80, 512, kernel_size=5, w_init_gain="tanh"), nn.BatchNorm1d(512)))
            self.convolutions.append(nn.Sequential(Plain(512, 80, 5, bias=False), nn.BatchNorm1d(80)))

        def forward(self, x):
            for conv in self.convolutions:
                x = conv(x)
            return x


    model = Postnet()
    """
    found = project_findings(tmp_path, monkeypatch, {"layers.py": textwrap.dedent(CONV_NORM), "model.py": model}, RULE)
    assert found == {("model.py", RULE, 11)}


def test_fixed_multiline_layer_keeps_its_continuation_indentation():
    """A layer that starts on a continuation line keeps its own lines' indentation when the
    fix adds `bias=False` (they are indented from the statement, not from the layer's line)."""
    code = textwrap.dedent("""
    import torch.nn as nn
    blocks = []
    for _ in range(3):
        block = nn.Sequential(
            nn.Conv1d(512,
                      512, kernel_size=5,
                      padding=2),
            nn.BatchNorm1d(512))
        blocks.append(block)
    """)
    [finding] = lint(code, [RULE])
    assert finding.fix is not None
    assert finding.fix.edits[0].content == "nn.Conv1d(512,\n                  512, kernel_size=5,\n                  padding=2,\n                  bias=False)"


INFERENCE = """
import torch
import torch.nn as nn


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, 32, 3), nn.BatchNorm2d(32), nn.LeakyReLU())

    def forward(self, x):
        return self.encoder(x)


if __name__ == "__main__":
    model = VAE()
    model.load_state_dict(torch.load("vae_celeba.pt"))
    model.eval()
    with torch.no_grad():
        codes = model(images)
"""


def test_a_program_that_never_trains_keeps_the_bias_its_weights_have():
    """A script that only loads a checkpoint and runs the model must match the weights, which
    were trained with the bias; a script that trains the same class is reported."""
    assert _lines(INFERENCE) == []
    training = INFERENCE.replace("    model.eval()\n", "    opt = torch.optim.Adam(model.parameters())\n    model(images).mean().backward()\n    opt.step()\n")
    assert _lines(training) == [9]


def test_a_model_module_whose_main_block_only_builds_it_is_judged():
    """A `__main__` self-test that builds the model loads no weights: the class is trained by
    whatever builds it elsewhere (a Hydra configuration naming it)."""
    self_test = INFERENCE.split('if __name__ == "__main__":')[0] + 'if __name__ == "__main__":\n    _ = VAE()\n'
    assert _lines(self_test) == [9]
