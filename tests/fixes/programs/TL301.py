# %% control: a conv bias cancelled by BatchNorm in eval mode [unsafe]
import torch
import torch.nn as nn

torch.manual_seed(0)
block = nn.Sequential(nn.Conv2d(2, 4, 3), nn.BatchNorm2d(4))
show(block(torch.randn(2, 2, 5, 5)).shape)

# %% init code zeroes every bias [none]
import torch
import torch.nn as nn

torch.manual_seed(0)
block = nn.Sequential(nn.Conv2d(2, 4, 3), nn.BatchNorm2d(4))
for module in block.modules():
    if isinstance(module, nn.Conv2d):
        nn.init.zeros_(module.bias)
show(block(torch.randn(1, 2, 5, 5)).shape)

# %% the bias is read by name [none]
import torch
import torch.nn as nn

torch.manual_seed(0)
block = nn.Sequential(nn.Conv2d(2, 4, 3), nn.BatchNorm2d(4))
show(block.state_dict()["0.bias"].shape)

# %% Linear then BatchNorm1d over a 3-D input [none]
import torch
import torch.nn as nn

torch.manual_seed(0)
block = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4))
show(block(torch.randn(2, 4, 4)).shape)

# %% the norm may be an Identity [none]
import torch
import torch.nn as nn

class Block(nn.Module):
    def __init__(self, norm):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3)
        self.bn = nn.Identity()
        if norm:
            self.bn = nn.BatchNorm2d(4)

    def forward(self, x):
        return self.bn(self.conv(x))

torch.manual_seed(0)
show(Block(False)(torch.ones(1, 2, 3, 3)))

# %% the bias checked for None before use [unsafe]
import torch
import torch.nn as nn

torch.manual_seed(0)
block = nn.Sequential(nn.Conv2d(2, 4, 3), nn.BatchNorm2d(4))
for module in block.modules():
    if isinstance(module, nn.Conv2d) and module.bias is not None:
        nn.init.zeros_(module.bias)
show(block(torch.randn(2, 2, 5, 5)).shape)

# %% conv1d and BatchNorm1d [unsafe]
import torch
import torch.nn as nn

torch.manual_seed(0)
block = nn.Sequential(nn.Conv1d(2, 4, 1), nn.BatchNorm1d(4))
show(block(torch.randn(2, 2, 5)).shape)

# %% a conditionally appended InstanceNorm: bias=not normalize [unsafe, same]
import torch
import torch.nn as nn

def block(in_channels, out_channels, normalize=True):
    layers = [nn.Conv2d(in_channels, out_channels, 3, padding=1)]
    if normalize:
        layers.append(nn.InstanceNorm2d(out_channels))
    layers.append(nn.LeakyReLU(0.2))
    return layers

x = torch.randn(2, 3, 6, 6)
torch.manual_seed(1)
model = nn.Sequential(*block(3, 4, normalize=False), *block(4, 4))
show(model(x).round(decimals=4))

# %% a conditional BatchNorm chosen by a string, after a ConvTranspose [unsafe, same]
import torch
import torch.nn as nn

