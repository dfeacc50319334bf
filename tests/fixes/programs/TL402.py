# %% control: an evaluation that only prints counts [safe]
import torch

def evaluate(model, x):
    model.eval()
    correct = model(x).argmax(1).eq(0).sum().item()
    print("correct", correct)

torch.manual_seed(0)
for epoch in range(2):
    evaluate(torch.nn.Linear(4, 3), torch.randn(5, 4))

# %% outputs stored for a later backward [none]
import torch

def collect(model, x, outputs):
    model.eval()
    outputs.append(model(x))

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
outputs = []
collect(model, torch.ones(2, 3), outputs)
torch.stack(outputs).sum().backward()
show(model.weight.grad)

# %% returned output used for a backward by the caller [none]
import torch

def features(model, x):
    model.eval()
    return model(x)

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
features(model, torch.ones(2, 3)).sum().backward()
show(model.weight.grad)

# %% a helper of the function calls backward [none]
import torch

def step(model, x):
    model(x).sum().backward()

def evaluate_then_probe(model, x):
    model.eval()
    model(x)
    step(model, x)

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
evaluate_then_probe(model, torch.ones(2, 3))
show(model.weight.grad)

# %% a nested function calls backward [none]
import torch

def evaluate(model, x):
    model.eval()
    model(x)
    def probe():
        model(x).sum().backward()
    probe()

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
for epoch in range(2):
    evaluate(model, torch.ones(2, 3))
show(model.weight.grad)

# %% only torch.nn is imported: the fix adds `import torch` [safe]
import torch.nn as nn

def evaluate(model, x):
    model.eval()
    print(model(x).shape)

for epoch in range(2):
    evaluate(nn.Linear(3, 2), __import__("torch").ones(4, 3))

# %% printing a tensor shows its grad_fn [unsafe]
import torch

def evaluate(model, x):
    model.eval()
    print(model(x))

torch.manual_seed(0)
for epoch in range(2):
    evaluate(torch.nn.Linear(2, 1), torch.ones(1, 2))

# %% a decorated evaluation function [safe]
import functools
import torch

def logged(function):
    @functools.wraps(function)
    def wrapper(*args):
        print("calling", function.__name__)
        return function(*args)
    return wrapper

@logged
def evaluate(model, x):
    model.eval()
    print(model(x).sum().item())

torch.manual_seed(0)
for epoch in range(2):
    evaluate(torch.nn.Linear(2, 1), torch.ones(1, 2))

# %% torch imported after the function [safe]
def evaluate(model, x):
    model.eval()
    print(model(x).detach().sum().item())

import torch

torch.manual_seed(0)
for epoch in range(2):
    evaluate(torch.nn.Linear(2, 1), torch.ones(1, 2))

# %% reads requires_grad [unsafe]
import torch

def evaluate(model, x):
    model.eval()
    out = model(x)
    print(out.requires_grad)

for epoch in range(2):
    evaluate(torch.nn.Linear(2, 1), torch.ones(1, 2))

# %% a helper of the file prints what the function computed [unsafe]
import torch

def report(value):
    print("value", value)

def evaluate(model, x):
    model.eval()
    scaled = model(x) * 2
    report(scaled)

torch.manual_seed(0)
for epoch in range(2):
    evaluate(torch.nn.Linear(2, 1), torch.ones(1, 2))

# %% a value printed after a chain of assignments [unsafe]
import torch

def evaluate(model, x):
    model.eval()
    out = model(x)
    doubled = out * 2
    text = "{}".format(doubled)
    print(text)

torch.manual_seed(0)
for epoch in range(2):
    evaluate(torch.nn.Linear(2, 1), torch.ones(1, 2))

# %% reads the grad mode [unsafe]
import torch

def evaluate(model, x):
    model.eval()
    model(x)
    print(torch.is_grad_enabled())

for epoch in range(2):
    evaluate(torch.nn.Linear(2, 1), torch.ones(1, 2))

# %% a Jacobian of the model [none]
import torch

def sensitivity(model, x):
    model.eval()
    model(x)
    jac = torch.autograd.functional.jacobian(lambda v: model(v).sum(), x)
    print(jac.shape)

torch.manual_seed(0)
sensitivity(torch.nn.Linear(2, 1), torch.ones(1, 2))

# %% outputs added to the caller's list with += [unsafe]
import torch


def evaluate(model, x, history):
    model.eval()
    history += [model(x)]


torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
history = []
for epoch in range(2):
    evaluate(model, torch.ones(2, 3), history)
show(history)

# %% outputs kept in a deque with appendleft [unsafe]
import collections

import torch


def evaluate(model, x, recent):
    model.eval()
    recent.appendleft(model(x))


torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
recent = collections.deque(maxlen=2)
for epoch in range(2):
    evaluate(model, torch.ones(2, 3), recent)
show(list(recent))

# %% outputs kept in a heap with heapq.heappush [unsafe]
import heapq

import torch


def evaluate(model, x, best, epoch):
    model.eval()
    out = model(x)
    heapq.heappush(best, (out.sum().item(), epoch, out))


torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
best = []
for epoch in range(2):
    evaluate(model, torch.ones(2, 3) * epoch, best, epoch)
show([entry[2] for entry in best])

# %% the output stored with setattr [unsafe]
import types

import torch


def evaluate(model, x, state):
    model.eval()
    setattr(state, "last", model(x))


torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
state = types.SimpleNamespace()
for epoch in range(2):
    evaluate(model, torch.ones(2, 3), state)
show(state.last)

# %% the output printed with pprint [unsafe]
import pprint

import torch


def evaluate(model, x):
    model.eval()
    pprint.pprint({"out": model(x)})


torch.manual_seed(0)
for epoch in range(2):
    evaluate(torch.nn.Linear(2, 1), torch.ones(1, 2))

# %% a row printed through join(map(str, ...)) [unsafe]
import torch


def evaluate(model, x):
    model.eval()
    row = model(x)[0]
    print(" ".join(map(str, row)))


torch.manual_seed(0)
for epoch in range(2):
    evaluate(torch.nn.Linear(2, 2), torch.ones(1, 2))

# %% a callback parameter whose function calls backward [none]
import torch


def evaluate(model, x, on_output):
    model.eval()
    on_output(model(x))


def probe(out):
    out.sum().backward()


torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
for epoch in range(2):
    evaluate(model, torch.ones(2, 3), probe)
show(model.weight.grad)

# %% a TransformerEncoder in eval mode takes its fast path without gradients [unsafe]
import torch
from torch import nn


def evaluate(model, x, padding):
    model.eval()
    out = model(x, src_key_padding_mask=padding)
    print(round(out[1].abs().sum().item(), 3))


torch.manual_seed(0)
layer = nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True)
encoder = nn.TransformerEncoder(layer, num_layers=2)
x = torch.randn(2, 5, 8)
padding = torch.tensor([[False] * 5, [False, False, False, True, True]])
for epoch in range(2):
    evaluate(encoder, x, padding)

# %% a forward hook keeps activations during evaluation [unsafe]
import torch
from torch import nn

features = []
model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
model[0].register_forward_hook(lambda module, inputs, output: features.append(output))

def evaluate(model, x):
    model.eval()
    correct = (model(x).argmax(1) == 0).sum().item()
    print("correct", correct)

for epoch in range(2):
    evaluate(model, torch.randn(5, 4))
print(features[-1])

# %% a module of the file keeps its attention map for visualisation [unsafe]
import torch
from torch import nn

class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(4, 12)
        self.attn_map = None

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        attn = (q @ k.transpose(-2, -1)).softmax(-1)
        self.attn_map = attn
        return attn @ v

def validate(model, x):
    model.eval()
    score = model(x).mean().item()
    print(round(score, 4))

model = Attention()
for epoch in range(2):
    validate(model, torch.randn(2, 3, 4))
print(model.attn_map)

# %% a force field computes forces with autograd.grad in forward [none]
import torch
from torch import nn

class ForceField(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))

    def forward(self, pos):
        pos = pos.requires_grad_(True)
        energy = self.net(pos).sum()
        (grad,) = torch.autograd.grad(energy, pos, create_graph=self.training)
        return energy, -grad

def evaluate(model, batches):
    model.eval()
    total = 0.0
    for pos in batches:
        energy, forces = model(pos)
        total += forces.abs().mean().item()
    print(round(total, 5))

model = ForceField()
batches = [torch.randn(4, 3) for _ in range(3)]
for epoch in range(2):
    evaluate(model, batches)

# %% a list of callbacks run after validation, one of which fits a probe [none]
import torch
from torch import nn

probe = nn.Linear(2, 1)
opt = torch.optim.SGD(probe.parameters(), lr=0.1)

def fit_probe(metrics):
    loss = probe(torch.ones(1, 2)).pow(2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()

CALLBACKS = [fit_probe]

def validate(model, x):
    model.eval()
    acc = (model(x).argmax(1) == 1).float().mean().item()
    for callback in CALLBACKS:
        callback(acc)

model = nn.Linear(4, 2)
for epoch in range(2):
    validate(model, torch.randn(6, 4))
print(probe.weight)

# %% test-time adaptation steps mapped over batches [none]
import torch
from torch import nn

model = nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.01)

def adapt(x):
    loss = model(x).softmax(1).max(1).values.sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    return 0

def evaluate(batches):
    model.eval()
    list(map(adapt, batches))
    print(sum(model(x).argmax(1).sum().item() for x in batches))

batches = [torch.randn(4, 3) for _ in range(2)]
for epoch in range(2):
    evaluate(batches)
print(model.weight)

# %% a running mean of logits updated in place [unsafe]
import torch
from torch import nn

running = torch.zeros(2)

def evaluate(model, x):
    model.eval()
    out = model(x)
    running.mul_(0.9).add_(out.mean(0), alpha=0.1)

model = nn.Linear(3, 2)
for epoch in range(2):
    evaluate(model, torch.randn(4, 3))
print(running)

# %% a model whose forward branches on the grad mode [unsafe]
import torch
from torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.calls = 0

    def forward(self, x):
        if torch.is_grad_enabled():
            self.calls += 1
        return self.fc(x)

def evaluate(model, x):
    model.eval()
    print((model(x).argmax(1) == 0).sum().item())

model = Net()
for epoch in range(2):
    evaluate(model, torch.randn(4, 3))
print(model.calls)

# %% the output retains its gradient for debugging [none]
import torch
from torch import nn

def evaluate(model, x):
    model.eval()
    out = model(x)
    out.retain_grad()
    print(out.argmax(1).tolist())

model = nn.Linear(3, 2)
for epoch in range(2):
    evaluate(model, torch.randn(4, 3))

# %% a nested class of the file keeps intermediate features on itself [unsafe]
import torch
from torch import nn

class Model(nn.Module):
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 3)
            self.saved = []

        def forward(self, x):
            y = self.fc(x)
            self.saved.append(y)
            return y

    def __init__(self):
        super().__init__()
        self.block = Model.Block()

    def forward(self, x):
        return self.block(x)

def evaluate(model, x):
    model.eval()
    print(round(model(x).sum().item(), 4))

model = Model()
for epoch in range(2):
    evaluate(model, torch.randn(2, 3))
print(model.block.saved[0])

# %% a forward that stores through a helper of the file [unsafe]
import torch
from torch import nn

TRACE = []

def trace(t):
    TRACE.append(t)
    return t

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        return trace(self.fc(x))

def evaluate(model, x):
    model.eval()
    print((model(x).argmax(1) == 0).sum().item())

model = Net()
for epoch in range(2):
    evaluate(model, torch.randn(4, 3))
print(TRACE[0])

# %% a module whose forward caches through a storing method on self [unsafe]
import torch
from torch import nn

