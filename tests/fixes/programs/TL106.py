# %% control: tensors from a pinned loader [safe]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
data = TensorDataset(torch.arange(8.0).reshape(4, 2), torch.arange(4))
loader = DataLoader(data, batch_size=2, pin_memory=True)
for x, y in loader:
    show(x.to(device), y.to(device))

# %% batch elements from a dict [safe]
import torch
from torch.utils.data import DataLoader

device = torch.device("cpu")
data = [{"x": torch.ones(2) * i} for i in range(4)]
loader = DataLoader(data, batch_size=2, pin_memory=True)
for batch in loader:
    show(batch["x"].to(device))

# %% a batch class with its own to() [none]
import torch
from torch.utils.data import DataLoader

class Batch:
    def __init__(self, items):
        self.x = torch.stack(items)

    def to(self, device):
        self.x = self.x.to(device)
        return self

device = torch.device("cpu")
loader = DataLoader([torch.ones(2)] * 4, batch_size=2, pin_memory=True, collate_fn=Batch)
for batch in loader:
    show(batch.to(device).x)

# %% a collate_fn that returns tensors [unsafe, same]
import torch
from torch.utils.data import DataLoader

device = torch.device("cpu")
loader = DataLoader([torch.ones(2)] * 4, batch_size=2, pin_memory=True, collate_fn=torch.stack)
for x in loader:
    show(x.to(device))

# %% a to() method that takes keywords [safe]
import torch
from torch.utils.data import DataLoader

class Holder:
    def to(self, device, **options):
        return device

device = torch.device("cpu")
loader = DataLoader([torch.ones(2)] * 4, batch_size=2, pin_memory=True)
for x in loader:
    show(x.to(device))

# %% the batch is changed in place before the move [none]
import torch
from torch.utils.data import DataLoader

device = torch.device("cpu")
loader = DataLoader([torch.ones(2)] * 4, batch_size=2, pin_memory=True)
for x in loader:
    x.mul_(2)
    show(x.to(device))

# %% the move already names non_blocking [none]
import torch
from torch.utils.data import DataLoader

device = torch.device("cpu")
loader = DataLoader([torch.ones(2)] * 4, batch_size=2, pin_memory=True)
for x in loader:
    show(x.to(device, non_blocking=False))

# %% parts of a batch bound to names, moved before a rebinding [safe]
import torch
from torch.utils.data import DataLoader

device = torch.device("cpu")
data = [{"x": torch.ones(2) * i, "y": torch.tensor(i)} for i in range(4)]
loader = DataLoader(data, batch_size=2, pin_memory=True)
for batch in loader:
    images, labels = batch["x"], batch["y"]
    images = images.to(device)
    images = images * 2
    show(images, labels.to(device))

# %% a loader handed to a function, pinned through a **loader_args dict [unsafe, same]
import torch
from torch.utils.data import DataLoader

device = torch.device("cpu")
loader_args = dict(batch_size=2, pin_memory=True)
loader = DataLoader([torch.ones(2) * i for i in range(4)], **loader_args)

def run(data_loader):
    for x in data_loader:
        show(x.to(device) + 1)

run(loader)

# %% a NamedTuple batch whose to() is bound by assignment [none]
from typing import NamedTuple

import torch
from torch.utils.data import DataLoader


def _move(self, device):
    return Pair(self.x.to(device), self.y.to(device))


class Pair(NamedTuple):
    x: torch.Tensor
    y: torch.Tensor
    to = _move


device = torch.device("cpu")
data = [Pair(torch.ones(2) * i, torch.tensor(float(i))) for i in range(4)]
loader = DataLoader(data, batch_size=2, pin_memory=True)
torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for batch in loader:
        batch = batch.to(device)
        loss = (model(batch.x).squeeze(1) - batch.y).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
show(model)

# %% items made by a class built with type() [none]
import torch
from torch.utils.data import DataLoader, Dataset

def _move(self, device):
    return self.data.to(device)

Batch = type("Batch", (), {"to": _move})

class Chunks(Dataset):
    def __len__(self):
        return 3

    def __getitem__(self, i):
        item = Batch()
        item.data = torch.ones(2) * i
        return item

device = torch.device("cpu")
loader = DataLoader(Chunks(), batch_size=None, pin_memory=True)
for epoch in range(2):
    for batch in loader:
        show(batch.to(device))

# %% to() bound at run time: assigned to one batch class, set with setattr on another [none]
import torch
from torch.utils.data import DataLoader, Dataset


class Image:
    def __init__(self, data):
        self.data = data


class Caption:
    def __init__(self, data):
        self.data = data


def _move(self, device):
    return self.data.to(device)


Image.to = _move
setattr(Caption, "to", lambda self, device: self.data.to(device) + 100)


class Chunks(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return (Image if i % 2 else Caption)(torch.ones(2) * i)


device = torch.device("cpu")
loader = DataLoader(Chunks(), batch_size=None, pin_memory=True)
for epoch in range(2):
    for batch in loader:
        show(batch.to(device))

# %% a batch that forwards attribute reads to a tensor [none]
import torch
from torch.utils.data import DataLoader, Dataset

class Wrapped:
    def __init__(self, data):
        self.data = data

    def __getattr__(self, name):
        if name == "to":
            return lambda device: Wrapped(self.data.to(device))
        raise AttributeError(name)

class Chunks(Dataset):
    def __len__(self):
        return 3

    def __getitem__(self, i):
        return Wrapped(torch.ones(2) * i)

device = torch.device("cpu")
loader = DataLoader(Chunks(), batch_size=None, pin_memory=True)
for epoch in range(2):
    for batch in loader:
        show(batch.to(device).data)

# %% a dataset that batches itself, loader with batch_size=None [unsafe, same]
import torch
from torch.utils.data import DataLoader, Dataset

class Chunks(Dataset):
    def __len__(self):
        return 3

    def __getitem__(self, i):
        return torch.arange(4.0) + i

device = torch.device("cpu")
loader = DataLoader(Chunks(), batch_size=None, pin_memory=True)
for epoch in range(2):
    for x in loader:
        show(x.to(device))

# %% a class decorator adds to() through setattr with a variable name [none]
import torch
from torch.utils.data import DataLoader

def device_methods(cls):
    for method in ("to", "cuda"):
        setattr(cls, method, lambda self, *args, _m=method: cls({k: getattr(v, _m)(*args) for k, v in self.items()}))
    return cls

@device_methods
class Sample(dict):
    pass

device = torch.device("cpu")
loader = DataLoader([Sample(x=torch.ones(3) * i) for i in range(4)], batch_size=2, pin_memory=True)
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for batch in loader:
        opt.zero_grad()
        model(batch.to(device)["x"]).mean().backward()
        opt.step()
    print(epoch, model.weight.sum().item())

# %% a __getattr__ bound by assignment forwards to the first tensor [none]
import torch
from torch.utils.data import DataLoader

class Wrapped(dict):
    __getattr__ = lambda self, name: (lambda device: Wrapped({k: v.to(device) for k, v in self.items()}))

device = torch.device("cpu")
loader = DataLoader([Wrapped(x=torch.ones(2) * i) for i in range(4)], batch_size=2, pin_memory=True)
model = torch.nn.Linear(2, 1)
opt = torch.optim.Adam(model.parameters(), lr=0.01)


def train_step(inputs):
    loss = torch.nn.functional.mse_loss(model(inputs), torch.zeros(len(inputs), 1))
    loss.backward()
    opt.step()
    opt.zero_grad()
    return loss.item()


for epoch in range(2):
    for batch in loader:
        print(epoch, train_step(batch.to(device)["x"]))

# %% to() assigned under a feature switch in the class body [none]
import torch
from torch.utils.data import DataLoader

MOVABLE = True

def _move(self, device):
    return Sample({k: v.to(device) for k, v in self.items()})

class Sample(dict):
    if MOVABLE:
        to = _move

device = torch.device("cpu")
loader = DataLoader([Sample(x=torch.ones(2) * i) for i in range(4)], batch_size=2, pin_memory=True)
net = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Tanh(), torch.nn.Linear(2, 1))
sgd = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
history = []
for epoch in range(2):
    for step, batch in enumerate(loader):
        features = batch.to(device)["x"]
        objective = net(features).abs().sum()
        sgd.zero_grad()
        objective.backward()
        sgd.step()
        history.append((epoch, step, round(objective.item(), 5)))
