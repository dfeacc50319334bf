# %% control: batches moved to the device from a plain loader [unsafe, same]
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
loader = DataLoader([torch.ones(2) * i for i in range(4)], batch_size=2)
for x in loader:
    show(x.to(device).sum())

# %% a batch class with its own pin_memory, moved through an attribute [none]
import torch
from torch.utils.data import DataLoader

class Batch:
    def __init__(self, items):
        self.x = torch.stack(items)

    def pin_memory(self):
        self.x = self.x.pin_memory()
        return self

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
loader = DataLoader([torch.ones(2)] * 4, batch_size=2, collate_fn=Batch)
for batch in loader:
    show(batch.x.to(device))

# %% pin_memory=False given by position [unsafe, same]
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
loader = DataLoader([torch.ones(2)] * 4, 2, False, None, None, 0, None, False)
for x in loader:
    show(x.to(device))

# %% keyword arguments unpacked [none]
import torch
from torch.utils.data import DataLoader

options = {"pin_memory": False}
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
loader = DataLoader([torch.ones(2)] * 4, batch_size=2, **options)
for x in loader:
    show(x.to(device))

# %% a dict batch [unsafe, same]
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
loader = DataLoader([{"x": torch.ones(2)}] * 4, batch_size=2)
for batch in loader:
    show(batch["x"].to(device))

# %% the loader is passed to another function [none]
import torch
from torch.utils.data import DataLoader

def consume(loader, device):
    for x in loader:
        show(x.to(device))

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
consume(DataLoader([torch.ones(2)] * 4, batch_size=2), device)

# %% round 9: pre-batched views from a dataset with batch_size=None, normalised in place [unsafe, same]
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

class Chunks(Dataset):
    def __init__(self):
        self.data = torch.arange(12.0).reshape(3, 4)
    def __len__(self):
        return 3
    def __getitem__(self, i):
        return self.data[i]

