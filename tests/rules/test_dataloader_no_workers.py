import pytest

from conftest import lines, lint

RULE = "TL201"


def test_missing_or_zero_workers_through_aliases():
    code = """
    import torch
    import torch.utils.data as tud
    from torch.utils.data import DataLoader as DL
    from torch.utils.data.dataloader import DataLoader
    a = torch.utils.data.DataLoader(ds)
    b = tud.DataLoader(ds, batch_size=8, num_workers=0)
    c = DL(ds, 8, True)
    d = DataLoader(ds, 8, True, None, None, 0)
    """
    assert lines(code, RULE) == [6, 7, 8, 9]


def test_workers_given_or_possibly_given():
    code = """
    from torch.utils.data import DataLoader
    a = DataLoader(ds, num_workers=4)
    b = DataLoader(ds, num_workers=args.workers)
    c = DataLoader(ds, num_workers=0 if debug else 8)
    d = DataLoader(ds, **kwargs)
    e = DataLoader(*args)
    f = DataLoader(ds, 8, True, None, None, 2)
    """
    assert lines(code, RULE) == []


def test_other_dataloaders_and_shadowed_names():
    code = """
    import torch
    from torch_geometric.loader import DataLoader
    a = DataLoader(ds)
    def build(DataLoader):
        return DataLoader(ds)
    """
    assert lines(code, RULE) == []


def test_local_rebinding_shadows_the_import():
    code = """
    from torch.utils.data import DataLoader
    DataLoader = MyLoader
    a = DataLoader(ds)
    """
    assert lines(code, RULE) == []


def test_fallback_in_except_keeps_the_import():
    code = """
    try:
        from torch.utils.data import DataLoader
    except ImportError:
        DataLoader = None
    a = DataLoader(ds)
    """
    assert lines(code, RULE) == [6]


def test_reported_on_the_constructor_and_fix_is_unsafe():
    [finding] = lint("from torch.utils.data import DataLoader\nx = DataLoader(ds)\n", [RULE])
    assert (finding.line, finding.column) == (2, 5)
    assert finding.fix is not None and finding.fix.applicability.value == "unsafe"


def test_in_memory_tensor_datasets_need_no_workers():
    code = """
    import torch
    from torch.utils.data import DataLoader, TensorDataset
    train = TensorDataset(x, y)
    a = DataLoader(train, batch_size=32)
    b = DataLoader(TensorDataset(x), batch_size=32)
    c = DataLoader(images, batch_size=32)
    """
    assert lines(code, RULE) == [7]


def test_datasets_built_through_partial_or_returned_by_a_function_of_the_file():
    code = """
    import functools
    import torch
    from functools import partial
    from torch.utils.data import DataLoader, Dataset, TensorDataset

    class Reverse(Dataset):
        def __init__(self, categories, length, size):
            self.data = torch.randint(categories, size=(size, length))
        def __getitem__(self, index):
            return self.data[index], torch.flip(self.data[index], dims=(0,))

    class Images(Dataset):
        def __init__(self, root):
            self.files = sorted(os.listdir(root))
            self.buffer = torch.zeros(3)
        def __getitem__(self, index):
            return read_image(self.files[index])

    def encode(model, images):
        feats = torch.cat([model(x) for x in images])
        return TensorDataset(feats, feats.argmax(1))

    def reads(root):
        if root:
            return Images(root)
        return TensorDataset(torch.zeros(4))

    dataset = partial(Reverse, 10, 16)
    images = functools.partial(Images)
    a = DataLoader(dataset(50000), batch_size=128)
    b = DataLoader(encode(net, batches), batch_size=64)
    c = DataLoader(images("data/"), batch_size=64)
    d = DataLoader(reads("data/"), batch_size=64)
    """
    assert lines(code, RULE) == [33, 34]


def test_silent_in_a_program_that_never_trains_reported_where_it_trains():
    evaluate = """
    import torch
    from torch.utils.data import DataLoader
    loader = DataLoader(dataset, batch_size=8)
    if __name__ == "__main__":
        with torch.no_grad():
            for x, y in loader:
                print(model(x).argmax(1))
    """
    assert lines(evaluate, RULE) == []
    trains = evaluate.replace("print(model(x).argmax(1))", "model(x).sum().backward()")
    assert lines(trains, RULE) == [4]


