# %% control: Adam over a model moved to the device [unsafe]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1)).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
x = torch.randn(16, 4, device=device)
for _ in range(3):
    optimizer.zero_grad()
    model(x).pow(2).mean().backward()
    optimizer.step()
show(model(x).mean().round(decimals=3))

# %% AdamW over param groups of submodules [unsafe]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Linear(8, 1))
model = model.to(device)
groups = [{"params": model[0].parameters(), "lr": 0.01}, {"params": model[1].parameters()}]
optimizer = torch.optim.AdamW(groups, lr=0.001, weight_decay=0.1)
model(torch.ones(2, 4, device=device)).sum().backward()
optimizer.step()
show(len(optimizer.param_groups), [group["lr"] for group in optimizer.param_groups])

# %% complex parameters: no fused update [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 4, dtype=torch.cfloat).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
model(torch.ones(2, 4, dtype=torch.cfloat, device=device)).abs().sum().backward()
optimizer.step()
show(model.weight.real.abs().sum().round(decimals=3))

# %% capturable set up for graph capture [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 1).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01, capturable=device.type == "cuda")
show(optimizer.defaults["capturable"] == torch.cuda.is_available())

# %% an explicit choice of implementation [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 1).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01, foreach=False)
model(torch.ones(2, 4, device=device)).sum().backward()
optimizer.step()
show(model)

# %% keyword arguments unpacked [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 1).to(device)
options = {"fused": False}
optimizer = torch.optim.Adam(model.parameters(), lr=0.01, **options)
show(optimizer.defaults["fused"])

# %% SGD keeps its multi-tensor default [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 1).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
model(torch.ones(2, 4, device=device)).sum().backward()
optimizer.step()
show(model)

# %% a model that stays on the host, next to a tensor on the device [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
total = torch.zeros(1).to(device)
model = torch.nn.Linear(4, 1)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
loss = model(torch.ones(2, 4)).sum()
loss.backward()
optimizer.step()
total += loss.detach().to(device)
show(model, total)

# %% complex parameters made by exp(1j * phase) [none]
import torch


class PhaseFilter(torch.nn.Module):
    def __init__(self, size):
        super().__init__()
        phase = torch.linspace(0.0, 1.0, size)
        self.weight = torch.nn.Parameter(torch.exp(1j * phase))

    def forward(self, x):
        return (x * self.weight).abs()


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = PhaseFilter(4).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for step in range(2):
    loss = model(torch.ones(4, device=device)).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
show(model.weight.real.round(decimals=3))

# %% complex parameters made by torch.polar [none]
import torch


class Rotation(torch.nn.Module):
    def __init__(self, size):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.polar(torch.ones(size), torch.zeros(size)))

    def forward(self, x):
        return (x * self.weight).real


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Rotation(4).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=0.01)
for step in range(2):
    loss = model(torch.ones(4, device=device)).pow(2).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
show(model.weight.real.round(decimals=3))

# %% complex parameters filled with Python's complex() [none]
import torch
import torch.nn as nn

class Phase(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.full((3,), complex(1.0, 0.5)))

    def forward(self, x):
        return (x * self.w).abs()

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Phase().to(device)
opt = torch.optim.Adam(model.parameters(), lr=0.1)
for step in range(2):
    loss = model(torch.ones(3)).sum()
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(round(loss.item(), 4))

# %% complex eigenvectors of a real matrix as the initial parameters [none]
import torch
import torch.nn as nn

class Modes(nn.Module):
    def __init__(self):
        super().__init__()
        a = torch.tensor([[0.0, -1.0], [1.0, 0.0]])
        self.v = nn.Parameter(torch.linalg.eig(a).eigenvectors)

    def forward(self, x):
        return (self.v @ x.to(self.v.dtype)).abs().sum()

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Modes().to(device)
opt = torch.optim.AdamW(model.parameters(), lr=0.1)
for step in range(2):
    loss = model(torch.ones(2))
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(round(loss.item(), 4))

# %% a learnable spectrogram filter made with torch.stft [none]
import torch
import torch.nn as nn

class Filter(nn.Module):
    def __init__(self):
        super().__init__()
        spec = torch.stft(torch.ones(64), n_fft=16, window=torch.hann_window(16), return_complex=True)
        self.h = nn.Parameter(spec[:, :1])

    def forward(self, x):
        return (self.h * x).abs().mean()

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Filter().to(device)
opt = torch.optim.Adam(model.parameters(), lr=0.1)
for step in range(2):
    loss = model(torch.ones(9, 1))
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(round(loss.item(), 4))

# %% round 7: complex parameters made with dtype=complex [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

class Filter(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.taps = torch.nn.Parameter(torch.ones(n, dtype=complex))
    def forward(self, x):
        return (x * self.taps).real

model = Filter(4).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for _ in range(2):
    optimizer.zero_grad()
    model(torch.ones(4, dtype=torch.float64, device=device)).sum().backward()
    optimizer.step()
show(model.taps.real)

# %% round 7: complex initial weights from numpy with dtype=np.csingle [none]
import numpy as np
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

class Mixer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        init = np.ones(3, dtype=np.csingle)
        self.w = torch.nn.Parameter(torch.from_numpy(init))
    def forward(self, x):
        return (x * self.w).abs()

model = Mixer().to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=0.01)
for _ in range(2):
    optimizer.zero_grad()
    model(torch.ones(3, device=device)).sum().backward()
    optimizer.step()
show(model.w.abs())

# %% round 7: complex parameters from a numpy array typed by a string code [none]
import numpy as np
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

class Mixer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.tensor(np.zeros(3, dtype="c8")))
    def forward(self, x):
        return (x + self.w).abs()

model = Mixer().to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for _ in range(2):
    optimizer.zero_grad()
    model(torch.ones(3, device=device)).sum().backward()
    optimizer.step()
show(model.w.abs())

# %% round 7: a tensor learning rate [unsafe]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 2).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=torch.tensor(0.01))
x = torch.randn(8, 4, device=device)
for _ in range(3):
    optimizer.zero_grad()
    model(x).pow(2).mean().backward()
    optimizer.step()
show(model(x).mean().round(decimals=3))

# %% round 8: Adam over param groups with different lr, moved to the device [unsafe, same]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Linear(4, 1)).to(device)
opt = torch.optim.Adam([{"params": model[0].parameters(), "lr": 1e-2}, {"params": model[1].parameters()}], lr=1e-3)
sched = torch.optim.lr_scheduler.StepLR(opt, 1, gamma=0.5)
for step in range(3):
    loss = model(torch.randn(8, 4, device=device)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    print(round(loss.item(), 4))

# %% round 10: complex parameters made by torch.view_as_complex of a stacked pair [none]
import torch
from torch import nn

class Spectral(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.view_as_complex(torch.randn(4, 2)))

    def forward(self, x):
        return (torch.fft.fft(x) * self.w).real

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Spectral().to(device)
opt = torch.optim.Adam(model.parameters(), lr=0.01)
x = torch.randn(3, 4, device=device)
for step in range(2):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 5))