def up(channels, norm="batch"):
    layers = [nn.ConvTranspose2d(channels, channels // 2, 4, 2, 1)]
    if norm == "batch":
        layers.append(nn.BatchNorm2d(channels // 2))
    return nn.Sequential(*layers, nn.ReLU())

x = torch.randn(2, 4, 3, 3)
torch.manual_seed(1)
first, second = up(4, norm="none"), up(4)
show(first(x).round(decimals=4), second(x).round(decimals=4))

# %% InstanceNorm with running statistics, evaluated after training steps [unsafe]
import torch
import torch.nn as nn

torch.manual_seed(0)
block = nn.Sequential(nn.Conv2d(2, 4, 3), nn.InstanceNorm2d(4, track_running_stats=True))
for _ in range(3):
    block(torch.randn(2, 2, 5, 5))
block.eval()
show(block(torch.randn(1, 2, 5, 5)).shape)

# %% a list literal of parallel branches summed, RepVGG-style [none]
import torch
from torch import nn


class RepBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        branches = [nn.Conv2d(channels, channels, 1), nn.BatchNorm2d(channels), nn.Identity()]
        self.branches = nn.ModuleList(branches)

    def forward(self, x):
        return sum(branch(x) for branch in self.branches)


torch.manual_seed(0)
model = RepBlock(2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    loss = model(torch.randn(2, 2, 3, 3)).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
model.eval()
show(model(torch.ones(1, 2, 3, 3)).round(decimals=3))

# %% the conv's weights copied from a pretrained conv's state dict [none]
import torch
import torch.nn as nn

torch.manual_seed(0)
pretrained = nn.Conv2d(3, 8, 3)
model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU())
model[0].load_state_dict(pretrained.state_dict())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    loss = model(torch.randn(2, 3, 6, 6)).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(round(loss.item(), 5))

# %% round 8: a conv block built in a helper returning nn.Sequential, trained then evaluated [unsafe]
import torch
import torch.nn as nn


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU())


torch.manual_seed(0)
model = nn.Sequential(block(3, 4), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for step in range(3):
    model.train()
    loss = model(torch.randn(4, 3, 6, 6)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
model.eval()
print(sum(p.numel() for p in model.parameters()), round(model(torch.ones(1, 3, 6, 6)).sum().item(), 3))

# %% round 8: a state_dict round trip of the model with the conv bias [unsafe]
import io

import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)

    def forward(self, x):
        return self.bn(self.conv(x)).relu().mean((2, 3))


torch.manual_seed(0)
net = Net()
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
for step in range(2):
    loss = net(torch.randn(2, 3, 5, 5)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
buf = io.BytesIO()
torch.save(net.state_dict(), buf)
buf.seek(0)
fresh = Net()
fresh.load_state_dict(torch.load(buf))
print(sorted(fresh.state_dict().keys()))

# %% round 9: conv arguments all given by position, bias True last [unsafe, same]
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 4, 3, 1, 1, 1, 1, True), nn.BatchNorm2d(4), nn.ReLU())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    loss = model(torch.randn(2, 3, 5, 5)).mean()
    opt.zero_grad(); loss.backward(); opt.step()
print("ok")

# %% round 9: a LayerNorm over channels after a 1-D conv [unsafe]
import torch
import torch.nn as nn

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(3, 4, 3, padding=1)
        self.norm = nn.BatchNorm1d(4)
    def forward(self, x):
        return self.norm(self.conv(x)).relu()

torch.manual_seed(0)
model = Block()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    loss = model(torch.randn(2, 3, 5)).mean()
    opt.zero_grad(); loss.backward(); opt.step()
print([name for name, _ in model.named_parameters()])

# %% round 9: a conv-bn block whose conv weights are initialised by kaiming in a loop over modules [unsafe]
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU())
for m in model.modules():
    if isinstance(m, nn.Conv2d):
        nn.init.kaiming_normal_(m.weight)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    loss = model(torch.ones(2, 3, 4, 4)).mean()
    opt.zero_grad(); loss.backward(); opt.step()
print(len(list(model.parameters())))

# %% round 10: the conv's parameters unpacked into weight and bias for an init [none]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU())
weight, bias = model[0].parameters()
nn.init.ones_(weight)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 1, 5, 5)
for step in range(2):
    loss = model(x).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 6))

# %% round 10: the conv bias looked up by its dotted name with get_parameter [none]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv1d(2, 3, 3), nn.BatchNorm1d(3))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(4, 2, 6)
for step in range(2):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(model.get_parameter("0.bias").shape)

# %% round 10: the conv bias read with operator.attrgetter of a dotted path [none]
import operator
import torch
from torch import nn

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3, padding=1)
        self.bn = nn.BatchNorm2d(2)

    def forward(self, x):
        return self.bn(self.conv(x)).relu()

torch.manual_seed(0)
block = Block()
opt = torch.optim.SGD(block.parameters(), lr=0.1)
x = torch.randn(2, 1, 4, 4)
read_bias = operator.attrgetter("conv.bias")
for step in range(2):
    loss = block(x).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(read_bias(block).shape)

# %% round 10: parameters counted per tensor for logging [unsafe]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 4, 3, bias=True), nn.BatchNorm2d(4), nn.ReLU())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
print("tensors", len(list(model.parameters())))
x = torch.randn(2, 3, 6, 6)
for step in range(2):
    model.train()
    loss = model(x).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 5))

# %% round 12: a conv, channel dropout and BatchNorm in a Sequential trained for a few steps [none]
import torch
import torch.nn as nn

torch.manual_seed(0)
block = nn.Sequential(nn.Conv2d(2, 4, 3), nn.Dropout2d(0.5), nn.BatchNorm2d(4))
opt = torch.optim.SGD(block.parameters(), lr=0.1)
for step in range(2):
    out = block(torch.randn(3, 2, 5, 5))
    loss = out.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(out.abs().sum().item(), 3))

# %% round 12: a conv followed by GroupNorm in a decoder block's forward [none]
import torch
import torch.nn as nn


class Up(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 8, 3, padding=1)
        self.norm = nn.GroupNorm(2, 8)

    def forward(self, x):
        return self.norm(self.conv(x))


torch.manual_seed(0)
up = Up()
opt = torch.optim.SGD(up.parameters(), lr=0.1)
for step in range(2):
    out = up(torch.randn(2, 4, 4, 4))
    loss = out[:, :4].mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(out.sum().item(), 3), round(out[:, :4].mean().item(), 4))

# %% round 12: a pre-activation block applies ReLU between the conv and the BatchNorm in forward [none]
import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)

    def forward(self, x):
        return self.bn(F.relu(self.conv(x)))


torch.manual_seed(0)
b = Block()
opt = torch.optim.SGD(b.parameters(), lr=0.1)
for step in range(2):
    out = b(torch.randn(2, 3, 4, 4))
    loss = out[:, 0].mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 12: a conv then max pooling then BatchNorm in a Lightning-style training_step [none]
import torch
import torch.nn as nn


