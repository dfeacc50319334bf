# %% control: one expression, no mask, scale by division [unsafe, same]
import math

import torch
import torch.nn.functional as F


class Attention(torch.nn.Module):
    def forward(self, q, k, v):
        return F.softmax(q @ k.transpose(-2, -1) / math.sqrt(q.size(-1)), dim=-1) @ v


q, k, v = torch.randn(3, 2, 2, 5, 4).unbind(0)
show(Attention()(q, k, v).round(decimals=3))

# %% consecutive statements, additive float mask, torch.matmul [unsafe, same]
import torch


class Attention(torch.nn.Module):
    def forward(self, query, key, value, bias):
        scores = torch.matmul(query, key.transpose(-1, -2)) / query.size(-1) ** 0.5
        scores = scores + bias
        weights = torch.softmax(scores, dim=-1)
        return torch.matmul(weights, value)


q, k, v = torch.randn(3, 2, 5, 4).unbind(0)
bias = torch.zeros(5, 5).masked_fill(torch.rand(5, 5) > 0.7, float("-inf")).fill_diagonal_(0.0)
show(Attention()(q, k, v, bias).round(decimals=3))

# %% boolean padding mask through masked_fill(mask == 0, -inf) [unsafe, same]
import math

import torch


class Attention(torch.nn.Module):
    def forward(self, q, k, v, mask):
        attn = q.matmul(k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        attn = attn.masked_fill(mask == 0, float("-inf"))
        attn = attn.softmax(dim=-1)
        out = attn @ v
        return out


q, k, v = torch.randn(3, 2, 3, 6, 4).unbind(0)
mask = torch.ones(2, 1, 1, 6)
mask[0, ..., 4:] = 0
show(Attention()(q, k, v, mask).round(decimals=3))

# %% causal tril buffer sliced to the sequence length [unsafe, same]
import math

import torch
import torch.nn.functional as F


class CausalSelfAttention(torch.nn.Module):
    def __init__(self, block_size):
        super().__init__()
        self.register_buffer("bias", torch.tril(torch.ones(block_size, block_size)).view(1, 1, block_size, block_size))

    def forward(self, q, k, v):
        T = q.size(-2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float('-inf'))
        att = F.softmax(att, dim=-1)
        y = att @ v
        return y


q, k, v = torch.randn(3, 2, 2, 5, 4).unbind(0)
show(CausalSelfAttention(8)(q, k, v).round(decimals=3))

# %% an explicit scale that is not 1/sqrt(d), keys in .mT, boolean ~mask [unsafe, same]
import torch


class Attention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = 0.3

    def forward(self, q, k, v, keep):
        w = q @ k.mT * self.scale
        w = w.masked_fill(~keep, -torch.inf)
        w = torch.nn.functional.softmax(w, dim=-1)
        return w @ v


q, k, v = torch.randn(3, 4, 5, 3).unbind(0)
keep = torch.rand(4, 5, 5) > 0.3
keep[..., 0] = True
show(Attention()(q, k, v, keep).round(decimals=3))

# %% no scale at all: the query was scaled before [unsafe, same]
import torch



class Attention(torch.nn.Module):
    def forward(self, q, k, v):
        q = q * 4 ** -0.5
        attn = q @ k.transpose(-2, -1)
        attn = attn.softmax(dim=-1)
        return attn @ v


q, k, v = torch.randn(3, 2, 5, 4).unbind(0)
show(Attention()(q, k, v).round(decimals=3))

# %% a mask filled with -1e9, not -inf: no fix [none]
import torch


class Attention(torch.nn.Module):
    def forward(self, q, k, v, mask):
        scores = q @ k.transpose(-2, -1) / 2.0
        scores = scores.masked_fill(mask == 0, -1e9)
        return scores.softmax(dim=-1) @ v


q, k, v = torch.randn(3, 2, 5, 4).unbind(0)
mask = torch.zeros(5, 5)
mask[:, :2] = 1
mask[4] = 0
show(Attention()(q, k, v, mask).round(decimals=3))

# %% softmax over the query dimension: not attention [none]
import torch



class Attention(torch.nn.Module):
    def forward(self, q, k, v):
        weights = torch.softmax(q @ k.transpose(-2, -1) / 2.0, dim=-2)
        return weights @ v


q, k, v = torch.randn(3, 2, 5, 4).unbind(0)
show(Attention()(q, k, v).round(decimals=3))

# %% the weights are returned: no fix [none]
import torch


class Attention(torch.nn.Module):
    def forward(self, q, k, v):
        attn = (q @ k.transpose(-2, -1)) * 0.5
        attn = attn.softmax(dim=-1)
        out = attn @ v
        return out, attn


q, k, v = torch.randn(3, 2, 5, 4).unbind(0)
show(*Attention()(q, k, v))

# %% dropout on the weights: no fix [none]
import torch


class Attention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.attn_drop = torch.nn.Dropout(0.5)

    def forward(self, q, k, v):
        attn = (q @ k.transpose(-2, -1)) * 0.5
        attn = attn.softmax(dim=-1)
        attn = self.attn_drop(attn)
        return attn @ v


q, k, v = torch.randn(3, 2, 5, 4).unbind(0)
show(Attention()(q, k, v))

# %% the mask scaled after it is added: no fix [none]
import torch


class Attention(torch.nn.Module):
    def forward(self, q, k, v, bias):
        scores = (q @ k.transpose(-2, -1) + bias) * 0.5
        return scores.softmax(dim=-1) @ v


q, k, v = torch.randn(3, 2, 5, 4).unbind(0)
show(Attention()(q, k, v, torch.randn(5, 5)))

# %% a learned temperature: a tensor scale [unsafe]
import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.logit_scale = nn.Parameter(torch.tensor(0.5))

    def forward(self, q, k, v):
        attn = (q @ k.transpose(-2, -1)) * self.logit_scale.exp()
        attn = attn.softmax(dim=-1)
        return attn @ v


torch.manual_seed(0)
model = Attention()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
q, k, v = torch.randn(3, 2, 5, 4).unbind(0)
for step in range(2):
    loss = model(q, k, v).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
show(model.logit_scale.round(decimals=3))

# %% a one-element scale buffer [unsafe]
import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.register_buffer("scale", torch.tensor([dim ** -0.5]))

    def forward(self, q, k, v):
        attn = q @ k.transpose(-2, -1) * self.scale
        attn = attn.softmax(dim=-1)
        return attn @ v


torch.manual_seed(0)
model = Attention(4)
q, k, v = torch.randn(3, 2, 5, 4).unbind(0)
for step in range(2):
    show(model(q, k, v).round(decimals=3))

# %% an integer, a float16 and a boolean mask, each added to float32 scores [unsafe]
import math

import torch


class Attention(torch.nn.Module):
    def forward(self, q, k, v, mask):
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        scores = scores + mask
        weights = scores.softmax(dim=-1)
        return weights @ v


torch.manual_seed(0)
q, k, v = torch.randn(3, 2, 5, 4).unbind(0)
causal = torch.zeros(5, 5, dtype=torch.float16).masked_fill(torch.ones(5, 5).triu(1) > 0, float("-inf"))
keep = torch.ones(5, 5).tril() > 0
distance = -(torch.arange(5)[:, None] - torch.arange(5)[None, :]).abs()
for step in range(2):
    for mask in (distance, causal, keep):
        show(Attention()(q, k, v, mask).round(decimals=3))

# %% F bound later in the same function [unsafe]
import math

import torch
import torch.nn.functional as F


class Attention(torch.nn.Module):
    def forward(self, q, k, v):
        attn = (q @ k.transpose(-2, -1)) / math.sqrt(q.size(-1))
        attn = attn.softmax(dim=-1)
        out = attn @ v
        B, T, F = out.shape
        return out.reshape(B, T * F)


torch.manual_seed(0)
q, k, v = torch.randn(3, 2, 5, 4).unbind(0)
for step in range(2):
    show(Attention()(q, k, v).round(decimals=3))

# %% a gradient penalty differentiates through the attention twice [none]
import math

import torch


class Attention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(4, 4)

    def forward(self, x):
        q = self.proj(x)
        attn = (q @ x.transpose(-2, -1)) / math.sqrt(x.size(-1))
        attn = attn.softmax(dim=-1)
        return attn @ x


torch.manual_seed(0)
model = Attention()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    x = torch.randn(2, 2, 5, 4, requires_grad=True)
    out = model(x)
    (grad,) = torch.autograd.grad(out.sum(), x, create_graph=True)
    loss = out.pow(2).mean() + grad.pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
show(model.proj.weight.round(decimals=3))

# %% F rebound at module level to an F1 score before the model runs again [unsafe]
import torch
import torch.nn as nn
import torch.nn.functional as F

class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(4, 12)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, -1)
        w = torch.softmax(q @ k.transpose(-2, -1) / 2.0, dim=-1)
        return w @ v

torch.manual_seed(0)
model = Attention()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(2):
    out = model(torch.randn(2, 5, 4))
    F.mse_loss(out, torch.zeros_like(out)).backward()
    opt.step()
    opt.zero_grad()
precision, recall = 0.5, 0.25
F = 2 * precision * recall / (precision + recall)
print("F1", F, model(torch.ones(1, 5, 4)).round(decimals=3).tolist()[0][0])