print(history)

# %% round 7: a NamedTuple item whose to is bound by assignment, batch_size=None [none]
import torch
from typing import NamedTuple
from torch.utils.data import DataLoader

def _move(self, device):
    return Sample(self.x.to(device), self.y.to(device))

class Sample(NamedTuple):
    x: torch.Tensor
    y: torch.Tensor
    to = _move

device = torch.device("cpu")
data = [Sample(torch.ones(2) * i, torch.tensor(i)) for i in range(4)]
loader = DataLoader(data, batch_size=None, pin_memory=True)
for batch in loader:
    batch = batch.to(device)
    show(batch.x, batch.y)

# %% round 7: a base class in the file binds to by assignment, the batch class inherits it [none]
import torch
from torch.utils.data import DataLoader

class Movable:
    def _move(self, device):
        self.x = self.x.to(device)
        return self
    to = _move

class Pair(Movable):
    def __init__(self, xs):
        self.x = torch.stack(xs)

device = torch.device("cpu")
loader = DataLoader([torch.ones(2)] * 4, batch_size=2, pin_memory=True, collate_fn=Pair)
for batch in loader:
    show(batch.to(device).x)

# %% round 7: collections.namedtuple item with a to attribute added later [none]
import torch
from collections import namedtuple
from torch.utils.data import DataLoader

Item = namedtuple("Item", ["x", "y"])
Item.to = lambda self, device: Item(self.x.to(device), self.y.to(device))

device = torch.device("cpu")
data = [Item(torch.ones(2) * i, torch.tensor(i)) for i in range(4)]
loader = DataLoader(data, batch_size=None, pin_memory=True)
for item in loader:
    item = item.to(device)
    show(item.x)

# %% round 7: a dataclass batch with a lambda to in a class body [none]
import torch
from dataclasses import dataclass
from torch.utils.data import DataLoader

@dataclass
class Batch:
    x: torch.Tensor
    to = lambda self, device: Batch(self.x.to(device))

def collate(items):
    return Batch(torch.stack(items))

device = torch.device("cpu")
loader = DataLoader([torch.ones(3)] * 4, batch_size=2, pin_memory=True, collate_fn=collate)
for batch in loader:
    show(batch.to(device).x)

# %% round 7: to bound by functools.partialmethod [none]
import functools
import torch
from torch.utils.data import DataLoader

class Batch:
    def __init__(self, items):
        self.x = torch.stack(items)
    def _move(self, device, copy):
        self.x = self.x.to(device, copy=copy)
        return self
    to = functools.partialmethod(_move, copy=False)

device = torch.device("cpu")
loader = DataLoader([torch.ones(2)] * 4, batch_size=2, pin_memory=True, collate_fn=Batch)
for batch in loader:
    show(batch.to(device).x)

# %% round 7: a dict subclass batch returned from collate with a to method set by setattr [none]
import torch
from torch.utils.data import DataLoader

class Features(dict):
    pass

def _to(self, device):
    return Features({k: v.to(device) for k, v in self.items()})

setattr(Features, "to", _to)

def collate(items):
    return Features(x=torch.stack(items))

device = torch.device("cpu")
loader = DataLoader([torch.ones(2)] * 4, batch_size=2, pin_memory=True, collate_fn=collate)
for batch in loader:
    show(batch.to(device)["x"])

# %% round 7: a tensor subclass dataset item that overrides to [none]
import torch
from torch.utils.data import DataLoader

class Tagged(torch.Tensor):
    def to(self, device):
        return torch.Tensor.to(self, device).as_subclass(Tagged)

device = torch.device("cpu")
data = [torch.ones(2).as_subclass(Tagged) * i for i in range(4)]
loader = DataLoader(data, batch_size=None, pin_memory=True)
for x in loader:
    show(x.to(device))

# %% round 7: a pinned loader over a dataset returning tuples of tensor and string [safe]
import torch
from torch.utils.data import DataLoader

device = torch.device("cpu")
data = [(torch.ones(2) * i, f"id{i}") for i in range(4)]
loader = DataLoader(data, batch_size=2, pin_memory=True)
for x, ids in loader:
    show(x.to(device), ids)

# %% round 8: pinned loader with a sampler and a seeded generator [safe]
import torch
from torch.utils.data import DataLoader, RandomSampler, TensorDataset

device = torch.device("cpu")
g = torch.Generator().manual_seed(3)
data = TensorDataset(torch.arange(12.0).reshape(6, 2), torch.arange(6))
loader = DataLoader(data, batch_size=2, sampler=RandomSampler(data, generator=g), pin_memory=True)
model = torch.nn.Linear(2, 1)
for epoch in range(2):
    for x, y in loader:
        x = x.to(device)
        loss = model(x).sum()
        loss.backward()
        show(x, y.to(device))

# %% round 8: integer, bool and half batches from a pinned loader [safe]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
data = TensorDataset(torch.arange(4), torch.tensor([True, False, True, True]), torch.ones(4, dtype=torch.float16))
loader = DataLoader(data, batch_size=2, pin_memory=True)
for epoch in range(2):
    for ids, flags, weights in loader:
        show(ids.to(device), flags.to(device), weights.to(device))

# %% round 8: a dataset item class whose to is added by a class decorator [none]
import torch
from torch.utils.data import DataLoader


def movable(cls):
    def to(self, device):
        return self.x.to(device) + 100
    cls.to = to
    return cls


@movable
class Item:
    def __init__(self, x):
        self.x = x


device = torch.device("cpu")
loader = DataLoader([Item(torch.ones(2)) for _ in range(2)], batch_size=None, pin_memory=True)
for epoch in range(2):
    for item in loader:
        show(item.to(device))

# %% round 8: a dict batch from default collation with a tensor and a list of strings [safe]
import torch
from torch.utils.data import DataLoader

device = torch.device("cpu")
data = [{"x": torch.ones(2) * i, "name": f"item{i}"} for i in range(4)]
loader = DataLoader(data, batch_size=2, pin_memory=True)
model = torch.nn.Linear(2, 1)
for epoch in range(2):
    for batch in loader:
        x = batch["x"].to(device)
        model(x).sum().backward()
        show(x, batch["name"])

# %% round 9: a NamedTuple batch whose to() pins the batch when asked for non_blocking [none]
from typing import NamedTuple
import torch
from torch.utils.data import DataLoader

class Pair(NamedTuple):
    x: torch.Tensor
    y: torch.Tensor

    def to(self, device, non_blocking=False):
        if non_blocking:
            return Pair(self.x.pin_memory().to(device), self.y.pin_memory().to(device))
        return Pair(self.x.to(device), self.y.to(device))

device = torch.device("cpu")
data = [Pair(torch.ones(2) * i, torch.tensor(i)) for i in range(4)]
loader = DataLoader(data, batch_size=2, pin_memory=True)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for batch in loader:
    batch = batch.to(device)
    loss = model(batch.x).sum()
    opt.zero_grad(); loss.backward(); opt.step()
    print(batch.y.tolist())

# %% round 9: control, an int64 label tensor moved with a dtype and copy [safe]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
data = TensorDataset(torch.arange(8.0).reshape(4, 2), torch.arange(4))
loader = DataLoader(data, batch_size=2, shuffle=True, pin_memory=True, generator=torch.Generator().manual_seed(0))
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for x, y in loader:
        x = x.to(device, torch.float64, copy=True)
        y = y.to(device)
        loss = model(x.float()).sum()
        opt.zero_grad(); loss.backward(); opt.step()
        print(y.tolist(), x.dtype)

# %% round 10: a NamedTuple batch whose to() takes non_blocking positionally only [none]
from typing import NamedTuple
import torch
from torch import nn
from torch.utils.data import DataLoader

class Pair(NamedTuple):
    x: torch.Tensor
    y: torch.Tensor

    def to(self, device, non_blocking=False, /):
        return Pair(self.x.to(device, non_blocking=non_blocking), self.y.to(device, non_blocking=non_blocking))

