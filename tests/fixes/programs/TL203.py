# %% control: workers re-spawned every epoch [unsafe, same]
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

loader = DataLoader(list(range(4)), batch_size=2, num_workers=2)
for epoch in range(2):
    for x in loader:
        show(epoch, x.to(device))

# %% the loader zipped with itself [none]
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

loader = DataLoader(list(range(4)), batch_size=2, num_workers=1)
for epoch in range(2):
    for a, b in zip(loader, loader):
        show(epoch, a.to(device), b)

# %% the loader iterated inside a pass over itself [none]
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

loader = DataLoader(list(range(4)), batch_size=2, num_workers=1)
for epoch in range(2):
    for a in loader:
        for b in loader:
            show(epoch, a.to(device), b)

# %% next(iter(loader)) inside a pass [none]
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

loader = DataLoader(list(range(4)), batch_size=2, num_workers=1)
for epoch in range(2):
    for a in loader:
        show(epoch, a.to(device), next(iter(loader)))

# %% worker count from a variable [none]
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

workers = 1
loader = DataLoader(list(range(4)), batch_size=2, num_workers=workers)
for epoch in range(2):
    for x in loader:
        show(epoch, x.to(device))

# %% the dataset changes between epochs [none]
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

class Data(list):
    scale = 1

data = Data(range(4))
loader = DataLoader(data, batch_size=2, num_workers=1)
for epoch in range(2):
    data.scale = epoch
    for x in loader:
        show(epoch, x.to(device))

# %% a global switch read by the dataset, flipped between epochs [unsafe]
import torch
from torch.utils.data import DataLoader, Dataset

AUGMENT = False