data = Chunks()
loader = DataLoader(data, batch_size=None)
model = torch.nn.Linear(4, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(2):
    for x in loader:
        x.sub_(1.0)
        loss = model(x.to(device)).sum()
        opt.zero_grad(); loss.backward(); opt.step()
    print(data.data[0].tolist())

# %% round 9: string labels in a dict batch [unsafe, same]
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
loader = DataLoader([{"x": torch.ones(2) * i, "name": f"s{i}"} for i in range(4)], batch_size=2)
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for batch in loader:
    loss = model(batch["x"].to(device)).sum()
    opt.zero_grad(); loss.backward(); opt.step()
    print(batch["name"])

# %% round 9: a collate_fn returning a tuple of a tensor and lengths [unsafe, same]
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

def collate(items):
    return torch.stack(items), [len(item) for item in items]

loader = DataLoader([torch.ones(2) * i for i in range(4)], batch_size=2, collate_fn=collate)
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for x, lengths in loader:
    loss = model(x.to(device)).sum()
    opt.zero_grad(); loss.backward(); opt.step()
    print(lengths)

# %% round 10: control, a dict batch with a bool mask moved to the device [unsafe, same]
import torch
from torch import nn
from torch.utils.data import DataLoader

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
items = [{"x": torch.full((3,), float(i)), "keep": torch.tensor(i % 2 == 0)} for i in range(4)]
loader = DataLoader(items, batch_size=2, num_workers=0)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for batch in loader:
    x, keep = batch["x"].to(device), batch["keep"].to(device)
    loss = (model(x).squeeze(1) * keep).pow(2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(keep.tolist(), round(loss.item(), 6))

# %% round 10: a batch_size=None loader over views of a held tensor, standardised in place [unsafe]
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

class Chunks(Dataset):
    def __init__(self):
        self.data = torch.arange(12.0).reshape(3, 4)

    def __len__(self):
        return 3

    def __getitem__(self, i):
        return self.data[i]

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
ds = Chunks()
loader = DataLoader(ds, batch_size=None)
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(2):
    for x in loader:
        x.sub_(1.0)
        x = x.to(device)
        loss = model(x).pow(2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
print(ds.data.sum().item())

# %% round 11: pinning turned off by an options dict on a run without CUDA [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
data = TensorDataset(torch.arange(8.0).reshape(4, 2), torch.arange(4.0))
loader_kwargs = {} if device.type == "cuda" else {"pin_memory": False}
loader = DataLoader(data, batch_size=2, **loader_kwargs)
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for x, y in loader:
    x, y = x.to(device), y.to(device)
    loss = ((model(x).squeeze(1) - y) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(loss)

# %% round 11: an options dict updated with pin_memory False under a test that CUDA is missing [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

use_cuda = torch.cuda.is_available()
device = torch.device("cuda" if use_cuda else "cpu")
data = TensorDataset(torch.arange(8.0).reshape(4, 2), torch.arange(4.0))
kwargs = {}
if not use_cuda:
    kwargs.update(pin_memory=False)
loader = DataLoader(data, batch_size=2, shuffle=False, **kwargs)
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for x, y in loader:
    loss = ((model(x.to(device)).squeeze(1) - y.to(device)) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(loss)

# %% round 11: control, an options dict copied from a shared base, pinning added [unsafe, same]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
data = TensorDataset(torch.arange(8.0).reshape(4, 2), torch.arange(4.0))
base = {}
train_kwargs = {**base}
base["pin_memory"] = False
loader = DataLoader(data, batch_size=2, **train_kwargs)
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for x, y in loader:
    loss = ((model(x.to(device)).squeeze(1) - y.to(device)) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(loss)

# %% round 11: an alias of the options dict turns pinning off before the loader [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
data = TensorDataset(torch.arange(8.0).reshape(4, 2), torch.arange(4.0))
train_kwargs = {}
options = train_kwargs
options["pin_memory"] = False
loader = DataLoader(data, batch_size=2, **train_kwargs)
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for x, y in loader:
    loss = ((model(x.to(device)).squeeze(1) - y.to(device)) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(loss)

# %% round 12: a loader built in a Lightning-style train_dataloader hook over a TensorDataset [none]
import torch
from torch.utils.data import DataLoader, TensorDataset


class DataModule:
    def __init__(self):
        g = torch.Generator().manual_seed(0)
        self.train = TensorDataset(torch.randn(8, 3, generator=g), torch.randn(8, 1, generator=g))

    def train_dataloader(self):
        return DataLoader(self.train, batch_size=4, num_workers=2)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
dm = DataModule()
for epoch in range(2):
    for x, y in dm.train_dataloader():
        loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(round(loss.item(), 4))

# %% round 12: unbatched items of a replay buffer normalised in place after the move [unsafe, same]
import torch
from torch.utils.data import DataLoader, Dataset


class Replay(Dataset):
    def __init__(self):
        self.obs = torch.arange(12.0).reshape(4, 3)

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return self.obs[i]


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
buf = Replay()
for epoch in range(2):
    for x in DataLoader(buf, batch_size=None):
        x = x.to(device)
        x.sub_(1.0)
    show(buf.obs)

# %% round 13: a loader with pin_memory=False given by position, batches moved to the device [unsafe, same]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), 2, False, None, None, 0, None, False)
model = torch.nn.Linear(2, 1).to(device)
for epoch in range(2):
    for (x,) in loader:
        model(x.to(device)).sum().backward()
    show(model.weight.grad)

# %% round 13: a loader whose keywords come from a dict that always holds pin_memory [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
opts = {"batch_size": 2, "pin_memory": False}
loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), **opts)
model = torch.nn.Linear(2, 1).to(device)
for epoch in range(2):
    for (x,) in loader:
        model(x.to(device)).sum().backward()
    show(model.weight.grad)

# %% round 13: a loader made by a builder function whose batches a walrus moves to the device [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def build():
    return DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2)


model = torch.nn.Linear(2, 1).to(device)
for epoch in range(2):
    for (x,) in build():
        if (xd := x.to(device)).numel():
            model(xd).sum().backward()
    show(model.weight.grad)

# %% round 13: a loader subclass with a fixed constructor, batches moved to the device [unsafe, same]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Loader(DataLoader):
    def __init__(self, dataset):
        super().__init__(dataset, batch_size=2)


loader = Loader(TensorDataset(torch.arange(8.0).reshape(4, 2)))
model = torch.nn.Linear(2, 1).to(device)
for epoch in range(2):
    for (x,) in loader:
        model(x.to(device)).sum().backward()
    show(model.weight.grad)

# %% round 13: a loader whose batches are moved with .cuda() only when CUDA exists [unsafe, same]
import torch
from torch.utils.data import DataLoader, TensorDataset

use_cuda = torch.cuda.is_available()
loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, shuffle=False)
model = torch.nn.Linear(2, 1)
if use_cuda:
    model = model.cuda()
for epoch in range(2):
    for (x,) in loader:
        if use_cuda:
            x = x.cuda()
        model(x).sum().backward()
    show(model.weight.grad)

# %% round 14: batches collated into a tuple subclass whose constructor takes two fields [none]
import torch
from torch.utils.data import DataLoader, TensorDataset


class Batch(tuple):
    def __new__(cls, x, y):
        return super().__new__(cls, (x, y))

    @property
    def x(self):
        return self[0]


def collate(items):
    xs, ys = zip(*items)
    return Batch(torch.stack(xs), torch.stack(ys))


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(2, 1).to(device)
loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2), torch.arange(4)), batch_size=2, collate_fn=collate)
for epoch in range(2):
    for batch in loader:
        model(batch.x.to(device)).sum().backward()
    show(model.weight.grad)

