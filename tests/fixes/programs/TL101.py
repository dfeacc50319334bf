# %% control: a running loss summed with .item() [unsafe, same]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
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

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
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

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
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

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
loader = [torch.full((200,), 1, dtype=torch.uint8) for _ in range(3)]
count = 0
for flags in loader:
    count += flags.to(device).sum(dtype=torch.uint8).item()
print(count)

# %% an int start, then float values [unsafe, same]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
loader = [torch.randn(4) for _ in range(3)]
total_loss = 0
for x in loader:
    batch_loss = x.to(device).pow(2).mean()
    total_loss += batch_loss.item()
print(repr(total_loss))

# %% values of unknown type with an int start [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
loader = [torch.tensor(3), torch.tensor(2.5)]
total = 0
for x in loader:
    total += x.to(device).item()
print(total)

# %% a helper reads the accumulator in the loop [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
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

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
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
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
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

# %% round 9: the total formatted from locals() with percent formatting inside the loop [unsafe]
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
total = 0.0
for step in range(3):
    loss = model(torch.ones(1, 2).to(device)).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    total += loss.item()
    print("%(step)d %(total)s" % locals())

# %% round 9: the sum saved with json right after the loop in a finally-free epoch function [unsafe, same]
import json
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)

def epoch():
    epoch_loss = 0
    for step in range(3):
        loss = model(torch.ones(1, 2).to(device)).pow(2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
        epoch_loss += loss.item()
    return json.dumps({"loss": round(epoch_loss, 4)})

print(epoch())

# %% round 9: a loss summed in a loop that breaks on a NaN, printed after [unsafe, same]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
total = 0.0
for step in range(4):
    loss = model(torch.ones(1, 2).to(device)).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    if step == 2:
        break
    total += loss.item()
print(type(total).__name__, round(total, 6))

# %% round 9: a loss summed inside a with block of the loop body [unsafe, same]
import contextlib
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
epoch_loss = 0.0
for step in range(3):
    with contextlib.nullcontext():
        loss = model(torch.ones(1, 2).to(device)).pow(2).mean()
        opt.zero_grad(); loss.backward(); opt.step()
        epoch_loss += loss.item()
print(f"{epoch_loss:.6f}")

# %% round 9: a loss summed in a while loop over an iterator [unsafe, same]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
batches = iter([torch.ones(1, 2)] * 3)
running = 0.0
while (x := next(batches, None)) is not None:
    loss = model(x.to(device)).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
    running += loss.item()
print(repr(running))

# %% round 10: a loss summed in a loop under contextlib.suppress, the total dumped as JSON [none]
import contextlib
import json
import torch
from torch import nn

class EarlyStop(Exception):
    pass

def check(loss):
    if loss < 0.9:
        raise EarlyStop

torch.manual_seed(0)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 3), torch.randn(8, 1)
total = 0.0
with contextlib.suppress(EarlyStop):
    for step in range(6):
        loss = (model(x) - y).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
        check(loss.item())
print(json.dumps({"total": round(total, 6)}))

# %% round 10: the running loss read in the loop's else clause [none]
import json
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(6, 2), torch.randn(6, 1)
running = 0.0
for step in range(3):
    loss = (model(x) - y).abs().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    running += loss.item()
else:
    print("finished", isinstance(running, float))
print(json.dumps(round(running, 6)))

# %% round 10: the running loss read by eval of its name inside the loop [none]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(6, 2), torch.randn(6, 1)
running = 0.0
for step in range(3):
    loss = (model(x) - y).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    running += loss.item()
    print(type(eval("running")).__name__)
print(round(running, 6))

# %% round 10: a float16 loss summed, then the mean written with a walrus after the loop [none]
import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
x, y = torch.randn(5, 4), torch.randn(5, 1)
total = 0.0
for step in range(4):
    out = model(x)
    loss = (out - y).pow(2).mean().half()
    opt.zero_grad()
    loss.float().backward()
    opt.step()
    total += loss.item()
if (mean := total / 4) > 0:
    print(f"{mean!r} {type(total).__name__}")

