# %% control: the CPU autocast of old [safe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 4)
with torch.cpu.amp.autocast():
    show(model(torch.ones(2, 4)))

# %% nested in an autocast with another dtype [safe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 4)
with torch.autocast("cpu", dtype=torch.float16):
    with torch.cpu.amp.autocast():
        show(model(torch.ones(2, 4)))

# %% dtype chosen at run time by an outer autocast in the caller [safe]
import torch

def forward(model, x):
    with torch.cpu.amp.autocast():
        return model(x)

torch.manual_seed(0)
model = torch.nn.Linear(4, 4)
dtype = torch.float16 if model.weight.sum() > -100 else torch.bfloat16
with torch.autocast("cpu", dtype=dtype):
    show(forward(model, torch.ones(2, 4)))

# %% autocast default dtype changed globally [safe]
import torch

torch.set_autocast_dtype("cpu", torch.float16)
torch.manual_seed(0)
model = torch.nn.Linear(4, 4)
with torch.cpu.amp.autocast():
    show(model(torch.ones(2, 4)))

# %% positional arguments of the old signature [safe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 4)
with torch.cpu.amp.autocast(True, torch.bfloat16):
    show(model(torch.ones(2, 4)))
with torch.cpu.amp.autocast(False):
    show(model(torch.ones(2, 4)))

# %% keyword arguments unpacked [none]
import torch

options = {"dtype": torch.float16}
torch.manual_seed(0)
model = torch.nn.Linear(4, 4)
with torch.cpu.amp.autocast(**options):
    show(model(torch.ones(2, 4)))

# %% imported by name, no plain `import torch` [safe]
from torch.cpu.amp import autocast
from torch import nn, manual_seed, ones

manual_seed(0)
model = nn.Linear(4, 4)
with autocast():
    show(model(ones(2, 4)))

# %% disabled grad scaler [safe]
import torch

scaler = torch.cuda.amp.GradScaler(enabled=False)
show(scaler.get_scale(), scaler.is_enabled())

# %% torch imported as th, the name torch rebound [safe]
import torch as th

torch = None
th.manual_seed(0)
model = th.nn.Linear(4, 4)
with th.cpu.amp.autocast():
    show(model(th.ones(2, 4)))

# %% torch imported only inside the functions, above the old autocast [safe]
def make_ctx():
    import torch
    return torch.cpu.amp.autocast()

def train():
    import torch
    model = torch.nn.Linear(2, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(2):
        with make_ctx():
            out = model(torch.ones(1, 2))
        loss = out.float().sum()
        opt.zero_grad(); loss.backward(); opt.step()
        print(out.dtype)

train()

# %% round 6: an isinstance test against the old class the calls make [unsafe]
import torch

for step in range(2):
    ctx = torch.cpu.amp.autocast(enabled=False)
    with ctx:
        print(isinstance(ctx, torch.cpu.amp.autocast))

# %% round 7: the old autocast used as a decorator of forward [safe]
import torch

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 3)
    @torch.cpu.amp.autocast()
    def forward(self, x):
        return self.fc(x)

torch.manual_seed(0)
out = Net()(torch.ones(2, 3))
show(out.dtype)

# %% round 7: the old autocast entered through contextlib.ExitStack [safe]
import contextlib
import torch

torch.manual_seed(0)
fc = torch.nn.Linear(3, 3)
with contextlib.ExitStack() as stack:
    stack.enter_context(torch.cpu.amp.autocast(dtype=torch.bfloat16))
    out = fc(torch.ones(2, 3))
show(out.dtype)

# %% round 7: the old grad scaler's class name printed [unsafe]
import torch

scaler = torch.cuda.amp.GradScaler(enabled=False)
print(type(scaler).__name__, type(scaler).__module__)

# %% round 8: an old CPU autocast as a decorator of a training step with an alias import [safe]
import torch
from torch.cpu.amp import autocast as cpu_autocast

torch.manual_seed(0)
model = torch.nn.Linear(8, 4)
opt = torch.optim.SGD(model.parameters(), lr=0.1)


@cpu_autocast()
def forward(x):
    return model(x)


for step in range(2):
    out = forward(torch.randn(2, 8))
    loss = out.float().pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(out.dtype, loss)

# %% round 8: functools.partial of the old autocast class [unsafe, same]
import functools

import torch

bf16 = functools.partial(torch.cpu.amp.autocast, dtype=torch.bfloat16)
torch.manual_seed(0)
model = torch.nn.Linear(4, 2)
for step in range(2):
    with torch.cpu.amp.autocast():
        a = model(torch.ones(1, 4))
    with bf16():
        b = model(torch.ones(1, 4))
    show(a, b)