torch.manual_seed(0)
device = torch.device("cpu")
items = [Pair(torch.full((2,), float(i)), torch.tensor(i % 2)) for i in range(4)]
loader = DataLoader(items, batch_size=2, pin_memory=True)
model = nn.Linear(2, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for batch in loader:
    batch = batch.to(device)
    loss = nn.functional.cross_entropy(model(batch.x), batch.y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 6))

# %% round 10: a NamedTuple batch whose to() takes only positional arguments [none]
from typing import NamedTuple
import torch
from torch import nn
from torch.utils.data import DataLoader

class Pair(NamedTuple):
    x: torch.Tensor
    y: torch.Tensor

    def to(self, *args):
        return Pair(self.x.to(*args), self.y.to(*args))

torch.manual_seed(0)
device = torch.device("cpu")
items = [Pair(torch.full((2,), float(i)), torch.tensor(i % 2)) for i in range(4)]
loader = DataLoader(items, batch_size=2, pin_memory=True)
model = nn.Linear(2, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for batch in loader:
    batch = batch.to(device)
    loss = nn.functional.cross_entropy(model(batch.x), batch.y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 6))

# %% round 10: to() attached to the NamedTuple batch class with setattr over an unpacked pair [none]
from typing import NamedTuple
import torch
from torch import nn
from torch.utils.data import DataLoader

class Pair(NamedTuple):
    x: torch.Tensor
    y: torch.Tensor

def _move(self, device):
    return Pair(self.x.to(device), self.y.to(device))

setattr(Pair, *("to", _move))
torch.manual_seed(0)
device = torch.device("cpu")
items = [Pair(torch.full((2,), float(i)), torch.tensor(i % 2)) for i in range(4)]
loader = DataLoader(items, batch_size=2, pin_memory=True)
model = nn.Linear(2, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for batch in loader:
    batch = batch.to(device)
    loss = nn.functional.cross_entropy(model(batch.x), batch.y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 6))

# %% round 10: a NamedTuple batch whose to() is a staticmethod of a module function [none]
from typing import NamedTuple
import torch
from torch import nn
from torch.utils.data import DataLoader

def move(batch, device):
    return type(batch)(batch.x.to(device), batch.y.to(device))

class Pair(NamedTuple):
    x: torch.Tensor
    y: torch.Tensor
    to = lambda self, device: move(self, device)

torch.manual_seed(0)
device = torch.device("cpu")
items = [Pair(torch.full((2,), float(i)), torch.tensor(i % 2)) for i in range(4)]
loader = DataLoader(items, batch_size=2, pin_memory=True)
model = nn.Linear(2, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for batch in loader:
    batch = batch.to(device)
    loss = nn.functional.cross_entropy(model(batch.x), batch.y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 6))

# %% round 10: control, bool masks and half features from a pinned loader with a stateful sampler [safe]
import torch
from torch import nn
from torch.utils.data import DataLoader, Sampler

class EveryOther(Sampler):
    def __init__(self, n):
        self.n, self.epoch = n, 0

    def __iter__(self):
        start = self.epoch % 2
        self.epoch += 1
        return iter(range(start, self.n, 2))

    def __len__(self):
        return self.n // 2

torch.manual_seed(0)
device = torch.device("cpu")
feats = torch.randn(8, 3).half()
masks = torch.arange(8) % 3 == 0
data = list(zip(feats, masks))
loader = DataLoader(data, batch_size=2, sampler=EveryOther(8), pin_memory=True)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for x, m in loader:
        x, m = x.to(device), m.to(device)
        loss = (model(x.float()).squeeze(1) * m).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(m.dtype, x.dtype, round(loss.item(), 6))

