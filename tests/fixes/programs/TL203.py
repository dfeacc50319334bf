# %% control: workers re-spawned every epoch [unsafe, same]
import torch
from torch.utils.data import DataLoader

loader = DataLoader(list(range(4)), batch_size=2, num_workers=2)
for epoch in range(2):
    for x in loader:
        show(epoch, x)

# %% the loader zipped with itself [none]
import torch
from torch.utils.data import DataLoader

loader = DataLoader(list(range(4)), batch_size=2, num_workers=1)
for epoch in range(2):
    for a, b in zip(loader, loader):
        show(epoch, a, b)

# %% the loader iterated inside a pass over itself [none]
import torch
from torch.utils.data import DataLoader

loader = DataLoader(list(range(4)), batch_size=2, num_workers=1)
for epoch in range(2):
    for a in loader:
        for b in loader:
            show(epoch, a, b)

# %% next(iter(loader)) inside a pass [none]
import torch
from torch.utils.data import DataLoader

loader = DataLoader(list(range(4)), batch_size=2, num_workers=1)
for epoch in range(2):
    for a in loader:
        show(epoch, a, next(iter(loader)))

# %% worker count from a variable [none]
import torch
from torch.utils.data import DataLoader

workers = 1
loader = DataLoader(list(range(4)), batch_size=2, num_workers=workers)
for epoch in range(2):
    for x in loader:
        show(epoch, x)

# %% the dataset changes between epochs [none]
import torch
from torch.utils.data import DataLoader

class Data(list):
    scale = 1

data = Data(range(4))
loader = DataLoader(data, batch_size=2, num_workers=1)
for epoch in range(2):
    data.scale = epoch
    for x in loader:
        show(epoch, x)
