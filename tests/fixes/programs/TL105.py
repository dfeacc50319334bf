# %% control: a NumPy array copied into a tensor [unsafe, same]
import numpy as np
import torch

a = np.arange(6.0).reshape(2, 3)
for step in range(2):
    show(torch.tensor(a))

# %% annotated parameter given a list [none]
import numpy as np
import torch

def to_tensor(a: np.ndarray):
    return torch.tensor(a)

for step in range(2):
    show(to_tensor([1, 2, 3]))

# %% annotated parameter given a tensor [none]
import numpy as np
import torch

def to_tensor(a: np.ndarray):
    return torch.tensor(a)

for step in range(2):
    show(to_tensor(torch.arange(4)))

# %% the array is changed after the copy [unsafe]
import numpy as np
import torch

a = np.zeros(3)
for step in range(2):
    t = torch.tensor(a)
    a[0] = 5
    show(t)

# %% an array made read-only: the fix is withheld [none]
import numpy as np
import torch

a = np.arange(5.0)
a.flags.writeable = False
for step in range(2):
    show(torch.tensor(a))

# %% with dtype: advice only [none]
import numpy as np
import torch

a = np.arange(3)
for step in range(2):
    show(torch.tensor(a, dtype=torch.float32))

# %% a NumPy scalar [none]
import numpy as np
import torch

for step in range(2):
    show(torch.tensor(np.mean(np.arange(4.0))))

# %% rows of a read-only memory map, changed in place [none]
import os
import tempfile

import numpy as np
import torch

path = os.path.join(tempfile.mkdtemp(), "features.npy")
np.save(path, np.arange(12.0).reshape(3, 4))
rows = np.load(path, mmap_mode="r")
for step in range(3):
    x = torch.tensor(np.asarray(rows[step]))
    x.mul_(2.0)
    show(x)

# %% the tensor grown in place to hold a longer sequence [none]
import numpy as np
import torch

model = torch.nn.Linear(1, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(2):
    tokens = np.arange(3, dtype=np.float32)
    x = torch.tensor(tokens)
    x.resize_(4)
    x[3] = 0.0
    loss = model(x.unsqueeze(1)).sum()
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(x.tolist())

# %% the array resized in place after the copy [none]
import numpy as np
import torch

model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(2):
    buf = np.ones(2, dtype=np.float32) * step
    x = torch.tensor(buf)
    buf.resize(4, refcheck=True)
    loss = model(x).sum()
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(x.tolist(), buf.shape)

# %% round 7: a broadcast array (read-only) copied then changed in place [none]
import numpy as np
import torch

row = np.broadcast_to(np.arange(3.0), (2, 3))
for step in range(2):
    t = torch.tensor(row)
    t.mul_(2)
    show(t)

# %% round 7: a non-writeable array from frombuffer of bytes [none]
import numpy as np
import torch

raw = bytes(range(8))
for step in range(2):
    arr = np.frombuffer(raw, dtype=np.uint8)
    t = torch.tensor(arr)
    t += 1
    show(t)

# %% round 8: an array from np.stack of augmented crops copied per step [unsafe, same]
import numpy as np
import torch

rng = np.random.default_rng(0)
model = torch.nn.Linear(4, 1)
for step in range(2):
    crops = np.stack([rng.standard_normal(4).astype(np.float32) for _ in range(3)])
    x = torch.tensor(crops)
    loss = model(x).pow(2).mean()
    loss.backward()
    print(round(loss.item(), 4))

# %% round 8: an int64 label array copied and then shifted in place [unsafe]
import numpy as np
import torch

labels = np.arange(4)
model = torch.nn.Embedding(8, 2)
for step in range(2):
    y = torch.tensor(labels)
    y += 1
    model(y).sum().backward()
    print(y.tolist(), labels.tolist())

# %% round 9: labels from np.loadtxt of an in-memory file, shifted in place [unsafe]
import io
import numpy as np
import torch

model = torch.nn.Linear(1, 3)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    labels = np.loadtxt(io.StringIO("1\n2\n3\n"), dtype=np.int64)
    y = torch.tensor(labels)
    y -= 1
    loss = torch.nn.functional.cross_entropy(model(torch.ones(3, 1)), y)
    opt.zero_grad(); loss.backward(); opt.step()
    print(labels.tolist(), y.tolist())

# %% round 9: a uint16 image converted and scaled with a true division [unsafe, same]
import numpy as np
import torch

model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    img = (np.arange(8, dtype=np.uint16) * 1000).reshape(2, 4)
    x = torch.tensor(img)
    loss = model(x.float() / 65535).sum()
    opt.zero_grad(); loss.backward(); opt.step()
    print(round(loss.item(), 5), x.dtype)

# %% round 10: sliding windows of a signal copied and centred in place [none]
import numpy as np
import torch
from torch import nn
from numpy.lib.stride_tricks import sliding_window_view

torch.manual_seed(0)
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
signal = np.sin(np.arange(10, dtype=np.float32))
for step in range(2):
    windows = sliding_window_view(signal, 4)
    x = torch.tensor(windows)
    x -= x.mean(dim=1, keepdim=True)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 6))