# %% round 10: a correct-prediction count over an empty loader [none]
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
model = nn.Linear(3, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = TensorDataset(torch.randn(0, 3), torch.zeros(0, dtype=torch.long))
correct = 0
for x, y in DataLoader(data, batch_size=4):
    logits = model(x)
    loss = nn.functional.cross_entropy(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    correct += (logits.argmax(1) == y).sum().item()
print(correct, type(correct).__name__)

# %% round 11: control, a trainer method sums the epoch loss and returns its mean [unsafe, same]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Trainer:
    def __init__(self):
        self.model = torch.nn.Linear(2, 1).to(device)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def train_epoch(self, batches):
        total = 0.0
        for x, y in batches:
            loss = ((self.model(x.to(device)).squeeze(1) - y) ** 2).mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            total += loss.item()
        return total / len(batches)


batches = [(torch.ones(2, 2) * i, torch.ones(2)) for i in range(3)]
trainer = Trainer()
for epoch in range(2):
    show(epoch, trainer.train_epoch(batches))

# %% round 11: a global running loss that a module-level logger dumps as JSON every step [none]
import json

import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

running_loss = 0.0


def log_progress(step):
    print(json.dumps({"step": step, "running_loss": running_loss}))


def train_epoch(model, optimizer, batches):
    global running_loss
    running_loss = 0.0
    for step, (x, y) in enumerate(batches):
        loss = ((model(x.to(device)).squeeze(1) - y) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        log_progress(step)


model = torch.nn.Linear(2, 1).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
train_epoch(model, optimizer, [(torch.ones(2, 2) * i, torch.ones(2)) for i in range(3)])
show(running_loss)

# %% round 11: a nonlocal epoch total reported by a sibling closure after each step [none]
import json

import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def fit(model, optimizer, batches, epochs):
    total = 0.0

    def report(step):
        print(json.dumps({"step": step, "total": total}))

    def run_epoch():
        nonlocal total
        total = 0.0
        for step, (x, y) in enumerate(batches):
            loss = ((model(x.to(device)).squeeze(1) - y) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item()
            report(step)

    for _ in range(epochs):
        run_epoch()
    return total


model = torch.nn.Linear(2, 1).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
show(fit(model, optimizer, [(torch.ones(2, 2) * i, torch.ones(2)) for i in range(3)], 2))

# %% round 11: a global loss total left as a tensor when an early stop raises out of the epoch [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

epoch_loss = 0.0


class EarlyStop(Exception):
    pass


def train_epoch(model, optimizer, batches, limit):
    global epoch_loss
    epoch_loss = 0.0
    for x, y in batches:
        loss = ((model(x.to(device)).squeeze(1) - y) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item()
        check(limit)


def check(limit):
    if loss_too_high(limit):
        raise EarlyStop()


def loss_too_high(limit):
    return epoch_loss > limit


model = torch.nn.Linear(2, 1).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
try:
    train_epoch(model, optimizer, [(torch.ones(2, 2) * i, torch.ones(2)) for i in range(4)], 5.0)
except EarlyStop:
    print("stopped early", type(epoch_loss).__name__)
show(epoch_loss)

# %% round 11: a step method on an object built by a factory counts correct predictions [unsafe, same]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Classifier:
    def __init__(self):
        self.net = torch.nn.Linear(2, 3)
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)

    def fit_epoch(self, batches):
        correct = 0
        for x, y in batches:
            logits = self.net(x.to(device))
            loss = torch.nn.functional.cross_entropy(logits, y)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            correct += (logits.argmax(1) == y).sum().item()
        return correct


def build(kind):
    return {"linear": Classifier}[kind]()


learner = build("linear")
batches = [(torch.ones(4, 2) * i, torch.tensor([0, 1, 2, 0])) for i in range(3)]
for epoch in range(2):
    correct = learner.fit_epoch(batches)
    show(epoch, correct, type(correct).__name__)

# %% round 11: a step method's float16 losses summed and compared with a threshold after the loop [unsafe, same]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class HalfTrainer:
    def __init__(self):
        self.model = torch.nn.Linear(4, 1)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.01)

    def step_all(self, batches):
        loss_sum = 0.0
        for x in batches:
            loss = self.model(x.to(device)).pow(2).mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            loss_sum += loss.half().item()
        return loss_sum > 1.0, loss_sum


trainer = HalfTrainer()
show(trainer.step_all([torch.full((2, 4), 0.1 * i) for i in range(5)]))

# %% round 11: an epoch method whose running loss is formatted by an f-string in the loop's else clause [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def train_epoch(model, optimizer, batches):
    running = 0.0
    for x, y in batches:
        loss = ((model(x.to(device)).squeeze(1) - y) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running += loss.item()
    else:
        print(f"epoch done: {running!r}")
    return running


model = torch.nn.Linear(2, 1).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
show(train_epoch(model, optimizer, [(torch.ones(2, 2) * i, torch.ones(2)) for i in range(3)]))

# %% round 11: an accuracy computed in NumPy summed with item() in a step method [none]
import numpy as np
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Trainer:
    def __init__(self):
        self.model = torch.nn.Linear(2, 3).to(device)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def accuracy(self, logits, y):
        return (logits.argmax(1).cpu().numpy() == y.numpy()).mean()

    def train_epoch(self, batches):
        total_acc = 0.0
        for x, y in batches:
            logits = self.model(x.to(device))
            loss = torch.nn.functional.cross_entropy(logits, y.to(device))
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            acc = self.accuracy(logits, y)
            total_acc += acc.item()
        return total_acc / len(batches)


trainer = Trainer()
show(trainer.train_epoch([(torch.ones(4, 2) * i, torch.tensor([0, 1, 2, 0])) for i in range(3)]))

# %% round 11: a NumPy reward from the environment summed with item() in the update loop [none]
import numpy as np
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
policy = torch.nn.Linear(3, 2).to(device)
optimizer = torch.optim.Adam(policy.parameters(), lr=0.01)
rng = np.random.default_rng(0)
episode_return = 0.0
for step in range(4):
    state = torch.tensor(rng.normal(size=3), dtype=torch.float32).to(device)
    logits = policy(state)
    action = logits.argmax()
    reward = np.float32(rng.normal())
    loss = -logits[action] * float(reward)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    episode_return += reward.item()
show(episode_return)

# %% round 11: a step method trains until the summed loss passes a budget read in the while test [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Trainer:
    def __init__(self):
        self.model = torch.nn.Linear(2, 1).to(device)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def train_until(self, x, y, budget):
        spent = 0.0
        steps = 0
        while spent < budget:
            loss = ((self.model(x.to(device)).squeeze(1) - y.to(device)) ** 2).mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            spent += loss.item()
            steps += 1
        return steps, spent


show(Trainer().train_until(torch.ones(2, 2), torch.full((2,), 3.0), 5.0))

# %% round 11: a step method's loss total read by a default argument of a lambda made in the loop [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def train_epoch(model, optimizer, batches, hooks):
    total = 0.0
    for x, y in batches:
        loss = ((model(x.to(device)).squeeze(1) - y.to(device)) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
        hooks.append(lambda value=total: round(value, 4))
    return total


model = torch.nn.Linear(2, 1).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
hooks = []
show(train_epoch(model, optimizer, [(torch.ones(2, 2) * i, torch.ones(2)) for i in range(3)], hooks))
print([type(hook()).__name__ for hook in hooks])

# %% round 11: a step method sums losses and hands the running total to a scheduler-like callback after the loop [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Plateau:
    def __init__(self):
        self.seen = []

    def step(self, value):
        self.seen.append(value)


def train_epoch(model, optimizer, batches, plateau):
    total = 0.0
    for x, y in batches:
        loss = ((model(x.to(device)).squeeze(1) - y.to(device)) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
    plateau.step(total)
    return total


model = torch.nn.Linear(2, 1).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
plateau = Plateau()
for epoch in range(2):
    train_epoch(model, optimizer, [(torch.ones(2, 2) * i, torch.ones(2)) for i in range(3)], plateau)
show(plateau.seen, [type(v).__name__ for v in plateau.seen])

# %% round 12: a validation loop over an empty loader sums item() losses, then averages with max(1, n) [unsafe, same]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(2, 1).to(device)
val_batches = []
for epoch in range(2):
    total = 0.0
    for x in val_batches:
        loss = model(x.to(device)).pow(2).mean()
        total += loss.item()
    print("val", total / max(1, len(val_batches)))

# %% round 12: a Lightning-style training epoch accumulates into self.running_loss that a progress hook reads [none]
import torch


class Loop:
    def __init__(self, model):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)
        self.running_loss = 0.0

    def on_batch_end(self, step):
        print(step, round(float(self.running_loss), 4), type(self.running_loss).__name__)

    def run_epoch(self, batches):
        self.running_loss = 0.0
        for step, x in enumerate(batches):
            loss = self.model(x).pow(2).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            self.running_loss += loss.item()
            self.on_batch_end(step)


torch.manual_seed(0)
Loop(torch.nn.Linear(2, 1)).run_epoch([torch.ones(1, 2), torch.zeros(1, 2)])

# %% round 12: an epoch loss rounded to four places as it is summed [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
total = 0.0
for x in [torch.randn(2, 3) for _ in range(4)]:
    loss = model(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    total += round(loss.item(), 4)
print(total)

# %% round 12: a replay-buffer DQN loop sums the TD loss times the batch size [none]
import torch

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
q = torch.nn.Linear(4, 2).to(device)
opt = torch.optim.Adam(q.parameters(), lr=1e-3)
buffer = [(torch.randn(4), torch.randint(0, 2, ()).item(), float(i % 3)) for i in range(12)]
for epoch in range(2):
    seen, total = 0, 0.0
    for start in range(0, len(buffer), 4):
        chunk = buffer[start:start + 4]
        s = torch.stack([c[0] for c in chunk])
        a = torch.tensor([c[1] for c in chunk])
        r = torch.tensor([c[2] for c in chunk])
        loss = (q(s.to(device)).gather(1, a[:, None]).squeeze(1) - r).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item() * len(chunk)
        seen += len(chunk)
    print(epoch, total / seen)

# %% round 12: a generator of training steps yields after summing each loss [none]
import torch


def train(model, opt, batches):
    total = 0.0
    for x in batches:
        loss = model(x).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
        yield total


torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for running in train(model, opt, [torch.ones(1, 2)] * 3):
    print(running)

# %% round 12: an async training loop sums item() losses between awaits of a logger [none]
import asyncio
import torch


async def log(step):
    await asyncio.sleep(0)


async def train(model, opt, batches):
    total = 0.0
    for step, x in enumerate(batches):
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
        await log(step)
    return total


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
print(asyncio.run(train(model, torch.optim.SGD(model.parameters(), lr=0.1), [torch.ones(1, 2)] * 3)))

# %% round 12: correct predictions counted with a comparison's sum in a validation_step loop [unsafe, same]
import torch


class Lit:
    def __init__(self):
        torch.manual_seed(0)
        self.device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        self.net = torch.nn.Linear(4, 3).to(self.device)

    def validation_epoch(self, batches):
        correct = 0
        for x, y in batches:
            with torch.no_grad():
                pred = self.net(x.to(self.device)).argmax(1)
            correct += (pred == y).sum().item()
        print("correct", correct, type(correct).__name__)


Lit().validation_epoch([(torch.randn(5, 4), torch.arange(5) % 3) for _ in range(3)])

# %% round 13: an epoch loss summed from item() and printed by the loop's else clause [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [torch.randn(4, 3) for _ in range(3)]
for epoch in range(2):
    total = 0.0
    for x in data:
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    else:
        print("epoch total", total)

# %% round 13: the summed item() value also bound by a walrus that is printed each step [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
data = [torch.randn(4, 3) for _ in range(3)]
for epoch in range(2):
    total = 0.0
    for x in data:
        loss = model(x.to(device)).pow(2).mean()
        loss.backward()
        total += (last := loss.item())
        print("step", last)
    print(total)

# %% round 13: a global accumulator read by a logging function defined at module level [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
total = 0.0


def log():
    print("running", total)


def train(model, data):
    global total
    total = 0.0
    for x in data:
        loss = model(x.to(device)).pow(2).mean()
        loss.backward()
        total += loss.item()
        log()


torch.manual_seed(0)
for epoch in range(2):
    train(torch.nn.Linear(3, 1).to(device), [torch.randn(4, 3) for _ in range(3)])

# %% round 13: an enclosing function's accumulator read by a sibling closure through nonlocal [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


def fit(model, data):
    total = 0.0

    def report():
        print("so far", total)

    def epoch():
        nonlocal total
        for x in data:
            loss = model(x.to(device)).pow(2).mean()
            loss.backward()
            total += loss.item()
            report()

    epoch()
    return total


torch.manual_seed(0)
for e in range(2):
    show(fit(torch.nn.Linear(3, 1).to(device), [torch.randn(4, 3) for _ in range(2)]))

# %% round 13: a loss sum that breaks out of the loop on a NaN check of another tensor [unsafe, same]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
data = [torch.randn(4, 3) for _ in range(4)]
for epoch in range(2):
    total = 0.0
    for i, x in enumerate(data):
        if i == 3:
            break
        loss = model(x.to(device)).pow(2).mean()
        loss.backward()
        total += loss.item()
    print(f"{total:.8f}")

# %% round 13: a tab-indented loop sums a weighted item() with a line continuation [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
data = [torch.randn(4, 3) for _ in range(3)]
for epoch in range(2):
	total = 0.0
	for x in data:
		loss = model(x.to(device)).pow(2).mean()
		loss.backward()
		total += loss.item() \
			* x.size(0)
	print(total)

# %% round 13: an accumulator summed in a match case of the step loop [unsafe, same]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
data = [torch.randn(4, 3) for _ in range(3)]
for epoch in range(2):
    total = 0.0
    for i, x in enumerate(data):
        loss = model(x.to(device)).pow(2).mean()
        loss.backward()
        match i % 2:
            case 0:
                total += loss.item()
            case _:
                pass
    print(total)

# %% round 14: a loss sum read through globals() by a progress print inside the loop [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
total = 0.0
for step in range(3):
    loss = model(torch.randn(2, 3)).pow(2).mean()
    total += loss.item()
    print("running", type(globals()["total"]).__name__)
print(round(total, 6))

# %% round 14: a loss sum read through vars() inside the loop [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
total = 0.0
for step in range(3):
    loss = model(torch.randn(2, 3)).pow(2).mean()
    total += loss.item()
    print(isinstance(vars()["total"], float))
print(round(total, 6))

# %% round 14: an all() check counted with an int start [none]
import torch

torch.manual_seed(0)
hits = 0
for step in range(3):
    pred = torch.randn(4).gt(-5)
    hits += pred.all().item()
print(hits, type(hits).__name__)

# %% round 14: a loss sum inside a nested function of the training function, printed after [none]
import torch


def train():
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1)

    def epoch():
        total = 0.0
        for step in range(3):
            loss = model(torch.randn(2, 3)).pow(2).mean()
            total += loss.item()
        return total

    print(round(epoch(), 6))


train()

# %% round 14: a loss sum whose accumulator is reset by a lambda defined before the loop [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
total = 0.0
report = lambda: print(round(total, 6))
for step in range(3):
    loss = model(torch.randn(2, 3)).pow(2).mean()
    total += loss.item()
report()

# %% round 14: a loss sum in a decorated training function with an f-string summary [none]
import functools
import torch


def traced(fn):
    @functools.wraps(fn)
    def wrapper(*a):
        return fn(*a)
    return wrapper


@traced
def train(model):
    total = 0.0
    for step in range(3):
        loss = model(torch.randn(2, 3)).abs().mean()
        total += loss.item()
    print(f"{total:.6f} {type(total).__name__}")


torch.manual_seed(0)
train(torch.nn.Linear(3, 1))

# %% round 14: a loss sum in a tab-indented loop whose comment sits between the statements [none]
import torch

torch.manual_seed(0)
model = torch.nn.Linear(3, 1)
total = 0.0
for step in range(3):
	loss = model(torch.randn(2, 3)).pow(2).mean()
	# add the step's loss
	total += loss.item()
print(round(total, 6), type(total).__name__)

# %% round 15: a loss sum whose for-loop else clause dumps the sum to JSON [none]
import json

import torch

w = torch.ones(2, requires_grad=True)
total = 0.0
for step in range(3):
    loss = (w * step).sum()
    total += loss.item()
else:
    print(json.dumps({"total": total}))

# %% round 15: a loss sum whose while-loop else clause calls float.hex on it [none]
import torch

total = 0.0
step = 0
while step < 3:
    loss = torch.tensor(0.5) * step
    total += loss.item()
    step += 1
else:
    print(float.hex(total))

# %% round 15: a global loss sum read by a module-level reporter called inside the loop [none]
import torch

total = 0.0


def report():
    print(type(total).__name__)


def train():
    global total
    for step in range(3):
        loss = torch.tensor(0.25) * step
        total += loss.item()
        report()


train()
print(total)

# %% round 15: a loss sum in a loop of a method, printed with an f-string format spec after [none]
import torch


class Trainer:
    def fit(self):
        total = 0.0
        for step in range(3):
            loss = torch.tensor(0.125) * (step + 1)
            total += loss.item()
        print(f"{total:.4f}")


Trainer().fit()

# %% round 15: a loss sum whose value is checked with is_integer after the loop [none]
import torch

total = 0.0
for step in range(4):
    loss = torch.tensor(0.5)
    total += loss.item()
print(total.is_integer())

# %% round 15: a loss sum read through a class attribute bound to the same name [none]
import torch


def run():
    total = 0.0
    for step in range(3):
        loss = torch.tensor(1.5)
        total += loss.item()
        Stats.last = total
    return total


class Stats:
    last = None


run()
print(type(Stats.last).__name__)

# %% round 15: a loss sum read by a generator expression inside the loop [none]
import torch

total = 0.0
for step in range(3):
    loss = torch.tensor(0.5) * step
    total += loss.item()
    print(sum(x for x in [total]))

# %% round 15: a loss sum in a loop inside a match case, printed with round after [none]
import torch

mode = "train"
match mode:
    case "train":
        total = 0.0
        for step in range(3):
            loss = torch.tensor(0.5) * step
            total += loss.item()
        print(round(total, 3))

# %% round 15: a loss sum divided after the loop and printed with a format spec [none]
import torch

w = torch.ones(2, requires_grad=True)
total = 0.0
for step in range(4):
    loss = (w * step).sum()
    total += loss.item()
total /= 4
print(f"{total:.3f}")

# %% round 15: a correct count summed from a comparison with an int start, a rate after [none]
import torch

correct = 0
for step in range(3):
    pred = torch.tensor([1, 0, step % 2])
    y = torch.tensor([1, 1, 1])
    correct += (pred == y).sum().item()
print(correct / 9, type(correct).__name__)

# %% round 15: a loss sum shown by a progress object's set_postfix inside the loop [none]
import torch


class Bar:
    def set_postfix(self, **kw):
        print({k: type(v).__name__ for k, v in kw.items()})


bar = Bar()
total = 0.0
for step in range(2):
    loss = torch.tensor(0.5) * step
    total += loss.item()
    bar.set_postfix(loss=total)

# %% round 15: a loss sum on a device whose for-loop else clause dumps it to JSON [none]
import json

import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
data = [torch.randn(4, 3) for _ in range(3)]
for epoch in range(2):
    total = 0.0
    for x in data:
        loss = model(x.to(device)).pow(2).mean()
        loss.backward()
        total += loss.item()
    else:
        print(json.dumps({"total": round(total, 4)}))

# %% round 15: a loss sum on a device whose value is tested with is_integer after the loop [unsafe]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(3, 1).to(device)
data = [torch.ones(4, 3) for _ in range(3)]
for epoch in range(2):
    total = 0.0
    for x in data:
        loss = (model(x.to(device)) * 0).mean() + 0.5
        loss.backward()
        total += loss.item()
    print(total.is_integer())

# %% round 15: a global loss sum read by a module-level reporter called inside the step loop [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
data = [torch.randn(4, 3) for _ in range(3)]
total = 0.0


def report():
    print(type(total).__name__)


def train():
    global total
    for x in data:
        loss = model(x.to(device)).pow(2).mean()
        loss.backward()
        total += loss.item()
        report()


for epoch in range(2):
    train()

# %% round 15: a loss sum on a device stored on a class attribute inside the loop [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
data = [torch.randn(4, 3) for _ in range(3)]


class Stats:
    last = None


for epoch in range(2):
    total = 0.0
    for x in data:
        loss = model(x.to(device)).pow(2).mean()
        loss.backward()
        total += loss.item()
        Stats.last = total
    print(type(Stats.last).__name__)

# %% round 15: a loss sum on a device in a while loop whose else clause calls float.hex [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
data = [torch.randn(4, 3) for _ in range(3)]
for epoch in range(2):
    total = 0.0
    i = 0
    while i < len(data):
        loss = model(data[i].to(device)).pow(2).mean()
        loss.backward()
        total += loss.item()
        i += 1
    else:
        print(float.hex(total)[:6])

# %% round 15: a loss sum on a device read by a generator expression inside the loop [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
data = [torch.randn(4, 3) for _ in range(3)]
for epoch in range(2):
    total = 0.0
    for x in data:
        loss = model(x.to(device)).pow(2).mean()
        loss.backward()
        total += loss.item()
        print(type(max(v for v in [total])).__name__)

# %% round 16: a running loss summed inside a suppress block that early stopping leaves [none]
import contextlib

import torch


class EarlyStop(Exception):
    pass


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 3)
total = 0.0
with contextlib.suppress(EarlyStop):
    for step in range(6):
        loss = (model(x.to(device)) - 1).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
        if step == 3:
            raise EarlyStop()
print(round(total, 4))

# %% round 16: a running loss in a loop under a user context manager that swallows a stop [none]
import torch


class Guard:
    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        return kind is StopIteration


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
batches = iter([torch.randn(4, 3) for _ in range(3)])
total = 0.0
with Guard():
    for step in range(5):
        x = next(batches)
        loss = (model(x.to(device)) - 1).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
print(round(total, 4))

# %% round 16: a module-level running loss read by a method of a logger class [none]
import torch


class Logger:
    def report(self):
        print("so far", round(total, 4))


device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
log = Logger()
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 3)
total = 0.0
for step in range(4):
    loss = (model(x.to(device)) - 1).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    total += loss.item()
    if step % 2 == 1:
        log.report()
print(round(total, 4))

# %% round 16: a loss budget that bounds a while loop [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 3)
spent = 0.0
while spent < 3.0:
    loss = (model(x.to(device)) - 1).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    spent += loss.item()
print(round(spent, 4))

# %% round 16: a global accumulator in a training function a caller stops with an exception [none]
import torch

total = 0.0
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Diverged(Exception):
    pass


def check(step):
    if step == 2:
        raise Diverged()


def train(steps):
    global total
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 1).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(8, 3)
    for step in range(steps):
        loss = (model(x.to(device)) - 1).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
        check(step)


try:
    train(5)
except Diverged:
    pass
print(round(total, 4))

# %% round 16: an accumulator attribute of a trainer read by its own method in the loop [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Trainer:
    def __init__(self):
        torch.manual_seed(0)
        self.model = torch.nn.Linear(3, 1).to(device)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def fit(self, x):
        total = 0.0
        for step in range(4):
            loss = (self.model(x.to(device)) - 1).pow(2).mean()
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            total += loss.item()
            self.last = total
        print(round(total, 4))


t = Trainer()
t.fit(torch.randn(8, 3))
print(type(t.last).__name__)

# %% round 16: a per-epoch loss printed after the inner loop of every epoch [unsafe, same]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 3)
for epoch in range(2):
    epoch_loss = 0.0
    for batch in x.split(4):
        loss = (model(batch.to(device)) - 1).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        epoch_loss += loss.item()
    print(epoch, round(epoch_loss, 4), type(epoch_loss).__name__)

# %% round 16: correct predictions counted from a single comparison per sample [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 3).to(device)
x = torch.randn(6, 3)
y = torch.randint(0, 3, (6,))
correct = 0
for i in range(len(x)):
    pred = model(x[i].to(device)).argmax()
    correct += (pred == y[i].to(device)).item()
print(correct, type(correct).__name__)

# %% round 16: a running loss in a loop left by a break, with a for-else [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 3)
total = 0.0
for step in range(10):
    loss = (model(x.to(device)) - 1).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    total += loss.item()
    if step == 4:
        break
else:
    print("ran out")
print(round(total, 4), type(total).__name__)

# %% round 16: an int count started at 0 summing the .sum() of a bool mask [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 3).to(device)
seen = 0
for step in range(3):
    x = torch.randn(5, 3).to(device)
    keep = model(x).max(1).values > 0
    seen += keep.sum().item()
print(seen, type(seen).__name__)

# %% round 17: an epoch loss accumulated over a loader that may be empty, printed after [unsafe, same]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(2):
    batches = [torch.randn(3, 2) for _ in range(epoch)]
    total = 0.0
    for x in batches:
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    print(epoch, total)

# %% round 17: an epoch loss accumulated in a loop with an else clause that prints it [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [torch.randn(3, 2) for _ in range(3)]
for epoch in range(2):
    total = 0.0
    for x in data:
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    else:
        print("epoch", epoch, round(total, 6))

# %% round 17: a count of wrong predictions named loss, summed from an integer start [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(2, 3).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(6, 2)
y = torch.tensor([0, 1, 2, 0, 1, 2]).to(device)
for epoch in range(2):
    wrong = 0
    for step in range(3):
        out = model(x.to(device))
        ce = torch.nn.functional.cross_entropy(out, y)
        opt.zero_grad()
        ce.backward()
        opt.step()
        loss = (out.argmax(1) != y).sum()
        wrong += loss.item()
    print(epoch, wrong)

# %% round 17: a sum of integer token counts named loss_tokens from an integer start [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
masks = [torch.tensor([1, 1, 0]).to(device), torch.tensor([1, 0, 0]).to(device)]
for epoch in range(2):
    n_tokens = 0
    for mask in masks:
        loss = model(torch.randn(3, 2).to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        n_tokens += mask.sum().item()
    print(epoch, n_tokens)

# %% round 17: a float loss summed from an integer start, printed with its type [unsafe, same]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [torch.randn(3, 2) for _ in range(2)]
for epoch in range(2):
    running = 0
    for x in data:
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        running += loss.item()
    print(type(running).__name__, round(running, 6))

# %% round 17: a loss accumulated inside a while loop over an iterator [unsafe, same]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [torch.randn(3, 2) for _ in range(3)]
for epoch in range(2):
    it = iter(data)
    total = 0.0
    step = 0
    while step < len(data):
        x = next(it)
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
        step += 1
    print(epoch, round(total, 6))

# %% round 17: a bfloat16 loss under CPU autocast summed from a float start [unsafe, same]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [torch.randn(3, 2) for _ in range(3)]
for epoch in range(2):
    total = 0.0
    for x in data:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    print(epoch, total)

# %% round 17: an accumulator read by a lambda defined before the loop [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [torch.randn(3, 2) for _ in range(3)]
for epoch in range(2):
    total = 0.0
    for x in data:
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    report = lambda: f"{total:.6f}"
    print(report())

# %% round 17: an accumulator whose loop body ends with a continue [unsafe, same]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [torch.randn(3, 2) for _ in range(4)]
for epoch in range(2):
    total = 0.0
    for i, x in enumerate(data):
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if i % 2:
            continue
        total += loss.item()
    print(epoch, round(total, 6))

# %% round 17: an accumulator summed in a loop nested in a with block of a profiler-like context [none]
import contextlib

import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [torch.randn(3, 2) for _ in range(3)]
for epoch in range(2):
    total = 0.0
    with contextlib.nullcontext():
        for x in data:
            loss = model(x.to(device)).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
    print(epoch, round(total, 6))

# %% round 18: a global running loss read by a module-level report function the loop calls [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(3)]
total = 0.0


def report(step):
    print(step, type(total).__name__, repr(total))


def train():
    global total
    for step, (x, y) in enumerate(loader):
        loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
        report(step)


train()

# %% round 18: an exponential moving average of the loss, decayed in place each step [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(4)]
smooth = 0.0
for x, y in loader:
    loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
    opt.zero_grad()
    loss.backward()
    opt.step()
    smooth *= 0.9
    smooth += 0.1 * loss.item()
print(repr(smooth))

# %% round 18: a loss weighted by the batch size, summed over the epoch [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [(torch.randn(n, 3), torch.randn(n, 1)) for n in (4, 3, 5)]
total = 0.0
seen = 0
for x, y in loader:
    loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
    opt.zero_grad()
    loss.backward()
    opt.step()
    total += loss.item() * x.size(0)
    seen += x.size(0)
print(repr(total / seen))

# %% round 18: an accuracy computed in NumPy, accumulated with item in the validation loop [none]
import numpy as np
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 2).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [(torch.randn(4, 3), torch.randint(0, 2, (4,))) for _ in range(3)]
for epoch in range(2):
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
    acc_sum = 0.0
    for x, y in loader:
        with torch.no_grad():
            pred = model(x.to(device)).argmax(1).cpu().numpy()
        acc = np.mean(pred == y.numpy())
        acc_sum += acc.item()
    print(epoch, repr(acc_sum))

# %% round 18: a float64 model's loss summed from a float start [unsafe, same]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).double().to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [(torch.randn(4, 3, dtype=torch.float64), torch.randn(4, 1, dtype=torch.float64)) for _ in range(3)]
total = 0.0
for x, y in loader:
    loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
    opt.zero_grad()
    loss.backward()
    opt.step()
    total += loss.item()
print(repr(total))

# %% round 18: a running loss formatted with a float format spec after the epoch [unsafe, same]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(3)]
for epoch in range(2):
    epoch_loss = 0.0
    for x, y in loader:
        loss = torch.nn.functional.l1_loss(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        epoch_loss += loss.item()
    print("epoch {} loss {:.6f} {}".format(epoch, epoch_loss, type(epoch_loss).__name__))

# %% round 18: a loss accumulated in a nested function that a step counter closure reads [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [torch.randn(3, 2) for _ in range(3)]


def fit():
    total = 0.0

    def log(step):
        print(step, repr(total))

    for step, x in enumerate(data):
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    log(len(data))
    return total


print(repr(fit()))

# %% round 18: a count of correct predictions summed from an int start with a comparison sum [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 2).to(device)
loader = [(torch.randn(5, 3), torch.randint(0, 2, (5,))) for _ in range(3)]
model.eval()
correct = 0
with torch.no_grad():
    for x, y in loader:
        pred = model(x.to(device)).argmax(1)
        correct += (pred == y.to(device)).sum().item()
print(type(correct).__name__, correct)

# %% round 18: a running loss pickled into a results dict after the loop [unsafe, same]
import pickle

import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(2, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [torch.randn(3, 2) for _ in range(3)]
running = 0.0
for x in data:
    loss = model(x.to(device)).abs().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    running += loss.item()
blob = pickle.dumps({"loss": running})
print(len(blob), pickle.loads(blob))

# %% round 19: an epoch loss written to a JSON metrics line after the loop [unsafe, same]
import json
import torch

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(3)]
for epoch in range(2):
    running = 0.0
    for x, y in loader:
        loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        running += loss.item()
    print(json.dumps({"epoch": epoch, "loss": round(running / len(loader), 4)}))

# %% round 19: an epoch loss written by a csv writer [unsafe, same]
import csv
import io
import torch

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(3)]
buf = io.StringIO()
writer = csv.writer(buf)
for epoch in range(2):
    running = 0.0
    for x, y in loader:
        loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        running += loss.item()
    writer.writerow([epoch, running])
print(buf.getvalue())

# %% round 19: an epoch loss checked with isinstance before logging [unsafe, same]
import torch

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(3)]
running = 0.0
for x, y in loader:
    loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
    opt.zero_grad()
    loss.backward()
    opt.step()
    running += loss.item()
print(isinstance(running, float), type(running).__name__)

# %% round 19: an epoch loss converted by Decimal for a report [unsafe, same]
import decimal
import torch

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 1).to(device)
loader = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(3)]
running = 0.0
for x, y in loader:
    with torch.no_grad():
        loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
    running += loss.item()