# %% round 8: an old CUDA grad scaler and autocast on a machine without CUDA [safe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.cuda.amp.GradScaler()
for step in range(2):
    with torch.cuda.amp.autocast():
        loss = model(torch.ones(2, 4)).pow(2).mean()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    opt.zero_grad()
    show(loss, scaler.is_enabled(), scaler.state_dict())

# %% round 8: the autocast name rebound to nullcontext when mixed precision is off [none]
import contextlib

import torch
from torch.cpu.amp import autocast

use_amp = False
if not use_amp:
    autocast = contextlib.nullcontext

torch.manual_seed(0)
model = torch.nn.Linear(4, 2)
for step in range(2):
    with autocast():
        out = model(torch.ones(1, 4))
    show(out)

# %% round 8: a local function named autocast shadows the import inside the training function [none]
import contextlib

import torch
from torch.cpu.amp import autocast


def train(model):
    def autocast():
        return contextlib.nullcontext()

    for step in range(2):
        with autocast():
            out = model(torch.ones(1, 4))
        show(out)


torch.manual_seed(0)
train(torch.nn.Linear(4, 2))

# %% round 9: the old CPU autocast entered with an as target that is printed [unsafe]
import torch

model = torch.nn.Linear(2, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    with torch.cpu.amp.autocast() as ctx:
        out = model(torch.ones(1, 2))
    loss = out.float().sum()
    opt.zero_grad(); loss.backward(); opt.step()
    print(str(ctx).split(" object")[0], out.dtype)

# %% round 9: a parenthesised with of the old CPU autocast and no_grad in evaluation [safe]
import torch

model = torch.nn.Linear(2, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    loss = model(torch.ones(1, 2)).sum()
    opt.zero_grad(); loss.backward(); opt.step()
    with (torch.cpu.amp.autocast(dtype=torch.bfloat16), torch.no_grad()):
        print(model(torch.ones(1, 2)).dtype)

# %% round 9: the old autocast as a default argument of the step function [safe]
import torch

model = torch.nn.Linear(2, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)

def step(x, amp=torch.cpu.amp.autocast(enabled=True)):
    with amp:
        out = model(x)
    loss = out.float().sum()
    opt.zero_grad(); loss.backward(); opt.step()
    return out.dtype

for i in range(2):
    print(step(torch.ones(1, 2)))

# %% round 9: the old scaler's state saved and its class allowed for safe loading [safe]
import io
import torch

model = torch.nn.Linear(2, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.cuda.amp.GradScaler(enabled=False)
for step in range(2):
    loss = model(torch.ones(1, 2)).sum()
    opt.zero_grad(); scaler.scale(loss).backward(); scaler.step(opt); scaler.update()
buf = io.BytesIO()
torch.save({"scaler": scaler.state_dict()}, buf)
buf.seek(0)
print(sorted(torch.load(buf)["scaler"]))

# %% round 9: the old autocast's attributes read after the step [safe]
import torch

model = torch.nn.Linear(2, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    ctx = torch.cpu.amp.autocast()
    with ctx:
        loss = model(torch.ones(1, 2)).float().sum()
    opt.zero_grad(); loss.backward(); opt.step()
    print(ctx.fast_dtype, ctx.device, ctx._enabled)

# %% round 9: the old autocast in a lambda chosen by a match on the precision [safe]
import torch

def make_ctx(precision):
    match precision:
        case "bf16":
            return lambda: torch.cpu.amp.autocast(dtype=torch.bfloat16)
        case _:
            return lambda: torch.cpu.amp.autocast(enabled=False)

model = torch.nn.Linear(2, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for precision in ("bf16", "fp32"):
    with make_ctx(precision)():
        out = model(torch.ones(1, 2))
    loss = out.float().sum()
    opt.zero_grad(); loss.backward(); opt.step()
    print(precision, out.dtype)

# %% round 10: the old autocast entered by a walrus in an evaluation step [safe]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(3, 4)
for step in range(2):
    with (ctx := torch.cpu.amp.autocast()):
        out = model(x)
    loss = out.float().pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(out.dtype, round(loss.item(), 2))

# %% round 10: the old autocast class kept in a dict of precision contexts [none]
import contextlib
import torch
from torch import nn

CONTEXTS = {"bf16": torch.cpu.amp.autocast, "fp32": contextlib.nullcontext}
torch.manual_seed(0)
model = nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(3, 4)
for step in range(2):
    with CONTEXTS["bf16"]():
        out = model(x)
    loss = out.float().pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(out.dtype, round(loss.item(), 2))

# %% round 10: the old autocast with an f-string log of its settings, nested quotes [safe]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(3, 4)
cfg = {"precision": "bf16"}
for step in range(2):
    with torch.cpu.amp.autocast(enabled=cfg['precision'] == "bf16"):
        out = model(x)
    print(f"step {step} precision={cfg['precision']!r} {'on' if torch.is_autocast_cpu_enabled() else 'off'}")
    loss = out.float().pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()

# %% round 12: a Lightning-style training_step under the old CPU autocast with a positional enabled flag [safe]
import torch


class Lit:
    def __init__(self):
        self.net = torch.nn.Linear(4, 2)
        self.use_amp = True

    def training_step(self, x):
        with torch.cpu.amp.autocast(self.use_amp):
            out = self.net(x)
        return out.float().pow(2).mean()


torch.manual_seed(0)
lit = Lit()
opt = torch.optim.SGD(lit.net.parameters(), lr=0.1)
for step in range(2):
    loss = lit.training_step(torch.randn(3, 4))
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(loss)

# %% round 12: an old autocast applied as a decorator to a model's forward, under an outer float16 autocast [safe]
import torch


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)

    @torch.cpu.amp.autocast()
    def forward(self, x):
        return self.fc(x)


torch.manual_seed(0)
head = Head()
opt = torch.optim.SGD(head.parameters(), lr=0.1)
for step in range(2):
    with torch.autocast("cpu", dtype=torch.float16):
        out = head(torch.randn(2, 4))
    print(out.dtype)
    loss = out.float().sum()
    opt.zero_grad()
    loss.backward()
    opt.step()

# %% round 12: an old GradScaler with positional init_scale and growth_factor in a disabled CPU loop [safe]
import torch

scaler = torch.cuda.amp.GradScaler(2.0 ** 8, 3.0, enabled=False)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    loss = model(torch.ones(1, 2)).sum()
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    print(scaler.is_enabled(), scaler.get_scale())
show(model)

# %% round 12: an old autocast held as a context manager attribute set in __init__ and entered in a step [safe]
import torch


class Runner:
    def __init__(self):
        self.amp = torch.cpu.amp.autocast(dtype=torch.bfloat16)
        self.model = torch.nn.Linear(3, 3)

    def step(self, x):
        with self.amp:
            return self.model(x)


torch.manual_seed(0)
r = Runner()
for step in range(2):
    out = r.step(torch.randn(2, 3))
    print(out.dtype)
    show(out.float())

# %% round 12: the old autocast imported from its module under a short alias, used in an async step [safe]
import asyncio
import torch
from torch.cpu.amp import autocast as amp_autocast


async def step(model, x):
    with amp_autocast():
        return model(x)


torch.manual_seed(0)
model = torch.nn.Linear(2, 2)
for i in range(2):
    out = asyncio.run(step(model, torch.ones(1, 2)))
    print(out.dtype, torch.is_autocast_enabled("cpu"))

# %% round 12: an old autocast in an ignite-style update function that the engine calls per batch [safe]
import torch

model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)


def update(engine, batch):
    with torch.cpu.amp.autocast(enabled=True, dtype=torch.bfloat16):
        loss = model(batch).float().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item()


class Engine:
    def __init__(self, fn):
        self.fn = fn

    def run(self, data, max_epochs):
        for epoch in range(max_epochs):
            for batch in data:
                print(round(self.fn(self, batch), 4))


torch.manual_seed(0)
Engine(update).run([torch.ones(2, 3), torch.zeros(2, 3)], 2)

# %% round 12: an old autocast whose cache_enabled is passed by position from a flag [safe]
import torch

model = torch.nn.Linear(2, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    with torch.cpu.amp.autocast(True, torch.bfloat16, False):
        out = model(torch.ones(1, 2))
    print(out.dtype)
    loss = out.float().sum()
    opt.zero_grad()
    loss.backward()
    opt.step()

# %% round 13: autocast imported from the old module or a nullcontext by a flag that is off [none]
import torch

USE_AMP = False
if USE_AMP:
    from torch.cpu.amp import autocast
else:
    from contextlib import nullcontext as autocast

model = torch.nn.Linear(3, 2)
for step in range(2):
    with autocast():
        out = model(torch.ones(1, 3))
    show(out)

# %% round 13: the old autocast imported in a try block with a fallback class of the file [unsafe, same]
import torch

try:
    from torch.cpu.amp import autocast
except ImportError:
    class autocast:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

model = torch.nn.Linear(3, 2)
for step in range(2):
    with autocast(dtype=torch.bfloat16):
        out = model(torch.ones(1, 3))
    show(out)

# %% round 13: torch shadowed by a parameter holding a stand-in with an old autocast [none]
import contextlib
import torch as real_torch
from types import SimpleNamespace


def step(torch, model):
    with torch.cpu.amp.autocast():
        return model(real_torch.ones(1, 3))


standin = SimpleNamespace(cpu=SimpleNamespace(amp=SimpleNamespace(autocast=contextlib.nullcontext)))
model = real_torch.nn.Linear(3, 2)
for i in range(2):
    show(step(standin, model))

# %% round 13: the old autocast from a star import of its module [safe]
import torch
from torch.cpu.amp import *

model = torch.nn.Linear(3, 2)
for step in range(2):
    with autocast():
        out = model(torch.ones(1, 3))
    show(out)

# %% round 13: an old autocast with a comment and a line continuation inside the call, in a multi-item with [safe]
import torch

model = torch.nn.Linear(3, 2)
for step in range(2):
    with torch.no_grad(), torch.cpu.amp.autocast(  # mixed precision
            dtype=torch.bfloat16, \
            enabled=True):
        out = model(torch.ones(1, 3))
    show(out)

# %% round 13: an old custom_fwd decorator with cast_inputs on a custom autograd function [none]
import torch


class Square(torch.autograd.Function):
    @staticmethod
    @torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    @torch.cuda.amp.custom_bwd
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


x = torch.ones(3, requires_grad=True)
for step in range(2):
    y = Square.apply(x).sum()
    y.backward()
show(x.grad)

# %% round 13: torch.cpu.amp imported as a module alias, its autocast used inside a lambda-made step [safe]
import torch
import torch.cpu.amp as amp

model = torch.nn.Linear(3, 2)


def step(x):
    with amp.autocast(dtype=torch.bfloat16):
        return model(x)


run = lambda x: step(x)
for i in range(2):
    show(run(torch.ones(1, 3)))

# %% round 13: an old GradScaler disabled by a flag, enabled= by keyword, in a CPU loop with an f-string log [safe]
import torch

use_amp = torch.cuda.is_available()
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.cuda.amp.GradScaler(enabled=use_amp)
for step in range(2):
    loss = model(torch.ones(2, 3)).sum()
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    print(f"step {step}: {loss.item():.4f} scale {scaler.get_scale()}")

# %% round 13: an old CPU autocast whose enabled flag comes from a walrus in the with statement [safe]
import torch

model = torch.nn.Linear(3, 2)
for step in range(2):
    with torch.cpu.amp.autocast(enabled=(on := step > 0)):
        out = model(torch.ones(1, 3))
    show(out, on)

# %% round 14: an old CPU autocast whose options come from a dict that holds dtype [none]
import torch

cfg = {"enabled": True, "dtype": torch.bfloat16}
model = torch.nn.Linear(3, 2)
for step in range(2):
    with torch.cpu.amp.autocast(**cfg):
        show(model(torch.ones(1, 3)).dtype)

# %% round 14: an old CPU autocast class kept in a variable and entered later (round 13: the name is an alias of the class, bound once) [unsafe]
import torch

ctx = torch.cpu.amp.autocast
model = torch.nn.Linear(3, 2)
for step in range(2):
    with ctx(dtype=torch.bfloat16):
        show(model(torch.ones(1, 3)).dtype)

# %% round 14: an old CPU autocast in a nested function under a decorator and a match [safe]
import functools
import torch


def logged(fn):
    @functools.wraps(fn)
    def wrapper(*a):
        return fn(*a)
    return wrapper


model = torch.nn.Linear(3, 2)


@logged
def step(mode):
    match mode:
        case "mixed":
            with torch.cpu.amp.autocast():
                return model(torch.ones(1, 3)).dtype
        case _:
            return model(torch.ones(1, 3)).dtype


for mode in ("mixed", "full"):
    show(step(mode))

# %% round 14: an old autocast imported from torch.cpu.amp only, torch never imported [safe]
from torch.cpu.amp import autocast
import torch.nn as nn

model = nn.Linear(3, 2)
for step in range(2):
    with autocast(dtype=__import__("torch").bfloat16):
        print(model(__import__("torch").ones(1, 3)).dtype)

# %% round 14: an old CUDA GradScaler disabled on the CPU, scaler state printed after steps [safe]
import torch

model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.cuda.amp.GradScaler(enabled=False)
for step in range(2):
    loss = model(torch.ones(2, 3)).sum()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    opt.zero_grad()
show(model.weight, scaler.is_enabled())

# %% round 14: an old CPU autocast checked with isinstance against the old class [unsafe]
import torch

model = torch.nn.Linear(3, 2)
for step in range(2):
    ctx = torch.cpu.amp.autocast()
    with ctx:
        show(model(torch.ones(1, 3)).dtype, isinstance(ctx, torch.cpu.amp.autocast))

# %% round 14: autocast imported from the CPU or the CUDA module by a flag, entered in the loop [none]
import torch

USE_CPU = True
if USE_CPU:
    from torch.cpu.amp import autocast
else:
    from torch.cuda.amp import autocast

model = torch.nn.Linear(3, 2)
for step in range(2):
    with autocast():
        show(model(torch.ones(1, 3)).dtype)

# %% round 14: the old CPU autocast through torch imported as th inside a lambda-made context [safe]
import torch as th

model = th.nn.Linear(3, 2)
make = lambda: th.cpu.amp.autocast(dtype=th.bfloat16)
for step in range(2):
    with make():
        show(model(th.ones(1, 3)).dtype)

# %% round 14: the old CPU autocast entered through contextlib.ExitStack in the step loop [safe]
import contextlib
import torch

model = torch.nn.Linear(3, 2)
for step in range(2):
    with contextlib.ExitStack() as stack:
        stack.enter_context(torch.cpu.amp.autocast())
        show(model(torch.ones(1, 3)).dtype)

# %% round 14: the old CPU autocast nested inside a new autocast that sets float16 [safe]
import torch

model = torch.nn.Linear(3, 2)
for step in range(2):
    with torch.autocast("cpu", dtype=torch.float16):
        with torch.cpu.amp.autocast():
            show(model(torch.ones(1, 3)).dtype)

# %% round 15: an old CUDA GradScaler given its initial scale by position [safe]
import torch

scaler = torch.cuda.amp.GradScaler(2.0 ** 10)
print(scaler.is_enabled())

# %% round 15: custom_fwd from torch.cuda.amp as a bare decorator of an autograd function [none]
import torch


class Double(torch.autograd.Function):
    @staticmethod
    @torch.cuda.amp.custom_fwd
    def forward(ctx, x):
        return x * 2

    @staticmethod
    @torch.cuda.amp.custom_bwd
    def backward(ctx, g):
        return g * 2


x = torch.ones(2, requires_grad=True)
Double.apply(x).sum().backward()
show(x.grad)

# %% round 15: the old autocast imported in a try block, torch imported after it in the except [none]
try:
    from torch.cpu.amp import autocast
except ImportError:
    import torch
    autocast = torch.autocast

import torch

for step in range(2):
    with autocast():
        show(torch.ones(2, 2) @ torch.ones(2, 2))

# %% round 15: the old autocast imported from torch.cpu.amp with the last import under TYPE_CHECKING [safe]
import typing

from torch.cpu.amp import autocast

if typing.TYPE_CHECKING:
    from collections.abc import Iterator

import torch

for step in range(2):
    with autocast():
        show(torch.ones(2, 2) @ torch.ones(2, 2))

# %% round 15: the old autocast imported without torch, last import inside a try block above the call [safe]
from torch.cpu.amp import autocast

try:
    import numpy as np
except ImportError:
    np = None


def run():
    with autocast():
        return (np.ones(1) if np is not None else None, 1)


print(run())

# %% round 15: the old autocast with a dtype=None given explicitly inside a bfloat16 autocast [safe]
import torch

with torch.autocast("cpu", dtype=torch.float16):
    with torch.cpu.amp.autocast(dtype=None):
        show(torch.ones(2, 2) @ torch.ones(2, 2))

# %% round 15: the old autocast used as a decorator of a method, in an f-string of the result [safe]
import torch


class Net(torch.nn.Module):
    @torch.cpu.amp.autocast()
    def forward(self, x):
        return x @ x


print(f"{Net()(torch.ones(2, 2)).dtype}")

# %% round 15: the old CPU GradScaler given its arguments by position [safe]
import torch

scaler = torch.cpu.amp.GradScaler(128.0, 3.0)
print(scaler.get_scale() if scaler.is_enabled() else "off", scaler._growth_factor)

# %% round 15: the old CUDA autocast disabled by a flag in a CPU training loop [safe]
import torch

use_amp = False
w = torch.ones(2, 2, requires_grad=True)
for step in range(2):
    with torch.cuda.amp.autocast(enabled=use_amp):
        loss = (w @ w).sum()
    loss.backward()
show(w.grad)

# %% round 15: the old CPU autocast given all three options by position [safe]
import torch

for step in range(2):
    with torch.cpu.amp.autocast(True, torch.bfloat16, False):
        show(torch.ones(2, 2) @ torch.ones(2, 2))

# %% round 15: the old CPU autocast made by a lambda factory entered in the loop [safe]
import torch

ctx = lambda: torch.cpu.amp.autocast()
for step in range(2):
    with ctx():
        show(torch.ones(2, 2) @ torch.ones(2, 2))

# %% round 15: the old CPU autocast class kept as a class attribute and entered in a method [none]
import torch


class Runner:
    AUTOCAST = torch.cpu.amp.autocast

    def step(self):
        with self.AUTOCAST():
            return torch.ones(2, 2) @ torch.ones(2, 2)


for step in range(2):
    show(Runner().step())

# %% round 15: the old CPU autocast object's class name printed [unsafe]
import torch

for step in range(2):
    ctx = torch.cpu.amp.autocast()
    with ctx:
        out = torch.ones(2, 2) @ torch.ones(2, 2)
    print(type(ctx).__name__, out.dtype)

# %% round 15: an old disabled CUDA GradScaler driving a CPU training loop [safe]
import torch

w = torch.nn.Parameter(torch.ones(2))
opt = torch.optim.SGD([w], lr=0.1)
scaler = torch.cuda.amp.GradScaler(enabled=False)
for step in range(2):
    opt.zero_grad()
    scaler.scale((w * w).sum()).backward()
    scaler.step(opt)
    scaler.update()
show(w)

# %% round 16: an old CPU autocast used as a decorator on the training step [safe]
import torch

model = torch.nn.Linear(4, 4)


@torch.cpu.amp.autocast()
def step(x):
    return model(x)


torch.manual_seed(0)
for epoch in range(2):
    out = step(torch.randn(2, 4))
    show(out.dtype, out.float().sum().round(decimals=2))

# %% round 16: an old CUDA GradScaler built with its options by position [safe]
import torch

model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.cuda.amp.GradScaler(2.0 ** 8, 2.0, 0.5, 100, torch.cuda.is_available())
for step in range(2):
    loss = model(torch.ones(1, 2)).sum()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    print(scaler.is_enabled(), scaler.get_scale() if scaler.is_enabled() else None)

# %% round 16: an old CPU autocast nested inside a new autocast of another dtype [safe]
import torch

model = torch.nn.Linear(4, 4)
torch.manual_seed(0)
for epoch in range(2):
    with torch.autocast("cpu", dtype=torch.float16):
        with torch.cpu.amp.autocast():
            out = model(torch.randn(2, 4))
    show(out.dtype)

# %% round 16: an old CPU autocast with the dtype given by position [safe]
import torch

model = torch.nn.Linear(4, 4)
torch.manual_seed(0)
for epoch in range(2):
    with torch.cpu.amp.autocast(True, torch.bfloat16):
        out = model(torch.randn(2, 4))
    show(out.dtype)

# %% round 16: an old CPU autocast whose object is entered by hand and its enabled read [safe]
import torch

model = torch.nn.Linear(4, 4)
torch.manual_seed(0)
for epoch in range(2):
    ctx = torch.cpu.amp.autocast(enabled=epoch > 0)
    ctx.__enter__()
    out = model(torch.randn(2, 4))
    ctx.__exit__(None, None, None)
    print(ctx._enabled, ctx.fast_dtype, out.dtype)

# %% round 16: an old CUDA custom_fwd on a custom autograd function [none]
import torch


class Square(torch.autograd.Function):
    @staticmethod
    @torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    @torch.cuda.amp.custom_bwd
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


for step in range(2):
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    Square.apply(x).sum().backward()
    show(x.grad)

# %% round 16: an old autocast imported under another name and its class attribute read [safe]
import torch
from torch.cpu.amp import autocast as amp_ctx

model = torch.nn.Linear(4, 4)
torch.manual_seed(0)
for epoch in range(2):
    with amp_ctx(dtype=torch.bfloat16) as ctx:
        out = model(torch.randn(2, 4))
    print(ctx.device, out.dtype)

# %% round 16: an old autocast whose object is compared by type name in a log [unsafe, same]
import torch

model = torch.nn.Linear(4, 4)
torch.manual_seed(0)
for epoch in range(2):
    ctx = torch.cpu.amp.autocast()
    with ctx:
        out = model(torch.randn(2, 4))
    print(type(ctx).__module__.split(".")[0], out.dtype)

# %% round 17: an old GradScaler built with its options by position [safe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.cuda.amp.GradScaler(1024.0, 2.0, 0.5, 100, False)
x = torch.randn(4, 3)
for step in range(3):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    print(round(loss.item(), 4), scaler.get_scale(), scaler.is_enabled())

# %% round 17: a custom autograd function whose forward has the old custom_fwd decorator [safe]
import torch


class Square(torch.autograd.Function):
    @staticmethod
    @torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    @torch.cuda.amp.custom_bwd
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return 2 * x * grad


torch.manual_seed(0)
w = torch.nn.Parameter(torch.randn(3))
opt = torch.optim.SGD([w], lr=0.1)
for step in range(3):
    with torch.cpu.amp.autocast():
        loss = Square.apply(w).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: an old CPU autocast whose fast dtype and state are printed in the step [safe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(4, 3)
for step in range(2):
    with torch.cpu.amp.autocast(cache_enabled=False) as ctx:
        out = model(x)
        print(ctx.fast_dtype, ctx.device, torch.is_autocast_enabled("cpu"), out.dtype)
    loss = out.float().pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()

# %% round 17: an old CPU autocast nested inside a float16 torch.autocast [safe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(4, 3)
for step in range(2):
    with torch.autocast("cpu", dtype=torch.float16):
        with torch.cpu.amp.autocast():
            out = model(x)
    print(out.dtype)
    loss = out.float().pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()

# %% round 17: an old autocast used as a decorator of the step function [safe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)


@torch.cpu.amp.autocast(enabled=True)
def forward(x):
    return model(x)


x = torch.randn(4, 3)
for step in range(2):
    out = forward(x)
    loss = out.float().pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(out.dtype, round(loss.item(), 3))

# %% round 17: an old GradScaler whose state dict is printed after the steps [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.cuda.amp.GradScaler(enabled=False)
x = torch.randn(4, 3)
for step in range(2):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
print(scaler.state_dict(), type(scaler).__name__)

# %% round 18: an old CPU autocast entered through an ExitStack in the step loop [safe]
import contextlib

import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 2)
x = torch.randn(3, 4)
for step in range(2):
    with contextlib.ExitStack() as stack:
        stack.enter_context(torch.cpu.amp.autocast())
        out = model(x)
    show(out.dtype, out.float().sum().round(decimals=2))

# %% round 18: an old CUDA GradScaler whose scale is read every step on a CPU run [safe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.cuda.amp.GradScaler(enabled=torch.cuda.is_available())
for step in range(2):
    opt.zero_grad()
    loss = model(torch.ones(3, 2)).sum()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    print(step, scaler.get_scale(), scaler.is_enabled())

# %% round 18: an old CPU autocast deep-copied into a per-model context list [safe]
import copy

import torch

ctx = torch.cpu.amp.autocast(dtype=torch.bfloat16)
contexts = [copy.copy(ctx) for _ in range(2)]
model = torch.nn.Linear(2, 2)
for c in contexts:
    with c:
        y = model(torch.ones(1, 2))
    print(y.dtype)

# %% round 18: an old CPU autocast whose attributes are listed through vars [safe]
import torch

model = torch.nn.Linear(2, 2)
for step in range(2):
    ac = torch.cpu.amp.autocast(enabled=step == 1)
    with ac:
        out = model(torch.ones(1, 2))
    print(sorted(k for k in vars(ac) if not k.startswith("_")), out.dtype)

# %% round 18: an old CPU autocast built from keyword options of a dict literal [none]
import torch

model = torch.nn.Linear(2, 2)
for step in range(2):
    with torch.cpu.amp.autocast(**{"enabled": True}):
        out = model(torch.ones(1, 2))
    print(out.dtype)

# %% round 18: an old CPU autocast with torch imported inside the training function [safe]
def train():
    import torch

    model = torch.nn.Linear(2, 2)
    for step in range(2):
        with torch.cpu.amp.autocast():
            out = model(torch.ones(1, 2))
        print(out.dtype)


train()

# %% round 19: a grad scaler built with its initial scale by position in the training loop [safe]
import torch

scaler = torch.cuda.amp.GradScaler(2.0 ** 10)
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    loss = model(torch.ones(2, 3)).sum()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
print(scaler.is_enabled())
show(model.weight)

# %% round 19: autocast disabled by position around the step [safe]
import torch

model = torch.nn.Linear(3, 1)
for step in range(2):
    with torch.cuda.amp.autocast(False):
        out = model(torch.ones(2, 3))
    show(out)

# %% round 19: autocast given enabled and dtype by position [safe]
import torch

model = torch.nn.Linear(3, 1)
for step in range(2):
    with torch.cuda.amp.autocast(True, torch.bfloat16):
        out = model(torch.ones(2, 3))
    show(out)

# %% round 19: a custom autograd function decorated by custom_fwd without arguments [none]
import torch


class Scale(torch.autograd.Function):
    @staticmethod
    @torch.cuda.amp.custom_fwd
    def forward(ctx, x):
        return x * 2

    @staticmethod
    @torch.cuda.amp.custom_bwd
    def backward(ctx, g):
        return g * 2


x = torch.ones(3, requires_grad=True)
for step in range(2):
    Scale.apply(x).sum().backward()
show(x.grad)

# %% round 19: custom_fwd with cast_inputs by keyword on a custom function [none]
import torch


class Mul(torch.autograd.Function):
    @staticmethod
    @torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)
    def forward(ctx, x):
        return x * 3

    @staticmethod
    @torch.cuda.amp.custom_bwd
    def backward(ctx, g):
        return g * 3


x = torch.ones(3, requires_grad=True)
for step in range(2):
    Mul.apply(x).sum().backward()
show(x.grad)

# %% round 19: autocast imported from torch.cuda.amp under another name [safe]
import torch
from torch.cuda.amp import autocast as amp_autocast

model = torch.nn.Linear(3, 1)
for step in range(2):
    with amp_autocast(enabled=False):
        show(model(torch.ones(1, 3)))

# %% round 19: a grad scaler with every option given by position [safe]
import torch

scaler = torch.cuda.amp.GradScaler(128.0, 2.0, 0.5, 100, False)
print(scaler.is_enabled())

# %% round 24: the old autocast name taken as a parameter of the step function with a nullcontext default [none]
import contextlib
import torch
from torch.cpu.amp import autocast

torch.manual_seed(0)
model = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)


def step(x, autocast=contextlib.nullcontext):
    with autocast():
        out = model(x)
    loss = out.float().pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(out.dtype, round(loss.item(), 4))


for i in range(2):
    step(torch.randn(3, 4))

# %% round 24: the old autocast name rebound by a function that declares it global [none]
import contextlib
import torch
from torch.cpu.amp import autocast

torch.manual_seed(0)
model = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)


def disable_amp():
    global autocast
    autocast = contextlib.nullcontext


disable_amp()
for i in range(2):
    with autocast():
        out = model(torch.randn(3, 4))
    loss = out.float().pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(out.dtype, round(loss.item(), 4))

# %% round 24: the old autocast name rebound by a loop over precision contexts [none]
import contextlib
import torch
from torch.cpu.amp import autocast

torch.manual_seed(0)
model = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for autocast in (contextlib.nullcontext, contextlib.nullcontext):
    with autocast():
        out = model(torch.randn(3, 4))
    loss = out.float().pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(out.dtype, round(loss.item(), 4))

# %% round 24: the old autocast name rebound by a match capture from a config dict [none]
import contextlib
import torch
from torch.cpu.amp import autocast

config = {"amp": contextlib.nullcontext}
match config:
    case {"amp": autocast}:
        pass
torch.manual_seed(0)
model = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for i in range(2):
    with autocast():
        out = model(torch.randn(3, 4))
    loss = out.float().pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(out.dtype, round(loss.item(), 4))

# %% round 24: the old autocast name rebound by a walrus in an if at module level [none]
import contextlib
import torch
from torch.cpu.amp import autocast

torch.manual_seed(0)
model = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
if (autocast := contextlib.nullcontext) is not None:
    print("amp off")
for i in range(2):
    with autocast():
        out = model(torch.randn(3, 4))
    loss = out.float().pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(out.dtype, round(loss.item(), 4))

# %% round 24: the old amp module alias rebound to a namespace of null contexts [none]
import contextlib
import types
import torch
import torch.cpu.amp as amp

if True:
    amp = types.SimpleNamespace(autocast=contextlib.nullcontext)
torch.manual_seed(0)
model = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for i in range(2):
    with amp.autocast():
        out = model(torch.randn(3, 4))
    loss = out.float().pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(out.dtype, round(loss.item(), 4))

# %% round 24: the old autocast imported without torch, the last import above the call inside a function [safe]
from torch.cpu.amp import autocast


def helper():
    import math
    return math.sqrt(4.0)


def run():
    with autocast():
        return helper()


print(run())

# %% round 24: the old autocast name rebound by exec at module level [none]
import contextlib
import torch
from torch.cpu.amp import autocast

exec("autocast = contextlib.nullcontext")
torch.manual_seed(0)
model = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for i in range(2):
    with autocast():
        out = model(torch.randn(3, 4))
    loss = out.float().pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(out.dtype, round(loss.item(), 4))

# %% round 24: the old autocast name rebound through globals().update [none]
import contextlib
import torch
from torch.cpu.amp import autocast

globals().update(autocast=contextlib.nullcontext)
torch.manual_seed(0)
model = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for i in range(2):
    with autocast():
        out = model(torch.randn(3, 4))
    loss = out.float().pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(out.dtype, round(loss.item(), 4))

# %% round 24: the old autocast in a training step inside try/finally with a match on the phase [safe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for phase in ("train", "train"):
    try:
        match phase:
            case "train":
                with torch.cpu.amp.autocast():
                    out = model(torch.randn(3, 4))
        loss = out.float().pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    finally:
        show(out.dtype, round(loss.item(), 4))

# %% round 24: a class attribute named autocast that the method does not see, the module-level old autocast entered [unsafe, same]
import contextlib
import torch
from torch.cpu.amp import autocast

torch.manual_seed(0)
model = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)


class Trainer:
    autocast = contextlib.nullcontext

    def step(self, x):
        with autocast():
            out = model(x)
        loss = out.float().pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        show(out.dtype, round(loss.item(), 4))


for i in range(2):
    Trainer().step(torch.randn(3, 4))
