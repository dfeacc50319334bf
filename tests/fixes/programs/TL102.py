# %% control: a zero tensor moved to the device [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    show(torch.zeros(2, 3).to(device), torch.ones(4).to(device=device))

# %% arange with a float step, then cast to long by the move [unsafe, same]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    show(torch.arange(0, 10, 0.3).to(device, torch.long))

# %% arange of integers, then cast to float16 by the move [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    show(torch.arange(10).to(device, torch.float16))

# %% linspace, then cast to float64 [unsafe, same]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    show(torch.linspace(0, 1, 7).to(device, dtype=torch.float64))

# %% full_like, then cast to uint8 by keyword [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
base = torch.zeros(3)
for step in range(2):
    show(torch.full_like(base, 3.7).to(device=device, dtype=torch.uint8))

# %% factory with **kwargs that may hold device [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
options = {"dtype": torch.float64, "device": "cpu"}
for step in range(2):
    show(torch.zeros(3, **options).to(device))

# %% move with **kwargs [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
extra = {"dtype": torch.float64}
for step in range(2):
    show(torch.ones(3).to(device, **extra))

# %% move with *args [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
target = (device, torch.float16)
for step in range(2):
    show(torch.ones(3).to(*target))

# %% random factory draws from the device generator [unsafe, same]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    show(torch.randn(3).to(device))

# %% factory that requires grad [unsafe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    w = torch.zeros(3, requires_grad=True).to(device)
    w.sum().backward()
    show(w.grad)

# %% non_blocking and positional dtype of the move are dropped or kept [unsafe, same]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    show(torch.linspace(1.5, 2.5, 2).to(device, torch.int32, True))

# %% the move target is rebound to a dtype later in the loop [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    show(torch.arange(3).to(device))
    device = torch.float64

# %% a device chosen at run time, in a training step function [safe]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(3, 1)

def train_step(x):
    noise_scale = torch.full((x.shape[0], 1), 0.5).to(device)
    loss = (model(x) * noise_scale).pow(2).mean()
    loss.backward()
    return loss.item()

for step in range(2):
    show(train_step(torch.ones(4, 3)))

# %% the device is a global rebound by a function between steps [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")

def switch():
    global device
    device = torch.float64

for step in range(2):
    show(torch.ones(2).to(device))
    switch()

# %% a device attribute set from a constructor argument in a seq2seq model [unsafe, same]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU
import torch.nn as nn

class Seq2Seq(nn.Module):
    def __init__(self, device):
        super().__init__()
        self.device = device
        self.out = nn.Linear(3, 3)

    def forward(self, src, steps):
        outputs = torch.zeros(steps, src.size(0), 3).to(self.device)
        for t in range(steps):
            outputs[t] = self.out(src)
        return outputs

device = torch.device("cpu")
model = Seq2Seq(device).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    loss = model(torch.ones(2, 3), 3).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(round(loss.item(), 5))

# %% a device attribute set from torch.device in the constructor [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.device = torch.device("cpu")
        self.fc = torch.nn.Linear(3, 1)

    def forward(self, x):
        return self.fc(x + torch.zeros(3).to(self.device))

torch.manual_seed(0)
model = Net()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    loss = model(torch.randn(2, 3)).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(round(loss.item(), 5))

# %% a helper's device parameter is given a dtype by a call of the file [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

def make_targets(n, device="cpu"):
    return torch.zeros(n, dtype=torch.long).to(device)

model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    y = make_targets(4, torch.float64)
    loss = torch.nn.functional.mse_loss(model(torch.ones(4, 3)).sum(1).double(), y)
    opt.zero_grad(); loss.backward(); opt.step()
    show(y)

# %% a global device that a setup function rebinds to a dtype in one branch [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = "cpu"

def setup(dtype_only):
    global device
    device = torch.float64 if dtype_only else "cpu"

model = torch.nn.Linear(2, 1).double()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for step in range(2):
        x = torch.ones(1, 2).to(device)
        loss = model(x.double()).sum()
        opt.zero_grad(); loss.backward(); opt.step()
    setup(epoch == 0)
    show(x)

# %% round 6: the device of an object whose class computes it in a property [unsafe, same]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

class Settings:
    @property
    def device(self):
        return "cpu"

settings = Settings()
for step in range(2):
    show(torch.ones(2).to(settings.device))

# %% round 6: the device of a dataclass field the constructor may set [unsafe, same]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU
from dataclasses import dataclass

@dataclass
class Config:
    device: str = "cpu"

cfg = Config(device="cpu")
for step in range(2):
    show(torch.zeros(3).to(cfg.device))

# %% round 6: a device property that returns a dtype [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

class Precision:
    @property
    def device(self):
        return torch.float64

p = Precision()
for step in range(2):
    show(torch.ones(2).to(p.device))

# %% round 7: a helper's device parameter given a dtype through a kwargs dict [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

def make_targets(n, device="cpu"):
    return torch.zeros(n, dtype=torch.long).to(device)

options = {"device": torch.float64}
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    y = make_targets(4, **options)
    loss = torch.nn.functional.mse_loss(model(torch.ones(4, 3)).sum(1).double(), y)
    opt.zero_grad(); loss.backward(); opt.step()
    show(y)

# %% round 7: a device set by setattr from the caller's keyword overrides, given a dtype [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

class Trainer:
    def __init__(self, **overrides):
        self.device = "cpu"
        for name, value in overrides.items():
            setattr(self, name, value)
    def targets(self, n):
        return torch.zeros(n, dtype=torch.long).to(self.device)

trainer = Trainer(device=torch.float64)
for step in range(2):
    show(trainer.targets(3))

# %% round 7: a device taken from a config dataclass built with a dtype [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU
from dataclasses import dataclass

@dataclass
class Config:
    device: object = "cpu"

def run(cfg):
    for step in range(2):
        buf = torch.ones(3, dtype=torch.long).to(cfg.device)
        show(buf)

run(Config(device=torch.float16))

# %% round 7: the move target is the dtype of a reference tensor named like a device [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

ref = torch.zeros(1, dtype=torch.float64)
device = ref.dtype
for step in range(2):
    show(torch.ones(3, dtype=torch.long).to(device))

# %% round 7: zeros_like moved with a dtype keyword [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
x = torch.ones(2, 2, dtype=torch.float64)
for step in range(2):
    show(torch.zeros_like(x).to(device, dtype=torch.float16))

# %% round 7: a device chosen as a dtype in one branch of the caller [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

def make(n, device):
    return torch.ones(n, dtype=torch.long).to(device)

for step in range(2):
    target = torch.float64 if step % 2 else "cpu"
    show(make(2, target))

# %% round 7: a device attribute of a module set from a parameter's dtype [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(2, 2).double()
        self.device = next(self.fc.parameters()).dtype
    def forward(self, x):
        bias = torch.zeros(2, dtype=torch.long).to(self.device)
        return self.fc(x) + bias

model = Head()
for step in range(2):
    show(model(torch.ones(1, 2, dtype=torch.float64)))

# %% round 8: a device from a namedtuple config built with a dtype [none]
import collections

import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

Config = collections.namedtuple("Config", ["device", "steps"])
cfg = Config(torch.float64, 2)


def train_step(model, x):
    noise_scale = torch.ones(x.shape[0], 1).to(cfg.device)
    loss = (model(x) * noise_scale).pow(2).mean()
    loss.backward()
    return loss


torch.manual_seed(0)
model = torch.nn.Linear(3, 1).double()
for step in range(cfg.steps):
    show(train_step(model, torch.randn(4, 3, dtype=torch.float64)))

# %% round 8: a device from a SimpleNamespace of settings set to a dtype [none]
import types

import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

settings = types.SimpleNamespace(device=torch.float64, lr=0.1)
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).double()
opt = torch.optim.SGD(model.parameters(), lr=settings.lr)
for step in range(2):
    x = torch.randn(4, 3, dtype=torch.float64)
    weights = torch.ones(4, 1).to(settings.device)
    loss = ((model(x) - 1) ** 2 * weights).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(weights, loss)

# %% round 8: a class attribute device of a trainer [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


class Trainer:
    device = torch.device("cpu")

    def __init__(self):
        self.model = torch.nn.Linear(3, 1)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def step(self, x):
        mask = torch.ones(x.shape[0], 1).to(self.device)
        loss = (self.model(x) * mask).pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss


torch.manual_seed(0)
trainer = Trainer()
for step in range(2):
    show(trainer.step(torch.randn(4, 3)))