class Memory(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.bank = []

    def remember(self, t):
        self.bank.append(t)

    def forward(self, x):
        y = self.fc(x)
        self.remember(y)
        return y

def evaluate(model, x):
    model.eval()
    print((model(x).argmax(1) == 0).sum().item())

model = Memory()
for epoch in range(2):
    evaluate(model, torch.randn(4, 3))
print(model.bank[0])

# %% a module of the file keeps a key cache updated in place [unsafe]
import torch
from torch import nn

class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(3, 3)
        self.register_buffer("cache", torch.zeros(2, 3))

    def forward(self, x):
        k = self.proj(x)
        self.cache.copy_(k)
        return k

def evaluate(model, x):
    model.eval()
    print((model(x).argmax(1) == 0).sum().item())

model = Decoder()
for epoch in range(2):
    evaluate(model, torch.randn(2, 3))
print(model.cache)

# %% evaluation normalises its input batch in place [safe]
import torch
from torch import nn

def evaluate(model, images):
    model.eval()
    images.div_(255)
    print((model(images).argmax(1) == 0).sum().item())

torch.manual_seed(0)
model = nn.Linear(3, 2)
for epoch in range(2):
    evaluate(model, torch.randint(0, 255, (4, 3)).float())

# %% a callback chosen by name with getattr [none]
import torch
from torch import nn

class Hooks:
    def __init__(self):
        self.head = nn.Linear(1, 1)

    def on_val_end(self, acc):
        self.head(torch.ones(1, 1) * acc).sum().backward()

def validate(model, hooks, x):
    model.eval()
    acc = (model(x).argmax(1) == 0).float().mean().item()
    getattr(hooks, "on_val_end")(acc)

hooks = Hooks()
model = nn.Linear(3, 2)
for epoch in range(2):
    validate(model, hooks, torch.randn(4, 3))
print(hooks.head.weight.grad)

# %% a partial of a fitting function called after validation [none]
import functools
import torch
from torch import nn

def fit(head, value):
    head(torch.ones(1, 1) * value).sum().backward()

head = nn.Linear(1, 1)
after = functools.partial(fit, head)

def validate(model, x):
    model.eval()
    acc = (model(x).argmax(1) == 0).float().mean().item()
    after(acc)

model = nn.Linear(3, 2)
for epoch in range(2):
    validate(model, torch.randn(4, 3))
print(head.weight.grad)

# %% an LSTM tagger evaluated after each epoch [unsafe]
import torch
from torch import nn

class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(8, 16, num_layers=2, batch_first=True)
        self.head = nn.Linear(16, 3)

    def forward(self, x):
        return self.head(self.rnn(x)[0])

def validate(model, x, y):
    model.eval()
    logits = model(x)
    print("loss", nn.functional.cross_entropy(logits.flatten(0, 1), y.flatten()).item())

torch.manual_seed(0)
model = Tagger()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(4, 7, 8), torch.randint(0, 3, (4, 7))
for epoch in range(2):
    model.train()
    nn.functional.cross_entropy(model(x).flatten(0, 1), y.flatten()).backward()
    opt.step()
    opt.zero_grad()
    validate(model, x, y)

# %% a seq2seq decoder layer scored on validation [unsafe]
import torch
from torch import nn

def score(decoder, tgt, memory):
    decoder.eval()
    out = decoder(tgt, memory)
    print("mean", out.mean().item(), "max", out.abs().max().item())

torch.manual_seed(0)
decoder = nn.TransformerDecoderLayer(16, 2, 32, dropout=0.0, batch_first=True)
for epoch in range(2):
    score(decoder, torch.randn(2, 5, 16), torch.randn(2, 6, 16))

# %% logits stored in two attributes at once [unsafe]
import torch

class Report:
    pass

def evaluate(model, x, report):
    model.eval()
    logits = model(x)
    report.logits, report.preds = logits, logits.argmax(1)

torch.manual_seed(0)
model = torch.nn.Linear(4, 3)
report = Report()
for epoch in range(2):
    evaluate(model, torch.randn(5, 4), report)
    print(report.logits.requires_grad, report.preds.tolist())

# %% a callback attribute set by the trainer runs after validation [none]
import torch

class Trainer:
    def __init__(self, model, on_validated):
        self.model = model
        self.on_validated = on_validated

    def validate(self, x, y):
        self.model.eval()
        acc = (self.model(x).argmax(1) == y).float().mean().item()
        self.on_validated(acc)

probe = torch.nn.Linear(4, 2)
probe_opt = torch.optim.SGD(probe.parameters(), lr=0.1)
torch.manual_seed(0)
x, y = torch.randn(6, 4), torch.randint(0, 2, (6,))

def fit_probe(acc):
    loss = torch.nn.functional.cross_entropy(probe(x), y)
    loss.backward()
    probe_opt.step()
    print("acc", round(acc, 4), "probe", round(loss.item(), 4))

trainer = Trainer(torch.nn.Linear(4, 2), fit_probe)
for epoch in range(2):
    trainer.validate(x, y)

# %% predictions accumulated into a view of the caller's buffer [unsafe]
import torch

def accumulate(model, x, total):
    model.eval()
    flat = total.view(-1)
    flat.add_(model(x).sum(0))

torch.manual_seed(0)
model = torch.nn.Linear(4, 3)
total = torch.zeros(3)
for epoch in range(2):
    accumulate(model, torch.randn(5, 4), total)
print(total.requires_grad, total.grad_fn is None)

# %% a global forward hook registered through torch.nn.modules.module [unsafe]
import torch
from torch.nn.modules.module import register_module_forward_hook

seen = []
handle = register_module_forward_hook(lambda module, inputs, output: seen.append(output))

def evaluate(model, x):
    model.eval()
    model(x).argmax(1)

torch.manual_seed(0)
for epoch in range(2):
    evaluate(torch.nn.Linear(4, 3), torch.randn(2, 4))
handle.remove()
print([s.requires_grad for s in seen])

# %% outputs kept in a tuple-unpacked subscript store [unsafe]
import torch

def evaluate(model, x, cache):
    model.eval()
    out = model(x)
    cache["logits"], cache["count"] = out, len(out)

torch.manual_seed(0)
cache = {}
for epoch in range(2):
    evaluate(torch.nn.Linear(4, 2), torch.randn(3, 4), cache)
print(cache["logits"].requires_grad, cache["count"])

# %% the output bound by a walrus in a condition, then printed [unsafe]
import torch

def evaluate(model, x):
    model.eval()
    if (scores := model(x)).mean() > -100:
        print("scores", scores)

torch.manual_seed(0)
for epoch in range(2):
    evaluate(torch.nn.Linear(4, 2), torch.randn(2, 4))

# %% a language model whose recurrent cell type is chosen by name [unsafe]
import torch
from torch import nn

class RNNModel(nn.Module):
    def __init__(self, rnn_type, ntoken=20, ninp=8, nhid=16, nlayers=2):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = getattr(nn, rnn_type)(ninp, nhid, nlayers)
        self.decoder = nn.Linear(nhid, ntoken)

    def forward(self, tokens):
        output, _ = self.rnn(self.encoder(tokens))
        return self.decoder(output)

def evaluate(model, data):
    model.eval()
    logits = model(data[:-1])
    print("val loss", nn.functional.cross_entropy(logits.flatten(0, 1), data[1:].flatten()).item())

torch.manual_seed(0)
model = RNNModel("LSTM")
opt = torch.optim.SGD(model.parameters(), lr=0.5)
data = torch.randint(0, 20, (12, 4))
for epoch in range(2):
    model.train()
    nn.functional.cross_entropy(model(data[:-1]).flatten(0, 1), data[1:].flatten()).backward()
    opt.step()
    opt.zero_grad()
    evaluate(model, data)

# %% an alias of the caller's running sum extended with += [unsafe]
import torch

def accumulate(model, x, stats):
    model.eval()
    running = stats["sum"]
    running += model(x).sum(0)

torch.manual_seed(0)
stats = {"sum": torch.zeros(3)}
for epoch in range(2):
    accumulate(torch.nn.Linear(4, 3), torch.randn(5, 4), stats)
print(stats["sum"].requires_grad)

# %% an evaluation nested in main(), which imports torch lazily below it [none]
def main():
    def evaluate(model, x):
        model.eval()
        print(model(x).argmax(1).tolist())

    import torch
    model = torch.nn.Linear(2, 3)
    for epoch in range(2):
        evaluate(model, torch.ones(1, 2))

main()

# %% a weight-normalised conv keeps the weight its hook computes [unsafe]
import torch
import torch.nn as nn

conv = nn.utils.weight_norm(nn.Conv1d(1, 1, 3))

def evaluate(model, x):
    model.eval()
    print(model(x).sum().item() > -1e9)

for epoch in range(2):
    evaluate(conv, torch.ones(1, 1, 5))
    print(conv.weight.requires_grad)

# %% a conversion to NumPy that falls back to detach when the output records a graph [unsafe]
import torch

def evaluate(model, x):
    model.eval()
    out = model(x)
    try:
        arr = out.numpy()
    except RuntimeError:
        print("fallback to detach")
        arr = out.detach().numpy()
    print(arr.round(4).tolist())

model = torch.nn.Linear(2, 2)
for epoch in range(2):
    evaluate(model, torch.ones(1, 2))

# %% round 6: a tensor subclass's __torch_function__ sees the grad mode [unsafe]
import torch
from torch import nn

SEEN = []

class Traced(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        result = super().__torch_function__(func, types, args, kwargs or {})
        if isinstance(result, torch.Tensor):
            SEEN.append(result.requires_grad)
        return result

net = nn.Linear(2, 1)

def run_eval(x):
    net.eval()
    print(net(x).shape)

for epoch in range(2):
    run_eval(torch.ones(1, 2).as_subclass(Traced))
print(SEEN)

# %% round 6: a TorchFunctionMode around the evaluation logs the grad mode [unsafe]
import torch
from torch import nn
from torch.overrides import TorchFunctionMode

class GradModeLog(TorchFunctionMode):
    modes = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.modes.append(torch.is_grad_enabled())
        return func(*args, **(kwargs or {}))

net = nn.Linear(2, 2)

def evaluate(x):
    net.eval()
    print(net(x).argmax(1).tolist())

for epoch in range(2):
    with GradModeLog():
        evaluate(torch.ones(1, 2))
print(GradModeLog.modes[:2])

# %% round 6: a forward keeps its activation with setattr [unsafe]
import torch
from torch import nn

class Probe(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)

    def forward(self, x):
        h = self.fc(x)
        setattr(self, "activation", h)
        return h.relu()

probe = Probe()

def evaluate(x):
    probe.eval()
    print(probe(x).argmax(1).tolist())

for epoch in range(2):
    evaluate(torch.ones(1, 2))
show(probe.activation)

# %% round 6: a subclass of the transformer layer takes the fast path [unsafe]
import torch
from torch import nn

class Layer(nn.TransformerEncoderLayer):
    pass

torch.manual_seed(0)
layer = Layer(d_model=8, nhead=2, dim_feedforward=16, batch_first=True)
x = torch.randn(2, 4, 8)
pad = torch.tensor([[False, False, True, True], [False, False, False, True]])

def evaluate():
    layer.eval()
    print(layer(x, src_key_padding_mask=pad)[0, 2].tolist())

for epoch in range(2):
    evaluate()

# %% round 6: multi-head attention made through functools.partial [unsafe]
import functools
import torch
from torch import nn

MHA = functools.partial(nn.MultiheadAttention, batch_first=True)
torch.manual_seed(0)
attn = MHA(8, 2)
x = torch.randn(2, 4, 8)
pad = torch.tensor([[False, False, True, True], [False, False, False, True]])

def evaluate():
    attn.eval()
    out, _ = attn(x, x, x, key_padding_mask=pad, need_weights=False)
    print(out[0, 2].tolist())

for epoch in range(2):
    evaluate()

# %% round 7: outputs grouped with setdefault in the caller's dict [unsafe]
import torch

def evaluate(model, batches, groups):
    model.eval()
    for name, x in batches:
        groups.setdefault(name, []).append(model(x))

torch.manual_seed(0)
for epoch in range(2):
    groups = {}
    evaluate(torch.nn.Linear(3, 2), [("a", torch.ones(1, 3)), ("b", torch.zeros(1, 3))], groups)
    show(groups["a"][0], groups["b"][0])

# %% round 7: outputs put on a global queue [unsafe]
import queue
import torch

RESULTS = queue.Queue()

def evaluate(model, x):
    model.eval()
    RESULTS.put(model(x))

torch.manual_seed(0)
for epoch in range(2):
    evaluate(torch.nn.Linear(3, 2), torch.ones(1, 3))
    show(RESULTS.get())

# %% round 7: the output stored through object.__setattr__ [unsafe]
import torch

class Record:
    pass

def evaluate(model, x, record):
    model.eval()
    object.__setattr__(record, "logits", model(x))

torch.manual_seed(0)
for epoch in range(2):
    record = Record()
    evaluate(torch.nn.Linear(3, 2), torch.ones(1, 3), record)
    show(record.logits)

# %% round 7: the output stored into globals() [unsafe]
import torch

def evaluate(model, x):
    model.eval()
    globals()["LAST"] = model(x)

torch.manual_seed(0)
for epoch in range(2):
    evaluate(torch.nn.Linear(3, 2), torch.ones(1, 3))
    show(LAST)

# %% round 7: the output leaves through an exception [unsafe]
import torch

class Found(Exception):
    def __init__(self, value):
        self.value = value

def search(model, x):
    model.eval()
    out = model(x)
    if out.sum() > -100:
        raise Found(out)

torch.manual_seed(0)
for epoch in range(2):
    try:
        search(torch.nn.Linear(3, 2), torch.ones(1, 3))
    except Found as found:
        show(found.value)

# %% round 7: the output formatted with percent formatting [unsafe]
import torch

def evaluate(model, x):
    model.eval()
    out = model(x)
    line = "out=%s" % (out,)
    print(line)

torch.manual_seed(0)
for epoch in range(2):
    evaluate(torch.nn.Linear(3, 2), torch.ones(1, 3))

# %% round 7: the output logged to stdout through logging [unsafe]
import logging
import sys
import torch

log = logging.getLogger("eval7")
log.addHandler(logging.StreamHandler(sys.stdout))
log.setLevel(logging.INFO)

def evaluate(model, x):
    model.eval()
    log.info("logits %s", model(x))

torch.manual_seed(0)
for epoch in range(2):
    evaluate(torch.nn.Linear(3, 2), torch.ones(1, 3))

# %% round 7: the name of the output's grad_fn is reported [unsafe]
import torch

def evaluate(model, x):
    model.eval()
    out = model(x)
    print(type(out.grad_fn).__name__)

torch.manual_seed(0)
for epoch in range(2):
    evaluate(torch.nn.Linear(3, 2), torch.ones(1, 3))

# %% round 7: a keyword callback fits a probe with backward [none]
import torch

def fit_probe(features):
    probe = torch.nn.Linear(2, 1)
    probe(features).sum().backward()
    show(probe.weight.grad)

def evaluate(model, x, on_features=None):
    model.eval()
    feats = model(x)
    if on_features is not None:
        on_features(feats)

torch.manual_seed(0)
for epoch in range(2):
    model = torch.nn.Linear(3, 2)
    evaluate(model, torch.ones(1, 3), on_features=fit_probe)
    show(model.weight.grad)

# %% round 7: the output copied into a caller's buffer [unsafe]
import torch

def evaluate(model, x, buffer):
    model.eval()
    buffer.copy_(model(x))

torch.manual_seed(0)
for epoch in range(2):
    buffer = torch.zeros(1, 2)
    evaluate(torch.nn.Linear(3, 2), torch.ones(1, 3), buffer)
    show(buffer)

# %% round 7: transformer encoder layer imported from torch.nn.modules.transformer under another name [unsafe]
import torch
from torch.nn.modules.transformer import TransformerEncoderLayer as Block

def evaluate(model, x, mask):
    model.eval()
    out = model(x, src_key_padding_mask=mask)
    print(round(out[0, 3].sum().item(), 4))

torch.manual_seed(0)
for epoch in range(2):
    model = torch.nn.TransformerEncoder(Block(8, 2, 16, dropout=0.0, batch_first=True), 1, enable_nested_tensor=True)
    mask = torch.tensor([[False, False, True, True]])
    evaluate(model, torch.randn(1, 4, 8), mask)

# %% round 7: full nn.Transformer scored on padded sequences [unsafe]
import torch

def evaluate(model, src, tgt, mask):
    model.eval()
    out = model(src, tgt, src_key_padding_mask=mask, memory_key_padding_mask=mask)
    print(round(out.sum().item(), 4))

torch.manual_seed(0)
for epoch in range(2):
    model = torch.nn.Transformer(8, 2, 1, 1, 16, dropout=0.0, batch_first=True)
    mask = torch.tensor([[False, False, True, True]])
    evaluate(model, torch.randn(1, 4, 8), torch.randn(1, 3, 8), mask)

# %% round 7: a module class registry that holds the encoder layer class [unsafe]
import torch

LAYERS = [torch.nn.TransformerEncoderLayer]

def evaluate(model, x, mask):
    model.eval()
    out = model(x, src_key_padding_mask=mask)
    print(round(out[0, 3].sum().item(), 4))

torch.manual_seed(0)
for epoch in range(2):
    model = torch.nn.TransformerEncoder(LAYERS[0](8, 2, 16, dropout=0.0, batch_first=True), 1)
    evaluate(model, torch.randn(1, 4, 8), torch.tensor([[False, False, True, True]]))

# %% round 7: forward computes an input gradient under enable_grad inside eval [none]
import torch

class Saliency(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Linear(3, 1)
    def forward(self, x):
        x = x.clone().requires_grad_(True)
        (g,) = torch.autograd.grad(self.net(x).sum(), x)
        return g

def evaluate(model, x):
    model.eval()
    show(model(x))

torch.manual_seed(0)
for epoch in range(2):
    evaluate(Saliency(), torch.ones(2, 3))

# %% round 8: a graph convolution over a fixed adjacency, evaluated per epoch [unsafe, same]
import torch
import torch.nn as nn


class GCN(nn.Module):
    def __init__(self, adj):
        super().__init__()
        self.register_buffer("adj", adj)
        self.lin = nn.Linear(16, 16)
        self.out = nn.Linear(16, 3)

    def forward(self, x):
        h = self.lin(x).relu()
        h = torch.matmul(self.adj, h)
        return self.out(h)


def evaluate(model, x):
    model.eval()
    logits = model(x)
    print(logits.sum().item())


torch.manual_seed(0)
adj = torch.softmax(torch.randn(12, 12), dim=1)
model = GCN(adj)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(5, 12, 16)
for epoch in range(2):
    model.train()
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    evaluate(model, x)

# %% round 8: prototype scores of transposed conv features times normalised prototypes [unsafe]
import torch
import torch.nn as nn
import torch.nn.functional as F


class ProtoNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(8, 32, 3, padding=1)
        self.prototypes = nn.Parameter(torch.randn(6, 32))

    def forward(self, x):
        feats = self.conv(x).transpose(1, 2)
        return feats @ F.normalize(self.prototypes, dim=1).t()


def validate(net, batch):
    net.eval()
    scores = net(batch)
    print(scores.sum().item(), scores.argmax(-1).tolist())


torch.manual_seed(0)
net = ProtoNet()
for epoch in range(2):
    validate(net, torch.randn(4, 8, 20))

# %% round 8: an evaluation generator that yields host floats [unsafe, same]
import torch


def scores(model, batches):
    model.eval()
    for x in batches:
        yield model(x).mean().item()


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
batches = [torch.randn(4, 3) for _ in range(2)]
for epoch in range(2):
    print([round(s, 6) for s in scores(model, batches)])

# %% round 8: outputs kept in a module-level dict without a global statement [unsafe]
import torch

RESULTS = {}


def evaluate(model, x, name):
    model.eval()
    RESULTS[name] = model(x)


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
for epoch in range(2):
    evaluate(model, torch.randn(2, 3), f"epoch{epoch}")
print(RESULTS["epoch1"].requires_grad)

# %% round 8: the output stored on a class attribute [unsafe]
import torch


class Tracker:
    best = None


def evaluate(model, x):
    model.eval()
    Tracker.best = model(x)


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
for epoch in range(2):
    evaluate(model, torch.randn(2, 3))
print(Tracker.best.grad_fn is not None)

# %% round 8: a mutable default argument caches outputs across calls [none]
import torch


def evaluate(model, x, _cache={}):
    model.eval()
    _cache[len(_cache)] = model(x)
    return None


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
for epoch in range(2):
    evaluate(model, torch.randn(2, 3))
print(len(evaluate.__defaults__[0]))

# %% round 8: a staticmethod evaluation in a plain class, only counts printed [safe]
import torch


class Metrics:
    @staticmethod
    def accuracy(model, x, y):
        model.eval()
        correct = (model(x).argmax(1) == y).sum().item()
        print("acc", correct / len(y))


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
for epoch in range(2):
    Metrics.accuracy(model, torch.randn(8, 3), torch.randint(0, 2, (8,)))

# %% round 8: a functools.partial of the evaluation called from the loop [safe]
import functools

import torch


def evaluate(model, x, digits):
    model.eval()
    print(round(model(x).sum().item(), digits))


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
run_eval = functools.partial(evaluate, model, digits=5)
for epoch in range(2):
    run_eval(torch.randn(4, 3))

# %% round 8: a metric object of the file accumulates a tensor total on itself [unsafe]
import torch


class MeanMetric:
    def __init__(self):
        self.total = torch.zeros(())

    def update(self, value):
        self.total = self.total + value.sum()


def evaluate(model, x, metric):
    model.eval()
    metric.update(model(x))


torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
metric = MeanMetric()
for epoch in range(2):
    evaluate(model, torch.ones(2, 3), metric)
print(metric.total)

# %% round 8: evaluation decorated with lru_cache, results cached as floats [safe]
import functools

import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
x = torch.randn(4, 3)


@functools.lru_cache(maxsize=None)
def evaluate(epoch):
    model.eval()
    print(epoch, round(model(x).sum().item(), 5))


for epoch in range(2):
    evaluate(epoch)
    evaluate(epoch)

# %% round 8: evaluation of a model whose forward reads its input's requires_grad [unsafe]
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 1)

    def forward(self, x):
        h = self.lin(x)
        return h * 2 if h.requires_grad else h


def evaluate(model, x):
    model.eval()
    print(round(model(x).sum().item(), 5))


torch.manual_seed(0)
model = Net()
for epoch in range(2):
    evaluate(model, torch.ones(2, 3))

# %% round 8: saved-tensor hooks count what autograd keeps during evaluation [unsafe]
import torch

packed = []


def pack(t):
    packed.append(t.shape)
    return t


def unpack(t):
    return t


def evaluate(model, x):
    model.eval()
    with torch.autograd.graph.saved_tensors_hooks(pack, unpack):
        out = model(x).relu().sum().item()
    print(round(out, 5))


torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh())
for epoch in range(2):
    evaluate(model, torch.ones(2, 3))
print(len(packed))

# %% round 8: a memory counter of tensors kept by autograd via a global pack hook registered at module level [unsafe]
import torch

count = [0]


def pack(t):
    count[0] += 1
    return t


def evaluate(model, x):
    model.eval()
    print(model(x).argmax(1).tolist())


torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Sigmoid())
with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
    for epoch in range(2):
        evaluate(model, torch.ones(2, 3))