# %% round 10: complex weights from a complex128 cast of a real init [none]
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
w = torch.randn(3, 3).to(torch.complex64)
model = nn.Linear(3, 3).to(device)
phase = nn.Parameter(w.to(device))
opt = torch.optim.AdamW([*model.parameters(), phase], lr=0.01)
x = torch.randn(2, 3, device=device)
for step in range(2):
    loss = (model(x) + (x.to(phase.dtype) @ phase).real).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 5))

# %% round 10: control, Adam over a frozen backbone's trainable head moved with the model [none]
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2)).to(device)
for p in model[0].parameters():
    p.requires_grad = False
opt = torch.optim.Adam(filter(lambda p: p.requires_grad, model.parameters()), lr=0.01)
x = torch.randn(5, 4, device=device)
for step in range(2):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 5))

# %% round 12: an Adam built with foreach=True already, over a model moved to the device [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.Adam(model.parameters(), lr=0.01, foreach=True)
for step in range(3):
    loss = model(torch.ones(2, 3, device=device)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
show(loss)

# %% round 12: optimizer options from a config dict that sets foreach, unpacked into AdamW [none]
import torch

OPTIM = {"lr": 1e-2, "weight_decay": 0.01, "foreach": True}
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 2).to(device)
opt = torch.optim.AdamW(model.parameters(), **OPTIM)
for step in range(3):
    loss = model(torch.ones(2, 3, device=device)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
show(loss)

# %% round 12: an optimizer made by a builder method of a Lightning-style module with complex spectral weights [none]
import torch


class SpectralFilter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.view_as_complex(torch.randn(4, 2)))

    def forward(self, x):
        return torch.fft.irfft(torch.fft.rfft(x) * self.w, n=6)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=0.01)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