print(decimal.Decimal(running).quantize(decimal.Decimal("0.0001")))

# %% round 19: an epoch loss rounded with round and two digits [unsafe, same]
import torch

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 1).to(device)
loader = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(3)]
running = 0.0
for x, y in loader:
    with torch.no_grad():
        loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
    running += loss.item()
print(round(running, 2))

# %% round 19: an epoch loss kept in a history list turned into a NumPy array [unsafe, same]
import numpy as np
import torch

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 1).to(device)
loader = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(3)]
history = []
for epoch in range(2):
    running = 0.0
    for x, y in loader:
        with torch.no_grad():
            loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
        running += loss.item()
    history.append(running)
print(np.array(history).dtype, np.round(np.array(history), 4).tolist())

# %% round 19: an epoch loss packed with struct into a binary log [unsafe, same]
import struct
import torch

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 1).to(device)
loader = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(3)]
running = 0.0
for x, y in loader:
    with torch.no_grad():
        loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
    running += loss.item()
print(struct.pack("<d", running).hex())

# %% round 19: an epoch loss used as the key of a best-epoch dict [unsafe, same]
import torch

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = torch.nn.Linear(4, 1).to(device)
loader = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(3)]
by_loss = {}
for epoch in range(2):
    running = 0.0
    for x, y in loader:
        with torch.no_grad():
            loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
        running += loss.item()
    by_loss[running] = epoch
