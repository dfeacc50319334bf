

# %% the move target is rebound to a dtype later in the loop [none]
import torch

device = torch.device("cpu")
for step in range(2):
    show(torch.arange(3).to(device))
    device = torch.float64

# %% a device chosen at run time, in a training step function [safe]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(3, 1)

def train_step(x):
    noise_scale = torch.full((x.shape[0], 1), 0.5).to(device)
    loss = (model(x) * noise_scale).pow(2).mean()
    loss.backward()
    return loss.item()

for step in range(2):
    show(train_step(torch.ones(4, 3)))

# %% the device is a global rebound by a function between steps [none]
import torch

device = torch.device("cpu")

def switch():
    global device
    device = torch.float64

for step in range(2):
    show(torch.ones(2).to(device))
    switch()