m = SpectralFilter().to(device)
opt = m.configure_optimizers()
for step in range(2):
    loss = m(torch.ones(2, 6, device=device)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
show(loss)

# %% round 12: a sparse embedding on the device trained by Adagrad [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
emb = torch.nn.Embedding(10, 3, sparse=True).to(device)
opt = torch.optim.Adagrad(emb.parameters(), lr=0.1)
for step in range(2):
    loss = emb(torch.tensor([1, 2, 3], device=device)).pow(2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
show(loss)

# %% round 12: control, an AdamW in a GradScaler loop under bfloat16 autocast [unsafe, same]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(4, 2).to(device)
opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
scaler = torch.amp.GradScaler(device.type)
for step in range(3):
    with torch.autocast(device.type, dtype=torch.bfloat16):
        loss = model(torch.ones(2, 4, device=device)).float().pow(2).mean()
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
print(round(loss.item(), 3))

# %% round 12: an Adam made in a trainer's __init__ over a model moved there, stepped by a method [unsafe, same]
import torch


class Trainer:
    def __init__(self, model, device):
        self.model = model.to(device)
        self.device = device
        self.opt = torch.optim.Adam(self.model.parameters(), lr=0.01)

    def step(self, x):
        loss = self.model(x.to(self.device)).pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss


torch.manual_seed(0)
t = Trainer(torch.nn.Linear(3, 1), torch.device("cuda" if torch.cuda.is_available() else "cpu"))
for i in range(3):
    loss = t.step(torch.ones(2, 3))
print(round(loss.item(), 3))

# %% round 12: an integer step counter registered as a parameter without gradients next to the weights [none]
import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(2, 1)
        self.calls = torch.nn.Parameter(torch.zeros((), dtype=torch.long), requires_grad=False)

    def forward(self, x):
        self.calls.add_(1)
        return self.fc(x)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
net = Net().to(device)
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
for step in range(3):
    loss = net(torch.ones(1, 2, device=device)).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
show(net.calls, loss)

# %% round 13: complex parameters made by an inverse FFT of real weights [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
w = torch.nn.Parameter(torch.fft.ifft(torch.randn(4)).resolve_conj().to(device))
opt = torch.optim.Adam([w], lr=0.1)
for step in range(2):
    opt.zero_grad()
    w.abs().sum().backward()
    opt.step()
show(w.real, w.imag)

# %% round 13: complex parameters of dtype torch.cdouble [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
w = torch.nn.Parameter(torch.randn(3, dtype=torch.cdouble, device=device))
opt = torch.optim.SGD([w], lr=0.1)
for step in range(2):
    opt.zero_grad()
    w.abs().sum().backward()
    opt.step()
show(w.real)

# %% round 13: an NAdam optimizer in the training loop [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.NAdam(model.parameters(), lr=0.1)
for step in range(2):
    opt.zero_grad()
    model(torch.randn(2, 3, device=device)).sum().backward()
    opt.step()
show(model)

# %% round 13: an Adam with a tensor learning rate in the training loop [unsafe]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.Adam(model.parameters(), lr=torch.tensor(0.01))
for step in range(2):
    opt.zero_grad()
    model(torch.randn(2, 3, device=device)).sum().backward()
    opt.step()
print([round(v, 4) for v in model.weight.flatten().tolist()])

# %% round 13: an AdamW over bfloat16 parameters in the training loop [unsafe]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device, torch.bfloat16)
opt = torch.optim.AdamW(model.parameters(), lr=0.1)
for step in range(2):
    opt.zero_grad()
    model(torch.randn(2, 3, dtype=torch.bfloat16, device=device)).float().sum().backward()
    opt.step()
print([round(v, 2) for v in model.weight.float().flatten().tolist()])

# %% round 13: complex parameters made from a dtype read by getattr of torch [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
kind = getattr(torch, "complex" + "64")
w = torch.nn.Parameter(torch.ones(3, dtype=kind, device=device))
opt = torch.optim.Adam([w], lr=0.1)
for step in range(2):
    opt.zero_grad()
    w.abs().sum().backward()
    opt.step()
show(w.real)

# %% round 13: an SGD over a sparse embedding on the device [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
emb = torch.nn.Embedding(6, 2, sparse=True).to(device)
opt = torch.optim.SGD(emb.parameters(), lr=0.1)
for step in range(2):
    opt.zero_grad()
    emb(torch.tensor([1, 3], device=device)).sum().backward()
    opt.step()
show(emb.weight)

# %% round 13: an Adam with every option by position over a model on the device [unsafe]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.Adam(model.parameters(), 1e-2, (0.9, 0.99), 1e-8, 0.0, True)
for step in range(2):
    opt.zero_grad()
    model(torch.randn(2, 3, device=device)).sum().backward()
    opt.step()
print([round(v, 4) for v in model.weight.flatten().tolist()])

# %% round 13: an optimizer class picked from a dict of torch optimizers by name [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
OPTIMIZERS = {"adam": torch.optim.Adam, "sgd": torch.optim.SGD}
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = OPTIMIZERS["adam"](model.parameters(), lr=0.01)
for step in range(2):
    opt.zero_grad()
    model(torch.randn(2, 3, device=device)).sum().backward()
    opt.step()
print([round(v, 4) for v in model.weight.flatten().tolist()])

# %% round 14: complex parameters from a NumPy array cast with astype(complex) [none]
import numpy as np
import torch

torch.manual_seed(0)
w = torch.nn.Parameter(torch.from_numpy(np.linspace(0, 1, 4).astype(complex)))
opt = torch.optim.Adam([w], lr=0.1)
for step in range(2):
    loss = (w * w.conj()).real.sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
show(w.real)

# %% round 14: complex parameters from a NumPy array cast with the type code c8 [none]
import numpy as np
import torch

w = torch.nn.Parameter(torch.from_numpy(np.ones(4).astype("c8")))
opt = torch.optim.AdamW([w], lr=0.1)
for step in range(2):
    loss = w.abs().pow(2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
show(w.real)

# %% round 14: complex parameters from np.emath.sqrt of negative numbers [none]
import numpy as np
import torch

w = torch.nn.Parameter(torch.from_numpy(np.emath.sqrt(-np.arange(1.0, 5.0))))
opt = torch.optim.Adam([w], lr=0.1)
for step in range(2):
    loss = w.abs().sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
show(w.imag)

# %% round 14: complex parameters from a NumPy array of type code D by position [none]
import numpy as np
import torch

w = torch.nn.Parameter(torch.tensor(np.array([1.0, 2.0], "D")))
opt = torch.optim.Adam([w], lr=0.1)
for step in range(2):
    loss = w.abs().sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
show(w.real)

# %% round 14: complex parameters made by torch.randn with the complex dtype taken from promote_types [none]
import torch

dtype = torch.promote_types(torch.float32, torch.complex64)
w = torch.nn.Parameter(torch.ones(3, dtype=dtype))
opt = torch.optim.Adam([w], lr=0.1)
for step in range(2):
    loss = w.abs().sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
show(w.real)

# %% round 14: complex parameters made by to() with a dtype from a string name through getattr [none]
import torch

name = "c" + "float"
w = torch.nn.Parameter(torch.ones(3).to(getattr(torch, name)))
opt = torch.optim.Adam([w], lr=0.1)
for step in range(2):
    loss = w.abs().sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
show(w.real)

# %% round 14: control, an Adam inside a training function over a real model, with a walrus [none]
import torch


def train():
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    for step in range(2):
        if (loss := model(torch.ones(2, 3)).pow(2).mean()) is not None:
            opt.zero_grad()
            loss.backward()
            opt.step()
    show(model.weight)


train()

# %% round 14: complex parameters made by a helper of the file from a flag, in a training loop [none]
import torch


def init(n, spectral):
    base = torch.randn(n, 2)
    return torch.view_as_complex(base) if spectral else base[:, 0]


torch.manual_seed(0)
w = torch.nn.Parameter(init(3, True))
opt = torch.optim.Adam([w], lr=0.1)
for step in range(2):
    loss = w.abs().sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
show(w.real)

# %% round 14: complex parameters made by a cast through .to with the dtype taken from a complex tensor [none]
import torch

ref = torch.zeros(1, dtype=torch.float32) * 1j
w = torch.nn.Parameter(torch.ones(3).to(ref.dtype))
opt = torch.optim.Adam([w], lr=0.1)
for step in range(2):
    loss = w.abs().sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
show(w.real)

# %% round 15: complex parameters from torch.fft.ifft of a real tensor [none]
import torch

torch.manual_seed(0)
lam = torch.nn.Parameter(torch.fft.ifft(torch.randn(4)).resolve_conj())
opt = torch.optim.Adam([lam], lr=0.1)
for step in range(2):
    opt.zero_grad()
    lam.abs().sum().backward()
    opt.step()
print(lam.abs().sum().item() > 0)

# %% round 15: complex parameters from NumPy's FFT converted with from_numpy [none]
import numpy as np
import torch

w = torch.nn.Parameter(torch.from_numpy(np.fft.fft(np.arange(4.0))))
opt = torch.optim.AdamW([w], lr=0.1)
for step in range(2):
    opt.zero_grad()
    w.abs().sum().backward()
    opt.step()
print(w.dtype)

# %% round 15: complex parameters from the eigenvalues of a rotation computed by NumPy [none]
import numpy as np
import torch

rot = np.array([[0.0, -1.0], [1.0, 0.0]])
eig = np.linalg.eigvals(rot)
w = torch.nn.Parameter(torch.tensor(eig))
opt = torch.optim.Adam([w], lr=0.1)
for step in range(2):
    opt.zero_grad()
    w.abs().sum().backward()
    opt.step()
print(w.dtype)

# %% round 15: complex parameters made by type() with a tensor type string [none]
import torch

w = torch.nn.Parameter(torch.ones(2).type("torch.ComplexFloatTensor"))
opt = torch.optim.Adam([w], lr=0.1)
for step in range(2):
    opt.zero_grad()
    w.abs().sum().backward()
    opt.step()
print(w.dtype)

# %% round 15: complex parameters from np.roots of a polynomial without real roots [none]
import numpy as np
import torch

w = torch.nn.Parameter(torch.from_numpy(np.roots([1.0, 0.0, 1.0])))
opt = torch.optim.Adam([w], lr=0.1)
for step in range(2):
    opt.zero_grad()
    w.abs().sum().backward()
    opt.step()
print(w.dtype)

# %% round 15: an optimizer over a model that holds an integer parameter without grad [none]
import torch
import torch.nn as nn


class Counter(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(2, 1)
        self.steps = nn.Parameter(torch.tensor([0]), requires_grad=False)


model = Counter()
opt = torch.optim.Adam(model.parameters(), lr=0.1)
for step in range(2):
    opt.zero_grad()
    model.lin(torch.ones(1, 2)).sum().backward()
    opt.step()
show(model.lin)

# %% round 15: SGD over a sparse embedding [none]
import torch
import torch.nn as nn

torch.manual_seed(0)
emb = nn.Embedding(5, 2, sparse=True)
opt = torch.optim.SGD(emb.parameters(), lr=0.1)
for step in range(2):
    opt.zero_grad()
    emb(torch.tensor([1, 2])).sum().backward()
    opt.step()
show(emb)

# %% round 15: Adam with foreach=True given explicitly [none]
import torch

w = torch.nn.Parameter(torch.ones(2))
opt = torch.optim.Adam([w], lr=0.1, foreach=True)
for step in range(2):
    opt.zero_grad()
    (w * w).sum().backward()
    opt.step()
show(w)

# %% round 15: an Adam subclass of the file with its own constructor signature [none]
import torch


class MyAdam(torch.optim.Adam):
    def __init__(self, params, lr):
        super().__init__(params, lr=lr)


w = torch.nn.Parameter(torch.ones(2))
opt = MyAdam([w], lr=0.1)
for step in range(2):
    opt.zero_grad()
    (w * w).sum().backward()
    opt.step()
show(w)

# %% round 15: complex parameters made by torch.view_as_complex under another name [none]
import torch

as_complex = getattr(torch, "view_as_" + "complex")
w = torch.nn.Parameter(as_complex(torch.ones(2, 2)))
opt = torch.optim.Adam([w], lr=0.1)
for step in range(2):
    opt.zero_grad()
    w.abs().sum().backward()
    opt.step()
print(w.dtype)

# %% round 15: control, AdamW in a training function over a real model [none]
import torch

torch.manual_seed(0)


def train():
    model = torch.nn.Linear(2, 1)
    opt = torch.optim.AdamW(model.parameters(), lr=0.1)
    for step in range(2):
        opt.zero_grad()
        model(torch.ones(1, 2)).sum().backward()
        opt.step()
    print(round(model.weight.sum().item(), 4))


train()

# %% round 15: Adam given fused=None explicitly in a training loop [none]
import torch

w = torch.nn.Parameter(torch.ones(2))
opt = torch.optim.Adam([w], lr=0.1, fused=None)
for step in range(2):
    opt.zero_grad()
    (w * w).sum().backward()
    opt.step()
show(w)

# %% round 15: AdamW whose options come from a dict that sets fused [none]
import torch

options = {"lr": 0.1, "fused": False}
w = torch.nn.Parameter(torch.ones(2))
opt = torch.optim.AdamW([w], **options)
for step in range(2):
    opt.zero_grad()
    (w * w).sum().backward()
    opt.step()
show(w)

# %% round 15: Adam built through getattr of torch.optim by name [none]
import torch

w = torch.nn.Parameter(torch.ones(2))
opt = getattr(torch.optim, "Adam")([w], lr=0.1)
for step in range(2):
    opt.zero_grad()
    (w * w).sum().backward()
    opt.step()
show(w)

# %% round 15: Adam built with functools.partial and called in a training function [none]
import functools

import torch

make_opt = functools.partial(torch.optim.Adam, lr=0.1)


def train():
    w = torch.nn.Parameter(torch.ones(2))
    opt = make_opt([w])
    for step in range(2):
        opt.zero_grad()
        (w * w).sum().backward()
        opt.step()
    show(w)


train()

# %% round 16: an embedding with sparse gradients trained by SGD [none]
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
emb = nn.Embedding(20, 4, sparse=True).to(device)
opt = torch.optim.SGD(emb.parameters(), lr=0.1)
ids = torch.tensor([[1, 2, 3], [4, 5, 6]], device=device)
for step in range(3):
    loss = emb(ids).pow(2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 16: a sparse-gradient embedding next to a dense head, one Adam over both [unsafe, same]
import torch
import torch.nn as nn


class Recommender(nn.Module):
    def __init__(self):
        super().__init__()
        self.items = nn.Embedding(50, 8, sparse=True)
        self.head = nn.Linear(8, 1)

    def forward(self, ids):
        return self.head(self.items(ids).mean(1))


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = Recommender().to(device)
dense = torch.optim.Adam(model.head.parameters(), lr=0.01)
sparse = torch.optim.SparseAdam(model.items.parameters(), lr=0.01)
ids = torch.randint(0, 50, (4, 3), device=device)
for step in range(3):
    loss = model(ids).pow(2).mean()
    dense.zero_grad()
    sparse.zero_grad()
    loss.backward()
    dense.step()
    sparse.step()
    print(round(loss.item(), 4))

# %% round 16: an optimizer already asked for foreach=True [none]
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
net = nn.Linear(3, 1).to(device)
opt = torch.optim.AdamW(net.parameters(), lr=0.01, foreach=True)
x = torch.randn(4, 3, device=device)
for step in range(3):
    loss = net(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 16: optimizer options from a config dict that sets foreach [none]
import torch
import torch.nn as nn

OPTIM = {"lr": 0.01, "weight_decay": 0.0, "foreach": False}
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
net = nn.Linear(3, 1).to(device)
opt = torch.optim.Adam(net.parameters(), **OPTIM)
x = torch.randn(4, 3, device=device)
for step in range(3):
    loss = net(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 16: complex filter taps made by NumPy's FFT and trained [none]
import numpy as np
import torch
import torch.nn as nn


class Filter(nn.Module):
    def __init__(self):
        super().__init__()
        self.taps = nn.Parameter(torch.from_numpy(np.fft.fft(np.hanning(8))).to(torch.complex64))

    def forward(self, x):
        return self.taps * x


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = Filter().to(device)
opt = torch.optim.Adam(model.parameters(), lr=0.01)
signal = torch.randn(8, dtype=torch.complex64, device=device)
for step in range(3):
    loss = model(signal).abs().pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 3))

# %% round 16: complex eigenvectors from NumPy's eig as a module's parameter [none]
import numpy as np
import torch
import torch.nn as nn


class Basis(nn.Module):
    def __init__(self):
        super().__init__()
        _, vecs = np.linalg.eig(np.random.default_rng(0).standard_normal((4, 4)))
        self.basis = nn.Parameter(torch.from_numpy(vecs))

    def forward(self):
        return (self.basis @ self.basis.conj().T).abs().sum()


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Basis().to(device)
opt = torch.optim.Adam(model.parameters(), lr=0.01)
for step in range(3):
    loss = model()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 3))

# %% round 16: a complex parameter restored from a checkpoint the program wrote [none]
import io

import torch
import torch.nn as nn


class Phase(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.zeros(4, 2))


buf = io.BytesIO()
torch.save({"w": torch.view_as_complex(torch.randn(4, 2))}, buf)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Phase()
buf.seek(0)
model.w = nn.Parameter(torch.load(buf)["w"])
model = model.to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
opt = torch.optim.Adam(model.parameters(), lr=0.01)
for step in range(3):
    loss = model.w.abs().pow(2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 3))

# %% round 16: complex parameters from np.exp of an imaginary NumPy unit [none]
import numpy as np
import torch
import torch.nn as nn

J = np.sqrt(np.array(-1, dtype=np.complex64))


class Rotor(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.from_numpy(np.exp(J * np.linspace(0, 1, 4, dtype=np.float32))))


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Rotor().to(device)
opt = torch.optim.AdamW(model.parameters(), lr=0.01)
for step in range(3):
    loss = model.w.real.sum() + model.w.imag.pow(2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 3))

# %% round 16: a half-precision model on the device trained by Adam [none]
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
net = nn.Linear(3, 1).to(device).half()
opt = torch.optim.Adam(net.parameters(), lr=0.01, eps=1e-4)
x = torch.randn(4, 3, device=device).half()
for step in range(3):
    loss = net(x).float().pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 2))