print(count[0])

# %% round 8: a lazily built positional table cached at module level from a parameter [unsafe]
import torch

_cache = {}
scale = torch.nn.Parameter(torch.ones(1))


def table(n):
    if n not in _cache:
        _cache[n] = torch.arange(n).float() * scale
    return _cache[n]


def evaluate(model, x):
    model.eval()
    print(round((model(x) + table(2)).sum().item(), 5))


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
for epoch in range(2):
    evaluate(model, torch.ones(1, 3))
loss = table(2).sum()
print(loss.requires_grad)

# %% round 8: rows of the output printed one by one [unsafe]
import torch


def evaluate(model, x):
    model.eval()
    for row in model(x):
        print(row)


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
for epoch in range(2):
    evaluate(model, torch.ones(2, 3))

# %% round 8: an evaluation function compiled with torch.compile (eager backend) [safe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 2)


@torch.compile(backend="eager")
def evaluate(x):
    model.eval()
    print((model(x).argmax(1) == 0).sum().item())


for epoch in range(2):
    evaluate(torch.randn(4, 3))

# %% round 8: an evaluation classmethod of a plain runner class [safe]
import torch


class Runner:
    model = torch.nn.Linear(3, 2)

    @classmethod
    def validate(cls, x):
        cls.model.eval()
        print(cls.model(x).argmax(1).tolist())


torch.manual_seed(0)
for epoch in range(2):
    Runner.validate(torch.ones(2, 3))

# %% round 8: evaluation with a decorator of the file that reads the function's defaults [none]
import inspect

import torch


def report_defaults(fn):
    print(fn.__defaults__)
    return fn


@report_defaults
def evaluate(model, x, k=1):
    model.eval()
    print(model(x).topk(k, dim=1).indices.tolist())


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
for epoch in range(2):
    evaluate(model, torch.ones(2, 3))
print(inspect.signature(evaluate))

# %% round 9: a helper wrapped by a logging decorator of the file that keeps results [unsafe]
import functools
import torch
import torch.nn as nn

LOG = []

def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        result = fn(*args)
        LOG.append(result)
        return result
    return wrapper

@logged
def head(model, x):
    return model(x)

def evaluate(model, x):
    model.eval()
    out = head(model, x)
    print("correct", int((out.argmax(1) == 0).sum()))

model = nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    model.train()
    model(torch.ones(2, 3)).sum().backward(); opt.step(); opt.zero_grad()
    evaluate(model, torch.ones(2, 3))
print(LOG[-1])

# %% round 9: requires_grad read with getattr and a literal name [unsafe]
import torch
import torch.nn as nn

def evaluate(model, x):
    model.eval()
    out = model(x)
    tracked = getattr(out, "requires_grad")
    print("tracked", tracked, "acc", int((out.argmax(1) == 1).sum()))

model = nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    model.train()
    model(torch.ones(2, 3)).sum().backward(); opt.step(); opt.zero_grad()
    evaluate(model, torch.ones(2, 3))

# %% round 9: a recorder context manager of the file logs the outputs [unsafe]
import torch
import torch.nn as nn

class Recorder:
    def __init__(self, store):
        self.store = store
    def __enter__(self):
        return self
    def __exit__(self, *exc):
        return False
    def log(self, value):
        self.store.append(value)

STORE = []

def evaluate(model, x):
    model.eval()
    with Recorder(STORE) as rec:
        out = model(x)
        rec.log(out)

model = nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    model.train()
    model(torch.ones(2, 3)).sum().backward(); opt.step(); opt.zero_grad()
    evaluate(model, torch.ones(2, 3))
print(STORE[-1].requires_grad)

# %% round 9: torch imported only for type checking, layers imported by name [safe]
from typing import TYPE_CHECKING
from torch import nn, ones, optim
if TYPE_CHECKING:
    import torch

def evaluate(model, x):
    model.eval()
    out = model(x)
    print("argmax", out.argmax(1).tolist())

model = nn.Linear(3, 2)
opt = optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    model.train()
    model(ones(2, 3)).sum().backward(); opt.step(); opt.zero_grad()
    evaluate(model, ones(2, 3))

# %% round 9: the unbound in-place add of a caller's running sum [none]
import torch
import torch.nn as nn

def evaluate(model, x, running):
    model.eval()
    out = model(x)
    torch.Tensor.add_(running, out)

model = nn.Linear(3, 2)
running = torch.zeros(2, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    model.train()
    model(torch.ones(2, 3)).sum().backward(); opt.step(); opt.zero_grad()
    evaluate(model, torch.ones(2, 3), running)
print(running.requires_grad)

# %% round 9: class prototypes in a cached_property filled on first evaluation [unsafe]
import functools
import torch
import torch.nn as nn

class Classifier:
    def __init__(self, encoder, support):
        self.encoder = encoder
        self.support = support

    @functools.cached_property
    def prototypes(self):
        return self.encoder(self.support)

def evaluate(encoder, clf, x):
    encoder.eval()
    scores = encoder(x) @ clf.prototypes.t()
    print("pred", scores.argmax(1).tolist())

encoder = nn.Linear(3, 2)
clf = Classifier(encoder, torch.eye(3))
opt = torch.optim.SGD(encoder.parameters(), lr=0.1)
for epoch in range(2):
    encoder.train()
    encoder(torch.ones(2, 3)).sum().backward(); opt.step(); opt.zero_grad()
    evaluate(encoder, clf, torch.ones(2, 3))
print(clf.prototypes.requires_grad)

# %% round 9: zero-shot class embeddings cached with lru_cache on a helper [unsafe]
import functools
import torch
import torch.nn as nn

text_encoder = nn.Linear(4, 2)

@functools.lru_cache(maxsize=None)
def class_embeddings(n):
    return text_encoder(torch.eye(4)[:n])

def evaluate(image_encoder, x):
    image_encoder.eval()
    text_encoder.eval()
    logits = image_encoder(x).mm(class_embeddings(3).t())
    print("pred", logits.argmax(1).tolist())

image_encoder = nn.Linear(3, 2)
opt = torch.optim.SGD(image_encoder.parameters(), lr=0.1)
for epoch in range(2):
    image_encoder.train()
    image_encoder(torch.ones(2, 3)).sum().backward(); opt.step(); opt.zero_grad()
    evaluate(image_encoder, torch.ones(2, 3))
print(class_embeddings(3).requires_grad)

# %% round 9: the output printed inside a dict literal [unsafe]
import torch
import torch.nn as nn

def evaluate(model, x):
    model.eval()
    out = model(x)
    print({"epoch_logits": out})

model = nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    model.train()
    model(torch.ones(2, 3)).sum().backward(); opt.step(); opt.zero_grad()
    evaluate(model, torch.ones(2, 3))

# %% round 9: a dataclass report built from the output and printed [unsafe]
import dataclasses
import torch
import torch.nn as nn

@dataclasses.dataclass
class Report:
    epoch: int
    logits: object

def evaluate(model, x, epoch):
    model.eval()
    out = model(x)
    report = Report(epoch, out[:1])
    print(report)

model = nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    model.train()
    model(torch.ones(2, 3)).sum().backward(); opt.step(); opt.zero_grad()
    evaluate(model, torch.ones(2, 3), epoch)

# %% round 9: control, a match statement over the metric name, counts only [unsafe, same]
import torch
import torch.nn as nn

def evaluate(model, x, metric):
    model.eval()
    out = model(x)
    match metric:
        case "top1":
            print("top1", int((out.argmax(1) == 0).sum()))
        case _:
            print("n", out.shape[0])

model = nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    model.train()
    model(torch.ones(2, 3)).sum().backward(); opt.step(); opt.zero_grad()
    evaluate(model, torch.ones(2, 3), "top1" if epoch else "n")

# %% round 9: a module scripted with torch.jit, evaluated each epoch, counts printed [safe]
import torch
import torch.nn as nn

def evaluate(model, x):
    model.eval()
    out = model(x)
    print("pos", int((out > 0).sum()))

model = torch.jit.script(nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    model.train()
    model(torch.ones(2, 3)).sum().backward(); opt.step(); opt.zero_grad()
    evaluate(model, torch.ones(2, 3))

# %% round 9: the output's repr taken through its dunder method [unsafe]
import torch
import torch.nn as nn

def evaluate(model, x):
    model.eval()
    out = model(x)
    text = out.__repr__()
    print(len(text))

model = nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    model.train()
    model(torch.ones(2, 3)).sum().backward(); opt.step(); opt.zero_grad()
    evaluate(model, torch.ones(2, 3))

# %% round 9: evaluation with a nested accuracy helper that only counts [unsafe, same]
import torch
import torch.nn as nn

def evaluate(model, batches):
    def correct(logits, y):
        return int((logits.argmax(1) == y).sum())
    model.eval()
    total = 0
    for x, y in batches:
        total += correct(model(x), y)
    print("acc", total)

torch.manual_seed(0)
model = nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
batches = [(torch.randn(4, 3), torch.tensor([0, 1, 0, 1]))]
for epoch in range(2):
    model.train()
    nn.functional.cross_entropy(model(batches[0][0]), batches[0][1]).backward(); opt.step(); opt.zero_grad()
    evaluate(model, batches)

# %% round 9: evaluation that numbers the batches with a generator of the file [unsafe, same]
import torch
import torch.nn as nn

def numbered(batches):
    for i, x in enumerate(batches):
        yield i, x

def evaluate(model, batches):
    model.eval()
    for i, x in numbered(batches):
        print(i, int(model(x).argmax()))

model = nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    model.train()
    model(torch.ones(2, 3)).sum().backward(); opt.step(); opt.zero_grad()
    evaluate(model, [torch.ones(3), torch.zeros(3)])

# %% round 9: an EMA model of a dataclass trainer evaluated, parameters updated in place elsewhere [unsafe, same]
import copy
import dataclasses
import torch
import torch.nn as nn

@dataclasses.dataclass
class State:
    model: nn.Module
    ema: nn.Module

def ema_update(state):
    with torch.no_grad():
        for p, q in zip(state.ema.parameters(), state.model.parameters()):
            p.mul_(0.5).add_(q, alpha=0.5)

def evaluate(state, x):
    state.ema.eval()
    print("ema", [round(v, 4) for v in state.ema(x).flatten().tolist()])

model = nn.Linear(3, 2)
state = State(model, copy.deepcopy(model))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    model(torch.ones(2, 3)).sum().backward(); opt.step(); opt.zero_grad()
    ema_update(state)
    evaluate(state, torch.ones(1, 3))

# %% round 9: a class decorator of the file replaces __call__ and keeps the outputs [none]
import torch
import torch.nn as nn

CALLS = []

def counted(cls):
    original = cls.__call__
    def __call__(self, *args):
        out = original(self, *args)
        CALLS.append(out)
        return out
    cls.__call__ = __call__
    return cls

@counted
class Net(nn.Linear):
    pass

def evaluate(model, x):
    model.eval()
    print(int(model(x).argmax()))

model = Net(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    model.train()
    model(torch.ones(2, 3)).sum().backward(); opt.step(); opt.zero_grad()
    evaluate(model, torch.ones(1, 3))
print(CALLS[-1].requires_grad)

# %% round 9: a tensor subclass output printed through its own __repr__ [unsafe, same]
import torch
import torch.nn as nn

class Logits(torch.Tensor):
    pass

def evaluate(model, x):
    model.eval()
    out = model(x).as_subclass(Logits)
    print(type(out).__name__, out.shape)

model = nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    model.train()
    model(torch.ones(2, 3)).sum().backward(); opt.step(); opt.zero_grad()
    evaluate(model, torch.ones(1, 3))

# %% round 10: a saliency helper bound to a lambda at module level calls autograd.grad [none]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
saliency = lambda out, inp: torch.autograd.grad(out.sum(), inp)[0]

def evaluate(x):
    model.eval()
    x = x.clone().requires_grad_(True)
    out = model(x)
    s = saliency(out, x)
    print("saliency", round(s.abs().sum().item(), 4))
    model.train()

data = torch.randn(6, 4)
for step in range(2):
    loss = model(data).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    evaluate(data[:2])

# %% round 10: autograd.grad imported under another name, input gradients in validation [none]
import torch
from torch import nn
from torch.autograd import grad as input_grad

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 6), nn.ReLU(), nn.Linear(6, 1))
opt = torch.optim.Adam(model.parameters(), lr=0.01)

def validate(x):
    model.eval()
    x = x.detach().requires_grad_()
    y = model(x)
    g, = input_grad(y.sum(), x)
    print("grad norm", round(g.norm().item(), 4))
    model.train()

x = torch.randn(5, 3)
for epoch in range(2):
    loss = (model(x) - 1).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    validate(x)

# %% round 10: an explainer class of the file computes gradients in a method [none]
import torch
from torch import nn

class Explainer:
    def __init__(self, net):
        self.net = net

    def attribute(self, out, x):
        return torch.autograd.grad(out[:, 0].sum(), x)[0]

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(4, 4), nn.Sigmoid(), nn.Linear(4, 2))
opt = torch.optim.SGD(net.parameters(), lr=0.5)
explainer = Explainer(net)

def evaluate(batch):
    net.eval()
    batch = batch.clone().requires_grad_(True)
    out = net(batch)
    attr = explainer.attribute(out, batch)
    print("attr", [round(v, 4) for v in attr.sum(0).tolist()])
    net.train()

data = torch.randn(4, 4)
for step in range(2):
    loss = net(data).logsumexp(1).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    evaluate(data)

# %% round 10: a closure inside the evaluation prints the logits it captures [unsafe]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)

def evaluate(x):
    model.eval()
    logits = model(x)

    def report():
        print("logits", logits)

    report()
    model.train()

x = torch.randn(2, 3)
for step in range(2):
    loss = model(x).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    evaluate(x)

