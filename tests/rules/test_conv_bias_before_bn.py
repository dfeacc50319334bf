from conftest import lines, lint

RULE = "TL301"


def test_sequential_pairs_of_every_dimension():
    code = """
    import torch.nn as nn
    a = nn.Sequential(nn.Conv1d(3, 8, 3), nn.BatchNorm1d(8))
    b = nn.Sequential(nn.Conv3d(3, 8, 3), nn.BatchNorm3d(8))
    c = nn.Sequential(nn.ConvTranspose2d(3, 8, 3), nn.BatchNorm2d(8))
    d = nn.Sequential(nn.Linear(3, 8), nn.BatchNorm1d(8))
    e = nn.Sequential(nn.Conv2d(3, 8, 3, bias=True), nn.SyncBatchNorm(8))
    """
    assert lines(code, RULE) == [3, 4, 5, 6, 7]


def test_ordered_dict_and_layer_lists():
    code = """
    from collections import OrderedDict
    import torch.nn as nn
    a = nn.Sequential(OrderedDict([("conv", nn.Conv2d(3, 8, 3)), ("bn", nn.BatchNorm2d(8))]))
    def make_layers(cfg):
        layers = []
        for v in cfg:
            conv2d = nn.Conv2d(3, v, kernel_size=3, padding=1)
            layers += [conv2d, nn.BatchNorm2d(v), nn.ReLU(inplace=True)]
        return nn.Sequential(*layers)
    """
    assert lines(code, RULE) == [4, 8]


def test_submodules_wired_in_forward():
    code = """
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 8, 3)
            self.bn1 = nn.BatchNorm2d(8)
            self.conv2 = nn.Conv2d(8, 8, 3)
            self.bn2 = nn.BatchNorm2d(8)
            self.conv3 = nn.Conv2d(8, 8, 3)
            self.bn3 = nn.BatchNorm2d(8)
        def forward(self, x):
            x = self.bn1(self.conv1(x))
            x = self.conv2(x)
            x = self.bn2(x)
            y = self.conv3(x)
            x = self.relu(y)
            return self.bn3(x)
    """
    assert lines(code, RULE) == [6, 8]


def test_anything_in_between_or_bias_disabled():
    code = """
    import torch.nn as nn
    a = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.BatchNorm2d(8))
    b = nn.Sequential(nn.Conv2d(3, 8, 3), nn.Dropout(), nn.BatchNorm2d(8))
    c = nn.Sequential(nn.Conv2d(3, 8, 3, bias=False), nn.BatchNorm2d(8))
    d = nn.Sequential(nn.Conv2d(3, 8, 3, bias=use_bias), nn.BatchNorm2d(8))
    e = nn.Sequential(nn.Conv2d(3, 8, 3), nn.LayerNorm(8))
    f = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(16))
    g = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm1d(8))
    h = nn.ModuleList([nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8)])
    i = nn.Sequential(nn.Conv2d(3, 8, 3, **kw), nn.BatchNorm2d(8))
    """
    assert lines(code, RULE) == []


def test_conv_used_elsewhere_or_shared():
    code = """
    import torch.nn as nn
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 8, 3)
            self.bn = nn.BatchNorm2d(8)
            self.proj = nn.Conv2d(3, 8, 1)
            self.bn_proj = nn.BatchNorm2d(8)
        def forward(self, x):
            y = self.conv(x)
            z = self.bn(y)
            a = self.bn_proj(self.proj(x))
            b = self.proj(x) * 2
            return z + y + a + b
    """
    assert lines(code, RULE) == []


def test_look_alike_layers_are_not_torch():
    code = """
    import torch
    from mylib.layers import Conv2d, BatchNorm2d, Sequential
    a = Sequential(Conv2d(3, 8, 3), BatchNorm2d(8))
    b = [Conv2d(3, 8, 3), BatchNorm2d(8)]
    """
    assert lines(code, RULE) == []


def test_fix_passes_bias_false():
    [finding] = lint("import torch.nn as nn\nm = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8))\n", [RULE])
    assert finding.fix is not None and finding.fix.applicability.value == "unsafe"
    assert finding.fix.edits[0].content == "nn.Conv2d(3, 8, 3, bias=False)"


def test_positional_bias_star_arguments_and_lazy_layers():
    code = """
    import torch.nn as nn
    a = nn.Sequential(nn.Linear(8, 16, False), nn.BatchNorm1d(16))
    b = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, 1, 1, False), nn.BatchNorm2d(16))
    c = nn.Sequential(nn.Conv2d(3, 16, 3), *middle, nn.BatchNorm2d(16))
    d = nn.Sequential(nn.LazyConv2d(16, 3), nn.BatchNorm2d(16))
    e = nn.Sequential(nn.LazyConv2d(16, 3), nn.BatchNorm2d(32))
    f = nn.Sequential(nn.Conv1d(8, 16, 1, 1, 0, 1, 1, True), nn.BatchNorm1d(16))
    """
    assert lines(code, RULE) == [6, 8]
    fixes = [f.fix.edits[0].content for f in lint(code, [RULE])]
    assert fixes == ["nn.LazyConv2d(16, 3, bias=False)", "nn.Conv1d(8, 16, 1, 1, 0, 1, 1, False)"]