# %% round 10: a memory map opened read-only by np.memmap, normalised in place [none]
import os
import tempfile
import numpy as np
import torch
from torch import nn

path = os.path.join(tempfile.mkdtemp(), "feats.bin")
np.arange(8, dtype=np.float32).tofile(path)
torch.manual_seed(0)
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    rows = np.memmap(path, dtype=np.float32, mode="r", shape=(2, 4))
    x = torch.tensor(rows)
    x.div_(8.0)
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 6))

# %% round 10: an array loaded with a positional read-only mmap mode, scaled in place [none]
import os
import tempfile
import numpy as np
import torch
from torch import nn

path = os.path.join(tempfile.mkdtemp(), "feats.npy")
np.save(path, np.ones((2, 3), dtype=np.float32))
torch.manual_seed(0)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    arr = np.load(path, "r")
    x = torch.tensor(arr)
    x *= 0.5
    loss = model(x).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 6))

# %% round 10: a contiguous float16 batch from np.stack, copied per step [unsafe, same]
import numpy as np
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    rows = [np.full(3, step + i, dtype=np.float16) for i in range(2)]
    batch = np.stack(rows)
    x = torch.tensor(batch)
    loss = model(x.float()).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(x.dtype, x.is_contiguous(), round(loss.item(), 6))

# %% round 12: a replay buffer's preallocated NumPy observations copied with torch.tensor per sample into a list [none]
import numpy as np
import torch


class Replay:
    def __init__(self):
        self.obs = np.zeros((4, 2), dtype=np.float32)

    def write(self, i, value):
        self.obs[i] = value


buf = Replay()
q = torch.nn.Linear(2, 1)
kept = []
for step in range(4):
    buf.write(step % 4, step)
    obs = buf.obs.copy()
    x = torch.tensor(obs)
    kept.append(x)
    show(q(x).sum())
buf.obs[:] = -1

# %% round 12: a transposed NumPy batch made by the dataset's own method, converted per step [none]
import numpy as np
import torch


class Frames:
    def __init__(self):
        self.data = np.arange(24, dtype=np.float32).reshape(2, 3, 4)

    def batch(self, i):
        return self.data[i].T


frames = Frames()
model = torch.nn.Linear(3, 1)
for step in range(2):
    arr = frames.batch(step)
    x = torch.tensor(arr)
    show(model(x).sum())

# %% round 12: a NumPy scalar reward converted with torch.tensor in an episode loop [none]
import numpy as np
import torch

rewards = np.array([1.0, 0.5, 0.25], dtype=np.float32)
value = torch.nn.Linear(1, 1)
for t in range(3):
    r = rewards[t]
    target = torch.tensor(r)
    show((value(torch.ones(1, 1)) - target).pow(2).sum())

# %% round 12: a NumPy array written back by the training loop after its tensor is kept for logging [unsafe]
import numpy as np
import torch

model = torch.nn.Linear(3, 1)
history = []
for step in range(3):
    feats = np.ones(3, dtype=np.float32) * step
    x = torch.tensor(feats)
    history.append(x)
    feats *= 10
    show(model(x))
show(torch.stack(history))

# %% round 13: a transposed view of a new array converted and changed in place [none]
import numpy as np
import torch

for step in range(2):
    arr = (np.arange(6.0) + step).reshape(2, 3).T
    t = torch.tensor(arr)
    show(t.add_(1))

# %% round 13: a NumPy scalar from an operator on a 0-d array converted per step [none]
import numpy as np
import torch

for step in range(2):
    base = np.array(3.0)
    scaled = base * 2
    show(torch.tensor(scaled))

# %% round 13: an array from frombuffer of bytes converted and changed in place [none]
import numpy as np
import torch

raw = np.arange(4, dtype=np.float32).tobytes()
for step in range(2):
    arr = np.frombuffer(raw, dtype=np.float32)
    t = torch.tensor(arr)
    t.add_(1)
    show(t)

# %% round 13: an array sum that is a NumPy scalar converted in a loop [none]
import numpy as np
import torch

for step in range(2):
    arr = np.ones(3) + step
    total = arr.sum()
    show(torch.tensor(total))

# %% round 13: a 0-d array made by np.array of a float, converted per step [unsafe, same]
import numpy as np
import torch

for step in range(2):
    arr = np.array(1.5 + step)
    show(torch.tensor(arr))

# %% round 13: an array from a list comprehension with a walrus, converted per step [unsafe, same]
import numpy as np
import torch