# %% round 10: the self-documenting f-string of the validation loss [unsafe]
import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Linear(4, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(6, 4), torch.tensor([0, 1, 2, 0, 1, 2])

def validate():
    model.eval()
    val_loss = F.cross_entropy(model(x), y)
    print(f"{val_loss=}")
    model.train()

for epoch in range(2):
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    validate()

# %% round 10: logits unpacked into print with a star [unsafe]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(2, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)

def show_predictions(x):
    model.eval()
    out = model(x)
    print(*out, sep="\n")
    model.train()

x = torch.randn(3, 2)
for step in range(2):
    loss = model(x).pow(2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show_predictions(x)

# %% round 10: a format string filled from locals() [unsafe]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)

def evaluate(x):
    model.eval()
    pred = model(x)
    n = len(x)
    print("n={n} pred={pred}".format(**locals()))
    model.train()

x = torch.randn(2, 2)
for step in range(2):
    loss = model(x).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    evaluate(x)

# %% round 10: an assertion message carries the output, caught by the training loop [unsafe]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(2, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)

def check(x):
    model.eval()
    out = model(x)
    model.train()
    assert out.abs().max() < 0.01, out

x = torch.randn(2, 2)
for step in range(2):
    loss = model(x).pow(2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    try:
        check(x)
    except AssertionError as err:
        print("check failed:", err)

# %% round 10: a report deferred in a lambda kept on a module-level list [none]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
pending = []

def evaluate(x, epoch):
    model.eval()
    score = model(x).mean()
    pending.append(lambda: print(epoch, score))
    model.train()

x = torch.randn(4, 3)
for epoch in range(2):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    evaluate(x, epoch)
for job in pending:
    job()

# %% round 10: control, evaluation over an IterableDataset with worker sharding, counts only [safe]
import torch
from torch import nn
from torch.utils.data import DataLoader, IterableDataset, get_worker_info

class Stream(IterableDataset):
    def __init__(self, data):
        self.data = data

    def __iter__(self):
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        for i in range(start, len(self.data), step):
            yield self.data[i]

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = torch.randn(10, 4)
labels = torch.arange(10) % 3

def evaluate(loader):
    model.eval()
    correct = 0
    for xb in loader:
        correct += int((model(xb).argmax(1) == 0).sum())
    print("class-0 predictions", correct)
    model.train()

loader = DataLoader(Stream(data), batch_size=4)
for epoch in range(2):
    loss = nn.functional.cross_entropy(model(data), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    evaluate(loader)

# %% round 10: control, a frozen backbone in eval with a bool mask of confident predictions [safe]
import torch
from torch import nn

torch.manual_seed(0)
backbone = nn.Sequential(nn.Linear(5, 5), nn.ReLU())
head = nn.Linear(5, 2)
for p in backbone.parameters():
    p.requires_grad_(False)
opt = torch.optim.SGD(head.parameters(), lr=0.1)
x = torch.randn(8, 5)
y = torch.randint(0, 2, (8,))

def pseudo_label_count(batch):
    backbone.eval()
    head.eval()
    probs = head(backbone(batch)).softmax(-1)
    confident = probs.max(-1).values > 0.6
    print("confident", int(confident.sum()), "of", confident.numel())
    head.train()

for step in range(3):
    loss = nn.functional.cross_entropy(head(backbone(x)), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    pseudo_label_count(x)

# %% round 10: evaluation written with tabs, imports only torch.nn [safe]
from torch import nn
import torch.nn.functional as F

class Runner:
	def __init__(self, model):
		self.model = model

	def evaluate(self, x, y):
		self.model.eval()
		acc = (self.model(x).argmax(1) == y).float().mean().item()
		print("acc", round(acc, 4))
		self.model.train()

import torch
torch.manual_seed(0)
net = nn.Linear(3, 2)
opt = torch.optim.SGD(net.parameters(), lr=0.5)
runner = Runner(net)
x, y = torch.randn(8, 3), torch.randint(0, 2, (8,))
for step in range(2):
	loss = F.cross_entropy(net(x), y)
	opt.zero_grad()
	loss.backward()
	opt.step()
	runner.evaluate(x, y)

# %% round 10: validation in a match over the task, complex-valued features, counts printed [safe]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(8, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
signal = torch.randn(6, 8)

def features(x):
    spec = torch.fft.rfft(x, dim=-1)
    return torch.cat([spec.real, spec.imag], -1)[:, :8]

def validate(task):
    model.eval()
    match task:
        case "cls":
            pred = model(features(signal)).argmax(-1)
            print("positives", int(pred.sum()))
        case _:
            print("skip")
    model.train()

for epoch in range(2):
    loss = model(features(signal)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    validate("cls")

# %% round 10: scores grouped into a caller's defaultdict with a subscript += [none]
import collections
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)

def evaluate(x, totals):
    model.eval()
    totals["logits"] += model(x).sum(0)
    model.train()

totals = collections.defaultdict(float)
x = torch.randn(4, 3)
for step in range(2):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    evaluate(x, totals)
print(totals["logits"].requires_grad)

# %% round 10: the predictions written into a caller's preallocated tensor by index_copy_ [none]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(2, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(4, 2)

def predict_into(buffer, idx):
    model.eval()
    buffer.index_copy_(0, idx, model(x[idx]))
    model.train()

for step in range(2):
    buf = torch.zeros(4, 3)
    loss = model(x).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    predict_into(buf, torch.tensor([0, 2]))
    print(buf.requires_grad)

# %% round 10: an evaluation generator that yields batches of logits to the caller [none]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(2, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = torch.randn(4, 2)

def predictions():
    model.eval()
    for xb in data.split(2):
        yield model(xb)
    model.train()

for epoch in range(2):
    loss = model(data).pow(2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print([p.requires_grad for p in predictions()])

# %% round 10: an evaluation that stores on an exception's attribute before raising [none]
import torch
from torch import nn

class Diverged(Exception):
    pass

torch.manual_seed(0)
model = nn.Linear(2, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)

def evaluate(x):
    model.eval()
    out = model(x)
    model.train()
    if out.abs().max() > 0.0:
        err = Diverged("large output")
        err.output = out
        raise err

x = torch.randn(2, 2)
for step in range(2):
    loss = model(x).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    try:
        evaluate(x)
    except Diverged as e:
        print(e, e.output.requires_grad)

# %% round 12: an evaluation written as a generator that yields each batch's logits to a printing caller [unsafe]
import torch


def predict(model, batches):
    model.eval()
    for x in batches:
        yield model(x)


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
for epoch in range(2):
    for logits in predict(model, [torch.ones(2, 3), torch.zeros(1, 3)]):
        print(logits)

# %% round 12: a generator evaluation whose caller trains on the yielded outputs [none]
import torch


def rollout(policy, states):
    policy.eval()
    for s in states:
        yield policy(s)


torch.manual_seed(0)
policy = torch.nn.Linear(4, 2)
opt = torch.optim.SGD(policy.parameters(), lr=0.1)
for epoch in range(2):
    for out in rollout(policy, [torch.ones(1, 4), torch.full((1, 4), 0.5)]):
        policy.train()
        loss = out.pow(2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
show(policy)

# %% round 12: a Lightning-style validation_step of a plain trainer class logs a float through self.log [unsafe]
import torch


class LitClassifier:
    def __init__(self):
        self.net = torch.nn.Linear(4, 3)
        self.logged = {}

    def log(self, name, value):
        self.logged[name] = value

    def validation_step(self, batch, batch_idx):
        self.net.eval()
        x, y = batch
        loss = torch.nn.functional.cross_entropy(self.net(x), y)
        self.log("val_loss", loss)


torch.manual_seed(0)
lit = LitClassifier()
for epoch in range(2):
    lit.validation_step((torch.randn(5, 4), torch.tensor([0, 1, 2, 0, 1])), 0)
    print(lit.logged)

# %% round 12: a Hugging Face-style trainer subclass evaluates and keeps only item() floats [safe]
import torch


class Trainer:
    def __init__(self, model):
        self.model = model
        self.history = []


class DistillTrainer(Trainer):
    def evaluate(self, inputs, labels):
        self.model.eval()
        logits = self.model(inputs)
        acc = (logits.argmax(-1) == labels).float().mean().item()
        print("eval_accuracy", acc)


torch.manual_seed(0)
trainer = DistillTrainer(torch.nn.Linear(6, 4))
for epoch in range(2):
    trainer.evaluate(torch.randn(8, 6), torch.arange(8) % 4)

# %% round 12: an ignite-style handler writes the validation loss tensor into the engine's metrics [unsafe]
import torch
from types import SimpleNamespace

model = torch.nn.Linear(3, 1)
x_val = torch.linspace(-1, 1, 12).reshape(4, 3)


def run_validation(engine):
    model.eval()
    engine.state.metrics["val_loss"] = model(x_val).pow(2).mean()


engine = SimpleNamespace(state=SimpleNamespace(metrics={}))
for epoch in range(2):
    run_validation(engine)
    print(engine.state.metrics["val_loss"])

# %% round 12: a property computes the validation accuracy of the wrapped model [safe]
import torch


class Run:
    def __init__(self):
        torch.manual_seed(0)
        self.model = torch.nn.Linear(5, 2)
        self.x = torch.randn(10, 5)
        self.y = torch.arange(10) % 2

    @property
    def accuracy(self):
        self.model.eval()
        print("acc", (self.model(self.x).argmax(1) == self.y).sum().item())


run = Run()
for epoch in range(2):
    run.accuracy

# %% round 12: a scripted model evaluated in a helper, the loss printed as a float [safe]
import torch

net = torch.jit.script(torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1)))


def evaluate(model, x, y):
    model.eval()
    print(round(torch.nn.functional.mse_loss(model(x), y).item(), 6))


torch.manual_seed(0)
for epoch in range(3):
    evaluate(net, torch.randn(6, 4), torch.zeros(6, 1))

# %% round 12: a traced module made inside the evaluation is kept in a module-level cache [none]
import torch

_TRACED = {}


def evaluate(model, x):
    model.eval()
    if "m" not in _TRACED:
        _TRACED["m"] = torch.jit.trace(model, x)
    print(_TRACED["m"](x).sum().item())


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
for epoch in range(2):
    evaluate(model, torch.ones(2, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loss = _TRACED["m"](torch.ones(2, 3)).sum()
loss.backward()
show(model.weight.grad)

# %% round 12: validation under bfloat16 autocast with a GradScaler-free CPU loop prints the loss [safe]
import torch


def validate(model, x):
    model.eval()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = model(x)
    print(out.float().sum().item())


torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.Linear(16, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    model.train()
    loss = model(torch.randn(4, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    validate(model, torch.randn(4, 8))

# %% round 12: the evaluation hands each output to a replay buffer object's push method [none]
import torch


class ReplayBuffer:
    def __init__(self):
        self.items = []

    def push(self, value):
        self.items.append(value)


def evaluate(model, states, buffer):
    model.eval()
    for s in states:
        buffer.push(model(s))


torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
buf = ReplayBuffer()
for epoch in range(2):
    evaluate(model, [torch.ones(1, 2)], buf)
torch.cat(buf.items).sum().backward()
show(model.weight.grad)

# %% round 12: an async evaluation coroutine awaited from the training loop [none]
import asyncio
import torch


async def evaluate(model, x):
    model.eval()
    print(model(x))


torch.manual_seed(0)
model = torch.nn.Linear(2, 2)
for epoch in range(2):
    asyncio.run(evaluate(model, torch.ones(1, 2)))

# %% round 12: an evaluation decorated by a timing context-manager decorator of the file [safe]
import contextlib
import torch


@contextlib.contextmanager
def phase(name):
    print("start", name)
    yield
    print("end", name)


@phase("eval")
def evaluate(model, x):
    model.eval()
    print(model(x).argmax(1).tolist())


torch.manual_seed(0)
model = torch.nn.Linear(4, 3)
for epoch in range(2):
    evaluate(model, torch.randn(5, 4))

# %% round 12: an evaluation reads the output's requires_grad through getattr to pick a log line [unsafe]
import torch


def evaluate(model, x):
    model.eval()
    out = model(x)
    print("tracked" if getattr(out, "requires_grad") else "frozen", out.sum().item())


torch.manual_seed(0)
model = torch.nn.Linear(2, 2)
for epoch in range(2):
    evaluate(model, torch.ones(1, 2))

# %% round 12: an evaluation stores the output on a caller's slotted record through a helper [unsafe]
import torch


class Record:
    __slots__ = ("logits",)


def keep(record, value):
    record.logits = value


def evaluate(model, x, record):
    model.eval()
    keep(record, model(x))


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
rec = Record()
for epoch in range(2):
    evaluate(model, torch.ones(1, 3), rec)
print(rec.logits)

# %% round 12: an evaluation loop whose for-target is an attribute of the caller's record [none]
import torch
from types import SimpleNamespace


def evaluate(model, batches, record):
    model.eval()
    for record.last in map(model, batches):
        pass


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
rec = SimpleNamespace(last=None)
for epoch in range(2):
    evaluate(model, [torch.ones(1, 3), torch.zeros(1, 3)], rec)
    print(rec.last)

# %% round 12: an evaluation writes each output into a row of a caller's table through a loop alias [unsafe]
import torch


def evaluate(model, xs, table):
    model.eval()
    for row, x in zip(table, xs):
        row[:] = model(x)


torch.manual_seed(0)
model = torch.nn.Linear(2, 2)
table = [torch.zeros(2), torch.zeros(2)]
for epoch in range(2):
    evaluate(model, [torch.ones(2), torch.zeros(2)], table)
    print(table)

# %% round 12: an evaluation binds its output with a context manager's as-target on self [unsafe]
import contextlib
import torch


class Evaluator:
    def __init__(self, model):
        self.model = model

    def run(self, x):
        self.model.eval()
        with contextlib.nullcontext(self.model(x)) as self.last:
            pass


torch.manual_seed(0)
ev = Evaluator(torch.nn.Linear(2, 1))
for epoch in range(2):
    ev.run(torch.ones(1, 2))
    print(ev.last)

# %% round 12: an evaluation assigns the output to a local alias of the caller's list, then by index [unsafe]
import torch


def evaluate(model, x, outputs):
    model.eval()
    slots = outputs
    slots[0] = model(x)


torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
outputs = [None]
for epoch in range(2):
    evaluate(model, torch.ones(1, 2), outputs)
    print(outputs[0])

# %% round 13: an evaluation turns the grad mode off with set_grad_enabled and leaves it off for the caller's feature bank [none]
import torch


def evaluate(model, x, y):
    model.eval()
    torch.set_grad_enabled(False)
    acc = (model(x).argmax(1) == y).float().mean().item()
    model.train()
    return acc


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
x, y = torch.randn(4, 3), torch.tensor([0, 1, 0, 1])
for epoch in range(2):
    acc = evaluate(model, x, y)
    bank = model(x)
    show(acc, bank)
    torch.set_grad_enabled(True)

# %% round 13: an evaluation enters inference mode by hand and exits it at the end [unsafe, same]
import torch


def evaluate(model, x):
    model.eval()
    ctx = torch.inference_mode()
    ctx.__enter__()
    n = int(model(x).argmax(1).sum())
    ctx.__exit__(None, None, None)
    return n


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
for epoch in range(2):
    show(evaluate(model, torch.randn(5, 3)))

# %% round 13: an evaluation already decorated with enable_grad prints only item() values [unsafe, same]
import torch


@torch.enable_grad()
def evaluate(model, x):
    model.eval()
    loss = model(x).pow(2).mean()
    print(f"val {loss.item():.6f}")


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
for epoch in range(2):
    evaluate(model, torch.randn(4, 3))

# %% round 13: an evaluation prints a derived value in an f-string with a conversion and a format spec [unsafe]
import torch


def evaluate(model, x):
    model.eval()
    out = model(x)
    print(f"{out.sum()!r:>60}")


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
for epoch in range(2):
    evaluate(model, torch.randn(4, 3))

# %% round 13: an evaluation writes an output's text with sys.stdout.write [unsafe]
import sys
import torch


def evaluate(model, x):
    model.eval()
    out = model(x)
    sys.stdout.write(str(out.max()) + "\n")


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
for epoch in range(2):
    evaluate(model, torch.randn(4, 3))

# %% round 13: an evaluation keeps the output through operator.setitem on the caller's dict [unsafe]
import operator
import torch


def evaluate(model, x, store):
    model.eval()
    operator.setitem(store, "last", model(x))


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
store = {}
for epoch in range(2):
    evaluate(model, torch.randn(4, 3), store)
    show(store["last"])

# %% round 13: an evaluation keeps the output through the caller's dict __setitem__ [unsafe]
import torch


def evaluate(model, x, store):
    model.eval()
    store.__setitem__("last", model(x))


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
store = {}
for epoch in range(2):
    evaluate(model, torch.randn(4, 3), store)
    show(store["last"])

# %% round 13: an evaluation stores the output in a slice of the caller's list [unsafe]
import torch


def evaluate(model, x, history):
    model.eval()
    history[len(history):] = [model(x)]


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
history = []
for epoch in range(2):
    evaluate(model, torch.randn(4, 3), history)
show(history)

# %% round 13: an evaluation keeps the output through dict.update with a keyword on the caller's dict [unsafe]
import torch


def evaluate(model, x, store):
    model.eval()
    store.update(last=model(x))


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
store = {}
for epoch in range(2):
    evaluate(model, torch.randn(4, 3), store)
    show(store["last"])

# %% round 13: an evaluation writes into a bank row with index_copy_ of the caller's tensor [unsafe]
import torch


def evaluate(model, x, bank, rows):
    model.eval()
    bank.index_copy_(0, rows, model(x))


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
bank = torch.zeros(6, 2)
for epoch in range(2):
    evaluate(model, torch.randn(2, 3), bank, torch.tensor([epoch, epoch + 2]))
show(bank)

# %% round 13: an evaluation hands its output to torch.utils.checkpoint with a callback that stores it [unsafe]
import torch
import torch.utils.checkpoint

seen = []


def keep(t):
    seen.append(t)
    return t * 2


def evaluate(model, x):
    model.eval()
    out = model(x)
    torch.utils.checkpoint.checkpoint(keep, out, use_reentrant=False)


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
for epoch in range(2):
    evaluate(model, torch.randn(4, 3))
show(seen)

# %% round 13: an evaluation maps a caller's metric over outputs with torch.vmap [unsafe]
import torch


def evaluate(model, xs, metric):
    model.eval()
    scores = torch.vmap(metric)(model(xs))
    print(scores.sum().item())


def record(row):
    return row.pow(2).sum()


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
for epoch in range(2):
    evaluate(model, torch.randn(4, 3), record)

# %% round 13: an evaluation nested in the training function assigns the best output through nonlocal [unsafe]
import torch


def train(model, x):
    best = None

    def evaluate():
        nonlocal best
        model.eval()
        best = model(x)

    for epoch in range(2):
        evaluate()
        model.train()
    show(best)


torch.manual_seed(0)
train(torch.nn.Linear(3, 2), torch.randn(4, 3))

# %% round 13: an evaluation under a staticmethod of a trainer class, counting correct predictions [safe]
import torch


class Trainer:
    @staticmethod
    def evaluate(model, x, y):
        model.eval()
        correct = (model(x).argmax(1) == y).sum().item()
        print("correct", correct)


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
for epoch in range(2):
    Trainer.evaluate(model, torch.randn(6, 3), torch.tensor([0, 1, 0, 1, 1, 0]))

# %% round 13: an evaluation with a walrus in a comprehension keeps the last output in the enclosing scope and returns its norm [unsafe, same]
import torch


def evaluate(model, xs):
    model.eval()
    norms = [float((out := model(x)).norm()) for x in xs]
    return sum(norms), out.shape


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
for epoch in range(2):
    show(evaluate(model, [torch.randn(2, 3), torch.randn(1, 3)]))

# %% round 13: an evaluation matches on the output's dimensionality and prints the tensor in one case [unsafe]
import torch


def evaluate(model, x):
    model.eval()
    out = model(x)
    match out.dim():
        case 2:
            print(out[0])
        case _:
            print("scalar")


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
for epoch in range(2):
    evaluate(model, torch.randn(4, 3))

# %% round 13: an evaluation with a line continuation and a comment inside the model call prints a float [unsafe, same]
import torch


def evaluate(model, x, y):
    model.eval()
    loss = torch.nn.functional.mse_loss(model(  # the forward pass
        x), y) \
        * 2.0
    print("val loss %.6f" % loss.item())


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
for epoch in range(2):
    evaluate(model, torch.randn(4, 3), torch.zeros(4, 2))

# %% round 13: an evaluation reads the output's grad_fn through hasattr on its name [unsafe]
import torch


def evaluate(model, x):
    model.eval()
    out = model(x).sum()
    print("graph" if out.grad_fn is not None else "no graph", round(out.item(), 4))


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
for epoch in range(2):
    evaluate(model, torch.randn(4, 3))

# %% round 13: an evaluation pickles the output and prints whether the copy requires grad [unsafe]
import io
import torch


def evaluate(model, x):
    model.eval()
    buf = io.BytesIO()
    torch.save(model(x), buf)
    buf.seek(0)
    print(torch.load(buf).requires_grad)


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
for epoch in range(2):
    evaluate(model, torch.randn(4, 3))

# %% round 13: an evaluation prints the grad mode it sees through torch._C [unsafe]
import torch


def evaluate(model, x):
    model.eval()
    n = int(model(x).argmax(1).sum())
    print(n, torch._C.is_grad_enabled())


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
for epoch in range(2):
    evaluate(model, torch.randn(4, 3))

# %% round 14: an evaluation prints the length of the output's repr [unsafe]
import torch


def evaluate(model, x):
    model.eval()
    out = model(x)
    print(len(repr(out)))


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
for epoch in range(2):
    evaluate(model, torch.ones(1, 3))

# %% round 14: an evaluation tests the output's text with torch.Tensor.__repr__ [unsafe]
import torch


def evaluate(model, x):
    model.eval()
    out = model(x)
    text = torch.Tensor.__repr__(out)
    print("grad_fn" in text)


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
for epoch in range(2):
    evaluate(model, torch.ones(1, 3))

# %% round 14: an evaluation formats the output with str.format and prints its length [unsafe]
import torch


def evaluate(model, x):
    model.eval()
    out = model(x)
    line = "logits: {}".format(out)
    print(len(line))


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
for epoch in range(2):
    evaluate(model, torch.ones(1, 3))

# %% round 14: an evaluation formats the output with the % operator and tests the text [unsafe]
import torch


def evaluate(model, x):
    model.eval()
    out = model(x)
    msg = "%r" % (out,)
    print(msg.endswith(")") and "Backward" in msg)


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
for epoch in range(2):
    evaluate(model, torch.ones(1, 3))

# %% round 14: an evaluation raises an exception carrying the output as an attribute, the caller trains on it [none]
import torch


class Found(Exception):
    pass


def search(model, xs):
    model.eval()
    for x in xs:
        out = model(x)
        if out.sum() > -100:
            err = Found("found")
            err.value = out
            raise err


torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
for epoch in range(2):
    try:
        search(model, [torch.ones(2, 3)])
    except Found as e:
        e.value.sum().backward()
show(model.weight.grad)

# %% round 14: an evaluation keeps the output through globals() by name [none]
import torch


def evaluate(model, x):
    model.eval()
    out = model(x)
    globals()["last_logits"] = out


torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
for epoch in range(2):
    evaluate(model, torch.ones(2, 3))
last_logits.sum().backward()
show(model.weight.grad)

# %% round 14: an evaluation computes a saliency with torch.autograd.backward [none]
import torch


def saliency(model, x):
    model.eval()
    x = x.clone().requires_grad_()
    torch.autograd.backward(model(x).sum())
    print(x.grad.abs().sum().item())


torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
for epoch in range(2):
    saliency(model, torch.ones(2, 3))

# %% round 14: an evaluation calls backward through getattr with a literal name [none]
import torch


def probe(model, x):
    model.eval()
    loss = model(x).sum()
    getattr(loss, "backward")()


torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
for epoch in range(2):
    probe(model, torch.ones(2, 3))
show(model.weight.grad)

# %% round 14: an evaluation calls torch.Tensor.backward on its loss [none]
import torch


def probe(model, x):
    model.eval()
    loss = model(x).pow(2).mean()
    torch.Tensor.backward(loss)


torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
for epoch in range(2):
    probe(model, torch.ones(2, 3))
show(model.weight.grad)

# %% round 14: an evaluation reads the parameters' gradients through getattr with a literal name [none]
import torch


def report(model, x):
    model.eval()
    model(x)
    for p in model.parameters():
        g = getattr(p, "grad")
        print(None if g is None else g.sum().item())


torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
model(torch.ones(2, 3)).sum().backward()
for epoch in range(2):
    report(model, torch.ones(2, 3))

# %% round 14: an nn.Transformer in eval mode with a padding mask, logits printed [unsafe]
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16, batch_first=True)
src = torch.randn(2, 4, 8)
tgt = torch.randn(2, 3, 8)
pad = torch.tensor([[False, False, True, True], [False, False, False, False]])


def evaluate(model):
    model.eval()
    out = model(src, tgt, src_key_padding_mask=pad, memory_key_padding_mask=pad)
    print(round(out.sum().item(), 4))


for epoch in range(2):
    evaluate(model)

# %% round 14: an encoder stack built from a layer class imported under another name [none]
import torch
from torch import nn
from torch.nn import TransformerEncoderLayer as Block

torch.manual_seed(0)
layers = nn.ModuleList([Block(8, 2, 16, dropout=0.0, batch_first=True) for _ in range(2)])
x = torch.randn(2, 5, 8)
pad = torch.tensor([[False] * 3 + [True] * 2, [False] * 5])


def evaluate(layers, x):
    layers.eval()
    for layer in layers:
        x = layer(x, src_key_padding_mask=pad)
    print(x[0, 3].tolist())


for epoch in range(2):
    evaluate(layers, x)

# %% round 14: an evaluation stores outputs in a default list argument the caller reads [none]
import torch


def evaluate(model, x, history=[]):
    model.eval()
    history.append(model(x))
    return None


torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
for epoch in range(2):
    evaluate(model, torch.ones(2, 3))
torch.stack(evaluate.__defaults__[0]).sum().backward()
show(model.weight.grad)

# %% round 14: an evaluation adds a register_buffer of its output to the model [none]
import torch


def evaluate(model, x):
    model.eval()
    model.register_buffer("last", model(x), persistent=False)


torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
for epoch in range(2):
    evaluate(model, torch.ones(2, 3))
model.last.sum().backward()
show(model.weight.grad)

# %% round 14: control, a decorated evaluation inside a match statement prints item() values [safe]
import functools
import torch


def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        print("eval")
        return fn(*args)
    return wrapper


@logged
def evaluate(model, x):
    model.eval()
    match x.dim():
        case 2:
            print(model(x).sum().item())
        case _:
            print(model(x.flatten(1)).sum().item())


torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
for epoch in range(2):
    evaluate(model, torch.ones(2, 3))
    evaluate(model, torch.ones(2, 3, 1))

# %% round 14: an evaluation passes its output to a lambda stored in a module-level dict [none]
import torch

HOOKS = {"end": lambda out: out.sum().backward()}


def evaluate(model, x):
    model.eval()
    out = model(x)
    HOOKS["end"](out)


torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
for epoch in range(2):
    evaluate(model, torch.ones(2, 3))
show(model.weight.grad)

# %% round 14: an evaluation writes each output into the caller's dict through setdefault [none]
import torch


def evaluate(model, xs, store):
    model.eval()
    for i, x in enumerate(xs):
        store.setdefault("outs", []).append(model(x))


torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
store = {}
for epoch in range(2):
    evaluate(model, [torch.ones(2, 3)], store)
torch.cat(store["outs"]).sum().backward()
show(model.weight.grad)

# %% round 14: an evaluation tests the text of the output's own __repr__ method [unsafe]
import torch


def evaluate(model, x):
    model.eval()
    out = model(x)
    print("grad_fn" in out.__repr__())


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
for epoch in range(2):
    evaluate(model, torch.ones(1, 3))

# %% round 14: an evaluation formats the output through its __format__ method and prints the width [unsafe]
import torch


def evaluate(model, x):
    model.eval()
    out = model(x)
    print(len(out.__format__("")))


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
for epoch in range(2):
    evaluate(model, torch.ones(1, 3))

# %% round 14: an evaluation measures torch.Tensor.__str__ of the output in a log-width check [unsafe]
import torch


def evaluate(model, x):
    model.eval()
    width = len(torch.Tensor.__str__(model(x)))
    print(width)


torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
for epoch in range(2):
    evaluate(model, torch.ones(1, 3))

# %% round 14: an evaluation hands its output to a nested function that stores it through nonlocal in the caller's closure [none]
import torch


def run():
    kept = None

    def evaluate(model, x):
        model.eval()
        out = model(x)

        def keep(v):
            nonlocal kept
            kept = v
        keep(out)

    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1)
    for epoch in range(2):
        evaluate(model, torch.ones(2, 3))
    kept.sum().backward()
    show(model.weight.grad)


run()

# %% round 14: an evaluation writes its output into an attribute of a module-level SimpleNamespace [none]
import types
import torch

state = types.SimpleNamespace(last=None)


def evaluate(model, x):
    model.eval()
    state.last = model(x)


torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
for epoch in range(2):
    evaluate(model, torch.ones(2, 3))
state.last.sum().backward()
show(model.weight.grad)

# %% round 14: an evaluation yields nothing but sends its output into a coroutine the caller made [none]
import torch


def collector(store):
    while True:
        store.append((yield))


def evaluate(model, x, sink):
    model.eval()
    sink.send(model(x))


torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
store = []
sink = collector(store)
next(sink)
for epoch in range(2):
    evaluate(model, torch.ones(2, 3), sink)
torch.cat(store).sum().backward()
show(model.weight.grad)

# %% round 14: an evaluation of an LSTM encoder under a different import name prints rounded logits [unsafe]
import torch
from torch.nn import LSTM as Recurrent

torch.manual_seed(0)
rnn = Recurrent(4, 8, batch_first=True)
x = torch.randn(2, 5, 4)


def evaluate(rnn, x):
    rnn.eval()
    out, _ = rnn(x)
    print(out.sum().item())


for epoch in range(2):
    evaluate(rnn, x)

# %% round 14: an evaluation hands the output to a class method of the file that appends it to a class attribute [none]
import torch


class Bank:
    items = []

    @classmethod
    def add(cls, v):
        cls.items.append(v)


def evaluate(model, x):
    model.eval()
    Bank.add(model(x))


torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
for epoch in range(2):
    evaluate(model, torch.ones(2, 3))
torch.cat(Bank.items).sum().backward()
show(model.weight.grad)

# %% round 14: control, an evaluation with a comprehension and a lambda key prints the best index [unsafe]
import torch


def evaluate(model, xs):
    model.eval()
    scores = [model(x).sum().item() for x in xs]
    best = max(range(len(scores)), key=lambda i: scores[i])
    print(best, round(scores[best], 4))


torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
for epoch in range(2):
    evaluate(model, [torch.ones(2, 3), torch.zeros(2, 3)])

# %% round 14: an evaluation sets a tensor attribute of the output object that the caller trains through [none]
import torch


class Report:
    pass


def evaluate(model, x, report):
    model.eval()
    vars(report)["logits"] = model(x)


torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
report = Report()
for epoch in range(2):
    evaluate(model, torch.ones(2, 3), report)
report.logits.sum().backward()
show(model.weight.grad)

# %% round 14: an evaluation prints a list of outputs by star-unpacking a comprehension [unsafe]
import torch


def evaluate(model, xs):
    model.eval()
    print(*[model(x) for x in xs])


torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
for epoch in range(2):
    evaluate(model, [torch.ones(1, 3)])

# %% round 14: an evaluation hands the output to np.asarray, the caller catches the error [unsafe]
import numpy as np
import torch


def evaluate(model, x):
    model.eval()
    try:
        print(np.asarray(model(x)).shape)
    except RuntimeError:
        print("needs detach")


torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
for epoch in range(2):
    evaluate(model, torch.ones(2, 3))

# %% round 14: an evaluation makes the output a leaf that requires grad, then reads is_leaf in the caller [unsafe]
import torch


def evaluate(model, x, bank):
    model.eval()
    out = model(x)
    bank.append(out)


torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
bank = []
for epoch in range(2):
    evaluate(model, torch.ones(2, 3), bank)
print([o.is_leaf for o in bank])

# %% round 15: an evaluation registered by a decorator that reads its argument spec [none]
import inspect

import torch

REGISTRY = {}


def command(fn):
    REGISTRY[fn.__name__] = inspect.getfullargspec(fn).args
    return fn


model = torch.nn.Linear(2, 1)


@command
def evaluate(x, verbose):
    model.eval()
    out = model(x)
    if verbose:
        print(round(out.sum().item(), 4))


for epoch in range(2):
    evaluate(torch.ones(1, 2), True)
print(REGISTRY)

# %% round 15: control, an evaluation registered by a decorator that reads its signature [safe]
import inspect

import torch

REGISTRY = {}


def command(fn):
    REGISTRY[fn.__name__] = list(inspect.signature(fn).parameters)
    return fn


model = torch.nn.Linear(2, 1)


@command
def evaluate(x, verbose):
    model.eval()
    out = model(x)
    if verbose:
        print(round(out.sum().item(), 4))


for epoch in range(2):
    evaluate(torch.ones(1, 2), True)
print(REGISTRY)

# %% round 15: an evaluation stores a lambda closing over its output, the caller trains through it [none]
import torch

model = torch.nn.Linear(2, 1)
LATER = []


def evaluate(x):
    model.eval()
    out = model(x)
    LATER.append(lambda: out.sum())


for epoch in range(2):
    evaluate(torch.ones(1, 2))
    LATER[-1]().backward()
show(model.weight.grad)

# %% round 15: an evaluation copies its locals into a module dict, the caller trains on them [none]
import torch

model = torch.nn.Linear(2, 1)
LAST = {}


def evaluate(x):
    model.eval()
    out = model(x)
    LAST.update(locals())


for epoch in range(2):
    evaluate(torch.ones(1, 2))
    LAST["out"].sum().backward()
show(model.weight.grad)

# %% round 15: a context-manager evaluation yields its output, the caller trains on it [none]
import contextlib

import torch

model = torch.nn.Linear(2, 1)


@contextlib.contextmanager
def evaluating(x):
    model.eval()
    out = model(x)
    yield out


for epoch in range(2):
    with evaluating(torch.ones(1, 2)) as out:
        out.sum().backward()
show(model.weight.grad)

# %% round 15: an evaluation prints its output with a self-documenting f-string [unsafe]
import torch

model = torch.nn.Linear(2, 1)


def evaluate(x):
    model.eval()
    out = model(x)
    print(f"{out=}"[:40])


for epoch in range(2):
    evaluate(torch.ones(1, 2))

# %% round 15: an evaluation formats its output with the format builtin [unsafe]
import torch

model = torch.nn.Linear(2, 1)


def evaluate(x):
    model.eval()
    out = model(x)
    print(len(format(out)))


for epoch in range(2):
    evaluate(torch.ones(1, 2))

# %% round 15: an evaluation measures the ascii text of its output [unsafe]
import torch

model = torch.nn.Linear(2, 1)


def evaluate(x):
    model.eval()
    out = model(x)
    print(len(ascii(out)))


for epoch in range(2):
    evaluate(torch.ones(1, 2))

# %% round 15: an evaluation runs test-time adaptation through a method of a class of the file [none]
import torch

model = torch.nn.Linear(2, 1)


class Adapter:
    def __init__(self, model):
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def adapt(self, loss):
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()


adapter = Adapter(model)


def evaluate(x):
    model.eval()
    out = model(x)
    adapter.adapt(out.pow(2).sum())


for epoch in range(2):
    evaluate(torch.ones(1, 2))
show(model.weight)

# %% round 15: an evaluation calls an object of the file whose __call__ trains on the loss [none]
import torch

model = torch.nn.Linear(2, 1)


class Step:
    def __init__(self):
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def __call__(self, loss):
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()


step = Step()


def evaluate(x):
    model.eval()
    step(model(x).pow(2).sum())


for epoch in range(2):
    evaluate(torch.ones(1, 2))
show(model.weight)

# %% round 15: an evaluation whose defaults are read by a decorator of the file [none]
import torch

DEFAULTS = {}


def remember(fn):
    DEFAULTS[fn.__name__] = fn.__defaults__
    return fn


model = torch.nn.Linear(2, 1)


@remember
def evaluate(x, scale=2.0):
    model.eval()
    print(round(model(x).sum().item() * scale, 4))


for epoch in range(2):
    evaluate(torch.ones(1, 2))
print(DEFAULTS)

# %% round 15: an evaluation with a nested function that stores the output through a default argument [none]
import torch

model = torch.nn.Linear(2, 1)
KEEP = {}


def evaluate(x):
    model.eval()
    out = model(x)

    def later(o=out):
        return o

    KEEP["later"] = later


for epoch in range(2):
    evaluate(torch.ones(1, 2))
    KEEP["later"]().sum().backward()
show(model.weight.grad)

# %% round 15: control, an evaluation in a walrus loop prints rounded item values [unsafe]
import torch

model = torch.nn.Linear(2, 1)


def evaluate(batches):
    model.eval()
    total = 0.0
    it = iter(batches)
    while (x := next(it, None)) is not None:
        total += model(x).sum().item()
    print(round(total, 4))


for epoch in range(2):
    evaluate([torch.ones(1, 2), torch.zeros(1, 2)])

# %% round 15: an evaluation of a GRU encoder prints rounded logits [safe]
import torch

torch.manual_seed(0)
gru = torch.nn.GRU(2, 3, batch_first=True)


def evaluate(x):
    gru.eval()
    out, h = gru(x)
    print(round(h.sum().item(), 4))


for epoch in range(2):
    evaluate(torch.ones(1, 4, 2))

# %% round 15: an evaluation of a MultiheadAttention subclass of the file prints logits [unsafe]
import torch
import torch.nn as nn

torch.manual_seed(0)


class Attn(nn.MultiheadAttention):
    pass


attn = Attn(4, 2, batch_first=True)
x = torch.randn(2, 3, 4)
pad = torch.tensor([[False, False, True], [False, False, False]])


def evaluate():
    attn.eval()
    out, _ = attn(x, x, x, key_padding_mask=pad, need_weights=False)
    print(round(out.sum().item(), 4))


for epoch in range(2):
    evaluate()

# %% round 15: an evaluation builds a tensor from its output with torch.utils.dlpack, in try [safe]
import torch
import torch.utils.dlpack

model = torch.nn.Linear(2, 1)


def evaluate(x):
    model.eval()
    out = model(x)
    try:
        torch.utils.dlpack.to_dlpack(out)
        print("exported")
    except RuntimeError:
        print("needs detach")


for epoch in range(2):
    evaluate(torch.ones(1, 2))

# %% round 15: an evaluation hands its output to str.join through a generator of reprs [unsafe]
import torch

model = torch.nn.Linear(2, 2)


def evaluate(x):
    model.eval()
    out = model(x)
    print(len(", ".join(repr(o) for o in out)))


for epoch in range(2):
    evaluate(torch.ones(1, 2))

# %% round 15: an evaluation tests the output's output_nr and _version in a debug print [unsafe]
import torch

model = torch.nn.Linear(2, 2)


def evaluate(x):
    model.eval()
    out = model(x)
    print(out.is_leaf if hasattr(out, "is_leaf") else None)


for epoch in range(2):
    evaluate(torch.ones(1, 2))

# %% round 15: an evaluation sends outputs to a callback list entry appended by the caller [none]
import torch

model = torch.nn.Linear(2, 1)
HOOKS = []


def evaluate(x):
    model.eval()
    out = model(x)
    for hook in HOOKS:
        hook(out)


HOOKS.append(lambda o: o.sum().backward())
for epoch in range(2):
    evaluate(torch.ones(1, 2))
show(model.weight.grad)

# %% round 15: an evaluation stores its output through a dataclass field set in a comprehension [none]
from dataclasses import dataclass, field

import torch

model = torch.nn.Linear(2, 1)


@dataclass
class Report:
    outs: list = field(default_factory=list)


report = Report()


def evaluate(xs):
    model.eval()
    [report.outs.append(model(x)) for x in xs]


for epoch in range(2):
    evaluate([torch.ones(1, 2)])
report.outs[-1].sum().backward()
show(model.weight.grad)

# %% round 15: an evaluation tab-indented with a continuation prints item values [safe]
import torch

model = torch.nn.Linear(2, 1)


def evaluate(x):
	model.eval()
	out = model(x) \
		* 2
	print(round(out.sum().item(), 4))


for epoch in range(2):
	evaluate(torch.ones(1, 2))

# %% round 15: an evaluation generator yields outputs that the caller trains on [none]
import torch

model = torch.nn.Linear(2, 1)


def evaluate(xs):
    model.eval()
    for x in xs:
        yield model(x)


for epoch in range(2):
    for out in evaluate([torch.ones(1, 2)]):
        out.sum().backward()
show(model.weight.grad)

# %% round 15: an evaluation calls autograd.grad through getattr on torch.autograd [none]
import torch

model = torch.nn.Linear(2, 1)


def evaluate(x):
    model.eval()
    x = x.clone().requires_grad_()
    out = model(x)
    (g,) = getattr(torch.autograd, "grad")(out.sum(), x)
    print(g.tolist())


for epoch in range(2):
    evaluate(torch.ones(1, 2))

# %% round 15: an evaluation calls backward through operator.methodcaller [none]
import operator

import torch

model = torch.nn.Linear(2, 1)


def evaluate(x):
    model.eval()
    loss = model(x).sum()
    operator.methodcaller("backward")(loss)


for epoch in range(2):
    evaluate(torch.ones(1, 2))
show(model.weight.grad)

# %% round 15: an evaluation with a nested function that prints the output, called inside [unsafe]
import torch

model = torch.nn.Linear(2, 1)


def evaluate(x):
    model.eval()
    out = model(x)

    def log():
        print(len(str(out)))

    log()


for epoch in range(2):
    evaluate(torch.ones(1, 2))

# %% round 15: an evaluation reads grad_fn through getattr with a literal name [unsafe]
import torch

model = torch.nn.Linear(2, 1)


def evaluate(x):
    model.eval()
    out = model(x)
    print(getattr(out, "grad_fn") is None)


for epoch in range(2):
    evaluate(torch.ones(1, 2))

# %% round 15: an evaluation puts its output on a queue the caller trains from [none]
import queue

import torch

model = torch.nn.Linear(2, 1)
results = queue.Queue()


def evaluate(x):
    model.eval()
    results.put(model(x))


for epoch in range(2):
    evaluate(torch.ones(1, 2))
    results.get().sum().backward()
show(model.weight.grad)

# %% round 15: an evaluation that runs BatchNorm in train mode and back, printing item values [safe]
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.BatchNorm1d(2))


def evaluate(x):
    model.train()
    model(x)
    model.eval()
    print(round(model(x).sum().item(), 4))


for epoch in range(2):
    evaluate(torch.randn(4, 2))

# %% round 15: an evaluation stores the output on the exception it raises through raise from [none]
import torch

model = torch.nn.Linear(2, 1)


class Stop(Exception):
    pass


def evaluate(x):
    model.eval()
    out = model(x)
    try:
        raise ValueError("bad")
    except ValueError as err:
        raise Stop(out) from err


for epoch in range(2):
    try:
        evaluate(torch.ones(1, 2))
    except Stop as stop:
        stop.args[0].sum().backward()
show(model.weight.grad)

# %% round 16: an evaluation writes its probabilities into rows of a preallocated tensor [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
probs = torch.zeros(4, 2)


def evaluate(x):
    model.eval()
    for i in range(len(x)):
        probs[i] = model(x[i]).softmax(-1)


for epoch in range(2):
    evaluate(torch.randn(4, 3))
show(probs)

# %% round 16: an evaluation stores its output into an entry of sys.modules' module dict [unsafe, same]
import sys

import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)


def evaluate(x):
    model.eval()
    out = model(x)
    sys.modules[__name__].__dict__["last_out"] = out
    print(round(out.sum().item(), 4))


last_out = None
for epoch in range(2):
    evaluate(torch.randn(2, 3))
show(last_out)

# %% round 16: an evaluation writes its output into a caller's tensor with torch.index_put_ [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
scores = torch.zeros(4, 1)


def evaluate(x, idx):
    model.eval()
    out = model(x)
    torch.index_put_(scores, (idx,), out)


for epoch in range(2):
    evaluate(torch.randn(2, 3), torch.tensor([epoch, epoch + 2]))
show(scores)

# %% round 16: an evaluation fills a caller's tensor through torch.add with out= [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
model.requires_grad_(False)
bias = torch.zeros(2, requires_grad=True)
acc = torch.zeros(2)


def evaluate(x):
    model.eval()
    out = model(x).mean(0)
    try:
        torch.add(out, bias, out=acc)
    except RuntimeError:
        print("out= refused")


for epoch in range(2):
    evaluate(torch.randn(4, 3))
show(acc)

# %% round 16: an evaluation extends a caller's list with map over its outputs [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)


def evaluate(x, sink):
    model.eval()
    out = model(x)
    sink.extend(map(torch.sigmoid, out))


kept = []
for epoch in range(2):
    evaluate(torch.randn(2, 3), kept)
show(kept)

# %% round 16: an evaluation swaps its output into a caller's tensor with set_ [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
holder = torch.zeros(2, 1)


def evaluate(x):
    model.eval()
    out = model(x)
    holder.data.set_(out.data)
    holder.set_(out)


for epoch in range(2):
    try:
        evaluate(torch.randn(2, 3))
    except RuntimeError as err:
        print(type(err).__name__)
show(holder)

# %% round 16: an evaluation returns nothing but yields from a generator of outputs [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)


def evaluate(batches):
    model.eval()
    yield from (model(x) for x in batches)


for epoch in range(2):
    outs = list(evaluate([torch.randn(2, 3), torch.randn(2, 3)]))
loss = sum(o.sum() for o in outs)
loss.backward()
show(model.weight.grad)

# %% round 16: an evaluation hands its logits to an operator function stored in a dict [unsafe]
import operator

import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
history = []
OPS = {"keep": history.append}


def evaluate(x):
    model.eval()
    out = model(x)
    OPS["keep"](out)


for epoch in range(2):
    evaluate(torch.randn(2, 3))
show(history)

# %% round 16: an evaluation prints its output through a logging handler's format [unsafe]
import logging
import sys

import torch

logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(message)s", force=True)
log = logging.getLogger("eval")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1)


def evaluate(x):
    model.eval()
    out = model(x)
    log.info("out %s", out)


for epoch in range(2):
    evaluate(torch.randn(1, 3))
logging.getLogger().handlers.clear()

# %% round 16: an evaluation writes its output's repr through sys.stdout.write [unsafe]
import sys

import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)


def evaluate(x):
    model.eval()
    out = model(x)
    sys.stdout.write(f"{out!r}\n")


for epoch in range(2):
    evaluate(torch.randn(1, 3))

# %% round 16: an evaluation adds its output into a caller's tensor with torch.Tensor.index_add_ [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
per_class = torch.zeros(3, 1)


def evaluate(x, y):
    model.eval()
    out = model(x)
    torch.Tensor.index_add_(per_class, 0, y, out)


for epoch in range(2):
    evaluate(torch.randn(4, 3), torch.tensor([0, 1, 2, 1]))
show(per_class)

# %% round 16: an evaluation that writes into a slice of a caller's tensor via copy_ on an item [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
buffers = {"logits": torch.zeros(2, 2)}


def evaluate(x):
    model.eval()
    out = model(x)
    buffers["logits"][0].copy_(out[0])


for epoch in range(2):
    evaluate(torch.randn(2, 3))
show(buffers["logits"])

# %% round 16: control, an evaluation that prints a rounded accuracy [safe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 2)


def evaluate(x, y):
    model.eval()
    pred = model(x).argmax(1)
    print(round((pred == y).float().mean().item(), 4))


for epoch in range(2):
    evaluate(torch.randn(4, 3), torch.tensor([0, 1, 1, 0]))

# %% round 16: an evaluation appends its output to a list held in a default argument of a lambda [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
keep = lambda v, store=[]: store.append(v) or store


def evaluate(x):
    model.eval()
    out = model(x)
    return None if keep(out) is None else None


for epoch in range(2):
    evaluate(torch.randn(1, 3))
show(keep.__defaults__[0])

# %% round 16: an evaluation writes its output into a caller's tensor with an augmented slice store [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
total = torch.zeros(2, 1)


def evaluate(x):
    model.eval()
    out = model(x)
    total[:] += out


for epoch in range(2):
    evaluate(torch.randn(2, 3))
show(total)

# %% round 16: an evaluation that pickles its output into a buffer [unsafe, same]
import io
import pickle

import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
buf = io.BytesIO()


def evaluate(x):
    model.eval()
    out = model(x)
    pickle.dump(out.sum(), buf)


for epoch in range(2):
    try:
        evaluate(torch.randn(1, 3))
    except RuntimeError:
        print("refused")
print(len(buf.getvalue()) > 0)
# %% round 16: an evaluation of a conv encoder whose features are transposed into a Linear head [safe]
import torch
import torch.nn as nn


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(8, 8, 3, padding=1)
        self.head = nn.Linear(8, 8)

    def forward(self, x):
        h = self.conv(x).transpose(1, 2)
        return self.head(h)


torch.manual_seed(0)
model = Tagger()


def evaluate(x):
    model.eval()
    logits = model(x)
    print(logits.sum().item(), logits.abs().max().item())


for epoch in range(2):
    evaluate(torch.randn(4, 8, 5))

# %% round 16: an evaluation of a sequence-first encoder feeding a batch-first Linear [unsafe, same]
import torch
import torch.nn as nn

torch.manual_seed(0)
embed = nn.Embedding(20, 8)
proj = nn.Linear(8, 8, bias=False)


def evaluate(tokens):
    embed.eval()
    proj.eval()
    h = embed(tokens)
    out = proj(h.permute(1, 0, 2))
    print([v for v in out.flatten().tolist()[:6]], out.sum().item())


for epoch in range(2):
    evaluate(torch.randint(0, 20, (5, 4)))


# %% round 16: an evaluation appends its output by exec of a statement naming it [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
history = []


def evaluate(x):
    model.eval()
    out = model(x)
    exec("history.append(out)")


for epoch in range(2):
    evaluate(torch.randn(1, 3))
show(history)

# %% round 16: an evaluation keeps its output as a class attribute of a class it defines [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
snapshots = []


def evaluate(x):
    model.eval()
    out = model(x)

    class Snapshot:
        value = out

    snapshots.append(Snapshot)


for epoch in range(2):
    evaluate(torch.randn(1, 3))
show([s.value for s in snapshots])

# %% round 16: an evaluation keeps its output as the default of a nested function it registers [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
getters = []


def evaluate(x):
    model.eval()
    out = model(x)

    def latest(v=out):
        return v

    getters.append(latest)


for epoch in range(2):
    evaluate(torch.randn(1, 3))
show([g() for g in getters])

# %% round 16: an evaluation reads its output's requires_grad through getattr with a literal [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)


def evaluate(x):
    model.eval()
    out = model(x)
    print(getattr(out, "requires_grad"), round(out.sum().item(), 4))


for epoch in range(2):
    evaluate(torch.randn(1, 3))

# %% round 16: an evaluation keeps its output through the frame's f_locals read by the caller [unsafe]
import sys

import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
frames = []


def evaluate(x):
    model.eval()
    out = model(x)
    frames.append(sys._getframe())
    return None


for epoch in range(2):
    evaluate(torch.randn(1, 3))
show([f.f_locals["out"] for f in frames])

# %% round 16: an evaluation formats its output through str.format of a literal [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)


def evaluate(x):
    model.eval()
    out = model(x)
    line = "out={}".format(out)
    print(line)


for epoch in range(2):
    evaluate(torch.randn(1, 3))

# %% round 16: an evaluation keeps its output through eval of a setdefault call [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
kept = {}


def evaluate(x):
    model.eval()
    out = model(x)
    eval("kept.setdefault('out', out)")


for epoch in range(2):
    evaluate(torch.randn(1, 3))
show(kept["out"])

# %% round 17: an evaluation prints the highest score taken with the builtin max [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)


def evaluate(x):
    model.eval()
    scores = model(x).squeeze(-1)
    best = max(scores)
    print("best", best)


for epoch in range(2):
    evaluate(torch.randn(4, 3))

# %% round 17: an evaluation prints a total made by the builtin sum over its losses [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)


def validate(batches):
    model.eval()
    losses = [model(x).pow(2).mean() for x in batches]
    total = sum(losses)
    print(f"val loss {total}")


data = [torch.randn(3, 2) for _ in range(2)]
for epoch in range(2):
    validate(data)

# %% round 17: an evaluation prints the sorted list of its outputs [unsafe]
import torch

torch.manual_seed(0)
head = torch.nn.Linear(2, 1)


def evaluate(x):
    head.eval()
    ranked = sorted(head(x).flatten())
    print(ranked[:2])


for epoch in range(2):
    evaluate(torch.randn(3, 2))

# %% round 17: an evaluation prints the absolute error taken with the builtin abs [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)


def evaluate(x, y):
    model.eval()
    err = abs(model(x).mean() - y)
    print("abs err:", err)


for epoch in range(2):
    evaluate(torch.randn(4, 2), 0.5)

# %% round 17: an evaluation prints the first output row drawn with next(iter(...)) [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 2)


def evaluate(x):
    model.eval()
    first = next(iter(model(x)))
    print(first)


for epoch in range(2):
    evaluate(torch.randn(3, 2))

# %% round 17: an evaluation prints a per-class dict built from zip of names and outputs [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 2)
NAMES = ["cat", "dog"]


def evaluate(x):
    model.eval()
    per_class = dict(zip(NAMES, model(x).mean(0)))
    print(per_class)


for epoch in range(2):
    evaluate(torch.randn(3, 2))

# %% round 17: an evaluation prints the pairs of labels and scores drawn from zip [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)


def evaluate(x, labels):
    model.eval()
    for label, score in zip(labels, model(x).flatten()):
        print(label, score)


for epoch in range(2):
    evaluate(torch.randn(2, 2), ["a", "b"])

# %% round 17: control, an evaluation prints a loss rounded from item() by the builtin round [safe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)


def evaluate(x):
    model.eval()
    loss = model(x).pow(2).mean()
    print("val", round(loss.item(), 4))


for epoch in range(2):
    evaluate(torch.randn(3, 2))

# %% round 17: an evaluation prints the minimum of a list of its per-batch losses [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)


def evaluate(batches):
    model.eval()
    worst = min([model(x).pow(2).mean() for x in batches])
    print("min", worst)


data = [torch.randn(3, 2) for _ in range(3)]
for epoch in range(2):
    evaluate(data)

# %% round 17: an evaluation prints the list of output rows made by the builtin list [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 2)


def evaluate(x):
    model.eval()
    rows = list(model(x))
    print(len(rows), rows[0])


for epoch in range(2):
    evaluate(torch.randn(2, 2))

# %% round 17: an evaluation prints a max taken over a generator of batch scores [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)


def evaluate(batches):
    model.eval()
    top = max(model(x).mean() for x in batches)
    print(top)


data = [torch.randn(3, 2) for _ in range(2)]
for epoch in range(2):
    evaluate(data)

# %% round 17: control, an evaluation prints a float of the builtin max [safe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)


def evaluate(x):
    model.eval()
    best = float(max(model(x).squeeze(-1)))
    print("best", round(best, 4))


for epoch in range(2):
    evaluate(torch.randn(4, 3))

# %% round 17: an evaluation prints the enumerate pairs of its outputs [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)


def evaluate(x):
    model.eval()
    for i, score in enumerate(model(x).flatten()):
        print(i, score)


for epoch in range(2):
    evaluate(torch.randn(2, 2))

# %% round 17: an evaluation ranks its scores with sorted and a key function that keeps them [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
seen = []


def by_score(t):
    seen.append(t)
    return float(t)


def evaluate(x):
    model.eval()
    ranked = sorted(model(x).flatten(), key=by_score)
    print(len(ranked))


for epoch in range(2):
    evaluate(torch.randn(3, 2))
print(seen[0])

# %% round 17: an evaluation takes the best output with max and a key function that logs it [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
log = []


def keyed(t):
    log.append(t)
    return t.item()


def evaluate(x):
    model.eval()
    best = max(model(x).flatten(), key=keyed)
    print(round(best.item(), 4))


for epoch in range(2):
    evaluate(torch.randn(3, 2))
print(log[-1].requires_grad)

# %% round 17: an evaluation sorts a list of its rows in place with a key that keeps them [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 2)
kept = []


def remember(row):
    kept.append(row)
    return float(row.sum())


def evaluate(x):
    model.eval()
    rows = list(model(x))
    rows.sort(key=remember)
    print(len(rows))


for epoch in range(2):
    evaluate(torch.randn(3, 2))
print(kept[0].grad_fn is None)

# %% round 17: an evaluation filters its scores with a predicate of the file that keeps them [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
positives = []


def positive(t):
    if t > 0:
        positives.append(t)
    return t > 0


def evaluate(x):
    model.eval()
    n = len(list(filter(positive, model(x).flatten())))
    print(n)


for epoch in range(2):
    evaluate(torch.randn(4, 2))
print(all(p.requires_grad for p in positives))

# %% round 18: an evaluation prints the effective rank of its embeddings from svdvals [unsafe, same]
import torch

torch.manual_seed(0)
encoder = torch.nn.Sequential(torch.nn.Linear(8, 6), torch.nn.Tanh())


def evaluate(x):
    encoder.eval()
    z = encoder(x)
    s = torch.linalg.svdvals(z)
    p = s / s.sum()
    rank = torch.exp(-(p * torch.log(p)).sum())
    print("rankme", rank.item())


for epoch in range(2):
    evaluate(torch.randn(20, 8))

# %% round 18: an evaluation prints the spectral norm of its output features [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(6, 5)


def validate(x):
    model.eval()
    out = model(x)
    print("spectral", torch.linalg.matrix_norm(out, ord=2).item())


for epoch in range(2):
    validate(torch.randn(12, 6))

# %% round 18: an evaluation prints the top eigenvalue of its feature covariance from eigvalsh [unsafe]
import torch

torch.manual_seed(0)
net = torch.nn.Linear(5, 4)


def probe(x):
    net.eval()
    f = net(x)
    f = f - f.mean(0)
    cov = f.T.mm(f) / (f.shape[0] - 1)
    print("top", torch.linalg.eigvalsh(cov)[-1].item())


for epoch in range(2):
    probe(torch.randn(16, 5))

# %% round 18: an evaluation prints the nuclear norm of its logits through torch.norm [unsafe]
import torch

torch.manual_seed(0)
clf = torch.nn.Linear(4, 3)


def evaluate(batch):
    clf.eval()
    logits = clf(batch)
    print("nuc", torch.norm(logits, p="nuc").item())


for epoch in range(2):
    evaluate(torch.randn(10, 4))

# %% round 18: an evaluation of a model that picks a path by torch.is_inference_mode_enabled [safe]
import torch

torch.manual_seed(0)


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 2)

    def forward(self, x):
        y = self.fc(x)
        return y if torch.is_inference_mode_enabled() else y * 1.0


model = Head()


def evaluate(x):
    model.eval()
    print(model(x).argmax(1).tolist())


for epoch in range(2):
    evaluate(torch.randn(4, 3))

# %% round 18: an evaluation prints the condition number of its feature matrix [unsafe]
import torch

torch.manual_seed(0)
proj = torch.nn.Linear(6, 4)


def evaluate(x):
    proj.eval()
    h = proj(x)
    print("cond", torch.linalg.cond(h).item(), torch.linalg.matrix_rank(h).item())


for epoch in range(2):
    evaluate(torch.randn(9, 6))

# %% round 18: an evaluation prints the smallest singular value through linalg.norm with ord -2 [unsafe]
import torch

torch.manual_seed(0)
layer = torch.nn.Linear(5, 5)


def check(x):
    layer.eval()
    y = layer(x)
    print("sigma_min", torch.linalg.norm(y, ord=-2).item())


for epoch in range(2):
    check(torch.randn(7, 5))

# %% round 18: control, an evaluation prints a rounded accuracy over its batches [safe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 3)
batches = [(torch.randn(5, 4), torch.randint(0, 3, (5,))) for _ in range(2)]


def evaluate():
    model.eval()
    correct = 0
    for x, y in batches:
        correct += (model(x).argmax(1) == y).sum().item()
    print("acc", round(correct / 10, 3))


for epoch in range(2):
    evaluate()

# %% round 18: an evaluation prints eigenvalues of its Gram matrix from linalg.eigvals [unsafe, same]
import torch

torch.manual_seed(0)
enc = torch.nn.Linear(6, 4)


def evaluate(x):
    enc.eval()
    g = enc(x).T.mm(enc(x))
    print("eig", torch.linalg.eigvals(g).real.sum().item())


for epoch in range(2):
    evaluate(torch.randn(10, 6))

# %% round 19: evaluation converts to NumPy through the array protocol method in a try [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 2)


def evaluate(x):
    model.eval()
    out = model(x)
    try:
        arr = out.__array__()
    except RuntimeError:
        arr = out.detach().__array__()
        print("detached")
    print(arr.shape)


for epoch in range(2):
    evaluate(torch.randn(3, 4))

# %% round 19: evaluation converts to NumPy through type(out).numpy in a try [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 2)


def evaluate(x):
    model.eval()
    out = model(x)
    try:
        arr = type(out).numpy(out)
        print("direct")
    except RuntimeError:
        arr = out.detach().numpy()
        print("detached")
    print(arr.shape)


for epoch in range(2):
    evaluate(torch.randn(3, 4))

# %% round 19: evaluation resizes the output in place in a try [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 2)


def evaluate(x):
    model.eval()
    out = model(x)
    try:
        out.resize_(6)
        print("resized")
    except RuntimeError:
        print("kept")


for epoch in range(2):
    evaluate(torch.randn(3, 4))

# %% round 19: evaluation hands the output to torch.Tensor.__deepcopy__ in a try [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 2)


def evaluate(x):
    model.eval()
    out = model(x)
    try:
        kept = out.__deepcopy__({})
        print("copied")
    except RuntimeError:
        print("not a leaf")


for epoch in range(2):
    evaluate(torch.randn(3, 4))

# %% round 19: evaluation backward through the unbound Tensor.backward [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 1)


def saliency(x):
    model.eval()
    x = x.clone().requires_grad_(True)
    out = model(x).sum()
    torch.Tensor.backward(out)
    print(round(x.grad.abs().sum().item(), 5))


for epoch in range(2):
    saliency(torch.randn(3, 4))

# %% round 19: evaluation converts the logits to NumPy with a fallback when they carry a graph [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 2)


def evaluate(x):
    model.eval()
    out = model(x)
    try:
        arr = torch.Tensor.numpy(out)
        print("direct")
    except RuntimeError:
        arr = out.detach().numpy()
        print("detached")
    print(arr.shape)


for epoch in range(2):
    evaluate(torch.randn(3, 4))

# %% round 19: evaluation prints the length of the logits text [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 2)


def evaluate(x):
    model.eval()
    logits = model(x)
    text = str(logits)
    print("chars", len(text))


for epoch in range(2):
    evaluate(torch.randn(3, 4))

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

# %% round 19 (second batch): an evaluation fits a least-squares linear probe on its features with linalg.lstsq [unsafe]
import torch

torch.manual_seed(0)
encoder = torch.nn.Sequential(torch.nn.Linear(16, 64), torch.nn.Tanh(), torch.nn.Linear(64, 32))
batches = [(torch.randn(48, 16), torch.randn(48, 3)) for _ in range(2)]


def evaluate():
    encoder.eval()
    for x, y in batches:
        feats = encoder(x)
        probe = torch.linalg.lstsq(feats, y).solution
        print("probe", probe.abs().sum().item())


for epoch in range(2):
    evaluate()

# %% round 19 (second batch): an evaluation runs the functional multi-head attention over its projections [safe]
import torch
import torch.nn.functional as F

torch.manual_seed(0)
proj = torch.nn.Linear(16, 16)
in_w = torch.nn.Parameter(torch.randn(48, 16) * 0.2)
out_w = torch.nn.Parameter(torch.randn(16, 16) * 0.2)
batches = [torch.randn(10, 3, 16) for _ in range(2)]


def evaluate():
    proj.eval()
    for x in batches:
        h = proj(x)
        out = F.multi_head_attention_forward(h, h, h, 16, 4, in_w, None, None, None, False, 0.0, out_w, None, training=False, need_weights=False)[0]
        print("attn", out.abs().sum().item())


for epoch in range(2):
    evaluate()

# %% round 19 (second batch): an energy model whose forward takes forces as the gradient of its energy [none]
import torch

torch.manual_seed(0)


class EnergyNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))

    def forward(self, pos):
        pos = pos.requires_grad_(True)
        energy = self.net(pos).sum()
        forces = -torch.autograd.grad(energy, pos, create_graph=self.training)[0]
        return energy.detach(), forces.detach()


model = EnergyNet()
frames = [torch.randn(4, 3) for _ in range(3)]


def evaluate():
    model.eval()
    total = 0.0
    for pos in frames:
        e, f = model(pos.clone())
        total += f.abs().sum().item()
    print("force mae", round(total, 4))


for epoch in range(2):
    evaluate()

# %% round 19 (second batch): a feature extractor whose forward hook keeps the activations it sees [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.ReLU(), torch.nn.Linear(6, 2))
feats = []
model[1].register_forward_hook(lambda m, i, o: feats.append(o))
batches = [torch.randn(3, 4) for _ in range(2)]


def evaluate():
    model.eval()
    correct = 0
    for x in batches:
        correct += int(model(x).argmax(1).sum())
    print("sum", correct)


evaluate()
show(feats[0])

# %% round 19 (second batch): a module that caches its last output on itself in forward [unsafe]
import torch

torch.manual_seed(0)


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 2)
        self.last = None

    def forward(self, x):
        out = self.fc(x)
        self.last = out
        return out