# %% round 11: control, a tuple batch moved by a list comprehension [safe]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2), torch.arange(4.0)), batch_size=2, pin_memory=True)
for batch in loader:
    batch = [t.to(device) for t in batch]
    loss = ((model(batch[0]).squeeze(1) - batch[1]) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(loss)

# %% round 11: a dict batch with a string field, moved by a conditional dict comprehension [safe]
import torch
from torch.utils.data import DataLoader

device = torch.device("cpu")
data = [{"x": torch.full((2,), float(i)), "name": f"item{i}"} for i in range(4)]
loader = DataLoader(data, batch_size=2, pin_memory=True)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for batch in loader:
    batch = {k: v.to(device) if torch.is_tensor(v) else v for k, v in batch.items()}
    loss = model(batch["x"]).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(batch["name"], loss)

# %% round 11: a dict comprehension filtered by isinstance over the batch entries [safe]
import torch
from torch.utils.data import DataLoader

device = torch.device("cpu")
data = [{"x": torch.ones(3) * i, "y": i % 2, "path": f"/data/{i}.png"} for i in range(6)]
loader = DataLoader(data, batch_size=3, pin_memory=True)
model = torch.nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for batch in loader:
    inputs = {k: v.to(device) for k, v in batch.items() if isinstance(v, torch.Tensor)}
    loss = torch.nn.functional.cross_entropy(model(inputs["x"]), inputs["y"])
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(sorted(inputs), batch["path"], loss)

# %% round 11: the loop's batch name reused by a comprehension over attention block masks [none]
import torch
from torch.nn.attention.flex_attention import create_block_mask
from torch.utils.data import DataLoader


def causal(b, h, q, k):
    return q >= k


device = torch.device("cpu")
block_masks = [create_block_mask(causal, None, None, 128, 128, device="cpu")]
loader = DataLoader([torch.ones(4) * i for i in range(4)], batch_size=2, pin_memory=True)
model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x in loader:
    masks = [x.to(device) for x in block_masks]
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(masks[0].shape, loss)

# %% round 11: one statement joins the batch's moved tensors and block masks under the same element name [safe]
import torch
from torch.nn.attention.flex_attention import create_block_mask
from torch.utils.data import DataLoader, TensorDataset


def causal(b, h, q, k):
    return q >= k


device = torch.device("cpu")
block_masks = [create_block_mask(causal, None, None, 128, 128, device="cpu")]
loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2), torch.arange(4.0)), batch_size=2, pin_memory=True)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for batch in loader:
    moved = [t.to(device) for t in batch] + [t.to(device) for t in block_masks]
    loss = ((model(moved[0]).squeeze(1) - moved[1]) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(len(moved), loss)

# %% round 11: row views of the batch moved by a comprehension, the batch scaled in place after [none]
import torch
from torch.utils.data import DataLoader

device = torch.device("cpu")
loader = DataLoader([torch.arange(3.0) + i for i in range(4)], batch_size=2, pin_memory=True)
for x in loader:
    rows = [r.to(device) for r in x.unbind(0)]
    x.mul_(0.5)
    show(torch.stack(rows), x)

# %% round 11: a generator expression over the batch, consumed by torch.stack in a training step [safe]
import torch
from torch.utils.data import DataLoader

device = torch.device("cpu")
data = [(torch.ones(2) * i, torch.ones(2) * -i) for i in range(4)]
loader = DataLoader(data, batch_size=2, pin_memory=True)
model = torch.nn.Linear(2, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for batch in loader:
    x = torch.stack(tuple(t.to(device) for t in batch)).sum(0)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(loss)

# %% round 11: a dict comprehension over batch.values() written over several lines with a comment [safe]
import torch
from torch.utils.data import DataLoader

device = torch.device("cpu")
data = [{"a": torch.ones(2) * i, "b": torch.zeros(2) + i} for i in range(4)]
loader = DataLoader(data, batch_size=2, pin_memory=True)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for batch in loader:
    parts = [
        v.to(
            device,  # the training device
        )
        for v in batch.values()
    ]
    loss = model(parts[0] + parts[1]).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(loss)

# %% round 11: nested lists of tensors from a batch of sequences, moved by a nested comprehension [safe]
import torch
from torch.utils.data import DataLoader

device = torch.device("cpu")
data = [[torch.ones(2) * i, torch.ones(2) * (i + 1)] for i in range(4)]
loader = DataLoader(data, batch_size=2, pin_memory=True)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for batch in loader:
    steps = [[t.to(device) for _ in range(2)] for t in batch]
    loss = sum(model(s[0]).mean() for s in steps)
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(len(steps), loss)

# %% round 11: a comprehension moving the batch with a dtype keyword and memory format [safe]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
images = torch.arange(2 * 3 * 4 * 4, dtype=torch.float32).reshape(2, 3, 4, 4)
loader = DataLoader(TensorDataset(images, torch.tensor([0, 1])), batch_size=2, pin_memory=True)
conv = torch.nn.Conv2d(3, 2, 3)
opt = torch.optim.SGD(conv.parameters(), lr=0.01)
for batch in loader:
    x, y = [t.to(device, dtype=torch.float64 if t.is_floating_point() else t.dtype) for t in batch]
    loss = conv.double()(x.to(memory_format=torch.channels_last)).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(x.dtype, y, loss)

# %% round 11: the batch's tensors clipped in place by a comprehension after their move [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2), torch.arange(4.0)), batch_size=2, pin_memory=True)
for batch in loader:
    moved = [t.to(device) for t in batch]
    [t.clamp_(0, 3) for t in batch]
    show(moved)

# %% round 11: the batch normalised in place in a for loop over its tensors after the move [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2), torch.arange(4.0)), batch_size=2, pin_memory=True)
for batch in loader:
    moved = [t.to(device) for t in batch]
    for t in batch:
        t.sub_(t.mean())
    show(moved)

# %% round 11: dict batch entries scaled in place through items() after a dict-comprehension move [none]
import torch
from torch.utils.data import DataLoader

device = torch.device("cpu")
data = [{"x": torch.ones(2) * i, "y": torch.ones(1) * i} for i in range(4)]
loader = DataLoader(data, batch_size=2, pin_memory=True)
for batch in loader:
    moved = {k: v.to(device) for k, v in batch.items()}
    for k, v in batch.items():
        v.mul_(0.5)
    show(moved["x"], moved["y"])

# %% round 11: items with a flex-attention block mask handed over unbatched, moved by a comprehension [none]
import torch
from torch.nn.attention.flex_attention import create_block_mask
from torch.utils.data import DataLoader, Dataset


def causal(b, h, q, k):
    return q >= k


class Documents(Dataset):
    def __init__(self):
        self.mask = create_block_mask(causal, None, None, 128, 128, device="cpu")

    def __len__(self):
        return 2

    def __getitem__(self, index):
        return torch.full((1, 4), float(index)), self.mask


device = torch.device("cpu")
loader = DataLoader(Documents(), batch_size=None, pin_memory=True)
model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for batch in loader:
    tokens, mask = [item.to(device) for item in batch]
    loss = model(tokens).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(mask.shape, loss)

# %% round 11: a collate_fn that returns the batch with a shared block mask, moved entry by entry [none]
import torch
from torch.nn.attention.flex_attention import create_block_mask
from torch.utils.data import DataLoader


def causal(b, h, q, k):
    return q >= k


MASK = create_block_mask(causal, None, None, 128, 128, device="cpu")


def collate(items):
    return {"tokens": torch.stack(items), "block_mask": MASK}


device = torch.device("cpu")
loader = DataLoader([torch.ones(4) * i for i in range(4)], batch_size=2, pin_memory=True, collate_fn=collate)
model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for batch in loader:
    batch = {k: v.to(device) for k, v in batch.items()}
    loss = model(batch["tokens"]).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(batch["block_mask"].shape, loss)

# %% round 11: a batch of tensors, labels and file names moved where tensors by a guarded comprehension [safe]
import torch
from torch.utils.data import DataLoader

device = torch.device("cpu")
data = [(torch.ones(2) * i, i % 2, f"img_{i}.png") for i in range(4)]
loader = DataLoader(data, batch_size=2, pin_memory=True)
model = torch.nn.Linear(2, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for batch in loader:
    x, y, names = [t.to(device) if torch.is_tensor(t) else t for t in batch]
    loss = torch.nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(names, loss)

# %% round 11: a dict batch with a nested metadata dict left out of the moving comprehension [safe]
import torch
from torch.utils.data import DataLoader

device = torch.device("cpu")
data = [{"x": torch.ones(3) * i, "meta": {"id": i, "source": "train"}} for i in range(4)]
loader = DataLoader(data, batch_size=2, pin_memory=True)
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for batch in loader:
    inputs = {k: v.to(device) for k, v in batch.items() if k != "meta"}
    loss = model(inputs["x"]).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(batch["meta"]["id"], batch["meta"]["source"], loss)

# %% round 11: entries moved when they have a to() method, strings kept, in a dict comprehension [safe]
import torch
from torch.utils.data import DataLoader

device = torch.device("cpu")
data = [{"tokens": torch.arange(3) + i, "text": f"sample {i}"} for i in range(4)]
loader = DataLoader(data, batch_size=2, pin_memory=True)
embed = torch.nn.Embedding(8, 2)
opt = torch.optim.SGD(embed.parameters(), lr=0.1)
for batch in loader:
    batch = {k: (v.to(device) if hasattr(v, "to") else v) for k, v in batch.items()}
    loss = embed(batch["tokens"]).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(batch["text"], loss)

# %% round 12: a batch moved with its dtype and non_blocking=False given by position [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
loader = DataLoader(TensorDataset(torch.arange(12.0).reshape(6, 2)), batch_size=3, pin_memory=True)
model = torch.nn.Linear(2, 1).double()
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(2):
    for (x,) in loader:
        x = x.to(device, torch.float64, False)
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    show(loss)

# %% round 12: a loader built by a builder function of another class, batches moved in training_step [none]
import torch
from torch.utils.data import DataLoader, TensorDataset


class DataModule:
    def __init__(self):
        self.train_set = TensorDataset(torch.arange(16.0).reshape(8, 2), torch.arange(8) % 2)

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=4, pin_memory=True)


class Lit:
    def __init__(self):
        self.device = torch.device("cpu")
        self.net = torch.nn.Linear(2, 2)
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)

    def training_step(self, batch):
        x, y = batch
        x, y = x.to(self.device), y.to(self.device)
        loss = torch.nn.functional.cross_entropy(self.net(x), y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss


dm = DataModule()
lit = Lit()
for epoch in range(2):
    for batch in dm.train_dataloader():
        loss = lit.training_step(batch)
    show(loss)

# %% round 12: a loader kept as an attribute set in __init__, iterated by the fit method [safe]
import torch
from torch.utils.data import DataLoader, TensorDataset


class Fitter:
    def __init__(self, dataset):
        self.loader = DataLoader(dataset, batch_size=2, shuffle=True, pin_memory=True)
        self.model = torch.nn.Linear(3, 1)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.05)

    def fit(self, device):
        for epoch in range(2):
            for x, y in self.loader:
                x = x.to(device)
                y = y.to(device)
                loss = (self.model(x).squeeze(1) - y).pow(2).mean()
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
            show(loss)


torch.manual_seed(0)
Fitter(TensorDataset(torch.randn(6, 3), torch.randn(6))).fit(torch.device("cpu"))

# %% round 12: a dataclass batch built by a collate_fn whose to() takes only the device [none]
import dataclasses
import torch
from torch.utils.data import DataLoader


@dataclasses.dataclass
class Batch:
    x: torch.Tensor
    y: torch.Tensor

    def to(self, device):
        return Batch(self.x.to(device), self.y.to(device))


def collate(items):
    return Batch(torch.stack([a for a, _ in items]), torch.stack([b for _, b in items]))


data = [(torch.full((2,), float(i)), torch.tensor(float(i))) for i in range(4)]
loader = DataLoader(data, batch_size=2, collate_fn=collate, pin_memory=True)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
device = torch.device("cpu")
for epoch in range(2):
    for batch in loader:
        batch = batch.to(device)
        loss = (model(batch.x).squeeze(1) - batch.y).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    show(loss)

# %% round 12: a replay loader over transitions stored as a dict, moved entry by entry inside a generator [safe]
import torch
from torch.utils.data import DataLoader


def batches(loader, device):
    for batch in loader:
        yield {k: v.to(device) for k, v in batch.items()}


transitions = [{"obs": torch.full((3,), float(i)), "reward": torch.tensor(float(i % 2))} for i in range(6)]
loader = DataLoader(transitions, batch_size=3, pin_memory=True)
q = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(q.parameters(), lr=0.01)
for epoch in range(2):
    for batch in batches(loader, torch.device("cpu")):
        loss = (q(batch["obs"]).squeeze(1) - batch["reward"]).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    show(loss)

# %% round 12: batches moved under autocast with a GradScaler, the loader from a star-import module [safe]
import torch
from torch.utils.data import *

device = torch.device("cpu")
loader = DataLoader(TensorDataset(torch.linspace(0, 1, 8).reshape(4, 2)), batch_size=2, pin_memory=True)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu", enabled=False)
for epoch in range(2):
    for (x,) in loader:
        x = x.to(device)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = model(x).float().pow(2).mean()
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
    show(loss)


# %% round 12: the batch rebound to its device copy is copied back to the host for a NumPy metric [safe]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
cpu = torch.device("cpu")
loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2), torch.tensor([0, 1, 1, 0])), batch_size=2, pin_memory=True)
model = torch.nn.Linear(2, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for x, y in loader:
        x = x.to(device)
        y = y.to(device)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        host = x.to(cpu)
        print(host.numpy().sum(), y.to(cpu).numpy().tolist())

# %% round 13: a batch moved inside a side-stream context, used after the context on the default stream [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
side = torch.cuda.Stream() if torch.cuda.is_available() else None
loader = DataLoader(TensorDataset(torch.arange(12.0).reshape(6, 2)), batch_size=3, pin_memory=True)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(2):
    for (x,) in loader:
        with torch.cuda.stream(side):
            x_dev = x.to(device)
        loss = model(x_dev).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    show(loss)

# %% round 13: the host batch is written through a NumPy view after the move [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
loader = DataLoader(TensorDataset(torch.arange(12.0).reshape(6, 2)), batch_size=3, pin_memory=True)
total = []
for epoch in range(2):
    for (x,) in loader:
        x_dev = x.to(device)
        x.numpy()[:] = 0.0
        total.append(x_dev.sum())
    show(total)

# %% round 13: the host batch is overwritten by an out= call after the move [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
loader = DataLoader(TensorDataset(torch.arange(12.0).reshape(6, 2)), batch_size=3, pin_memory=True)
sums = []
for epoch in range(2):
    for (x,) in loader:
        x_dev = x.to(device)
        torch.mul(x, 0.5, out=x)
        sums.append(x_dev.sum())
    show(sums)

# %% round 13: the host batch's .data is zeroed after the move [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
loader = DataLoader(TensorDataset(torch.arange(12.0).reshape(6, 2)), batch_size=3, pin_memory=True)
sums = []
for epoch in range(2):
    for (x,) in loader:
        x_dev = x.to(device)
        x.data.zero_()
        sums.append(x_dev.sum())
    show(sums)

# %% round 13: the host batch is sliced and assigned after the move [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
loader = DataLoader(TensorDataset(torch.arange(12.0).reshape(6, 2)), batch_size=3, pin_memory=True)
sums = []
for epoch in range(2):
    for (x,) in loader:
        x_dev = x.to(device)
        x[:, 0] = -1.0
        sums.append(x_dev.sum())
    show(sums)

# %% round 13: the host batch is changed through a view taken before the move [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
loader = DataLoader(TensorDataset(torch.arange(12.0).reshape(6, 2)), batch_size=3, pin_memory=True)
sums = []
for epoch in range(2):
    for (x,) in loader:
        flat = x.view(-1)
        x_dev = x.to(device)
        flat.mul_(3)
        sums.append(x_dev.sum())
    show(sums)

# %% round 13: pinning chosen by a flag that is off, batches moved in the step loop [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
use_pin = torch.cuda.is_available()
loader = DataLoader(TensorDataset(torch.arange(12.0).reshape(6, 2), torch.arange(6) % 3), batch_size=2, pin_memory=use_pin)
model = torch.nn.Linear(2, 3)
for epoch in range(2):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
    show(loss)

# %% round 13: a loader made by a factory function, batches moved inside a walrus in the step [none]
import torch
from torch.utils.data import DataLoader, TensorDataset


def make_loader():
    return DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)


