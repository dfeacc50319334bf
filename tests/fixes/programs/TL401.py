# %% control: every parameter gets a gradient, plain SGD [unsafe, same]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(3):
    opt.zero_grad(set_to_none=False)
    model(torch.ones(4, 3)).pow(2).sum().backward()
    opt.step()
show(model)

# %% momentum with a parameter that misses gradients [unsafe]
import torch

torch.manual_seed(0)
a, b = torch.nn.Linear(2, 2), torch.nn.Linear(2, 2)
opt = torch.optim.SGD([*a.parameters(), *b.parameters()], lr=0.1, momentum=0.9)
for step in range(4):
    opt.zero_grad(set_to_none=False)
    net = a if step < 2 else torch.nn.Sequential(a, b)
    net(torch.ones(1, 2)).sum().backward()
    opt.step()
show(a, b)

# %% AdamW with weight decay [unsafe]
import torch

torch.manual_seed(0)
a, b = torch.nn.Linear(2, 2), torch.nn.Linear(2, 2)
opt = torch.optim.AdamW([*a.parameters(), *b.parameters()], lr=0.1, weight_decay=0.1)
for step in range(3):
    opt.zero_grad(set_to_none=False)
    (b(a(torch.ones(1, 2))) if step == 0 else a(torch.ones(1, 2))).sum().backward()
    opt.step()
show(a, b)

# %% gradients read in another function after the reset [none]
import torch

def grad_norm(model):
    return sum(float(p.grad.abs().sum()) for p in model.parameters())

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
model(torch.ones(1, 2)).sum().backward()
opt.step()
opt.zero_grad(set_to_none=False)
show(grad_norm(model))

# %% positional set_to_none=False [unsafe, same]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(2):
    model.zero_grad(False)
    model(torch.ones(1, 2)).sum().backward()
    opt.step()
show(model)

# %% manual zeroing under a None check [unsafe, same]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(2):
    for p in model.parameters():
        if p.grad is not None:
            p.grad.zero_()
    model(torch.ones(1, 2)).sum().backward()
    opt.step()
show(model)

# %% manual zeroing, gradients printed afterwards [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
model(torch.ones(1, 2)).sum().backward()
for p in model.parameters():
    p.grad.zero_()
show([p.grad for p in model.parameters()])

# %% gradients read through getattr after the reset [none]
import torch


def grad_norm(model):
    return sum(float(getattr(p, "grad").abs().sum()) for p in model.parameters())


torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    model(torch.ones(1, 2)).sum().backward()
    opt.step()
    opt.zero_grad(set_to_none=False)
    show(grad_norm(model))

# %% gradients read with operator.attrgetter [none]
import operator
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
grad_of = operator.attrgetter("grad")
x = torch.randn(4, 3)
for step in range(3):
    opt.zero_grad(set_to_none=False)
    if step == 1:
        model[1](x).sum().backward()
    else:
        model(x).sum().backward()
    print([round(grad_of(p).abs().sum().item(), 4) for p in model.parameters()])
    opt.step()

# %% round 7: gradients read through vars() of a parameter [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
model(torch.ones(1, 2)).sum().backward()
for step in range(2):
    opt.zero_grad(set_to_none=False)
    show(vars(model)["_parameters"]["weight"].grad.sum())
    model(torch.ones(1, 2)).sum().backward()
    opt.step()

# %% round 7: gradient norms clipped right after zeroing, before any backward [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
model(torch.ones(1, 2)).sum().backward()
for step in range(2):
    opt.zero_grad(set_to_none=False)
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    show(norm)
    model(torch.ones(1, 2)).sum().backward()
    opt.step()

# %% round 8: gradient accumulation with zero_grad(set_to_none=False) every few steps [unsafe, same]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(4):
    loss = model(torch.randn(2, 3)).pow(2).mean() / 2
    loss.backward()
    if (step + 1) % 2 == 0:
        opt.step()
        opt.zero_grad(set_to_none=False)
show(model)

# %% round 8: a scheduler and param groups, model.zero_grad with set_to_none False [unsafe, same]
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Linear(3, 1))
opt = torch.optim.SGD([{"params": model[0].parameters(), "lr": 0.01}, {"params": model[1].parameters()}], lr=0.1)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 0.5 ** e)
for step in range(3):
    model.zero_grad(set_to_none=False)
    model(torch.randn(2, 3)).sum().backward()
    opt.step()
    sched.step()