model = Head()
batches = [torch.randn(3, 4) for _ in range(2)]


def evaluate():
    model.eval()
    n = 0
    for x in batches:
        n += int(model(x).argmax(1).sum())
    print("n", n)


evaluate()
show(model.last)

# %% round 19 (second batch): an evaluation prints its logits through percent formatting [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
batches = [torch.randn(1, 3) for _ in range(2)]


def evaluate():
    model.eval()
    for x in batches:
        out = model(x)
        print("logits %s" % (out,))


evaluate()

# %% round 19 (second batch): an evaluation writes its logits to stdout with sys.stdout.write [unsafe]
import sys
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
batches = [torch.randn(1, 3) for _ in range(2)]


def evaluate():
    model.eval()
    for x in batches:
        out = model(x)
        sys.stdout.write(f"{out}\n")


evaluate()

# %% round 19 (second batch): an evaluation logs through print bound to another name [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
batches = [torch.randn(1, 3) for _ in range(2)]
log = print


def evaluate():
    model.eval()
    for x in batches:
        out = model(x)
        log("out", out)


evaluate()

# %% round 19 (second batch): an evaluation prints whether its logits require grad [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
batches = [torch.randn(1, 3) for _ in range(2)]


def evaluate():
    model.eval()
    for x in batches:
        out = model(x)
        print("needs grad", out.requires_grad, out.grad_fn is None)