device = torch.device("cpu")
model = torch.nn.Linear(2, 1)
for epoch in range(2):
    for (x,) in make_loader():
        if (x_dev := x.to(device)).sum() > 0:
            loss = model(x_dev).sum()
            loss.backward()
    show(model.weight.grad)

# %% round 13: batches matched by shape in a match statement, moved in each case [safe]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
loader = DataLoader(TensorDataset(torch.arange(10.0).reshape(5, 2)), batch_size=2, pin_memory=True)
out = []
for epoch in range(2):
    for (x,) in loader:
        match x.shape[0]:
            case 2:
                out.append(x.to(device).sum())
            case _:
                out.append(x.to(device).mean())
    show(out)

# %% round 13: batches moved by a lambda defined before the loop [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)
move = lambda t: t.to(device)
for epoch in range(2):
    for (x,) in loader:
        show(move(x))

# %% round 13: a dict batch of a tab-indented step, moved by a comprehension with an f-string key [safe]
import torch
from torch.utils.data import DataLoader


class Items(torch.utils.data.Dataset):
	def __len__(self):
		return 4

	def __getitem__(self, i):
		return {"x": torch.full((2,), float(i)), "y": torch.tensor(i)}


device = torch.device("cpu")
loader = DataLoader(Items(), batch_size=2, pin_memory=True)
for epoch in range(2):
	for batch in loader:
		moved = {f"{k}_dev": v.to(device) for k, v in batch.items()}
		show(moved["x_dev"], moved["y_dev"])

# %% round 13: a nested step function closes over the device and moves the pinned batch [unsafe, same]
import torch
from torch.utils.data import DataLoader, TensorDataset


def train(device):
    loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)
    model = torch.nn.Linear(2, 1)

    def step(x):
        x = x.to(device)
        return model(x).sum()

    for epoch in range(2):
        for (x,) in loader:
            loss = step(x)
        show(loss)


train(torch.device("cpu"))

# %% round 13: control, a side-stream context around a warm-up only, the batches moved outside it [safe]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
side = torch.cuda.Stream() if torch.cuda.is_available() else None
with torch.cuda.stream(side):
    warm = torch.zeros(2).to(device)
loader = DataLoader(TensorDataset(torch.arange(12.0).reshape(6, 2)), batch_size=3, pin_memory=True)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(2):
    for (x,) in loader:
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    show(loss, warm)

# %% round 14: a NamedTuple batch whose to is set by a class decorator through cls.to [none]
import torch
from typing import NamedTuple
from torch.utils.data import DataLoader, Dataset


def _move(self, device):
    return type(self)(self.x.to(device), self.y.to(device))


def movable(cls):
    cls.to = _move
    return cls


@movable
class Pair(NamedTuple):
    x: torch.Tensor
    y: torch.Tensor