show(model)

# %% round 9: momentum SGD with a frozen-then-unfrozen layer, zero_grad positional False [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Linear(2, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for step in range(4):
    model[0].requires_grad_(step != 2)
    opt.zero_grad(False)
    model(torch.ones(1, 2)).sum().backward()
    opt.step()
print(round(sum(p.sum().item() for p in model.parameters()), 5))

# %% round 9: a scheduler stepping after the optimizer, zero_grad with set_to_none False keyword [unsafe, same]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.Adam(model.parameters(), lr=0.1)
sched = torch.optim.lr_scheduler.StepLR(opt, 1, gamma=0.5)
for step in range(3):
    opt.zero_grad(set_to_none=False)
    model(torch.ones(1, 2)).sum().backward()
    opt.step(); sched.step()
print(round(sum(p.sum().item() for p in model.parameters()), 5))

# %% round 10: old-style manual zeroing through .data in a loop over named parameters [none]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
x, y = torch.randn(6, 3), torch.randn(6, 1)
for step in range(3):
    for name, p in model.named_parameters():
        if p.grad is not None:
            p.grad.data.zero_()
    loss = (model(x) - y).pow(2).mean()
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p -= 0.1 * p.grad
    print(round(loss.item(), 6))

# %% round 10: gradients reset through a walrus alias of p.grad [none]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(5, 3), torch.randn(5, 1)
for step in range(3):
    for p in model.parameters():
        if (g := p.grad) is not None:
            g.zero_()
    loss = (model(x) - y).pow(2).mean()
    loss.backward()
    opt.step()
    print(round(loss.item(), 6))

# %% round 10: an input perturbation's gradient zeroed between attack steps [none]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(3, 4), torch.tensor([0, 1, 1])
for step in range(2):
    delta = torch.zeros_like(x, requires_grad=True)
    for k in range(3):
        loss = nn.functional.cross_entropy(model(x + delta), y)
        loss.backward()
        with torch.no_grad():
            delta += 0.01 * delta.grad.sign()
        delta.grad.zero_()
    opt.zero_grad(set_to_none=False)
    loss = nn.functional.cross_entropy(model(x + delta.detach()), y)
    loss.backward()
    opt.step()
    print(round(loss.item(), 6))

# %% round 10: zero_grad(set_to_none=False) with a parameter frozen by requires_grad False [unsafe, same]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 1))
model[0].weight.requires_grad_(False)
opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=0.01)
x, y = torch.randn(4, 3), torch.randn(4, 1)
for step in range(3):
    opt.zero_grad(set_to_none=False)
    loss = (model(x) - y).pow(2).mean()
    loss.backward()
    opt.step()
    print(round(loss.item(), 6))