# %% round 8: full with a fractional value cast to int32 by the move [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
torch.manual_seed(0)
model = torch.nn.Embedding(10, 2)
for step in range(2):
    ids = torch.full((3,), 7.9).to(device, torch.int32)
    show(ids, model(ids.long()).sum())

# %% round 8: the move passes dtype, non_blocking and copy positionally [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = "cpu"
torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
for step in range(2):
    bias = torch.ones(4, 1).to(device, torch.float16, False, True)
    out = model(torch.randn(4, 2)) + bias.float()
    out.sum().backward()
    show(bias, out)

# %% round 8: a device read from a module-level dict of settings given a dtype [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

SETTINGS = {"device": torch.float64}
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).double()
for step in range(2):
    device = SETTINGS["device"]
    w = torch.ones(4, 1).to(device)
    loss = (model(torch.randn(4, 3, dtype=torch.float64)) * w).sum()
    loss.backward()
    show(w, loss)

# %% round 8: a device a nested function closes over, the outer parameter given a dtype [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


def make_step(model, device):
    def step(x):
        w = torch.ones(x.shape[0], 1).to(device)
        loss = (model(x) * w).sum()
        loss.backward()
        return w

    return step


torch.manual_seed(0)
model = torch.nn.Linear(3, 1).double()
step = make_step(model, torch.float64)
for it in range(2):
    show(step(torch.randn(4, 3, dtype=torch.float64)))

# %% round 8: a device from a namedtuple config built with a device string [safe]
import collections

import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

Config = collections.namedtuple("Config", "device steps")
cfg = Config("cpu", 2)
torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
for step in range(cfg.steps):
    w = torch.ones(4, 1).to(cfg.device)
    loss = (model(torch.randn(4, 3)) * w).sum()
    loss.backward()
    show(w, loss)

# %% round 8: a device from a SimpleNamespace built from argument defaults [safe]
import types

import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

args = types.SimpleNamespace(device=torch.device("cpu"))
torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
for step in range(2):
    w = torch.ones(4, 1).to(args.device)
    loss = (model(torch.randn(4, 3)) * w).sum()
    loss.backward()
    show(w, loss)

# %% round 8: a step closure over an outer device parameter given a device [unsafe, same]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


def trainer(net, opt, device):
    def train_on(batch, targets):
        opt.zero_grad()
        weights = torch.full((batch.shape[0],), 0.5).to(device)
        error = ((net(batch).squeeze(1) - targets) ** 2 * weights).mean()
        error.backward()
        opt.step()
        return error

    return train_on


torch.manual_seed(0)
net = torch.nn.Linear(3, 1)
train_on = trainer(net, torch.optim.SGD(net.parameters(), lr=0.1), torch.device("cpu"))
for it in range(2):
    show(train_on(torch.randn(4, 3), torch.zeros(4)))

# %% round 8: a trainer's class-level device overwritten on the instance with a dtype from outside [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


class Trainer:
    device = torch.device("cpu")

    def __init__(self):
        self.model = torch.nn.Linear(3, 1).double()

    def step(self, x):
        w = torch.ones(x.shape[0], 1).to(self.device)
        loss = (self.model(x) * w).sum()
        loss.backward()
        return w


trainer = Trainer()
trainer.device = torch.float64
torch.manual_seed(0)
for it in range(2):
    show(trainer.step(torch.randn(4, 3, dtype=torch.float64)))

# %% round 8: an instance device set with setattr from a settings dict [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


class Learner:
    def __init__(self, net, **settings):
        self.device = torch.device("cpu")
        for key, value in settings.items():
            setattr(self, key, value)
        self.net = net

    def fit_batch(self, inputs):
        mask = torch.ones(inputs.shape[0], 1).to(self.device)
        total = self.net(inputs).mul(mask).mean()
        total.backward()
        return mask


torch.manual_seed(0)
learner = Learner(torch.nn.Linear(3, 1).double(), device=torch.float64)
for it in range(2):
    show(learner.fit_batch(torch.randn(4, 3, dtype=torch.float64)))

# %% round 8: the device attribute of a module set in a subclass to a dtype [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