class Pairs(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return Pair(torch.tensor([float(i)]), torch.tensor(i))


device = torch.device("cpu")
loader = DataLoader(Pairs(), batch_size=2, pin_memory=True)
for epoch in range(2):
    for batch in loader:
        batch = batch.to(device)
        show(batch.x, batch.y)

# %% round 14: a NamedTuple batch whose to is set with type.__setattr__ [none]
import torch
from typing import NamedTuple
from torch.utils.data import DataLoader, Dataset


class Pair(NamedTuple):
    x: torch.Tensor
    y: torch.Tensor


def _move(self, device):
    return Pair(self.x.to(device), self.y.to(device))


type.__setattr__(Pair, "to", _move)


class Pairs(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return Pair(torch.tensor([float(i)]), torch.tensor(i))


device = torch.device("cpu")
loader = DataLoader(Pairs(), batch_size=2, pin_memory=True)
for epoch in range(2):
    for batch in loader:
        moved = batch.to(device)
        show(moved.x.sum(), moved.y)

# %% round 14: a namedtuple batch class given a to method through a mixin base of the file [none]
import collections
import torch
from torch.utils.data import DataLoader, Dataset


class Movable:
    def to(self, device):
        return type(self)(*(t.to(device) for t in self))


class Pair(Movable, collections.namedtuple("PairBase", "x y")):
    __slots__ = ()


class Pairs(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return Pair(torch.tensor([float(i)]), torch.tensor(i))


device = torch.device("cpu")
loader = DataLoader(Pairs(), batch_size=2, pin_memory=True)
for epoch in range(2):
    for batch in loader:
        show(batch.to(device).x)

# %% round 14: the host batch is changed by torch.nn.init.zeros_ after the move [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)
for epoch in range(2):
    for (x,) in loader:
        xd = x.to(device)
        torch.nn.init.zeros_(x)
        show(xd.sum(), x)

# %% round 14: the host batch is changed by F.relu with inplace=True after the move [none]
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
loader = DataLoader(TensorDataset(torch.arange(-4.0, 4.0).reshape(4, 2)), batch_size=2, pin_memory=True)
for epoch in range(2):
    for (x,) in loader:
        xd = x.to(device)
        F.relu(x, inplace=True)
        show(xd, x)

# %% round 14: the host batch is clamped by torch.clamp_ after the move [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
loader = DataLoader(TensorDataset(torch.arange(-4.0, 4.0).reshape(4, 2)), batch_size=2, pin_memory=True)
for epoch in range(2):
    for (x,) in loader:
        xd = x.to(device)
        torch.clamp_(x, min=0)
        show(xd, x)

# %% round 14: the host batch is written by the in-place dunder __iadd__ after the move [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)
for epoch in range(2):
    for (x,) in loader:
        xd = x.to(device)
        x.__iadd__(1)
        show(xd, x)

# %% round 14: the host batch is written by torch.Tensor.mul_ called on the class after the move [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)
for epoch in range(2):
    for (x,) in loader:
        xd = x.to(device)
        torch.Tensor.mul_(x, 2)
        show(xd, x)

# %% round 14: the host batch is filled with index_fill_ through a walrus alias after the move [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)
for epoch in range(2):
    for (x,) in loader:
        xd = x.to(device)
        if (alias := x) is not None:
            alias.index_fill_(1, torch.tensor([0]), -1.0)
        show(xd, x)

# %% round 14: control, pinned batches moved in an evaluation loop under inference mode with a comment inside the call [safe]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
model = torch.nn.Linear(2, 1)
loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2), torch.arange(4.0)), batch_size=2, pin_memory=True)
with torch.inference_mode():
    for epoch in range(2):
        for x, y in loader:
            x = x.to(  # the features
                device
            )
            y = y.to(device)
            show(model(x).squeeze(1) - y)

# %% round 14: a dict batch subclass with to bound in its class body to a lambda [none]
import torch
from torch.utils.data import DataLoader, Dataset


class Batch(dict):
    to = lambda self, device: Batch({k: v.to(device) for k, v in self.items()})


class Items(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return Batch(x=torch.tensor([float(i)]), y=torch.tensor(i))


device = torch.device("cpu")
loader = DataLoader(Items(), batch_size=2, pin_memory=True)
for epoch in range(2):
    for batch in loader:
        batch = batch.to(device)
        show(batch["x"], type(batch).__name__)

# %% round 14: batches moved in a nested function with nonlocal step counting, pinned loader [safe]
import torch
from torch.utils.data import DataLoader, TensorDataset


def train():
    device = torch.device("cpu")
    loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)
    model = torch.nn.Linear(2, 1)
    steps = 0

    def step(x):
        nonlocal steps
        steps += 1
        model(x).sum().backward()

    for epoch in range(2):
        for (x,) in loader:
            step(x.to(device))
    show(steps, model.weight.grad)


train()

# %% round 14: control, the batch added into a running sum with the sum's add_ and passed to F.relu with inplace=False [safe]
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
loader = DataLoader(TensorDataset(torch.arange(-4.0, 4.0).reshape(4, 2)), batch_size=2, pin_memory=True)
running = torch.zeros(2)
for epoch in range(2):
    for (x,) in loader:
        xd = x.to(device)
        running.add_(x.sum(0))
        show(F.relu(x, inplace=False), xd)
show(running)

# %% round 14: a batch class whose to is bound through a class-level partialmethod [none]
import functools
import torch
from typing import NamedTuple
from torch.utils.data import DataLoader, Dataset


def _move(self, device, scale):
    return type(self)(self.x.to(device) * scale)


class Item(NamedTuple):
    x: torch.Tensor
    to = functools.partialmethod(_move, scale=1.0)


class Items(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return Item(torch.tensor([float(i)]))


device = torch.device("cpu")
loader = DataLoader(Items(), batch_size=2, pin_memory=True)
for epoch in range(2):
    for batch in loader:
        show(batch.to(device).x)

# %% round 14: a batch class whose to is added through a loop over a dict of methods with setattr [none]
import torch
from typing import NamedTuple
from torch.utils.data import DataLoader, Dataset


class Item(NamedTuple):
    x: torch.Tensor


for name, fn in {"to": lambda self, device: Item(self.x.to(device))}.items():
    setattr(Item, name, fn)


class Items(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return Item(torch.tensor([float(i)]))


device = torch.device("cpu")
loader = DataLoader(Items(), batch_size=2, pin_memory=True)
for epoch in range(2):
    for batch in loader:
        show(batch.to(device).x)

# %% round 14: the host batch is scattered into with scatter_ through a module-level helper lambda after the move [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)
zero_first = lambda t: t.scatter_(1, torch.zeros(2, 1, dtype=torch.long), 0.0)
for epoch in range(2):
    for (x,) in loader:
        xd = x.to(device)
        zero_first(x)
        show(xd, x)

# %% round 14: the host batch is updated by torch.nn.functional.dropout with inplace=True in eval mode after the move [none]
import torch
from torch.nn import functional as Fn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)
for epoch in range(2):
    for (x,) in loader:
        xd = x.to(device)
        Fn.dropout(x, p=0.0, training=True, inplace=True)
        show(xd, x)

# %% round 14: each element of a pinned batch moved in a nested loop [safe]
import torch
from torch.utils.data import DataLoader

device = torch.device("cpu")
data = [[torch.ones(2) * i, torch.ones(3) * i] for i in range(4)]
loader = DataLoader(data, batch_size=2, pin_memory=True)
for epoch in range(2):
    for mels in loader:
        outs = []
        for mel in mels:
            mel = mel.to(device)
            outs.append(mel.sum())
        show(torch.stack(outs))

# %% round 14: a pinned batch moved by a lambda handed along with it [unsafe, same]
import torch
from torch.utils.data import DataLoader

def nested_map(struct, fn):
    if isinstance(struct, (list, tuple)):
        return [nested_map(item, fn) for item in struct]
    return fn(struct)

device = torch.device("cpu")
data = [[torch.ones(2) * i, torch.ones(2) * -i] for i in range(4)]
loader = DataLoader(data, batch_size=2, pin_memory=True)
for epoch in range(2):
    for features in loader:
        features = nested_map(features, lambda x: x.to(device) if isinstance(x, torch.Tensor) else x)
        show(features[0] + features[1])

# %% round 15: the host batch written through operator.setitem after the move [none]
import operator

import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)
device = torch.device("cpu")
for epoch in range(2):
    for (x,) in loader:
        moved = x.to(device)
        operator.setitem(x, 0, 0.0)
        show(moved.sum())

# %% round 15: the host batch written by np.copyto through its numpy view after the move [none]
import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)
device = torch.device("cpu")
for epoch in range(2):
    for (x,) in loader:
        moved = x.to(device)
        np.copyto(x.numpy(), 0.0)
        show(moved.sum())

# %% round 15: the host batch written by operator.iadd after the move [none]
import operator

import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)
device = torch.device("cpu")
for epoch in range(2):
    for (x,) in loader:
        moved = x.to(device)
        operator.iadd(x, 1)
        show(moved.sum())

# %% round 15: the host batch filled through its numpy view's fill method after the move [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)
device = torch.device("cpu")
for epoch in range(2):
    for (x,) in loader:
        moved = x.to(device)
        x.numpy().fill(0.0)
        show(moved.sum())

# %% round 15: the host batch written by torch.Tensor.__setitem__ called on the class after the move [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)
device = torch.device("cpu")
for epoch in range(2):
    for (x,) in loader:
        moved = x.to(device)
        torch.Tensor.__setitem__(x, 0, 0.0)
        show(moved.sum())

# %% round 15: control, the host batch copied out with np.copyto into a buffer and summed through its numpy view [safe]
import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)
device = torch.device("cpu")
buffer = np.zeros((2, 2), dtype=np.float32)
for epoch in range(2):
    for (x,) in loader:
        moved = x.to(device)
        np.copyto(buffer, x.numpy())
        print(float(x.numpy().sum()), buffer.tolist())
        show(moved.sum())

# %% round 15: a NamedTuple batch whose __getattribute__ answers to with a function without non_blocking [none]
from typing import NamedTuple