for step in range(2):
    arr = np.array([(v := i * 0.5) for i in range(4)])
    show(torch.tensor(arr), v)

# %% round 14: a read-only frombuffer array squeezed with np.squeeze, converted and changed in place [none]
import numpy as np
import torch

raw = bytes(np.arange(4, dtype=np.float32).tobytes())
for step in range(2):
    arr = np.squeeze(np.frombuffer(raw, dtype=np.float32).reshape(1, 4))
    t = torch.tensor(arr)
    t.add_(1)
    show(t, np.frombuffer(raw, dtype=np.float32).tolist())

# %% round 14: a read-only broadcast array made contiguous with np.ascontiguousarray, changed in place [none]
import numpy as np
import torch

base = np.arange(4.0)
for step in range(2):
    arr = np.ascontiguousarray(np.broadcast_to(base, (4,)))
    t = torch.tensor(arr)
    t.mul_(2)
    show(t, base.tolist())

# %% round 14: an array from np.asarray of a bytearray's memoryview, changed in place [none]
import numpy as np
import torch

buf = bytearray(np.arange(4, dtype=np.float32).tobytes())
for step in range(2):
    arr = np.asarray(memoryview(buf).cast("f"))
    t = torch.tensor(arr)
    t.sub_(1)
    show(t, np.frombuffer(buf, dtype=np.float32).tolist())

# %% round 14: a read-only view of a new array through np.require, changed in place [none]
import numpy as np
import torch

for step in range(2):
    base = np.arange(4.0)
    base.setflags(write=False)
    arr = np.require(base, dtype=np.float64)
    t = torch.tensor(arr)
    t.add_(1)
    show(t, base.tolist())

# %% round 14: an array made by np.stack of rows, converted then the array changed in place [unsafe]
import numpy as np
import torch

rows = [np.arange(3.0) + i for i in range(2)]
for step in range(2):
    batch = np.stack(rows)
    t = torch.tensor(batch)
    batch += 10
    show(t)

# %% round 14: an array from a walrus inside a comprehension filter, converted per step [unsafe, same]
import numpy as np
import torch

for step in range(2):
    arr = np.array([v for i in range(4) if (v := i * 1.5) > 1])
    show(torch.tensor(arr))

# %% round 14: an array made by np.copy of a read-only array, changed in place after conversion [unsafe, same]
import numpy as np
import torch

base = np.broadcast_to(np.arange(3.0), (2, 3))
for step in range(2):
    arr = np.copy(base)
    t = torch.tensor(arr)
    t.add_(1)
    show(t, base.tolist())

# %% round 15: an array loaded from a .npy file with the mmap mode given in a kwargs dict [none]
import os
import tempfile

import numpy as np
import torch

path = os.path.join(tempfile.mkdtemp(), "a.npy")
np.save(path, np.arange(4.0))
opts = {"mmap_mode": "r"}
for step in range(2):
    arr = np.load(path, **opts)
    t = torch.tensor(arr)
    t.mul_(2)
    show(t)

# %% round 15: a row of a 1-D array read by index, converted per step [none]
import numpy as np
import torch

losses = np.array([0.5, 0.25, 0.125])
for step in range(3):
    value = losses[step]
    t = torch.tensor(value)
    show(t * 2)

# %% round 15: the dot product of two 1-D arrays converted in a training loop [none]
import numpy as np
import torch

w = np.arange(3.0)
for step in range(2):
    x = np.arange(3.0) + step
    score = x @ w
    show(torch.tensor(score))

# %% round 15: an array reduced with sum() and max() methods, converted per epoch [none]
import numpy as np
import torch

for epoch in range(2):
    batch = np.ones((2, 3)) * epoch
    total = batch.sum()
    show(torch.tensor(total))

# %% round 15: a column of a 2-D array read by an int index, converted per step [none]
import numpy as np
import torch

table = np.arange(6.0).reshape(2, 3)
for step in range(2):
    col = table[step]
    show(torch.tensor(col) + 1)

# %% round 15: an array from np.frombuffer of bytes, converted and then changed in place [none]
import numpy as np
import torch

raw = bytes(range(8))
for step in range(2):
    arr = np.frombuffer(raw, dtype=np.uint8)
    t = torch.tensor(arr)
    t.add_(1)
    show(t)

# %% round 15: an array built under inference mode by np.linspace, converted and printed [unsafe, same]
import numpy as np
import torch

with torch.inference_mode():
    for step in range(2):
        grid = np.linspace(0, 1, 3) + step
        show(torch.tensor(grid))

# %% round 15: an array taken from the element of a 0-d object array, converted [none]
import numpy as np
import torch

holder = np.empty((), dtype=object)
holder[()] = np.arange(3.0)
for step in range(2):
    arr = holder.item()
    show(torch.tensor(arr) * step)

# %% round 15: a tab-indented loop with the conversion split by a continuation [unsafe, same]
import numpy as np
import torch