# %% round 16: a model split with a head left on the CPU, one Adam over both [none]
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
body = nn.Linear(3, 4).to(device)
head = nn.Linear(4, 1)
opt = torch.optim.Adam([*body.parameters(), *head.parameters()], lr=0.01)
x = torch.randn(4, 3, device=device)
for step in range(3):
    loss = head(body(x).cpu()).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: complex filter taps from rfft imported out of numpy.fft [none]
import numpy as np
import torch
import torch.nn as nn
from numpy.fft import rfft


class SpectralFilter(nn.Module):
    def __init__(self):
        super().__init__()
        taps = rfft(np.hanning(8))
        self.taps = nn.Parameter(torch.from_numpy(taps))

    def forward(self, x):
        return (x[..., :5] * self.taps).abs().sum(-1)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = SpectralFilter().to(device)
opt = torch.optim.Adam(model.parameters(), lr=0.01)
x = torch.randn(4, 8, device=device, dtype=torch.float64)
for step in range(3):
    loss = model(x).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: complex weights initialised by an fft module bound to another name [none]
import numpy as np
import torch
import torch.nn as nn

spectrum = np.fft


class Mixer(nn.Module):
    def __init__(self):
        super().__init__()
        init = spectrum.fft(np.linspace(0.0, 1.0, 6))
        self.w = nn.Parameter(torch.from_numpy(init))

    def forward(self, x):
        return (x.to(self.w.dtype) * self.w).real.sum(-1)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = Mixer().to(device)
