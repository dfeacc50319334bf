# %% control: a running loss summed with .item() [unsafe, same]
import torch

device = torch.device("cpu")
torch.manual_seed(0)
model = torch.nn.Linear(4, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(5)]
total = 0.0
for x, y in loader:
    loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
    opt.zero_grad()
    loss.backward()
    opt.step()
    total += loss.item()
print(repr(total))

# %% a bfloat16 loss [unsafe, same]
import torch

device = torch.device("cpu")
torch.manual_seed(0)
model = torch.nn.Linear(4, 1).to(device)
loader = [torch.randn(8, 4) for _ in range(6)]
total = 0.0
for x in loader:
    loss = model(x.to(device)).pow(2).mean().to(torch.bfloat16)
    total += loss.item()
print(repr(total))

# %% an int counter of comparisons [unsafe, same]
import torch

device = torch.device("cpu")
torch.manual_seed(0)
model = torch.nn.Linear(4, 3).to(device)
loader = [(torch.randn(8, 4), torch.randint(0, 3, (8,))) for _ in range(4)]
correct = 0
for x, y in loader:
    pred = model(x.to(device)).argmax(1)
    correct += (pred == y.to(device)).sum().item()
print(f"{correct:d}", correct)

# %% a uint8 counter [none]
import torch

device = torch.device("cpu")
loader = [torch.full((200,), 1, dtype=torch.uint8) for _ in range(3)]
count = 0
for flags in loader:
    count += flags.to(device).sum(dtype=torch.uint8).item()
print(count)

# %% an int start, then float values [unsafe, same]
import torch

device = torch.device("cpu")
torch.manual_seed(0)
loader = [torch.randn(4) for _ in range(3)]
total_loss = 0
for x in loader:
    batch_loss = x.to(device).pow(2).mean()
    total_loss += batch_loss.item()
print(repr(total_loss))

# %% values of unknown type with an int start [none]
import torch

device = torch.device("cpu")
loader = [torch.tensor(3), torch.tensor(2.5)]
total = 0
for x in loader:
    total += x.to(device).item()
print(total)

# %% a helper reads the accumulator in the loop [none]
import torch

device = torch.device("cpu")
loader = [torch.ones(2) for _ in range(3)]
total = 0.0

def report():
    print("running", total)

for x in loader:
    y = x.to(device).mean()
    total += y.item()
    report()
print(total)

# %% a lambda reads the accumulator in the loop [none]
import json
import torch

device = torch.device("cpu")
loader = [torch.ones(2) for _ in range(3)]
total = 0.0
dump = lambda: json.dumps({"total": total})
for x in loader:
    y = x.to(device).mean()
    total += y.item()
    print(dump())

# %% in a function, inside match [unsafe, same]
import torch

def run(loader, mode):
    device = torch.device("cpu")
    match mode:
        case "eval":
            total = 0.0
            for x in loader:
                y = x.to(device).mean()
                total += y.item()
            print(repr(total))
        case _:
            pass

run([torch.arange(3.0), torch.arange(4.0)], "eval")
