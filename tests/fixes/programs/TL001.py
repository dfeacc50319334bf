# %% control: an unknown code in a noqa comment [safe]
x = 1  # noqa: TL9999
print(x)

# %% text after the directive stays a comment [safe]
x = 2  # noqa: TL9999 because the linter is wrong here
print(x)

# %% the directive inside a longer comment [safe]
x = 3  # keep this # noqa: TL9999 and this
print(x)

# %% another tool's code is kept [safe]
x = 4  # noqa: TL9999, E501 long line
print(x)

# %% no space after the colon, trailing words [safe]
x = 5  # noqa:TL9999 words words
print(x)

# %% in a bracketed continuation [safe]
values = [
    1,  # noqa: TL9999 first
    2,
]
print(values)

# %% inside a string, not a comment [none]
text = "# noqa: TL9999 text"
print(text)

# %% a blanket noqa is left alone [none]
x = 6  # noqa
print(x)

# %% round 7: an unused code next to a type-ignore comment [safe]
x = int("7")  # type: ignore  # noqa: TL9999
print(x)

# %% round 7: a used code next to an unknown one keeps the used one [safe]
import torch

device = torch.device("cpu")
for step in range(2):
    print(torch.zeros(2).to(device).sum().item())  # noqa: TL102, TL9999

# %% round 9: an unknown code in a noqa on the coding line [safe]
# -*- coding: utf-8 -*-  # noqa: TL999
import torch
print(torch.ones(1).tolist())

# %% round 9: a noqa in a comment that follows a string continuation [safe]
import torch
text = ("a"  # noqa: TL999
        "b")
print(text, torch.zeros(1).tolist())

# %% round 10: an unknown code among several with tabs before the comment [safe]
import torch
x = torch.ones(2)	# noqa:TL999,E501
print(x.sum().item())

# %% round 10: an unused noqa on a line that another noqa'd finding shares [none]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    loss = model(torch.ones(1, 2)).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(loss.item())  # noqa: TL101, TL404

# %% round 12: an unused noqa on a training step's item() line inside a class-attribute callback table [safe]
import torch

model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)


class Hooks:
    on_step = staticmethod(lambda loss: print(round(loss, 4)))  # noqa: TL101


for step in range(2):
    loss = model(torch.ones(1, 2)).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    Hooks.on_step(loss.item())  # noqa: TL999 unknown code, kept as a reason

# %% round 12: a noqa for a rule not enabled, on an entry of a multi-line config dict [none]
import torch

config = {
    "lr": 0.1,  # noqa: TL404
    "steps": 2,
}
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=config["lr"])
for step in range(config["steps"]):
    loss = model(torch.ones(1, 2)).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
show(model)

# %% round 13: a noqa written inside a string literal that the program prints [none]
import torch

for step in range(2):
    note = "lint with # noqa: TL999 on the line"
    print(note)

# %% round 13: a noqa inside a triple-quoted docstring of the step function [none]
import torch


def step():
    """Run one step.

    x = y  # noqa: TL999
    """
    return torch.ones(1)


print(step.__doc__)

# %% round 13: an unused noqa after a line continuation of a sum [safe]
import torch

total = 1 + \
    2  # noqa: TL999
print(total)

# %% round 13: an unused noqa inside a multi-line call, next to an f-string [safe]
import torch

value = torch.tensor(2.0)
print(
    f"value {value.item():.2f}",  # noqa: TL998
    sep="",
)

# %% round 13: an uppercase NOQA with two codes, one of them unknown [safe]
import torch

x = torch.ones(2)  # NOQA: TL101,TL997
print(x)

# %% round 13: an unused noqa on a line whose string holds a second noqa comment [safe]
import torch

msg = "see # noqa: TL102 in the docs"  # noqa: TL996
print(msg)

# %% round 13: an unused noqa with words after it, on the last line of a tab-indented function [safe]
import torch


def step():
	return torch.ones(1)  # noqa: TL995 kept for the linter of another project


print(step())

# %% round 14: an unused noqa after a type-ignore comment [safe]
import torch

total = 0  # type: ignore  # noqa: TL991
print(total)

# %% round 14: an unused noqa without spaces around its codes [safe]
import torch

x = torch.ones(2)  #noqa:TL992,TL993
print(x.sum().item())

# %% round 14: an unused noqa on a decorator line [safe]
import functools
import torch


@functools.lru_cache(maxsize=None)  # noqa: TL994
def ones(n):
    return torch.ones(n)


print(ones(2))

# %% round 14: an unused noqa inside a match case body [safe]
import torch

for v in (1, 2):
    match v:
        case 1:
            print(torch.ones(v))  # noqa: TL101,TL996
        case _:
            print(v)

# %% round 14: an unused noqa on the last line of the program, after a print of a factory [safe]
import torch

print(torch.zeros(1))  # noqa: TL998

# %% round 15: a docstring that quotes a noqa comment, printed by the program [none]
def helper():
    """Example: x = 1  # noqa: TL9994"""
    return 1


print(helper.__doc__)

# %% round 15: an unused noqa after a line of a multi-line call that ends in a comment [safe]
import torch

x = torch.tensor(
    [1.0, 2.0],  # noqa: TL9991
)
print(x.tolist())

# %% round 15: an unused noqa on a line with a string that contains a hash [safe]
label = "step # 1"  # noqa: TL9992
print(label)

# %% round 15: an unused noqa inside a triple-quoted string that the program prints [none]
TEMPLATE = """
loss = x.item()  # noqa: TL9995
"""
print(TEMPLATE)

# %% round 15: an unused noqa followed by a pragma comment in the same comment [safe]
total = 1 + 1  # noqa: TL9993  # pragma: no cover
print(total)