opt = torch.optim.AdamW(model.parameters(), lr=0.01)
x = torch.randn(3, 6, device=device, dtype=torch.float64)
for step in range(3):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: complex parameter from NumPy's fft module imported under a short name [none]
import numpy as np
import torch
import torch.nn as nn
from numpy import fft as nfft


class Phase(nn.Module):
    def __init__(self):
        super().__init__()
        self.coef = nn.Parameter(torch.from_numpy(nfft.ifft(np.ones(4))))

    def forward(self, x):
        return (x * self.coef).abs().sum()


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Phase().to(device)
opt = torch.optim.Adam(model.parameters(), lr=0.01)
x = torch.randn(2, 4, device=device, dtype=torch.float64)
for step in range(3):
    loss = model(x)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: complex roots of a polynomial as learned poles [none]
import numpy as np
import torch
import torch.nn as nn


class Poles(nn.Module):
    def __init__(self):
        super().__init__()
        self.p = nn.Parameter(torch.from_numpy(np.roots([1.0, 0.0, 1.0])))

    def forward(self, x):
        return (x[:, None] - self.p).abs().sum()


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Poles().to(device)
opt = torch.optim.Adam(model.parameters(), lr=0.01)
x = torch.linspace(0, 1, 5, device=device, dtype=torch.float64)
for step in range(3):
    loss = model(x)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: eigenvalues of a rotation from numpy.linalg imported by name, trained [none]
import numpy as np
import torch
import torch.nn as nn
from numpy.linalg import eigvals


class Spectrum(nn.Module):
    def __init__(self):
        super().__init__()
        rot = np.array([[0.0, -1.0], [1.0, 0.0]])
        self.ev = nn.Parameter(torch.from_numpy(eigvals(rot)))

    def forward(self, x):
        return (x * self.ev).abs().sum()


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Spectrum().to(device)
opt = torch.optim.AdamW(model.parameters(), lr=0.01)
x = torch.ones(3, 2, device=device, dtype=torch.float64)
for step in range(3):
    loss = model(x)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: complex square roots from numpy.lib.scimath of a negative array [none]
import numpy as np
import torch
import torch.nn as nn
from numpy.lib import scimath


class Root(nn.Module):
    def __init__(self):
        super().__init__()
        self.r = nn.Parameter(torch.from_numpy(scimath.sqrt(np.array([-1.0, -4.0]))))

    def forward(self, x):
        return (x * self.r).abs().sum()


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Root().to(device)
opt = torch.optim.Adam(model.parameters(), lr=0.01)
x = torch.ones(2, device=device, dtype=torch.float64)
for step in range(3):
    loss = model(x)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: a half-precision model trained with Adam on the host [none]
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
net = nn.Linear(4, 2).to(device).bfloat16()
opt = torch.optim.Adam(net.parameters(), lr=0.01)
x = torch.randn(8, 4, device=device, dtype=torch.bfloat16)
for step in range(3):
    loss = net(x).float().pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 2))

# %% round 17: a non-contiguous transposed parameter trained by AdamW [unsafe, same]
import torch
import torch.nn as nn


class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(3, 4).t())

    def forward(self, x):
        return x @ self.w


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = Tied().to(device)
opt = torch.optim.AdamW(model.parameters(), lr=0.01, weight_decay=0.01)
x = torch.randn(5, 4, device=device)
for step in range(3):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: Adam whose gradients are set by hand, one of them transposed [none]
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
net = nn.Linear(3, 3, bias=False).to(device)
opt = torch.optim.Adam(net.parameters(), lr=0.01)
for step in range(3):
    g = torch.arange(9.0, device=device).reshape(3, 3) / 10
    net.weight.grad = g.t()
    opt.step()
    print(net.weight.sum().item().__round__(4))

# %% round 17: an Adam with differentiable chosen by a config value [none]
import torch
import torch.nn as nn

