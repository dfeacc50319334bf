

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
