

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

# %% to() patched onto the batch class after it is defined [none]
import torch
from torch.utils.data import DataLoader, Dataset

class Batch:
    def __init__(self, data):
        self.data = data

def _move(self, device):
    return self.data.to(device)

Batch.to = _move

class Chunks(Dataset):
    def __len__(self):
        return 3

    def __getitem__(self, i):
        return Batch(torch.ones(2) * i)

device = torch.device("cpu")
loader = DataLoader(Chunks(), batch_size=None, pin_memory=True)
for epoch in range(2):
    for batch in loader:
        show(batch.to(device))

# %% to() set with setattr on the class [none]
import torch
from torch.utils.data import DataLoader, Dataset

class Batch:
    def __init__(self, data):
        self.data = data

setattr(Batch, "to", lambda self, device: self.data.to(device))

class Chunks(Dataset):
    def __len__(self):
        return 3

    def __getitem__(self, i):
        return Batch(torch.ones(2) * i)

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