class Data(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.tensor([float(i) + (10.0 if AUGMENT else 0.0)])

model = torch.nn.Linear(1, 1)
loader = DataLoader(Data(), batch_size=2, num_workers=2)
for epoch in range(2):
    for x in loader:
        model(x).sum().backward()
        print(x.flatten().tolist())
    AUGMENT = True

# %% the dataset's attribute set through a helper of another object [unsafe]
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

class Data(Dataset):
    def __init__(self):
        self.scale = 1.0

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.tensor([i * self.scale])

class Schedule:
    def __init__(self, ds):
        self.ds = ds

    def step(self, epoch):
        self.ds.scale = epoch + 1.0

ds = Data()
sched = Schedule(ds)
model = torch.nn.Linear(1, 1)
loader = DataLoader(ds, batch_size=2, num_workers=2)
for epoch in range(2):
    sched.step(epoch)
    for x in loader:
        model(x.to(device)).sum().backward()
        print(x.flatten().tolist())

# %% a second iterator over the loader opened before each epoch's pass and drawn inside it [none]
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

data = [torch.tensor([float(i)]) for i in range(8)]
loader = DataLoader(data, batch_size=2, num_workers=2)
model = torch.nn.Linear(1, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(2):
    partner = iter(loader)
    for x in loader:
        y = next(partner)
        loss = (model(x.to(device)) - model(y)).pow(2).mean() + model(x).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
        print(epoch, x.flatten().tolist(), y.flatten().tolist())

# %% a collator object whose maximum length grows every epoch [none]
import torch
from torch.utils.data import DataLoader, Dataset

class Seqs(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.ones(i + 1)

class PadCollator:
    def __init__(self):
        self.max_len = 2

    def __call__(self, items):
        return torch.stack([torch.nn.functional.pad(t[: self.max_len], (0, self.max_len - len(t[: self.max_len]))) for t in items])

collate = PadCollator()
loader = DataLoader(Seqs(), batch_size=2, num_workers=2, collate_fn=collate)
model = torch.nn.Linear(1, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(3):
    collate.max_len = 2 + epoch
    for x in loader:
        model(x.unsqueeze(-1)).sum().backward()
        opt.step()
        opt.zero_grad()
    print(epoch, tuple(x.shape))

# %% round 7: workers and a sampler whose epoch is set every pass [unsafe]
import torch
from torch.utils.data import DataLoader, Sampler

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

class EpochSampler(Sampler):
    def __init__(self):
        self.epoch = 0
    def set_epoch(self, epoch):
        self.epoch = epoch
    def __iter__(self):
        return iter([(i + self.epoch) % 4 for i in range(4)])
    def __len__(self):
        return 4

sampler = EpochSampler()
loader = DataLoader(list(range(4)), batch_size=2, sampler=sampler, num_workers=1)
for epoch in range(2):
    sampler.set_epoch(epoch)
    for x in loader:
        show(x.to(device))

# %% round 8: workers re-spawned each epoch with a collate_fn from functools.partial [unsafe, same]
import functools

import torch
from torch.utils.data import DataLoader


def collate(items, scale):
    return torch.stack(items) * scale


if __name__ == "__main__":
    loader = DataLoader([torch.ones(1) * i for i in range(4)], batch_size=2, num_workers=2,
                        collate_fn=functools.partial(collate, scale=2.0))
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model = torch.nn.Linear(1, 1).to(device)
    for epoch in range(2):
        for x in loader:
            model(x.to(device)).sum().backward()
            print(x.squeeze(1).tolist())

# %% round 8: a loader whose dataset is changed through a closure between epochs [unsafe]
import torch
from torch.utils.data import DataLoader, Dataset


class Data(Dataset):
    def __init__(self):
        self.offset = 0

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.tensor([float(i + self.offset)])


def make_bumper(ds):
    def bump():
        ds.offset += 10
    return bump


if __name__ == "__main__":
    ds = Data()
    bump = make_bumper(ds)
    loader = DataLoader(ds, batch_size=2, num_workers=2)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    for epoch in range(2):
        for x in loader:
            print(x.to(device).squeeze(1).tolist())
        bump()

# %% round 9: a default dtype set between epochs, read by the dataset [unsafe]
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
from torch.utils.data import DataLoader, Dataset

class Items(Dataset):
    def __len__(self):
        return 2
    def __getitem__(self, i):
        return torch.tensor([float(i)])

loader = DataLoader(Items(), batch_size=2, num_workers=1)
for epoch in range(2):
    for x in loader:
        print(epoch, x.to(device).dtype)
    torch.set_default_dtype(torch.float64)
torch.set_default_dtype(torch.float32)

# %% round 10: a training pool grown every epoch through a list alias, with workers [none]
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

class Pool(Dataset):
    def __init__(self, items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
items = [torch.full((2,), float(i)) for i in range(4)]
loader = DataLoader(Pool(items), batch_size=2, num_workers=2)
model = nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(3):
    for x in loader:
        x = x.to(device)
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    items.append(torch.full((2,), 10.0 + epoch))
    print(epoch, len(items), round(loss.item(), 6))

# %% round 10: a dataset that counts the items it served to grow its noise [unsafe]
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

class Noisy(Dataset):
    def __init__(self):
        self.served = 0

    def __len__(self):
        return 4

    def __getitem__(self, i):
        self.served += 1
        return torch.full((2,), float(i) + 0.01 * self.served)

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
loader = DataLoader(Noisy(), batch_size=2, num_workers=1)
model = nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(3):
    for x in loader:
        x = x.to(device)
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(epoch, [round(v, 4) for v in x[:, 0].tolist()])

# %% round 10: a worker_init_fn that reads the epoch from a global [unsafe]
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset, get_worker_info

EPOCH = 0

class Scaled(Dataset):
    scale = 1.0

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.full((2,), float(i) * self.scale)

def init_worker(worker_id):
    get_worker_info().dataset.scale = 1.0 + EPOCH

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
loader = DataLoader(Scaled(), batch_size=2, num_workers=1, worker_init_fn=init_worker)
model = nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.001)
for epoch in range(3):
    EPOCH = epoch
    for x in loader:
        x = x.to(device)
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(epoch, x[:, 0].tolist())

# %% round 10: workers over an IterableDataset split by worker, iterated each epoch [unsafe, same]
import torch
from torch import nn
from torch.utils.data import DataLoader, IterableDataset, get_worker_info

class Lines(IterableDataset):
    def __iter__(self):
        info = get_worker_info()
        first, step = (0, 1) if info is None else (info.id, info.num_workers)
        for i in range(first, 6, step):
            yield torch.tensor([float(i)])

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
loader = DataLoader(Lines(), batch_size=3, num_workers=1)
model = nn.Linear(1, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(2):
    for x in loader:
        x = x.to(device)
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(epoch, x.flatten().tolist())

# %% round 11: worker options shared by a train and a validation loader, persistence set for one [none]
import torch
from torch.utils.data import DataLoader


class Squares(torch.utils.data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        return torch.tensor([float(index) ** 2])


common = {"num_workers": 1, "batch_size": 2}
train_loader = DataLoader(Squares(), **common)
common["persistent_workers"] = True
val_loader = DataLoader(Squares(), **common)
model = torch.nn.Linear(1, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(2):
    for x in train_loader:
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        show(epoch, sum(model(x).sum() for x in val_loader))

# %% round 11: workers given by keyword next to a shared options dict, re-iterated every epoch [none]
import torch
from torch.utils.data import DataLoader


class Squares(torch.utils.data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        return self.decode(index)

    def decode(self, index):
        return torch.tensor([float(index) ** 2])


common = {"batch_size": 2}
if not torch.cuda.is_available():
    common["persistent_workers"] = False
loader = DataLoader(Squares(), num_workers=1, **common)
model = torch.nn.Linear(1, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(2):
    for x in loader:
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    show(epoch, loss)

# %% round 11: control, one worker re-started every epoch, options spelled in the call [unsafe, same]
import torch
from torch.utils.data import DataLoader


class Squares(torch.utils.data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        return self.decode(index)

    def decode(self, index):
        return torch.tensor([float(index) ** 2])


loader = DataLoader(Squares(), batch_size=2, num_workers=1)
model = torch.nn.Linear(1, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(2):
    for x in loader:
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    show(epoch, loss)

# %% round 12: a worker-side cache of decoded items counted in a module-level dict that each item reports [unsafe]
import torch
from torch.utils.data import DataLoader, Dataset

DECODED = {"count": 0}


class Clips(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        DECODED["count"] += 1
        return torch.full((2,), float(i)), DECODED["count"]


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(2, 1).to(device)
loader = DataLoader(Clips(), batch_size=2, num_workers=1)
for epoch in range(2):
    for x, seen in loader:
        print(seen.tolist())
        show(model(x.to(device)).sum())

# %% round 12: a loader kept on the trainer from __init__, iterated by an epoch method with two workers [unsafe, same]
import torch
from torch.utils.data import DataLoader, TensorDataset


class Trainer:
    def __init__(self):
        data = TensorDataset(torch.arange(8.0).reshape(4, 2), torch.arange(4.0))
        self.loader = DataLoader(data, batch_size=2, num_workers=2)
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.model = torch.nn.Linear(2, 1).to(self.device)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.01)

    def epoch(self):
        for x, y in self.loader:
            loss = (self.model(x.to(self.device)).squeeze(1) - y.to(self.device)).pow(2).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
        return loss


torch.manual_seed(0)
t = Trainer()
for e in range(2):
    show(t.epoch())

# %% round 12: a shuffling loader with workers whose epoch loop also draws dropout masks [unsafe]
import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
data = TensorDataset(torch.arange(12.0).reshape(6, 2))
loader = DataLoader(data, batch_size=3, shuffle=True, num_workers=1)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
drop = torch.nn.Dropout(0.5)
for epoch in range(3):
    for (x,) in loader:
        show(drop(x.to(device)))

# %% round 13: a loader with num_workers=2 given by position, re-iterated every epoch [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), 2, False, None, None, 2)
model = torch.nn.Linear(2, 1)
for epoch in range(2):
    for (x,) in loader:
        model(x).sum().backward()
    show(model.weight.grad)

# %% round 13: a pool dataset grown through loader.dataset between epochs, two workers [none]
import torch
from torch.utils.data import DataLoader, Dataset


class Pool(Dataset):
    def __init__(self):
        self.items = [torch.ones(2), torch.zeros(2)]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


loader = DataLoader(Pool(), batch_size=2, num_workers=2)
for epoch in range(3):
    for x in loader:
        show(x)
    loader.dataset.items.append(torch.full((2,), float(epoch)))

# %% round 13: a loader subclass that fixes its workers in its constructor [unsafe, same]
import torch
from torch.utils.data import DataLoader, TensorDataset


class Loader(DataLoader):
    def __init__(self, dataset):
        super().__init__(dataset, batch_size=2, num_workers=2)


loader = Loader(TensorDataset(torch.arange(8.0).reshape(4, 2)))
model = torch.nn.Linear(2, 1)
for epoch in range(2):
    for (x,) in loader:
        model(x).sum().backward()
    show(model.weight.grad)

# %% round 13: a loader whose dataset scale is changed through loader.dataset between epochs [none]
import torch
from torch.utils.data import DataLoader, Dataset


class Scaled(Dataset):
    def __init__(self):
        self.scale = 1.0

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.full((2,), i * self.scale)


loader = DataLoader(Scaled(), batch_size=2, num_workers=2)
for epoch in range(2):
    for x in loader:
        show(x)
    loader.dataset.scale = epoch + 2.0

# %% round 13: a loader with workers re-iterated through itertools.islice each epoch [none]
import itertools
import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.arange(16.0).reshape(8, 2)), batch_size=2, num_workers=2)
for epoch in range(2):
    for (x,) in itertools.islice(loader, 2):
        show(x)

# %% round 13: a loader with workers whose dataset reads a global threshold changed by a nested function [none]
import torch
from torch.utils.data import DataLoader, Dataset

LIMIT = 1.0


class Clipped(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.full((2,), float(i)).clamp(max=LIMIT)


def train():
    def relax(e):
        global LIMIT
        LIMIT = 1.0 + e

    loader = DataLoader(Clipped(), batch_size=2, num_workers=2)
    for epoch in range(2):
        for x in loader:
            show(x)
        relax(epoch + 1)


train()

# %% round 13: a loader with workers left early with break every epoch [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.arange(16.0).reshape(8, 2)), batch_size=2, num_workers=2)
for epoch in range(2):
    for i, (x,) in enumerate(loader):
        show(x)
        if i == 1:
            break

# %% round 14: a loader with two workers whose dataset exposes set_epoch called every epoch [none]
import torch
from torch.utils.data import DataLoader, Dataset


class Shifted(Dataset):
    def __init__(self):
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.tensor([float(i + self.epoch)])


if __name__ == "__main__":
    data = Shifted()
    model = torch.nn.Linear(1, 1)
    loader = DataLoader(data, batch_size=2, num_workers=2)
    for epoch in range(2):
        data.set_epoch(epoch)
        for x in loader:
            model(x).sum().backward()
        show(model.weight.grad)

# %% round 14: a loader with workers built by a function and iterated by a nested generator [none]
import torch
from torch.utils.data import DataLoader, TensorDataset


def build():
    return DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, num_workers=2)


def batches(loader):
    for (x,) in loader:
        yield x.sum()


if __name__ == "__main__":
    loader = build()
    w = torch.ones(1, requires_grad=True)
    for epoch in range(2):
        for s in batches(loader):
            (w * s).backward()
        show(w.grad)

# %% round 14: a loader with workers and a worker_init_fn that reads a global epoch [unsafe]
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info

EPOCH = 0
OFFSET = [0]


class Items(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.tensor([float(i + OFFSET[0])])


def init(worker_id):
    OFFSET[0] = EPOCH


if __name__ == "__main__":
    loader = DataLoader(Items(), batch_size=2, num_workers=2, worker_init_fn=init)
    model = torch.nn.Linear(1, 1)
    for EPOCH in range(2):
        for x in loader:
            model(x).sum().backward()
        show(model.weight.grad)

# %% round 14: a loader with workers zipped with a second loader over the same dataset [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

if __name__ == "__main__":
    data = TensorDataset(torch.arange(8.0).reshape(4, 2))
    a = DataLoader(data, batch_size=2, num_workers=1)
    b = DataLoader(data, batch_size=2, num_workers=1)
    for epoch in range(2):
        show([(x + y).tolist() for (x,), (y,) in zip(a, b)])

# %% round 14: a loader with workers whose iterator is consumed by a walrus loop [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

if __name__ == "__main__":
    loader = DataLoader(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, num_workers=1)
    for epoch in range(2):
        it = iter(loader)
        while (batch := next(it, None)) is not None:
            peek = next(iter(loader))
            show(batch[0].sum(), peek[0].sum())

# %% round 15: a dataset whose sample list grows by extend between epochs (pseudo-labels) [none]
import torch
from torch.utils.data import DataLoader, Dataset


class Samples(Dataset):
    def __init__(self):
        self.samples = [0.0, 1.0, 2.0, 3.0]

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, i):
        return torch.tensor(self.samples[i])


train_set = Samples()
loader = DataLoader(train_set, batch_size=2, num_workers=2)
for epoch in range(2):
    print(sorted(x for b in loader for x in b.tolist()))
    train_set.samples.extend([10.0 + epoch, 20.0 + epoch])

# %% round 15: a dataset whose sample list grows by += on its attribute between epochs [none]
import torch
from torch.utils.data import DataLoader, Dataset


class Samples(Dataset):
    def __init__(self):
        self.samples = [0.0, 1.0, 2.0, 3.0]

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, i):
        return torch.tensor(self.samples[i])


train_set = Samples()
loader = DataLoader(train_set, batch_size=2, num_workers=2)
for epoch in range(2):
    print(sorted(x for b in loader for x in b.tolist()))
    train_set.samples += [10.0 + epoch]

# %% round 15: a dataset grown through loader.dataset by a helper function between epochs [none]
import torch
from torch.utils.data import DataLoader, Dataset


class Samples(Dataset):
    def __init__(self):
        self.samples = [0.0, 1.0, 2.0, 3.0]

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, i):
        return torch.tensor(self.samples[i])


def add_pseudo_labels(ds, values):
    for v in values:
        ds.samples.append(v)


loader = DataLoader(Samples(), batch_size=2, num_workers=2)
for epoch in range(2):
    print(sorted(x for b in loader for x in b.tolist()))
    add_pseudo_labels(loader.dataset, [10.0 + epoch])

# %% round 15: a loader with workers in a training function, sorted sums per epoch [none]
import torch
from torch.utils.data import DataLoader, TensorDataset


def train():
    loader = DataLoader(TensorDataset(torch.arange(8.0)), batch_size=4, num_workers=2)
    for epoch in range(2):
        print(sorted(b[0].sum().item() for b in loader))


train()

# %% round 15: a loader with workers whose dataset list is replaced item by item between epochs [none]
import torch
from torch.utils.data import DataLoader

values = [torch.tensor(float(i)) for i in range(4)]
loader = DataLoader(values, batch_size=2, num_workers=2)
for epoch in range(2):
    print(sorted(x for b in loader for x in b.tolist()))
    values[0] = torch.tensor(100.0)

# %% round 15: a loader with workers kept by a trainer class and iterated in fit [none]
import torch
from torch.utils.data import DataLoader, TensorDataset


class Trainer:
    def __init__(self):
        self.loader = DataLoader(TensorDataset(torch.arange(8.0)), batch_size=4, num_workers=2)

    def fit(self):
        for epoch in range(2):
            print(sorted(b[0].sum().item() for b in self.loader))


Trainer().fit()

# %% round 15: a loader with workers previewed by next(iter()) before each epoch's pass [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

loader = DataLoader(TensorDataset(torch.arange(8.0)), batch_size=4, num_workers=2)
for epoch in range(2):
    first = next(iter(loader))
    print(first[0].tolist(), [b[0].tolist() for b in loader])

# %% round 16: a curriculum that grows the dataset's list through the loader's dataset attribute [none]
import torch
from torch.utils.data import DataLoader, Dataset


class Pool(Dataset):
    def __init__(self, items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i] * 2


model = torch.nn.Linear(1, 1)
loader = DataLoader(Pool([torch.tensor([float(i)]) for i in range(4)]), batch_size=2, num_workers=2)
for epoch in range(2):
    for batch in loader:
        model(batch).sum().backward()
        show(batch)
    loader.dataset.items.append(torch.tensor([10.0 + epoch]))

# %% round 16: a curriculum that grows the dataset's list through its own name [none]
import torch
from torch.utils.data import DataLoader, Dataset


class Pool(Dataset):
    def __init__(self, items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i] * 2


pool = Pool([torch.tensor([float(i)]) for i in range(4)])
model = torch.nn.Linear(1, 1)
loader = DataLoader(pool, batch_size=2, num_workers=2)
for epoch in range(2):
    for batch in loader:
        model(batch).sum().backward()
        show(batch)
    pool.items.append(torch.tensor([10.0 + epoch]))

# %% round 16: a Subset widened through the loader's dataset indices between epochs [none]
import torch
from torch.utils.data import DataLoader, Subset, TensorDataset

full = TensorDataset(torch.arange(8.0).unsqueeze(1))
model = torch.nn.Linear(1, 1)
loader = DataLoader(Subset(full, [0, 1, 2, 3]), batch_size=2, num_workers=2)
for epoch in range(2):
    for (batch,) in loader:
        model(batch).sum().backward()
        show(batch)
    loader.dataset.indices.append(4 + epoch)

# %% round 16: a dataset grown by extend through a trainer's loader attribute [none]
import torch
from torch.utils.data import DataLoader, Dataset


class Pool(Dataset):
    def __init__(self, items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i] * 2


class Trainer:
    def __init__(self):
        self.loader = DataLoader(Pool([torch.tensor([float(i)]) for i in range(4)]), batch_size=2, num_workers=2)

    def fit(self):
        for epoch in range(2):
            for batch in self.loader:
                model(batch).sum().backward()
                show(batch)
            self.loader.dataset.items.extend([torch.tensor([9.0])])


model = torch.nn.Linear(1, 1)
Trainer().fit()

# %% round 16: a dataset whose size is set through a method of the loader's dataset [none]
import torch
from torch.utils.data import DataLoader, Dataset


class Growing(Dataset):
    def __init__(self):
        self.n = 4

    def grow(self, k):
        self.n += k

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i >= self.n:
            raise IndexError(i)
        return torch.tensor([float(i)])


model = torch.nn.Linear(1, 1)
loader = DataLoader(Growing(), batch_size=2, num_workers=2)
for epoch in range(2):
    for batch in loader:
        model(batch).sum().backward()
        show(batch)
    loader.dataset.grow(2)

# %% round 16: control, a loader read only through its dataset's length [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

model = torch.nn.Linear(1, 1)
loader = DataLoader(TensorDataset(torch.arange(6.0).unsqueeze(1)), batch_size=2, num_workers=2)
for epoch in range(2):
    for (batch,) in loader:
        model(batch).sum().backward()
        show(batch)
    print(len(loader.dataset))
show(model.weight.grad)

# %% round 17: a loader subclass with workers whose constructor takes no persistent_workers [none]
import torch
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        return torch.tensor([float(i), float(i * i)])


class WorkerLoader(DataLoader):
    def __init__(self, dataset, batch_size, num_workers=0):
        super().__init__(dataset, batch_size=batch_size, num_workers=num_workers)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loader = WorkerLoader(Squares(), 3, num_workers=2)
for epoch in range(2):
    for x in loader:
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(round(loss.item(), 4))

# %% round 17: a loader with two workers whose first epoch stops early after two batches [unsafe]
import torch
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.tensor([float(i), float(i * i)])


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.001)
loader = DataLoader(Squares(), batch_size=2, num_workers=2)
for epoch in range(3):
    for step, x in enumerate(loader):
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if epoch == 0 and step == 1:
            break
    print(epoch, step, round(loss.item(), 4))

# %% round 17: a loader with workers whose dataset is read through a len() per epoch [unsafe, same]
import torch
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        return torch.tensor([float(i), float(i * i)])


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.001)
loader = DataLoader(Squares(), batch_size=3, num_workers=2)
for epoch in range(2):
    seen = 0
    for x in loader:
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        seen += len(x)
    print(epoch, seen, len(loader), len(loader.dataset))

# %% round 17: a loader with workers and a sampler whose epoch is set before each pass [unsafe]
import torch
from torch.utils.data import DataLoader, Dataset, Sampler


class Squares(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        return torch.tensor([float(i), float(i * i)])


class RotatingSampler(Sampler):
    def __init__(self, n):
        self.n, self.epoch = n, 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        return iter([(i + self.epoch) % self.n for i in range(self.n)])

    def __len__(self):
        return self.n


sampler = RotatingSampler(6)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.001)
loader = DataLoader(Squares(), batch_size=3, sampler=sampler, num_workers=2)
for epoch in range(2):
    sampler.set_epoch(epoch)
    for x in loader:
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(epoch, x[:, 0].tolist())

# %% round 17: a loader with workers whose batches are drawn with next() under a step budget [unsafe]
import torch
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        return torch.tensor([float(i), float(i * i)])


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.001)
loader = DataLoader(Squares(), batch_size=2, num_workers=2)
for epoch in range(2):
    it = iter(loader)
    for step in range(3):
        x = next(it)
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(epoch, round(loss.item(), 4))

# %% round 18: a validation iterator kept across epochs next to a full pass over the same loader [none]
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
val_loader = DataLoader(list(range(6)), batch_size=2, num_workers=1)
val_iter = iter(val_loader)
for epoch in range(2):
    for step in range(2):
        try:
            vb = next(val_iter)
        except StopIteration:
            val_iter = iter(val_loader)
            vb = next(val_iter)
        show(epoch, step, vb.to(device))
    total = sum(int(b.sum()) for b in val_loader)
    print("full", total)

# %% round 18: a loader whose pass is left by break every epoch, then restarted [unsafe, same]
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
loader = DataLoader(list(range(8)), batch_size=2, num_workers=2)
for epoch in range(3):
    for i, x in enumerate(loader):
        show(epoch, x.to(device))
        if i == 1:
            break

# %% round 18: pseudo-labels written into the label tensor a TensorDataset wraps [unsafe]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.arange(6.0).reshape(6, 1)
labels = torch.zeros(6)
loader = DataLoader(TensorDataset(x, labels), batch_size=3, num_workers=1)
for epoch in range(2):
    for xb, yb in loader:
        show(epoch, yb.to(device))
    labels.copy_(x.squeeze(1) * (epoch + 1))

# %% round 18: an epoch loop that draws one batch with next(iter(loader)) per epoch [none]
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
loader = DataLoader(list(range(6)), batch_size=2, num_workers=1)
for epoch in range(3):
    first = next(iter(loader))
    show(epoch, first.to(device))

# %% round 18: two loaders over one dataset, the second made from the first's dataset [unsafe, same]
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
train = DataLoader(list(range(4)), batch_size=2, num_workers=1)
probe = DataLoader(train.dataset, batch_size=4, num_workers=1)
for epoch in range(2):
    for x in train:
        show(epoch, x.to(device))
    for y in probe:
        show(epoch, y.sum())

# %% round 18: a loader iterated through a generator function the epoch loop calls [unsafe, same]
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
loader = DataLoader(list(range(4)), batch_size=2, num_workers=2)


def batches():
    for b in loader:
        yield b.to(device)


for epoch in range(2):
    for b in batches():
        show(epoch, b)

# %% round 20: a pair dataset reading a module-level list of mined pairs rebuilt in place every epoch [none]
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
PAIRS = [(0, 1), (1, 2)]


class PairSet(Dataset):
    def __len__(self):
        return len(PAIRS)

    def __getitem__(self, i):
        a, b = PAIRS[i]
        return torch.tensor([a, b])


def mine(epoch):
    PAIRS[:] = [(j, j + epoch) for j in range(2 + 2 * epoch)]


loader = DataLoader(PairSet(), batch_size=2, num_workers=2)
for epoch in range(3):
    mine(epoch)
    for x in loader:
        print(epoch, x.to(device).tolist())

# %% round 20: a dataset whose length is a module-level size rebound by a curriculum each epoch [none]
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
LIMIT = 2
ORDER = list(range(8))


class Curriculum(Dataset):
    def __len__(self):
        return LIMIT

    def __getitem__(self, i):
        return torch.tensor(ORDER[:LIMIT][i])


loader = DataLoader(Curriculum(), batch_size=2, num_workers=2)
for epoch in range(3):
    LIMIT = 2 + 2 * epoch
    for x in loader:
        print(epoch, x.to(device).tolist())

# %% round 20: a dataset whose items are read from a module-level tensor replaced each epoch [none]
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
TABLE = torch.zeros(4)


class Rows(Dataset):
    def __len__(self):
        return len(TABLE)

    def __getitem__(self, i):
        return TABLE[i]


loader = DataLoader(Rows(), batch_size=2, num_workers=2)
for epoch in range(3):
    TABLE = torch.arange(4.0 + 2 * epoch)
    for x in loader:
        print(epoch, x.to(device).tolist())

# %% round 21: a dataset whose length reads a class-level bank the epoch loop grows through the class [none]
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class HardNegatives(Dataset):
    BANK = [0, 1]

    def __len__(self):
        return len(type(self).BANK)

    def __getitem__(self, i):
        return torch.tensor(float(self.BANK[i]))


loader = DataLoader(HardNegatives(), batch_size=2, num_workers=2)
for epoch in range(3):
    HardNegatives.BANK.extend([10 * epoch, 10 * epoch + 1])
    for x in loader:
        print(epoch, x.to(device).tolist())

# %% round 21: a replay pool whose list a trainer keeps as an attribute and grows after each epoch [none]
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Pool(Dataset):
    def __init__(self, items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


class Trainer:
    def __init__(self, memory):
        self.memory = memory
        self.loader = DataLoader(Pool(memory), batch_size=2, num_workers=2)

    def fit(self, epochs):
        for epoch in range(epochs):
            for x in self.loader:
                print(epoch, x.to(device).tolist())
            self.memory.append(torch.full((2,), float(epoch)))
            self.memory.append(torch.full((2,), -1.0))


Trainer([torch.zeros(2), torch.ones(2)]).fit(3)

# %% round 21: a pool made from a list a dict of buffers holds, extended through the dict every epoch [none]
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Pool(Dataset):
    def __init__(self, items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


buffers = {"train": [torch.zeros(2), torch.ones(2)]}
loader = DataLoader(Pool(buffers["train"]), batch_size=2, num_workers=2)
for epoch in range(3):
    for x in loader:
        print(epoch, x.to(device).tolist())
    buffers["train"].extend([torch.full((2,), float(epoch)), torch.full((2,), -1.0)])

# %% round 21: a dataset grown through an attribute of the trainer that holds it [none]
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Pool(Dataset):
    def __init__(self):
        self.items = [torch.zeros(2), torch.ones(2)]

    def add(self, x):
        self.items.append(x)

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


class Trainer:
    def __init__(self):
        pool = Pool()
        self.pool = pool
        self.loader = DataLoader(pool, batch_size=2, num_workers=2)

    def fit(self, epochs):
        for epoch in range(epochs):
            for x in self.loader:
                print(epoch, x.to(device).tolist())
            self.pool.add(torch.full((2,), float(epoch)))
            self.pool.add(torch.full((2,), -1.0))


Trainer().fit(3)

# %% round 21: a dataset grown through a second name bound to it [none]
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Pool(Dataset):
    def __init__(self):
        self.items = [torch.zeros(2), torch.ones(2)]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


train_set = Pool()
memory = train_set
loader = DataLoader(train_set, batch_size=2, num_workers=2)
for epoch in range(3):
    for x in loader:
        print(epoch, x.to(device).tolist())
    memory.items.append(torch.full((2,), float(epoch)))
    memory.items.append(torch.full((2,), -1.0))

# %% round 21: a dataset held in a dict of splits and grown through the dict [none]
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Pool(Dataset):
    def __init__(self):
        self.items = [torch.zeros(2), torch.ones(2)]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


splits = {"train": Pool()}
loader = DataLoader(splits["train"], batch_size=2, num_workers=2)
for epoch in range(3):
    for x in loader:
        print(epoch, x.to(device).tolist())
    splits["train"].items.append(torch.full((2,), float(epoch)))
    splits["train"].items.append(torch.full((2,), -1.0))

# %% round 21: a pool built by a function of the file from a module-level buffer grown each epoch [none]
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
BUFFER = [torch.zeros(2), torch.ones(2)]


class Pool(Dataset):
    def __init__(self, items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def make_pool():
    return Pool(BUFFER)


loader = DataLoader(make_pool(), batch_size=2, num_workers=2)
for epoch in range(3):
    for x in loader:
        print(epoch, x.to(device).tolist())
    BUFFER.extend([torch.full((2,), float(epoch)), torch.full((2,), -1.0)])

# %% round 21: a dataset grown through a name bound to the loader's dataset attribute [none]
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Pool(Dataset):
    def __init__(self):
        self.items = [torch.zeros(2), torch.ones(2)]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


loader = DataLoader(Pool(), batch_size=2, num_workers=2)
pool = loader.dataset
for epoch in range(3):
    for x in loader:
        print(epoch, x.to(device).tolist())
    pool.items.append(torch.full((2,), float(epoch)))
    pool.items.append(torch.full((2,), -1.0))

# %% round 21: a pool made from a list attribute of a memory object the loop grows [none]
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Memory:
    def __init__(self):
        self.items = [torch.zeros(2), torch.ones(2)]

    def push(self, x):
        self.items.append(x)


class Pool(Dataset):
    def __init__(self, items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


memory = Memory()
loader = DataLoader(Pool(memory.items), batch_size=2, num_workers=2)
for epoch in range(3):
    for x in loader:
        print(epoch, x.to(device).tolist())
    memory.push(torch.full((2,), float(epoch)))
    memory.push(torch.full((2,), -1.0))

# %% round 24: a Subset whose index list the epoch loop extends in place, loader with workers [none]
import torch
from torch.utils.data import DataLoader, Dataset, Subset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Squares(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, i):
        return torch.tensor(float(i * i))


indices = [0, 1]
loader = DataLoader(Subset(Squares(), indices), batch_size=2, num_workers=2)
for epoch in range(3):
    for x in loader:
        print(epoch, x.to(device).tolist())
    indices += [2 + 2 * epoch, 3 + 2 * epoch]

# %% round 24: a dataset whose size attribute the epoch loop sets with setattr and a literal name [none]
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Ramp(Dataset):
    def __init__(self):
        self.n = 2

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i >= self.n:
            raise IndexError(i)
        return torch.tensor(float(i))


ramp = Ramp()
loader = DataLoader(ramp, batch_size=2, num_workers=2)
for epoch in range(3):
    for x in loader:
        print(epoch, x.to(device).tolist())
    setattr(ramp, "n", 4 + 2 * epoch)

# %% round 24: a dataset grown by a bound method kept as an end-of-epoch callback [none]
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Pool(Dataset):
    def __init__(self):
        self.items = [0.0, 1.0]

    def grow(self):
        self.items.extend([float(len(self.items)), float(len(self.items) + 1)])

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return torch.tensor(self.items[i])


pool = Pool()
callbacks = [pool.grow]
loader = DataLoader(pool, batch_size=2, num_workers=2)
for epoch in range(3):
    for x in loader:
        print(epoch, x.to(device).tolist())
    for callback in callbacks:
        callback()

# %% round 24: a dataset grown through the loader's sampler's data_source [none]
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Pool(Dataset):
    def __init__(self):
        self.items = [0.0, 1.0]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return torch.tensor(self.items[i])


loader = DataLoader(Pool(), batch_size=2, num_workers=2)
for epoch in range(3):
    for x in loader:
        print(epoch, x.to(device).tolist())
    loader.sampler.data_source.items.extend([10.0 * epoch, 10.0 * epoch + 1])

# %% round 24: a dataset whose length reads a module-level config dict the epoch loop updates [none]
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
CONFIG = {"limit": 2}
VALUES = [float(v) for v in range(10)]


class Curriculum(Dataset):
    def __len__(self):
        return CONFIG["limit"]

    def __getitem__(self, i):
        if i >= CONFIG["limit"]:
            raise IndexError(i)
        return torch.tensor(VALUES[i])


loader = DataLoader(Curriculum(), batch_size=2, num_workers=2)
for epoch in range(3):
    for x in loader:
        print(epoch, x.to(device).tolist())
    CONFIG["limit"] = 4 + 2 * epoch

# %% round 24: a dataset whose class-level limit is raised through __class__ of the instance [none]
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Curriculum(Dataset):
    LIMIT = 2

    def __len__(self):
        return self.LIMIT

    def __getitem__(self, i):
        if i >= self.LIMIT:
            raise IndexError(i)
        return torch.tensor(float(i))


data = Curriculum()
loader = DataLoader(data, batch_size=2, num_workers=2)
for epoch in range(3):
    for x in loader:
        print(epoch, x.to(device).tolist())
    data.__class__.LIMIT = 4 + 2 * epoch

# %% round 24: a dataset whose size is updated through vars() of the instance [none]
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Ramp(Dataset):
    def __init__(self):
        self.n = 2

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i >= self.n:
            raise IndexError(i)
        return torch.tensor(float(i))


ramp = Ramp()
loader = DataLoader(ramp, batch_size=2, num_workers=2)
for epoch in range(3):
    for x in loader:
        print(epoch, x.to(device).tolist())
    vars(ramp).update(n=4 + 2 * epoch)

# %% round 24: a fixed in-memory dataset iterated every epoch with a match on the batch, loader with workers [unsafe]
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Fixed(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.tensor(float(i)), i % 2


loader = DataLoader(Fixed(), batch_size=2, num_workers=2)
for epoch in range(2):
    for batch in loader:
        match batch:
            case [x, y]:
                print(epoch, x.to(device).tolist(), y.tolist())