evaluate()

# %% round 19 (second batch): an evaluation stores its logits with slice assignment into a caller's list [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
batches = [torch.randn(1, 3) for _ in range(2)]
preds = [None, None]


def evaluate(store):
    model.eval()
    for i, x in enumerate(batches):
        store[i:i + 1] = [model(x)]


evaluate(preds)
show(preds[0])

# %% round 19 (second batch): an evaluation generator yields its logits to the epoch loop [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
batches = [torch.randn(1, 3) for _ in range(2)]


def evaluate():
    model.eval()
    for x in batches:
        yield model(x)


for out in evaluate():
    show(out)

# %% round 19 (second batch): an evaluation keeps its logits in a module global through globals() [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
batches = [torch.randn(1, 3) for _ in range(2)]


def evaluate():
    model.eval()
    for x in batches:
        globals()["last_out"] = model(x)


evaluate()
show(last_out)

# %% round 19 (second batch): an evaluation registers its mean output as a buffer of a tracker module [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
tracker = torch.nn.Module()
batches = [torch.randn(2, 3) for _ in range(2)]


def evaluate():
    model.eval()
    for i, x in enumerate(batches):
        tracker.register_buffer(f"mean{i}", model(x).mean(0))


evaluate()
show(tracker.mean0)

# %% round 19 (second batch): an evaluation stores its logits in a closure variable through nonlocal [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
batches = [torch.randn(1, 3) for _ in range(2)]