for step in range(2):
	feats = np.arange(4.0).reshape(2, 2) * step
	t = torch.tensor(\
		feats)
	show(t)

# %% round 15: an array that a walrus binds inside the call, a mean of a 1-D array [none]
import numpy as np
import torch

for step in range(2):
    show(torch.tensor((m := np.arange(3.0).mean())))

# %% round 15: an array drawn by a NumPy Generator, converted in a training loop [none]
import numpy as np
import torch

rng = np.random.default_rng(0)
for step in range(2):
    noise = rng.normal(size=3)
    show(torch.tensor(noise))

# %% round 15: a transposed array view converted per step [none]
import numpy as np
import torch

for step in range(2):
    grid = np.arange(6.0).reshape(2, 3) + step
    view = grid.T
    show(torch.tensor(view))

# %% round 16: overlapping frames of a signal made by as_strided, centred in place [none]
import numpy as np
import torch
from numpy.lib.stride_tricks import as_strided

for epoch in range(2):
    signal = np.arange(10.0) * (epoch + 1)
    frames = as_strided(signal, shape=(4, 3), strides=(2 * signal.itemsize, signal.itemsize))
    x = torch.tensor(frames)
    x -= x.mean(dim=1, keepdim=True)
    print(x.tolist())

# %% round 16: frames from np.lib.stride_tricks.as_strided, scaled in place [none]
import numpy as np
import torch

for epoch in range(2):
    wave = np.linspace(0.0, 1.0, 8)
    frames = np.lib.stride_tricks.as_strided(wave, (3, 4), (2 * wave.itemsize, wave.itemsize))
    x = torch.tensor(frames)
    x.mul_(2)
    print(x.sum().item())

# %% round 16: a row repeated by a zero stride view of a fresh array, changed in place [none]
import numpy as np
import torch
from numpy.lib import stride_tricks

for epoch in range(2):
    row = np.arange(3.0) + epoch
    tiled = stride_tricks.as_strided(row, shape=(4, 3), strides=(0, row.itemsize))
    x = torch.tensor(tiled)
    x[0] += 1
    print(x.tolist())

# %% round 16: a column sliced out of a fresh table, scaled in place [none]
import numpy as np
import torch

for epoch in range(2):
    table = np.arange(12.0).reshape(4, 3) + epoch
    col = table[:, 1]
    x = torch.tensor(col)
    x.mul_(2)
    print(x.tolist(), table[:, 1].tolist())

# %% round 16: the contiguous copy of a reversed view, converted per clip [none]
import numpy as np
import torch

rng = np.random.default_rng(0)
for i in range(3):
    clip = rng.standard_normal(4)
    frames = np.ascontiguousarray(clip[::-1])
    x = torch.tensor(frames)
    print(round(float(x.sum()), 4))

# %% round 16: a transposed feature matrix, read only [none]
import numpy as np
import torch

for epoch in range(2):
    feats = np.arange(6.0).reshape(2, 3) * epoch
    x = torch.tensor(feats.T)
    print(x.sum(0).tolist())

# %% round 16: a complex spectrum from np.fft.rfft, converted and kept as its magnitude [none]
import numpy as np
import torch

for epoch in range(2):
    spec = np.fft.rfft(np.arange(8.0) * (epoch + 1))
    x = torch.tensor(spec)
    print([round(v, 3) for v in x.abs().tolist()])

# %% round 16: a uint16 image made by astype, converted and summed [unsafe, same]
import numpy as np
import torch

for step in range(2):
    img = (np.arange(6.0).reshape(2, 3) * 1000 * (step + 1)).astype(np.uint16)
    x = torch.tensor(img)
    print(x.dtype, x.to(torch.int64).sum().item())

# %% round 16: a long double array from astype, converted [unsafe, same]
import numpy as np
import torch

for step in range(2):
    feats = (np.arange(3.0) + step).astype(np.longdouble)
    try:
        x = torch.tensor(feats)
    except TypeError:
        x = torch.tensor(feats.astype(np.float64))
    print(x.tolist())

# %% round 17: a Dataset reading features from a memory-mapped file through np.array(copy=False) [none]
import os
import tempfile

import numpy as np
import torch
from torch.utils.data import Dataset


class Feats(Dataset):
    def __init__(self, path):
        self.mm = np.load(path, mmap_mode="r")

    def __len__(self):
        return self.mm.shape[0]

    def __getitem__(self, i):
        row = np.array(self.mm[i], copy=False)
        x = torch.tensor(row)
        x -= x.mean()
        return x


path = os.path.join(tempfile.mkdtemp(), "f.npy")
np.save(path, np.arange(12, dtype=np.float32).reshape(3, 4))
ds = Feats(path)
for epoch in range(2):
    for i in range(len(ds)):
        print(ds[i].tolist())