class Lit(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.MaxPool2d(2), nn.BatchNorm2d(4), nn.ReLU())
        self.head = nn.Linear(16, 2)

    def training_step(self, batch):
        x, y = batch
        return nn.functional.cross_entropy(self.head(self.features(x).flatten(1)), y)


torch.manual_seed(0)
lit = Lit()
opt = torch.optim.SGD(lit.parameters(), lr=0.1)
for step in range(2):
    loss = lit.training_step((torch.randn(4, 1, 4, 4), torch.tensor([0, 1, 0, 1])))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 3))

# %% round 12: a conv followed by LayerNorm over channels and space in a Sequential [none]
import torch
import torch.nn as nn

torch.manual_seed(0)
stem = nn.Sequential(nn.Conv2d(1, 2, 3), nn.LayerNorm([2, 2, 2]))
opt = torch.optim.SGD(stem.parameters(), lr=0.1)
for step in range(2):
    out = stem(torch.randn(3, 1, 4, 4))
    loss = out[:, 0].mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 12: a conv and BatchNorm built by a builder function in another class, trained on fresh random inputs [unsafe]
import torch
import torch.nn as nn


class Layers:
    @staticmethod
    def conv_bn(cin, cout):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU())


torch.manual_seed(0)
net = nn.Sequential(Layers.conv_bn(1, 3), Layers.conv_bn(3, 3), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(3, 2))
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for step in range(2):
    loss = nn.functional.cross_entropy(net(torch.randn(4, 1, 5, 5)), torch.tensor([0, 1, 1, 0]))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 3))

# %% round 13: a conv whose bias=True is given by position, followed by BatchNorm in a Sequential [unsafe]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(2, 4, 3, 1, 1, 1, 1, True), nn.BatchNorm2d(4), nn.ReLU())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 2, 5, 5)
for step in range(2):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
show(loss)

# %% round 13: a conv whose options come from a config dict that holds bias, followed by BatchNorm [none]
import torch
from torch import nn

torch.manual_seed(0)
conv_cfg = dict(kernel_size=3, padding=1, bias=True)
model = nn.Sequential(nn.Conv2d(2, 4, **conv_cfg), nn.BatchNorm2d(4))
x = torch.randn(2, 2, 5, 5)
for step in range(2):
    loss = model(x).pow(2).mean()
    loss.backward()
show(loss)

# %% round 13: a transposed conv with every argument up to bias by position before BatchNorm [unsafe]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.ConvTranspose2d(2, 4, 3, 1, 1, 0, 1, True), nn.BatchNorm2d(4))
x = torch.randn(2, 2, 5, 5)
for step in range(2):
    loss = model(x).pow(2).mean()
    loss.backward()
show(loss)

# %% round 13: a conv made through a functools.partial alias, followed by an aliased BatchNorm [none]
import functools
import torch
from torch import nn

Conv3x3 = functools.partial(nn.Conv2d, kernel_size=3, padding=1)
BN = nn.BatchNorm2d
torch.manual_seed(0)
model = nn.Sequential(Conv3x3(2, 4), BN(4))
x = torch.randn(2, 2, 5, 5)
for step in range(2):
    loss = model(x).pow(2).mean()
    loss.backward()
print(round(loss.item(), 4))

# %% round 13: a conv block with a comment and a line continuation inside the conv call [unsafe]
import torch
from torch import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4,  # channels
                              kernel_size=3, \
                              padding=1)
        self.bn = nn.BatchNorm2d(4)

    def forward(self, x):
        return self.bn(self.conv(x)).relu()


torch.manual_seed(0)
model = Block()
x = torch.randn(2, 2, 5, 5)
for step in range(2):
    loss = model(x).pow(2).mean()
    loss.backward()
print(round(loss.item(), 4))

# %% round 13: a conv, BatchNorm pair in a tab-indented nn.Module with a skip taken before the norm [none]
import torch
from torch import nn


class Block(nn.Module):
	def __init__(self):
		super().__init__()
		self.conv = nn.Conv2d(2, 2, 3, padding=1)
		self.bn = nn.BatchNorm2d(2)

	def forward(self, x):
		y = self.conv(x)
		return self.bn(y) + y


torch.manual_seed(0)
model = Block()
x = torch.randn(2, 2, 5, 5)
for step in range(2):
	loss = model(x).pow(2).mean()
	loss.backward()
print(round(loss.item(), 4))

# %% round 13: conv biases zeroed by an init loop guarded by a None test, then a few training steps [unsafe]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU())
for m in model.modules():
    if isinstance(m, nn.Conv2d) and m.bias is not None:
        nn.init.zeros_(m.bias)
x = torch.randn(2, 2, 5, 5)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(round(loss.item(), 4))

# %% round 13: conv biases zeroed through .bias.data in an init loop without a None test [none]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.BatchNorm2d(4))
for m in model.modules():
    if isinstance(m, nn.Conv2d):
        m.bias.data.zero_()
x = torch.randn(2, 2, 5, 5)
for step in range(2):
    loss = model(x).pow(2).mean()
    loss.backward()
print(round(loss.item(), 4))

# %% round 13: a weight-standardised conv subclass passes self.bias to F.conv2d before BatchNorm [none]
import torch
from torch import nn
import torch.nn.functional as F