# %% round 6: attention pooling with a learned query vector [none]
import math
import torch
from torch import nn

class AttentionPool(nn.Module):
    def __init__(self, d=4):
        super().__init__()
        self.query = nn.Parameter(torch.randn(d))
        self.key = nn.Linear(d, d)
        self.d = d

    def forward(self, bag):
        q = self.query
        k = self.key(bag)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d)
        weights = torch.softmax(scores, dim=-1)
        return weights @ bag

torch.manual_seed(0)
pool = AttentionPool()
for step in range(2):
    show(pool(torch.randn(5, 4)).round(decimals=4))

# %% round 7: a bfloat16 mask built with torch.full on float32 scores [unsafe]
import torch
import torch.nn.functional as F

class Attention(torch.nn.Module):
    def forward(self, q, k, v):
        n = q.size(-2)
        mask = torch.triu(torch.full((n, n), float("-inf"), dtype=torch.bfloat16), 1)
        att = (q @ k.transpose(-2, -1)) * (1.0 / q.size(-1) ** 0.5)
        att = att + mask
        return F.softmax(att, dim=-1) @ v

q, k, v = torch.randn(3, 1, 2, 4, 8).unbind(0)
show(Attention()(q, k, v).round(decimals=3))

# %% round 7: a scale read from a 0-dim tensor attribute [unsafe]
import torch
import torch.nn.functional as F

class Attention(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = torch.tensor(dim ** -0.5)
    def forward(self, q, k, v):
        return F.softmax((q @ k.transpose(-2, -1)) * self.scale, dim=-1) @ v

q, k, v = torch.randn(3, 1, 2, 4, 8).unbind(0)
show(Attention(8)(q, k, v).round(decimals=3))

# %% round 7: a scale computed with torch.sqrt of a tensor [unsafe]
import torch
import torch.nn.functional as F

class Attention(torch.nn.Module):
    def forward(self, q, k, v):
        d = torch.tensor(q.shape[-1], dtype=torch.float32)
        scores = q @ k.transpose(-2, -1) / torch.sqrt(d)
        return F.softmax(scores, dim=-1) @ v

q, k, v = torch.randn(3, 1, 2, 4, 8).unbind(0)
show(Attention()(q, k, v).round(decimals=3))

# %% round 7: F is a parameter of the forward [unsafe]
import torch
import torch.nn.functional as F

class Attention(torch.nn.Module):
    def forward(self, q, k, v, F=8):
        w = torch.softmax(q @ k.transpose(-2, -1) / F ** 0.5, dim=-1)
        return w @ v

q, k, v = torch.randn(3, 1, 2, 4, 8).unbind(0)
show(Attention()(q, k, v).round(decimals=3))

# %% round 7: F bound in a for loop over features in the same function [unsafe]
import torch
import torch.nn.functional as F

class Attention(torch.nn.Module):
    def forward(self, q, k, v):
        w = torch.softmax(q @ k.transpose(-2, -1) / q.size(-1) ** 0.5, dim=-1)
        out = w @ v
        for F in range(1):
            out = out + F
        return out

q, k, v = torch.randn(3, 1, 2, 4, 8).unbind(0)
show(Attention()(q, k, v).round(decimals=3))

# %% round 7: a boolean causal mask added to the scores as 0/1 [unsafe]
import torch
import torch.nn.functional as F

class Attention(torch.nn.Module):
    def forward(self, q, k, v):
        n = q.size(-2)
        allowed = torch.ones(n, n, dtype=torch.bool).tril()
        scores = q @ k.transpose(-2, -1) / q.size(-1) ** 0.5 + allowed
        return F.softmax(scores, dim=-1) @ v

q, k, v = torch.randn(3, 1, 2, 4, 8).unbind(0)
show(Attention()(q, k, v).round(decimals=3))

# %% round 7: second derivative of the attention in a Hessian-vector product [none]
import torch
import torch.nn.functional as F

def attend(q, k, v):
    return F.softmax(q @ k.transpose(-2, -1) / q.size(-1) ** 0.5, dim=-1) @ v

torch.manual_seed(0)
q, k, v = torch.randn(3, 1, 2, 4, 8).unbind(0)
q.requires_grad_(True)
(g,) = torch.autograd.grad(attend(q, k, v).pow(2).sum(), q, create_graph=True)
(h,) = torch.autograd.grad(g.sum(), q)
show(h.round(decimals=3))

# %% round 7: double backward through torch.func.hessian [none]
import torch
import torch.nn.functional as F

def attend(q, k, v):
    return F.softmax(q @ k.transpose(-2, -1) / q.size(-1) ** 0.5, dim=-1) @ v

torch.manual_seed(0)
q, k, v = torch.randn(3, 1, 1, 2, 2).unbind(0)
h = torch.func.hessian(lambda x: attend(x, k, v).sum())(q)
show(h.round(decimals=3))

# %% round 7: a scale computed by math.log of the sequence length times a tensor [unsafe]
import math
import torch
import torch.nn.functional as F

class Attention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.gain = torch.nn.Parameter(torch.tensor(0.5))
    def forward(self, q, k, v):
        s = self.gain * math.log(q.size(-2))
        return F.softmax(q @ k.transpose(-2, -1) * s, dim=-1) @ v

q, k, v = torch.randn(3, 1, 2, 4, 8).unbind(0)
show(Attention()(q, k, v).round(decimals=3))

# %% round 8: attention in a dataclass-configured block with a head dim from the config [unsafe, same]
from dataclasses import dataclass
import math

import torch
import torch.nn as nn


@dataclass
class Cfg:
    dim: int = 16
    heads: int = 2


class Attn(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.cfg = cfg
        self.qkv = nn.Linear(cfg.dim, 3 * cfg.dim)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.cfg.heads, C // self.cfg.heads).permute(2, 0, 3, 1, 4)
        att = (q @ k.transpose(-2, -1)) / math.sqrt(C // self.cfg.heads)
        att = att.softmax(dim=-1)
        y = att @ v
        return y.transpose(1, 2).reshape(B, T, C)


torch.manual_seed(0)
m = Attn(Cfg())
opt = torch.optim.SGD(m.parameters(), lr=0.1)
for step in range(2):
    out = m(torch.randn(2, 5, 16))
    loss = out.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 8: a key padding mask of int8 added after scaling [unsafe, same]
import torch
import torch.nn as nn


class Attn(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(8, 8)
        self.k = nn.Linear(8, 8)
        self.v = nn.Linear(8, 8)

    def forward(self, x, bias):
        q, k, v = self.q(x), self.k(x), self.v(x)
        scores = q @ k.transpose(-1, -2) / 8 ** 0.5
        scores = scores + bias
        weights = scores.softmax(-1)
        return weights @ v


torch.manual_seed(0)
m = Attn()
bias = torch.tensor([[0, 0, -3, -3]], dtype=torch.int8)
for step in range(2):
    out = m(torch.randn(2, 4, 8), bias)
    out.sum().backward()
    print(round(out.sum().item(), 3))

# %% round 8: a scale kept as a class attribute float [unsafe, same]
import torch
import torch.nn as nn


class Attn(nn.Module):
    scale = 0.25

    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(16, 48)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, -1)
        a = (q @ k.transpose(-2, -1)) * self.scale
        a = a.softmax(-1)
        return a @ v


torch.manual_seed(0)
m = Attn()
for step in range(2):
    out = m(torch.randn(2, 3, 16))
    out.sum().backward()
    print(round(out.sum().item(), 3))

# %% round 8: attention in a torch.compile'd eager function on float64 inputs [unsafe, same]
import torch


@torch.compile(backend="eager")
def attend(q, k, v):
    w = torch.softmax(q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5, dim=-1)
    return w @ v


torch.manual_seed(0)
proj = torch.nn.Linear(4, 12).double()
for step in range(2):
    q, k, v = proj(torch.randn(2, 3, 4, dtype=torch.float64)).chunk(3, -1)
    out = attend(q, k, v)
    out.sum().backward()
    print(out.dtype, round(out.sum().item(), 6))

# %% round 9: a learned relative position bias added to the scores, trained [unsafe, same]
import math
import torch
import torch.nn as nn

class Attention(nn.Module):
    def __init__(self, dim, heads, length):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, dim * 3)
        self.bias = nn.Parameter(torch.randn(heads, length, length) * 0.1)

    def forward(self, x):
        b, n, c = x.shape
        q, k, v = self.qkv(x).reshape(b, n, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4)
        attn = (q @ k.transpose(-2, -1)) / math.sqrt(c // self.heads)
        attn = attn + self.bias
        attn = attn.softmax(dim=-1)
        return (attn @ v).transpose(1, 2).reshape(b, n, c)

torch.manual_seed(0)
model = Attention(8, 2, 4)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.randn(2, 4, 8)).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(round(loss.item(), 4))

# %% round 9: values with another width than queries and keys [unsafe, same]
import math
import torch
import torch.nn as nn

class Pool(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(6, 4)
        self.k = nn.Linear(6, 4)
        self.v = nn.Linear(6, 10)

    def forward(self, x):
        q, k, v = self.q(x), self.k(x), self.v(x)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(4)
        weights = torch.softmax(scores, dim=-1)
        return torch.matmul(weights, v)

torch.manual_seed(0)
model = Pool()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.randn(2, 5, 6)).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(round(loss.item(), 4))

# %% round 9: scores divided by a scale attribute that holds sqrt(d) [unsafe, same]
import math
import torch
import torch.nn as nn

class Attn(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.proj = nn.Linear(d, 3 * d)
        self.scale = math.sqrt(d)

    def forward(self, x):
        q, k, v = self.proj(x).chunk(3, dim=-1)
        scores = q @ k.transpose(-1, -2) / self.scale
        return scores.softmax(-1) @ v

torch.manual_seed(0)
model = Attn(4)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.randn(2, 3, 4)).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(round(loss.item(), 4))

# %% round 9: keys transposed with permute on a 3-D batch [unsafe, same]
import math
import torch
import torch.nn as nn

class Attn(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.proj = nn.Linear(d, 3 * d)

    def forward(self, x):
        q, k, v = self.proj(x).chunk(3, dim=-1)
        scores = torch.bmm(q, k.permute(0, 2, 1)) * (q.size(-1) ** -0.5)
        return torch.bmm(torch.softmax(scores, -1), v)

torch.manual_seed(0)
model = Attn(4)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.randn(2, 3, 4)).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(round(loss.item(), 4))

# %% round 9: a padding mask built as a 1-D vector added to the scores [unsafe, same]
import math
import torch
import torch.nn as nn

class Attn(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.proj = nn.Linear(d, 3 * d)

    def forward(self, x, pad):
        q, k, v = self.proj(x).chunk(3, dim=-1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        scores = scores + pad
        return scores.softmax(-1) @ v

torch.manual_seed(0)
model = Attn(4)
pad = torch.tensor([0.0, 0.0, -1e4])
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.randn(2, 3, 4), pad).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(round(loss.item(), 4))

# %% round 9: queries in float64 attending to float32 keys after a cast [unsafe, same]
import math
import torch
import torch.nn as nn

class Attn(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.proj = nn.Linear(d, 3 * d).double()

    def forward(self, x, mask):
        q, k, v = self.proj(x).chunk(3, dim=-1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        scores = scores.masked_fill(mask == 0, float("-inf"))
        return scores.softmax(-1) @ v

torch.manual_seed(0)
model = Attn(4)
mask = torch.tril(torch.ones(3, 3, dtype=torch.uint8))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.randn(2, 3, 4, dtype=torch.float64), mask).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(round(loss.item(), 4))

# %% round 9: cross-attention from a decoder query to encoder memory of another length [unsafe, same]
import math
import torch
import torch.nn as nn

class Cross(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.q, self.kv = nn.Linear(d, d), nn.Linear(d, 2 * d)
        self.d = d

    def forward(self, x, memory):
        q = self.q(x)
        k, v = self.kv(memory).chunk(2, dim=-1)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(self.d)
        weights = torch.softmax(scores, dim=-1)
        return torch.matmul(weights, v)

torch.manual_seed(0)
model = Cross(4)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.randn(2, 3, 4), torch.randn(2, 5, 4)).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(round(loss.item(), 4))

# %% round 9: attention under CPU bfloat16 autocast in a training step [unsafe, same]
import math
import torch
import torch.nn as nn

class Attn(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.proj = nn.Linear(d, 3 * d)

    def forward(self, x):
        q, k, v = self.proj(x).chunk(3, dim=-1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        return scores.softmax(dim=-1) @ v

torch.manual_seed(0)
model = Attn(4)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = model(torch.randn(2, 3, 4))
    loss = out.float().pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(out.dtype)

# %% round 9: a causal mask from a registered bool buffer filled with -inf [unsafe, same]
import math
import torch
import torch.nn as nn

class Causal(nn.Module):
    def __init__(self, d, n):
        super().__init__()
        self.proj = nn.Linear(d, 3 * d)
        self.register_buffer("future", torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1))

    def forward(self, x):
        t = x.size(1)
        q, k, v = self.proj(x).chunk(3, dim=-1)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.future[:t, :t], float("-inf"))
        att = torch.softmax(att, dim=-1)
        return att @ v

torch.manual_seed(0)
model = Causal(4, 8)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.randn(2, 3, 4)).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    print(round(loss.item(), 4))

# %% round 10: attention in a nested helper of a forward that binds F to a width [unsafe]
import math
import torch
import torch.nn.functional as F
from torch import nn

class Attn(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d)

    def forward(self, x):
        B, T, F = x.shape

        def attend(q, k, v):
            scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
            weights = torch.softmax(scores, dim=-1)
            return weights @ v

        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return attend(q, k, v)

torch.manual_seed(0)
model = Attn(4)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 3, 4)
for step in range(2):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 10: F bound by a walrus in the forward that holds the attention [unsafe]
import math
import torch
import torch.nn.functional as F
from torch import nn

class Attn(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d)

    def forward(self, x):
        if (F := x.shape[-1]) != 4:
            raise ValueError(F)
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.size(-1))
        weights = scores.softmax(dim=-1)
        return weights @ v

torch.manual_seed(0)
model = Attn(4)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 3, 4)
for step in range(2):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 10: only torch.nn names imported, torch itself never bound [unsafe]
import math
from torch import nn, manual_seed, randn, optim
from torch.nn.functional import softmax