# %% round 14: batches with their own pin_memory method that pins in place and returns nothing [none]
import torch
from torch.utils.data import DataLoader, TensorDataset


class Batch:
    def __init__(self, x):
        self.x = x

    def pin_memory(self):
        self.x = self.x.pin_memory()


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(2, 1).to(device)
loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, collate_fn=lambda items: Batch(torch.stack([i[0] for i in items])))
for epoch in range(2):
    for batch in loader:
        model(batch.x.to(device)).sum().backward()
    show(model.weight.grad)

# %% round 14: a loader subclass that passes pin_memory=False itself next to **kwargs [none]
import torch
from torch.utils.data import DataLoader, TensorDataset


class HostLoader(DataLoader):
    def __init__(self, dataset, **kwargs):
        super().__init__(dataset, pin_memory=False, **kwargs)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(2, 1).to(device)
loader = HostLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2)
for epoch in range(2):
    for (x,) in loader:
        model(x.to(device)).sum().backward()
    show(model.weight.grad)

# %% round 14: a loader built by functools.partial of DataLoader with batch_size bound, batches moved [none]
import functools
import torch
from torch.utils.data import DataLoader, TensorDataset

make_loader = functools.partial(DataLoader, batch_size=2)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(2, 1).to(device)
loader = make_loader(TensorDataset(torch.arange(8.0).reshape(4, 2)))
for epoch in range(2):
    for (x,) in loader:
        model(x.to(device)).sum().backward()
    show(model.weight.grad)

# %% round 14: control, a loader in a training function with a comment inside the call [none]
import torch
from torch.utils.data import DataLoader, TensorDataset


def train():
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    loader = DataLoader(
        TensorDataset(torch.arange(8.0).reshape(4, 2)),  # features
        batch_size=2,
    )
    model = torch.nn.Linear(2, 1)
    for epoch in range(2):
        for (x,) in loader:
            model(x.to(device)).sum().backward()
    show(model.weight.grad)


train()

# %% round 14: a mapping batch of an immutable Mapping class of the file, collated by a collate_fn [none]
import collections.abc
import torch
from torch.utils.data import DataLoader, TensorDataset


class Frozen(collections.abc.Mapping):
    def __init__(self, **fields):
        self._d = dict(fields)

    def __getitem__(self, k):
        return self._d[k]

    def __iter__(self):
        return iter(self._d)

    def __len__(self):
        return len(self._d)

    def names(self):
        return sorted(self._d)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(2, 1).to(device)
loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, collate_fn=lambda items: Frozen(x=torch.stack([i[0] for i in items])))
for epoch in range(2):
    for batch in loader:
        model(batch["x"].to(device)).sum().backward()
        show(batch.names())
    show(model.weight.grad)

# %% round 14: control, a collate_fn returning a plain tuple in a file without batch classes [unsafe, same]
import torch
from torch.utils.data import DataLoader, TensorDataset


def collate(items):
    return torch.stack([i[0] for i in items]), len(items)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(2, 1).to(device)
loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, collate_fn=collate)
for epoch in range(2):
    for x, n in loader:
        model(x.to(device)).sum().backward()
    show(model.weight.grad)

# %% round 15: a collate_fn returning a list subclass whose constructor takes a tag [none]
import torch
from torch.utils.data import DataLoader