class WSConv2d(nn.Conv2d):
    def forward(self, x):
        w = self.weight - self.weight.mean(dim=(1, 2, 3), keepdim=True)
        return F.conv2d(x, w, self.bias, self.stride, self.padding)


torch.manual_seed(0)
model = nn.Sequential(WSConv2d(2, 4, 3, padding=1), nn.BatchNorm2d(4))
x = torch.randn(2, 2, 5, 5)
for step in range(2):
    loss = model(x).pow(2).mean()
    loss.backward()
print(round(loss.item(), 4))

# %% round 11: convs and BatchNorms appended one after another in the body of a loop [unsafe, same]
import torch
import torch.nn as nn

torch.manual_seed(0)
layers = []
channels = 2
for width in (4, 8):
    layers.append(nn.Conv2d(channels, width, 3))
    layers.append(nn.BatchNorm2d(width))
    layers.append(nn.ReLU())
    channels = width
block = nn.Sequential(*layers)
show(block(torch.randn(2, 2, 9, 9)).shape)

# %% round 14: conv biases initialised through model.apply with a lambda without a None test [none]
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU())
model.apply(lambda m: nn.init.constant_(m.bias, 0.1) if isinstance(m, nn.Conv2d) else None)
x = torch.randn(2, 1, 5, 5)
for step in range(2):
    model(x).sum().backward()
show(model[0].weight.grad.sum())

# %% round 14: conv biases guarded by a conditional expression in the init [none]
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU())
for m in model.modules():
    if isinstance(m, nn.Conv2d):
        nn.init.zeros_(m.bias) if m.bias is not None else None
x = torch.randn(2, 1, 5, 5)
for step in range(2):
    model(x).sum().backward()
show(model[0].weight.grad.sum())

# %% round 14: weights copied from a reference model by zipping their parameters [none]
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3)
        self.bn = nn.BatchNorm2d(2)

    def forward(self, x):
        return self.bn(self.conv(x))


torch.manual_seed(0)
reference = nn.ModuleDict({"conv": nn.Conv2d(1, 2, 3, bias=True), "bn": nn.LayerNorm(3)})
model = Block()
for src, dst in zip(reference["conv"].parameters(), model.conv.parameters()):
    dst.data.copy_(src.data)
x = torch.randn(2, 1, 5, 5)
for step in range(2):
    model(x).sum().backward()
show(model.conv.weight.grad.sum())

# %% round 14: a frozen-BN fine-tuning loop over a conv block in a training function [unsafe]
import torch
import torch.nn as nn


def finetune():
    torch.manual_seed(0)
    block = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2))
    block[1].eval()
    opt = torch.optim.SGD(block[0].parameters(), lr=0.1)
    x = torch.randn(2, 1, 5, 5)
    for step in range(2):
        opt.zero_grad()
        block(x).pow(2).mean().backward()
        opt.step()
    show(round(block(x).sum().item(), 3))


finetune()

# %% round 14: an InstanceNorm with running statistics after a conv with a line continuation [unsafe]
import torch
import torch.nn as nn

torch.manual_seed(0)
conv = nn.Conv2d(1, 2, 3, \
                 padding=1)
norm = nn.InstanceNorm2d(2, track_running_stats=True)
model = nn.Sequential(conv, norm)
x = torch.randn(2, 1, 4, 4)
for step in range(2):
    model(x).sum().backward()
model.eval()
show(round(model(x).sum().item(), 3))

# %% round 14: weight-decay groups split by checking ndim of the parameters [unsafe]
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2))
decay = [p for p in model.parameters() if p.ndim > 1]
no_decay = [p for p in model.parameters() if p.ndim <= 1]
opt = torch.optim.SGD([{"params": decay, "weight_decay": 0.1}, {"params": no_decay}], lr=0.1)
x = torch.randn(2, 1, 5, 5)
for step in range(2):
    opt.zero_grad()
    model(x).sum().backward()
    opt.step()
show(model[0].weight.sum(), len(no_decay) > 0)

# %% round 14: conv parameters flattened with parameters_to_vector and written back to a twin [none]
import torch
import torch.nn as nn
from torch.nn.utils import parameters_to_vector, vector_to_parameters

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2))
twin = nn.Sequential(nn.Conv2d(1, 2, 3, bias=True), nn.GroupNorm(1, 2))
vector_to_parameters(parameters_to_vector(twin.parameters()), model.parameters())
x = torch.randn(2, 1, 5, 5)
for step in range(2):
    model(x).sum().backward()
show(model[0].weight.grad.sum())

# %% round 15: parameters sliced into two optimizer groups by position [none]
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2))
params = list(model.parameters())
opt = torch.optim.SGD([{"params": params[:2], "lr": 0.0}, {"params": params[2:], "lr": 0.1}])
x = torch.randn(2, 1, 5, 5)
for step in range(2):
    opt.zero_grad()
    model(x).pow(3).mean().backward()
    opt.step()
show(round(model[1].weight.sum().item(), 4))