# %% round 17: np.asarray of a dataset attribute holding a read-only memory map, in __getitem__ [none]
import os
import tempfile

import numpy as np
import torch
from torch.utils.data import Dataset


class Frames(Dataset):
    def __init__(self, path):
        self.rows = np.load(path, mmap_mode="r")

    def __len__(self):
        return 3

    def __getitem__(self, i):
        row = np.asarray(self.rows)
        x = torch.tensor(row)
        x.mul_(2.0)
        return float(x[i].sum())


path = os.path.join(tempfile.mkdtemp(), "frames.npy")
np.save(path, np.ones((3, 4), dtype=np.float32))
data = Frames(path)
for epoch in range(2):
    print([data[i] for i in range(len(data))])

# %% round 17: np.ascontiguousarray of a memory map read through a helper, clamped in __getitem__ [none]
import os
import tempfile

import numpy as np
import torch
from torch.utils.data import Dataset

path = os.path.join(tempfile.mkdtemp(), "clip.npy")
np.save(path, np.linspace(-2, 2, 8, dtype=np.float32).reshape(2, 4))
STORE = {"clip": np.load(path, mmap_mode="r")}


def fetch(name):
    return STORE[name]


class Clips(Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        a = np.ascontiguousarray(fetch("clip"))
        x = torch.tensor(a)
        x.clamp_(-1, 1)
        return x[i]


ds = Clips()
for epoch in range(2):
    print([ds[i].tolist() for i in range(len(ds))])

# %% round 17: a read-only memory map converted by astype(copy=False) in __getitem__ [none]
import os
import tempfile

import numpy as np
import torch
from torch.utils.data import Dataset


class Wave(Dataset):
    def __init__(self, path):
        self.path = path

    def __len__(self):
        return 2

    def __getitem__(self, i):
        raw = np.load(self.path, mmap_mode="r")
        a = np.ascontiguousarray(raw[i]).astype(np.float32, copy=False)
        a = a.astype(np.float32, copy=False)
        x = torch.tensor(a)
        x.add_(1)
        return x


path = os.path.join(tempfile.mkdtemp(), "w.npy")
np.save(path, np.arange(6, dtype=np.float32).reshape(2, 3))
ds = Wave(path)
for epoch in range(2):
    print([ds[i].tolist() for i in range(2)])

# %% round 17: np.array(copy=None) of a memory-mapped row, reshaped, in __getitem__ [none]
import os
import tempfile

import numpy as np
import torch
from torch.utils.data import Dataset


class Patches(Dataset):
    def __init__(self, path):
        self.mm = np.load(path, mmap_mode="r")

    def __len__(self):
        return 2

    def __getitem__(self, i):
        a = np.reshape(np.array(self.mm[i], copy=None), (2, 2))
        x = torch.tensor(a)
        x.sub_(3)
        return x


path = os.path.join(tempfile.mkdtemp(), "s.npy")
np.save(path, np.arange(8, dtype=np.float32).reshape(2, 4))
ds = Patches(path)
for epoch in range(2):
    print([ds[i].tolist() for i in range(len(ds))])

# %% round 17: np.array(copy=False) of an in-memory row, whose batch a training loop consumes [none]
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class Table(Dataset):
    def __init__(self):
        self.data = np.arange(12, dtype=np.float32).reshape(6, 2)

    def __len__(self):
        return 6

    def __getitem__(self, i):
        row = np.array(self.data[i], copy=False)
        x = torch.tensor(row)
        x.mul_(0.5)
        return x


ds = Table()
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(2):
    for x in DataLoader(ds, batch_size=3):
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(ds.data.sum())

# %% round 17: a structured record's float field, copied by np.array, centred in __getitem__ [unsafe, same]
import numpy as np
import torch
from torch.utils.data import Dataset


class Records(Dataset):
    def __init__(self):
        self.rec = np.zeros(4, dtype=[("x", "f4"), ("y", "i2")])
        self.rec["x"] = np.arange(4)

    def __len__(self):
        return 2

    def __getitem__(self, i):
        a = np.array(self.rec["x"])
        x = torch.tensor(a)
        x -= i
        return x


ds = Records()
for epoch in range(2):
    print([ds[i].tolist() for i in range(2)])

# %% round 17: an image decoded with np.frombuffer, cast with astype, normalised in __getitem__ [none]
import numpy as np
import torch
from torch.utils.data import Dataset


class Images(Dataset):
    def __init__(self):
        self.blobs = [bytes(range(i, i + 12)) for i in range(3)]

    def __len__(self):
        return 3

    def __getitem__(self, i):
        img = np.frombuffer(self.blobs[i], dtype=np.uint8).reshape(3, 4)
        arr = img.astype(np.float32)
        x = torch.tensor(arr)
        x /= 255.0
        return x


ds = Images()
for epoch in range(2):
    print([round(float(ds[i].sum()), 5) for i in range(3)])

# %% round 17: labels built by np.where, offset in place in __getitem__ [unsafe, same]
import numpy as np
import torch
from torch.utils.data import Dataset


class Labels(Dataset):
    def __init__(self):
        self.scores = np.array([[0.1, 0.7], [0.4, 0.9]])

    def __len__(self):
        return 2

    def __getitem__(self, i):
        labels = np.array(np.where(self.scores[i] > 0.5, 1, 0))
        y = torch.tensor(labels)
        y += 1
        return y


ds = Labels()
for epoch in range(2):
    print([ds[i].tolist() for i in range(2)])

# %% round 17: np.asanyarray of a memory-mapped row list item, clamped in __getitem__ [none]
import os
import tempfile

import numpy as np
import torch
from torch.utils.data import Dataset


class Shards(Dataset):
    def __init__(self, paths):
        self.shards = [np.load(p, mmap_mode="r") for p in paths]

    def __len__(self):
        return len(self.shards)

    def __getitem__(self, i):
        a = np.array(self.shards[i], copy=False, dtype=np.float32)
        x = torch.tensor(a)
        x.clamp_(0, 2)
        return x


root = tempfile.mkdtemp()
paths = []
for k in range(2):
    p = os.path.join(root, f"{k}.npy")
    np.save(p, np.arange(4, dtype=np.float32) * k)
    paths.append(p)
ds = Shards(paths)
for epoch in range(2):
    print([ds[i].tolist() for i in range(2)])

# %% round 17: np.asarray of a memory map returned by a loader function, scaled in __getitem__ [none]
import os
import tempfile

import numpy as np
import torch
from torch.utils.data import Dataset


def open_rows(path):
    return np.load(path, mmap_mode="r")


class Rows(Dataset):
    def __init__(self, path):
        self.path = path

    def __len__(self):
        return 2

    def __getitem__(self, i):
        a = np.asarray(open_rows(self.path))
        x = torch.tensor(a)
        x.mul_(2)
        return x[i]


path = os.path.join(tempfile.mkdtemp(), "r.npy")
np.save(path, np.arange(6, dtype=np.float32).reshape(2, 3))
ds = Rows(path)
for epoch in range(2):
    print([ds[i].tolist() for i in range(2)])

# %% round 17: an array cast by astype with copy=False given by position, in __getitem__ [none]
import os
import tempfile

import numpy as np
import torch
from torch.utils.data import Dataset


class Rows(Dataset):
    def __init__(self, path):
        self.path = path

    def __len__(self):
        return 2

    def __getitem__(self, i):
        mm = np.load(self.path, mmap_mode="r")
        a = np.ascontiguousarray(mm).astype(np.float32, "K", "unsafe", True, False)
        x = torch.tensor(a)
        x.add_(1)
        return x[i]


path = os.path.join(tempfile.mkdtemp(), "r.npy")
np.save(path, np.arange(6, dtype=np.float32).reshape(2, 3))
ds = Rows(path)
for epoch in range(2):
    print([ds[i].tolist() for i in range(2)])

# %% round 17: an array clipped into itself with out=, whose tensor is shifted in __getitem__ [none]
import numpy as np
import torch
from torch.utils.data import Dataset


class Clipped(Dataset):
    def __init__(self):
        self.table = np.linspace(-2, 2, 6).reshape(2, 3)

    def __len__(self):
        return 2

    def __getitem__(self, i):
        row = np.zeros(3)
        a = row.clip(-1, 1, out=row)
        a = (self.table[i] * 1.0).clip(-1, 1, out=None)
        x = torch.tensor(a)
        x += 1
        return x


ds = Clipped()
for epoch in range(2):
    print([ds[i].tolist() for i in range(2)], ds.table.sum())

# %% round 17: np.array with copy=True over a read-only memory map, shifted in __getitem__ [unsafe, same]
import os
import tempfile

import numpy as np
import torch
from torch.utils.data import Dataset


class Rows(Dataset):
    def __init__(self, path):
        self.mm = np.load(path, mmap_mode="r")

    def __len__(self):
        return 2

    def __getitem__(self, i):
        a = np.array(self.mm, copy=True)
        x = torch.tensor(a)
        x.sub_(1)
        return x[i]


path = os.path.join(tempfile.mkdtemp(), "r.npy")
np.save(path, np.arange(6, dtype=np.float32).reshape(2, 3))
ds = Rows(path)
for epoch in range(2):
    print([ds[i].tolist() for i in range(2)])

# %% round 18: a replay step whose reward is clipped through np.array(...).clip [none]
import numpy as np
import torch

rewards = [0.5, 2.5, -3.0]
total = torch.zeros(())
for step, raw in enumerate(rewards):
    reward = np.array(raw).clip(-1.0, 1.0)
    r = torch.tensor(reward)
    total += r
show(total)

# %% round 18: a rounded score from a 0-d array in an evaluation loop [none]
import numpy as np
import torch

scores = [0.26, 0.74]
kept = []
for value in scores:
    rounded = np.array(value * 10).round()
    kept.append(torch.tensor(rounded))
show(torch.stack(kept))

# %% round 18: exploration noise drawn with a size from the config, None for a scalar [none]
import numpy as np
import torch

np.random.seed(0)
noise_shape = None
actions = []
for step in range(3):
    noise = np.random.normal(0.0, 0.1, size=noise_shape)
    actions.append(torch.tensor(noise) + step)
show(torch.stack(actions).round(decimals=4))

# %% round 18: a running mean over the trailing feature shape of 1-D observations [none]
import numpy as np
import torch

observations = np.arange(4.0)
running = np.zeros(observations.shape[1:])
for obs in observations:
    running = running * 0.9 + obs * 0.1
    state = torch.tensor(running * 2.0)
    show(state)

# %% round 18: a batch of features made by np.stack, normalised in place each step [unsafe]
import numpy as np
import torch

rows = [np.arange(3.0) + i for i in range(4)]
for step in range(2):
    batch = np.stack(rows)
    x = torch.tensor(batch)
    x.sub_(x.mean(0))
    show(x, batch.sum())

# %% round 18: a cumulative return vector from a 0-d array's cumsum [unsafe, same]
import numpy as np
import torch

for episode in range(2):
    ret = np.array(1.5 + episode).cumsum()
    show(torch.tensor(ret))

# %% round 18: targets squeezed from a one-element array per sample [unsafe, same]
import numpy as np
import torch

labels = [[1.0], [0.0], [1.0]]
out = []
for label in labels:
    y = np.array(label).squeeze()
    out.append(torch.tensor(y))
show(out)

# %% round 18: a probability array from np.ones_like of a scalar-shaped array, scaled [none]
import numpy as np
import torch

weights = np.full((), 2.0)
for step in range(2):
    probs = np.ones_like(weights) * 0.5
    show(torch.tensor(probs))

# %% round 18: a flattened frame from a fresh zeros array, clamped in place [unsafe, same]
import numpy as np
import torch

for step in range(2):
    frame = np.zeros((2, 2)) + step
    flat = frame.flatten()
    t = torch.tensor(flat)
    t.clamp_(0, 0.5)
    show(t, frame)

# %% round 19: a frame decoded from bytes with frombuffer, normalised in place [none]
import numpy as np
import torch

raw = np.arange(8, dtype=np.float32).tobytes()
for step in range(2):
    frame = np.frombuffer(raw, dtype=np.float32)
    t = torch.tensor(frame)
    t.div_(4)
    print(t.tolist())

# %% round 19: a broadcast reward row made by np.broadcast_to, clipped in place [none]
import numpy as np
import torch

for step in range(2):
    rewards = np.broadcast_to(np.float32(step), (4,))
    t = torch.tensor(rewards)
    t.clamp_(max=0.5)
    print(t.tolist())

# %% round 19: sliding windows of a signal from sliding_window_view, centred in place [none]
import numpy as np
import torch

sig = np.arange(6, dtype=np.float32)
for step in range(2):
    win = np.lib.stride_tricks.sliding_window_view(sig, 3)
    t = torch.tensor(win)
    t.sub_(t.mean(1, keepdim=True))
    print(t.tolist())

# %% round 19: an array made read-only with setflags, then rescaled in place [none]
import numpy as np
import torch

for step in range(2):
    a = np.ones(4, dtype=np.float32) * step
    a.setflags(write=False)
    t = torch.tensor(a)
    t.add_(1)
    print(t.tolist())

# %% round 19: a batch from a structured array's field, shifted in place [none]
import numpy as np
import torch

rec = np.zeros(4, dtype=[("x", np.float32), ("y", np.int64)])
rec["x"] = [1, 2, 3, 4]
for step in range(2):
    xs = rec["x"]
    t = torch.tensor(xs)
    t.add_(step)
    print(t.tolist())

# %% round 19: the diagonal of a matrix as a NumPy view, doubled in place [none]
import numpy as np
import torch

m = np.arange(9, dtype=np.float32).reshape(3, 3)
for step in range(2):
    d = np.diagonal(m)
    t = torch.tensor(d)
    t.mul_(2)
    print(t.tolist())

# %% round 19: a column picked from an array built in the loop, in place afterwards [none]
import numpy as np
import torch

for step in range(2):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    col = a[:, 1]
    t = torch.tensor(col)
    t.add_(10)
    print(t.tolist(), a.tolist())

# %% round 19: observations made as a big-endian array and converted to native float32, scaled in place [unsafe, same]
import numpy as np
import torch

for step in range(2):
    obs = np.array([1.0, 2.0, 3.0], dtype=">f4").astype(np.float32)
    t = torch.tensor(obs)
    t.mul_(2)
    print(t.tolist())

# %% round 19: token ids as a fresh uint32 array, offset in place [unsafe, same]
import numpy as np
import torch

for step in range(2):
    ids = np.array([1, 2, 3], dtype=np.uint32)
    t = torch.tensor(ids)
    print(t.tolist(), t.dtype)

# %% round 19: counts as a fresh uint64 array, read each step [unsafe, same]
import numpy as np
import torch

for step in range(2):
    counts = np.zeros(3, dtype=np.uint64) + step
    t = torch.tensor(counts)
    print(t.tolist(), t.dtype)

# %% round 19: a fresh big-endian int array made with astype, summed each step [none]
import numpy as np
import torch

for step in range(2):
    a = np.arange(4).astype(">i8").byteswap().view(np.int64)
    t = torch.tensor(a)
    print(t.sum().item())

# %% round 19: a Fortran-ordered stack of fresh rows, incremented in place each step [unsafe]
import numpy as np
import torch

for step in range(2):
    a = np.zeros(3) + step
    b = np.asfortranarray(np.stack([a, a]))
    t = torch.tensor(b)
    t.add_(1)
    print(t.tolist(), b.tolist())

# %% round 19: every other sample of a fresh batch, flattened with view [none]
import numpy as np
import torch

for step in range(2):
    batch = np.arange(8.0).reshape(4, 2) * step
    t = torch.tensor(batch[::2])
    print(t.view(-1).tolist(), t.is_contiguous())

# %% round 20: positions of a tensor expanded over the batch, taken to NumPy and back, offset in place [none]
import numpy as np
import torch

for step in range(2):
    pos = torch.arange(4, dtype=torch.float32).expand(3, 4)
    arr = pos.numpy()
    t = torch.tensor(arr)
    t.add_(step)
    print(t.tolist())

# %% round 24: a masked array of sensor readings converted each step, then offset in place [none]
import numpy as np
import torch

for step in range(2):
    readings = np.ma.array(np.arange(4.0) + step, mask=[0, 1, 0, 0])
    t = torch.tensor(readings)
    t.add_(1)
    print(t.tolist(), readings.data.tolist())

# %% round 24: a fresh np.matrix of features converted each step and scaled in place [none]
import numpy as np
import torch

for step in range(2):
    feats = np.matrix([[1.0, 2.0], [3.0, 4.0]]) * (step + 1)
    t = torch.tensor(feats)
    t.mul_(0.5)
    print(t.tolist())

# %% round 24: a float32 view of a byte buffer at an odd offset, shifted in place [none]
import numpy as np
import torch

for step in range(2):
    raw = np.zeros(17, dtype=np.uint8)
    frame = raw[1:].view(np.float32)
    t = torch.tensor(frame)
    t.add_(step)
    print(t.tolist())

# %% round 24: the real part of a complex spectrum, a strided view, normalised in place [none]
import numpy as np
import torch

for step in range(2):
    spectrum = np.fft.rfft(np.arange(8.0) + step)
    mag = spectrum.real
    t = torch.tensor(mag)
    t.div_(8)
    print([round(v, 6) for v in t.tolist()])

# %% round 24: a batch built with np.stack inside a match on the sample kind, scaled in place [unsafe]
import numpy as np
import torch

samples = [("image", np.ones((2, 2))), ("image", np.zeros((2, 2)))]
for step in range(2):
    match samples[step]:
        case ("image", pixels):
            batch = np.stack([pixels, pixels + step])
        case _:
            batch = np.zeros((2, 2, 2))
    x = torch.tensor(batch)
    x.mul_(2)
    print(x.sum().item(), batch.sum())

# %% round 24: an array read from a dataclass field inside the loop, converted and changed in place [none]
import dataclasses
import numpy as np
import torch


@dataclasses.dataclass
class Sample:
    pixels: np.ndarray


for step in range(2):
    sample = Sample(np.ones(3) * step)
    x = torch.tensor(sample.pixels)
    x.add_(1)
    print(x.tolist(), sample.pixels.tolist())

# %% round 24: an array unpacked from a tuple a function of the file returns, converted, changed in place [none]
import numpy as np
import torch


def load(step):
    return np.ones(3) * step, step


for step in range(2):
    pixels, label = load(step)
    x = torch.tensor(pixels)
    x.add_(1)
    print(x.tolist(), pixels.tolist(), label)

# %% round 24: an array made by np.ones and passed through a walrus, converted and changed in place [unsafe]
import numpy as np
import torch

for step in range(2):
    if (frame := np.ones(3) * step).sum() >= 0:
        x = torch.tensor(frame)
        x.add_(1)
        print(x.tolist(), frame.tolist())
