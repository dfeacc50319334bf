# %% control: a map-style dataset [unsafe, same]
import torch
from torch.utils.data import DataLoader

class Pairs(torch.utils.data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        return (self.decode(index),)

    def decode(self, index):  # per-item work of the dataset's own (not provably cheap)
        return torch.tensor([2.0 * index, 2.0 * index + 1])

data = Pairs()
loader = DataLoader(data, batch_size=2)
for (x,) in loader:
    show(x)

# %% an IterableDataset that does not shard by worker [none]
import torch
from torch.utils.data import DataLoader, IterableDataset

class Stream(IterableDataset):
    def __iter__(self):
        return iter(range(4))

loader = DataLoader(Stream(), batch_size=2)
for x in loader:
    show(x)

# %% an IterableDataset that shards by worker [unsafe]
import torch
from torch.utils.data import DataLoader, IterableDataset, get_worker_info

class Stream(IterableDataset):
    def __iter__(self):
        info = get_worker_info()
        if info is None:
            return iter(range(4))
        return iter(range(info.id, 4, info.num_workers))

loader = DataLoader(Stream(), batch_size=2)
show(sorted(int(v) for x in loader for v in x))

# %% the loader zipped with itself [unsafe, same]
import torch
from torch.utils.data import DataLoader

loader = DataLoader(range(4), batch_size=2)
for a, b in zip(loader, loader):
    show(a, b)

# %% the loader iterated inside a pass over itself [unsafe, same]
import torch
from torch.utils.data import DataLoader

loader = DataLoader(range(4), batch_size=2)
for a in loader:
    for b in loader:
        show(a, b)

# %% positional arguments [unsafe, same]
import torch
from torch.utils.data import DataLoader

loader = DataLoader(range(6), 3, False)
for x in loader:
    show(x)

# %% keyword arguments unpacked [none]
import torch
from torch.utils.data import DataLoader

options = {"batch_size": 2}
loader = DataLoader(range(4), **options)
for x in loader:
    show(x)

# %% dataset items that carry an autograd graph [none]
import torch
from torch.utils.data import DataLoader

torch.manual_seed(0)
encoder = torch.nn.Linear(3, 2)
features = [encoder(torch.ones(3) * i) for i in range(4)]
loader = DataLoader(features, batch_size=2)
head = torch.nn.Linear(2, 1)
optimizer = torch.optim.SGD(head.parameters(), lr=0.1)
for x in loader:
    loss = head(x.detach()).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
show(head)

# %% a curriculum sets the dataset's difficulty every epoch [unsafe]
import torch
from torch.utils.data import DataLoader, Dataset

class Curriculum(Dataset):
    def __init__(self):
        self.scale = 1.0

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return self.sample(i)

    def sample(self, i):  # per-item work of the dataset's own (not provably cheap)
        return torch.tensor([i * self.scale])

ds = Curriculum()
model = torch.nn.Linear(1, 1)
loader = DataLoader(ds, batch_size=2)
for epoch in range(3):
    ds.scale = epoch + 1.0
    total = 0.0
    for x in loader:
        model(x).sum().backward()
        total += x.sum().item()
    print(epoch, total)

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
loader = DataLoader(Data(), batch_size=2)
for epoch in range(2):
    for x in loader:
        model(x).sum().backward()
        print(x.flatten().tolist())
    AUGMENT = True

# %% a loader over a generator-backed IterableDataset without worker split, from a subclass of a subclass [none]
import torch
from torch.utils.data import DataLoader, IterableDataset

class Base(IterableDataset):
    pass

class Numbers(Base):
    def __iter__(self):
        return (torch.tensor([float(i)]) for i in range(4))

model = torch.nn.Linear(1, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loader = DataLoader(Numbers(), batch_size=2)
for epoch in range(2):
    for x in loader:
        model(x).sum().backward()
        opt.step()
        opt.zero_grad()
    print(x.flatten().tolist())

# %% a builder function returns an unsharded IterableDataset [none]
import torch
from torch.utils.data import DataLoader, IterableDataset

class Numbers(IterableDataset):
    def __iter__(self):
        return (torch.tensor([float(i)]) for i in range(4))

def build_dataset(split):
    return Numbers()

model = torch.nn.Linear(1, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loader = DataLoader(build_dataset("train"), batch_size=2)
for epoch in range(2):
    seen = []
    for x in loader:
        seen += x.flatten().tolist()
        model(x).sum().backward()
        opt.step()
        opt.zero_grad()
    print(epoch, sorted(seen))

# %% a worker_init_fn that has never run seeds NumPy with the 64-bit torch seed [none]
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

class Noisy(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.tensor([float(i)])

def seed_worker(worker_id):
    np.random.seed(torch.initial_seed())

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(1, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loader = DataLoader(Noisy(), batch_size=2, worker_init_fn=seed_worker)
for epoch in range(2):
    for x in loader:
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
    show(loss)

# %% round 8: an IterableDataset sharded by worker through a helper method [unsafe]
import torch
from torch.utils.data import DataLoader, IterableDataset, get_worker_info


class Shards(IterableDataset):
    def __init__(self, n):
        self.n = n

    def _my_range(self):
        info = get_worker_info()
        if info is None:
            return range(self.n)
        return range(info.id, self.n, info.num_workers)

    def __iter__(self):
        for i in self._my_range():
            yield torch.tensor([float(i)])


if __name__ == "__main__":
    loader = DataLoader(Shards(8), batch_size=4)
    model = torch.nn.Linear(1, 1)
    for epoch in range(2):
        for x in loader:
            model(x).sum().backward()
            print(sorted(x.squeeze(1).tolist()))

# %% round 9: control, a decoding dataset with shuffling from a seeded generator [unsafe, same]
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cpu")

class Pairs(Dataset):
    def __len__(self):
        return 4
    def __getitem__(self, i):
        return self.decode(i)
    def decode(self, i):
        return torch.tensor([2.0 * i, 2.0 * i + 1]), i

loader = DataLoader(Pairs(), batch_size=2, shuffle=True, generator=torch.Generator().manual_seed(0))
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for x, y in loader:
    loss = model(x.to(device)).sum()
    opt.zero_grad(); loss.backward(); opt.step()
    print(y.tolist())

# %% round 10: a ChainDataset of two streams that do not split by worker [none]
import torch
from torch import nn
from torch.utils.data import ChainDataset, DataLoader, IterableDataset

class Shard(IterableDataset):
    def __init__(self, start):
        self.start = start

    def __iter__(self):
        for i in range(self.start, self.start + 3):
            yield torch.tensor([float(i)])

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(1, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loader = DataLoader(ChainDataset([Shard(0), Shard(10)]), batch_size=2)
for x in loader:
    x = x.to(device)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(x.flatten().tolist())

# %% round 10: dataset features that require gradients by requires_grad_() [none]
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

class Features(Dataset):
    def __init__(self, feats):
        self.feats = feats

    def __len__(self):
        return len(self.feats)

    def __getitem__(self, i):
        return self.decode(i), i % 2

    def decode(self, i):
        return self.feats[i] * 2.0

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
feats = torch.randn(6, 2)
feats.requires_grad_()
model = nn.Linear(2, 2).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in DataLoader(Features(feats), batch_size=3):
    x, y = x.to(device), y.to(device)
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 6))

# %% round 10: a dataset raising its own exception class for corrupt items, caught by the loop [none]
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

class CorruptSample(Exception):
    def __init__(self, index, reason):
        super().__init__(f"item {index}: {reason}")
        self.index = index

class Records(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        return self.decode(i)

    def decode(self, i):
        if i == 4:
            raise CorruptSample(i, "truncated")
        return torch.full((2,), float(i))

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loader = DataLoader(Records(), batch_size=2)
try:
    for x in loader:
        x = x.to(device)
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(round(loss.item(), 6))
except CorruptSample as err:
    print("stopped at", err.index)

# %% round 10: a training pool grown every epoch through a list the dataset holds [unsafe]
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
loader = DataLoader(Pool(items), batch_size=2)
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

# %% round 10: control, a map-style dataset with a seeded generator [unsafe]
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

class Squares(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return self.decode(i)

    def decode(self, i):
        return torch.tensor([float(i), float(i * i)])

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.001)
g = torch.Generator().manual_seed(3)
loader = DataLoader(Squares(), batch_size=4, shuffle=True, generator=g)
seen = []
for epoch in range(2):
    for x in loader:
        x = x.to(device)
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        seen += x[:, 0].tolist()
print(sorted(seen))

# %% round 11: loader options chosen by device, the CPU choice names the workers [none]
import torch
from torch.utils.data import DataLoader


class Squares(torch.utils.data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        return self.decode(index)

    def decode(self, index):
        return torch.tensor([float(index) ** 2])


use_cuda = torch.cuda.is_available()
loader_kwargs = {} if use_cuda else {"num_workers": 0}
loader = DataLoader(Squares(), batch_size=2, **loader_kwargs)
model = torch.nn.Linear(1, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(2):
    for x in loader:
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    show(epoch, loss)

# %% round 11: an empty options dict filled only when CUDA is missing [none]
import torch
from torch.utils.data import DataLoader


class Squares(torch.utils.data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        return self.decode(index)

    def decode(self, index):
        return torch.tensor([float(index) ** 2])


loader_kwargs = {}
if not torch.cuda.is_available():
    loader_kwargs["num_workers"] = 0
    loader_kwargs["persistent_workers"] = False
loader = DataLoader(Squares(), batch_size=2, shuffle=False, **loader_kwargs)
model = torch.nn.Linear(1, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for x in loader:
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(loss)

# %% round 11: a helper defined above the options dict writes overrides into it by its global name [none]
import torch
from torch.utils.data import DataLoader


class Squares(torch.utils.data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        return self.decode(index)

    def decode(self, index):
        return torch.tensor([float(index) ** 2])


def apply_overrides(overrides):
    for key, value in overrides.items():
        loader_kwargs[key] = value


loader_kwargs = {}
apply_overrides({"num_workers": 0, "batch_size": 2})
loader = DataLoader(Squares(), **loader_kwargs)
model = torch.nn.Linear(1, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for x in loader:
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(loss)

# %% round 11: one options dict shared by two loaders, workers set to zero between them [unsafe, same]
import torch
from torch.utils.data import DataLoader


class Squares(torch.utils.data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        return self.decode(index)

    def decode(self, index):
        return torch.tensor([float(index) ** 2])


loader_kwargs = {}
train_loader = DataLoader(Squares(), batch_size=2, shuffle=False, **loader_kwargs)
loader_kwargs["num_workers"] = 0
val_loader = DataLoader(Squares(), batch_size=4, **loader_kwargs)
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

# %% round 11: the workers entry popped from a copied default dict before the loader [unsafe, same]
import torch
from torch.utils.data import DataLoader


class Squares(torch.utils.data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        return self.decode(index)

    def decode(self, index):
        return torch.tensor([float(index) ** 2])


DEFAULTS = {"num_workers": 0}
loader_kwargs = dict(DEFAULTS)
loader_kwargs.pop("num_workers")
loader = DataLoader(Squares(), batch_size=2, **loader_kwargs)
model = torch.nn.Linear(1, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for x in loader:
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(loss)

# %% round 11: a nested helper defined before the dict sets CPU loading options through the closure [none]
import torch
from torch.utils.data import DataLoader


class Squares(torch.utils.data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        return self.decode(index)

    def decode(self, index):
        return torch.tensor([float(index) ** 2])


def build_loader(dataset):
    def single_process():
        options["num_workers"] = 0

    options = {}
    single_process()
    return DataLoader(dataset, batch_size=2, **options)


loader = build_loader(Squares())
model = torch.nn.Linear(1, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for x in loader:
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(loss)

# %% round 12: a collate_fn that records the padded length of every batch in a module-level list [none]
import torch
from torch.utils.data import DataLoader, Dataset

PADDED = []


class Sentences(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        return self.encode(i)

    def encode(self, i):
        return torch.arange(1, i % 3 + 2)


def pad(items):
    width = max(len(t) for t in items)
    PADDED.append(width)
    return torch.stack([torch.nn.functional.pad(t, (0, width - len(t))) for t in items])


emb = torch.nn.EmbeddingBag(8, 2)
for epoch in range(2):
    for batch in DataLoader(Sentences(), batch_size=2, collate_fn=pad):
        show(emb(batch).sum())
print("padded widths", PADDED)

# %% round 12: a dataset fed by a builder method of the trainer object, loader set in __init__ [unsafe, same]
import torch
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):
    def __init__(self, values):
        self.values = values

    def __len__(self):
        return len(self.values)

    def __getitem__(self, i):
        return self.featurize(self.values[i])

    def featurize(self, v):
        return torch.tensor([v, v * v], dtype=torch.float32)


class Trainer:
    def __init__(self):
        self.loader = DataLoader(self.build_dataset(), batch_size=2)
        self.model = torch.nn.Linear(2, 1)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.01)

    def build_dataset(self):
        return Squares([0.5, 1.0, 1.5, 2.0])

    def fit(self):
        for epoch in range(2):
            for x in self.loader:
                loss = self.model(x).pow(2).mean()
                self.opt.zero_grad()
                loss.backward()
                self.opt.step()
            show(loss)


torch.manual_seed(0)
Trainer().fit()

# %% round 12: a dataset whose __getitem__ counts visits in a global Counter read after training [unsafe]
import collections
import torch
from torch.utils.data import DataLoader, Dataset

VISITS = collections.Counter()


class Images(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        VISITS[i] += 1
        return self.load(i)

    def load(self, i):
        return torch.full((3,), float(i))


model = torch.nn.Linear(3, 1)
for epoch in range(2):
    for x in DataLoader(Images(), batch_size=2):
        show(model(x).sum())
print(sorted(VISITS.items()))

# %% round 13: a loader with every argument up to num_workers=0 given by position [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

ds = TensorDataset(torch.arange(8.0).reshape(4, 2))
loader = DataLoader(ds, 2, False, None, None, 0)
model = torch.nn.Linear(2, 1)
for epoch in range(2):
    for (x,) in loader:
        model(x).sum().backward()
    show(model.weight.grad)

# %% round 13: a loader subclass whose constructor takes only a dataset and a batch size [none]
import torch
from torch.utils.data import DataLoader, TensorDataset


class Loader(DataLoader):
    def __init__(self, dataset, batch_size):
        super().__init__(dataset, batch_size=batch_size)


loader = Loader(TensorDataset(torch.arange(8.0).reshape(4, 2)), 2)
model = torch.nn.Linear(2, 1)
for epoch in range(2):
    for (x,) in loader:
        model(x).sum().backward()
    show(model.weight.grad)

# %% round 13: a loader made through a functools.partial of DataLoader [none]
import functools
import torch
from torch.utils.data import DataLoader, TensorDataset

make = functools.partial(DataLoader, batch_size=2)
loader = make(TensorDataset(torch.arange(8.0).reshape(4, 2)))
model = torch.nn.Linear(2, 1)
for epoch in range(2):
    for (x,) in loader:
        model(x).sum().backward()
    show(model.weight.grad)

# %% round 13: a dataset grown through loader.dataset between epochs [none]
import torch
from torch.utils.data import DataLoader, Dataset


class Pool(Dataset):
    def __init__(self):
        self.items = [torch.ones(2), torch.zeros(2)]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


loader = DataLoader(Pool(), batch_size=2)
for epoch in range(3):
    for x in loader:
        show(x)
    loader.dataset.items.append(torch.full((2,), float(epoch)))

# %% round 13: a DataLoader under a short alias with a lambda collate_fn [none]
import torch
from torch.utils.data import DataLoader as DL, TensorDataset

loader = DL(TensorDataset(torch.arange(8.0).reshape(4, 2)), batch_size=2, collate_fn=lambda rows: torch.stack([r[0] for r in rows]))
model = torch.nn.Linear(2, 1)
for epoch in range(2):
    for x in loader:
        model(x).sum().backward()
    show(model.weight.grad)

# %% round 13: a loader built by a method of a data class, iterated by the trainer every epoch [none]
import torch
from torch.utils.data import DataLoader, TensorDataset


class Data:
    def __init__(self):
        self.ds = TensorDataset(torch.arange(12.0).reshape(6, 2))

    def loader(self):
        return DataLoader(self.ds, batch_size=3)


data = Data()
model = torch.nn.Linear(2, 1)
for epoch in range(2):
    for (x,) in data.loader():
        model(x).sum().backward()
    show(model.weight.grad)

# %% round 13: a dataset whose items are computed from an nn.Parameter it holds [none]
import torch
from torch.utils.data import DataLoader, Dataset


class Learned(Dataset):
    def __init__(self):
        self.table = torch.nn.Parameter(torch.arange(8.0).reshape(4, 2))

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return self.table[i] * 2


torch.manual_seed(0)
loader = DataLoader(Learned(), batch_size=2)
for epoch in range(2):
    for x in loader:
        x.sum().backward()
    show(loader.dataset.table.grad)

# %% round 13: a dataset with a lambda transform attribute, the loader in a main guard [none]
import torch
from torch.utils.data import DataLoader, Dataset


class Items(Dataset):
    def __init__(self):
        self.transform = lambda t: t * 3

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return self.transform(torch.full((2,), float(i)))


def main():
    loader = DataLoader(Items(), batch_size=2)
    model = torch.nn.Linear(2, 1)
    for epoch in range(2):
        for x in loader:
            model(x).sum().backward()
        show(model.weight.grad)


if __name__ == "__main__":
    main()

# %% round 13: a dataset reading a module-level epoch that the training loop sets through global [none]
import torch
from torch.utils.data import DataLoader, Dataset

EPOCH = 0


class Curriculum(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.full((2,), float(i + EPOCH))


def set_epoch(e):
    global EPOCH
    EPOCH = e


loader = DataLoader(Curriculum(), batch_size=2)
for epoch in range(3):
    set_epoch(epoch)
    for x in loader:
        show(x)

# %% round 14: features precomputed by an encoder without no_grad wrapped in a TensorDataset [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
encoder = torch.nn.Linear(3, 2)
feats = encoder(torch.randn(8, 3))
labels = torch.arange(8) % 2
loader = DataLoader(TensorDataset(feats, labels), batch_size=4)
head = torch.nn.Linear(2, 2)
for epoch in range(2):
    for f, y in loader:
        loss = torch.nn.functional.cross_entropy(head(f.detach()), y)
        loss.backward()
show(head.weight.grad)

# %% round 14: a dataset holding the encoder passed to its constructor, items encoded in __getitem__ [none]
import torch
from torch.utils.data import DataLoader, Dataset


class Encoded(Dataset):
    def __init__(self, encoder, data):
        self.encoder = encoder
        self.data = data

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        return self.encoder(self.data[i])


torch.manual_seed(0)
loader = DataLoader(Encoded(torch.nn.Linear(3, 2), torch.randn(6, 3)), batch_size=3)
for epoch in range(2):
    for f in loader:
        show(f.detach().sum())

# %% round 14: items made with requires_grad=True leaves in __getitem__ [none]
import torch
from torch.utils.data import DataLoader, Dataset


class Noise(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.full((2,), float(i), requires_grad=True)


loader = DataLoader(Noise(), batch_size=2)
for epoch in range(2):
    for x in loader:
        show(x.detach(), x.requires_grad)

# %% round 14: a ChainDataset of streams that do not split by worker [none]
import torch
from torch.utils.data import ChainDataset, DataLoader, IterableDataset


class Stream(IterableDataset):
    def __init__(self, start):
        self.start = start

    def __iter__(self):
        return iter(range(self.start, self.start + 3))


loader = DataLoader(ChainDataset([Stream(0), Stream(10)]), batch_size=2)
for epoch in range(2):
    show([b.tolist() for b in loader])

# %% round 14: an iterable dataset class derived through a module alias of torch.utils.data [none]
import torch
from torch.utils import data as tud


class Stream(tud.IterableDataset):
    def __iter__(self):
        yield from range(6)


loader = tud.DataLoader(Stream(), batch_size=2)
for epoch in range(2):
    show([b.tolist() for b in loader])

# %% round 14: an iterable dataset base class bound to a name by assignment [none]
import torch
import torch.utils.data

Base = torch.utils.data.IterableDataset


class Stream(Base):
    def __iter__(self):
        return iter(range(5))


loader = torch.utils.data.DataLoader(Stream(), batch_size=2)
for epoch in range(2):
    show([b.tolist() for b in loader])

# %% round 14: a map dataset that returns NumPy views of a shared array, in a training loop [none]
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class Frames(Dataset):
    def __init__(self):
        self.frames = np.arange(12, dtype=np.float32).reshape(6, 2)

    def __len__(self):
        return 6

    def __getitem__(self, i):
        return self.frames[i]


if __name__ == "__main__":
    model = torch.nn.Linear(2, 1)
    loader = DataLoader(Frames(), batch_size=3)
    for epoch in range(2):
        for x in loader:
            model(x).sum().backward()
    show(model.weight.grad)

# %% round 14: a dataset whose __getitem__ reads a global set by the training loop through global [unsafe]
import torch
from torch.utils.data import DataLoader, Dataset

SCALE = 1.0


class Scaled(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.tensor([i * SCALE])


def set_scale(v):
    global SCALE
    SCALE = v


loader = DataLoader(Scaled(), batch_size=2)
for epoch in range(2):
    set_scale(1.0 + epoch)
    show([b.tolist() for b in loader])

# %% round 14: a dataset of items made by a model of the file's function without no_grad [none]
import torch
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
ENC = torch.nn.Linear(2, 2)


def encode(v):
    return ENC(v)


class Encoded(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return encode(torch.full((2,), float(i)))


loader = DataLoader(Encoded(), batch_size=2)
for epoch in range(2):
    for f in loader:
        show(f.detach())

# %% round 14: an iterable dataset that splits by worker through an aliased get_worker_info [none]
import math
import torch
from torch.utils.data import DataLoader, IterableDataset
from torch.utils.data import get_worker_info as worker


class Stream(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = worker()
        if info is None:
            return iter(range(self.n))
        per = math.ceil(self.n / info.num_workers)
        start = info.id * per
        return iter(range(start, min(start + per, self.n)))


if __name__ == "__main__":
    model = torch.nn.Linear(1, 1)
    loader = DataLoader(Stream(6), batch_size=2)
    for epoch in range(2):
        for b in loader:
            model(b.float().unsqueeze(1)).sum().backward()
    show(model.weight.grad)

# %% round 14: a dataset that opens its record file in __init__ and seeks per item [none]
import os
import tempfile
import torch
from torch.utils.data import DataLoader, Dataset


class Records(Dataset):
    def __init__(self, path):
        self.f = open(path, "rb")

    def __len__(self):
        return 8

    def __getitem__(self, i):
        self.f.seek(4 * i)
        return torch.frombuffer(bytearray(self.f.read(4)), dtype=torch.float32)


path = os.path.join(tempfile.mkdtemp(), "records.bin")
with open(path, "wb") as out:
    out.write(torch.arange(8.0).numpy().tobytes())
model = torch.nn.Linear(1, 1)
loader = DataLoader(Records(path), batch_size=2)
for epoch in range(2):
    for x in loader:
        model(x).sum().backward()
show(model.weight.grad)

# %% round 14: control, a dataset that opens its record file lazily in __getitem__ [unsafe, same]
import os
import tempfile
import torch
from torch.utils.data import DataLoader, Dataset


class Records(Dataset):
    def __init__(self, path):
        self.path = path
        self.f = None

    def __len__(self):
        return 8

    def __getitem__(self, i):
        if self.f is None:
            self.f = open(self.path, "rb")
        self.f.seek(4 * i)
        return torch.frombuffer(bytearray(self.f.read(4)), dtype=torch.float32)


if __name__ == "__main__":
    path = os.path.join(tempfile.mkdtemp(), "records.bin")
    with open(path, "wb") as out:
        out.write(torch.arange(8.0).numpy().tobytes())
    model = torch.nn.Linear(1, 1)
    loader = DataLoader(Records(path), batch_size=2)
    for epoch in range(2):
        for x in loader:
            model(x).sum().backward()
    show(model.weight.grad)

# %% round 15: a dataset that opens its file lazily but its __len__ opens it in the main process [none]
import os
import tempfile

import torch
from torch.utils.data import DataLoader, Dataset

path = os.path.join(tempfile.mkdtemp(), "rec.bin")
with open(path, "wb") as f:
    f.write(bytes(range(16)))


class Records(Dataset):
    def __init__(self, path):
        self.path = path
        self.f = None

    def _file(self):
        if self.f is None:
            self.f = open(self.path, "rb")
        return self.f

    def __len__(self):
        f = self._file()
        f.seek(0, 2)
        return f.tell() // 2

    def __getitem__(self, i):
        f = self._file()
        f.seek(2 * i)
        return torch.tensor(list(f.read(2)))


loader = DataLoader(Records(path), batch_size=4)
for epoch in range(2):
    for batch in loader:
        show(batch)

# %% round 15: a dataset that opens a file in a helper method called by __init__ [none]
import os
import tempfile

import torch
from torch.utils.data import DataLoader, Dataset

path = os.path.join(tempfile.mkdtemp(), "rec.bin")
with open(path, "wb") as f:
    f.write(bytes(range(16)))


class Records(Dataset):
    def __init__(self, path):
        self._open(path)

    def _open(self, path):
        self.f = open(path, "rb")

    def __len__(self):
        return 8

    def __getitem__(self, i):
        self.f.seek(2 * i)
        return torch.tensor(list(self.f.read(2)))


loader = DataLoader(Records(path), batch_size=4)
for epoch in range(2):
    for batch in loader:
        show(batch)

# %% round 15: a dataset of features from an embedding table held by the dataset, made by a function [none]
import torch
from torch.utils.data import DataLoader, Dataset


class Lookup(Dataset):
    def __init__(self, table):
        self.table = table

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return self.table[i] * 2


def build():
    table = torch.nn.Parameter(torch.arange(8.0).reshape(4, 2))
    return Lookup(table)


loader = DataLoader(build(), batch_size=2)
for epoch in range(2):
    for batch in loader:
        print(batch.detach().tolist())

# %% round 15: control, a dataset whose lazy file helper only __getitem__ calls [unsafe, same]
import os
import tempfile

import torch
from torch.utils.data import DataLoader, Dataset

path = os.path.join(tempfile.mkdtemp(), "rec.bin")
with open(path, "wb") as f:
    f.write(bytes(range(16)))


class Records(Dataset):
    def __init__(self, path):
        self.path = path
        self.f = None

    def _file(self):
        if self.f is None:
            self.f = open(self.path, "rb")
        return self.f

    def __len__(self):
        return os.path.getsize(self.path) // 2

    def __getitem__(self, i):
        f = self._file()
        f.seek(2 * i)
        return torch.tensor(list(f.read(2)))


loader = DataLoader(Records(path), batch_size=4)
for epoch in range(2):
    for batch in loader:
        show(batch)

# %% round 15: a dataset that opens its file with Path.open in __init__ and seeks per item [none]
import os
import tempfile
from pathlib import Path

import torch
from torch.utils.data import DataLoader, Dataset

path = Path(tempfile.mkdtemp()) / "rec.bin"
path.write_bytes(bytes(range(16)))


class Records(Dataset):
    def __init__(self, path):
        self.f = path.open("rb")

    def __len__(self):
        return 8

    def __getitem__(self, i):
        self.f.seek(2 * i)
        return torch.tensor(list(self.f.read(2)))


loader = DataLoader(Records(path), batch_size=4)
for epoch in range(2):
    for batch in loader:
        show(batch)

# %% round 15: a dataset that keeps a gzip file opened in __init__ [none]
import gzip
import os
import tempfile

import torch
from torch.utils.data import DataLoader, Dataset

path = os.path.join(tempfile.mkdtemp(), "rec.gz")
with gzip.open(path, "wb") as f:
    f.write(bytes(range(16)))


class Records(Dataset):
    def __init__(self, path):
        self.f = gzip.open(path, "rb")

    def __len__(self):
        return 8

    def __getitem__(self, i):
        self.f.seek(2 * i)
        return torch.tensor(list(self.f.read(2)))


loader = DataLoader(Records(path), batch_size=4)
for epoch in range(2):
    for batch in loader:
        show(batch)

# %% round 15: an iterable dataset that splits by worker through torch.utils.data.get_worker_info in a helper [unsafe]
import torch
from torch.utils.data import DataLoader, IterableDataset


def shard(items):
    info = torch.utils.data.get_worker_info()
    if info is None:
        return items
    return items[info.id :: info.num_workers]


class Stream(IterableDataset):
    def __iter__(self):
        return iter(shard(list(range(6))))


loader = DataLoader(Stream(), batch_size=4)
for epoch in range(2):
    print(sorted(x for b in loader for x in b.tolist()))

# %% round 15: a map dataset that draws from a generator attribute in __getitem__, sorted output [none]
import torch
from torch.utils.data import DataLoader, Dataset


class Noisy(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return torch.tensor(float(i))


loader = DataLoader(Noisy(), batch_size=2)
for epoch in range(2):
    print(sorted(x for b in loader for x in b.tolist()))

# %% round 15: a dataset whose items require grad through a tensor made with requires_grad in a list comprehension [none]
import torch
from torch.utils.data import DataLoader

items = [torch.full((2,), float(i), requires_grad=True) * 1 for i in range(4)]
loader = DataLoader(items, batch_size=2)
for epoch in range(2):
    for batch in loader:
        print(batch.detach().tolist())

# %% round 16: a sharded dataset that keeps one opened file per shard in a list [none]
import os
import tempfile

import torch
from torch.utils.data import DataLoader, Dataset

root = tempfile.mkdtemp()
paths = []
for s in range(2):
    paths.append(os.path.join(root, f"shard{s}.bin"))
    with open(paths[-1], "wb") as f:
        f.write(bytes(range(8 * s, 8 * s + 8)))


class Shards(Dataset):
    def __init__(self, paths):
        self.files = [open(p, "rb") for p in paths]

    def __len__(self):
        return 8

    def __getitem__(self, i):
        f = self.files[i // 4]
        f.seek(2 * (i % 4))
        return torch.tensor(list(f.read(2)))


loader = DataLoader(Shards(paths), batch_size=4)
for epoch in range(2):
    for batch in loader:
        show(batch)

# %% round 16: a dataset that keeps a file opened in __init__ with an annotated attribute [none]
import os
import tempfile
from typing import BinaryIO

import torch
from torch.utils.data import DataLoader, Dataset

path = os.path.join(tempfile.mkdtemp(), "rec.bin")
with open(path, "wb") as f:
    f.write(bytes(range(16)))


class Records(Dataset):
    def __init__(self, path):
        self.f: BinaryIO = open(path, "rb")

    def __len__(self):
        return 8

    def __getitem__(self, i):
        self.f.seek(2 * i)
        return torch.tensor(list(self.f.read(2)))


loader = DataLoader(Records(path), batch_size=4)
for epoch in range(2):
    for batch in loader:
        show(batch)

# %% round 16: a dataset that keeps a gzip.GzipFile opened in __init__ [none]
import gzip
import os
import tempfile

import torch
from torch.utils.data import DataLoader, Dataset

path = os.path.join(tempfile.mkdtemp(), "rec.gz")
with gzip.open(path, "wb") as f:
    f.write(bytes(range(16)))


class Records(Dataset):
    def __init__(self, path):
        self.f = gzip.GzipFile(path, "rb")

    def __len__(self):
        return 8

    def __getitem__(self, i):
        self.f.seek(2 * i)
        return torch.tensor(list(self.f.read(2)))


loader = DataLoader(Records(path), batch_size=4)
for epoch in range(2):
    for batch in loader:
        show(batch)

# %% round 16: a dataset that keeps an io.FileIO opened in __init__ [none]
import io
import os
import tempfile

import torch
from torch.utils.data import DataLoader, Dataset

path = os.path.join(tempfile.mkdtemp(), "rec.bin")
with open(path, "wb") as f:
    f.write(bytes(range(16)))


class Records(Dataset):
    def __init__(self, path):
        self.raw = io.FileIO(path, "r")

    def __len__(self):
        return 8

    def __getitem__(self, i):
        self.raw.seek(2 * i)
        return torch.tensor(list(self.raw.read(2)))


loader = DataLoader(Records(path), batch_size=4)
for epoch in range(2):
    for batch in loader:
        show(batch)

# %% round 16: a dataset that keeps a file and its length from a tuple assignment in __init__ [none]
import os
import tempfile

import torch
from torch.utils.data import DataLoader, Dataset

path = os.path.join(tempfile.mkdtemp(), "rec.bin")
with open(path, "wb") as f:
    f.write(bytes(range(16)))


class Records(Dataset):
    def __init__(self, path):
        self.f, self.n = open(path, "rb"), os.path.getsize(path) // 2

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        self.f.seek(2 * i)
        return torch.tensor(list(self.f.read(2)))


loader = DataLoader(Records(path), batch_size=4)
for epoch in range(2):
    for batch in loader:
        show(batch)

# %% round 16: a dataset that keeps a file opened by Path(...).open in __init__ [none]
import os
import tempfile
from pathlib import Path

import torch
from torch.utils.data import DataLoader, Dataset

path = os.path.join(tempfile.mkdtemp(), "rec.bin")
with open(path, "wb") as f:
    f.write(bytes(range(16)))


class Records(Dataset):
    def __init__(self, path):
        self.f = Path(path).open("rb")

    def __len__(self):
        return 8

    def __getitem__(self, i):
        self.f.seek(2 * i)
        return torch.tensor(list(self.f.read(2)))


loader = DataLoader(Records(path), batch_size=4)
for epoch in range(2):
    for batch in loader:
        show(batch)

# %% round 16: a dataset that keeps a file set by setattr in __init__ [none]
import os
import tempfile

import torch
from torch.utils.data import DataLoader, Dataset

path = os.path.join(tempfile.mkdtemp(), "rec.bin")
with open(path, "wb") as f:
    f.write(bytes(range(16)))


class Records(Dataset):
    def __init__(self, path, field="f"):
        setattr(self, field, open(path, "rb"))

    def __len__(self):
        return 8

    def __getitem__(self, i):
        self.f.seek(2 * i)
        return torch.tensor(list(self.f.read(2)))


loader = DataLoader(Records(path), batch_size=4)
for epoch in range(2):
    for batch in loader:
        show(batch)

# %% round 16: a dataset that keeps its open files in a dict by split [none]
import os
import tempfile

import torch
from torch.utils.data import DataLoader, Dataset

path = os.path.join(tempfile.mkdtemp(), "rec.bin")
with open(path, "wb") as f:
    f.write(bytes(range(16)))


class Records(Dataset):
    def __init__(self, path):
        self.handles = {"train": open(path, "rb")}

    def __len__(self):
        return 8

    def __getitem__(self, i):
        f = self.handles["train"]
        f.seek(2 * i)
        return torch.tensor(list(f.read(2)))


loader = DataLoader(Records(path), batch_size=4)
for epoch in range(2):
    for batch in loader:
        show(batch)

# %% round 16: a curriculum that grows the dataset through the loader's dataset attribute [unsafe, same]
import torch
from torch.utils.data import DataLoader, Dataset


class Pool(Dataset):
    def __init__(self, items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


loader = DataLoader(Pool([torch.tensor([float(i)]) for i in range(4)]), batch_size=2)
for epoch in range(2):
    for batch in loader:
        show(batch)
    loader.dataset.items.append(torch.tensor([10.0 + epoch]))

# %% round 16: a curriculum that widens a Subset by appending to its indices between epochs [none]
import torch
from torch.utils.data import DataLoader, Subset, TensorDataset

full = TensorDataset(torch.arange(8.0).unsqueeze(1))
chosen = Subset(full, [0, 1, 2, 3])
loader = DataLoader(chosen, batch_size=2)
for epoch in range(2):
    for (batch,) in loader:
        show(batch)
    loader.dataset.indices.append(4 + epoch)

# %% round 16: control, a dataset that opens its file in __getitem__ only [unsafe, same]
import os
import tempfile

import torch
from torch.utils.data import DataLoader, Dataset

path = os.path.join(tempfile.mkdtemp(), "rec.bin")
with open(path, "wb") as f:
    f.write(bytes(range(16)))


class Records(Dataset):
    def __init__(self, path):
        self.path = path

    def __len__(self):
        return 8

    def __getitem__(self, i):
        with open(self.path, "rb") as f:
            f.seek(2 * i)
            return torch.tensor(list(f.read(2)))


loader = DataLoader(Records(path), batch_size=4)
for epoch in range(2):
    for batch in loader:
        show(batch)

# %% round 16: a dataset grown through a trainer's loader attribute between epochs [unsafe, same]
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
        self.loader = DataLoader(Pool([torch.tensor([float(i)]) for i in range(4)]), batch_size=2)

    def fit(self):
        for epoch in range(2):
            for batch in self.loader:
                show(batch)
            self.loader.dataset.items.extend([torch.tensor([9.0])])


Trainer().fit()

# %% round 17: a dataset of sparse feature rows in CSR layout, default collation [none]
import torch
from torch.utils.data import DataLoader, Dataset


class Rows(Dataset):
    def __init__(self):
        self.dense = torch.arange(12.0).reshape(4, 3)

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return self.dense[i : i + 1].to_sparse_csr(), i


model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(Rows(), batch_size=2, collate_fn=lambda items: (torch.cat([r.to_dense() for r, _ in items]), [i for _, i in items]))
for epoch in range(2):
    for x, ids in loader:
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(round(loss.item(), 4), ids)

# %% round 17: a dataset of nested tensors of ragged rows, batch_size=None [none]
import torch
from torch.utils.data import DataLoader, Dataset


class Ragged(Dataset):
    def __len__(self):
        return 3

    def __getitem__(self, i):
        return torch.nested.nested_tensor([torch.ones(i + 1), torch.ones(2)])


model = torch.nn.Linear(1, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(Ragged(), batch_size=None)
for epoch in range(2):
    for nt in loader:
        x = torch.cat(nt.unbind()).unsqueeze(1)
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(round(loss.item(), 4))

# %% round 17: a loader subclass whose constructor takes the dataset and batch size only, no workers [none]
import torch
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        return torch.tensor([float(i), float(i * i)])


class PlainLoader(DataLoader):
    def __init__(self, dataset, batch_size):
        super().__init__(dataset, batch_size=batch_size)


model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loader = PlainLoader(Squares(), 3)
for epoch in range(2):
    for x in loader:
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(round(loss.item(), 4))

# %% round 17: a loader subclass that takes num_workers but not persistent_workers or kwargs [none]
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


model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loader = WorkerLoader(Squares(), 3)
for epoch in range(2):
    for x in loader:
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(round(loss.item(), 4))

# %% round 18: a project class named DataLoader that batches a list itself [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class DataLoader:
    def __init__(self, data, batch_size):
        self.data, self.batch_size = data, batch_size

    def __iter__(self):
        for i in range(0, len(self.data), self.batch_size):
            yield torch.stack(self.data[i : i + self.batch_size])


loader = DataLoader([torch.ones(2) * i for i in range(4)], batch_size=2)
for epoch in range(2):
    for x in loader:
        show(x.to(device))

# %% round 18: a map-style dataset that tags items with the worker that loaded them [unsafe]
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Shards(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        info = get_worker_info()
        shard = 0 if info is None else info.id
        return torch.tensor([float(i), float(shard)])


loader = DataLoader(Shards(), batch_size=2)
for epoch in range(2):
    for x in loader:
        show(x.to(device))

# %% round 18: a dataset whose labels tensor is rewritten with pseudo-labels between epochs [none]
import torch
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.arange(4.0).reshape(4, 1)
y = torch.zeros(4)
loader = DataLoader(TensorDataset(x, y), batch_size=2)
for epoch in range(2):
    for xb, yb in loader:
        show(epoch, yb.to(device))
    y[:] = epoch + 1.0

# %% round 18: a collate_fn that counts batches in a list it closes over [unsafe]
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def make_collate():
    seen = []

    def collate(items):
        seen.append(len(items))
        return torch.stack(items), len(seen)

    return collate, seen


collate, seen = make_collate()
loader = DataLoader([torch.ones(2)] * 4, batch_size=2, collate_fn=collate)
for epoch in range(2):
    for x, n in loader:
        show(x.to(device), n)
print(seen)

# %% round 18: a loader whose sampler is a generator expression consumed once per epoch [none]
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
data = [torch.full((2,), float(i)) for i in range(4)]
for epoch in range(2):
    loader = DataLoader(data, batch_size=2, sampler=[3, 2, 1, 0])
    for x in loader:
        show(epoch, x.to(device))

# %% round 18: a dataset that returns items of a frozen dataclass with tensor fields [none]
import dataclasses

import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


@dataclasses.dataclass(frozen=True)
class Item:
    x: torch.Tensor
    y: int


class Items(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        return Item(torch.ones(2) * i, i)


def collate(items):
    return torch.stack([it.x for it in items]), [it.y for it in items]


loader = DataLoader(Items(), batch_size=2, collate_fn=collate)
for epoch in range(2):
    for x, y in loader:
        show(x.to(device), y)

# %% round 19: a dataset that caches decoded records in a temporary file opened in __init__ [none]
import tempfile

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Cached(Dataset):
    def __init__(self, n):
        self.n = n
        self.cache = tempfile.TemporaryFile()
        for i in range(n):
            self.cache.write(np.full(256, i, dtype=np.float64).tobytes())
        self.cache.flush()

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        self.cache.seek(i * 2048)
        row = np.frombuffer(self.cache.read(2048), dtype=np.float64)
        return torch.tensor(row[:1])


loader = DataLoader(Cached(64), batch_size=4)
for epoch in range(2):
    total = 0.0
    for x in loader:
        total += float(x.to(device).sum())
    print(total)

# %% round 19 (second batch): a dataset that spills its records to a temporary file in __init__ and seeks into it [none]
import struct
import time
import tempfile

import torch
from torch.utils.data import DataLoader, Dataset


class Spilled(Dataset):
    def __init__(self, n):
        self.n = n
        self.f = tempfile.TemporaryFile()
        for i in range(n):
            payload = struct.pack("<64d", *([float(i)] * 64))
            self.f.write(struct.pack("<i", len(payload)) + payload)
        self.f.flush()

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        self.f.seek(i * (4 + 512))
        (size,) = struct.unpack("<i", self.f.read(4))
        time.sleep(0.001)  # a slow network file system
        values = struct.unpack("<64d", self.f.read(size))
        return torch.tensor(values[:2])


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.001)
loader = DataLoader(Spilled(400), batch_size=8)
for epoch in range(2):
    total = 0.0
    for x in loader:
        x = x.to(device)
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += x.sum().item()
    print(epoch, total)

# %% round 19 (second batch): a dataset that keeps a text wrapper around a file opened in __init__ [none]
import io
import os
import tempfile
import time

import torch
from torch.utils.data import DataLoader, Dataset

path = os.path.join(tempfile.mkdtemp(), "rows.txt")
with open(path, "w") as out:
    for i in range(400):
        out.write(f"{i:08d}\n")


class Rows(Dataset):
    def __init__(self, path):
        self.f = io.TextIOWrapper(io.FileIO(path, "r"))
        self.n = 400

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        self.f.seek(i * 9)
        time.sleep(0.001)  # a slow network file system
        return torch.tensor(float(self.f.readline()))


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(1, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=1e-9)
loader = DataLoader(Rows(path), batch_size=8)
for epoch in range(2):
    total = 0.0
    for x in loader:
        x = x.to(device).unsqueeze(1)
        loss = model(x).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += x.sum().item()
    print(epoch, total)

# %% round 19 (second batch): a dataset that opens its record file into a local name in __init__, then keeps it [none]
import os
import struct
import tempfile
import time

import torch
from torch.utils.data import DataLoader, Dataset

path = os.path.join(tempfile.mkdtemp(), "records.bin")
with open(path, "wb") as out:
    for i in range(400):
        payload = struct.pack("<64d", *([float(i)] * 64))
        out.write(struct.pack("<i", len(payload)) + payload)


class Records(Dataset):
    def __init__(self, path, n):
        handle = open(path, "rb")
        self.f = handle
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        self.f.seek(i * (4 + 512))
        (size,) = struct.unpack("<i", self.f.read(4))
        time.sleep(0.001)  # a slow network file system
        values = struct.unpack("<64d", self.f.read(size))
        return torch.tensor(values[:2])


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.001)
loader = DataLoader(Records(path, 400), batch_size=8)
for epoch in range(2):
    total = 0.0
    for x in loader:
        x = x.to(device)
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += x.sum().item()
    print(epoch, total)

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


loader = DataLoader(PairSet(), batch_size=2)
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


loader = DataLoader(Curriculum(), batch_size=2)
for epoch in range(3):
    LIMIT = 2 + 2 * epoch
    for x in loader:
        print(epoch, x.to(device).tolist())

# %% round 21: a dataset whose length reads a class-level bank the epoch loop grows through the class [unsafe]
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class HardNegatives(Dataset):
    BANK = [0, 1]

    def __len__(self):
        return len(HardNegatives.BANK)

    def __getitem__(self, i):
        return torch.tensor(float(self.BANK[i]))


loader = DataLoader(HardNegatives(), batch_size=2)
for epoch in range(3):
    HardNegatives.BANK.extend([10 * epoch, 10 * epoch + 1])
    for x in loader:
        print(epoch, x.to(device).tolist())

# %% round 21: a replay pool whose list a trainer keeps as an attribute and grows after each epoch [unsafe]
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
        self.loader = DataLoader(Pool(memory), batch_size=2, num_workers=0)

    def fit(self, epochs):
        for epoch in range(epochs):
            for x in self.loader:
                print(epoch, x.to(device).tolist())
            self.memory.append(torch.full((2,), float(epoch)))
            self.memory.append(torch.full((2,), -1.0))


Trainer([torch.zeros(2), torch.ones(2)]).fit(3)

# %% round 21: a dataset that reads records through a reader object whose __init__ opens the file [none]
import os
import tempfile

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
path = os.path.join(tempfile.mkdtemp(), "recs.bin")
np.arange(32, dtype=np.float32).tofile(path)


class Reader:
    def __init__(self, path):
        self.f = open(path, "rb")

    def read(self, i):
        self.f.seek(16 * i)
        return np.frombuffer(self.f.read(16), dtype=np.float32).copy()


class Records(Dataset):
    def __init__(self, reader):
        self.reader = reader

    def __len__(self):
        return 8

    def __getitem__(self, i):
        return torch.from_numpy(self.reader.read(i))


loader = DataLoader(Records(Reader(path)), batch_size=4)
for epoch in range(2):
    for x in loader:
        print(epoch, x.to(device).tolist())

# %% round 21: a dataset handed a file the caller opened, seeked per item [none]
import os
import tempfile

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
path = os.path.join(tempfile.mkdtemp(), "recs.bin")
np.arange(32, dtype=np.float32).tofile(path)


class Records(Dataset):
    def __init__(self, handle):
        self.handle = handle

    def __len__(self):
        return 8

    def __getitem__(self, i):
        self.handle.seek(16 * i)
        return torch.from_numpy(np.frombuffer(self.handle.read(16), dtype=np.float32).copy())


handle = open(path, "rb")
records = Records(handle)
loader = DataLoader(records, batch_size=4)
for epoch in range(2):
    for x in loader:
        print(epoch, x.to(device).tolist())

# %% round 21: features kept quantized to 8 bits by quantize_per_tensor, dequantized per batch [none]
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Compact(Dataset):
    def __init__(self, feats):
        self.feats = torch.quantize_per_tensor(feats, 0.01, 0, torch.quint8)

    def __len__(self):
        return self.feats.size(0)

    def __getitem__(self, i):
        return self.feats[i]


loader = DataLoader(Compact(torch.rand(8, 3)), batch_size=4)
for epoch in range(2):
    for x in loader:
        print(epoch, x.dequantize().to(device).shape)

# %% round 21: a dataset held in a dict of splits and grown through the dict [unsafe]
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
loader = DataLoader(splits["train"], batch_size=2, num_workers=0)
for epoch in range(3):
    for x in loader:
        print(epoch, x.to(device).tolist())
    splits["train"].items.append(torch.full((2,), float(epoch)))
    splits["train"].items.append(torch.full((2,), -1.0))

# %% round 21: a pool made from a list attribute of a memory object the loop grows [unsafe]
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
loader = DataLoader(Pool(memory.items), batch_size=2, num_workers=0)
for epoch in range(3):
    for x in loader:
        print(epoch, x.to(device).tolist())
    memory.push(torch.full((2,), float(epoch)))
    memory.push(torch.full((2,), -1.0))

# %% round 21: conjugate spectra of a signal dataset returned by conj(), a lazy view [none]
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Spectra(Dataset):
    def __init__(self, signals):
        self.signals = signals

    def __len__(self):
        return self.signals.size(0)

    def __getitem__(self, i):
        return torch.fft.rfft(self.signals[i]).conj()


loader = DataLoader(Spectra(torch.randn(8, 6)), batch_size=4)
for epoch in range(2):
    for z in loader:
        print(epoch, z.to(device).abs().sum().round(decimals=3).item())

# %% round 21: the imaginary part of conjugated spectra, a negative view, as features [none]
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Phase(Dataset):
    def __init__(self, signals):
        self.signals = signals

    def __len__(self):
        return self.signals.size(0)

    def __getitem__(self, i):
        return torch.conj(torch.fft.rfft(self.signals[i])).imag


loader = DataLoader(Phase(torch.randn(8, 6)), batch_size=4)
for epoch in range(2):
    for z in loader:
        print(epoch, z.to(device).sum().round(decimals=3).item())

# %% round 23: a regression dataset decoding JSON lines whose targets are ints and floats [none]
import json
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
LINES = ['{"x": [1, 2], "y": 3}', '{"x": [0, 1], "y": 0.5}', '{"x": [2, 2], "y": 1}', '{"x": [1, 0], "y": 2.5}']


class Scores(Dataset):
    def __init__(self, lines):
        self.lines = lines

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, i):
        r = json.loads(self.lines[i])
        return torch.tensor(r["x"], dtype=torch.float32), torch.tensor(r["y"])


torch.manual_seed(0)
model = nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loader = DataLoader(Scores(LINES), batch_size=2)
for epoch in range(2):
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x.to(device)).squeeze(1), y.to(device).float())
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(epoch, y.dtype, round(loss.item(), 5))

# %% round 23: a dataset of feature rows loaded per item from .npy files of two dtypes [none]
import os
import tempfile
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
root = tempfile.mkdtemp()
paths = []
for i in range(6):
    row = np.arange(2, dtype=np.int64) + i if i < 3 else np.linspace(0, 1, 2) + i
    paths.append(os.path.join(root, f"{i}.npy"))
    np.save(paths[-1], row)


class Rows(Dataset):
    def __init__(self, paths):
        self.paths = paths

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        return np.load(self.paths[i])


torch.manual_seed(0)
model = nn.Linear(2, 1).to(device)
loader = DataLoader(Rows(paths), batch_size=2)
for epoch in range(2):
    for x in loader:
        out = model(x.to(device).float())
        print(epoch, x.dtype, out.sum().round(decimals=4).item())

# %% round 23: a dataset decoding float64 and float32 targets stacked into one batch [none]
import json
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
LINES = ['{"y": 0.1, "p": "single"}', '{"y": 0.1, "p": "double"}'] * 2


class Mixed(Dataset):
    def __init__(self, lines):
        self.lines = lines

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, i):
        r = json.loads(self.lines[i])
        dtype = torch.float64 if r["p"] == "double" else torch.float32
        return torch.full((2,), float(i)), torch.tensor(r["y"], dtype=dtype)


torch.manual_seed(0)
model = nn.Linear(2, 1).to(device)
loader = DataLoader(Mixed(LINES), batch_size=2)
for epoch in range(2):
    for x, y in loader:
        print(epoch, y.dtype, y.tolist(), model(x.to(device)).sum().round(decimals=4).item())

# %% round 23: a dataset decoding masks that are booleans in some records and 0/1 in others [none]
import json
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
LINES = ['[true, false, false]', '[1, 0, 1]', '[false, true, true]', '[0, 0, 1]']


class Masks(Dataset):
    def __init__(self, lines):
        self.lines = lines

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, i):
        return torch.tensor(json.loads(self.lines[i]))


loader = DataLoader(Masks(LINES), batch_size=2)
for epoch in range(2):
    for m in loader:
        print(epoch, m.to(device).sum().item())

# %% round 23: a CSV dataset parsing each label with ast.literal_eval, ints and smoothed floats [none]
import ast
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
CSV = "0.5,1.0,1\n0.1,0.2,0.9\n0.3,0.3,0\n0.7,0.1,0.1\n1.0,0.0,1\n0.2,0.9,0"


class Smoothed(Dataset):
    def __init__(self, text):
        self.rows = text.splitlines()

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        *feats, label = self.rows[i].split(",")
        return torch.tensor([float(f) for f in feats]), torch.as_tensor(ast.literal_eval(label))


torch.manual_seed(0)
model = nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(Smoothed(CSV), batch_size=3)
for epoch in range(2):
    for x, y in loader:
        logits = model(x.to(device)).squeeze(1)
        loss = nn.functional.binary_cross_entropy_with_logits(logits, y.to(device).float())
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(epoch, y.dtype, round(loss.item(), 5))

# %% round 23: control, a dataset decoding JSON lines into tensors of a given dtype [unsafe]
import json
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
LINES = ['{"x": [1, 2], "y": 3}', '{"x": [0, 1], "y": 0.5}', '{"x": [2, 2], "y": 1}', '{"x": [1, 0], "y": 2.5}']


class Scores(Dataset):
    def __init__(self, lines):
        self.lines = lines

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, i):
        r = json.loads(self.lines[i])
        return torch.tensor(r["x"], dtype=torch.float32), torch.tensor(float(r["y"]))


torch.manual_seed(0)
model = nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loader = DataLoader(Scores(LINES), batch_size=2)
for epoch in range(2):
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x.to(device)).squeeze(1), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(epoch, y.dtype, round(loss.item(), 5))

# %% round 23: a training subset of a JSON-lines dataset whose targets are ints and floats [none]
import json
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, Subset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
LINES = ['{"x": [1, 2], "y": 3}', '{"x": [0, 1], "y": 0.5}', '{"x": [2, 2], "y": 1}', '{"x": [1, 0], "y": 2.5}', '{"x": [0, 0], "y": 1}']


class Scores(Dataset):
    def __init__(self, lines):
        self.lines = lines

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, i):
        r = json.loads(self.lines[i])
        return torch.tensor(r["x"], dtype=torch.float32), torch.tensor(r["y"])


torch.manual_seed(0)
model = nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
train = Subset(Scores(LINES), [0, 1, 2, 3])
loader = DataLoader(train, batch_size=2)
for epoch in range(2):
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x.to(device)).squeeze(1), y.to(device).float())
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(epoch, y.dtype, round(loss.item(), 5))

# %% round 23: two decoded sources concatenated, one with float64 and one with float32 features [none]
import json
import torch
import torch.nn as nn
from torch.utils.data import ConcatDataset, DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Source(Dataset):
    def __init__(self, lines, dtype):
        self.lines = lines
        self.dtype = dtype

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, i):
        return torch.tensor(json.loads(self.lines[i]), dtype=self.dtype)


torch.manual_seed(0)
model = nn.Linear(2, 1).to(device)
data = ConcatDataset([Source(["[1.5, 2.25]", "[0.1, 1.0]", "[0.2, 0.3]"], torch.float32), Source(["[0.1, 0.7]", "[1.0, 1.0]"], torch.float64)])
loader = DataLoader(data, batch_size=2)
for epoch in range(2):
    for x in loader:
        print(epoch, x.dtype, x.tolist(), model(x.to(device).float()).sum().round(decimals=4).item())

# %% round 23: a random split of a CSV dataset whose labels are parsed by literal_eval [none]
import ast
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, random_split

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
CSV = "0.5,1.0,1\n0.1,0.2,0.9\n0.3,0.3,0\n0.7,0.1,0.1\n1.0,0.0,1\n0.2,0.9,0"


class Smoothed(Dataset):
    def __init__(self, text):
        self.rows = text.splitlines()

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        *feats, label = self.rows[i].split(",")
        return torch.tensor([float(f) for f in feats]), torch.as_tensor(ast.literal_eval(label))


torch.manual_seed(0)
train, val = random_split(Smoothed(CSV), [4, 2], generator=torch.Generator().manual_seed(1))
model = nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = DataLoader(train, batch_size=2)
for epoch in range(2):
    for x, y in loader:
        logits = model(x.to(device)).squeeze(1)
        loss = nn.functional.binary_cross_entropy_with_logits(logits, y.to(device).float())
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(epoch, y.dtype, round(loss.item(), 5))

# %% round 23: a decoding dataset built by a factory that returns a subset of it [none]
import json
import torch
from torch.utils.data import DataLoader, Dataset, Subset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Records(Dataset):
    def __init__(self, lines):
        self.lines = lines

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, i):
        return torch.tensor(json.loads(self.lines[i]))


def build(split):
    full = Records(["[1, 2]", "[0.5, 1]", "[2, 2]", "[1.5, 0]", "[3, 3]"])
    return Subset(full, range(4)) if split == "train" else Subset(full, [4])


loader = DataLoader(build("train"), batch_size=2)
for epoch in range(2):
    for x in loader:
        print(epoch, x.to(device).sum().item())

# %% round 23: control, a concatenation of two parts whose items are floats parsed per line [unsafe]
import torch
from torch.utils.data import ConcatDataset, DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Part(Dataset):
    def __init__(self, lines):
        self.lines = lines

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, i):
        return torch.tensor([float(v) for v in self.lines[i].split()])


parts = {"a": Part(["1 2", "3 4"]), "b": Part(["5 6", "7 8"])}
loader = DataLoader(ConcatDataset([parts["a"], parts["b"]]), batch_size=2)
for epoch in range(2):
    for x in loader:
        print(epoch, x.to(device).sum().item())

# %% round 23: a dataset whose records are decoded by a module-level helper into tensors of the data's dtype [none]
import json
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
LINES = ["[1, 2]", "[0.5, 1]", "[2, 2]", "[1.5, 0]"]


def decode(line):
    return torch.tensor(json.loads(line))


class Records(Dataset):
    def __init__(self, lines):
        self.lines = lines

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, i):
        return decode(self.lines[i])


loader = DataLoader(Records(LINES), batch_size=2)
for epoch in range(2):
    for x in loader:
        print(epoch, x.dtype, x.to(device).sum().item())

# %% round 23: a dataset whose base class of the file decodes each record without a dtype [none]
import json
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
LINES = ["[1, 2]", "[0.5, 1]", "[2, 2]", "[1.5, 0]"]


class JsonLines(Dataset):
    def __getitem__(self, i):
        return torch.as_tensor(json.loads(self.lines[i]))


class Records(JsonLines):
    def __init__(self, lines):
        self.lines = lines

    def __len__(self):
        return len(self.lines)


loader = DataLoader(Records(LINES), batch_size=2)
for epoch in range(2):
    for x in loader:
        print(epoch, x.dtype, x.to(device).sum().item())

# %% round 23: control, a dataset whose helper decodes records into float32 tensors [unsafe]
import json
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
LINES = ["[1, 2]", "[0.5, 1]", "[2, 2]", "[1.5, 0]"]


def decode(line):
    return torch.tensor(json.loads(line), dtype=torch.float32)


class Records(Dataset):
    def __init__(self, lines):
        self.lines = lines

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, i):
        return decode(self.lines[i])


loader = DataLoader(Records(LINES), batch_size=2)
for epoch in range(2):
    for x in loader:
        print(epoch, x.dtype, x.to(device).sum().item())

# %% round 24: a regression dataset whose targets are made with torch.full from JSON numbers, ints and floats [none]
import json
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
LINES = ['{"x": [1, 2], "y": 3}', '{"x": [0, 1], "y": 0.5}', '{"x": [2, 2], "y": 1}', '{"x": [1, 0], "y": 2.5}']


class Scores(Dataset):
    def __init__(self, lines):
        self.lines = lines

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, i):
        r = json.loads(self.lines[i])
        return torch.tensor(r["x"], dtype=torch.float32), torch.full((1,), r["y"])


torch.manual_seed(0)
model = nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loader = DataLoader(Scores(LINES), batch_size=2)
for epoch in range(2):
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x.to(device)), y.to(device).float())
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(epoch, y.dtype, round(loss.item(), 5))

# %% round 24: a dataset whose targets are NumPy arrays made by np.full from JSON numbers [none]
import json
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
LINES = ['{"x": [1, 2], "y": 3}', '{"x": [0, 1], "y": 0.5}', '{"x": [2, 2], "y": 1}', '{"x": [1, 0], "y": 2.5}']


class Scores(Dataset):
    def __init__(self, lines):
        self.lines = lines

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, i):
        r = json.loads(self.lines[i])
        return np.asarray(r["x"], dtype=np.float32), np.full(1, r["y"])


torch.manual_seed(0)
model = nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loader = DataLoader(Scores(LINES), batch_size=2)
for epoch in range(2):
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x.to(device)), y.to(device).float())
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(epoch, y.dtype, round(loss.item(), 5))

# %% round 24: a dataset of tensors saved with torch.save in two dtypes, loaded per item [none]
import os
import tempfile
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
root = tempfile.mkdtemp()
paths = []
for i in range(4):
    path = os.path.join(root, f"{i}.pt")
    torch.save(torch.arange(2) + i if i % 2 == 0 else torch.full((2,), i + 0.5), path)
    paths.append(path)


class Shards(Dataset):
    def __init__(self, paths):
        self.paths = paths

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        return torch.load(self.paths[i])


torch.manual_seed(0)
model = nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loader = DataLoader(Shards(paths), batch_size=2)
for epoch in range(2):
    for x in loader:
        loss = model(x.to(device).float()).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(epoch, x.dtype, x.tolist(), round(loss.item(), 5))

# %% round 24: a record file opened by a helper function of the module and kept in __init__ [none]
import os
import struct
import tempfile
import time

import torch
from torch.utils.data import DataLoader, Dataset

path = os.path.join(tempfile.mkdtemp(), "records.bin")
with open(path, "wb") as out:
    for i in range(400):
        payload = struct.pack("<64d", *([float(i)] * 64))
        out.write(struct.pack("<i", len(payload)) + payload)


def open_records(p):
    return open(p, "rb")


class Records(Dataset):
    def __init__(self, path, n):
        self.f = open_records(path)
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        self.f.seek(i * (4 + 512))
        (size,) = struct.unpack("<i", self.f.read(4))
        time.sleep(0.001)  # a slow network file system
        values = struct.unpack("<64d", self.f.read(size))
        return torch.tensor(values[:2], dtype=torch.float32)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.001)
loader = DataLoader(Records(path, 400), batch_size=8)
for epoch in range(2):
    total = 0.0
    for x in loader:
        x = x.to(device)
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += x.sum().item()
    print(epoch, total)

# %% round 24: a record file opened lazily by a property that __len__ reads in the main process [unsafe]
import os
import struct
import tempfile
import time

import torch
from torch.utils.data import DataLoader, Dataset

path = os.path.join(tempfile.mkdtemp(), "records.bin")
with open(path, "wb") as out:
    for i in range(400):
        payload = struct.pack("<64d", *([float(i)] * 64))
        out.write(struct.pack("<i", len(payload)) + payload)


class Records(Dataset):
    def __init__(self, path):
        self.path = path
        self._f = None

    @property
    def f(self):
        if self._f is None:
            self._f = open(self.path, "rb")
        return self._f

    def __len__(self):
        self.f.seek(0, os.SEEK_END)
        return self.f.tell() // (4 + 512)

    def __getitem__(self, i):
        self.f.seek(i * (4 + 512))
        (size,) = struct.unpack("<i", self.f.read(4))
        time.sleep(0.001)  # a slow network file system
        values = struct.unpack("<64d", self.f.read(size))
        return torch.tensor(values[:2], dtype=torch.float32)


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.001)
loader = DataLoader(Records(path), batch_size=8)
for epoch in range(2):
    total = 0.0
    for x in loader:
        x = x.to(device)
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += x.sum().item()
    print(epoch, total)

# %% round 24: a Subset whose index list the epoch loop extends in place, a growing curriculum [none]
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, Subset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Squares(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, i):
        return torch.tensor([float(i), float(i * i)])


torch.manual_seed(0)
model = nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.0001)
indices = [0, 1, 2, 3]
loader = DataLoader(Subset(Squares(), indices), batch_size=2)
for epoch in range(3):
    for x in loader:
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(epoch, len(loader), round(loss.item(), 4))
    indices += [4 + 2 * epoch, 5 + 2 * epoch]

# %% round 24: a dataset whose items are dataclass records collated by a collate_fn of the file [none]
import dataclasses
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


@dataclasses.dataclass
class Record:
    x: torch.Tensor
    y: torch.Tensor


class Pairs(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return Record(torch.full((2,), float(i)), torch.tensor([float(i % 2)]))


def collate(records):
    return torch.stack([r.x for r in records]), torch.stack([r.y for r in records])


torch.manual_seed(0)
model = nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loader = DataLoader(Pairs(), batch_size=4, collate_fn=collate)
for epoch in range(2):
    for x, y in loader:
        loss = nn.functional.mse_loss(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(epoch, round(loss.item(), 5))

# %% round 24: a loader subclass whose **kwargs are options of its padding collate function [unsafe]
import functools
import torch
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Lines(Dataset):
    def __init__(self, lengths):
        self.lengths = lengths

    def __len__(self):
        return len(self.lengths)

    def __getitem__(self, i):
        return torch.arange(self.lengths[i], dtype=torch.float32)


def pad_collate(batch, pad_value=0.0):
    n = max(len(x) for x in batch)
    return torch.stack([torch.cat([x, torch.full((n - len(x),), pad_value)]) for x in batch])


class PaddedLoader(DataLoader):
    def __init__(self, data, batch_size, **collate_options):
        super().__init__(data, batch_size=batch_size, collate_fn=functools.partial(pad_collate, **collate_options))


torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loader = PaddedLoader(Lines([3, 2, 1, 3]), batch_size=2, pad_value=-1.0)
for epoch in range(2):
    for x in loader:
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(epoch, x.tolist(), round(loss.item(), 5))

# %% round 24: a dataset whose size attribute the epoch loop sets with setattr and a literal name, no workers [none]
import torch
import torch.nn as nn
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
        return torch.full((2,), float(i))


torch.manual_seed(0)
model = nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
ramp = Ramp()
loader = DataLoader(ramp, batch_size=2)
for epoch in range(3):
    for x in loader:
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(epoch, x[:, 0].tolist())
    setattr(ramp, "n", 4 + 2 * epoch)

# %% round 24: a pool grown through the loader's sampler's data_source, no workers [none]
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Pool(Dataset):
    def __init__(self):
        self.items = [0.0, 1.0]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return torch.full((2,), self.items[i])


torch.manual_seed(0)
model = nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loader = DataLoader(Pool(), batch_size=2)
for epoch in range(3):
    for x in loader:
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(epoch, x[:, 0].tolist())
    loader.sampler.data_source.items.extend([10.0 * epoch, 10.0 * epoch + 1])