# %% round 12: gradient norms summed from a list of grads taken before the backward [none]
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Linear(3, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
model(torch.zeros(1, 3)).sum().backward()
for step in range(2):
    opt.zero_grad(set_to_none=False)
    grads = [p.grad for p in model.parameters()]
    model(torch.ones(2, 3)).sum().backward()
    print(round(torch.stack([g.norm() for g in grads]).sum().item(), 4))
    opt.step()

# %% round 12: a training_step of a Lightning-style module adds gradient noise through param.grad.add_ after backward [none]
import torch


class Lit(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(2, 1)

    def training_step(self, x, opt):
        opt.zero_grad(set_to_none=False)
        self(x).sum().backward()
        for p in self.parameters():
            p.grad.add_(0.01)
        opt.step()

    def forward(self, x):
        return self.fc(x)


torch.manual_seed(0)
lit = Lit()
opt = torch.optim.SGD(lit.parameters(), lr=0.1)
for i in range(2):
    lit.training_step(torch.ones(1, 2), opt)
show(lit)

# %% round 12: a frozen head inside a Hugging Face-style trainer subclass, Adam state compared after the epoch [unsafe, same]
import torch


class Trainer:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.AdamW(model.parameters(), lr=0.1, weight_decay=0.5)

    def training_step(self, x):
        self.opt.zero_grad(set_to_none=False)
        self.model[0](x).sum().backward()
        self.opt.step()


torch.manual_seed(0)
trainer = Trainer(torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Linear(2, 2)))
for i in range(2):
    trainer.training_step(torch.ones(1, 2))
show(trainer.model)

# %% round 12: gradients read through operator.attrgetter of a dotted path in a clipping helper [none]
import operator
import torch

get_grad = operator.attrgetter("weight.grad")
torch.manual_seed(0)
model = torch.nn.Linear(2, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
model(torch.zeros(1, 2)).sum().backward()
for step in range(2):
    opt.zero_grad(set_to_none=False)
    print(get_grad(model).abs().sum().item())
    model(torch.ones(1, 2)).sum().backward()
    opt.step()

# %% round 12: gradients read by a grads property of the trainer before the backward [none]
import torch


class Run:
    def __init__(self):
        torch.manual_seed(0)
        self.model = torch.nn.Linear(2, 1)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.model(torch.zeros(1, 2)).sum().backward()

    @property
    def grad_sum(self):
        return sum(p.grad.sum().item() for p in self.model.parameters())

    def step(self):
        self.opt.zero_grad(set_to_none=False)
        print("before", self.grad_sum)
        self.model(torch.ones(1, 2)).sum().backward()
        self.opt.step()


run = Run()
for i in range(2):
    run.step()

# %% round 13: a hand-written optimizer whose zero_grad requires set_to_none [none]
import torch


class Plain:
    def __init__(self, params, lr):
        self.params, self.lr = list(params), lr

    def zero_grad(self, set_to_none):
        for p in self.params:
            if p.grad is not None:
                p.grad.zero_()

    def step(self):
        for p in self.params:
            p.data.add_(p.grad, alpha=-self.lr)


torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
opt = Plain(model.parameters(), 0.1)
for step in range(2):
    opt.zero_grad(set_to_none=False)
    model(torch.randn(2, 3)).sum().backward()
    opt.step()
show(model)

# %% round 13: gradients read through a post-accumulate hook closure before the zeroing [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
norms = []
for p in model.parameters():
    p.register_post_accumulate_grad_hook(lambda t: norms.append(t.grad.norm().item()))
for step in range(2):
    opt.zero_grad(set_to_none=False)
    model(torch.randn(2, 3)).sum().backward()
    opt.step()
show(norms)

# %% round 13: gradients zeroed with .grad.data.zero_() in a training loop with a frozen-free model [unsafe, same]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
model(torch.randn(2, 3)).sum().backward()
for step in range(2):
    for p in model.parameters():
        p.grad.data.zero_()
    model(torch.randn(2, 3)).sum().backward()
    opt.step()
show(model)

# %% round 13: zero_grad(set_to_none=False) with a clip_grad_norm_ whose total norm is printed [unsafe, same]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
opt = torch.optim.Adam(model.parameters(), lr=0.1)
for step in range(2):
    opt.zero_grad(set_to_none=False)
    model(torch.randn(2, 3)).sum().backward()
    total = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    print(round(total.item(), 4))

# %% round 13: gradients flattened with parameters_to_vector of a grads generator [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    opt.zero_grad(set_to_none=False)
    model(torch.randn(2, 3)).sum().backward()
    flat = torch.nn.utils.parameters_to_vector(p.grad for p in model.parameters())
    opt.step()
    show(flat)

# %% round 14: gradients read through functools.reduce of getattr after the reset [none]
import functools
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
extra = torch.nn.Parameter(torch.ones(1))
opt = torch.optim.SGD([*model.parameters(), extra], lr=0.1)
for step in range(2):
    opt.zero_grad(set_to_none=False)
    (model(torch.ones(2, 3)).sum() + (extra.sum() if step == 0 else 0)).backward()
    show(functools.reduce(getattr, ["grad"], extra))
    opt.step()

# %% round 14: gradients read through map of getattr over the parameters [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
extra = torch.nn.Parameter(torch.ones(1))
opt = torch.optim.SGD([*model.parameters(), extra], lr=0.1)
for step in range(2):
    opt.zero_grad(set_to_none=False)
    (model(torch.ones(2, 3)).sum() + (extra.sum() if step == 0 else 0)).backward()
    grads = list(map(getattr, [extra], ["grad"]))
    show(grads[0].sum())
    opt.step()

# %% round 14: gradients summed by torch._foreach_norm over a list of grads in a training loop [none]
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.Linear(2, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    opt.zero_grad(set_to_none=False)
    (model(torch.ones(2, 3)) if step == 0 else model[1](torch.ones(2, 2))).sum().backward()
    norms = torch._foreach_norm([p.grad for p in model.parameters()])
    show(torch.stack(norms).sum())
    opt.step()

# %% round 14: manual zeroing in a nested function called by the step, plain SGD [none]
import torch


def train():
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1)

    def reset():
        for p in model.parameters():
            if p.grad is not None:
                p.grad.zero_()

    for step in range(2):
        reset()
        model(torch.ones(2, 3)).sum().backward()
        with torch.no_grad():
            for p in model.parameters():
                p -= 0.1 * p.grad
    show(model.weight)


train()

# %% round 14: zero_grad(set_to_none=False) in a decorated step with a walrus loss [unsafe, same]
import functools
import torch


def counted(fn):
    @functools.wraps(fn)
    def wrapper(*a):
        wrapper.calls += 1
        return fn(*a)
    wrapper.calls = 0
    return wrapper


torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)


@counted
def step(x):
    opt.zero_grad(set_to_none=False)
    (loss := model(x).pow(2).mean()).backward()
    opt.step()
    return loss.item()


for i in range(2):
    print(step(torch.ones(2, 3)))
show(model.weight, step.calls)

# %% round 14: gradients read by a lambda through vars-free attrgetter in a logging table [none]
import operator
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
extra = torch.nn.Parameter(torch.ones(1))
opt = torch.optim.SGD([*model.parameters(), extra], lr=0.1)
LOG = {"grad": operator.attrgetter("grad")}
for step in range(2):
    opt.zero_grad(set_to_none=False)
    (model(torch.ones(2, 3)).sum() + (extra.sum() if step == 0 else 0)).backward()
    show(LOG["grad"](extra))
    opt.step()

# %% round 15: gradients read through __getattribute__ with a literal name after the reset [none]
import torch

w = torch.nn.Parameter(torch.ones(2))
b = torch.nn.Parameter(torch.zeros(2))
opt = torch.optim.SGD([w, b], lr=0.1)
for step in range(2):
    opt.zero_grad(set_to_none=False)
    ((w * 2).sum() + (b.sum() if step == 0 else 0)).backward()
    print(b.__getattribute__("grad").tolist())

# %% round 15: gradients read through getattr with a name from a tuple constant after the reset [none]
import torch

ATTR = ("grad",)
w = torch.nn.Parameter(torch.ones(2))
b = torch.nn.Parameter(torch.zeros(2))
opt = torch.optim.SGD([w, b], lr=0.1)
for step in range(2):
    opt.zero_grad(set_to_none=False)
    ((w * 2).sum() + (b.sum() if step == 0 else 0)).backward()
    print(getattr(b, ATTR[0]).tolist())

# %% round 15: gradients read through a post-accumulate-grad hook of an unused parameter [unsafe]
import torch

w = torch.nn.Parameter(torch.ones(2))
b = torch.nn.Parameter(torch.zeros(2))
opt = torch.optim.SGD([w, b], momentum=0.9, lr=0.1)
for step in range(3):
    opt.zero_grad(set_to_none=False)
    (w * 2).sum().backward()
    opt.step()
print(b.tolist())

# %% round 15: manual zeroing in a lambda applied over the parameters with map [none]
import torch

w = torch.nn.Parameter(torch.ones(2))
for step in range(2):
    list(map(lambda p: p.grad.zero_() if p.grad is not None else None, [w]))
    (w * 2).sum().backward()
    print(w.grad.tolist())

# %% round 15: zero_grad(set_to_none=False) in a decorated step inside a match case with plain SGD [unsafe, same]
import functools

import torch


def logged(fn):
    @functools.wraps(fn)
    def inner(*a):
        return fn(*a)
    return inner


w = torch.nn.Parameter(torch.ones(2))
opt = torch.optim.SGD([w], lr=0.1)


@logged
def step(i):
    match i:
        case _:
            opt.zero_grad(set_to_none=False)
            (w * i).sum().backward()
            opt.step()


for i in range(3):
    step(i)
show(w)

# %% round 15: gradients read through vars-free operator.attrgetter of a dotted path [none]
import operator

import torch

model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
get = operator.attrgetter("weight.grad")
for step in range(2):
    opt.zero_grad(set_to_none=False)
    model(torch.ones(1, 2)).sum().backward()
    print(get(model).tolist())

# %% round 15: gradients of a frozen head read by a norm over a list comprehension with a None guard [unsafe]
import torch

w = torch.nn.Parameter(torch.ones(2))
b = torch.nn.Parameter(torch.zeros(2))
opt = torch.optim.SGD([w, b], lr=0.1)
for step in range(2):
    opt.zero_grad(set_to_none=False)
    (w * 2).sum().backward()
    opt.step()
show(w, b)

# %% round 15: a module's zero_grad given False by position in a training loop [unsafe]
import torch

model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for step in range(2):
    model.zero_grad(False)
    model(torch.ones(1, 2)).sum().backward()
    opt.step()
show(model)

# %% round 15: zero_grad with set_to_none=False from an unpacked dict [none]
import torch

w = torch.nn.Parameter(torch.ones(2))
opt = torch.optim.SGD([w], lr=0.1)
for step in range(2):
    opt.zero_grad(**{"set_to_none": False})
    (w * 2).sum().backward()
    opt.step()
show(w)

# %% round 16: gradients read through an f-string attribute name [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
field = "grad"
for step in range(2):
    opt.zero_grad(set_to_none=False)
    if step:
        print([getattr(p, f"{field}").abs().sum().item() for p in model.parameters()])
    model(torch.ones(1, 2)).sum().backward()
    opt.step()

# %% round 16: gradients read by operator.attrgetter with a dotted path [none]
import operator

import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
weight_grad = operator.attrgetter("weight.grad")
for step in range(2):
    opt.zero_grad(set_to_none=False)
    if step:
        print(weight_grad(model).abs().sum().item())
    model(torch.ones(1, 2)).sum().backward()
    opt.step()

# %% round 16: gradients read through __getattribute__ with a literal name [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    opt.zero_grad(set_to_none=False)
    if step:
        print(model.weight.__getattribute__("grad").sum().item())
    model(torch.ones(1, 2)).sum().backward()
    opt.step()

# %% round 16: gradients read by eval of a source string [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    opt.zero_grad(set_to_none=False)
    if step:
        print(eval("model.weight.gr" + "ad").sum().item())
    model(torch.ones(1, 2)).sum().backward()
    opt.step()

# %% round 16: gradients read through attrgetter of a name from a tuple of fields [none]
import operator

import torch

FIELDS = ("weight", "grad")
torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    opt.zero_grad(set_to_none=False)
    if step:
        print(operator.attrgetter(".".join(FIELDS))(model).sum().item())
    model(torch.ones(1, 2)).sum().backward()
    opt.step()

# %% round 16: gradients read through the class's grad descriptor in a lambda [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
grads_of = lambda ps: [type(p).grad.__get__(p) for p in ps]
for step in range(2):
    opt.zero_grad(set_to_none=False)
    if step:
        print([g.sum().item() for g in grads_of(model.parameters())])
    model(torch.ones(1, 2)).sum().backward()
    opt.step()

# %% round 16: control, zero_grad before a step with a momentum-free SGD [unsafe, same]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    opt.zero_grad(set_to_none=False)
    model(torch.ones(1, 2)).sum().backward()
    opt.step()
show(model.weight)

# %% round 16: gradients read through __class__.grad.__get__ over a dict of parameters [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    opt.zero_grad(set_to_none=False)
    state = {n: p for n, p in model.named_parameters()}
    if step:
        print({n: t.__class__.grad.__get__(t).sum().item() for n, t in state.items()})
    model(torch.ones(1, 2)).sum().backward()
    opt.step()

# %% round 16: gradients read through __getattribute__ with a name from the config [none]
import torch

CFG = {"watch": "grad"}
torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    opt.zero_grad(set_to_none=False)
    if step:
        print(model.weight.__getattribute__(CFG["watch"]).sum().item())
    model(torch.ones(1, 2)).sum().backward()
    opt.step()

# %% round 16: gradients read through object.__getattribute__ with a variable name [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
name = "".join(["gr", "ad"])
for step in range(2):
    opt.zero_grad(set_to_none=False)
    if step:
        print(object.__getattribute__(model.bias, name).sum().item())
    model(torch.ones(1, 2)).sum().backward()
    opt.step()

# %% round 16: gradients logged by exec of a literal statement [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    opt.zero_grad(set_to_none=False)
    if step:
        exec("print(model.weight.grad.sum().item())")
    model(torch.ones(1, 2)).sum().backward()
    opt.step()

# %% round 16: control, a literal eval of the step count next to zero_grad [unsafe, same]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    opt.zero_grad(set_to_none=False)
    print(eval("step + 1"))
    model(torch.ones(1, 2)).sum().backward()
    opt.step()
show(model.weight)

# %% round 17: unused parameters listed by an is-None test of their gradients each step [unsafe]
import torch
import torch.nn as nn


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(2, 2)
        self.aux = nn.Linear(2, 1)

    def forward(self, x, use_aux):
        h = self.body(x)
        return h.sum() + (self.aux(h).sum() if use_aux else 0)


torch.manual_seed(0)
model = TwoHeads()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.ones(3, 2)
for step in range(3):
    opt.zero_grad(set_to_none=False)
    model(x, use_aux=step == 0).backward()
    unused = [name for name, p in model.named_parameters() if p.grad is None]
    print(step, unused)
    opt.step()

# %% round 17: gradients read through getattr with adjacent string literals [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    opt.zero_grad(set_to_none=False)
    if step:
        print([getattr(p, "gr" "ad").abs().sum().item() for p in model.parameters()])
    model(torch.ones(1, 2)).sum().backward()
    opt.step()

# %% round 17: gradient norms gathered by torch._foreach_norm of a list of grads [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    opt.zero_grad(set_to_none=False)
    if step:
        grads = [p.grad for p in model.parameters()]
        print([round(n.item(), 4) for n in torch._foreach_norm(grads)])
    model(torch.ones(1, 2)).sum().backward()
    opt.step()

# %% round 17: a count of parameters whose gradient is not None printed each step [unsafe]
import torch
import torch.nn as nn

torch.manual_seed(0)
emb = nn.Embedding(4, 2)
head = nn.Linear(2, 1)
opt = torch.optim.SGD([*emb.parameters(), *head.parameters()], lr=0.1)
for step in range(3):
    opt.zero_grad(set_to_none=False)
    out = head(torch.ones(1, 2)) if step else head(emb(torch.tensor([1])))
    out.sum().backward()
    with_grad = sum(p.grad is not None for p in [*emb.parameters(), *head.parameters()])
    print(step, with_grad)
    opt.step()

# %% round 17: clip_grad_norm_ over parameters some of which get no gradient, with momentum [unsafe]
import torch
import torch.nn as nn

torch.manual_seed(0)
a = nn.Linear(2, 1)
b = nn.Linear(2, 1)
opt = torch.optim.SGD([*a.parameters(), *b.parameters()], lr=0.1, momentum=0.9)
x = torch.ones(3, 2)
for step in range(3):
    opt.zero_grad(set_to_none=False)
    loss = a(x).sum() + (b(x).sum() if step == 0 else 0)
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_([*a.parameters(), *b.parameters()], 1.0)
    opt.step()
    print(step, round(norm.item(), 4), round(b.weight.sum().item(), 4))

# %% round 17: a GradScaler that unscales before clipping, every parameter used [unsafe, same]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu", enabled=False)
for step in range(3):
    opt.zero_grad(set_to_none=False)
    loss = model(torch.ones(2, 2)).pow(2).mean()
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    torch.nn.utils.clip_grad_value_(model.parameters(), 0.5)
    scaler.step(opt)
    scaler.update()
    print(round(loss.item(), 4))

# %% round 17: gradients copied into a flat vector through torch.cat of a generator [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    opt.zero_grad(set_to_none=False)
    model(torch.ones(1, 2)).sum().backward()
    flat = torch.cat(list(p.grad.flatten() for p in model.parameters()))
    print(flat.tolist())
    opt.step()

# %% round 17: a manual zeroing loop over parameters guarded by an is-not-None test [unsafe, same]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    for p in model.parameters():
        if p.grad is not None:
            p.grad.zero_()
    loss = model(torch.ones(2, 2)).pow(2).mean()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 18: a trainer wrapper whose zero_grad requires set_to_none [none]
import torch

torch.manual_seed(0)


class Trainer:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def zero_grad(self, set_to_none):
        self.opt.zero_grad(set_to_none=set_to_none)

    def step(self, x):
        self.model(x).pow(2).mean().backward()
        self.opt.step()


trainer = Trainer(torch.nn.Linear(3, 1))
for _ in range(3):
    trainer.zero_grad(set_to_none=False)
    trainer.step(torch.ones(2, 3))
show(trainer.model)

# %% round 18: manual zeroing written as a list comprehension in the step loop [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
model(torch.ones(1, 3)).sum().backward()
for _ in range(2):
    [p.grad.zero_() for p in model.parameters()]
    model(torch.ones(4, 3)).pow(2).sum().backward()
    opt.step()
show(model)

# %% round 18: manual zeroing as the body of a one-line for over parameters [unsafe, same]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
model(torch.ones(1, 3)).sum().backward()
for _ in range(2):
    for p in model.parameters(): p.grad.zero_()
    model(torch.ones(4, 3)).pow(2).sum().backward()
    opt.step()
show(model)

# %% round 18: zeroing a gradient whose result is bound to a name [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
model(torch.ones(1, 2)).sum().backward()
for _ in range(2):
    for p in model.parameters():
        cleared = p.grad.zero_()
    model(torch.ones(3, 2)).sum().backward()
    opt.step()
show(model)

# %% round 18: zeroing through a conditional expression statement [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(3):
    for p in model.parameters():
        p.grad.zero_() if p.grad is not None else None
    model(torch.ones(3, 2)).sum().backward()
    opt.step()
show(model)

# %% round 18: zero_grad with set_to_none=False passed by position to a module [unsafe, same]
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(3):
    model.zero_grad(False)
    model(torch.ones(4, 2)).sum().backward()
    opt.step()
show(model)

# %% round 18: zeroing through map with a lambda in the step loop [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
model(torch.ones(1, 2)).sum().backward()
for _ in range(2):
    list(map(lambda p: p.grad.zero_(), model.parameters()))
    model(torch.ones(3, 2)).sum().backward()
    opt.step()
show(model)

# %% round 18: zeroing followed by detach_ of the gradient, the old zero_grad body [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(3):
    for p in model.parameters():
        if p.grad is not None:
            p.grad.zero_()
            p.grad.detach_()
    model(torch.ones(3, 2)).sum().backward()
    opt.step()
show(model)

# %% round 18: gradients summed by torch.nn.utils.get_total_norm of a list of grads [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(2):
    opt.zero_grad(set_to_none=False)
    model(torch.ones(3, 2)).sum().backward()
    norms = [q.grad.norm() for q in model.parameters()]
    opt.step()
show(norms)

# %% round 18: a custom optimizer of the file that reads grads through vars [none]
import torch

torch.manual_seed(0)
w = torch.nn.Parameter(torch.ones(3))
u = torch.nn.Parameter(torch.ones(3))


class Plain(torch.optim.Optimizer):
    def __init__(self, params):
        super().__init__(params, {"lr": 0.1})

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                g = vars(p).get("g", None)
                p.sub_(0.1 * p.data)


opt = Plain([w, u])
for _ in range(2):
    opt.zero_grad(set_to_none=False)
    (w * 2).sum().backward()
    opt.step()
    show(w.grad, u.grad is None)

# %% round 20: one GradScaler stepping two optimizers, the auxiliary head used every other step [none]
import torch
import torch.nn as nn

torch.manual_seed(0)
body = nn.Linear(3, 3)
aux = nn.Linear(3, 1)
opt_body = torch.optim.SGD(body.parameters(), lr=0.1)
opt_aux = torch.optim.SGD(aux.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu", init_scale=4.0)
for step in range(4):
    opt_body.zero_grad(set_to_none=False)
    opt_aux.zero_grad(set_to_none=False)
    h = body(torch.ones(2, 3))
    loss = h.pow(2).mean()
    if step % 2 == 0:
        loss = loss + aux(h).mean()
    scaler.scale(loss).backward()
    scaler.step(opt_body)
    scaler.step(opt_aux)
    scaler.update()
show(body, aux)

# %% round 20: gradients read through the private _grad attribute by a norm logger [none]
import torch
import torch.nn as nn

torch.manual_seed(0)
a, b = nn.Linear(2, 2), nn.Linear(2, 1)
opt = torch.optim.SGD([*a.parameters(), *b.parameters()], lr=0.1)
for step in range(3):
    opt.zero_grad(set_to_none=False)
    out = a(torch.ones(1, 2)).sum() if step == 1 else b(a(torch.ones(1, 2))).sum()
    out.backward()
    norms = [float(p._grad.norm()) for p in b.parameters()]
    print(step, [round(n, 4) for n in norms])
    opt.step()

# %% round 24: manual zeroing followed by requires_grad_(False) on the same gradient [none]
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    for p in model.parameters():
        if p.grad is not None:
            p.grad.zero_()
            p.grad.requires_grad_(False)
    loss = model(torch.ones(2, 3)).pow(2).mean()
    loss.backward()
    opt.step()
show(model)

# %% round 24: manual zeroing followed by detach_ of the same gradient [none]
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    for p in model.parameters():
        if p.grad is not None:
            p.grad.zero_()
            p.grad.detach_()
    loss = model(torch.ones(2, 3)).pow(2).mean()
    loss.backward()
    opt.step()
show(model)

# %% round 24: a wrapper optimizer of the file whose zero_grad reads set_to_none from **kwargs [none]
import torch
import torch.nn as nn


class Wrapped:
    def __init__(self, opt):
        self.opt = opt

    def zero_grad(self, **kwargs):
        self.opt.zero_grad(set_to_none=kwargs["set_to_none"])

    def step(self):
        self.opt.step()


torch.manual_seed(0)
model = nn.Linear(3, 1)
opt = Wrapped(torch.optim.SGD(model.parameters(), lr=0.1))
for step in range(3):
    opt.zero_grad(set_to_none=False)
    loss = model(torch.ones(2, 3)).pow(2).mean()
    loss.backward()
    opt.step()
show(model)

# %% round 24: gradients zeroed by multiplying with zero, NaN gradient in the first step [none]
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
batches = [torch.tensor([[float("nan"), 1.0, 1.0]]), torch.ones(1, 3), torch.ones(1, 3)]
for x in batches:
    for p in model.parameters():
        if p.grad is not None:
            p.grad.mul_(0)
    loss = model(x).pow(2).mean()
    loss.backward()
    if torch.isfinite(loss):
        opt.step()
show(model)

# %% round 24: gradients zeroed by slice assignment in the step loop [none]
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for step in range(3):
    for p in model.parameters():
        if p.grad is not None:
            p.grad[...] = 0
    loss = model(torch.ones(2, 3)).pow(2).mean()
    loss.backward()
    opt.step()
show(model)

# %% round 24: gradients zeroed with a conditional expression statement [none]
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    for p in model.parameters():
        p.grad.zero_() if p.grad is not None else None
    loss = model(torch.ones(2, 3)).pow(2).mean()
    loss.backward()
    opt.step()
show(model)

# %% round 24: zero_grad(set_to_none=False) through functools.partial kept on the trainer [none]
import functools
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
reset = functools.partial(opt.zero_grad, set_to_none=False)
for step in range(3):
    reset()
    loss = model(torch.ones(2, 3)).pow(2).mean()
    loss.backward()
    opt.step()
show(model)

# %% round 24: zero_grad(set_to_none=False) in a step loop with a try/finally that counts steps [unsafe, same]
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
opt = torch.optim.Adam(model.parameters(), lr=0.1)
steps = 0
for x in [torch.ones(2, 3), torch.zeros(2, 3), torch.ones(2, 3)]:
    try:
        opt.zero_grad(set_to_none=False)
        loss = model(x).pow(2).mean()
        loss.backward()
        opt.step()
    finally:
        steps += 1
show(model, steps)

# %% round 24: zero_grad(set_to_none=False) with a frozen layer whose gradients a hook counts as None [unsafe]
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=0.1)
for step in range(4):
    opt.zero_grad(set_to_none=False)
    out = model[1](torch.ones(2, 3)) if step % 2 else model(torch.ones(2, 3))
    out.pow(2).mean().backward()
    opt.step()
    show(sum(p.grad is None for p in model.parameters()))
show(model)

# %% round 24: manual zeroing in a match case that picks the reset by an option [unsafe]
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
mode = "manual"
for step in range(3):
    match mode:
        case "manual":
            for p in model.parameters():
                if p.grad is not None:
                    p.grad.zero_()
        case _:
            opt.zero_grad()
    loss = model(torch.ones(2, 3)).pow(2).mean()
    loss.backward()
    opt.step()
show(model)

# %% round 24: manual zeroing of a property's gradient on a wrapper class [none]
import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 1)

    @property
    def kernel(self):
        return self.lin.weight

    def forward(self, x):
        return self.lin(x)


torch.manual_seed(0)
model = Head()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    if model.kernel.grad is not None:
        model.kernel.grad.zero_()
    if model.lin.bias.grad is not None:
        model.lin.bias.grad.zero_()
    loss = model(torch.ones(2, 3)).pow(2).mean()
    loss.backward()
    opt.step()
show(model)