class Tagged(list):
    def __init__(self, items, tag):
        super().__init__(items)
        self.tag = tag


def collate(rows):
    return Tagged([torch.stack(rows)], "train")


loader = DataLoader([torch.tensor([float(i)]) for i in range(4)], batch_size=2, collate_fn=collate)
for epoch in range(2):
    for batch in loader:
        print(batch.tag, batch[0].tolist())

# %% round 15: a collate_fn returning a UserDict subclass with a method [none]
from collections import UserDict

import torch
from torch.utils.data import DataLoader


class Batch(UserDict):
    def size(self):
        return len(self["x"])


def collate(rows):
    return Batch(x=torch.stack(rows))


loader = DataLoader([torch.tensor([float(i)]) for i in range(4)], batch_size=2, collate_fn=collate)
for epoch in range(2):
    for batch in loader:
        print(batch.size(), batch["x"].tolist())

# %% round 15: a loader built by a function of the file returning a plain tuple collate [none]
import torch
from torch.utils.data import DataLoader


def make_loader(items):
    return DataLoader(items, batch_size=2, collate_fn=lambda rows: (torch.stack(rows),))


loader = make_loader([torch.tensor([float(i)]) for i in range(4)])
for epoch in range(2):
    for (x,) in loader:
        show(x)

# %% round 15: a collate_fn returning an object with slots and no pin_memory [none]
import torch
from torch.utils.data import DataLoader


class Batch:
    __slots__ = ("x",)

    def __init__(self, x):
        self.x = x


loader = DataLoader([torch.tensor([float(i)]) for i in range(4)], batch_size=2, collate_fn=lambda rows: Batch(torch.stack(rows)))
for epoch in range(2):
    for batch in loader:
        show(batch.x)

# %% round 15: a loader over a dataset of views of a held tensor, changed in place in the loop, batch_size None [none]
import torch
from torch.utils.data import DataLoader, Dataset


class Rows(Dataset):
    def __init__(self):
        self.data = torch.zeros(4, 2)

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return self.data[i]


rows = Rows()
loader = DataLoader(rows, batch_size=None)
for epoch in range(2):
    for x in loader:
        x.add_(1)
show(rows.data)

# %% round 17: a loader subclass whose constructor takes only the dataset and batch size [none]
import torch
from torch.utils.data import DataLoader, TensorDataset


class EpochLoader(DataLoader):
    def __init__(self, dataset, batch_size):
        super().__init__(dataset, batch_size=batch_size, shuffle=False)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = EpochLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), 2)
for epoch in range(2):
    for (x,) in loader:
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(round(loss.item(), 4))

# %% round 17: a loader built by a functools.partial of DataLoader with pin_memory set [none]
import functools

import torch
from torch.utils.data import DataLoader, TensorDataset

make_loader = functools.partial(DataLoader, batch_size=2, pin_memory=False)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = make_loader(TensorDataset(torch.arange(8.0).reshape(4, 2)))
for epoch in range(2):
    for (x,) in loader:
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(round(loss.item(), 4))

# %% round 17: a loader given every option up to pin_memory by position [unsafe]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), 2, False, None, None, 0, None, False)
for epoch in range(2):
    for (x,) in loader:
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(round(loss.item(), 4))

# %% round 17: a loader whose options come from a dict merged with a literal by the | operator [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

BASE = {"batch_size": 2, "pin_memory": False}
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), **(BASE | {"shuffle": False}))
for epoch in range(2):
    for (x,) in loader:
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(round(loss.item(), 4))

# %% round 17: a loader whose keyword dict is built by dict() with pin_memory from a flag [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

use_pin = False
kwargs = dict(batch_size=2, pin_memory=use_pin)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), **kwargs)
for epoch in range(2):
    for (x,) in loader:
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(round(loss.item(), 4))

# %% round 17: a loader whose keyword dict gets pin_memory by update() after it is made [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

opts = {"batch_size": 2}
opts.update(pin_memory=False)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), **opts)
for epoch in range(2):
    for (x,) in loader:
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(round(loss.item(), 4))

# %% round 17: a loader whose keyword dict is filled from a list of pairs [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

opts = dict([("batch_size", 2), ("pin_memory", False)])
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), **opts)
for epoch in range(2):
    for (x,) in loader:
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(round(loss.item(), 4))