def run_epoch():
    last = None

    def evaluate():
        nonlocal last
        model.eval()
        for x in batches:
            last = model(x)

    evaluate()
    show(last)


run_epoch()

# %% round 19 (second batch): an evaluation passes its logits to a saliency method of a helper object [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 2)


class Explainer:
    def attribute(self, x, out):
        out[0, 0].backward()
        return x.grad.abs()


explainer = Explainer()
batches = [torch.randn(1, 3, requires_grad=True) for _ in range(2)]


def evaluate():
    model.eval()
    for x in batches:
        out = model(x)
        sal = explainer.attribute(x, out)
        print("sal", round(float(sal.sum()), 4))


evaluate()

# %% round 19 (second batch): an evaluation saves its logits into a bytes buffer and reloads them [unsafe, same]
import io
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
batches = [torch.randn(1, 3) for _ in range(2)]
buf = io.BytesIO()


def evaluate():
    model.eval()
    outs = []
    for x in batches:
        outs.append(model(x).detach())
    torch.save(outs, buf)


evaluate()
buf.seek(0)
show(torch.load(buf)[0])

# %% round 19 (second batch): control, an evaluation counts correct predictions with a detached comparison [safe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
batches = [(torch.randn(4, 3), torch.randint(0, 2, (4,))) for _ in range(2)]


