# %% control: empty_cache beside the step [unsafe, same]
import torch

loader = [torch.ones(2) * i for i in range(3)]
total = []
for x in loader:
    total.append(float(x.sum()))
    torch.cuda.empty_cache()
print(total)

# %% alone in the loop body [unsafe, same]
import torch

loader = [torch.ones(2) for _ in range(3)]
for x in loader:
    torch.cuda.empty_cache()
print("done")

# %% two calls alone in the body [unsafe, same]
import torch

loader = [torch.ones(2) for _ in range(3)]
for x in loader:
    torch.cuda.empty_cache()
    torch.cuda.empty_cache()
print("done")

# %% on the line of an if [unsafe, same]
import torch

loader = [torch.ones(2) for _ in range(3)]
seen = 0
for x in loader:
    seen += 1
    if seen > 0: torch.cuda.empty_cache()
print(seen)

# %% a comment above the call [none]
import torch

loader = [torch.ones(2) for _ in range(3)]
seen = 0
for x in loader:
    seen += 1
    # free memory
    torch.cuda.empty_cache()
print(seen)

# %% inside a match case [unsafe, same]
import torch

loader = [torch.ones(2) for _ in range(3)]
for x in loader:
    match int(x.sum()):
        case 2:
            torch.cuda.empty_cache()
        case _:
            print("other")
print("done")

# %% semicolon-separated statements [none]
import torch

loader = [torch.ones(2) for _ in range(3)]
seen = 0
for x in loader:
    seen += 1; torch.cuda.empty_cache()
print(seen)

# %% round 8: empty_cache in a with block after the step [unsafe, same]
import contextlib

import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
for step in range(2):
    with contextlib.suppress(RuntimeError):
        model(torch.randn(2, 3)).sum().backward()
        torch.cuda.empty_cache()
    show(model.weight.grad)

# %% round 8: empty_cache as the only statement of an else branch of a try [unsafe, same]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
for step in range(2):
    try:
        model(torch.randn(2, 3)).sum().backward()
    except RuntimeError:
        print("oom")
    else:
        torch.cuda.empty_cache()
show(model.weight.grad)

# %% round 9: empty_cache imported by name, alone in a finally block [unsafe, same]
import torch
from torch.cuda import empty_cache

model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    try:
        loss = model(torch.ones(1, 2)).sum()
        opt.zero_grad(); loss.backward(); opt.step()
    finally:
        empty_cache()
    print(step)

# %% round 9: empty_cache split over lines with a backslash, after a docstring-only helper [unsafe, same]
import torch

def free():
    """Release cached blocks."""
    torch.cuda \
        .empty_cache()

model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    loss = model(torch.ones(1, 2)).sum()
    opt.zero_grad(); loss.backward(); opt.step()
    torch.cuda.empty_cache()
    free()
    print(step)

# %% round 9: empty_cache alone in a match case body [unsafe, same]
import torch

model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    loss = model(torch.ones(1, 2)).sum()
    opt.zero_grad(); loss.backward(); opt.step()
    match step:
        case 0:
            torch.cuda.empty_cache()
        case _:
            print("later")
    print(step)

# %% round 10: empty_cache with a trailing comment in an epoch loop [none]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(2, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    loss = model(torch.ones(1, 2)).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    torch.cuda.empty_cache()  # free the activations before validation
    print(round(loss.item(), 6))

# %% round 10: empty_cache imported under another name, alone in an elif branch [unsafe, same]
import torch
from torch import nn
from torch.cuda import empty_cache as release