# %% round 15: parameters zipped with a list of per-parameter learning rates [none]
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2))
groups = [{"params": [p], "lr": lr} for p, lr in zip(model.parameters(), [0.0, 0.0, 0.1, 0.1])]
opt = torch.optim.SGD(groups)
x = torch.randn(2, 1, 5, 5)
for step in range(2):
    opt.zero_grad()
    model(x).pow(3).mean().backward()
    opt.step()
show(round(model[1].weight.sum().item(), 4))

# %% round 15: a parameter picked by enumerate over the parameters [none]
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2))
for i, p in enumerate(model.parameters()):
    if i == 2:
        p.requires_grad_(False)
print([p.requires_grad for p in model.parameters()])

# %% round 15: a parameter read from the optimizer's param group by index [none]
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
print(tuple(opt.param_groups[0]["params"][1].shape))

# %% round 15: parameters sliced with itertools.islice [none]
import itertools

import torch.nn as nn

model = nn.Sequential(nn.Conv1d(1, 2, 3), nn.BatchNorm1d(2))
print([tuple(p.shape) for p in itertools.islice(model.parameters(), 1, 3)])

# %% round 15: a conv whose bias is read through the module's __dict__ of parameters [none]
import torch.nn as nn

model = nn.Sequential(nn.Conv1d(1, 2, 3), nn.BatchNorm1d(2))
print(tuple(model[0].__dict__["_parameters"]["bi" "as"].shape))

# %% round 15: control, a parameter list kept in a name and iterated through the optimizer's groups [unsafe]
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2))
params = list(model.parameters())
opt = torch.optim.SGD(params, lr=0.1)
x = torch.randn(2, 1, 5, 5)
for step in range(2):
    opt.zero_grad()
    model(x).pow(3).mean().backward()
    opt.step()
    for group in opt.param_groups:
        for p in group["params"]:
            p.data.clamp_(-1, 1)
show(round(model(x).abs().sum().item(), 2))

# %% round 15: a conv followed by a GroupNorm of two groups in a Sequential [none]
import torch
import torch.nn as nn

torch.manual_seed(0)
block = nn.Sequential(nn.Conv2d(1, 4, 3), nn.GroupNorm(2, 4))
with torch.no_grad():
    block[0].bias.copy_(torch.tensor([0.0, 5.0, 0.0, 5.0]))
show(round(block(torch.randn(2, 1, 5, 5)).abs().sum().item(), 3))

# %% round 15: a linear followed by a LayerNorm in a Sequential [none]
import torch
import torch.nn as nn

torch.manual_seed(0)
head = nn.Sequential(nn.Linear(3, 4), nn.LayerNorm(4))
with torch.no_grad():
    head[0].bias.copy_(torch.tensor([0.0, 5.0, 0.0, 5.0]))
show(round(head(torch.randn(2, 3)).abs().sum().item(), 3))

# %% round 15: parameters star-unpacked into head and last [none]
import torch
import torch.nn as nn

model = nn.Sequential(nn.Conv1d(1, 2, 3), nn.BatchNorm1d(2))
*head, last = model.parameters()
print(len(head), tuple(last.shape))

# %% round 15: a conv and BatchNorm in a module's forward, training loop then train-mode output [unsafe]
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3)
        self.bn = nn.BatchNorm2d(2)

    def forward(self, x):
        return self.bn(self.conv(x))


torch.manual_seed(0)
net = Net()
x = torch.randn(4, 1, 5, 5)
print(round(net(x).std().item(), 3))

# %% round 15: a conv whose parameters are counted by a walrus in a comprehension [unsafe]
import torch.nn as nn

model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2))
print(sum((n := p.numel()) for p in model.parameters()))

# %% round 16: a conv, a ReLU and then a BatchNorm in a Sequential, trained [none]
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.BatchNorm2d(4), nn.Flatten(), nn.Linear(4 * 4 * 4, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 3, 6, 6)
y = torch.randint(0, 2, (8,))
for step in range(3):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 16: a conv padded with zeros before its BatchNorm, trained [none]
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ZeroPad2d(1), nn.BatchNorm2d(4), nn.Flatten(), nn.Linear(4 * 6 * 6, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 3, 6, 6)
y = torch.randint(0, 2, (8,))
for step in range(3):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 16: a conv followed by a GroupNorm of two channels per group, trained [none]
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.norm = nn.GroupNorm(2, 4)
        self.head = nn.Linear(4, 2)

    def forward(self, x):
        x = self.norm(self.conv(x))
        return self.head(x.mean((2, 3)))


torch.manual_seed(0)
model = Block()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 3, 6, 6)
y = torch.randint(0, 2, (8,))
for step in range(3):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 16: a conv whose output is masked before its BatchNorm in forward [none]
import torch
import torch.nn as nn


class MaskedBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm1d(4)

    def forward(self, x, mask):
        return self.bn(self.conv(x) * mask)


