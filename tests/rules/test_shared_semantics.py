"""The loop rules ask the shared semantics: host values, code that does not run every step."""

from conftest import lines

SYNC, IMPLICIT, EMPTY_CACHE, MODULE_MOVE = "TL101", "TL103", "TL104", "TL108"


def test_host_values_are_not_synchronisations():
    code = """
    import torch

    class Sampler(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.sigmas = torch.linspace(0, 1, 10)
            self.cpu_device = torch.device("cpu")

        def forward(self, x, steps):
            for i in range(steps):
                s = self.sigmas[i].item()
                y = self.net(x.cuda()).to(self.cpu_device)
                z = y.tolist()
                w = self.net(x.cuda()).item()
    """
    assert lines(code, SYNC) == [15]


def test_helpers_called_only_at_intervals_are_rare():
    code = """
    import torch

    def log_metrics(metrics):
        for name in metrics:
            print(name, metrics[name].item())

    def report(metrics):
        for name in metrics:
            print(name, metrics[name].item())

    for step, (x, y) in enumerate(loader):
        loss = model(x.cuda()).mean()
        loss.backward()
        optimizer.step()
        if step % args.log_every == 0:
            log_metrics({"loss": loss})
        report({"loss": loss})
    """
    assert lines(code, SYNC) == [10]


def test_error_paths_debug_switches_and_handlers():
    code = """
    import torch
    for step, x in enumerate(loader):
        loss = torch.mean(x.cuda())
        if not torch.isfinite(loss):
            print(loss)
            raise RuntimeError(f"loss is {loss.item()}")
        if args.debug:
            print(loss)
            torch.cuda.empty_cache()
        try:
            model.to(device)
        except RuntimeError:
            torch.cuda.empty_cache()
        print(loss)
    """
    assert lines(code, SYNC) == []
    assert lines(code, IMPLICIT) == [15]
    assert lines(code, EMPTY_CACHE) == []


def test_evaluation_once_at_the_end_of_a_training_script():
    code = """
    import torch

    def evaluate(model, loader):
        total = 0.0
        for x, y in loader:
            total += model(x.cuda()).sum().item()
        return total

    def train(model, loader):
        for x, y in loader:
            loss = model(x.cuda()).mean()
            loss.backward()
            optimizer.step()
            print(loss.item())

    train(model, train_loader)
    evaluate(model, test_loader)
    """
    assert lines(code, SYNC) == [15]


def test_module_moves_in_setup_code():
    code = """
    import torch.nn as nn

    def build(configs):
        for cfg in configs:
            model = nn.Linear(cfg.d, 2)
            model.to(device)

    model = nn.Linear(4, 2)
    for x in loader:
        model.to(device)
        y = model(x)
    """
    assert lines(code, MODULE_MOVE) == [11]


def test_loops_that_produce_host_output_do_not_train():
    code = """
    import numpy as np
    import torch
    for x, y in test_loader:
        out = model(x.cuda())
        all_outputs.append(out.cpu().numpy())
        scores = np.mean(out.cpu())
        for i, sid in enumerate(y.cuda().tolist()):
            handle.write(out[i].cpu())
        correct += (out.argmax(1) == y.cuda()).sum().item()
    for x, y in train_loader:
        loss = model(x.cuda()).mean()
        loss.backward()
        all_losses.append(loss.cpu().numpy())
    """
    # line 10: the iteration already waits where it hands outputs to NumPy (round 23)
    assert lines(code, SYNC) == [14]


def test_guards_around_an_inner_loop():
    code = """
    import torch
    for step, (x, y) in enumerate(train_loader):
        loss = model(x.cuda()).mean()
        loss.backward()
        optimizer.step()
        if step % args.dev_every == 0:
            for dx, dy in dev_loader:
                correct += (model(dx.cuda()).argmax(1) == dy.cuda()).sum().item()
            for i in range(4):
                print(model(x.cuda()).sum().item())
    """
    # round 25: the pass over a loader that the interval repeats waits once per batch, as a
    # validation function called there does; a sampling loop under the interval stays silent
    assert lines(code, SYNC) == [9]