print(by_loss[min(by_loss)])

# %% round 20: a global running loss, accumulated in a train function, logged as JSON by a logger method [none]
import json
import torch
import torch.nn as nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(4)]
running = 0.0


class Logger:
    def log(self, step):
        print(json.dumps({"step": step, "running": round(running, 6)}))


logger = Logger()


def train():
    global running
    running = 0.0
    for step, (x, y) in enumerate(data):
        loss = nn.functional.mse_loss(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        running += loss.item()
        logger.log(step)
    print(round(running, 6))


train()

# %% round 20: a running loss in a nested function with nonlocal, read by a sibling closure [none]
import json
import torch
import torch.nn as nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(4)]


def fit():
    total = 0.0

    def report():
        print(json.dumps({"total": total}))

    def run_epoch():
        nonlocal total
        total = 0.0
        for x, y in data:
            loss = nn.functional.mse_loss(model(x.to(device)), y.to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
            report()

    run_epoch()
    print(round(total, 6))


fit()

# %% round 20: a global loss sum in a train function, checked by a budget generator the loop iterates [none]
import torch
import torch.nn as nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(6)]
spent = 0.0


def budgeted(batches):
    for b in batches:
        if not isinstance(spent, float):
            raise TypeError("spent must be a float")
        yield b


def train():
    global spent
    spent = 0.0
    for x, y in budgeted(data):
        loss = nn.functional.mse_loss(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        spent += loss.item()
    print(round(spent, 6))


train()

# %% round 20: a loss accumulated in a loop in a thread's target, read by a watchdog method [none]
import json
import threading
import torch
import torch.nn as nn

torch.manual_seed(0)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
model = nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(4)]
state = {"done": False}
acc = 0.0