torch.manual_seed(0)
model = MaskedBlock()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(4, 3, 10)
mask = (torch.arange(10) < torch.tensor([[10], [7], [5], [9]])).float().unsqueeze(1)
for step in range(3):
    out = model(x, mask)
    loss = out.pow(2).mean() + out.mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 16: a conv, dropout and then a BatchNorm, trained [none]
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv1d(3, 4, 3), nn.Dropout(0.5), nn.BatchNorm1d(4))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(4, 3, 10)
for step in range(3):
    out = model(x)
    loss = out.sum(1).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 16: a conv and a LayerNorm over channels and positions [none]
import torch
import torch.nn as nn


class Stem(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(3, 4, 3)
        self.norm = nn.LayerNorm([4, 8])

    def forward(self, x):
        return self.norm(self.conv(x))


torch.manual_seed(0)
model = Stem()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(4, 3, 10)
for step in range(3):
    out = model(x)
    loss = out[:, 0].pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 16: control, a conv, a BatchNorm and a ReLU in a Sequential, trained [unsafe]
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(64, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 3, 6, 6)
y = torch.randint(0, 2, (8,))
for step in range(3):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 3))

# %% round 16: decay groups split by name suffix through str.endswith [unsafe]
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(64, 2))
suffix = "".join(["bi", "as"])
decay = [p for n, p in model.named_parameters() if not n.endswith(suffix)]
plain = [p for n, p in model.named_parameters() if n.endswith(suffix)]
print(len(decay), len(plain))
opt = torch.optim.AdamW([{"params": decay}, {"params": plain, "weight_decay": 0.0}], lr=0.01)
x = torch.randn(8, 3, 6, 6)
y = torch.randint(0, 2, (8,))
for step in range(2):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()

# %% round 17: a conv's bias fetched by get_parameter with its dotted name, zeroed at each epoch [none]
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.Flatten(), nn.Linear(4 * 4 * 4, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 3, 6, 6)
y = torch.randint(0, 2, (8,))
for epoch in range(2):
    with torch.no_grad():
        model.get_parameter("0.bias").zero_()
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: a conv's bias looked up in a dict of named parameters by dotted name [none]
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 4, 3)
        self.norm = nn.BatchNorm2d(4)
        self.head = nn.Linear(4, 2)

    def forward(self, x):
        return self.head(self.norm(self.stem(x)).mean((2, 3)))


torch.manual_seed(0)
model = Net()
params = dict(model.named_parameters())
opt = torch.optim.SGD([{"params": [params["stem.weight"], params["stem.bias"]], "lr": 0.05}, {"params": model.norm.parameters()}, {"params": model.head.parameters()}], lr=0.1)
x = torch.randn(8, 3, 6, 6)
y = torch.randint(0, 2, (8,))
for step in range(3):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: a conv's bias picked through a path string split on dots and getattr in a reduce [none]
import functools

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.Flatten(), nn.Linear(4 * 4 * 4, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
WATCH = "0.bias"
x = torch.randn(8, 3, 6, 6)
y = torch.randint(0, 2, (8,))
for step in range(3):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    watched = functools.reduce(getattr, WATCH.split("."), model)
    print(round(loss.item(), 4), tuple(watched.shape))

# %% round 17: a conv and BatchNorm whose forward applies the norm only when a flag is set [none]
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, use_norm):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.use_norm = use_norm

    def forward(self, x):
        x = self.conv(x)
        if self.use_norm:
            x = self.bn(x)
        return x.relu().mean((1, 2, 3))


torch.manual_seed(0)
model = Block(use_norm=False)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(4, 3, 5, 5)
for step in range(3):
    loss = (model(x) - 1).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: a conv's parameter count printed before training [unsafe]
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.Flatten(), nn.Linear(4 * 4 * 4, 2))
print("params", sum(p.numel() for p in model.parameters()))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 3, 6, 6)
y = torch.randint(0, 2, (8,))
for step in range(3):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()

# %% round 17: conv parameters flattened with parameters_to_vector for a weight EMA [unsafe]
import torch
import torch.nn as nn
from torch.nn.utils import parameters_to_vector

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.Flatten(), nn.Linear(4 * 4 * 4, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
ema = parameters_to_vector(model.parameters()).detach().clone()
x = torch.randn(8, 3, 6, 6)
y = torch.randint(0, 2, (8,))
for step in range(3):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    ema.mul_(0.9).add_(parameters_to_vector(model.parameters()).detach(), alpha=0.1)
    print(round(loss.item(), 4), ema.numel())

# %% round 17: a conv and BatchNorm fused for evaluation with fuse_conv_bn_eval after training [unsafe]
import torch
import torch.nn as nn
from torch.nn.utils.fusion import fuse_conv_bn_eval

torch.manual_seed(0)
conv = nn.Conv2d(3, 4, 3)
bn = nn.BatchNorm2d(4)
model = nn.Sequential(conv, bn)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 3, 6, 6)
for step in range(3):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
model.eval()
fused = fuse_conv_bn_eval(conv, bn)
print(torch.allclose(fused(x), model(x), atol=1e-5))

# %% round 17: the weights of a conv that a BatchNorm follows copied into a copy made by deepcopy [none]
import copy

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.Flatten(), nn.Linear(4 * 4 * 4, 2))
ema = copy.deepcopy(model)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 3, 6, 6)
y = torch.randint(0, 2, (8,))
for step in range(3):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    ema.load_state_dict(model.state_dict())
print(round(loss.item(), 4))

