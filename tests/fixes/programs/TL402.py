

# %% round 19: evaluation concatenates into a preallocated buffer with out= and falls back on error [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 2)
buf = torch.empty(4, 2)


def evaluate(x, prev):
    model.eval()
    out = model(x)
    try:
        torch.cat([prev, out], out=buf)
        print("into buffer")
    except RuntimeError:
        print("buffer refused")


for epoch in range(2):
    evaluate(torch.randn(3, 4), torch.zeros(1, 2))

# %% round 19: evaluation keeps a running maximum of its logits with torch.maximum out= under a guard [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 2)
best = torch.full((3, 2), -1e9)


def evaluate(x):
    model.eval()
    out = model(x)
    try:
        torch.maximum(best, out, out=best)
    except RuntimeError:
        print("skipped")
    print(round(out.sum().item(), 4))


for epoch in range(2):
    evaluate(torch.randn(3, 4))

# %% round 19: evaluation writes the exponential of its logits into a scratch tensor with out= and prints a count [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 3)
scratch = torch.empty(5, 3)
failures = []


def evaluate(x):
    model.eval()
    logits = model(x)
    try:
        torch.exp(logits, out=scratch)
    except RuntimeError:
        failures.append(1)


for epoch in range(2):
    evaluate(torch.randn(5, 4))
print(len(failures))

# %% round 19: evaluation computes a host value from the softmax of its logits [safe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 3)


def evaluate(x):
    model.eval()
    logits = model(x)
    probs = logits.softmax(-1)
    print(round(probs.max().item(), 4))


for epoch in range(2):
    evaluate(torch.randn(5, 4))