# %% round 16: a noqa inside an f-string's replacement field comment-like text [none]
step = 3
print(f"{step} # noqa: TL9991")

# %% round 16: a noqa comment after a line continuation inside brackets of a format call [safe]
total = sum(
    [1, 2, 3]  # noqa: TL9992 extra words
)
print(total)

# %% round 16: a noqa in a string passed to exec that the program runs [none]
exec("value = 2  # noqa: TL9993\nprint(value)")

# %% round 16: a noqa comment on the line of a bytes literal with a hash [safe]
tag = b"#noqa"  # noqa: TL9994
print(tag)

# %% round 16: a noqa in the text of a multi-line f-string printed by the loop [none]
for epoch in range(2):
    print(f"""epoch {epoch}
  # noqa: TL9995""")

# %% round 16: a noqa kept next to a type comment on an assignment [safe]
from typing import List

values = []  # type: List[int]  # noqa: TL9996
values.append(1)
print(values)

# %% round 17: an uppercase NOQA with a known and an unknown code on a training step [safe]
import torch

w = torch.nn.Parameter(torch.ones(2))
opt = torch.optim.SGD([w], lr=0.1)
for step in range(2):
    loss = (w * 2).sum()  # NOQA: TL9998, TL101
    opt.zero_grad()
    loss.backward()
    opt.step()
print(w.tolist())

# %% round 17: a noqa after a decorator line of the step function [safe]
import functools

import torch


@functools.lru_cache(maxsize=None)  # noqa: TL9997
def scale(n):
    return 2.0 * n


w = torch.nn.Parameter(torch.ones(2))
opt = torch.optim.SGD([w], lr=0.1)
for step in range(2):
    loss = (w * scale(step)).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(w.tolist())

# %% round 17: a noqa on a match case line of the step loop [safe]
import torch

w = torch.nn.Parameter(torch.ones(2))
opt = torch.optim.SGD([w], lr=0.1)
for step in range(3):
    match step % 2:
        case 0:  # noqa: TL9996
            loss = w.sum()
        case _:
            loss = (2 * w).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(w.tolist())

# %% round 17: a noqa after an implicitly concatenated string printed by the loop [safe]
import torch

w = torch.nn.Parameter(torch.ones(2))
opt = torch.optim.SGD([w], lr=0.1)
for step in range(2):
    msg = ("step #%d "  # noqa: TL9995 first part
           "# noqa: TL9994 second part")
    loss = w.sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(msg % step)

# %% round 17: a noqa with no space and a trailing comma before words [safe]
import torch

w = torch.nn.Parameter(torch.ones(2))
opt = torch.optim.SGD([w], lr=0.1)
for step in range(2):
    loss = w.sum()  #noqa:TL9993,  keep
    opt.zero_grad()
    loss.backward()
    opt.step()
print(w.tolist())

# %% round 17: a noqa in a comment inside a dict display of loss weights [safe]
import torch

WEIGHTS = {
    "mse": 1.0,  # noqa: TL9992
    "l1": 0.5,
}
w = torch.nn.Parameter(torch.ones(2))
opt = torch.optim.SGD([w], lr=0.1)
for step in range(2):
    loss = WEIGHTS["mse"] * w.pow(2).sum() + WEIGHTS["l1"] * w.abs().sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
print(w.tolist())

# %% round 18: an unused noqa on the header line of a with statement in the step loop [safe]
import contextlib

for i in range(2):
    with contextlib.nullcontext():  # noqa: TL9999 suppress
        print(i)

# %% round 18: an unused noqa on a line ending a dict comprehension in a loop [none]
for epoch in range(2):
    stats = {k: v * epoch for k, v in {"a": 1, "b": 2}.items()}  # noqa: TL101
    print(stats)

# %% round 18: an unused noqa after a lambda that returns a string with a hash [safe]
fmt = lambda n: "#%d" % n  # noqa: TL9999
print(fmt(3))

# %% round 19: a help text that quotes a noqa comment inside a triple-quoted string [none]
HELP = """usage:
  x = loss.item()  # noqa: TL101
"""
for step in range(2):
    print(HELP)

# %% round 19: an unused noqa after a line continued by a backslash [none]
total = 0
for step in range(3):
    total += \
        step  # noqa: TL101
print(total)

# %% round 19: an unused noqa on a line whose string holds a hash and the word noqa [none]
for step in range(2):
    print("step # noqa: TL101 %d" % step)  # noqa: TL101

# %% round 19: an unused noqa after an f-string with a nested quoted hash [none]
for step in range(2):
    print(f"{'#'} step {step}")  # noqa: TL104

# %% round 24: an unknown code in a noqa after a string with accented letters and an emoji [safe]
label = "naïve café ✓ 🚀"  # noqa: TL9999
print(label, len(label))

# %% round 24: an unknown code in a noqa after CJK text in a training log line [safe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    loss = model(torch.ones(1, 2)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print("损失", "步骤", step)  # noqa: TL9999, because 日本語
print(round(loss.item(), 4))

# %% round 24: an unknown code in a noqa after a string with a zero-width joiner emoji and a tab [safe]
tag = "👩‍💻	done"	# noqa: TL9999
print(tag, len(tag))

# %% round 24: an unknown code in a noqa on a line after a form feed [safe]
x = 1
print(x)  # noqa: TL9999

# %% round 24: an unknown code in a noqa on a match case line with an emoji pattern [safe]
for word in ("🚀", "x"):
    match word:
        case "🚀":  # noqa: TL9999
            print("rocket", word)
        case _:
            print("other", word)

# %% round 24: an unknown code in a noqa at the end of a line with combining marks in a string [safe]
name = "e\u0301t\u00e9 — cafe\u0301"; print(name, len(name))  # noqa: TL9999