class Attn(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = q @ k.transpose(-2, -1) * (1.0 / math.sqrt(q.size(-1)))
        return softmax(scores, dim=-1) @ v

manual_seed(0)
model = Attn(4)
opt = optim.SGD(model.parameters(), lr=0.1)
x = randn(2, 3, 4)
for step in range(2):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 10: second derivative through nested torch.func.grad of the attention [none]
import math
import torch
from torch import nn
from torch.func import grad

torch.manual_seed(0)
wq = torch.randn(4, 4)

def energy(x):
    q = x @ wq
    k = x
    v = x
    scores = q @ k.transpose(-2, -1) / math.sqrt(4)
    return (torch.softmax(scores, dim=-1) @ v).sum()

model = nn.Linear(4, 4)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(2):
    x = model(torch.randn(3, 4))
    curvature = grad(lambda y: grad(energy)(y).sum())(x.detach())
    loss = x.pow(2).mean() + 0.0 * curvature.sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(curvature.sum().item(), 4))

# %% round 10: a Hessian of the attention energy with torch.autograd.functional.hessian [none]
import math
import torch
from torch import nn
from torch.autograd.functional import hessian

torch.manual_seed(0)

def energy(x):
    q, k, v = x, x, x
    scores = q @ k.transpose(-2, -1) / math.sqrt(2)
    return (torch.softmax(scores, dim=-1) @ v).sum()

model = nn.Linear(2, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
for step in range(2):
    x = model(torch.randn(3, 2))
    h = hessian(energy, x.detach())
    loss = x.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(h.sum().item(), 4))

# %% round 10: a masked_fill_ in place with -math.inf on a padding mask [unsafe, same]
import math
import torch
from torch import nn

class Attn(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d)

    def forward(self, x, pad):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        scores = scores.masked_fill(pad[:, None, :], -math.inf)
        attn = scores.softmax(-1)
        return attn @ v

torch.manual_seed(0)
model = Attn(4)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 3, 4)
pad = torch.tensor([[False, False, True], [False, False, False]])
for step in range(2):
    loss = model(x, pad).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 10: a scale from a float32 NumPy scalar [unsafe]
import numpy as np
import torch
from torch import nn

class Attn(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d)
        self.scale = np.float32(d) ** -0.5

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        attn = (q @ k.transpose(-2, -1) * self.scale).softmax(dim=-1)
        return attn @ v

torch.manual_seed(0)
model = Attn(4)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 3, 4)
for step in range(2):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 10: attention over half-precision queries on the CPU [unsafe]
import math
import torch
from torch import nn

class Attn(nn.Module):
    def forward(self, q, k, v):
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        return scores.softmax(-1) @ v

torch.manual_seed(0)
proj = nn.Linear(4, 4)
attn = Attn()
opt = torch.optim.SGD(proj.parameters(), lr=0.1)
x = torch.randn(2, 3, 4)
for step in range(2):
    h = proj(x).half()
    out = attn(h, h, h)
    loss = out.float().pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(out.dtype, round(loss.item(), 2))

# %% round 12: a softmax over the query axis by mistake in a hand-written attention [none]
import math
import torch


class Attention(torch.nn.Module):
    def forward(self, q, k, v):
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        weights = scores.softmax(dim=-2)
        return weights @ v


torch.manual_seed(0)
q, k, v = torch.randn(3, 2, 2, 5, 4).unbind(0)
show(Attention()(q, k, v).round(decimals=3))

# %% round 12: a softmax computed in float32 by its dtype keyword, Llama-style, in a training step [none]
import torch
import torch.nn.functional as F


class Attention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = torch.nn.Linear(8, 24)

    def forward(self, x):
        q, k, v = self.qkv(x).view(2, 5, 3, 2, 4).permute(2, 0, 3, 1, 4)
        scores = torch.matmul(q, k.transpose(2, 3)) / 2.0
        weights = F.softmax(scores, dim=-1, dtype=torch.float32).type_as(q)
        return torch.matmul(weights, v)


