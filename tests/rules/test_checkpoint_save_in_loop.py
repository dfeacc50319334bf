"""TL109: `torch.save` on every step of a training loop."""

from conftest import lines, lint

RULE = "TL109"


def test_saves_in_a_training_step_loop_however_imported():
    code = """
    import torch
    import torch as th
    from torch import save
    from torch import save as dump_state
    import safetensors.torch
    for step, (x, y) in enumerate(loader):
        loss = model(x.cuda())
        loss.backward()
        optimizer.step()
        torch.save(model.state_dict(), "last.pt")
        th.save({"model": model.state_dict(), "optim": optimizer.state_dict()}, "last.pt")
        save(model, "model.pt")
        dump_state(model.state_dict(), "last.pt")
        safetensors.torch.save_file(model.state_dict(), "last.safetensors")
    while step < total_steps:
        loss = model(next(batches))
        loss.backward()
        optimizer.step()
        torch.save(model.state_dict(), "last.pt")
    """
    assert lines(code, RULE) == [11, 12, 13, 14, 15, 20]


def test_message_names_the_call_and_the_way_to_limit_it():
    [finding] = lint("import torch\nfor x in loader:\n    model(x).backward()\n    opt.step()\n    torch.save(model, 'm.pt')\n", [RULE])
    assert "`torch.save()` runs on every training step (in the step loop)" in finding.message
    assert "save every N steps" in finding.message


def test_through_a_same_file_function_called_every_step():
    code = """
    import torch

    def save_checkpoint(model, path):
        torch.save({"model": model.state_dict()}, path)

    def train(model, loader):
        for batch in loader:
            model(batch).backward()
            optimizer.step()
            save_checkpoint(model, "last.pt")
    """
    [finding] = lint(code, [RULE])
    assert finding.line == 5
    assert "`save_checkpoint()` is called from `train()`; in the step loop" in finding.message


def test_interval_best_metric_single_step_and_switch_guards():
    code = """
    import torch
    best_acc = 0.0
    for step, (x, y) in enumerate(loader):
        loss = model(x.cuda())
        loss.backward()
        optimizer.step()
        if step % args.save_every == 0:
            torch.save(model.state_dict(), "last.pt")
        if (step + 1) % 1000 == 0 and rank == 0:
            torch.save(model.state_dict(), "last.pt")
        if acc > best_acc:
            torch.save(model.state_dict(), "best.pt")
        if is_best:
            torch.save(model.state_dict(), "best.pt")
        if val_loss < self.best:
            torch.save(model.state_dict(), "best.pt")
        if step == len(loader) - 1:
            torch.save(model.state_dict(), "last.pt")
        if step + 1 == total_steps:
            torch.save(model.state_dict(), "last.pt")
        if args.save_ckpt:
            torch.save(model.state_dict(), "last.pt")
        if global_step == args.max_steps:
            torch.save(model.state_dict(), "last.pt")
        if step in milestones:
            torch.save(model.state_dict(), f"step_{step}.pt")
        try:
            optimizer.step()
        except RuntimeError:
            torch.save(model.state_dict(), "crash.pt")
    """
    assert lines(code, RULE) == []


def test_per_epoch_after_training_and_rarely_called_functions():
    code = """
    import torch

    def save_checkpoint(model):
        torch.save(model.state_dict(), "last.pt")

    def train_one_epoch(model, loader):
        for step, batch in enumerate(loader):
            model(batch).backward()
            optimizer.step()
            if step % 500 == 0:
                save_checkpoint(model)

    for epoch in range(args.epochs):
        train_one_epoch(model, loader)
        torch.save(model.state_dict(), f"epoch_{epoch}.pt")
    torch.save(model.state_dict(), "final.pt")
    """
    assert lines(code, RULE) == []


def test_loops_that_do_not_train_write_what_they_produce():
    code = """
    import torch
    model.eval()
    with torch.no_grad():
        for i, (x, _) in enumerate(loader):
            torch.save(model(x.cuda()).cpu(), f"features_{i}.pt")
    for path in files:
        torch.save(preprocess(path), path + ".pt")
    class Net(torch.nn.Module):
        def forward(self, x):
            torch.save(x, "activation.pt")
            return x
    """
    assert lines(code, RULE) == []


def test_look_alikes():
    code = """
    import torch
    import numpy as np
    from mylib import save

    def store(obj, path):
        pass

    for x, y in loader:
        loss = model(x.cuda())
        loss.backward()
        optimizer.step()
        np.save("loss.npy", loss.item())
        save(model, "m.pt")
        model.save_pretrained("out")
        trainer.save_checkpoint("last.ckpt")
        torch.jit.save(scripted, "m.pt")
        store(model, "m.pt")
    """
    assert lines(code, RULE) == []


def test_user_function_named_save_shadows_torch_save():
    code = """
    import torch
    from torch import save

    def save(model, path):
        pass

    for x, y in loader:
        model(x.cuda()).backward()
        optimizer.step()
        save(model, "m.pt")
    """
    assert lines(code, RULE) == []


def test_test_code_is_skipped():
    code = """
    import torch

    def test_checkpoint_every_step():
        for x in loader:
            model(x).backward()
            optimizer.step()
            torch.save(model.state_dict(), "m.pt")
    """
    assert lines(code, RULE) == []