import torch
from torch.utils.data import DataLoader


class Pair(NamedTuple):
    x: torch.Tensor
    y: torch.Tensor

    def __getattribute__(self, name):
        if name == "to":
            return lambda device: Pair(tuple.__getitem__(self, 0).to(device), tuple.__getitem__(self, 1).to(device))
        return tuple.__getattribute__(self, name)


items = [Pair(torch.tensor([float(i)]), torch.tensor(i)) for i in range(4)]
loader = DataLoader(items, batch_size=2, pin_memory=True)
device = torch.device("cpu")
for epoch in range(2):
    for batch in loader:
        batch = batch.to(device)
        show(batch.x, batch.y)

# %% round 15: a NamedTuple batch whose class gets to through __init_subclass__ of a base of the file [none]
from typing import NamedTuple

import torch
from torch.utils.data import DataLoader


def _move(self, device):
    return type(self)(*(t.to(device) for t in self))


class Movable:
    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        setattr(cls, "to", _move)


class Pair(NamedTuple):
    x: torch.Tensor
    y: torch.Tensor


class MovablePair(Pair, Movable):
    pass


items = [MovablePair(torch.tensor([float(i)]), torch.tensor(i)) for i in range(4)]
loader = DataLoader(items, batch_size=2, pin_memory=True)
device = "cpu"
for epoch in range(2):
    for batch in loader:
        batch = batch.to(device)
        show(batch.x)

# %% round 15: a dict batch subclass whose to is a staticmethod assigned in the class body [none]
import torch
from torch.utils.data import DataLoader


class Batch(dict):
    to = staticmethod(lambda device: None)


items = [Batch(x=torch.tensor([float(i)])) for i in range(4)]
loader = DataLoader(items, batch_size=2, pin_memory=True)
for epoch in range(2):
    for batch in loader:
        print(type(batch).__name__, batch.to("cpu"))

# %% round 15: the host batch written through __setitem__ called by name after the move [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)
device = torch.device("cpu")
for epoch in range(2):
    for (x,) in loader:
        moved = x.to(device)
        x.__setitem__(0, 0.0)
        show(moved.sum())

# %% round 15: control, pinned batches moved in a walrus loop over an iterator under no_grad [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2), torch.arange(4.0)), batch_size=2, pin_memory=True)
device = torch.device("cpu")
model = torch.nn.Linear(2, 1)
with torch.no_grad():
    for epoch in range(2):
        it = iter(loader)
        while (batch := next(it, None)) is not None:
            x, y = batch
            x = x.to(device)
            show(model(x).squeeze(1) - y)

# %% round 16: a pinned loader whose collate_fn is set after it is built, batches with their own to [none]
import torch
from torch.utils.data import DataLoader, TensorDataset
from types import SimpleNamespace


def move(self_batch, device):
    return self_batch


def collate(items):
    xs = torch.stack([x for (x,) in items])
    batch = SimpleNamespace(x=xs)
    batch.to = lambda device: batch
    return batch


loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)
loader.collate_fn = collate
device = torch.device("cpu")
for epoch in range(2):
    for batch in loader:
        batch = batch.to(device)
        show(batch.x)

# %% round 16: a move with the dtype and non_blocking given by position [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)
device = torch.device("cpu")
for epoch in range(2):
    for (x,) in loader:
        x = x.to(device, torch.float64, False)
        show(x)

# %% round 16: a move with options from a dict that already sets non_blocking [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

MOVE = {"non_blocking": False}
loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)
device = torch.device("cpu")
for epoch in range(2):
    for (x,) in loader:
        x = x.to(device, **MOVE)
        show(x)

# %% round 16: a move of the batch to a reference tensor, which gives its dtype too [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)
ref = torch.zeros(1, dtype=torch.float64)
for epoch in range(2):
    for (x,) in loader:
        x = x.to(ref)
        show(x)

# %% round 16: a loader whose dataset is swapped for one of batch objects after it is built [none]
import torch
from torch.utils.data import DataLoader, Dataset


class Item:
    def __init__(self, v):
        self.v = v

    def to(self, device):
        return self


class Items(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        return torch.tensor([float(i)])


loader = DataLoader(Items(), batch_size=None, pin_memory=True)
device = torch.device("cpu")
for epoch in range(2):
    for x in loader:
        x = x.to(device)
        show(x)

# %% round 16: a move through the batch's to method taken by getattr [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)
device = torch.device("cpu")
for epoch in range(2):
    for (x,) in loader:
        mover = getattr(x, "to")
        y = mover(device)
        show(y)

# %% round 16: the host batch written through its untyped storage after the move [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)
device = torch.device("cpu")
for epoch in range(2):
    for (x,) in loader:
        moved = x.to(device)
        x.untyped_storage().fill_(0)
        show(moved, x)

# %% round 16: the host batch zeroed by torch.zero_ through a view after the move [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)
device = torch.device("cpu")
for epoch in range(2):
    for (x,) in loader:
        moved = x.to(device)
        flat = x.view(-1)
        torch.zero_(flat)
        show(moved, x)

# %% round 16: the host batch zeroed through its typed storage after the move [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)
device = torch.device("cpu")
for epoch in range(2):
    for (x,) in loader:
        moved = x.to(device)
        x.storage().fill_(0)
        show(moved, x)

# %% round 16: the first half of the host batch cleared through chunk after the move [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)
device = torch.device("cpu")
for epoch in range(2):
    for (x,) in loader:
        moved = x.to(device)
        head, tail = x.chunk(2)
        head.zero_()
        show(moved, x)

# %% round 16: each row of the host batch scaled through unbind after the move [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)
device = torch.device("cpu")
for epoch in range(2):
    for (x,) in loader:
        moved = x.to(device)
        x.unbind(0)[1].mul_(0)
        show(moved, x)

# %% round 16: control, the host batch's storage size read after the move [safe]
import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)
device = torch.device("cpu")
for epoch in range(2):
    for (x,) in loader:
        moved = x.to(device)
        print(x.untyped_storage().nbytes())
        show(moved)

# %% round 17: a pinned batch moved with keywords from a dict that sets non_blocking [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
MOVE = {"device": torch.device("cpu"), "non_blocking": False}
for epoch in range(2):
    for (x,) in loader:
        x = x.to(**MOVE)
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(round(loss.item(), 4))

# %% round 17: a pinned batch moved with an explicit non_blocking=False [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
device = torch.device("cpu")
for epoch in range(2):
    for (x,) in loader:
        x = x.to(device, non_blocking=False)
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(round(loss.item(), 4))

# %% round 17: a pinned batch moved with the device and copy from a tuple of arguments [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
ARGS = (torch.device("cpu"), torch.float32, False)
for epoch in range(2):
    for (x,) in loader:
        x = x.to(*ARGS)
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(round(loss.item(), 4))

# %% round 17: a pinned batch of a TensorDataset over a parameter's rows moved each step [safe]
import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
table = torch.nn.Parameter(torch.randn(4, 2))
loader = DataLoader(TensorDataset(table.detach()), batch_size=2, pin_memory=True)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
device = torch.device("cpu")
for epoch in range(2):
    for (x,) in loader:
        x = x.to(device)
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(round(loss.item(), 4))

# %% round 17: a pinned batch whose moved copy is compared with the batch by identity [safe]
import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, pin_memory=True)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
device = torch.device("cpu")
for epoch in range(2):
    for (x,) in loader:
        moved = x.to(device)
        print(moved is x)
        loss = model(moved).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()

# %% round 17: a pinned batch moved with memory_format to channels-last images [safe]
import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.arange(32.0).reshape(2, 1, 4, 4)), batch_size=1, pin_memory=True)
conv = torch.nn.Conv2d(1, 1, 3)
opt = torch.optim.SGD(conv.parameters(), lr=0.01)
device = torch.device("cpu")
for epoch in range(2):
    for (x,) in loader:
        x = x.to(device, memory_format=torch.channels_last)
        loss = conv(x).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(round(loss.item(), 4))

# %% round 18: batches moved with the dtype and non_blocking False given by position [safe]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
data = TensorDataset(torch.arange(8.0).reshape(4, 2), torch.arange(4))
loader = DataLoader(data, batch_size=2, pin_memory=True)
for x, y in loader:
    show(x.to(device, torch.float64, False), y.to(device))

