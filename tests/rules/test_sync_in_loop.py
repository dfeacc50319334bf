from conftest import lines, lint

RULE = "TL101"


def test_item_in_training_loop_reports_on_the_call():
    code = """
    import torch
    for x, y in loader:
        loss = model(x)
        total += loss.item()
    """
    [finding] = lint(code, [RULE])
    assert (finding.line, finding.column, finding.end_column) == (5, 19, 25)
    assert "`.item()`" in finding.message


def test_every_sync_method_inside_while_and_comprehensions():
    code = """
    import torch
    while step < n:
        a = out.cpu()
        b = out.numpy()
        c = out.tolist()
    values = [t.item() for t in losses]
    nested = [[t.item() for t in row] for row in grid]
    gen = sum(t.item() for t in losses)
    """
    assert lines(code, RULE) == [4, 5, 6, 7, 8, 9]


def test_outside_loops_and_in_functions_defined_in_loops():
    code = """
    import torch
    print(loss.item())
    for x in loader:
        def report(t):
            return t.item()
        callback = lambda t: t.item()
    """
    assert lines(code, RULE) == []


def test_host_values_are_not_tensors():
    code = """
    import numpy as np
    import torch
    for x in loader:
        arr = np.asarray(x)
        arr.tolist()
        host = out.numpy()
        host.tolist()
        n = 3
        n.item()
        np.mean(arr).item()
        t: np.ndarray = load()
        t.tolist()
    """
    assert lines(code, RULE) == [7]


def test_tensor_annotations_and_assignments_are_tensors():
    code = """
    import torch
    def run(batch: torch.Tensor, scale: float):
        for i in range(10):
            batch.item()
            scale.item()
    """
    assert lines(code, RULE) == [5]


def test_logging_interval_guards():
    code = """
    import torch
    for step, (x, y) in enumerate(loader):
        loss = model(x)
        if step % args.log_every == 0:
            print(loss.item())
        if (step + 1) % 50 == 0 and rank == 0:
            writer.add_scalar("loss", loss.item(), step)
        if should_log:
            print(loss.item())
        if cfg.verbose:
            print(loss.item())
        if loss.item() > 10:
            break
    """
    assert lines(code, RULE) == [13]


def test_guard_outside_the_loop_does_not_count():
    code = """
    import torch
    if verbose:
        for x in loader:
            print(model(x).item())
    """
    assert lines(code, RULE) == [5]


def test_container_loops_run_once_but_nested_in_a_step_loop_they_count():
    code = """
    import torch
    for name, p in model.named_parameters():
        print(p.norm().item())
    for k, v in enumerate(metrics.items()):
        print(v.item())
    for phase in ["train", "val"]:
        print(acc.item())
    for x in loader:
        for p in model.parameters():
            norm += p.grad.norm().item()
    """
    assert lines(code, RULE) == [11]


def test_dataset_code_runs_on_the_cpu():
    code = """
    import torch
    from torch.utils.data import Dataset
    class Boxes(Dataset):
        def load(self, boxes):
            for b in boxes:
                yield b[0].item()
    def collate_fn(batch):
        return [b.tolist() for b in batch]
    def __getitem__(self, i):
        return [t.item() for t in self.rows[i]]
    """
    assert lines(code, RULE) == []


def test_modules_and_method_arguments_are_not_syncs():
    code = """
    import torch
    import torch.nn as nn
    for x in loader:
        net = nn.Linear(2, 2)
        net.cpu()
        out.cpu(memory_format=None)
    """
    assert lines(code, RULE) == []


def test_files_without_torch_are_not_checked():
    code = """
    for x in loader:
        total += x.item()
    """
    assert lines(code, RULE) == []