class Base(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.device = torch.device("cpu")
        self.lin = torch.nn.Linear(3, 1).double()

    def forward(self, x):
        return self.lin(x) * torch.ones(x.shape[0], 1).to(self.device)


class Double(Base):
    def __init__(self):
        super().__init__()
        vars(self)["device"] = torch.float64


torch.manual_seed(0)
model = Double()
for it in range(2):
    out = model(torch.randn(4, 3, dtype=torch.float64))
    out.sum().backward()
    show(out)

# %% round 9: the device captured by a match pattern from a config dict [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

def train(config):
    device = "cpu"
    match config:
        case {"device": device}:
            pass
    model = torch.nn.Linear(2, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(2):
        target = torch.ones(3, 1).to(device)
        loss = (model(torch.ones(3, 2)) - target).pow(2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
        print(target.dtype, round(loss.item(), 4))

train({"device": torch.float64})

# %% round 9: the device set in globals() from a settings dict [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = "cpu"
SETTINGS = {"device": torch.float64, "steps": 2}
globals().update(SETTINGS)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(steps):
    target = torch.zeros(3, 1).to(device)
    loss = (model(torch.ones(3, 2)) - target).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(target.dtype)

# %% round 9: a device unpacked from a tuple returned by a setup function [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

def setup():
    return torch.nn.Linear(2, 1), torch.float64

model, device = setup()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    target = torch.zeros(3, 1).to(device)
    loss = (model(torch.ones(3, 2)) - target.float()).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(target.dtype)

# %% round 9: a device from a for loop over candidate placements [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for device in ("cpu", torch.float64):
    for step in range(2):
        target = torch.zeros(3, 1).to(device)
        loss = (model(torch.ones(3, 2)) - target.float()).pow(2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
        print(target.dtype)

# %% round 9: a device from a with statement's as target [none]
import contextlib
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

@contextlib.contextmanager
def placement():
    yield torch.float64

model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
with placement() as device:
    for step in range(2):
        target = torch.zeros(3, 1).to(device)
        loss = (model(torch.ones(3, 2)) - target.float()).pow(2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
        print(target.dtype)

# %% round 9: a device bound by an except clause's fallback [safe]
import torch

try:
    device = torch.device("cuda:0")
    torch.zeros(1, device=device)
except Exception:
    device = torch.device("cpu")
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    target = torch.zeros(3, 1).to(device)
    loss = (model(torch.ones(3, 2)) - target).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(target.device.type)

# %% round 9: a device attribute set by a tuple assignment [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

class Run:
    pass

run = Run()
run.device, run.steps = torch.float64, 2
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(run.steps):
    target = torch.zeros(3, 1).to(run.device)
    loss = (model(torch.ones(3, 2)) - target.float()).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(target.dtype)

# %% round 10: a device bound by a walrus in the training setup, one branch a dtype [none]
import os
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU
from torch import nn

torch.manual_seed(0)
model = nn.Linear(3, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
if (device := os.environ.get("TL_NO_SUCH_VARIABLE")) is None:
    device = torch.float64
x = torch.randn(4, 3, dtype=torch.float64)
for step in range(2):
    target = torch.zeros(4, 3).to(device)
    loss = (model(x.float()) - target).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(target.dtype, round(loss.item(), 6))

# %% round 10: a lambda's device default is a dtype [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU
from torch import nn

torch.manual_seed(0)
model = nn.Linear(2, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
make_target = lambda n, device=torch.float16: torch.ones(n, 2).to(device)
for step in range(2):
    y = make_target(3)
    loss = (model(torch.ones(3, 2)) - y.float()).abs().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(y.dtype, round(loss.item(), 6))

# %% round 10: a helper's device given a dtype through functools.partial [none]
import functools
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU
from torch import nn

def targets(n, device):
    return torch.zeros(n, dtype=torch.long).to(device)

torch.manual_seed(0)
model = nn.Linear(4, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
make = functools.partial(targets, device=torch.int32)
x = torch.randn(5, 4)
for step in range(2):
    y = make(5)
    loss = nn.functional.cross_entropy(model(x), y.long())
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(y.dtype, round(loss.item(), 6))

# %% round 10: a device read with dict.get from a config that holds a dtype [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU
from torch import nn

config = {"device": torch.float64, "lr": 0.1}
device = config.get("device", "cpu")
torch.manual_seed(0)
model = nn.Linear(2, 1).double()
opt = torch.optim.SGD(model.parameters(), lr=config["lr"])
for step in range(2):
    bias = torch.full((3, 1), 0.5).to(device)
    loss = (model(torch.ones(3, 2, dtype=torch.float64)) + bias).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(bias.dtype, round(loss.item(), 6))

# %% round 10: a device read with getattr from an argument namespace set to a dtype [none]
import argparse
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU
from torch import nn

args = argparse.Namespace(epochs=2)
args.device = torch.float64
device = getattr(args, "device", "cpu")
torch.manual_seed(0)
model = nn.Linear(2, 2).double()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(args.epochs):
    eye = torch.eye(2).to(device)
    loss = (model(eye) - eye).pow(2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(eye.dtype, round(loss.item(), 6))

# %% round 10: the move target rebound to a dtype by a nested function's nonlocal [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU
from torch import nn

def train():
    device = torch.device("cpu")

    def use_double():
        nonlocal device
        device = torch.float64

    torch.manual_seed(0)
    model = nn.Linear(2, 2).double()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    use_double()
    for step in range(2):
        ones = torch.ones(2, 2).to(device)
        loss = model(ones).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(ones.dtype, round(loss.item(), 6))

train()

# %% round 10: the move target is a parameter tensor, which also sets the dtype [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU
from torch import nn

torch.manual_seed(0)
model = nn.Linear(3, 2).double()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
ref = next(model.parameters())
x = torch.randn(4, 3, dtype=torch.float64)
for step in range(2):
    mask = torch.ones(4, 2).to(ref)
    loss = (model(x) * mask).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(mask.dtype, round(loss.item(), 6))

# %% round 10: a channels-last move of a zero image buffer keeps its memory format [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU
from torch import nn

torch.manual_seed(0)
device = torch.device("cpu")
conv = nn.Conv2d(3, 4, 3, padding=1)
opt = torch.optim.SGD(conv.parameters(), lr=0.1)
x = torch.randn(2, 3, 5, 5)
for step in range(2):
    canvas = torch.zeros(2, 3, 5, 5).to(device, memory_format=torch.channels_last)
    canvas[:, :, 1:4, 1:4] = x[:, :, 1:4, 1:4]
    out = conv(canvas)
    loss = out.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(canvas.is_contiguous(), canvas.stride(), round(loss.item(), 6))

# %% round 10: a factory that already names the CPU device, moved again to the training device [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU
from torch import nn

torch.manual_seed(0)
device = "cpu"
model = nn.Linear(3, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    eye = torch.eye(3, device="cpu").to(device)
    loss = (model(eye) - eye).pow(2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 6))

# %% round 10: a NumPy batch wrapped by from_numpy then moved [none]
import numpy as np
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU
from torch import nn

torch.manual_seed(0)
device = torch.device("cpu")
model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
rng = np.random.default_rng(0)
for step in range(2):
    batch = rng.standard_normal((4, 2)).astype(np.float32)
    x = torch.from_numpy(batch).to(device)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 6))

# %% round 10: an int8 class-weight table filled with a constant, cast to half by the move [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU
from torch import nn

torch.manual_seed(0)
device = torch.device("cpu")
model = nn.Linear(3, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(6, 3)
y = torch.tensor([0, 1, 2, 0, 1, 2])
for step in range(2):
    weights = torch.full((3,), 2, dtype=torch.int8).to(device, torch.float16)
    loss = nn.functional.cross_entropy(model(x), y, weight=weights.float())
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(weights.dtype, "%.6f" % loss.item())

# %% round 10: a device class attribute replaced by a classmethod with a dtype [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU
from torch import nn

class Trainer:
    device = torch.device("cpu")

    @classmethod
    def use_double(cls):
        cls.device = torch.float64

    def __init__(self):
        torch.manual_seed(0)
        self.model = nn.Linear(2, 2).double()
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def fit(self, steps):
        for step in range(steps):
            target = torch.zeros(3, 2).to(self.device)
            loss = (self.model(torch.ones(3, 2, dtype=torch.float64)) - target).pow(2).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            print(target.dtype, round(loss.item(), 6))

Trainer.use_double()
Trainer().fit(2)

# %% round 10: control, a causal mask made in a step wrapped by a logging decorator [safe]
import functools
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU
from torch import nn

def logged(fn):
    @functools.wraps(fn)
    def wrapper(*a, **k):
        out = fn(*a, **k)
        print("step", round(out, 6))
        return out
    return wrapper

torch.manual_seed(0)
device = torch.device("cpu")
proj = nn.Linear(4, 4)
opt = torch.optim.SGD(proj.parameters(), lr=0.1)

@logged
def step(x):
    mask = torch.ones(4, 4, dtype=torch.bool).to(device).tril()
    scores = proj(x).masked_fill(~mask, 0.0)
    loss = scores.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item()

x = torch.randn(4, 4)
for i in range(2):
    step(x)

# %% round 11: control, a target helper method of a factory-made object, the device a torch.device [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")


class Targets:
    def smooth(self, n, classes):
        return torch.full((n, classes), 0.1).to(device)


def build_targets():
    return Targets()


targets = build_targets()
model = torch.nn.Linear(3, 4)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    out = model(torch.ones(2, 3))
    loss = (out - targets.smooth(2, 4)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(loss)

# %% round 11: a helper method reached through a factory-made object is handed a dtype as its device [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


class Targets:
    def smooth(self, n, classes, device):
        return torch.full((n, classes), 0.1).to(device)


def build_targets():
    return Targets()


targets = build_targets()
model = torch.nn.Linear(3, 4).double()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    out = model(torch.ones(2, 3, dtype=torch.float64))
    loss = (out - targets.smooth(2, 4, torch.float64)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(loss)

# %% round 11: a step method of an object from a registry moves a mask to a device keyword given a tensor [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


class Masker:
    def causal(self, n, dev):
        return torch.ones(n, n).tril().to(dev)


REGISTRY = {"causal": Masker}
masker = REGISTRY["causal"]()
model = torch.nn.Linear(3, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
reference = torch.zeros(1, dtype=torch.float64)
for step in range(2):
    mask = masker.causal(3, reference)
    loss = (model(torch.ones(3, 3)) * mask.float()).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(mask.dtype, loss)

# %% round 11: a trainer built from a config takes an optimizer step and moves a zero buffer to self.device [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


class Trainer:
    def __init__(self, device):
        self.device = device
        self.model = torch.nn.Linear(2, 2)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def train_step(self, x):
        noise = torch.zeros(x.shape).to(self.device)
        loss = self.model(x + noise.float()).pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss


def from_config(cfg):
    return Trainer(cfg["device"])


trainer = from_config({"device": torch.float64})
for step in range(2):
    show(trainer.train_step(torch.ones(2, 2)))

# %% round 11: a method that steps an optimizer makes integer positions on a device attribute set to a string [unsafe, same]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


class Runner:
    def __init__(self):
        self.device = "cpu"
        self.embed = torch.nn.Embedding(8, 2)
        self.opt = torch.optim.SGD(self.embed.parameters(), lr=0.1)

    def step(self, n):
        positions = torch.arange(n).to(self.device)
        loss = self.embed(positions).pow(2).sum()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss


def make_runner():
    return Runner()


runner = make_runner()
for _ in range(2):
    show(runner.step(4))

# %% round 11: a random init in a step method reached by name, the device from the model's weight [unsafe, same]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


class Perturber:
    def __init__(self):
        self.model = torch.nn.Linear(2, 2)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def adversarial_step(self, x):
        delta = torch.randn(x.shape).to(self.model.weight.device)
        loss = self.model(x + 0.01 * delta).pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss


workers = [Perturber()]
for step in range(2):
    for w in workers:
        show(w.adversarial_step(torch.ones(2, 2)))

# %% round 11: a target helper method called with its arguments unpacked from a tuple that holds a dtype [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


class Targets:
    def smooth(self, n, classes, device):
        return torch.full((n, classes), 0.1).to(device)


def build_targets():
    return Targets()


targets = build_targets()
args = (2, 4, torch.float64)
model = torch.nn.Linear(3, 4).double()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    out = model(torch.ones(2, 3, dtype=torch.float64))
    loss = (out - targets.smooth(*args)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(loss)


# %% round 11: a trainer built with a dtype by position stores it as self.device, used in its step method [none]
import functools

import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


class Trainer:
    def __init__(self, device):
        self.device = device
        self.model = torch.nn.Linear(2, 2).double()
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def train_step(self, x):
        noise = torch.zeros(x.shape).to(self.device)
        loss = self.model(x + noise).pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss


TRAINERS = {"base": Trainer}
trainer = Trainer(torch.float64)
for step in range(2):
    show(trainer.train_step(torch.ones(2, 2, dtype=torch.float64)))

# %% round 11: a trainer class bound to a name and called with a dtype, the step method moves a buffer to self.device [none]
import functools

import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


class Trainer:
    def __init__(self, device):
        self.device = device
        self.model = torch.nn.Linear(2, 2).double()
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def train_step(self, x):
        noise = torch.zeros(x.shape).to(self.device)
        loss = self.model(x + noise).pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss


TRAINERS = {"base": Trainer}
cls = Trainer
trainer = cls(torch.float64)
for step in range(2):
    show(trainer.train_step(torch.ones(2, 2, dtype=torch.float64)))

# %% round 11: a trainer taken from a dict of classes and given a dtype as its device [none]
import functools

import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


class Trainer:
    def __init__(self, device):
        self.device = device
        self.model = torch.nn.Linear(2, 2).double()
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def train_step(self, x):
        noise = torch.zeros(x.shape).to(self.device)
        loss = self.model(x + noise).pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss


TRAINERS = {"base": Trainer}
trainer = TRAINERS["base"](torch.float64)
for step in range(2):
    show(trainer.train_step(torch.ones(2, 2, dtype=torch.float64)))

# %% round 11: a trainer built from a starred tuple that holds a dtype as its device [none]
import functools

import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


class Trainer:
    def __init__(self, device):
        self.device = device
        self.model = torch.nn.Linear(2, 2).double()
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def train_step(self, x):
        noise = torch.zeros(x.shape).to(self.device)
        loss = self.model(x + noise).pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss


TRAINERS = {"base": Trainer}
trainer = Trainer(*(torch.float64,))
for step in range(2):
    show(trainer.train_step(torch.ones(2, 2, dtype=torch.float64)))

# %% round 12: a trainer whose settings arrive through self.__dict__.update of a config dict holding a dtype [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

CONFIG = {"device": torch.float64, "steps": 2}


class Trainer:
    def __init__(self, config):
        self.__dict__.update(config)
        self.model = torch.nn.Linear(3, 1).double()

    def fit(self):
        for step in range(self.steps):
            target = torch.ones(4, 1).to(self.device)
            show(self.model(torch.ones(4, 3, dtype=torch.float64)) - target)


torch.manual_seed(0)
Trainer(CONFIG).fit()

# %% round 12: a trainer that copies keyword overrides onto itself with setattr in a loop [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


class Trainer:
    device = torch.device("cpu")

    def __init__(self, **overrides):
        for key, value in overrides.items():
            setattr(self, key, value)

    def step(self, model, x):
        mask = torch.ones(x.shape[0], 1).to(self.device)
        return (model(x) * mask).sum()


torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
trainer = Trainer(device=torch.float32)
for epoch in range(2):
    show(trainer.step(model, torch.ones(3, 2)))

# %% round 12: a replay buffer's sample method moves arange of the buffer size with copy=True [unsafe, same]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


class Replay:
    def __init__(self, capacity):
        self.device = torch.device("cpu")
        self.obs = torch.zeros(capacity, 2)
        self.size = 0

    def add(self, obs):
        self.obs[self.size] = obs
        self.size += 1

    def sample(self, n):
        idx = torch.arange(n).to(self.device, copy=True)
        return self.obs[idx]


torch.manual_seed(0)
buf = Replay(8)
policy = torch.nn.Linear(2, 1)
for t in range(4):
    buf.add(torch.full((2,), float(t)))
    show(policy(buf.sample(buf.size)).sum())

# %% round 12: an as_tensor of a reused NumPy observation array moved with copy=True into a rollout list [none]
import numpy as np
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
obs = np.zeros(3, dtype=np.float32)
trajectory = []
for t in range(3):
    obs[:] = t
    trajectory.append(torch.as_tensor(obs).to(device, copy=True))
show(torch.stack(trajectory))

# %% round 12: a channels-last zero buffer moved with memory_format in a step method [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


class Step:
    def __init__(self):
        self.device = "cpu"

    def __call__(self, conv, x):
        canvas = torch.zeros(2, 3, 4, 4).to(self.device, memory_format=torch.channels_last)
        out = conv(x + canvas)
        print(canvas.stride(), out.is_contiguous(memory_format=torch.channels_last))
        return out.sum()


torch.manual_seed(0)
conv = torch.nn.Conv2d(3, 2, 1)
step = Step()
for epoch in range(2):
    show(step(conv, torch.ones(2, 3, 4, 4)))

# %% round 12: a Lightning-style training_step makes positions on self.device, a property of the wrapper [unsafe, same]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


class LitModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(8, 2)

    @property
    def device(self):
        return self.emb.weight.device

    def training_step(self, batch, batch_idx):
        pos = torch.arange(batch.shape[1]).to(self.device)
        return self.emb(pos).sum() + batch.sum()


torch.manual_seed(0)
lit = LitModel()
opt = torch.optim.SGD(lit.parameters(), lr=0.1)
for i in range(2):
    loss = lit.training_step(torch.ones(2, 5), i)
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(loss)

# %% round 12: a NamedTuple config built by a builder function of the file carries a dtype as its device [none]
from typing import NamedTuple
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


class RunConfig(NamedTuple):
    device: object
    steps: int


def build_config():
    return RunConfig(torch.float64, 2)


cfg = build_config()
model = torch.nn.Linear(2, 1).double()
for step in range(cfg.steps):
    y = torch.zeros(3, 1).to(cfg.device)
    show(model(torch.ones(3, 2, dtype=torch.float64)) - y)

# %% round 12: a dataclass config with a device default replaced by dataclasses.replace with a dtype [none]
import dataclasses
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


@dataclasses.dataclass
class Config:
    device: object = "cpu"
    steps: int = 2


cfg = dataclasses.replace(Config(), device=torch.float64)
model = torch.nn.Linear(2, 1).double()
for step in range(cfg.steps):
    offset = torch.ones(1).to(cfg.device)
    show(model(torch.ones(1, 2, dtype=torch.float64)) + offset)

# %% round 12: a device read from a class attribute that a subclass overrides with a dtype [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


class Base:
    device = "cpu"

    def run(self, model):
        for step in range(2):
            bias = torch.zeros(1).to(self.device)
            show(model(torch.ones(1, 2, dtype=torch.float64)) + bias)


class Double(Base):
    device = torch.float64


torch.manual_seed(0)
Double().run(torch.nn.Linear(2, 1).double())

# %% round 12: control, a device string set in __init__ used by a step method under inference_mode [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


class Evaluator:
    def __init__(self):
        self.device = "cpu"

    def step(self, model, x):
        with torch.inference_mode():
            scale = torch.full((1,), 2.0).to(self.device)
            return model(x) * scale


torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
ev = Evaluator()
for i in range(2):
    show(ev.step(model, torch.ones(2, 2)))

# %% round 12: a dataclass config built by position with a dtype where the device field stands [none]
import dataclasses
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


@dataclasses.dataclass
class TrainConfig:
    device: object
    epochs: int = 2


def fit(cfg, model):
    for epoch in range(cfg.epochs):
        shift = torch.ones(2, 1).to(cfg.device)
        show(model(torch.ones(2, 2, dtype=torch.float64)) + shift)


fit(TrainConfig(torch.float64), torch.nn.Linear(2, 1).double())

# %% round 12: control, a NamedTuple config class built by position with a device string [unsafe, same]
from typing import NamedTuple
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


class RunConfig(NamedTuple):
    device: object
    steps: int


cfg = RunConfig("cpu", 2)
model = torch.nn.Linear(2, 1)
for step in range(cfg.steps):
    y = torch.zeros(3, 1).to(cfg.device)
    show(model(torch.ones(3, 2)) - y)

# %% round 12: a trainer's device attribute overridden from outside with setattr and a literal name [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


class Trainer:
    def __init__(self):
        self.device = torch.device("cpu")

    def step(self, model, x):
        shift = torch.ones(1).to(self.device)
        return model(x) + shift


trainer = Trainer()
setattr(trainer, "device", torch.float64)
model = torch.nn.Linear(2, 1).double()
for i in range(2):
    show(trainer.step(model, torch.ones(1, 2, dtype=torch.float64)))

# %% round 12: a frozen dataclass config whose __post_init__ sets the device through object.__setattr__ [none]
import dataclasses
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


@dataclasses.dataclass(frozen=True)
class Config:
    precision: str = "double"

    def __post_init__(self):
        object.__setattr__(self, "device", torch.float64 if self.precision == "double" else "cpu")


cfg = Config()
model = torch.nn.Linear(2, 1).double()
for step in range(2):
    bias = torch.zeros(1).to(cfg.device)
    show(model(torch.ones(1, 2, dtype=torch.float64)) + bias)

# %% round 12: the device attribute set by a classmethod on the class, read by instances in a step [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


class Runner:
    device = "cpu"

    @classmethod
    def use_double(cls):
        cls.device = torch.float64

    def step(self, model):
        pad = torch.zeros(2, 1).to(self.device)
        return model(torch.ones(2, 2, dtype=torch.float64)) + pad


Runner.use_double()
r = Runner()
model = torch.nn.Linear(2, 1).double()
for i in range(2):
    show(r.step(model))

# %% round 12: a module-level device chosen through importlib of torch.cuda's is_available [safe]
import importlib
import torch

cuda = importlib.import_module("torch.cuda")
device = torch.device("cuda" if cuda.is_available() else "cpu")
model = torch.nn.Linear(3, 1).to(device)
for step in range(2):
    mask = torch.ones(4, 1).to(device)
    show(model(torch.ones(4, 3, device=device)) * mask)

# %% round 12: a device property of a __slots__ trainer returning a dtype by mistake [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


class Trainer:
    __slots__ = ("model", "_precision")

    def __init__(self, model):
        self.model = model
        self._precision = torch.float64

    @property
    def device(self):
        return self._precision

    def step(self, x):
        return self.model(x) + torch.zeros(1).to(self.device)


t = Trainer(torch.nn.Linear(2, 1).double())
for i in range(2):
    show(t.step(torch.ones(1, 2, dtype=torch.float64)))

# %% round 12: a trainer's device and steps set together by tuple unpacking from the driver script [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


class Trainer:
    def __init__(self):
        self.device = "cpu"
        self.steps = 1

    def fit(self, model):
        for step in range(self.steps):
            pad = torch.zeros(1).to(self.device)
            show(model(torch.ones(1, 2, dtype=torch.float64)) + pad)


trainer = Trainer()
trainer.device, trainer.steps = torch.float64, 2
trainer.fit(torch.nn.Linear(2, 1).double())

# %% round 12: a trainer's device given an annotated assignment by the driver script [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


class Trainer:
    def __init__(self):
        self.device = "cpu"

    def step(self, model):
        pad = torch.zeros(1).to(self.device)
        return model(torch.ones(1, 2, dtype=torch.float64)) + pad


trainer = Trainer()
trainer.device: object = torch.float64
model = torch.nn.Linear(2, 1).double()
for i in range(2):
    show(trainer.step(model))

# %% round 12: a sweep loop binds each placement to the trainer's device attribute as its for-target [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


class Trainer:
    device = "cpu"

    def step(self, model):
        pad = torch.zeros(1).to(self.device)
        return model(torch.ones(1, 2, dtype=torch.float64)) + pad


trainer = Trainer()
model = torch.nn.Linear(2, 1).double()
for trainer.device in ("cpu", torch.float64):
    show(trainer.step(model))

# %% round 12: a device taken from a step method's keyword arguments that a caller fills with a dtype [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


class Trainer:
    def step(self, model, x, **options):
        pad = torch.zeros(1).to(options["device"])
        return model(x) + pad


trainer = Trainer()
model = torch.nn.Linear(2, 1).double()
for i in range(2):
    show(trainer.step(model, torch.ones(1, 2, dtype=torch.float64), device=torch.float64))

# %% round 12: a device from a config's nested namespace built by a builder function [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU
from types import SimpleNamespace


def build_config():
    return SimpleNamespace(run=SimpleNamespace(device=torch.float64, steps=2))


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg

    def fit(self, model):
        for i in range(self.cfg.run.steps):
            pad = torch.zeros(1).to(self.cfg.run.device)
            show(model(torch.ones(1, 2, dtype=torch.float64)) + pad)


Trainer(build_config()).fit(torch.nn.Linear(2, 1).double())

# %% round 12: a device picked from a list of placements by index, one of them a dtype [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

PLACES = ["cpu", torch.float64]
device = PLACES[1]
model = torch.nn.Linear(2, 1).double()
for step in range(2):
    pad = torch.zeros(1).to(device)
    show(model(torch.ones(1, 2, dtype=torch.float64)) + pad)

# %% round 12: a device looked up in a dict() of placements built with keywords [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

PLACES = dict(train="cpu", precise=torch.float64)
device = PLACES["precise"]
model = torch.nn.Linear(2, 1).double()
for step in range(2):
    pad = torch.zeros(1).to(device)
    show(model(torch.ones(1, 2, dtype=torch.float64)) + pad)

# %% round 12: a device defaulted with `or` from an override that holds a dtype [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

override = torch.float64
device = override or "cpu"
model = torch.nn.Linear(2, 1).double()
for step in range(2):
    pad = torch.zeros(1).to(device)
    show(model(torch.ones(1, 2, dtype=torch.float64)) + pad)

# %% round 12: a device read with getattr from torch by a literal name that is a dtype [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = getattr(torch, "float64")
model = torch.nn.Linear(2, 1).double()
for step in range(2):
    pad = torch.zeros(1).to(device)
    show(model(torch.ones(1, 2, dtype=torch.float64)) + pad)

# %% round 12: a device bound by a with statement over torch.device, used in the step loop [unsafe, same]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

model = torch.nn.Linear(2, 1)
with torch.device("cpu") as device:
    for step in range(2):
        pad = torch.zeros(1).to(device)
        show(model(torch.ones(1, 2)) + pad)


# %% round 12: a device from a helper whose walrus-bound fallback is a dtype [none]
import torch


def pick(name):
    if (chosen := {"gpu": "cuda"}.get(name)) is None:
        chosen = torch.float64
    return chosen


device = pick("cpu")
model = torch.nn.Linear(2, 1).double()
for step in range(2):
    pad = torch.zeros(1).to(device)
    show(model(torch.ones(1, 2, dtype=torch.float64)) + pad)

# %% round 12: control, a device from a helper that returns a torch.device for every name [unsafe, same]
import torch


def pick(name):
    if name == "gpu" and torch.cuda.is_available():
        return torch.device("cuda")
    return torch.device("cpu")


device = pick("cpu")
model = torch.nn.Linear(2, 1)
for step in range(2):
    pad = torch.zeros(1).to(device)
    show(model(torch.ones(1, 2)) + pad)

# %% round 13: a device shadowed by a walrus inside a list comprehension before the training loop [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
settings = [torch.float64]
picked = [d for d in settings if (device := d)]
for step in range(2):
    show(torch.zeros(2, 3).to(device))

# %% round 13: the device name rebound by a from-import of a dtype under a condition [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = "cpu"
DOUBLE = True
if DOUBLE:
    from torch import float64 as device
for step in range(2):
    show(torch.ones(3).to(device))

# %% round 13: a factory moved to a reference tensor, which also sets the dtype [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

ref = torch.ones(2, dtype=torch.float64)
for step in range(2):
    show(torch.zeros(3).to(ref))

# %% round 13: a step function moves a factory to a parameter the caller passes a tensor [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


def step(target):
    return torch.full((2,), 1.5).to(target)


ref = torch.ones(1, dtype=torch.float16)
for i in range(2):
    show(step(ref))

# %% round 13: requires_grad from a flag variable, the move copies [unsafe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
rg = True
for step in range(2):
    w = torch.zeros(3, requires_grad=rg).to(device, copy=True)
    show(w.is_leaf)

# %% round 13: a factory that already names a device moved again [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    show(torch.zeros(2, device="cpu").to(device))

# %% round 13: the legacy Tensor constructor with a size moved to the device [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    t = torch.Tensor(3).fill_(2.0).to(device)
    show(t)

# %% round 13: a typed legacy constructor from a list moved to the device [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    show(torch.LongTensor([1, 2, 3]).to(device))

# %% round 13: from_numpy of a buffer moved to the device [none]
import numpy as np
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
buf = np.arange(4.0)
for step in range(2):
    show(torch.from_numpy(buf).to(device))

# %% round 13: arange with a bound from a true division moved to the device [unsafe, same]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
n = 9 / 2
for step in range(2):
    show(torch.arange(n).to(device))

# %% round 13: arange with a bound from a floor division moved to the device [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
n = 9 // 2
for step in range(2):
    show(torch.arange(n).to(device))

# %% round 13: a factory sized by a tuple variable, comments inside the calls and a continuation [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
shape = (2, 3)
for step in range(2):
    mask = torch.ones(  # the attention mask
        *shape,  # batch, time
        dtype=torch.bool,
    ).to(
        device  # where the model runs
    )
    total = mask.sum() \
        + 1
    show(mask, total)

# %% round 13: a factory with a generator moved to the device [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
g = torch.Generator().manual_seed(3)
for step in range(2):
    show(torch.randperm(5, generator=g).to(device))

# %% round 13: a factory writing into out= moved to the device [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
buf = torch.empty(3)
for step in range(2):
    show(torch.zeros(3, out=buf).to(device), buf)

# %% round 13: zeros made under inference_mode and moved with a dtype in an evaluation loop [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
with torch.inference_mode():
    for step in range(2):
        t = torch.zeros(2, 2).to(device, torch.float64)
        show(t, t.is_inference())

# %% round 13: a star import of torch, zeros and ones moved by their bare names [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU
from torch import *

device = torch.device("cpu")
for step in [0, 1]:
    print(zeros(2).to(device), ones(2, dtype=torch.float64).to(device))

# %% round 13: torch shadowed by a parameter of the step function holding a stand-in module [none]
import torch as real_torch


class StandIn:
    @staticmethod
    def zeros(*size):
        return real_torch.full(size, 7.0)


def step(torch):
    device = real_torch.device("cpu")
    return torch.zeros(2).to(device)


for i in range(2):
    show(step(StandIn))

# %% round 13: a device chosen in a match statement over a config string, one case a dtype [none]
import torch

mode = "double"
match mode:
    case "gpu":
        device = torch.device("cuda")
    case "double":
        device = torch.float64
    case _:
        device = torch.device("cpu")
for step in range(2):
    show(torch.zeros(2).to(device))

# %% round 13: a device set through an f-string of a kind name [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

kind = "cpu"
device = f"{kind}"
for step in range(2):
    show(torch.ones(2).to(device))

# %% round 13: a device from a nested function that rebinds a global to a dtype [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")


def use_double():
    global device
    device = torch.float64


use_double()
for step in range(2):
    show(torch.zeros(2).to(device))

# %% round 13: a device passed through a decorator's keyword into the wrapped step [none]
import functools
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


def with_placement(**placement):
    def wrap(fn):
        return functools.partial(fn, **placement)
    return wrap


@with_placement(device=torch.float64)
def step(i, device):
    return torch.zeros(2).to(device)


for i in range(2):
    show(step(i))

# %% round 13: a device from a lambda of the file called in the loop [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

pick = lambda: torch.float64
for step in range(2):
    device = pick()
    show(torch.zeros(2).to(device))

# %% round 14: zeros made with pin_memory=True and moved to the device [none]
import torch

device = torch.device("cpu")
pinned = torch.cuda.is_available()
for step in range(2):
    buf = torch.zeros(3, pin_memory=pinned).to(device)
    show(buf)

# %% round 14: a factory sized by a starred shape tuple from a variable, moved to a device string [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

shape = (2, 3)
for step in range(2):
    t = torch.ones(*shape).to("cpu")
    show(t)

# %% round 14: the device name bound by a match capture pattern that takes a dtype [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

for cfg in ("cpu", torch.float64):
    match cfg:
        case str() as device:
            pass
        case device:
            pass
    show(torch.zeros(2).to(device))

# %% round 14: a device rebound by a global statement in a decorator's wrapper [none]
import functools
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")


def mixed(fn):
    @functools.wraps(fn)
    def wrapper():
        global device
        device = torch.float64
        return fn()
    return wrapper


@mixed
def step():
    return torch.arange(3).to(device)


for i in range(2):
    show(step())

# %% round 14: torch rebound by a for target over stand-in modules before the factory [none]
import types
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

real = torch
fake = types.SimpleNamespace(zeros=lambda n: real.full((n,), 7.0))
device = real.device("cpu")
for torch in (fake, real):
    show(torch.zeros(2).to(device))

# %% round 14: a full factory whose size tuple comes from a variable, moved with a dtype by keyword [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
size = (2, 2)
for step in range(2):
    t = torch.full(size, 3).to(device=device, dtype=torch.float32)
    show(t)

# %% round 14: arange with a bound from len() moved to the device inside a comprehension [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
rows = [[1, 2, 3], [4, 5]]
for step in range(2):
    show([torch.arange(len(r)).to(device) for r in rows])

# %% round 14: a factory moved to a device produced by a walrus in the loop header [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

for step, device in enumerate(["cpu", torch.float16]):
    if (target := device) is not None:
        show(torch.ones(2).to(target))

# %% round 14: a device rebound to a dtype in a nested function through nonlocal before the factory [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


def run():
    device = torch.device("cpu")

    def mixed():
        nonlocal device
        device = torch.float64

    for step in range(2):
        show(torch.ones(2).to(device))
        mixed()


run()

# %% round 14: a factory with requires_grad from a keyword dict moved to the device [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
opts = {"requires_grad": True}
for step in range(2):
    w = torch.zeros(2, **opts).to(device)
    w.sum().backward()
    show(w.is_leaf, w.grad)

# %% round 14: a factory with a generator given through a keyword dict moved to the device [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
gen = torch.Generator().manual_seed(0)
kw = {"generator": gen}
for step in range(2):
    show(torch.randn(2, **kw).to(device))

# %% normal drawn on the host given a size, then moved [unsafe, same]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    torch.manual_seed(step)
    show(torch.normal(0.0, 0.5, size=(2, 3)).to(device))

# %% normal of a host mean takes no device argument [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    torch.manual_seed(step)
    show(torch.normal(torch.zeros(4), 1.0).to(device))

# %% round 15: a device rebound by exec of a string at module level [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = "cpu"
exec("device = torch.float64")
for step in range(2):
    show(torch.ones(2).to(device))

# %% round 15: a module-level device rebound by exec, read by a training function [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = "cpu"
exec("device = torch.float64", globals())


def train():
    for step in range(2):
        show(torch.zeros(2).to(device))


train()

# %% round 15: control, a device in a file whose exec runs in its own namespace [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = "cpu"
exec("device = torch.float64", {"torch": torch})
for step in range(2):
    show(torch.zeros(2).to(device))

# %% round 15: a device rebound through globals() item assignment before the factory [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = "cpu"
globals()["device"] = torch.float64
for step in range(2):
    show(torch.zeros(2).to(device))

# %% round 15: a device parameter of a function mapped over a list that holds a dtype [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


def make(device="cpu"):
    return torch.zeros(2).to(device)


for out in map(make, ["cpu", torch.float64]):
    show(out)

# %% round 15: a device parameter given by a dict unpacked into the call [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


def make(device="cpu"):
    return torch.ones(3).to(device)


settings = {"device": torch.float64}
for step in range(2):
    show(make(**settings))

# %% round 15: a lambda with a device parameter called with a dtype [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

make = lambda device="cpu": torch.zeros(2).to(device)
for step in range(2):
    show(make(torch.float64))

# %% round 15: a comprehension over a literal of a device and a dtype, factory inside [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

outs = [torch.zeros(2).to(d) for d in ("cpu", torch.float64)]
show(outs)

# %% round 15: a device unpacked from a one-element list literal that holds a dtype [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

(device,) = [torch.float64]
for step in range(2):
    show(torch.eye(2).to(device))

# %% round 15: a device from enumerate over a list literal that holds a dtype [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

for i, device in enumerate(["cpu", torch.float64]):
    show(torch.full((2,), i).to(device))

# %% round 15: a class attribute device overridden in a subclass body with a dtype [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


class Base:
    device = "cpu"

    def buffer(self):
        return torch.zeros(2).to(self.device)


class Double(Base):
    device = torch.float64


for model in (Base(), Double()):
    show(model.buffer())

# %% round 15: a device given by functools.partial with a dtype keyword [none]
import functools

import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


def make(n, device="cpu"):
    return torch.arange(n).to(device)


make64 = functools.partial(make, device=torch.float64)
for step in range(2):
    show(make64(3))

# %% round 15: a factory moved with memory_format=channels_last to a device string [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

for step in range(2):
    x = torch.zeros(1, 2, 3, 3).to("cpu", memory_format=torch.channels_last)
    print(x.is_contiguous(), x.stride())

# %% round 15: zeros moved to a module-level torch.device in a training loop with a comment inside [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
w = torch.ones(2, requires_grad=True)
for step in range(2):
    mask = torch.zeros(
        2,  # one per weight
    ).to(device)
    loss = (w * (mask + step)).sum()
    loss.backward()
    show(w.grad)

# %% round 15: a factory moved under torch.no_grad with dtype and device keywords [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
with torch.no_grad():
    for step in range(2):
        show(torch.ones(2, 2).to(device=device, dtype=torch.float16) * step)

# %% round 15: a factory sized by a shape tuple from a variable moved to a tensor's device [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

ref = torch.randn(3)
shape = (2, 3)
for step in range(2):
    show(torch.zeros(shape).to(ref.device) + step)

# %% round 15: a factory with out= moved to a device string [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

buf = torch.empty(3)
for step in range(2):
    t = torch.arange(3, out=buf).to("cpu")
    print(t is buf)

# %% round 15: a device assigned after a star import of torch that binds device [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

from torch import *  # noqa: F403

device = "cpu"

for step in [0, 1]:
    show(zeros(2).to(device))

# %% round 15: a device read through sys.modules of the main module after a setattr that never runs [safe]
import sys

import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = "cpu"
setattr(sys.modules[__name__], "device", torch.float64) if __name__ == "nothing" else None
for step in range(2):
    show(torch.zeros(2).to(device))

# %% round 15: a factory moved to the device of the model's first parameter [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

model = torch.nn.Linear(2, 2)
for step in range(2):
    mask = torch.ones(2).to(next(model.parameters()).device)
    show(model(mask))

# %% round 15: a device loop over a module-level name bound to a list that holds a dtype [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

placements = ["cpu", torch.float64]
for device in placements:
    show(torch.zeros(2).to(device))

# %% round 15: a device from torch.device of a string literal kept in a dataclass default [unsafe]
from dataclasses import dataclass

import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


@dataclass
class Config:
    device: str = "cpu"


cfg = Config()
for step in range(2):
    show(torch.zeros(2).to(cfg.device))

# %% round 15: control, a device loop over a module-level name bound to a list of device strings [unsafe, same]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

placements = ["cpu", "cpu:0"]
for device in placements:
    show(torch.zeros(2).to(device))

# %% round 16: a buffer made from an array by as_tensor and copied to the device with copy=True [none]
import numpy as np
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
table = np.zeros(3, dtype=np.float32)
for step in range(2):
    snap = torch.as_tensor(table).to(device, copy=True)
    table += 1
    print(snap.tolist(), table.tolist())

# %% round 16: a running sum cloned from a tensor by torch.tensor(t).to(device) [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
base = torch.arange(3.0)
for step in range(2):
    acc = torch.tensor([0.0, 1.0, 2.0]).to(device)
    acc += step
    print(acc.tolist(), base.tolist())

# %% round 16: zeros moved with a dtype given by a reference tensor's to(other) [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

ref = torch.zeros(2, dtype=torch.float64)
for step in range(2):
    pad = torch.zeros(3).to(ref)
    show(pad)

# %% round 16: a mask made by torch.ones with an explicit device and moved again [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    mask = torch.ones(2, 3, device="cpu").to(device)
    show(mask)

# %% round 16: a target filled from a tensor by torch.full and moved to a name bound to torch.device [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device(type="cpu", index=None)
for step in range(2):
    target = torch.full((2,), 7).to(device)
    show(target)

# %% round 16: zeros like a batch with a memory format, then moved [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = "cpu"
batch = torch.randn(2, 3, 4, 4).to(memory_format=torch.channels_last)
for step in range(2):
    grad_buf = torch.zeros_like(batch).to(device)
    print(grad_buf.is_contiguous(memory_format=torch.channels_last), grad_buf.stride())

# %% round 16: an eye moved to a device string then given requires_grad_ [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = "cpu"
for step in range(2):
    eye = torch.eye(2).to(device).requires_grad_()
    (eye * 3).sum().backward()
    show(eye.grad, eye.is_leaf)

# %% round 16: indices made by arange with a dtype, then moved with a dtype by keyword [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    idx = torch.arange(4, dtype=torch.int32).to(device=device, dtype=torch.int64)
    show(idx)

# %% round 16: ones moved to a device read from a torch.device's str [unsafe, same]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = str(torch.float64)
for step in range(2):
    try:
        w = torch.ones(2).to(device)
    except RuntimeError:
        w = torch.zeros(2)
    show(w)

# %% round 16: zeros moved to the device of a module's first parameter [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

model = torch.nn.Linear(2, 2)
for step in range(2):
    h = torch.zeros(1, 2).to(next(model.parameters()).device)
    show(model(h))

# %% round 17: zeros moved to the device of the model's first parameter in the step [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(4, 3)
for step in range(2):
    dev = next(model.parameters()).device
    target = torch.zeros(4, 2).to(dev)
    loss = (model(x) - target).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4), target.dtype)

# %% round 17: a full tensor of an integer fill moved with a float dtype in the step [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

torch.manual_seed(0)
device = torch.device("cpu")
model = torch.nn.Linear(3, 2).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(4, 3, device=device)
for step in range(2):
    target = torch.full((4, 2), 1).to(device, torch.float32)
    loss = (model(x) - target).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4), target.dtype)

# %% round 17: an arange moved to a device read from an environment variable [unsafe, same]
import os

import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

torch.manual_seed(0)
device = os.environ.get("TRAIN_DEVICE", "cpu")
model = torch.nn.Embedding(5, 2).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    ids = torch.arange(5).to(device)
    loss = model(ids).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: ones moved to the default device torch reports [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

torch.manual_seed(0)
device = torch.get_default_device()
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(4, 3)
for step in range(2):
    w = torch.ones(4, 1).to(device)
    loss = (model(x) * w).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: an eye moved by keywords device and dtype to float64 in the step [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

torch.manual_seed(0)
device = "cpu"
model = torch.nn.Linear(3, 3).double().to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(4, 3, dtype=torch.float64)
for step in range(2):
    eye = torch.eye(3).to(device=device, dtype=torch.float64)
    loss = (model(x) @ eye).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4), eye.dtype)

# %% round 17: a zeros_like of a batch moved to a device given by a dataclass default [unsafe, same]
import dataclasses

import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU


@dataclasses.dataclass
class Config:
    device: str = "cpu"
    lr: float = 0.1


cfg = Config()
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(cfg.device)
opt = torch.optim.SGD(model.parameters(), lr=cfg.lr)
x = torch.randn(4, 3)
for step in range(2):
    base = torch.zeros_like(x[:, :1]).to(cfg.device)
    loss = (model(x) - base).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 18: a mask buffer made on the host and moved like a reference tensor with to(other) [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

ref = torch.randn(2, 3, dtype=torch.float64)
for step in range(2):
    mask = torch.ones(2, 3).to(ref)
    show(mask, (ref * mask).dtype)

# %% round 18: a channels-last zero image moved with a memory format in the step loop [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    canvas = torch.zeros(1, 3, 2, 2).to(device, memory_format=torch.channels_last)
    show(canvas.is_contiguous(memory_format=torch.channels_last), canvas.stride())

# %% round 18: a NumPy batch wrapped by from_numpy and moved to the device [none]
import numpy as np
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    arr = np.arange(4.0) + step
    x = torch.from_numpy(arr).to(device)
    show(x)

# %% round 18: a tensor of labels from a list moved with dtype and non_blocking by position [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    y = torch.tensor([step, 1]).to(device, torch.float32, False)
    show(y)

# %% round 18: zeros moved with copy passed by position after the dtype [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    h = torch.zeros(2, 2).to(device, torch.float16, False, True)
    show(h)

# %% round 18: a legacy Tensor constructor moved to the device [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    t = torch.Tensor([1.5, step]).to(device)
    show(t)

# %% round 18: a full tensor of an int fill value moved with a dtype keyword [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = "cpu"
for step in range(2):
    ids = torch.full((3,), 7).to(device=device, dtype=torch.long)
    show(ids)

# %% round 18: an as_tensor of an array moved to the device, the array changed after [none]
import numpy as np
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    arr = np.zeros(3)
    t = torch.as_tensor(arr).to(device)
    arr[0] = 5.0
    show(t)

# %% round 18: a sparse identity built by sparse_coo_tensor and moved [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
idx = torch.tensor([[0, 1], [0, 1]])
for step in range(2):
    eye = torch.sparse_coo_tensor(idx, torch.ones(2), (2, 2)).to(device)
    show(eye.to_dense())

# %% round 18: zeros_like of a half tensor moved with a dtype to the device of a tensor [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

x = torch.ones(2, dtype=torch.float16)
for step in range(2):
    acc = torch.zeros_like(x).to(x.device, torch.float32)
    show(acc)

# %% round 19: a loss weight tensor of a decimal made in float32 then moved as float64 [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    w = torch.tensor([0.1, 0.3]).to(device, torch.float64)
    show(w)

# %% round 19: a fill of a decimal made in float32 then moved as float64 by keyword [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    eps = torch.full((2,), 0.1).to(device=device, dtype=torch.float64)
    show(eps)

# %% round 19: class ids above 255 made then moved as uint8 [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    ids = torch.tensor([3, 300]).to(device, torch.uint8)
    show(ids)

# %% round 19: long zeros moved to the device as float [safe]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    z = torch.zeros(3, dtype=torch.long).to(device, torch.float)
    show(z)

# %% round 19: fractional targets made then moved as int32 [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    t = torch.tensor([1.7, -1.7]).to(device, torch.int32)
    show(t)

# %% round 19: an arange with a float step moved as float64 [unsafe, same]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    r = torch.arange(0, 1, 0.25).to(device, torch.float64)
    show(r)

# %% round 19: a tensor of a big integer made then moved as float32 [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    n = torch.tensor([16777217]).to(device, torch.float32)
    show(n)

# %% round 19: a tensor of decimals made in float64 then moved as half [none]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    h = torch.tensor([0.1, 1e-5], dtype=torch.float64).to(device, torch.half)
    show(h)

# %% round 20: an STFT loss that makes its Hann window on the host then moves it each call [unsafe, same]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
torch.manual_seed(0)
signal = torch.randn(2, 256)
for step in range(2):
    window = torch.hann_window(64).to(device)
    spec = torch.stft(signal, 64, window=window, return_complex=True).abs()
    show(window[:5], round(spec.sum().item(), 3))

# %% round 20: a Hamming window made on the host with periodic False and moved [unsafe, same]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    w = torch.hamming_window(16, periodic=False).to(device)
    show(w)

# %% round 20: a Kaiser window for a resampler made on the host and moved [unsafe, same]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    w = torch.kaiser_window(9, periodic=False, beta=8.0).to(device)
    show(w)

# %% round 20: a Blackman window made on the host and moved with a dtype [unsafe, same]
import torch

ON_GPU = torch.cuda.is_available()  # written for CUDA; run here on the CPU

device = torch.device("cpu")
for step in range(2):
    w = torch.blackman_window(12).to(device, torch.float64)
    show(w)

# %% round 24: a positional-encoding buffer moved with memory_format=channels_last [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Conv2d(3, 2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    pos = torch.ones(1, 3, 4, 4).to(device, memory_format=torch.channels_last)
    out = model(pos)
    loss = out.sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(pos.is_contiguous(), pos.stride(), round(loss.item(), 5))

# %% round 24: a mask made by type_as of a half-precision batch [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(4, 4).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    x = torch.randn(2, 4, device=device).half()
    mask = torch.ones(2, 4).type_as(x)
    loss = model((x * mask).float()).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(mask, round(loss.item(), 5))

# %% round 24: a triangle mask made by triu of a host ones matrix, moved with a dtype by keyword [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(4, 4).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    causal = torch.triu(torch.ones(4, 4), 1).to(device=device, dtype=torch.bool)
    scores = model(torch.randn(4, 4, device=device)).masked_fill(causal, 0.0)
    loss = scores.sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(causal, round(loss.item(), 5))

# %% round 24: a full tensor of bools moved to the device and used as a mask [safe]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 3).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    keep = torch.full((2, 3), True).to(device)
    loss = model(torch.randn(2, 3, device=device))[keep].sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(keep, round(loss.item(), 5))

# %% round 24: a complex zeros tensor for a spectral buffer moved to the device [safe]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(8, 8).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    spec = torch.zeros(5, dtype=torch.complex64).to(device)
    spec = spec + torch.fft.rfft(model(torch.randn(8, device=device)))
    loss = spec.abs().sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(spec.dtype, round(loss.item(), 5))

# %% round 24: a sparse identity made by torch.eye with to_sparse, then moved [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 3).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    adj = torch.eye(3).to_sparse().to(device)
    h = torch.sparse.mm(adj, model(torch.randn(3, 3, device=device)))
    loss = h.sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(adj.is_sparse, round(loss.item(), 5))

# %% round 24: a device chosen by a match statement on a config string [safe]
import torch

config = {"accelerator": "cpu"}
match config["accelerator"]:
    case "gpu":
        device = torch.device("cuda")
    case _:
        device = torch.device("cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 3).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    offset = torch.ones(3).to(device)
    loss = (model(torch.randn(2, 3, device=device)) + offset).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(offset, round(loss.item(), 5))

# %% round 24: a device a match case binds to a dtype by capture [none]
import torch

config = {"place": torch.float64}
match config:
    case {"place": torch.dtype() as device}:
        pass
    case _:
        device = torch.device("cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 3).double()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    offset = torch.ones(3).to(device)
    loss = (model(torch.randn(2, 3).double()) + offset).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(offset, round(loss.item(), 5))

# %% round 24: a device from a property of a frozen dataclass config that returns a dtype [none]
import dataclasses
import torch


@dataclasses.dataclass(frozen=True)
class Config:
    half: bool = False

    @property
    def device(self):
        return torch.float16 if self.half else torch.float64


cfg = Config()
torch.manual_seed(0)
model = torch.nn.Linear(3, 3).double()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    offset = torch.ones(3).to(cfg.device)
    loss = (model(torch.randn(2, 3).double()) + offset).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(offset, round(loss.item(), 5))

# %% round 24: a device attribute a class-level __getattr__ answers with a dtype [none]
import torch


class Settings:
    def __getattr__(self, name):
        return torch.float64


settings = Settings()
torch.manual_seed(0)
model = torch.nn.Linear(3, 3).double()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    offset = torch.ones(3).to(settings.device)
    loss = (model(torch.randn(2, 3).double()) + offset).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(offset, round(loss.item(), 5))

# %% round 24: a device a functools.partial default gives the step function a dtype [none]
import functools
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 3).double()
opt = torch.optim.SGD(model.parameters(), lr=0.1)


def step(x, device):
    offset = torch.ones(3).to(device)
    loss = (model(x) + offset).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(offset, round(loss.item(), 5))


run = functools.partial(step, device=torch.float64)
for i in range(2):
    run(torch.randn(2, 3).double())

# %% round 24: a device class attribute rebound to a dtype through the class [none]
import torch


class Trainer:
    device = torch.device("cpu")

    def __init__(self):
        torch.manual_seed(0)
        self.model = torch.nn.Linear(3, 3).double()
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def fit(self):
        for i in range(2):
            offset = torch.ones(3).to(self.device)
            loss = (self.model(torch.randn(2, 3).double()) + offset).sum()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            show(offset, round(loss.item(), 5))


Trainer.device = torch.float64
Trainer().fit()

# %% round 24: a device given by a decorator that wraps the step and passes a dtype positionally [none]
import functools
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 3).double()
opt = torch.optim.SGD(model.parameters(), lr=0.1)


def placed(fn):
    @functools.wraps(fn)
    def wrapper(x):
        return fn(x, torch.float64)
    return wrapper


@placed
def step(x, device):
    offset = torch.ones(3).to(device)
    loss = (model(x) + offset).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(offset, round(loss.item(), 5))


for i in range(2):
    step(torch.randn(2, 3).double())

# %% round 24: a device read from a namedtuple built by _make from a list holding a dtype [none]
import collections
import torch

Run = collections.namedtuple("Run", ["device", "steps"])
run = Run._make([torch.float64, 2])
torch.manual_seed(0)
model = torch.nn.Linear(3, 3).double()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for i in range(run.steps):
    offset = torch.ones(3).to(run.device)
    loss = (model(torch.randn(2, 3).double()) + offset).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(offset, round(loss.item(), 5))

# %% round 24: a device a namedtuple's _replace sets to a dtype [none]
import collections
import torch

Run = collections.namedtuple("Run", ["device", "steps"])
run = Run(torch.device("cpu"), 2)._replace(device=torch.float64)
torch.manual_seed(0)
model = torch.nn.Linear(3, 3).double()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for i in range(run.steps):
    offset = torch.ones(3).to(run.device)
    loss = (model(torch.randn(2, 3).double()) + offset).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(offset, round(loss.item(), 5))

# %% round 24: a device a dataclasses.replace sets to a dtype on a config [none]
import dataclasses
import torch


@dataclasses.dataclass
class Run:
    device: object = "cpu"
    steps: int = 2


run = dataclasses.replace(Run(), device=torch.float64)
torch.manual_seed(0)
model = torch.nn.Linear(3, 3).double()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for i in range(run.steps):
    offset = torch.ones(3).to(run.device)
    loss = (model(torch.randn(2, 3).double()) + offset).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(offset, round(loss.item(), 5))
