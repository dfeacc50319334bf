from conftest import lines, lint

RULE = "TL202"


def test_loaders_whose_batches_go_to_cuda_through_aliases():
    code = """
    import torch
    import torch.utils.data as tud
    from torch.utils.data import DataLoader as DL
    a = torch.utils.data.DataLoader(ds, num_workers=4)
    b = tud.DataLoader(ds, num_workers=4, pin_memory=False)
    c = DL(ds, 8, True, None, None, 4, None, False)
    for x in a:
        x.cuda()
    for i, (x, y) in enumerate(b):
        y.to("cuda")
    for batch in c:
        batch["x"].to(device)
    """
    assert lines(code, RULE) == [5, 6, 7]


def test_fix_sets_pin_memory_and_is_unsafe():
    code = "from torch.utils.data import DataLoader\nloader = DataLoader(ds, num_workers=4)\nfor x in loader:\n    x.cuda()\n"
    [finding] = lint(code, [RULE])
    assert (finding.line, finding.column) == (2, 10)
    assert finding.fix is not None and finding.fix.applicability.value == "unsafe"


def test_pinned_or_possibly_pinned():
    code = """
    from torch.utils.data import DataLoader
    a = DataLoader(ds, num_workers=4, pin_memory=True)
    b = DataLoader(ds, num_workers=4, pin_memory=args.pin)
    c = DataLoader(ds, **kwargs)
    d = DataLoader(*args)
    for loader in (a, b, c, d):
        pass
    for x in a:
        x.cuda()
    for x in b:
        x.cuda()
    for x in c:
        x.cuda()
    for x in d:
        x.cuda()
    """
    assert lines(code, RULE) == []


def test_batches_not_moved_to_cuda():
    code = """
    import torch
    from torch.utils.data import DataLoader
    from mylib import DataLoader as Other
    a = DataLoader(ds, num_workers=4)
    b = Other(ds)
    for x in a:
        x.to(torch.float16)
        x.to("cpu")
        other.cuda()
    for x in b:
        x.cuda()
    model.cuda()
    """
    assert lines(code, RULE) == []


def test_no_cuda_in_the_file():
    code = """
    from torch.utils.data import DataLoader
    a = DataLoader(ds, num_workers=4)
    for x in a:
        x.to(device)
    """
    assert lines(code, RULE) == []


def test_other_scope_and_rebinding():
    code = """
    from torch.utils.data import DataLoader
    loader = DataLoader(ds, num_workers=4)
    def run(loader):
        for x in loader:
            x.cuda()
    loader = DataLoader(ds, num_workers=4, pin_memory=True)
    for x in loader:
        x.cuda()
    """
    assert lines(code, RULE) == []


HANDED_ON = """
import torch
from torch.utils.data import DataLoader
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
train_iterator = DataLoader(train_data, batch_size=64, num_workers=4)
test_iterator = DataLoader(test_data, batch_size=64, num_workers=4)
def train(model, iterator, optimizer):
    for x, y in iterator:
        x = x.to(device)
        criterion(model(x), y.to(device)).backward()
        optimizer.step()
for epoch in range(10):
    train(model, train_iterator, optimizer)
"""


def test_batches_moved_in_the_function_the_loader_is_handed_to():
    assert lines(HANDED_ON, RULE) == [5]
    assert lines(HANDED_ON.replace("x = x.to(device)", "x = x.float()").replace("y.to(device)", "y"), RULE) == []


def test_silent_in_rpc_programs():
    """Remote round trips dominate each step of a `torch.distributed.rpc` program."""
    assert lines(HANDED_ON.replace("import torch\n", "import torch\nimport torch.distributed.rpc as rpc\n"), RULE) == []


def test_fix_next_to_a_keyword_dict_needs_it_empty_on_every_run():
    """`pin_memory=True` next to `**kwargs`: a dict that turns pinning off on a run without
    CUDA would make the call raise TypeError there; one empty on every run gets the fix."""
    loop = "for x in loader:\n    x = x.cuda()\n"
    head = "import torch\nfrom torch.utils.data import DataLoader\n"
    chosen = head + 'kwargs = {} if torch.cuda.is_available() else {"pin_memory": False}\nloader = DataLoader(ds, **kwargs)\n' + loop
    empty = head + "kwargs = {}\nloader = DataLoader(ds, **kwargs)\n" + loop
    [withheld] = lint(chosen, ["TL202"])
    [fixed] = lint(empty, ["TL202"])
    assert withheld.fix is None and fixed.fix is not None and fixed.fix.applicability.value == "unsafe"