CFG = {"meta": False}
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
net = nn.Linear(3, 1).to(device)
opt = torch.optim.Adam(net.parameters(), lr=0.01, differentiable=CFG["meta"])
x = torch.randn(4, 3, device=device)
for step in range(3):
    loss = net(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: Adam with an explicit fused=None [none]
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
net = nn.Linear(3, 1).to(device)
opt = torch.optim.Adam(net.parameters(), lr=0.01, fused=None)
x = torch.randn(4, 3, device=device)
for step in range(3):
    loss = net(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: a parameter group added later with foreach set, over a linear head [unsafe, same]
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
body = nn.Linear(3, 3).to(device)
head = nn.Linear(3, 1).to(device)
opt = torch.optim.AdamW(body.parameters(), lr=0.01)
opt.add_param_group({"params": head.parameters(), "foreach": True})
x = torch.randn(4, 3, device=device)
for step in range(3):
    loss = head(body(x)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: complex steering weights from the fft function fetched by getattr [none]
import numpy as np
import torch
import torch.nn as nn

transform = getattr(np.fft, "fft")


class Beam(nn.Module):
    def __init__(self):
        super().__init__()
        self.steer = nn.Parameter(torch.from_numpy(transform(np.arange(4.0))))

    def forward(self, x):
        return (x * self.steer).abs().sum()


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = Beam().to(device)
opt = torch.optim.Adam(model.parameters(), lr=0.01)
x = torch.ones(2, 4, device=device, dtype=torch.float64)
for step in range(3):
    loss = model(x)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 18: learned spectral filter initialised from a tensor's stft method [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
wave = torch.randn(64)
spec = wave.stft(16, hop_length=8, window=torch.hann_window(16), return_complex=True)


class Filter(torch.nn.Module):
    def __init__(self, taps):
        super().__init__()
        self.taps = torch.nn.Parameter(taps.clone())

    def forward(self, x):
        return (x * self.taps).abs().sum()


model = Filter(spec[:, :2]).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for step in range(2):
    optimizer.zero_grad()
    loss = model(spec[:, :2].to(device))
    loss.backward()
    optimizer.step()
show(loss.detach().round(decimals=2))

# %% round 18: complex mixing matrix from a NumPy array of type code F [none]
import numpy as np
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
rng = np.random.default_rng(0)
init = np.zeros((3, 3), dtype="F")
init.real = rng.standard_normal((3, 3))
model = torch.nn.Module()
model.mix = torch.nn.Parameter(torch.from_numpy(init))
model = model.to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=0.05)
for _ in range(3):
    optimizer.zero_grad()
    model.mix.abs().pow(2).mean().backward()
    optimizer.step()
show(model.mix.detach().abs().sum().round(decimals=2))

# %% round 18: phase weights from a NumPy array made with dtype complex as a string [none]
import numpy as np
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
weights = np.ones(4, dtype="complex")
head = torch.nn.Linear(4, 1).to(device)
head.phase = torch.nn.Parameter(torch.from_numpy(weights).to(device))
optimizer = torch.optim.Adam(head.parameters(), lr=0.1)
for _ in range(2):
    optimizer.zero_grad()
    out = head(torch.ones(2, 4, device=device)).sum() + head.phase.abs().sum()
    out.backward()
    optimizer.step()
show(out.detach().round(decimals=2))

# %% round 18: complex poles of a type code D array trained by Adam [none]
import numpy as np
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
poles = torch.nn.ParameterList([torch.nn.Parameter(torch.from_numpy(np.full(2, 0.5, dtype="D")))])
module = torch.nn.Module()
module.poles = poles
module.to(device)
optimizer = torch.optim.Adam(module.parameters(), lr=0.01)
for _ in range(2):
    optimizer.zero_grad()
    module.poles[0].abs().sum().backward()
    optimizer.step()
show(module.poles[0].detach().abs().round(decimals=3))

# %% round 18: analytic signal through Tensor.stft called unbound [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
signal = torch.linspace(0, 1, 32)
frames = torch.Tensor.stft(signal, 8, window=torch.ones(8), return_complex=True)
model = torch.nn.Module()
model.basis = torch.nn.Parameter(frames[:2, :2].clone())
model = model.to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for _ in range(2):
    optimizer.zero_grad()
    model.basis.abs().sum().backward()
    optimizer.step()
show(model.basis.detach().abs().sum().round(decimals=2))

# %% round 18: Adam with a tensor learning rate and amsgrad on a moved model [unsafe, same]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1)).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=torch.tensor(0.01), amsgrad=True)
x = torch.randn(8, 3, device=device)
for _ in range(3):
    optimizer.zero_grad()
    model(x).pow(2).mean().backward()
    optimizer.step()
show(model(x).mean().round(decimals=2))

# %% round 18: Adam with a GradScaler under CPU autocast after a move [unsafe, same]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(4, 2).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=0.01)
scaler = torch.amp.GradScaler(device.type)
x = torch.randn(8, 4, device=device)
for _ in range(3):
    optimizer.zero_grad()
    with torch.autocast(device.type):
        loss = model(x).float().pow(2).mean()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
show(loss.detach().round(decimals=2))

# %% round 18: an optimizer over a frozen integer step counter parameter and a linear layer [unsafe, same]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(2, 1)
model.steps = torch.nn.Parameter(torch.zeros((), dtype=torch.long), requires_grad=False)
model = model.to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=0.1)
for _ in range(2):
    optimizer.zero_grad()
    model(torch.ones(3, 2, device=device)).sum().backward()
    optimizer.step()
    model.steps += 1
show(model.steps, model.weight.detach().round(decimals=2))

# %% round 18: complex parameter built as real plus imaginary unit times a tensor in a helper module [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
J = complex(0, 1)


class Rotor(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.ones(3) + J * torch.zeros(3))


rotor = Rotor().to(device)
optimizer = torch.optim.Adam(rotor.parameters(), lr=0.1)
for _ in range(2):
    optimizer.zero_grad()
    rotor.w.abs().sum().backward()
    optimizer.step()
show(rotor.w.detach().real.round(decimals=2))

# %% round 18: complex weights from torch.fft.ihfft of a real kernel [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
from torch.fft import ihfft

kernel = ihfft(torch.arange(8.0)).resolve_conj()
layer = torch.nn.Module()
layer.k = torch.nn.Parameter(kernel)
layer.to(device)
optimizer = torch.optim.Adam(layer.parameters())
for _ in range(2):
    optimizer.zero_grad()
    layer.k.abs().sum().backward()
    optimizer.step()
show(layer.k.detach().abs().sum().round(decimals=2))

# %% round 18: learned poles initialised from np.polynomial.polynomial.polyroots of a filter [none]
import numpy as np
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
roots = np.polynomial.polynomial.polyroots([1.0, 0.0, 1.0])
poles = torch.nn.Module()
poles.p = torch.nn.Parameter(torch.from_numpy(roots))
poles = poles.to(device)
optimizer = torch.optim.Adam(poles.parameters(), lr=0.01)
for _ in range(2):
    optimizer.zero_grad()
    poles.p.abs().sum().backward()
    optimizer.step()
show(poles.p.detach().abs().round(decimals=3))

# %% round 18: complex filter taps from a Chebyshev series' roots method [none]
import numpy as np
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
series = np.polynomial.Chebyshev([2.0, 0.0, 1.0])
taps = torch.nn.Module()
taps.t = torch.nn.Parameter(torch.from_numpy(series.roots()))
taps.to(device)
optimizer = torch.optim.AdamW(taps.parameters(), lr=0.01)
for _ in range(2):
    optimizer.zero_grad()
    taps.t.abs().sum().backward()
    optimizer.step()
show(taps.t.detach().abs().round(decimals=3))

# %% round 18: learned poles initialised from the roots attribute of a np.poly1d filter [none]
import numpy as np
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
denominator = np.poly1d([1.0, 0.5, 1.0])
model = torch.nn.Module()
model.poles = torch.nn.Parameter(torch.from_numpy(denominator.r))
model = model.to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for _ in range(2):
    optimizer.zero_grad()
    model.poles.abs().sum().backward()
    optimizer.step()
show(model.poles.detach().abs().round(decimals=3))

# %% round 19: a spectral layer whose complex weight dtype is looked up by a computed name [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
precision = 32
layer = torch.nn.Module()
layer.w = torch.nn.Parameter(torch.ones(4, dtype=getattr(torch, f"complex{2 * precision}")))
layer.to(device)
opt = torch.optim.Adam(layer.parameters(), lr=0.01)
for step in range(2):
    loss = (layer.w.abs() ** 2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 19: a spectral layer whose weights take the complex counterpart of the default dtype [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
layer = torch.nn.Module()
layer.w = torch.nn.Parameter(torch.ones(4, dtype=torch.get_default_dtype().to_complex()))
layer.to(device)
opt = torch.optim.Adam(layer.parameters(), lr=0.01)
for step in range(2):
    loss = (layer.w.abs() ** 2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 19: a moved model whose dtype is looked up with getattr of a literal float name [unsafe, same]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(4, 2).to(device, getattr(torch, "float64"))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
for step in range(2):
    loss = model(torch.randn(3, 4, dtype=torch.float64).to(device)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 19: complex weights whose dtype is looked up by a name joined from two strings [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
kind = getattr(torch, "complex" + "64")
layer = torch.nn.Module()
layer.w = torch.nn.Parameter(torch.ones(4, dtype=kind))
layer.to(device)
w = layer.w
opt = torch.optim.Adam(layer.parameters(), lr=0.01)
for step in range(2):
    loss = (w.abs() ** 2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 19 (second batch): item embeddings looked up by F.embedding with sparse gradients, trained by Adam [unsafe, same]
import torch
import torch.nn.functional as F

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Recommender(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.table = torch.nn.Parameter(torch.randn(10, 4))
        self.head = torch.nn.Linear(4, 1)

    def forward(self, ids):
        return self.head(F.embedding(ids, self.table, sparse=True)).squeeze(-1)


torch.manual_seed(0)
model = Recommender().to(device)
optimizer = torch.optim.SparseAdam([model.table], lr=0.01)
dense = torch.optim.Adam(model.head.parameters(), lr=0.01)
for step in range(2):
    optimizer.zero_grad()
    dense.zero_grad()
    model(torch.tensor([1, 2, 3], device=device)).sum().backward()
    optimizer.step()
    dense.step()
show(model.head.weight.round(decimals=3))

# %% round 19 (second batch): bag embeddings from nn.EmbeddingBag with sparse gradients, trained by Adam [unsafe, same]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.EmbeddingBag(10, 4, mode="mean", sparse=True), torch.nn.Linear(4, 1)).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for step in range(2):
    optimizer.zero_grad()
    model(torch.tensor([[1, 2], [3, 4]], device=device)).sum().backward()
    try:
        optimizer.step()
    except RuntimeError as e:
        print("sparse", type(e).__name__)
show(model[1].weight.round(decimals=3))

# %% round 19 (second batch): pretrained embeddings loaded with from_pretrained and sparse gradients [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
emb = torch.nn.Embedding.from_pretrained(torch.randn(10, 4), freeze=False, sparse=True)
head = torch.nn.Linear(4, 1)
model = torch.nn.Sequential(emb, head).to(device)
optimizer = torch.optim.Adagrad(emb.parameters(), lr=0.1)
head_opt = torch.optim.Adam(head.parameters(), lr=0.01)
for step in range(2):
    optimizer.zero_grad()
    head_opt.zero_grad()
    model(torch.tensor([1, 2], device=device)).sum().backward()
    optimizer.step()
    head_opt.step()
show(head.weight.round(decimals=3))

# %% round 19 (second batch): an Adam subclass of the file whose constructor takes only params and lr [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class WarmAdam(torch.optim.Adam):
    def __init__(self, params, lr):
        super().__init__(params, lr=lr, betas=(0.8, 0.99))


torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
optimizer = WarmAdam(model.parameters(), lr=0.01)
for step in range(2):
    optimizer.zero_grad()
    model(torch.ones(2, 3, device=device)).sum().backward()
    optimizer.step()
show(model.weight.round(decimals=3))

# %% round 19 (second batch): AdamW built from a config dict unpacked into its keywords [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
cfg = {"lr": 0.01, "weight_decay": 0.01, "foreach": True}
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
optimizer = torch.optim.AdamW(model.parameters(), **cfg)
for step in range(2):
    optimizer.zero_grad()
    model(torch.ones(2, 3, device=device)).sum().backward()
    optimizer.step()
show(model.weight.round(decimals=3))

# %% round 19 (second batch): Adam over half-precision parameters of a model moved to the device [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device).to(torch.bfloat16)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01, eps=1e-4)
for step in range(2):
    optimizer.zero_grad()
    model(torch.ones(2, 3, device=device, dtype=torch.bfloat16)).float().sum().backward()
    optimizer.step()
show(model.weight.float().round(decimals=2))

# %% round 21: a filter whose parameter holds roots of unity computed as a fractional power of -1 [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Filter(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.proj = torch.nn.Linear(n, n)
        self.roots = torch.nn.Parameter(torch.tensor([(-1) ** (2 * k / n) for k in range(n)]))

    def forward(self, x):
        return (self.proj(x) * self.roots).abs()


model = Filter(4).to(device)
opt = torch.optim.Adam(model.parameters(), lr=0.01)
x = torch.ones(2, 4, device=device)
for step in range(3):
    opt.zero_grad()
    model(x).sum().backward()
    opt.step()
show(model.roots.abs().round(decimals=4))

# %% round 21: Adam whose gradients a sign-averaging helper replaces with expanded tensors [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(4, 2).to(device)
opt = torch.optim.Adam(model.parameters(), lr=0.1, weight_decay=0.01)
x = torch.randn(8, 4, device=device)
for step in range(3):
    opt.zero_grad()
    model(x).pow(2).mean().backward()
    for p in model.parameters():
        p.grad = p.grad.sign().mean().expand_as(p)
    opt.step()
show(model.weight.round(decimals=3))

# %% round 22: meta-learning outer step whose gradients are sliced from a flat buffer with a stride [none]
import torch
import torch.nn as nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
net = nn.Linear(4, 3).to(device)
opt = torch.optim.Adam(net.parameters(), lr=0.05)
x = torch.randn(8, 4)
for step in range(3):
    loss = net(x).pow(2).mean()
    flat = torch.autograd.grad(loss, list(net.parameters()))
    big = torch.cat([g.reshape(-1) for g in flat]).repeat_interleave(2)
    net.weight.grad = big[: 2 * 12 : 2].view(3, 4)
    net.bias.grad = big[24::2]
    opt.step()
    show(net.weight, net.bias)

# %% round 22: tied autoencoder whose decoder gradient is the encoder's transposed [none]
import torch
import torch.nn as nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
enc = nn.Linear(6, 3, bias=False).to(device)
dec = nn.Linear(3, 6, bias=False).to(device)
opt = torch.optim.AdamW(list(enc.parameters()) + list(dec.parameters()), lr=0.05)
x = torch.randn(5, 6)
for step in range(3):
    opt.zero_grad()
    loss = (dec(enc(x)) - x).pow(2).mean()
    loss.backward()
    dec.weight.grad = enc.weight.grad.T
    opt.step()
    show(dec.weight)

# %% round 22: gradients set through setattr from a permuted buffer [none]
import torch
import torch.nn as nn
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
conv = nn.Conv2d(2, 3, 1, bias=False).to(device)
opt = torch.optim.Adam(conv.parameters(), lr=0.1)
for step in range(3):
    g = torch.arange(6.0).reshape(1, 1, 3, 2).permute(2, 3, 0, 1) / (step + 1)
    setattr(conv.weight, "grad", g)
    opt.step()
    show(conv.weight)

# %% round 24: an embedding built from_pretrained over a column slice of a vector table [none]
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
vectors = torch.randn(10, 8)
model = nn.Sequential(nn.Embedding.from_pretrained(vectors[:, :4], freeze=False), nn.Linear(4, 1)).to(device)
opt = torch.optim.Adam(model.parameters(), lr=0.05)
ids = torch.tensor([[1, 2, 3], [4, 5, 6]])
for step in range(3):
    loss = model(ids.to(device)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(model[0].weight[:3], round(loss.item(), 5))

# %% round 24: a head whose weight is a parameter made from every other column of a pretrained matrix [none]
import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self, pretrained):
        super().__init__()
        self.weight = nn.Parameter(pretrained[:, ::2])

    def forward(self, x):
        return x @ self.weight.T


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = Head(torch.randn(3, 8)).to(device)
opt = torch.optim.AdamW(model.parameters(), lr=0.05)
x = torch.randn(5, 4)
for step in range(3):
    loss = model(x.to(device)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(model.weight, round(loss.item(), 5))

# %% round 24: a parameter made from a transposed pretrained matrix (dense, other order) [unsafe]
import torch
import torch.nn as nn


class Head(nn.Module):
    def __init__(self, pretrained):
        super().__init__()
        self.weight = nn.Parameter(pretrained.T)

    def forward(self, x):
        return x @ self.weight.T


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = Head(torch.randn(4, 3)).to(device)
opt = torch.optim.Adam(model.parameters(), lr=0.05)
x = torch.randn(5, 4)
for step in range(3):
    loss = model(x.to(device)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(model.weight, round(loss.item(), 5))

# %% round 24: a linear layer whose weight is replaced by a narrowed slice of a larger parameter [none]
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
big = torch.randn(3, 6)
model = nn.Linear(4, 3)
model.weight = nn.Parameter(big.narrow(1, 1, 4))
model = model.to(device)
opt = torch.optim.Adam(model.parameters(), lr=0.05)
x = torch.randn(5, 4)
for step in range(3):
    loss = model(x.to(device)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(model.weight, round(loss.item(), 5))

# %% round 24: an Adam over a model whose options come from a dataclass with foreach set [none]
import dataclasses
import torch
import torch.nn as nn


@dataclasses.dataclass
class OptimConfig:
    lr: float = 0.05
    foreach: bool = True


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
cfg = OptimConfig()
model = nn.Linear(4, 1).to(device)
opt = torch.optim.Adam(model.parameters(), **dataclasses.asdict(cfg))
x = torch.randn(5, 4)
for step in range(3):
    loss = model(x.to(device)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(model, round(loss.item(), 5))

# %% round 24: an Adam made through functools.partial that fixes foreach=True [none]
import functools
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
make_opt = functools.partial(torch.optim.Adam, foreach=True)
model = nn.Linear(4, 1).to(device)
opt = make_opt(model.parameters(), lr=0.05)
x = torch.randn(5, 4)
for step in range(3):
    loss = model(x.to(device)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(model, round(loss.item(), 5))

# %% round 24: an Adam over a model converted to bfloat16, in a loop with a match on the step [unsafe]
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = nn.Linear(4, 1).to(device, dtype=torch.bfloat16)
opt = torch.optim.Adam(model.parameters(), lr=0.05)
x = torch.randn(5, 4, dtype=torch.bfloat16)
for step in range(3):
    loss = model(x.to(device)).float().pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    match step:
        case 2:
            show(model, round(loss.item(), 2))
        case _:
            pass

# %% round 24: an Adam whose weights are tied to a column slice of another layer by assignment [none]
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
enc = nn.Linear(6, 3)
dec = nn.Linear(3, 4)
dec.weight = nn.Parameter(enc.weight.detach().T[:4])
model = nn.Sequential(enc, dec).to(device)
opt = torch.optim.Adam(model.parameters(), lr=0.05)
x = torch.randn(5, 6)
for step in range(3):
    loss = model(x.to(device)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(dec.weight, round(loss.item(), 5))