torch.manual_seed(0)
attn = Attention()
opt = torch.optim.SGD(attn.parameters(), lr=0.1)
for step in range(2):
    loss = attn(torch.randn(2, 5, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 12: a temperature attribute annealed by the training loop divides the scores [unsafe, same]
import torch


class Pool(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.temperature = 1.0

    def forward(self, q, k, v):
        scores = q @ k.transpose(-2, -1) / self.temperature
        return torch.softmax(scores, dim=-1) @ v


torch.manual_seed(0)
pool = Pool()
q, k, v = torch.randn(3, 2, 3, 4).unbind(0)
for epoch in range(3):
    pool.temperature = 1.0 / (epoch + 1)
    show(pool(q, k, v).round(decimals=3))

# %% round 12: a causal mask buffer sliced to the sequence length in a GPT block's training step [unsafe, same]
import torch
import torch.nn.functional as F


class CausalSelfAttention(torch.nn.Module):
    def __init__(self, n_embd=8, n_head=2, block_size=6):
        super().__init__()
        self.n_head = n_head
        self.c_attn = torch.nn.Linear(n_embd, 3 * n_embd)
        self.register_buffer("bias", torch.tril(torch.ones(block_size, block_size)).view(1, 1, block_size, block_size))

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / (k.size(-1) ** 0.5))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = att @ v
        return y.transpose(1, 2).contiguous().view(B, T, C)


torch.manual_seed(0)
block = CausalSelfAttention()
opt = torch.optim.AdamW(block.parameters(), lr=1e-2)
for step in range(3):
    loss = block(torch.randn(2, 5, 8)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 3))

# %% round 12: key padding mask given as a float 0/1 tensor filled through masked_fill of its complement [unsafe, same]
import torch


class CrossAttention(torch.nn.Module):
    def forward(self, q, k, v, keep):
        scores = torch.matmul(q, k.transpose(-1, -2)) * q.shape[-1] ** -0.5
        scores = scores.masked_fill(keep[:, None, None, :] == 0, float("-inf"))
        attn = scores.softmax(-1)
        return torch.matmul(attn, v)


torch.manual_seed(0)
q = torch.randn(2, 2, 3, 4)
k = torch.randn(2, 2, 5, 4)
v = torch.randn(2, 2, 5, 4)
keep = torch.tensor([[1.0, 1, 1, 0, 0], [1, 1, 1, 1, 0]])
for step in range(2):
    show(CrossAttention()(q, k, v, keep).round(decimals=3))

# %% round 12: attention over float64 features in a scripted evaluation helper [unsafe, same]
import torch


class Attn(torch.nn.Module):
    def forward(self, q, k, v):
        w = torch.softmax(q @ k.transpose(-2, -1) * 0.5, dim=-1)
        return w @ v


torch.manual_seed(0)
attn = Attn()
q, k, v = torch.randn(3, 1, 2, 3, 4, dtype=torch.float64).unbind(0)
for step in range(2):
    show(attn(q, k, v).round(decimals=6))

# %% round 13: attention with keys transposed through .mT in a training step [unsafe, same]
import math
import torch
import torch.nn.functional as F

torch.manual_seed(0)
q, k, v = (torch.randn(2, 3, 4, 8, requires_grad=True) for _ in range(3))
for step in range(2):
    scores = q @ k.mT / math.sqrt(8)
    weights = F.softmax(scores, dim=-1)
    out = weights @ v
    out.sum().backward()
print(round(out.sum().item(), 4))

# %% round 13: grouped-query attention whose one key head broadcasts over the query heads [unsafe]
import math
import torch
import torch.nn.functional as F

torch.manual_seed(0)
q = torch.randn(2, 4, 5, 8)
k = torch.randn(2, 1, 5, 8)
v = torch.randn(2, 1, 5, 8)
for step in range(2):
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(8)
    weights = F.softmax(scores, dim=-1)
    out = torch.matmul(weights, v)
print(tuple(out.shape), round(out.sum().item(), 4))

# %% round 13: a boolean keep mask negated with ~ before masked_fill [unsafe]
import math
import torch
import torch.nn.functional as F

torch.manual_seed(0)
q, k, v = (torch.randn(2, 5, 8) for _ in range(3))
keep = torch.tensor([[True, True, True, False, False], [True, True, True, True, True]]).unsqueeze(1)
for step in range(2):
    scores = q @ k.transpose(-2, -1) / math.sqrt(8)
    scores = scores.masked_fill(~keep, float("-inf"))
    weights = F.softmax(scores, dim=-1)
    out = weights @ v
print(round(out.sum().item(), 4))

# %% round 13: a mask filled with -math.inf through torch.where [none]
import math
import torch
import torch.nn.functional as F

torch.manual_seed(0)
q, k, v = (torch.randn(2, 5, 8) for _ in range(3))
keep = torch.ones(5, 5).tril().bool()
for step in range(2):
    scores = q @ k.transpose(-2, -1) / math.sqrt(8)
    scores = torch.where(keep, scores, -math.inf)
    weights = F.softmax(scores, dim=-1)
    out = weights @ v
print(round(out.sum().item(), 4))

# %% round 13: torch.nn.functional imported under the name F while a loop variable F is bound in another function [unsafe, same]
import math
import torch
import torch.nn.functional as F


def f1(scores):
    for F in (0.5, 1.0):
        pass
    return F


def attend(q, k, v):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    weights = F.softmax(scores, dim=-1)
    return weights @ v


torch.manual_seed(0)
q, k, v = (torch.randn(2, 5, 8) for _ in range(3))
for step in range(2):
    out = attend(q, k, v)
print(round(out.sum().item(), 4), f1(None))

# %% round 13: a scale given as an integer power of the head size in a tab-indented block [unsafe, same]
import torch


class Attention(torch.nn.Module):
	def __init__(self, d):
		super().__init__()
		self.d = d

	def forward(self, q, k, v):
		scores = (q @ k.transpose(-2, -1)) * self.d ** -0.5
		weights = scores.softmax(dim=-1)
		return weights @ v


torch.manual_seed(0)
attn = Attention(8)
q, k, v = (torch.randn(2, 5, 8) for _ in range(3))
for step in range(2):
	out = attn(q, k, v)
print(round(out.sum().item(), 4))

# %% round 13: values with another head size than the queries [unsafe, same]
import math
import torch
import torch.nn.functional as F

torch.manual_seed(0)
q, k = torch.randn(2, 5, 8), torch.randn(2, 6, 8)
v = torch.randn(2, 6, 3)
for step in range(2):
    scores = q @ k.transpose(-2, -1) / math.sqrt(8)
    out = F.softmax(scores, dim=-1) @ v
print(tuple(out.shape), round(out.sum().item(), 4))

# %% round 14: a gradient penalty whose create_graph is given by position in autograd.grad [none]
import math
import torch
import torch.nn.functional as F

torch.manual_seed(0)
w = torch.nn.Parameter(torch.randn(8, 8))
x = torch.randn(2, 2, 4, 8, requires_grad=True)
for step in range(2):
    q = x @ w
    scores = q @ x.transpose(-2, -1) / math.sqrt(8)
    out = F.softmax(scores, dim=-1) @ x
    (g,) = torch.autograd.grad(out.sum(), x, None, True, True)
    penalty = g.pow(2).sum()
    penalty.backward()
print(round(w.grad.sum().item(), 3))

# %% round 14: a gradient penalty whose create_graph comes from a dict of options [none]
import math
import torch
import torch.nn.functional as F

GRAD_OPTS = {"create_graph": True, "retain_graph": True}
torch.manual_seed(0)
w = torch.nn.Parameter(torch.randn(8, 8))
x = torch.randn(2, 2, 4, 8, requires_grad=True)
for step in range(2):
    q = x @ w
    scores = q @ x.transpose(-2, -1) / math.sqrt(8)
    out = F.softmax(scores, dim=-1) @ x
    (g,) = torch.autograd.grad(out.sum(), x, **GRAD_OPTS)
    g.pow(2).sum().backward()
print(round(w.grad.sum().item(), 3))

# %% round 14: a backward with create_graph given by position, then a second backward of the gradient norm [none]
import math
import torch
import torch.nn.functional as F

torch.manual_seed(0)
w = torch.nn.Parameter(torch.randn(8, 8))
x = torch.randn(2, 2, 4, 8)
for step in range(2):
    w.grad = None
    q = x @ w
    scores = q @ x.transpose(-2, -1) * (8 ** -0.5)
    out = torch.softmax(scores, dim=-1) @ x
    out.sum().backward(None, True, True)
    w.grad.pow(2).sum().backward()
print(round(w.grad.sum().item(), 3))

# %% round 14: attention in a module whose forward binds F by a with-statement target [none]
import math
import torch
import torch.nn.functional as F
import contextlib


class Attn(torch.nn.Module):
    def forward(self, q, k, v):
        with contextlib.nullcontext(q.shape[-1]) as F:
            scores = q @ k.transpose(-2, -1) / math.sqrt(F)
        weights = torch.softmax(scores, dim=-1)
        return weights @ v


torch.manual_seed(0)
q = torch.randn(2, 3, 4, 8)
attn = Attn()
for step in range(2):
    out = attn(q, q, q)
print(round(out.sum().item(), 4))

# %% round 14: attention in a function whose except clause binds F, softmax spelled torch.softmax [unsafe]
import math
import torch
import torch.nn.functional as F


def attend(q, k, v):
    try:
        d = q.shape[-1]
    except AttributeError as F:
        raise F
    scores = q @ k.transpose(-2, -1) / math.sqrt(d)
    return torch.softmax(scores, dim=-1) @ v


torch.manual_seed(0)
q = torch.randn(2, 3, 4, 8)
for step in range(2):
    out = attend(q, q, q)
print(round(out.sum().item(), 4))

# %% round 14: a scale made with torch.tensor of the head size and rsqrt [unsafe]
import torch
import torch.nn.functional as F

torch.manual_seed(0)
q = torch.randn(2, 3, 4, 8)
scale = torch.tensor(8.0).rsqrt()
for step in range(2):
    scores = q @ q.transpose(-2, -1) * scale
    out = F.softmax(scores, dim=-1) @ q
print(round(out.sum().item(), 4))

# %% round 14: a uint8 padding mask added to the scores after scaling in a training step [unsafe]
import math
import torch
import torch.nn.functional as F

torch.manual_seed(0)
proj = torch.nn.Linear(8, 8)
x = torch.randn(2, 1, 4, 8)
mask = torch.tensor([0, 0, 1, 1], dtype=torch.uint8)
for step in range(2):
    q = proj(x)
    scores = q @ q.transpose(-2, -1) / math.sqrt(8)
    scores = scores + mask
    out = F.softmax(scores, dim=-1) @ q
    out.sum().backward()
print(round(proj.weight.grad.sum().item(), 3))

# %% round 14: attention with its scale from a dataclass config field float, in a training loop [unsafe, same]
import dataclasses
import torch
import torch.nn.functional as F


@dataclasses.dataclass
class Cfg:
    dim: int = 8
    temperature: float = 0.5


cfg = Cfg()
torch.manual_seed(0)
proj = torch.nn.Linear(8, 8)
x = torch.randn(2, 2, 4, 8)
for step in range(2):
    q = proj(x)
    scores = q @ x.transpose(-2, -1) / cfg.temperature
    out = F.softmax(scores, dim=-1) @ x
print(round(out.sum().item(), 3))

# %% round 14: double backward through jacrev of jacrev over the attention [none]
import math
import torch
import torch.nn.functional as F
from torch.func import jacrev

torch.manual_seed(0)
k = torch.randn(1, 3, 4)


def energy(q):
    scores = q @ k.transpose(-2, -1) / math.sqrt(4)
    out = F.softmax(scores, dim=-1) @ k
    return out.sum()


for step in range(2):
    h = jacrev(jacrev(energy))(torch.randn(1, 2, 4))
print(tuple(h.shape))

# %% round 14: a key padding vector filled with -inf through masked_fill over 4-D scores in a training step [unsafe, same]
import math
import torch

torch.manual_seed(0)
proj = torch.nn.Linear(8, 8)
x = torch.randn(2, 2, 4, 8)
pad = torch.tensor([1, 1, 1, 0])
for step in range(2):
    q = proj(x)
    scores = q @ q.transpose(-2, -1) / math.sqrt(8)
    scores = scores.masked_fill(pad == 0, float("-inf"))
    out = torch.softmax(scores, dim=-1) @ q
    out.sum().backward()
print(round(proj.weight.grad.sum().item(), 3))

# %% round 15: a double backward through torch.func.grad of torch.func.grad over the attention [none]
import torch
from torch.func import grad


def attend(q, k, v):
    scores = q @ k.transpose(-2, -1) * 0.25
    weights = scores.softmax(dim=-1)
    return weights @ v


torch.manual_seed(0)
k, v = torch.randn(2, 1, 2, 3, 4).unbind(0)
f = lambda q: attend(q, k, v).pow(2).sum()
g2 = grad(lambda q: grad(f)(q).sum())
print(round(g2(torch.randn(1, 2, 3, 4)).sum().item(), 3))

# %% round 15: a second derivative through torch.autograd.gradgradcheck of the attention [none]
import torch


def attend(q, k, v):
    scores = q @ k.transpose(-2, -1) * 0.5
    weights = scores.softmax(dim=-1)
    return weights @ v


torch.manual_seed(0)
q, k, v = (torch.randn(1, 2, 2, 3, dtype=torch.float64, requires_grad=True) for _ in range(3))
print(torch.autograd.gradgradcheck(attend, (q, k, v)))

# %% round 15: control, per-sample gradients through vmap of torch.func.grad of a loss over the attention [unsafe]
import torch
from torch.func import grad, vmap


def attend(q, k, v):
    scores = q @ k.transpose(-2, -1) * 0.25
    weights = scores.softmax(dim=-1)
    return weights @ v


torch.manual_seed(0)
k, v = torch.randn(2, 1, 2, 3, 4).unbind(0)
loss = lambda q: attend(q, k, v).pow(2).sum()
print(round(vmap(grad(loss))(torch.randn(3, 1, 2, 3, 4)).sum().item(), 3))

# %% round 15: attention whose score variable is deleted after the output [none]
import math

import torch


def attend(q, k, v):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    weights = scores.softmax(dim=-1)
    out = weights @ v
    del scores, weights
    return out


torch.manual_seed(0)
q, k, v = torch.randn(3, 2, 2, 4, 8).unbind(0)
for step in range(2):
    print(round(attend(q, k, v).sum().item(), 4))

# %% round 15: attention in a file that imports torch as th only [unsafe]
import math

import torch as th


def attend(q, k, v):
    scores = th.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.size(-1))
    weights = th.softmax(scores, dim=-1)
    return th.matmul(weights, v)