def test_named_layer_used_without_batchnorm_elsewhere_is_not_reported():
    code = """
    import torch.nn as nn
    def make_layers(cfg, batch_norm):
        layers = []
        for v in cfg:
            conv2d = nn.Conv2d(3, v, kernel_size=3, padding=1)
            if batch_norm:
                layers += [conv2d, nn.BatchNorm2d(v), nn.ReLU(inplace=True)]
            else:
                layers += [conv2d, nn.ReLU(inplace=True)]
        return nn.Sequential(*layers)
    """
    assert lines(code, RULE) == []


def test_lists_built_by_append_and_passed_to_sequential():
    code = """
    import torch.nn as nn
    def block(c):
        layers = []
        layers.append(nn.Conv2d(3, c, 3))
        layers.append(nn.BatchNorm2d(c))
        layers.append(nn.ReLU())
        return nn.Sequential(*layers)
    def head(c):
        conv = nn.Conv2d(3, c, 1)
        layers = [nn.Identity()]
        layers.append(conv)
        layers.extend([nn.BatchNorm2d(c), nn.ReLU()])
        return nn.Sequential(*layers)
    def stem(c):
        layers = [nn.Conv2d(3, c, 3)]
        layers += [nn.BatchNorm2d(c)]
        return nn.Sequential(*layers)
    """
    assert lines(code, RULE) == [5, 10, 16]


def test_built_lists_hard_negatives():
    code = """
    import torch.nn as nn
    def between(c):
        layers = []
        layers.append(nn.Conv2d(3, c, 3))
        layers.append(nn.ReLU())
        layers.append(nn.BatchNorm2d(c))
        return nn.Sequential(*layers)
    def conditional(c, act):
        layers = [nn.Conv2d(3, c, 3)]
        if act:
            layers.append(nn.ReLU())
        layers.append(nn.BatchNorm2d(c))
        return nn.Sequential(*layers)
    def conditional_norm_with_else(c, norm):
        layers = [nn.Conv2d(3, c, 3)]
        if norm:
            layers.append(nn.BatchNorm2d(c))
        else:
            layers.append(nn.Identity())
        return nn.Sequential(*layers)
    def norm_in_a_loop(c, norm):
        layers = [nn.Conv2d(3, c, 3)]
        for _ in range(norm):
            layers.append(nn.BatchNorm2d(c))
        return nn.Sequential(*layers)
    def reordered(c):
        layers = [nn.Conv2d(3, c, 3)]
        layers.insert(1, nn.ReLU())
        layers.append(nn.BatchNorm2d(c))
        return nn.Sequential(*layers)
    def rebound(c):
        layers = [nn.Conv2d(3, c, 3)]
        layers = other(layers)
        layers.append(nn.BatchNorm2d(c))
        return nn.Sequential(*layers)
    def unrelated(c):
        layers = [nn.Conv2d(3, c, 3, bias=False)]
        layers.append(nn.BatchNorm2d(c))
        return nn.ModuleList(layers)
    """
    assert lines(code, RULE) == []


def test_instance_norm_after_conv_and_conv_transpose():
    code = """
    import torch.nn as nn
    a = nn.Sequential(nn.Conv2d(3, 8, 3), nn.InstanceNorm2d(8), nn.ReLU())
    b = nn.Sequential(nn.ConvTranspose2d(8, 3, 4, 2, 1), nn.InstanceNorm2d(3, affine=True))
    c = nn.Sequential(nn.Conv1d(3, 8, 3), nn.InstanceNorm1d(8))
    d = nn.Sequential(nn.Conv3d(3, 8, 3), nn.LazyInstanceNorm3d())
    """
    findings = lint(code, [RULE])
    assert [f.line for f in findings] == [3, 4, 5, 6]
    assert "InstanceNorm2d that follows" in findings[0].message
    assert findings[1].fix.edits[0].content == "nn.ConvTranspose2d(8, 3, 4, 2, 1, bias=False)"


def test_norms_that_keep_a_per_channel_bias_are_hard_negatives():
    """GroupNorm and LayerNorm average over several channels; an InstanceNorm1d after a
    Linear normalises the features' positions, not the features; dimensions must match."""
    code = """
    import torch.nn as nn
    a = nn.Sequential(nn.Conv2d(3, 8, 3), nn.GroupNorm(2, 8))
    b = nn.Sequential(nn.Conv2d(3, 8, 3), nn.LayerNorm([8, 30, 30]))
    c = nn.Sequential(nn.Linear(3, 8), nn.InstanceNorm1d(8))
    d = nn.Sequential(nn.Conv2d(3, 8, 3), nn.InstanceNorm1d(8))
    e = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.InstanceNorm2d(8))
    """
    assert lines(code, RULE) == []