def test_a_worker_count_set_to_zero_in_a_variable():
    """`num_workers = 0` in an earlier notebook cell is the same as the literal; the fix is left
    to the user, who chose the variable. A variable assigned twice is not known."""
    code = """
    import torch
    num_workers = 0
    loader = torch.utils.data.DataLoader(train_data, batch_size=20, num_workers=num_workers)
    workers = 0
    workers = args.workers
    other = torch.utils.data.DataLoader(train_data, num_workers=workers)
    """
    [finding] = lint(code, [RULE])
    assert finding.line == 4 and finding.fix is None


TRAINING_NOTEBOOK = """
import torch
from torch.utils.data import DataLoader
loader = DataLoader(train_data, batch_size=64)
for epoch in range(3):
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
"""


@pytest.mark.stable_only
def test_cpu_only_programs_are_the_preview_variant():
    """Without a device, workers compete with the training for the same cores."""
    assert lines(TRAINING_NOTEBOOK, RULE) == []
    assert lines(TRAINING_NOTEBOOK.replace("model(x)", "model(x.cuda())"), RULE) == [4]


def test_preview_mode_reports_cpu_only_programs_too():
    assert lines(TRAINING_NOTEBOOK, RULE) == [4]


@pytest.mark.stable_only
def test_a_loader_handed_to_a_function_is_judged_at_the_call():
    """`evaluate()` runs every epoch for the validation loader and once for the test loader:
    the test loader is the preview variant; a loader handed on both ways is reported."""
    code = """
    import torch
    from torch.utils.data import DataLoader
    train_loader = DataLoader(train_data, batch_size=64)
    valid_loader = DataLoader(valid_data, batch_size=64)
    test_loader = DataLoader(test_data, batch_size=64)
    def train(model, loader):
        for x, y in loader:
            criterion(model(x.cuda()), y.cuda()).backward()
            optimizer.step()
    def evaluate(model, loader):
        for x, y in loader:
            total += criterion(model(x.cuda()), y.cuda())
    for epoch in range(10):
        train(model, train_loader)
        evaluate(model, valid_loader)
    evaluate(model, test_loader)
    evaluate(model, valid_loader)
    """
    assert lines(code, RULE) == [4, 5]


@pytest.mark.parametrize(
    ("options", "fixed"),
    [
        # the dict is empty on every run, after a copy or a pop
        ('loader_kwargs = {}', True),
        ('loader_kwargs = {"num_workers": 0}\nloader_kwargs.pop("num_workers")', True),
        # hard negatives: empty only on CUDA (a choice or a branch by device), or changed by a
        # helper defined above it through its global name
        ('loader_kwargs = {} if torch.cuda.is_available() else {"num_workers": 0}', False),
        ('loader_kwargs = {}\nif not torch.cuda.is_available():\n    loader_kwargs["num_workers"] = 0', False),
    ],
)
def test_fix_next_to_a_keyword_dict_needs_it_empty_on_every_run(options, fixed):
    """The fix adds `num_workers=4` next to `**loader_kwargs`: a dict that holds the keyword on
    some run (the CPU branch of a choice by device) would make the call raise TypeError."""
    code = "import torch\nfrom torch.utils.data import DataLoader\n" + options + "\nloader = DataLoader(ds, **loader_kwargs)\n"
    [finding] = lint(code, [RULE])
    assert (finding.fix is not None and finding.fix.applicability.value == "unsafe") is fixed


def test_a_dict_changed_by_a_function_through_its_global_name_is_unknown():
    """A helper defined before the dict writes into it by its global name: the dict is unknown
    (silent), but a helper's own local dict of the same name changes nothing."""
    helper = "def apply(overrides):\n    for key, value in overrides.items():\n        loader_kwargs[key] = value\n"
    local = "def other():\n    loader_kwargs = {}\n    loader_kwargs['num_workers'] = 2\n"
    tail = "loader_kwargs = {}\napply({'num_workers': 0})\nloader = DataLoader(ds, **loader_kwargs)\n"
    head = "from torch.utils.data import DataLoader\n"
    assert lines(head + helper + tail, RULE) == []
    assert lines(head + local + tail, RULE) == [7]