th.manual_seed(0)
q, k, v = th.randn(3, 2, 2, 4, 8).unbind(0)
for step in range(2):
    print(round(attend(q, k, v).sum().item(), 4))

# %% round 15: attention in a file that imports only nn and functions from torch [unsafe]
import math
from torch import nn, randn, manual_seed


class Attn(nn.Module):
    def forward(self, q, k, v):
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        weights = scores.softmax(dim=-1)
        return weights @ v


manual_seed(0)
q, k, v = randn(3, 2, 2, 4, 8).unbind(0)
for step in range(2):
    print(round(Attn()(q, k, v).sum().item(), 4))

# %% round 15: softmax over dim 1 of 3-D scores, not the key axis [none]
import torch


def attend(q, k, v):
    scores = q @ k.transpose(-2, -1)
    weights = torch.softmax(scores, dim=1)
    return weights @ v


torch.manual_seed(0)
q, k, v = torch.randn(3, 2, 4, 8).unbind(0)
print(round(attend(q, k, v).sum().item(), 4))

# %% round 15: a key bank of learned 2-D keys shared by the batch [unsafe]
import torch
import torch.nn as nn


class Memory(nn.Module):
    def __init__(self):
        super().__init__()
        self.keys = nn.Parameter(torch.randn(5, 8))
        self.values = nn.Parameter(torch.randn(5, 8))

    def forward(self, q):
        k, v = self.keys, self.values
        scores = q @ k.transpose(-2, -1) / 8 ** 0.5
        weights = scores.softmax(dim=-1)
        return weights @ v


torch.manual_seed(0)
mem = Memory()
for step in range(2):
    print(round(mem(torch.randn(2, 4, 3, 8)).sum().item(), 4))

# %% round 15: attention with a NumPy float32 scale in a training step [unsafe]
import numpy as np
import torch


def attend(q, k, v):
    scale = np.float32(q.shape[-1]) ** -0.5
    scores = q @ k.transpose(-2, -1) * scale
    weights = scores.softmax(dim=-1)
    return weights @ v


torch.manual_seed(0)
q = torch.randn(2, 2, 4, 8, requires_grad=True)
k, v = torch.randn(2, 2, 2, 4, 8).unbind(0)
for step in range(2):
    attend(q, k, v).pow(2).sum().backward()
print(round(q.grad.sum().item(), 3))

# %% round 15: attention vmapped over a batch with torch.func.vmap [unsafe]
import torch


def attend(q, k, v):
    scores = q @ k.transpose(-2, -1) / 2.0
    weights = scores.softmax(dim=-1)
    return weights @ v


torch.manual_seed(0)
q, k, v = torch.randn(3, 2, 4, 4).unbind(0)
print(round(torch.func.vmap(attend)(q, k, v).sum().item(), 4))

# %% round 15: multi-query attention with one key head broadcast over the query heads [none]
import torch


def attend(q, k, v):
    scores = torch.matmul(q, k.transpose(-1, -2)) * q.shape[-1] ** -0.5
    weights = torch.nn.functional.softmax(scores, dim=-1)
    return torch.matmul(weights, v)


torch.manual_seed(0)
q = torch.randn(2, 4, 3, 8)
k, v = torch.randn(2, 2, 1, 3, 8).unbind(0)
print(round(attend(q, k, v).sum().item(), 4))

# %% round 15: a hessian of the attention through torch.autograd.functional.hessian [none]
import torch


def attend(q, k, v):
    scores = q @ k.transpose(-2, -1) * 0.5
    weights = scores.softmax(dim=-1)
    return weights @ v


torch.manual_seed(0)
k, v = torch.randn(2, 2, 3).unbind(0)
h = torch.autograd.functional.hessian(lambda q: attend(q, k, v).sum(), torch.randn(2, 3))
print(round(h.sum().item(), 3))

# %% round 15: attention whose keys are transposed with mT [none]
import torch


def attend(q, k, v):
    scores = q @ k.mT * 0.25
    weights = scores.softmax(-1)
    return weights @ v