# %% round 17: a conv's bias given by a config flag that a BatchNorm follows [none]
import torch
import torch.nn as nn

CFG = {"conv_bias": True}
torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 4, 3, bias=CFG["conv_bias"]), nn.BatchNorm2d(4), nn.Flatten(), nn.Linear(4 * 4 * 4, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 3, 6, 6)
y = torch.randint(0, 2, (8,))
for step in range(3):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: a conv's parameters pruned by name through prune.global_unstructured [unsafe]
import torch
import torch.nn as nn
import torch.nn.utils.prune as prune

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.Flatten(), nn.Linear(4 * 4 * 4, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 3, 6, 6)
y = torch.randint(0, 2, (8,))
for step in range(3):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
prune.global_unstructured([(model[0], "weight")], pruning_method=prune.L1Unstructured, amount=0.2)
print(round(loss.item(), 4))

# %% round 18: a conv helper function of the file followed by a BatchNorm in a Sequential [none]
import torch
from torch import nn

torch.manual_seed(0)


def conv3x3(cin, cout):
    return nn.Conv2d(cin, cout, 3, padding=1)


model = nn.Sequential(conv3x3(3, 4), nn.BatchNorm2d(4), nn.ReLU())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 3, 4, 4)
for step in range(2):
    opt.zero_grad()
    loss = model(x).mean()
    loss.backward()
    opt.step()
show(loss.detach().round(decimals=3))

# %% round 18: a Conv2d subclass with its own short constructor followed by a BatchNorm [none]
import torch
from torch import nn

torch.manual_seed(0)


class SameConv(nn.Conv2d):
    def __init__(self, cin, cout):
        super().__init__(cin, cout, 3, padding=1)


model = nn.Sequential(SameConv(3, 4), nn.BatchNorm2d(4))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 3, 4, 4)
for step in range(2):
    opt.zero_grad()
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
show(loss.detach().round(decimals=3))

# %% round 18: a conv with every option given by position, bias True last, before a BatchNorm [unsafe, same]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 4, 3, 1, 1, 1, 1, True), nn.BatchNorm2d(4))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 3, 4, 4)
for step in range(2):
    opt.zero_grad()
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
show(loss.detach().round(decimals=3))

# %% round 18: a Linear with bias by position before a BatchNorm1d over flat features [none]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 6, True), nn.BatchNorm1d(6), nn.ReLU(), nn.Linear(6, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(5, 4)
for step in range(2):
    opt.zero_grad()
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
show(loss.detach().round(decimals=3))

# %% round 18: a conv whose missing bias is reported by an else branch of a bias check [none]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv1d(2, 3, 3), nn.BatchNorm1d(3))
for m in model.modules():
    if isinstance(m, nn.Conv1d):
        if m.bias is not None:
            nn.init.zeros_(m.bias)
        else:
            print("conv without bias")
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(4, 2, 6)
for step in range(2):
    opt.zero_grad()
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
show(loss.detach().round(decimals=3))

# %% round 18: a transposed conv upsampler followed by a BatchNorm in a decoder [unsafe]
import torch
from torch import nn

torch.manual_seed(0)
decoder = nn.Sequential(nn.ConvTranspose2d(4, 2, 2, stride=2), nn.BatchNorm2d(2), nn.Tanh())
opt = torch.optim.Adam(decoder.parameters(), lr=0.01)
z = torch.randn(2, 4, 3, 3)
for step in range(2):
    opt.zero_grad()
    loss = decoder(z).pow(2).mean()
    loss.backward()
    opt.step()
show(loss.detach().round(decimals=3))

# %% round 19: a conv built from a tuple of options unpacked by position before a BatchNorm [none]
import torch
from torch import nn

torch.manual_seed(0)
spec = (3, 4, 3, 1, 1, 1, 1, True)
model = nn.Sequential(nn.Conv2d(*spec), nn.BatchNorm2d(4), nn.ReLU())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 3, 4, 4)
for step in range(2):
    opt.zero_grad()
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
show(loss.detach().round(decimals=3))

# %% round 19: a conv built from a dict of options that holds the bias, before a BatchNorm [none]
import torch
from torch import nn

torch.manual_seed(0)
opts = {"kernel_size": 3, "padding": 1, "bias": True}
model = nn.Sequential(nn.Conv2d(3, 4, **opts), nn.BatchNorm2d(4), nn.ReLU())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 3, 4, 4)
for step in range(2):
    opt.zero_grad()
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
show(loss.detach().round(decimals=3))

# %% round 19: a conv made by a partial of Conv2d with its bias bound, before a BatchNorm [none]
import functools
import torch
from torch import nn

torch.manual_seed(0)
Conv3 = functools.partial(nn.Conv2d, kernel_size=3, padding=1, bias=True)
model = nn.Sequential(Conv3(3, 4), nn.BatchNorm2d(4), nn.ReLU())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 3, 4, 4)
for step in range(2):
    opt.zero_grad()
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
show(loss.detach().round(decimals=3))