def evaluate():
    model.eval()
    correct = 0
    for x, y in batches:
        correct += (model(x).argmax(-1) == y).sum().item()
    print("correct", correct)


for epoch in range(2):
    evaluate()

# %% round 19 (second batch): an evaluation raises its logits in an exception message caught by the caller [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
batches = [torch.randn(1, 3) for _ in range(2)]


def evaluate():
    model.eval()
    for x in batches:
        out = model(x)
        if out.sum() < 10:
            raise ValueError(f"bad output {out}")


try:
    evaluate()
except ValueError as e:
    print(e)

# %% round 19 (second batch): an evaluation prints its logits with pprint.pformat [unsafe]
import pprint
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 2)
batches = [torch.randn(1, 3) for _ in range(2)]


def evaluate():
    model.eval()
    for x in batches:
        print(pprint.pformat({"out": model(x)}))


evaluate()

# %% round 19 (second batch): an evaluation whose model applies a gradient penalty hook to its input [none]
import torch

torch.manual_seed(0)


class Smooth(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 1)

    def forward(self, x):
        x = x.detach().requires_grad_()
        y = self.fc(x).sum()
        (g,) = torch.autograd.grad(y, x)
        return g.norm()


model = Smooth()
batches = [torch.randn(2, 3) for _ in range(2)]


def evaluate():
    model.eval()
    for x in batches:
        print("gnorm", round(float(model(x)), 4))


evaluate()

# %% round 20: evaluation iterates a feature generator of the caller that fills a memory bank [unsafe]
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Linear(4, 3)
head = nn.Linear(3, 2)
bank = []
data = [torch.randn(2, 4) for _ in range(3)]


def embed_stream(batches):
    for x in batches:
        z = encoder(x)
        bank.append(z)
        yield z


def evaluate(features):
    head.eval()
    n = 0
    for z in features:
        n += int(head(z).argmax(1).sum())
    print(n)


for epoch in range(2):
    evaluate(embed_stream(data))
    show(bank[-1])

# %% round 20: evaluation draws batches from an iterator object of the file whose __next__ runs a module [unsafe]
import torch
import torch.nn as nn

torch.manual_seed(0)
aug = nn.Linear(3, 3)
model = nn.Linear(3, 2)
seen = []


class Augmented:
    def __init__(self, data):
        self.data = list(data)

    def __iter__(self):
        return self

    def __next__(self):
        if not self.data:
            raise StopIteration
        x = aug(self.data.pop())
        seen.append(x)
        return x


def evaluate(stream):
    model.eval()
    c = 0
    for x in stream:
        c += int(model(x).argmax(1).sum())
    print(c)


evaluate(Augmented([torch.randn(2, 3) for _ in range(2)]))
show(seen[0])

# %% round 20: evaluation over a map object of the caller that encodes and keeps each batch [unsafe]
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Linear(4, 3)
head = nn.Linear(3, 2)
kept = []
data = [torch.randn(2, 4) for _ in range(3)]


def encode(x):
    z = encoder(x)
    kept.append(z)
    return z


def evaluate(features):
    head.eval()
    n = 0
    for z in features:
        n += int(head(z).argmax(1).sum())
    print(n)


evaluate(map(encode, data))
show(kept[0])

# %% round 20: evaluation over a generator expression of the caller that runs the encoder [unsafe]
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Linear(4, 3)
head = nn.Linear(3, 2)
data = [torch.randn(2, 4) for _ in range(3)]
cache = {}


def evaluate(features):
    head.eval()
    n = 0
    for z in features:
        n += int(head(z).argmax(1).sum())
    print(n)


evaluate(cache.setdefault(i, encoder(x)) for i, x in enumerate(data))
show(cache[0])

# %% round 20: evaluation iterates a module-level feature stream built by a generator that fills a bank [unsafe]
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Linear(4, 3)
head = nn.Linear(3, 2)
bank = []
data = [torch.randn(2, 4) for _ in range(3)]


def embed_stream(batches):
    for x in batches:
        z = encoder(x)
        bank.append(z)
        yield z


val_stream = embed_stream(data)


def evaluate():
    head.eval()
    n = 0
    for z in val_stream:
        n += int(head(z).argmax(1).sum())
    print(n)


evaluate()
show(bank[-1])

# %% round 20: evaluation method iterates a stream the trainer keeps in an attribute [unsafe]
import torch
import torch.nn as nn

torch.manual_seed(0)
encoder = nn.Linear(4, 3)
bank = []


def features(batches):
    for x in batches:
        z = encoder(x)
        bank.append(z)
        yield z


class Trainer:
    def __init__(self, data):
        self.head = nn.Linear(3, 2)
        self.stream = features(data)

    def validate(self):
        self.head.eval()
        n = 0
        for z in self.stream:
            n += int(self.head(z).argmax(1).sum())
        print(n)


t = Trainer([torch.randn(2, 4) for _ in range(3)])
t.validate()
show(bank[0])

# %% round 20: evaluation over a loader whose collate function encodes and caches each batch [unsafe]
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

torch.manual_seed(0)
encoder = nn.Linear(4, 3)
head = nn.Linear(3, 2)
seen = []


def encode_batch(items):
    z = encoder(torch.stack(items))
    seen.append(z)
    return z


loader = DataLoader([torch.randn(4) for _ in range(4)], batch_size=2, collate_fn=encode_batch)


def evaluate(batches):
    head.eval()
    n = 0
    for z in batches:
        n += int(head(z).argmax(1).sum())
    print(n)


evaluate(loader)
show(seen[0])

# %% round 24: evaluation clamps the box part of a split output in place, with an out-of-place fallback [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 5)


def evaluate(x):
    model.eval()
    pred = model(x)
    boxes, conf = pred.split([4, 1], dim=-1)
    try:
        boxes.clamp_(0, 1)
        print("clamped in place")
    except RuntimeError:
        boxes = boxes.clamp(0, 1)
        print("clamped copy")
    print(round(pred.sum().item(), 5), round(boxes.sum().item(), 5), round(conf.sum().item(), 5))


for epoch in range(2):
    evaluate(torch.randn(3, 4))

# %% round 24: evaluation normalises every row of unbind in place, falling back to a copy [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 3)


def evaluate(x):
    model.eval()
    emb = model(x)
    try:
        for row in emb.unbind(0):
            row.div_(row.norm())
    except RuntimeError:
        emb = emb / emb.norm(dim=1, keepdim=True)
        print("copied")
    print(round(emb.sum().item(), 5))


for epoch in range(2):
    evaluate(torch.randn(3, 4))

# %% round 24: evaluation zeroes the first chunk of its logits in place in a try [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 6)


def evaluate(x):
    model.eval()
    logits = model(x)
    head, tail = logits.chunk(2, dim=1)
    try:
        head.zero_()
        mode = "in place"
    except RuntimeError:
        mode = "refused"
    print(mode, round(logits.sum().item(), 5))


for epoch in range(2):
    evaluate(torch.randn(3, 4))

# %% round 24: evaluation freezes its features with requires_grad_(False) in a try [unsafe]
import torch

torch.manual_seed(0)
backbone = torch.nn.Linear(4, 3)


def extract(x):
    backbone.eval()
    feats = backbone(x)
    try:
        feats.requires_grad_(False)
        print("frozen")
    except RuntimeError:
        feats = feats.detach()
        print("detached")
    print(round(feats.sum().item(), 5))


for epoch in range(2):
    extract(torch.randn(3, 4))

# %% round 24: evaluation freezes its features through the unbound Tensor.requires_grad_ in a try [unsafe]
import torch

torch.manual_seed(0)
backbone = torch.nn.Linear(4, 3)


def extract(x):
    backbone.eval()
    feats = backbone(x)
    try:
        torch.Tensor.requires_grad_(feats, False)
        print("frozen")
    except RuntimeError:
        print("not a leaf")


for epoch in range(2):
    extract(torch.randn(3, 4))

# %% round 24: evaluation exports its output with __dlpack__ in a try [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 2)


def evaluate(x):
    model.eval()
    out = model(x)
    try:
        capsule = out.__dlpack__()
        print("exported")
    except BufferError:
        print("needs detach")


for epoch in range(2):
    evaluate(torch.randn(3, 4))

# %% round 24: evaluation rescales a temperature leaf it creates in place in a try [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 3)


def evaluate(x):
    model.eval()
    temperature = torch.full((1,), 2.0, requires_grad=True)
    try:
        temperature.clamp_(min=2.5)
    except RuntimeError:
        print("leaf kept")
    probs = torch.softmax(model(x) / temperature, dim=1)
    print(round(probs.max().item(), 5))


for epoch in range(2):
    evaluate(torch.randn(3, 4))

# %% round 24: evaluation in a match statement on the output's dimensionality [safe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 3)


def evaluate(x):
    model.eval()
    out = model(x)
    match out.dim():
        case 2:
            print("batch", round(out.sum().item(), 5))
        case _:
            print("other")


for epoch in range(2):
    evaluate(torch.randn(3, 4))

# %% round 24: evaluation generator yields per-batch losses as floats [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
batches = [(torch.randn(3, 4), torch.randn(3, 1)) for _ in range(3)]


def losses():
    model.eval()
    for x, y in batches:
        yield round(torch.nn.functional.mse_loss(model(x), y).item(), 5)


for epoch in range(2):
    print(list(losses()))

# %% round 24: evaluation computes an input Jacobian with torch.autograd.functional [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 2)


def sensitivity(x):
    model.eval()
    jac = torch.autograd.functional.jacobian(lambda inp: model(inp).sum(), x)
    print(round(jac.abs().sum().item(), 5))


for epoch in range(2):
    sensitivity(torch.randn(3, 4))

# %% round 24: evaluation backward through a bound method kept in a name [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 1)


def saliency(x):
    model.eval()
    x = x.clone().requires_grad_(True)
    run_backward = model(x).sum().backward
    run_backward()
    print(round(x.grad.abs().sum().item(), 5))


for epoch in range(2):
    saliency(torch.randn(3, 4))

# %% round 24: evaluation with a walrus keeping the max logit, printed as item [safe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 3)


def evaluate(batches):
    model.eval()
    best = -1.0
    for x in batches:
        if (top := model(x).max().item()) > best:
            best = top
    print(round(best, 5))


for epoch in range(2):
    evaluate([torch.randn(2, 4) for _ in range(3)])

# %% round 24: evaluation loop with try/finally that prints a count of batches [safe]
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Dropout(0.5))


def evaluate(batches):
    model.eval()
    seen = 0
    correct = 0
    try:
        for x, y in batches:
            correct += (model(x).argmax(1) == y).sum().item()
            seen += len(y)
    finally:
        print("seen", seen)
    print(correct)


for epoch in range(2):
    evaluate([(torch.randn(4, 4), torch.randint(0, 3, (4,))) for _ in range(2)])

# %% round 24: evaluation of a frozen model, early return when a batch is empty [safe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 2)
for p in model.parameters():
    p.requires_grad_(False)


def evaluate(batches):
    model.eval()
    total = 0.0
    for x in batches:
        if x.shape[0] == 0:
            print("empty")
            return
        total += model(x).sum().item()
    print(round(total, 5))


evaluate([torch.randn(2, 4), torch.randn(0, 4)])
evaluate([torch.randn(2, 4)])

# %% round 24: evaluation whose model is an attribute looked up by a property [unsafe]
import torch


class Runner:
    def __init__(self):
        torch.manual_seed(0)
        self._net = torch.nn.Linear(4, 2)

    @property
    def net(self):
        return self._net


runner = Runner()


def evaluate(x):
    runner.net.eval()
    out = runner.net(x)
    print(round(out.abs().sum().item(), 5))


for epoch in range(2):
    evaluate(torch.randn(3, 4))

# %% round 24: evaluation that adds the output into a buffer view of a dataclass field in place [unsafe]
import dataclasses
import torch


@dataclasses.dataclass
class Stats:
    total: torch.Tensor


torch.manual_seed(0)
model = torch.nn.Linear(4, 2)
stats = Stats(torch.zeros(2))


def evaluate(x):
    model.eval()
    acc = stats.total
    acc.add_(model(x).sum(0))


for epoch in range(2):
    evaluate(torch.randn(3, 4))
print(stats.total.requires_grad, round(stats.total.sum().item(), 5))

# %% round 24: evaluation through a custom autograd Function of the file whose forward branches on needs_input_grad [unsafe]
import torch


class ScaledRelu(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        if ctx.needs_input_grad[0]:
            ctx.save_for_backward(x)
            return x.clamp(min=0)
        return x.clamp(min=0) * 0.5


torch.manual_seed(0)
model = torch.nn.Linear(4, 3)


def evaluate(x):
    model.eval()
    out = ScaledRelu.apply(model(x))
    print(round(out.sum().item(), 5))


for epoch in range(2):
    evaluate(torch.randn(3, 4))

# %% round 24: a harness prints the frames of the traceback an evaluation raises [none]
import traceback
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 3)


def evaluate(x):
    model.eval()
    out = model(x)
    print(round(out.sum().item(), 5))


for x in (torch.randn(3, 4), torch.randn(3, 5)):
    try:
        evaluate(x)
    except RuntimeError as err:
        print([frame.name for frame in traceback.extract_tb(err.__traceback__)][:3])

# %% round 24: a config registry reads an evaluation function's keyword-only defaults [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 3)


def evaluate(x, *, threshold=0.5):
    model.eval()
    out = model(x)
    print(int((out > threshold).sum().item()))


print(evaluate.__kwdefaults__)
for epoch in range(2):
    evaluate(torch.randn(3, 4))

# %% round 24: evaluation scales each part of torch.tensor_split of its output in place, with a fallback [safe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 6)


def evaluate(x):
    model.eval()
    out = model(x)
    parts = torch.tensor_split(out, 2, dim=1)
    try:
        parts[1].mul_(0.0)
        print("in place")
    except RuntimeError:
        print("copy")
    print(round(out.sum().item(), 5))


for epoch in range(2):
    evaluate(torch.randn(3, 4))

# %% round 24: evaluation softmaxes the rows that torch.unbind gives, in place, with a fallback [unsafe]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 3)


def evaluate(x):
    model.eval()
    logits = model(x)
    try:
        for row in torch.unbind(logits):
            row.sub_(row.max())
        print("in place")
    except RuntimeError:
        logits = logits - logits.max(dim=1, keepdim=True).values
        print("copy")
    print(round(logits.sum().item(), 5))


for epoch in range(2):
    evaluate(torch.randn(3, 4))
