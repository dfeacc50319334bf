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