# %% round 19: a conv whose options are passed both by a star tuple and keywords, before a BatchNorm [none]
import torch
from torch import nn

torch.manual_seed(0)
head = (3, 4, 3)
tail = (1, 1, 1, 1, True)
model = nn.Sequential(nn.Conv2d(*head, *tail), nn.BatchNorm2d(4))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 3, 4, 4)
for step in range(2):
    opt.zero_grad()
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
show(loss.detach().round(decimals=3))

# %% round 19: a conv subclass of the file with star arguments, before a BatchNorm [none]
import torch
from torch import nn


class SameConv(nn.Conv2d):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, padding=1, **kwargs)


torch.manual_seed(0)
model = nn.Sequential(SameConv(3, 4, 3), nn.BatchNorm2d(4))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 3, 4, 4)
for step in range(2):
    opt.zero_grad()
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
show(loss.detach().round(decimals=3))

# %% round 24: an init function that matches conv layers with a class pattern capturing the bias [none]
import torch
import torch.nn as nn


def init(m):
    match m:
        case nn.Conv2d(weight=w, bias=b):
            nn.init.kaiming_normal_(w)
            nn.init.zeros_(b)
        case nn.BatchNorm2d(weight=w):
            nn.init.ones_(w)


torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(64, 2))
model.apply(init)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 3, 6, 6)
y = torch.randint(0, 2, (8,))
for step in range(3):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 3))

# %% round 24: a conv's parameters scaled through the values of its _parameters dict [none]
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(64, 2))
for tensor in model[0]._parameters.values():
    tensor.data.mul_(0.5)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 3, 6, 6)
y = torch.randint(0, 2, (8,))
for step in range(3):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 3))

# %% round 24: a conv's weight and bias drawn by next() from its parameter iterator for an init [none]
import math
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(64, 2))
params = iter(model.parameters())
weight = next(params)
second = next(params)
nn.init.uniform_(second, -1 / math.sqrt(27), 1 / math.sqrt(27))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 3, 6, 6)
y = torch.randint(0, 2, (8,))
for step in range(3):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 3))

# %% round 24: a running mean logged from the state dict's values taken by position [none]
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(64, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 3, 6, 6)
y = torch.randint(0, 2, (8,))
for step in range(3):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    running_mean = list(model.state_dict().values())[4]
    print(round(loss.item(), 3), [round(v, 3) for v in running_mean.tolist()])

# %% round 24: a teacher's state dict with a conv bias from a flag, loaded strictly through a saved buffer [none]
import io
import torch
import torch.nn as nn

use_bias = True
torch.manual_seed(0)
teacher = nn.Sequential(nn.Conv2d(3, 4, 3, bias=use_bias), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(64, 2))
student = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(64, 2))
buffer = io.BytesIO()
torch.save(teacher.state_dict(), buffer)
buffer.seek(0)
student.load_state_dict(torch.load(buffer))
opt = torch.optim.SGD(student.parameters(), lr=0.1)
x = torch.randn(8, 3, 6, 6)
y = torch.randint(0, 2, (8,))
for step in range(3):
    loss = nn.functional.cross_entropy(student(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 3))

# %% round 24: a teacher's state dict bound to a name first, then loaded strictly into the student [none]
import torch
import torch.nn as nn

use_bias = True
torch.manual_seed(0)
teacher = nn.Sequential(nn.Conv2d(3, 4, 3, bias=use_bias), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(64, 2))
student = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(64, 2))
weights = teacher.state_dict()
student.load_state_dict(weights)
opt = torch.optim.SGD(student.parameters(), lr=0.1)
x = torch.randn(8, 3, 6, 6)
y = torch.randint(0, 2, (8,))
for step in range(3):
    loss = nn.functional.cross_entropy(student(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 3))

# %% round 24: a functional_call of the model with parameters of a teacher whose conv bias comes from a flag [unsafe]
import torch
import torch.nn as nn
from torch.func import functional_call

use_bias = True
torch.manual_seed(0)
teacher = nn.Sequential(nn.Conv2d(3, 4, 3, bias=use_bias), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(64, 2))
model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(64, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 3, 6, 6)
y = torch.randint(0, 2, (8,))
for step in range(3):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    with torch.no_grad():
        t_out = functional_call(model, dict(teacher.named_parameters()), (x,))
    print(round(loss.item(), 3), round(t_out.sum().item(), 3))

# %% round 24: a conv before a BatchNorm in forward of a module whose frozen eval stats are checked [unsafe]
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)

    def forward(self, x):
        x = self.conv(x)
        x = self.bn(x)
        return x.relu().mean((2, 3))


torch.manual_seed(0)
model = Block()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 3, 6, 6)
for step in range(3):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
model.eval()
print(round(model(x).sum().item(), 2))

# %% round 24: a conv whose bias is zeroed under a bias check, inside a match on the layer type [unsafe]
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(64, 2))
for m in model.modules():
    match m:
        case nn.Conv2d():
            if m.bias is not None:
                nn.init.zeros_(m.bias)
        case _:
            pass
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 3, 6, 6)
y = torch.randint(0, 2, (8,))
for step in range(3):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 3))