torch.manual_seed(0)
model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(4):
    loss = model(torch.ones(3, 2)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 2:
        print("odd", step)
    elif step > 100:
        release()
print(round(loss.item(), 6))

# %% round 10: empty_cache alone in a tab-indented while body [unsafe, same]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
step = 0
while step < 3:
	loss = model(torch.ones(2, 2)).sum()
	opt.zero_grad()
	loss.backward()
	opt.step()
	step += 1
	while False:
		torch.cuda.empty_cache()
print(step, round(loss.item(), 6))

# %% round 10: empty_cache kept in a lambda cleanup callback [none]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
cleanup = lambda: torch.cuda.empty_cache()
for step in range(2):
    loss = model(torch.ones(2, 2)).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    cleanup()
print(round(loss.item(), 6))

# %% round 12: empty_cache as the only statement of a with block in a trainer's fit loop [unsafe, same]
import contextlib
import torch


class Trainer:
    def __init__(self):
        self.model = torch.nn.Linear(2, 1)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def fit(self, batches):
        for x in batches:
            loss = self.model(x).sum()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            with contextlib.suppress(RuntimeError):
                torch.cuda.empty_cache()
            show(loss)


torch.manual_seed(0)
Trainer().fit([torch.ones(1, 2), torch.zeros(1, 2), torch.ones(1, 2)])

# %% round 12: empty_cache alone in a match case of the step loop, under an imported alias [none]
import torch
from torch.cuda import empty_cache as free_cached

model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step, x in enumerate([torch.ones(1, 2), torch.zeros(1, 2), torch.full((1, 2), 2.0)]):
    loss = model(x).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    match x.sum().item() > 1:
        case True:
            free_cached()
        case _:
            print("small batch", step)
show(model)

# %% round 12: empty_cache after each batch of a generator-driven loop with a tab-indented body [unsafe, same]
import torch


def batches():
	for i in range(3):
		yield torch.full((1, 2), float(i))


model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x in batches():
	loss = model(x).sum()
	opt.zero_grad()
	loss.backward()
	opt.step()
	torch.cuda.empty_cache()
show(model)

# %% round 12: empty_cache on one line after a semicolon in the training loop [none]
import gc
import torch

model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    loss = model(torch.ones(1, 2)).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    gc.collect(); torch.cuda.empty_cache()
show(model)

# %% round 12: empty_cache in a try body with an except that logs [none]
import torch

model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    loss = model(torch.ones(1, 2)).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    try:
        torch.cuda.empty_cache()
    except RuntimeError as err:
        print("could not free", err)
show(model)

# %% round 13: a file-level empty_cache function shadows the imported one, called in the training loop [none]
import torch
from torch.cuda import empty_cache


def empty_cache():
    print("cache cleared")


model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    model(torch.ones(1, 2)).sum().backward()
    opt.step()
    empty_cache()

# %% round 13: torch shadowed by a step function's parameter holding a stand-in with empty_cache [none]
import torch as real_torch
from types import SimpleNamespace


def step(torch):
    torch.cuda.empty_cache()


standin = SimpleNamespace(cuda=SimpleNamespace(empty_cache=lambda: print("stand-in cleared")))
for i in range(2):
    real_torch.ones(2).sum()
    step(standin)

# %% round 13: empty_cache through a cuda alias in a one-line if of the training loop [none]
import torch
from torch import cuda as gpu

model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    model(torch.ones(1, 2)).sum().backward()
    opt.step()
    if step % 2: gpu.empty_cache()
    print(step)

# %% round 13: empty_cache alone in a for loop's else clause inside the epoch loop [none]
import torch

model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for step in range(2):
        model(torch.ones(1, 2)).sum().backward()
        opt.step()
    else:
        torch.cuda.empty_cache()
    print(epoch)

# %% round 13: empty_cache after a docstring in a nested step function [none]
import torch


def train(model):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def after_step():
        """Free cached blocks."""
        torch.cuda.empty_cache()

    for step in range(2):
        model(torch.ones(1, 2)).sum().backward()
        opt.step()
        after_step()
    print("done")


train(torch.nn.Linear(2, 1))

# %% round 13: empty_cache in a finally block of the step loop [unsafe, same]
import torch

model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    try:
        model(torch.ones(1, 2)).sum().backward()
        opt.step()
    finally:
        torch.cuda.empty_cache()
    print(step)

# %% round 14: empty_cache as the only statement of an elif branch in the training loop [none]
import torch

for step in range(4):
    if step % 2 == 0:
        print("even", step)
    elif step == 3:
        torch.cuda.empty_cache()
print("done")

# %% round 14: empty_cache with a trailing semicolon as the only statement of a loop body [unsafe, same]
import torch

for step in range(2):
    torch.cuda.empty_cache();
print("done")

# %% round 14: empty_cache split by a line continuation after the module name [unsafe, same]
import torch

for step in range(2):
    print(step)
    torch.cuda \
        .empty_cache()
print("done")

# %% round 14: empty_cache imported under another name, only statement of a with block in the loop [unsafe, same]
import contextlib
from torch.cuda import empty_cache as free

for step in range(2):
    with contextlib.suppress(RuntimeError):
        free()
    print(step)

# %% round 14: empty_cache as the only statement of a function defined in the loop [none]
import torch

for step in range(2):
    def cleanup():
        torch.cuda.empty_cache()
    cleanup()
    print(step, cleanup.__name__)

# %% round 14: empty_cache in a loop of a notebook-like cell with a magic-free comment after it [none]
import torch

for step in range(2):
    print(step)
    torch.cuda.empty_cache()  # free the cache between steps
print("done")

# %% round 15: empty_cache as the only statement of a try body in the loop [none]
import torch

for step in range(2):
    try:
        torch.cuda.empty_cache()
    except RuntimeError:
        print("failed")
    print(step)

# %% round 15: empty_cache as the only statement of a for-else clause [none]
import torch

for epoch in range(2):
    for step in range(2):
        print(epoch, step)
    else:
        torch.cuda.empty_cache()

# %% round 15: empty_cache as the only statement of a function with a docstring, called per epoch [none]
import torch


def release():
    """Free cached blocks."""
    torch.cuda.empty_cache()


for epoch in range(2):
    release()
    print(epoch, release.__doc__)

# %% round 15: empty_cache on one line after an if colon in the loop [none]
import torch

for step in range(3):
    if step % 2 == 0: torch.cuda.empty_cache()
    print(step)

# %% round 15: empty_cache followed by a semicolon and a print on the same line [none]
import torch

for step in range(2):
    torch.cuda.empty_cache(); print(step)

# %% round 15: empty_cache in a with block of a finally clause in the loop [unsafe, same]
import contextlib

import torch

for step in range(2):
    try:
        print(step)
    finally:
        with contextlib.suppress(RuntimeError):
            torch.cuda.empty_cache()

# %% round 15: empty_cache through a from-import under another name inside a while loop with CRLF-free tabs [unsafe, same]
from torch.cuda import empty_cache as free

step = 0
while step < 2:
	free()
	step += 1
print(step)

# %% round 15: empty_cache as the only statement of a case guard body in an epoch loop [none]
import torch

for epoch in range(3):
    match epoch:
        case n if n > 0:
            torch.cuda.empty_cache()
        case _:
            print("first")

# %% round 15: empty_cache between two statements of a training loop body [unsafe, same]
import torch

w = torch.ones(2, requires_grad=True)
for step in range(2):
    loss = (w * step).sum()
    torch.cuda.empty_cache()
    loss.backward()
show(w.grad)

# %% round 15: empty_cache as the last statement of a while loop with a walrus header [unsafe, same]
import torch

items = [1, 2, 3]
while (item := items.pop() if items else None) is not None:
    print(item)
    torch.cuda.empty_cache()

# %% round 15: empty_cache as the only statement of a nested loop body inside a training loop [unsafe, same]
import torch

for epoch in range(2):
    for chunk in range(2):
        torch.cuda.empty_cache()
    print(epoch)

# %% round 15: empty_cache spelled through torch imported as th in a tab-indented loop [unsafe, same]
import torch as th

for step in range(2):
	th.cuda.empty_cache()
	print(step)

# %% round 15: empty_cache in a loop inside a match case body [unsafe, same]
import torch

mode = "train"
match mode:
    case "train":
        for step in range(2):
            torch.cuda.empty_cache()
        print("trained")

# %% round 16: empty_cache as the one-line body of an if inside the step loop [none]
import torch

model = torch.nn.Linear(2, 1)
for step in range(3):
    out = model(torch.ones(1, 2))
    if step % 2 == 0: torch.cuda.empty_cache()
    print(step, round(out.sum().item(), 4))

# %% round 16: empty_cache after a semicolon on the line of gc.collect [none]
import gc

import torch

model = torch.nn.Linear(2, 1)
for step in range(3):
    out = model(torch.ones(1, 2))
    gc.collect(); torch.cuda.empty_cache()
    print(step, round(out.sum().item(), 4))

# %% round 16: empty_cache as the only statement of a finally clause in the loop [unsafe, same]
import torch

model = torch.nn.Linear(2, 1)
for step in range(3):
    try:
        out = model(torch.ones(1, 2))
        print(step, round(out.sum().item(), 4))
    finally:
        torch.cuda.empty_cache()

# %% round 16: empty_cache as a one-line else of an if in the loop [unsafe, same]
import torch

model = torch.nn.Linear(2, 1)
for step in range(3):
    out = model(torch.ones(1, 2))
    if step == 1:
        print("mid")
    else: torch.cuda.empty_cache()
    print(step, round(out.sum().item(), 4))

# %% round 16: empty_cache called through a name bound to it, in a with block of the loop [unsafe, same]
import torch

free = torch.cuda.empty_cache
model = torch.nn.Linear(2, 1)
for step in range(3):
    with torch.no_grad():
        out = model(torch.ones(1, 2))
        free()
    print(step, round(out.sum().item(), 4))

# %% round 16: empty_cache as the body of a while loop's else in the epoch loop [none]
import torch

model = torch.nn.Linear(2, 1)
for epoch in range(2):
    n = 0
    while n < 2:
        n += 1
        print(epoch, n, round(model(torch.ones(1, 2)).sum().item(), 4))
    else:
        torch.cuda.empty_cache()

# %% round 16: empty_cache on a line ending in a semicolon, alone in a one-line for [unsafe, same]
import torch

model = torch.nn.Linear(2, 1)
for step in range(3): torch.cuda.empty_cache();
print(round(model(torch.ones(1, 2)).sum().item(), 4))

# %% round 16: empty_cache as the body of a class-level loop of a callback [none]
import torch


class Callback:
    def on_step_end(self, step):
        if step:
            torch.cuda.empty_cache()


cb = Callback()
model = torch.nn.Linear(2, 1)
for step in range(3):
    out = model(torch.ones(1, 2))
    cb.on_step_end(step)
    print(step, round(out.sum().item(), 4))

# %% round 17: empty_cache split over two lines by a backslash in the step loop [unsafe, same]
import torch

model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.ones(3, 2)
for step in range(3):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    torch.cuda.\
        empty_cache()
print(round(loss.item(), 4))

# %% round 17: empty_cache in parentheses as a statement in the step loop [unsafe, same]
import torch

model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.ones(3, 2)
for step in range(3):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    (torch.cuda.empty_cache())
print(round(loss.item(), 4))

# %% round 17: empty_cache as the only statement of a try body with an except [none]
import torch

model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.ones(3, 2)
for step in range(3):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    try:
        torch.cuda.empty_cache()
    except RuntimeError:
        print("no cuda")
print(round(loss.item(), 4))

# %% round 17: empty_cache as the only statement of a with block around the step [unsafe, same]
import contextlib

import torch

model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.ones(3, 2)
for step in range(3):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    with contextlib.suppress(RuntimeError):
        torch.cuda.empty_cache()
print(round(loss.item(), 4))

# %% round 17: empty_cache called through torch.cuda.memory in an elif branch [none]
import torch

model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.ones(3, 2)
for step in range(4):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step == 0:
        print("first")
    elif step % 2:
        torch.cuda.memory.empty_cache()
print(round(loss.item(), 4))

# %% round 17: empty_cache chained with gc.collect by or in the step loop [none]
import gc

import torch

model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.ones(3, 2)
for step in range(3):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    gc.collect() or torch.cuda.empty_cache()
print(round(loss.item(), 4))

# %% round 17: empty_cache as a one-line body of a while loop draining a queue in the step [none]
import torch

model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.ones(3, 2)
for step in range(3):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    pending = [1] if step else []
    while pending: pending.pop(); torch.cuda.empty_cache()
print(round(loss.item(), 4))

# %% round 17: empty_cache whose result is assigned to a throwaway name [none]
import torch

model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.ones(3, 2)
for step in range(3):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    _ = torch.cuda.empty_cache()
print(round(loss.item(), 4), _)

# %% round 18: empty_cache as the last statement of a step under a with no_grad block [unsafe, same]
import torch

model = torch.nn.Linear(2, 1)
loader = [torch.ones(3, 2) * i for i in range(3)]
outs = []
for x in loader:
    with torch.no_grad():
        outs.append(float(model(x).sum()))
        torch.cuda.empty_cache()
print([round(o, 4) for o in outs])

# %% round 18: empty_cache after a global declaration alone in a step function body [none]
import torch

steps = 0


def step(x):
    global steps
    torch.cuda.empty_cache()


for x in [torch.ones(2)] * 3:
    step(x)
    steps += 1
print(steps)

# %% round 18: empty_cache in the except-else clause of a guarded step [unsafe, same]
import torch

model = torch.nn.Linear(2, 1)
total = 0.0
for x in [torch.ones(3, 2)] * 3:
    try:
        total += float(model(x).sum())
    except RuntimeError:
        pass
    else:
        torch.cuda.empty_cache()
print(round(total, 4))

# %% round 18: empty_cache called through torch.cuda.memory imported as a module [unsafe, same]
import torch
from torch.cuda import memory

model = torch.nn.Linear(2, 1)
for x in [torch.ones(3, 2)] * 2:
    y = model(x)
    memory.empty_cache()
print(y.shape)

# %% round 19: empty_cache after gc.collect on the same line with a semicolon [none]
import gc
import torch

for step in range(3):
    x = torch.ones(4) * step
    gc.collect(); torch.cuda.empty_cache()
    print(x.sum().item())

# %% round 19: empty_cache as the one-line body of an availability check [unsafe, same]
import torch

for step in range(3):
    x = torch.ones(4) * step
    if torch.cuda.is_available(): torch.cuda.empty_cache()
    print(x.sum().item())

# %% round 19: empty_cache whose result is bound to a name [none]
import torch

for step in range(3):
    x = torch.ones(4) * step
    freed = torch.cuda.empty_cache()
    print(x.sum().item(), freed)

# %% round 19: empty_cache in a tuple expression statement with gc.collect [none]
import gc
import torch

for step in range(3):
    x = torch.ones(4) * step
    (gc.collect(), torch.cuda.empty_cache())
    print(x.sum().item())

# %% round 19: empty_cache as a conditional expression statement in the loop [none]
import torch

for step in range(3):
    x = torch.ones(4) * step
    torch.cuda.empty_cache() if step % 2 else None
    print(x.sum().item())

# %% round 19: empty_cache called through a name bound from torch.cuda [unsafe, same]
import torch

free = torch.cuda.empty_cache
for step in range(3):
    x = torch.ones(4) * step
    free()
    print(x.sum().item())

# %% round 24: empty_cache imported from torch.cuda, then redefined by a def of the file that logs [none]
import torch
from torch.cuda import empty_cache


def empty_cache():
    print("cleanup")


torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.ones(1, 2)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    empty_cache()
print(round(loss.item(), 4))

# %% round 24: a name bound to empty_cache or to a logger by a conditional expression [none]
import torch


def report():
    print("host only")


free = torch.cuda.empty_cache if torch.cuda.is_available() else report
torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.ones(1, 2)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    free()
print(round(loss.item(), 4))

# %% round 24: a name bound to empty_cache, rebound to a logger by a function declaring it global [none]
import torch

free = torch.cuda.empty_cache


def use_logger():
    global free

    def free():
        print("logged")


use_logger()
torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.ones(1, 2)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    free()
print(round(loss.item(), 4))

# %% round 24: a name bound to empty_cache, rebound in a match case on the device [none]
import torch

free = torch.cuda.empty_cache
match "cpu" if not torch.cuda.is_available() else "cuda":
    case "cpu":
        free = lambda: print("nothing to free")
    case _:
        pass
torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.ones(1, 2)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    free()
print(round(loss.item(), 4))

# %% round 24: empty_cache kept as a staticmethod of a hooks class and called in the step [none]
import torch


class Hooks:
    free = staticmethod(torch.cuda.empty_cache)


torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.ones(1, 2)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    Hooks.free()
print(round(loss.item(), 4))

# %% round 24: empty_cache called through torch.cuda imported as a module alias, in a with block [unsafe, same]
import contextlib
import torch
import torch.cuda as tc

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.ones(1, 2)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    with contextlib.suppress(RuntimeError):
        tc.empty_cache()
print(round(loss.item(), 4))

# %% round 24: empty_cache as the only statement of a match case in a step function [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)


def step(i):
    loss = model(torch.ones(1, 2)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    match i % 2:
        case 0:
            torch.cuda.empty_cache()
        case _:
            print("odd", i)


for i in range(3):
    step(i)

# %% round 24: empty_cache redefined at module level by assignment to a tracing lambda after the import [none]
import torch
from torch.cuda import empty_cache

calls = []
empty_cache = lambda: calls.append(len(calls))
torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.ones(1, 2)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    empty_cache()
print(calls, round(loss.item(), 4))

# %% round 24: a name bound to empty_cache, rebound by assignment in a function declaring it global [none]
import torch

free = torch.cuda.empty_cache


def report():
    print("logged")


def use_logger():
    global free
    free = report


use_logger()
torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.ones(1, 2)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    free()
print(round(loss.item(), 4))