GAN_BLOCKS = """
import torch.nn as nn
def discriminator_block(in_filters, out_filters, normalize=True):
    layers = [nn.Conv2d(in_filters, out_filters, 4, stride=2, padding=1)]
    if normalize:
        layers.append(nn.InstanceNorm2d(out_filters))
    layers.append(nn.LeakyReLU(0.2, inplace=True))
    return layers
def generator_block(in_feat, out_feat, normalize=True):
    layers = [nn.Linear(in_feat, out_feat)]
    if normalize: layers.append(nn.BatchNorm1d(out_feat, 0.8))
    layers.append(nn.LeakyReLU(0.2, inplace=True))
    return layers
def up(c, norm_type="batch"):
    layers = [nn.ConvTranspose2d(c, c // 2, 4, 2, 1)]
    if norm_type == "batch":
        layers.append(nn.BatchNorm2d(c // 2))
    return nn.Sequential(*layers, nn.ReLU())
"""


def test_conditionally_appended_norm_gets_bias_not_condition():
    findings = lint(GAN_BLOCKS, [RULE])
    assert [f.line for f in findings] == [4, 10, 15]
    assert "whenever `normalize` holds; pass `bias=not normalize`" in findings[0].message
    assert findings[0].fix.edits[0].content == "nn.Conv2d(in_filters, out_filters, 4, stride=2, padding=1, bias=not normalize)"
    assert findings[1].fix is None  # a Linear: BatchNorm1d may normalise another axis
    assert findings[2].fix.edits[0].content == 'nn.ConvTranspose2d(c, c // 2, 4, 2, 1, bias=not (norm_type == "batch"))'


def test_conditional_norm_whose_condition_may_change_gets_no_fix():
    code = """
    import torch.nn as nn
    def rebound(c, norm):
        layers = [nn.Conv2d(3, c, 3)]
        norm = norm and c > 8
        if norm:
            layers.append(nn.BatchNorm2d(c))
        return layers
    class Block(nn.Module):
        def build(self, c):
            layers = [nn.Conv2d(3, c, 3)]
            if self.use_norm:
                layers.append(nn.BatchNorm2d(c))
            return layers
    """
    findings = lint(code, [RULE])
    assert [f.line for f in findings] == [4, 11]
    assert all(f.fix is None for f in findings)


def test_conditional_item_that_is_not_a_norm_or_a_norm_after_it():
    code = """
    import torch.nn as nn
    def dropout_then_norm(c, drop):
        layers = [nn.Conv2d(3, c, 3)]
        if drop:
            layers.append(nn.Dropout())
        layers.append(nn.BatchNorm2d(c))
        return layers
    def norm_after_activation(c, norm):
        layers = [nn.Conv2d(3, c, 3), nn.ReLU()]
        if norm:
            layers.append(nn.InstanceNorm2d(c))
        return layers
    def elif_branch(c, kind):
        layers = [nn.Conv2d(3, c, 3)]
        if kind == "a":
            pass
        elif kind == "b":
            layers.append(nn.BatchNorm2d(c))
        return layers
    """
    assert lines(code, RULE) == []


def test_a_norm_behind_a_flag_that_defaults_to_off_is_opt_in():
    off = GAN_BLOCKS.replace("normalize=True", "normalize=False")
    assert [f.line for f in lint(off, [RULE])] == [15]
    assert [f.line for f in lint(GAN_BLOCKS.replace("normalize=True", "*, normalize=None"), [RULE])] == [15]
    assert [f.line for f in lint(GAN_BLOCKS.replace("normalize=True", "normalize"), [RULE])] == [4, 10, 15]


def test_a_list_literal_is_fixed_only_where_it_runs_in_order():
    code = """
import torch.nn as nn

def vgg(config):
    layers = []
    for width in config:
        layers += [nn.Conv2d(3, width, 3), nn.BatchNorm2d(width), nn.ReLU()]
    return nn.Sequential(*layers)

def postnet(width):
    stage = [nn.Conv1d(width, width, 5), nn.BatchNorm1d(width)] + [nn.Tanh()]
    return nn.Sequential(*stage)

class RepBlock(nn.Module):
    def __init__(self, width):
        super().__init__()
        branches = [nn.Conv2d(width, width, 1), nn.BatchNorm2d(width), nn.Identity()]
        self.branches = nn.ModuleList(branches)
"""
    findings = {finding.line: finding for finding in lint(code, ["TL301"])}
    assert sorted(findings) == [7, 11, 17]
    assert findings[7].fix is not None and findings[11].fix is not None
    assert findings[17].fix is None and "parallel branches" in findings[17].message
