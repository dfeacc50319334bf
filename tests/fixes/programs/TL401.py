

# %% gradients read with operator.attrgetter [none]
import operator
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 3), nn.Linear(3, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
grad_of = operator.attrgetter("grad")
x = torch.randn(4, 3)
for step in range(3):
    opt.zero_grad(set_to_none=False)
    if step == 1:
        model[1](x).sum().backward()
    else:
        model(x).sum().backward()
    print([round(grad_of(p).abs().sum().item(), 4) for p in model.parameters()])
    opt.step()