class Watch:
    def snapshot(self):
        return json.dumps({"acc": acc})


def work():
    global acc
    acc = 0.0
    for x, y in data:
        loss = nn.functional.mse_loss(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        acc += loss.item()
        print(Watch().snapshot()[:8])


t = threading.Thread(target=work)
t.start()
t.join()
print(round(acc, 6))

# %% round 21: a complex spectral loss summed with .item() from a float start [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(8, 8).to(device)
loader = [torch.randn(2, 8) for _ in range(3)]
total = 0.0
for x in loader:
    spec = torch.fft.fft(model(x.to(device)))
    loss = (spec * spec.conj()).mean()
    total += loss.item()
print(total)

# %% round 24: a validation metric computed in NumPy by a helper of the file, summed with item() [none]
import numpy as np
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [(torch.randn(4, 3), torch.randn(4, 1)) for _ in range(3)]


def mae(pred, target):
    return np.abs(pred - target).mean()


for epoch in range(2):
    for x, y in data:
        loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
    val = 0.0
    for x, y in data:
        with torch.no_grad():
            err = mae(model(x.to(device)).cpu().numpy(), y.numpy())
        val += err.item()
    print(epoch, round(val, 6))

# %% round 24: a training loop inside contextlib.suppress that a StopIteration ends early, total sent to JSON [none]
import contextlib
import json
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [torch.randn(4, 3) for _ in range(3)]
for epoch in range(2):
    stream = iter(data)
    total = 0.0
    with contextlib.suppress(StopIteration):
        for step in range(10):
            x = next(stream)
            loss = model(x.to(device)).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
    print(json.dumps({"epoch": epoch, "loss": round(total, 6)}))

# %% round 24: a module-level loop whose logger reads the accumulator from globals() by a name in a tuple [none]
import json
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [torch.randn(4, 3) for _ in range(4)]
TRACKED = ("running",)


def log_metrics():
    print(json.dumps({name: round(globals()[name], 6) for name in TRACKED}))


running = 0.0
for step, x in enumerate(data):
    loss = model(x.to(device)).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    running += loss.item()
    if step % 2 == 1:
        log_metrics()
print(round(running, 6))

# %% round 24: the accumulator read back through eval of its name in a logging branch [none]
import json
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [torch.randn(4, 3) for _ in range(4)]


def train():
    epoch_loss = 0.0
    for step, x in enumerate(data):
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        epoch_loss += loss.item()
        if step == 1:
            print(json.dumps(eval("epoch_loss")))
    return epoch_loss


print(round(train(), 6))

# %% round 24: a training loop written on one line with semicolons, summing item() [unsafe, same]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [torch.randn(4, 3) for _ in range(3)]
for epoch in range(2):
    total = 0.0
    for x in data: loss = model(x.to(device)).pow(2).mean(); opt.zero_grad(); loss.backward(); opt.step(); total += loss.item()
    print(epoch, total)

# %% round 24: an accumulator started from a tuple assignment with a step counter [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [torch.randn(4, 3) for _ in range(3)]
for epoch in range(2):
    total, steps = 0.0, 0
    for x in data:
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
        steps += 1
    print(epoch, total / steps, type(total).__name__)

# %% round 24: an accumulator started from a NumPy float32 scalar [none]
import numpy as np
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [torch.randn(4, 3) for _ in range(3)]
for epoch in range(2):
    total = np.float32(0.0)
    for x in data:
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    print(epoch, repr(total))

# %% round 24: an accumulator started by a conditional expression, a literal or a NumPy float32 [none]
import numpy as np
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [torch.randn(4, 3) for _ in range(3)]
compact = True
for epoch in range(2):
    total = np.float32(0) if compact else 0.0
    for x in data:
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    print(epoch, repr(total))

# %% round 24: a loss summed in a match case inside the step loop [unsafe, same]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [(torch.randn(4, 3), torch.randn(4, 1)), (torch.randn(4, 3),), (torch.randn(4, 3), torch.randn(4, 1))]
for epoch in range(2):
    total = 0.0
    for batch in data:
        match batch:
            case (x, y):
                loss = torch.nn.functional.mse_loss(model(x.to(device)), y.to(device))
            case (x,):
                loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    print(epoch, total)

# %% round 24: a loss summed in an async training coroutine that awaits each step [unsafe, same]
import asyncio
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [torch.randn(4, 3) for _ in range(3)]


async def train():
    for epoch in range(2):
        total = 0.0
        for x in data:
            loss = model(x.to(device)).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
            await asyncio.sleep(0)
        print(epoch, total)


asyncio.run(train())

# %% round 24: a loss summed in a coroutine while a sibling task formats the accumulator as JSON [none]
import asyncio
import json
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [torch.randn(4, 3) for _ in range(3)]
total = 0.0


async def monitor():
    for _ in range(2):
        await asyncio.sleep(0)
        print(json.dumps(round(total, 6)))


async def train():
    global total
    total = 0.0
    for x in data:
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
        await asyncio.sleep(0)


async def main():
    await asyncio.gather(train(), monitor())
    print(round(total, 6))


asyncio.run(main())

# %% round 24: a class-body training loop that sums the loss into a class attribute [unsafe, same]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [torch.randn(4, 3) for _ in range(3)]


class Warmup:
    total = 0.0
    for x in data:
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()


print(round(Warmup.total, 6), type(Warmup.total).__name__)

# %% round 24: a loss summed with -= as a reward to minimise [none]
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [torch.randn(4, 3) for _ in range(3)]
for epoch in range(2):
    reward = 0.0
    for x in data:
        loss = model(x.to(device)).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        reward -= loss.item()
    print(epoch, reward)

# %% round 24: a loss summed inside a with block that a helper context manager wraps [none]
import contextlib
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [torch.randn(4, 3) for _ in range(3)]


@contextlib.contextmanager
def phase(name):
    print("start", name)
    yield
    print("end", name)


for epoch in range(2):
    total = 0.0
    with phase("train"):
        for x in data:
            loss = model(x.to(device)).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
    print(epoch, total)

# %% round 24: a loss summed in a loop inside a with block whose context manager swallows a ValueError the loop raises [none]
import contextlib
import json
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
torch.manual_seed(0)
model = torch.nn.Linear(3, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = [torch.randn(4, 3) for _ in range(3)] + [torch.full((4, 3), float("nan"))]


def check(value):
    if value != value:
        raise ValueError("nan loss")


@contextlib.contextmanager
def tolerant():
    try:
        yield
    except ValueError as err:
        print("stopped:", err)


for epoch in range(2):
    total = 0.0
    with tolerant():
        for x in data:
            loss = model(x.to(device)).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
            check(total)
    print(json.dumps(round(total, 6)))