torch.manual_seed(0)
q, k, v = torch.randn(3, 2, 2, 4, 16).unbind(0)
print(round(attend(q, k, v).sum().item(), 4))

# %% round 16: multi-query attention, one key head shared by every query head, trained [unsafe, same]
import math

import torch
import torch.nn as nn


class MultiQuery(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.hd = heads, dim // heads
        self.q = nn.Linear(dim, dim)
        self.kv = nn.Linear(dim, 2 * self.hd)

    def forward(self, x):
        B, T, C = x.shape
        q = self.q(x).view(B, T, self.heads, self.hd).transpose(1, 2)
        k, v = self.kv(x).unsqueeze(1).split(self.hd, dim=-1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.hd)
        weights = scores.softmax(dim=-1)
        out = weights @ v
        return out.transpose(1, 2).reshape(B, T, C)


torch.manual_seed(0)
model = MultiQuery(8, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 5, 8)
for step in range(3):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 16: a learned relative position bias added to the scores, trained [unsafe, same]
import math

import torch
import torch.nn as nn


class WindowAttention(nn.Module):
    def __init__(self, dim, heads, window):
        super().__init__()
        self.heads, self.hd = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.bias = nn.Parameter(torch.randn(heads, window, window) * 0.1)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.heads, self.hd).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.hd)
        scores = scores + self.bias
        weights = scores.softmax(dim=-1)
        out = weights @ v
        return out.transpose(1, 2).reshape(B, T, C)


torch.manual_seed(0)
model = WindowAttention(8, 2, 4)
opt = torch.optim.SGD(model.parameters(), lr=0.5)
x = torch.randn(2, 4, 8)
for step in range(3):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 3))
print(round(model.bias.abs().sum().item(), 3))

# %% round 16: memory slots shared by the batch as keys, a 2-D parameter [unsafe, same]
import math

import torch
import torch.nn as nn


class MemoryRead(nn.Module):
    def __init__(self, dim, slots):
        super().__init__()
        self.keys = nn.Parameter(torch.randn(slots, dim))
        self.values = nn.Parameter(torch.randn(slots, dim))
        self.q = nn.Linear(dim, dim)

    def forward(self, x):
        q = self.q(x)
        k, v = self.keys, self.values
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        weights = torch.softmax(scores, dim=-1)
        return weights @ v


torch.manual_seed(0)
model = MemoryRead(8, 6)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(3, 5, 8)
for step in range(3):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 3))

# %% round 16: a temperature handed in by the caller as a learned parameter [unsafe, same]
import torch
import torch.nn as nn


def attend(q, k, v, temperature):
    scores = q @ k.transpose(-2, -1) / temperature
    weights = scores.softmax(dim=-1)
    return weights @ v


torch.manual_seed(0)
proj = nn.Linear(8, 24)
tau = nn.Parameter(torch.tensor(2.0))
opt = torch.optim.SGD([*proj.parameters(), tau], lr=0.1)
x = torch.randn(2, 5, 8)
for step in range(3):
    q, k, v = proj(x).chunk(3, dim=-1)
    loss = attend(q, k, v, tau).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 3))
print(round(tau.item(), 3))

# %% round 16: a key-padding mask of shape (B, 1, 1, T) filled with -inf, evaluated [unsafe, same]
import math

import torch


def attention(q, k, v, pad):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    scores = scores.masked_fill(pad, float("-inf"))
    weights = scores.softmax(dim=-1)
    return weights @ v


torch.manual_seed(0)
q, k, v = torch.randn(3, 2, 2, 5, 4).unbind(0)
lengths = torch.tensor([5, 3])
pad = (torch.arange(5)[None, :] >= lengths[:, None])[:, None, None, :]
for step in range(2):
    out = attention(q, k, v, pad)
    print(round(out.sum().item(), 3))

# %% round 16: attention over values of another width than the keys [unsafe, same]
import math

import torch
import torch.nn as nn

torch.manual_seed(0)
wq, wk, wv = nn.Linear(8, 4), nn.Linear(8, 4), nn.Linear(8, 6)
params = [*wq.parameters(), *wk.parameters(), *wv.parameters()]
opt = torch.optim.SGD(params, lr=0.1)
x = torch.randn(2, 5, 8)
for step in range(3):
    q, k, v = wq(x), wk(x), wv(x)
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(4)
    weights = torch.softmax(scores, dim=-1)
    out = torch.matmul(weights, v)
    loss = out.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 3))

# %% round 16: an additive mask given as a float64 buffer, queries in float32 [unsafe, same]
import math

import torch
import torch.nn as nn


class Causal(nn.Module):
    def __init__(self, dim, T):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.register_buffer("mask", torch.triu(torch.full((T, T), float("-inf"), dtype=torch.float64), 1))

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        scores = scores + self.mask.float()
        weights = scores.softmax(-1)
        return weights @ v


torch.manual_seed(0)
model = Causal(8, 5)
x = torch.randn(2, 5, 8)
for step in range(2):
    print(round(model(x).sum().item(), 3))

# %% round 16: scores scaled by the reciprocal of a learned logit scale [unsafe, same]
import torch
import torch.nn as nn


class Pool(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, 3 * dim)
        self.log_t = nn.Parameter(torch.zeros(()))

    def forward(self, x):
        q, k, v = self.proj(x).chunk(3, dim=-1)
        scale = self.log_t.exp()
        scores = (q @ k.transpose(-2, -1)) * scale
        attn = scores.softmax(-1)
        return attn @ v


torch.manual_seed(0)
model = Pool(8)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 5, 8)
for step in range(3):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 3))
print(round(model.log_t.item(), 3))

# %% round 17: a padding mask compared with less-than, filled with -inf [unsafe]
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.hd = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x, mask=None):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.heads, self.hd).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.hd)
        scores = scores.masked_fill(mask < 0.5, float("-inf"))
        weights = scores.softmax(dim=-1)
        out = weights @ v
        return out.transpose(1, 2).reshape(B, T, C)


torch.manual_seed(0)
model = Attention(8, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 5, 8)
mask = torch.tensor([1.0, 1.0, 1.0, 0.0, 0.0]).view(1, 1, 1, 5)
for step in range(3):
    loss = model(x, mask).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: a padding mask negated with a tilde, filled with -inf [unsafe]
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.hd = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x, mask=None):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.heads, self.hd).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.hd)
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = scores.softmax(dim=-1)
        out = weights @ v
        return out.transpose(1, 2).reshape(B, T, C)


torch.manual_seed(0)
model = Attention(8, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 5, 8)
mask = torch.tensor([True, True, True, True, False]).view(1, 1, 1, 5)
for step in range(3):
    loss = model(x, mask).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: a padding mask filled in place with masked_fill_ [none]
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.hd = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x, mask=None):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.heads, self.hd).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.hd)
        scores.masked_fill_(mask == 0, float("-inf"))
        weights = scores.softmax(dim=-1)
        out = weights @ v
        return out.transpose(1, 2).reshape(B, T, C)


torch.manual_seed(0)
model = Attention(8, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 5, 8)
mask = torch.tensor([1, 1, 1, 0, 1]).view(1, 1, 1, 5)
for step in range(3):
    loss = model(x, mask).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: a mask tested with eq(0), filled with -inf [unsafe]
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.hd = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x, mask=None):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.heads, self.hd).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.hd)
        scores = scores.masked_fill(mask.eq(0), float("-inf"))
        weights = scores.softmax(dim=-1)
        out = weights @ v
        return out.transpose(1, 2).reshape(B, T, C)


torch.manual_seed(0)
model = Attention(8, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 5, 8)
mask = torch.tensor([1, 1, 0, 1, 1]).view(1, 1, 1, 5)
for step in range(3):
    loss = model(x, mask).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: a mask filled with -math.inf [unsafe]
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.hd = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x, mask=None):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.heads, self.hd).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.hd)
        scores = scores.masked_fill(mask == 0, -math.inf)
        weights = scores.softmax(dim=-1)
        out = weights @ v
        return out.transpose(1, 2).reshape(B, T, C)


torch.manual_seed(0)
model = Attention(8, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 5, 8)
mask = torch.tensor([1, 1, 0, 1, 1]).view(1, 1, 1, 5)
for step in range(3):
    loss = model(x, mask).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: a scale taken as a NumPy float32 from the head size [unsafe]
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.hd = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.scale = np.float32(self.hd) ** -0.5

    def forward(self, x, mask=None):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.heads, self.hd).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) * self.scale
        weights = scores.softmax(dim=-1)
        out = weights @ v
        return out.transpose(1, 2).reshape(B, T, C)


torch.manual_seed(0)
model = Attention(8, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 5, 8)

for step in range(3):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: a scale computed by np.sqrt of the head size [unsafe]
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.hd = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x, mask=None):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.heads, self.hd).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) / np.sqrt(self.hd)
        weights = scores.softmax(dim=-1)
        out = weights @ v
        return out.transpose(1, 2).reshape(B, T, C)


torch.manual_seed(0)
model = Attention(8, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 5, 8)

for step in range(3):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: a softmax through an nn.Softmax module over the last dimension [none]
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.hd = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.softmax = nn.Softmax(dim=-1)

    def forward(self, x, mask=None):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.heads, self.hd).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.hd)
        weights = self.softmax(scores)
        out = weights @ v
        return out.transpose(1, 2).reshape(B, T, C)