# %% round 18: batches moved to the device of a model parameter [safe]
import torch
from torch.utils.data import DataLoader, TensorDataset

model = torch.nn.Linear(2, 1)
data = TensorDataset(torch.arange(8.0).reshape(4, 2))
loader = DataLoader(data, batch_size=2, pin_memory=True)
for (x,) in loader:
    show(model(x.to(next(model.parameters()).device)).detach().round(decimals=3))

# %% round 18: batches moved like a reference tensor with to(other) [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

ref = torch.zeros(1, dtype=torch.float64)
data = TensorDataset(torch.arange(8.0).reshape(4, 2))
loader = DataLoader(data, batch_size=2, pin_memory=True)
for (x,) in loader:
    show(x.to(ref))

# %% round 18: batches of a tensor subclass that logs the keywords of every torch call [none]
import torch
from torch.utils.data import DataLoader

calls = []


class Logged(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if getattr(func, "__name__", "") == "to":
            calls.append(sorted((kwargs or {}).keys()))
        return super().__torch_function__(func, types, args, kwargs)


device = torch.device("cpu")
data = [torch.ones(2).as_subclass(Logged) * i for i in range(4)]
loader = DataLoader(data, batch_size=2, pin_memory=True)
for x in loader:
    y = x.to(device)
print(calls)

# %% round 18: batches moved with a memory format keyword to the device [safe]
import torch
from torch.utils.data import DataLoader

device = torch.device("cpu")
data = [torch.ones(3, 2, 2) * i for i in range(4)]
loader = DataLoader(data, batch_size=2, pin_memory=True)
for x in loader:
    y = x.to(device, memory_format=torch.channels_last)
    show(y.stride())

# %% round 18: a batch moved then compared for identity with the host batch [safe]
import torch
from torch.utils.data import DataLoader

device = torch.device("cpu")
data = [torch.ones(2) * i for i in range(4)]
loader = DataLoader(data, batch_size=2, pin_memory=True)
for x in loader:
    y = x.to(device)
    print(y is x, y.data_ptr() == x.data_ptr())

# %% round 19: frames of a tensor subclass whose to method takes only a device [none]
import torch
from torch.utils.data import DataLoader


class Frames(torch.Tensor):
    def to(self, device):
        return torch.Tensor.to(self, device) * 1


device = torch.device("cpu")
data = [torch.ones(2).as_subclass(Frames) * i for i in range(4)]
loader = DataLoader(data, batch_size=2, pin_memory=True)
for epoch in range(2):
    for x in loader:
        show(x.to(device).as_subclass(torch.Tensor))

# %% round 19: batches of a dict subclass whose to method takes only a device [none]
import torch
from torch.utils.data import DataLoader


class Fields(dict):
    def to(self, device):
        return Fields({k: v.to(device) for k, v in self.items()})


device = torch.device("cpu")
data = [Fields(x=torch.ones(2) * i) for i in range(4)]
loader = DataLoader(data, batch_size=2, pin_memory=True)
for epoch in range(2):
    for batch in loader:
        show(batch.to(device)["x"])

# %% round 19: batches whose to is found through __getattr__ delegation [none]
import torch
from torch.utils.data import DataLoader


class Wrapped:
    def __init__(self, t):
        self.t = t

    def __getattr__(self, name):
        if name == "to":
            return lambda device: Wrapped(self.t.to(device))
        raise AttributeError(name)


device = torch.device("cpu")
data = [Wrapped(torch.ones(2) * i) for i in range(4)]
loader = DataLoader(data, batch_size=None, pin_memory=True)
for epoch in range(2):
    for b in loader:
        show(b.to(device).t)

# %% round 19: batches whose to is a functools.partialmethod [none]
import functools
import torch
from torch.utils.data import DataLoader


class Item:
    def __init__(self, t):
        self.t = t

    def _move(self, device, scale):
        return self.t.to(device) * scale

    to = functools.partialmethod(_move, scale=2)


device = torch.device("cpu")
data = [Item(torch.ones(2) * i) for i in range(4)]
loader = DataLoader(data, batch_size=None, pin_memory=True)
for epoch in range(2):
    for b in loader:
        show(b.to(device))

# %% round 19: control, pinned tensor batches moved in the training loop [safe]
import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
device = torch.device("cpu")
data = TensorDataset(torch.randn(8, 3), torch.randn(8, 1))
loader = DataLoader(data, batch_size=4, pin_memory=True)
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    for x, y in loader:
        loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
show(model)

# %% round 24: dict-subclass batches whose to is added by a class decorator of the file [none]
import torch
from torch.utils.data import DataLoader


def movable(cls):
    def to(self, device):
        return cls({k: v.to(device) for k, v in self.items()})

    cls.to = to
    return cls


@movable
class Fields(dict):
    pass


device = torch.device("cpu")
data = [Fields(x=torch.ones(2) * i) for i in range(4)]
loader = DataLoader(data, batch_size=2, pin_memory=True)
for epoch in range(2):
    for batch in loader:
        show(batch.to(device)["x"])

# %% round 24: dict-subclass batches made by types.new_class with a to in its namespace [none]
import types
import torch
from torch.utils.data import DataLoader


def _to(self, device):
    return Fields({k: v.to(device) for k, v in self.items()})


Fields = types.new_class("Fields", (dict,), {}, lambda ns: ns.update(to=_to))
device = torch.device("cpu")
data = [Fields(x=torch.ones(2) * i) for i in range(4)]
loader = DataLoader(data, batch_size=2, pin_memory=True)
for epoch in range(2):
    for batch in loader:
        show(batch.to(device)["x"])

# %% round 24: dataclass items made by make_dataclass with a to in its namespace, loader without batching [none]
import dataclasses
import torch
from torch.utils.data import DataLoader


def _to(self, device):
    return Item(self.x.to(device))


Item = dataclasses.make_dataclass("Item", [("x", torch.Tensor)], namespace={"to": _to})
device = torch.device("cpu")
data = [Item(torch.ones(2) * i) for i in range(3)]
loader = DataLoader(data, batch_size=None, pin_memory=True)
for epoch in range(2):
    for item in loader:
        show(item.to(device).x)

# %% round 24: dict-subclass batches whose to is set through vars of the class's base in a loop over names [none]
import torch
from torch.utils.data import DataLoader


class Fields(dict):
    pass


def _to(self, device):
    return Fields({k: v.to(device) for k, v in self.items()})


for name, fn in {"to": _to}.items():
    setattr(Fields, name, fn)
device = torch.device("cpu")
data = [Fields(x=torch.ones(2) * i) for i in range(4)]
loader = DataLoader(data, batch_size=2, pin_memory=True)
for epoch in range(2):
    for batch in loader:
        show(batch.to(device)["x"])

# %% round 24: dict-subclass batches whose to comes from a mixin whose __getattribute__ answers it [none]
import torch
from torch.utils.data import DataLoader


class Fields(dict):
    def __getattribute__(self, name):
        if name == "to":
            return lambda device: Fields({k: v.to(device) for k, v in self.items()})
        return super().__getattribute__(name)


device = torch.device("cpu")
data = [Fields(x=torch.ones(2) * i) for i in range(4)]
loader = DataLoader(data, batch_size=2, pin_memory=True)
for epoch in range(2):
    for batch in loader:
        show(batch.to(device)["x"])

# %% round 24: pinned tensor batches moved in a training loop with a match on the batch shape [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(torch.randn(8, 3), torch.randn(8, 1)), batch_size=4, pin_memory=True)
for epoch in range(2):
    for batch in loader:
        match batch:
            case [x, y]:
                x = x.to(device)
                y = y.to(device)
        loss = torch.nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        show(round(loss.item(), 5))

# %% round 24: dict-subclass batches whose to is defined by exec inside the class body [none]
import torch
from torch.utils.data import DataLoader


class Fields(dict):
    exec("def to(self, device):\n    return Fields({k: v.to(device) for k, v in self.items()})")


device = torch.device("cpu")
data = [Fields(x=torch.ones(2) * i) for i in range(4)]
loader = DataLoader(data, batch_size=2, pin_memory=True)
for epoch in range(2):
    for batch in loader:
        show(batch.to(device)["x"])
