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

# %% a read-only array [unsafe, same]
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