# %% round 17: a loader whose keyword dict is a comprehension over a list of option names [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

NAMES = ["pin_memory", "drop_last"]
opts = {name: False for name in NAMES}
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, **opts)
for epoch in range(2):
    for (x,) in loader:
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(round(loss.item(), 4))

# %% round 17: a loader subclass without an __init__ of its own under one that takes no kwargs [none]
import torch
from torch.utils.data import DataLoader, TensorDataset


class FixedLoader(DataLoader):
    def __init__(self, dataset, batch_size=1):
        super().__init__(dataset, batch_size=batch_size)


class TrainLoader(FixedLoader):
    pass


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = TrainLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2)
for epoch in range(2):
    for (x,) in loader:
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(round(loss.item(), 4))

# %% round 18: a project class named DataLoader whose constructor takes no pin_memory [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class DataLoader:
    def __init__(self, data, batch_size):
        self.data, self.batch_size = data, batch_size

    def __iter__(self):
        for i in range(0, len(self.data), self.batch_size):
            yield torch.stack(self.data[i : i + self.batch_size])


loader = DataLoader([torch.ones(2) * i for i in range(4)], batch_size=2)
for x in loader:
    show(x.to(device))

# %% round 18: a loader built by functools.partial of DataLoader with fixed options [none]
import functools

import torch
from torch.utils.data import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
make = functools.partial(DataLoader, batch_size=2)
loader = make([torch.ones(2) * i for i in range(4)])
for x in loader:
    show(x.to(device))

# %% round 18: a loader whose batches are dicts of tensors and strings moved field by field [unsafe, same]
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
data = [{"x": torch.ones(2) * i, "name": f"s{i}"} for i in range(4)]
loader = DataLoader(data, batch_size=2)
for batch in loader:
    show(batch["x"].to(device), batch["name"])

# %% round 18: a loader with batch_size None over a dataset of views of one tensor, changed in the loop [unsafe, same]
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
base = torch.arange(6.0).reshape(3, 2)


class Rows(Dataset):
    def __len__(self):
        return 3

    def __getitem__(self, i):
        return base[i]


loader = DataLoader(Rows(), batch_size=None)
for epoch in range(2):
    for row in loader:
        row.mul_(2)
        show(row.to(device))
show(base)

# %% round 18: a DataLoader subclass that takes its options as keyword-only arguments [none]
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Loader(DataLoader):
    def __init__(self, data, *, batch_size):
        super().__init__(data, batch_size=batch_size)


loader = Loader([torch.ones(2) * i for i in range(4)], batch_size=2)
for x in loader:
    show(x.to(device))

# %% round 24: a loader subclass whose **kwargs are options of its padding collate function [unsafe]
import functools
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def pad_collate(batch, pad_value=0.0):
    n = max(len(x) for x in batch)
    return torch.stack([torch.cat([x, torch.full((n - len(x),), pad_value)]) for x in batch])


class PaddedLoader(DataLoader):
    def __init__(self, data, batch_size, **collate_options):
        super().__init__(data, batch_size=batch_size, collate_fn=functools.partial(pad_collate, **collate_options))


torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = PaddedLoader([torch.ones(3), torch.ones(2), torch.ones(1), torch.ones(3)], batch_size=2, pad_value=-1.0)
for epoch in range(2):
    for x in loader:
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        show(x, round(loss.item(), 5))

# %% round 24: a loader subclass that records its **kwargs in a frozen options dataclass [unsafe]
import dataclasses
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


@dataclasses.dataclass(frozen=True)
class LoaderOptions:
    shuffle: bool = False


class RecordedLoader(DataLoader):
    def __init__(self, data, batch_size, **options):
        self.options = LoaderOptions(**options)
        super().__init__(data, batch_size=batch_size, shuffle=self.options.shuffle)


torch.manual_seed(0)
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = RecordedLoader([torch.ones(2) * i for i in range(4)], batch_size=2)
for epoch in range(2):
    for x in loader:
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        show(round(loss.item(), 5))

# %% round 24: a plain loader whose batches go to the device inside a match on the batch structure [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(TensorDataset(torch.randn(4, 2), torch.randn(4, 1)), batch_size=2)
for epoch in range(2):
    for batch in loader:
        match batch:
            case [x, y]:
                loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        show(round(loss.item(), 5))