torch.manual_seed(0)
model = Attention(8, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 5, 8)

for step in range(3):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: a softmax over dim 3 of four-dimensional scores [none]
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.hd = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x, mask=None):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.heads, self.hd).permute(2, 0, 3, 1, 4)
        scores = torch.matmul(q, k.transpose(2, 3).contiguous().transpose(2, 3).transpose(-1, -2)) / math.sqrt(self.hd)
        weights = F.softmax(scores, dim=3)
        out = torch.matmul(weights, v)
        return out.transpose(1, 2).reshape(B, T, C)


torch.manual_seed(0)
model = Attention(8, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 5, 8)

for step in range(3):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: a softmax with an explicit float32 dtype on float32 queries [none]
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.hd = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x, mask=None):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.heads, self.hd).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.hd)
        weights = torch.softmax(scores, dim=-1, dtype=torch.float32)
        out = weights @ v
        return out.transpose(1, 2).reshape(B, T, C)


torch.manual_seed(0)
model = Attention(8, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 5, 8)

for step in range(3):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: keys transposed by mT [unsafe]
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.hd = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x, mask=None):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.heads, self.hd).permute(2, 0, 3, 1, 4)
        scores = (q @ k.mT) / math.sqrt(self.hd)
        weights = scores.softmax(-1)
        out = weights @ v
        return out.transpose(1, 2).reshape(B, T, C)


torch.manual_seed(0)
model = Attention(8, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 5, 8)

for step in range(3):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: a scale given by an integer head size to a power [unsafe]
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.hd = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x, mask=None):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.heads, self.hd).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) * self.hd ** -0.5
        weights = scores.softmax(dim=-1)
        out = weights @ v
        return out.transpose(1, 2).reshape(B, T, C)


torch.manual_seed(0)
model = Attention(8, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 5, 8)

for step in range(3):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: scores divided by a temperature attribute that is an int [unsafe]
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.hd = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.temperature = 4

    def forward(self, x, mask=None):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.heads, self.hd).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) / self.temperature
        weights = scores.softmax(dim=-1)
        out = weights @ v
        return out.transpose(1, 2).reshape(B, T, C)


torch.manual_seed(0)
model = Attention(8, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 5, 8)

for step in range(3):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: a causal mask from triu of ones as bool, filled with -inf [unsafe]
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.hd = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x, mask=None):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.heads, self.hd).permute(2, 0, 3, 1, 4)
        causal = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.hd)
        scores = scores.masked_fill(causal, float("-inf"))
        weights = scores.softmax(dim=-1)
        out = weights @ v
        return out.transpose(1, 2).reshape(B, T, C)


torch.manual_seed(0)
model = Attention(8, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 5, 8)

for step in range(3):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 17: a log-softmax exponentiated into weights [none]
import math

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads, self.hd = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)

    def forward(self, x, mask=None):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.heads, self.hd).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.hd)
        weights = scores.log_softmax(dim=-1).exp()
        out = weights @ v
        return out.transpose(1, 2).reshape(B, T, C)


torch.manual_seed(0)
model = Attention(8, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 5, 8)

for step in range(3):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(round(loss.item(), 4))

# %% round 18: attention scores normalised over the query axis with softmax dim 1 [none]
import math

import torch
import torch.nn.functional as F


class Attention(torch.nn.Module):
    def forward(self, q, k, v):
        scores = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(q.size(-1))
        weights = F.softmax(scores, dim=1)
        return torch.bmm(weights, v)


torch.manual_seed(0)
q, k, v = torch.randn(3, 2, 4, 5).unbind(0)
show(Attention()(q, k, v).round(decimals=3))

# %% round 18: attention with softmax through an nn.Softmax module attribute [none]
import math

import torch


class Attention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.softmax = torch.nn.Softmax(dim=-1)

    def forward(self, q, k, v):
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        return self.softmax(scores) @ v


torch.manual_seed(0)
q, k, v = torch.randn(3, 2, 2, 4, 5).unbind(0)
show(Attention()(q, k, v).round(decimals=3))

# %% round 18: attention with the method softmax over dim 2 of 4-D scores [none]
import math

import torch


class Attention(torch.nn.Module):
    def forward(self, q, k, v):
        scores = q @ k.transpose(-2, -1) * (1.0 / math.sqrt(q.shape[-1]))
        attn = scores.softmax(dim=2)
        return attn @ v


torch.manual_seed(0)
q, k, v = torch.randn(3, 2, 2, 4, 5).unbind(0)
show(Attention()(q, k, v).round(decimals=3))

# %% round 18: attention in float64 with a causal masked_fill from a tril buffer [unsafe, same]
import math

import torch
import torch.nn.functional as F


class Causal(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("tril", torch.tril(torch.ones(n, n)))

    def forward(self, q, k, v):
        T = q.size(-2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.tril[:T, :T] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        return att @ v


torch.manual_seed(0)
q, k, v = torch.randn(3, 1, 2, 4, 3, dtype=torch.float64).unbind(0)
show(Causal(4)(q, k, v).round(decimals=6))

# %% round 18: attention whose softmax is taken in a helper of the module [none]
import math

import torch
import torch.nn.functional as F


class Attention(torch.nn.Module):
    def normalise(self, s):
        return F.softmax(s, dim=-1)

    def forward(self, q, k, v):
        s = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.size(-1))
        return torch.matmul(self.normalise(s), v)


torch.manual_seed(0)
q, k, v = torch.randn(3, 2, 4, 5).unbind(0)
show(Attention()(q, k, v).round(decimals=3))

# %% round 18: attention over 3-D tensors with the softmax dim given by position [none]
import torch
import torch.nn.functional as F


class Attention(torch.nn.Module):
    def forward(self, q, k, v):
        w = F.softmax(torch.bmm(q, k.transpose(1, 2)) / 2.0, 1)
        return torch.bmm(w, v)


torch.manual_seed(0)
q, k, v = torch.randn(3, 2, 4, 4).unbind(0)
show(Attention()(q, k, v).round(decimals=3))

# %% round 18: attention whose scores are divided by a temperature read from a config dict [unsafe, same]
import math

import torch
import torch.nn.functional as F

CONFIG = {"temperature": 0.5}


class Attention(torch.nn.Module):
    def forward(self, q, k, v):
        scores = q @ k.transpose(-2, -1) / (math.sqrt(q.size(-1)) * CONFIG["temperature"])
        return F.softmax(scores, dim=-1) @ v


torch.manual_seed(0)
q, k, v = torch.randn(3, 2, 2, 4, 5).unbind(0)
show(Attention()(q, k, v).round(decimals=3))

# %% round 19: attention scaled by a NumPy float32 inverse square root of the head size [unsafe, same]
import numpy as np
import torch
import torch.nn.functional as F


class Attention(torch.nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.scale = np.float32(dim) ** -0.5

    def forward(self, q, k, v):
        scores = q @ k.transpose(-2, -1) * self.scale
        attn = F.softmax(scores, dim=-1)
        return attn @ v


torch.manual_seed(0)
q, k, v = torch.randn(3, 2, 2, 4, 8).unbind(0)
for step in range(2):
    show(Attention(8)(q, k, v).round(decimals=3))

# %% round 19: attention with a padding mask filled with the dtype's minimum, one query fully padded [none]
import torch
import torch.nn.functional as F


class Attention(torch.nn.Module):
    def forward(self, q, k, v, mask):
        scores = q @ k.transpose(-2, -1) / 8 ** 0.5
        scores = scores.masked_fill(mask == 0, torch.finfo(scores.dtype).min)
        attn = F.softmax(scores, dim=-1)
        return attn @ v


torch.manual_seed(0)
q, k, v = torch.randn(3, 1, 1, 3, 8).unbind(0)
mask = torch.tensor([[1, 1, 0], [1, 0, 0], [0, 0, 0]])
for step in range(2):
    show(Attention()(q, k, v, mask).round(decimals=3))

# %% round 19: attention with a mask added in place by augmented assignment [unsafe, same]
import torch
import torch.nn.functional as F


class Attention(torch.nn.Module):
    def forward(self, q, k, v, bias):
        scores = torch.matmul(q, k.transpose(-2, -1)) * 0.25
        scores += bias
        attn = scores.softmax(dim=-1)
        return torch.matmul(attn, v)


torch.manual_seed(0)
q, k, v = torch.randn(3, 2, 2, 3, 16).unbind(0)
bias = torch.randn(3, 3)
for step in range(2):
    show(Attention()(q, k, v, bias).round(decimals=3))

# %% round 19: attention masked in place with masked_fill_ and minus math.inf [none]
import math
import torch
import torch.nn.functional as F


class Attention(torch.nn.Module):
    def forward(self, q, k, v, pad):
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        scores.masked_fill_(pad, -math.inf)
        attn = F.softmax(scores, dim=-1)
        return attn @ v


torch.manual_seed(0)
q, k, v = torch.randn(3, 2, 2, 3, 4).unbind(0)
pad = torch.tensor([False, False, True])
for step in range(2):
    show(Attention()(q, k, v, pad).round(decimals=3))

# %% round 19: attention over unbatched 2-D queries of one sequence [unsafe, same]
import math
import torch
import torch.nn.functional as F


class Pool(torch.nn.Module):
    def forward(self, q, k, v):
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        attn = F.softmax(scores, dim=-1)
        return attn @ v


torch.manual_seed(0)
q, k, v = torch.randn(3, 5, 4).unbind(0)
for step in range(2):
    show(Pool()(q, k, v).round(decimals=3))

# %% round 19: attention whose values have another width than the keys [unsafe, same]
import math
import torch
import torch.nn.functional as F


class Attention(torch.nn.Module):
    def forward(self, q, k, v):
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
        attn = F.softmax(scores, dim=-1)
        return attn @ v


torch.manual_seed(0)
q, k = torch.randn(2, 2, 3, 4).unbind(0)
v = torch.randn(2, 3, 6)
for step in range(2):
    show(Attention()(q, k, v).round(decimals=3))

# %% round 19: attention scaled by a head size read from a NumPy shape product [none]
import numpy as np
import torch
import torch.nn.functional as F


class Attention(torch.nn.Module):
    def __init__(self, shape):
        super().__init__()
        self.scale = 1.0 / np.sqrt(np.prod(shape))

    def forward(self, q, k, v):
        scores = torch.einsum("bhqd,bhkd->bhqk", q, k) * self.scale
        attn = scores.softmax(-1)
        return attn @ v


torch.manual_seed(0)
q, k, v = torch.randn(3, 1, 2, 3, 4).unbind(0)
for step in range(2):
    show(Attention((2, 2))(q, k, v).round(decimals=3))

# %% round 24: scores multiplied by a learned temperature per memory slot, a vector over the keys [none]
import torch
from torch import nn


class SlotAttention(nn.Module):
    def __init__(self, slots, dim):
        super().__init__()
        self.keys = nn.Parameter(torch.randn(slots, dim))
        self.values = nn.Parameter(torch.randn(slots, dim))
        self.slot_temp = nn.Parameter(torch.linspace(0.5, 1.5, slots))

    def forward(self, q):
        scores = (q @ self.keys.transpose(-2, -1)) * self.slot_temp
        attn = scores.softmax(dim=-1)
        return attn @ self.values


torch.manual_seed(0)
model = SlotAttention(6, 4)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(2, 5, 4)
for step in range(2):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(round(loss.item(), 4))

# %% round 24: scores multiplied by a distance-decay matrix buffer over queries and keys [none]
import torch
from torch import nn


class DecayAttention(nn.Module):
    def __init__(self, n):
        super().__init__()
        pos = torch.arange(n, dtype=torch.float32)
        self.register_buffer("decay", 0.9 ** (pos[:, None] - pos[None, :]).abs())

    def forward(self, q, k, v):
        scores = torch.matmul(q, k.transpose(-2, -1)) * self.decay
        weights = torch.softmax(scores, dim=-1)
        return torch.matmul(weights, v)


torch.manual_seed(0)
model = DecayAttention(4)
proj = nn.Linear(4, 12)
opt = torch.optim.SGD(proj.parameters(), lr=0.1)
x = torch.randn(2, 4, 4)
for step in range(2):
    q, k, v = proj(x).chunk(3, dim=-1)
    loss = model(q, k, v).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(round(loss.item(), 4))

# %% round 24: scores multiplied by a per-head temperature of shape (heads, 1, 1) [unsafe]
import torch
from torch import nn


class HeadTempAttention(nn.Module):
    def __init__(self, heads):
        super().__init__()
        self.temperature = nn.Parameter(torch.ones(heads, 1, 1))

    def forward(self, q, k, v):
        scores = (q @ k.transpose(-2, -1)) * self.temperature
        scores = scores.softmax(dim=-1)
        return scores @ v


torch.manual_seed(0)
model = HeadTempAttention(2)
proj = nn.Linear(4, 12)
opt = torch.optim.SGD(list(proj.parameters()) + list(model.parameters()), lr=0.1)
x = torch.randn(3, 2, 5, 4)
for step in range(2):
    q, k, v = proj(x).chunk(3, dim=-1)
    loss = model(q, k, v).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(round(loss.item(), 4))

# %% round 24: queries of four dimensions attending to learned memory keys of three [unsafe]
import math
import torch
from torch import nn


class MemoryAttention(nn.Module):
    def __init__(self, heads, slots, dim):
        super().__init__()
        self.mem_k = nn.Parameter(torch.randn(heads, slots, dim))
        self.mem_v = nn.Parameter(torch.randn(heads, slots, dim))
        self.scale = 1 / math.sqrt(dim)

    def forward(self, q):
        scores = q @ self.mem_k.transpose(-2, -1) * self.scale
        attn = torch.softmax(scores, dim=-1)
        return attn @ self.mem_v


torch.manual_seed(0)
model = MemoryAttention(2, 3, 4)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(5, 2, 6, 4)
for step in range(2):
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(round(loss.item(), 4))

# %% round 24: batched attention with torch.bmm and transpose(1, 2) of three-dimensional keys [none]
import torch
from torch import nn


class BmmAttention(nn.Module):
    def forward(self, q, k, v):
        scores = torch.bmm(q, k.transpose(1, 2)) / q.size(-1) ** 0.5
        attn = torch.softmax(scores, dim=-1)
        return torch.bmm(attn, v)


torch.manual_seed(0)
model = BmmAttention()
proj = nn.Linear(4, 12)
opt = torch.optim.SGD(proj.parameters(), lr=0.1)
x = torch.randn(3, 5, 4)
for step in range(2):
    q, k, v = proj(x).chunk(3, dim=-1)
    loss = model(q, k, v).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(round(loss.item(), 4))

# %% round 24: scores divided by an integer tensor buffer holding sqrt(d) [unsafe]
import torch
from torch import nn


class IntScaleAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.register_buffer("root", torch.tensor(int(dim ** 0.5)))

    def forward(self, q, k, v):
        scores = q @ k.transpose(-2, -1) / self.root
        return scores.softmax(-1) @ v


torch.manual_seed(0)
model = IntScaleAttention(4)
proj = nn.Linear(4, 12)
opt = torch.optim.SGD(proj.parameters(), lr=0.1)
x = torch.randn(3, 5, 4)
for step in range(2):
    q, k, v = proj(x).chunk(3, dim=-1)
    loss = model(q, k, v).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(round(loss.item(), 4))

# %% round 24: a per-sample temperature of shape (batch, 1, 1) passed in by the caller [unsafe]
import torch
from torch import nn


def attend(q, k, v, temp):
    scores = q @ k.transpose(-2, -1) * temp
    return scores.softmax(dim=-1) @ v


torch.manual_seed(0)
proj = nn.Linear(4, 12)
opt = torch.optim.SGD(proj.parameters(), lr=0.1)
x = torch.randn(3, 5, 4)
temp = torch.tensor([0.5, 1.0, 2.0]).view(3, 1, 1)
for step in range(2):
    q, k, v = proj(x).chunk(3, dim=-1)
    loss = attend(q, k, v, temp).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(round(loss.item(), 4))

# %% round 24: an additive mask over keys only, of shape (batch, 1, keys), in a match on the mode [none]
import torch
from torch import nn


def attend(q, k, v, pad, mode):
    scores = q @ k.transpose(-2, -1) / 2.0
    match mode:
        case "padded":
            scores = scores + pad
        case _:
            pass
    return scores.softmax(dim=-1) @ v


torch.manual_seed(0)
proj = nn.Linear(4, 12)
opt = torch.optim.SGD(proj.parameters(), lr=0.1)
x = torch.randn(3, 5, 4)
pad = torch.zeros(3, 1, 5)
pad[:, :, -1] = -1e4
for step in range(2):
    q, k, v = proj(x).chunk(3, dim=-1)
    loss = attend(q, k, v, pad, "padded").pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(round(loss.item(), 4))

# %% round 24: scores scaled by a per-key vector whose length equals the head size [none]
import torch
from torch import nn


class KeyGate(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.gate = nn.Parameter(torch.linspace(0.1, 2.0, n))

    def forward(self, q, k, v):
        scores = q @ k.transpose(-2, -1) * self.gate
        return torch.softmax(scores, dim=-1) @ v


torch.manual_seed(0)
model = KeyGate(4)
proj = nn.Linear(4, 12)
opt = torch.optim.SGD(list(proj.parameters()) + list(model.parameters()), lr=0.1)
x = torch.randn(3, 4, 4)
for step in range(2):
    q, k, v = proj(x).chunk(3, dim=-1)
    loss = model(q, k, v).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(round(loss.item(), 4))

# %% round 24: scores divided by a per-key temperature vector the module learns [none]
import torch
from torch import nn


class KeyTemperature(nn.Module):
    def __init__(self, keys):
        super().__init__()
        self.temp = nn.Parameter(torch.linspace(1.0, 2.0, keys))

    def forward(self, q, k, v):
        scores = torch.matmul(q, k.transpose(-2, -1)) / self.temp
        return torch.softmax(scores, dim=-1) @ v


torch.manual_seed(0)
model = KeyTemperature(5)
proj = nn.Linear(4, 12)
opt = torch.optim.SGD(list(proj.parameters()) + list(model.parameters()), lr=0.1)
x = torch.randn(3, 5, 4)
for step in range(2):
    q, k, v = proj(x).chunk(3, dim=-1)
    loss = model(q, k, v).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    show(round(loss.item(), 4))
