import pytest

from conftest import lines, lint, preview_options

RULE = "TL203"


def test_loader_iterated_inside_an_epoch_loop():
    code = """
    import torch
    from torch.utils.data import DataLoader as DL
    def fit(ds, args):
        a = torch.utils.data.DataLoader(ds, num_workers=args.workers)
        b = DL(ds, 8, True, None, None, 4)
        for epoch in range(args.epochs):
            for x in a:
                step(x)
            for i, x in enumerate(tqdm(b)):
                step(x)
            for x in a:
                step(x)
    """
    assert lines(code, RULE) == [5, 6]


def test_fix_only_with_a_literal_worker_count():
    literal = "from torch.utils.data import DataLoader\nl = DataLoader(ds, num_workers=4)\nwhile True:\n    for x in l:\n        f(x)\n"
    [finding] = lint(literal, [RULE])
    assert (finding.line, finding.column) == (2, 5)
    assert finding.fix is not None and finding.fix.applicability.value == "unsafe"
    expression = literal.replace("num_workers=4", "num_workers=n")
    [finding] = lint(expression, [RULE])
    assert finding.fix is None


def test_silent_without_workers_or_with_persistent_or_kwargs():
    code = """
    from torch.utils.data import DataLoader
    a = DataLoader(ds)
    b = DataLoader(ds, num_workers=0)
    c = DataLoader(ds, num_workers=4, persistent_workers=True)
    d = DataLoader(ds, num_workers=4, persistent_workers=args.keep)
    e = DataLoader(ds, num_workers=4, **kw)
    for epoch in range(3):
        for loader in (a, b, c, d, e):
            for x in loader:
                pass
        for x in a:
            pass
        for x in b:
            pass
        for x in c:
            pass
        for x in d:
            pass
        for x in e:
            pass
    """
    assert lines(code, RULE) == []


def test_iterated_once_created_per_epoch_or_in_another_function():
    code = """
    from torch.utils.data import DataLoader
    a = DataLoader(ds, num_workers=4)
    for x in a:
        pass
    for epoch in range(3):
        b = DataLoader(ds, num_workers=4)
        for x in b:
            pass
    def train_one_epoch(c):
        for x in c:
            pass
    for epoch in range(3):
        def inner():
            for x in a:
                pass
        [x for x in a]
    """
    assert lines(code, RULE) == []


def test_dataset_changed_between_epochs():
    code = """
    from torch.utils.data import DataLoader
    a = DataLoader(ds, num_workers=4)
    b = DataLoader(other, num_workers=4)
    for epoch in range(3):
        ds.set_difficulty(epoch)
        b.dataset.resample()
        for x in a:
            pass
        for x in b:
            pass
    """
    assert lines(code, RULE) == []


def test_not_torch_dataloader():
    code = """
    import torch
    from mylib import DataLoader
    a = DataLoader(ds, num_workers=4)
    for epoch in range(3):
        for x in a:
            pass
    """
    assert lines(code, RULE) == []


def test_keyword_dicts_passed_as_double_star():
    code = """
    import torch
    from torch.utils.data import DataLoader
    def fit(ds, epochs):
        loader_kwargs = {"num_workers": 4, "pin_memory": True}
        loader = DataLoader(ds, batch_size=32, **loader_kwargs)
        for epoch in range(epochs):
            for x in loader:
                step(x)
    def fit_dict_call(ds, epochs):
        kwargs = dict(num_workers=8, drop_last=True)
        loader = DataLoader(ds, **kwargs)
        for epoch in range(epochs):
            for x in loader:
                step(x)
    """
    findings = lint(code, [RULE])
    assert [f.line for f in findings] == [6, 12] and all(f.fix is None for f in findings)


def test_keyword_dicts_that_cannot_be_read_are_silent():
    code = """
    import torch
    from torch.utils.data import DataLoader
    def persistent(ds):
        kw = {"num_workers": 4, "persistent_workers": True}
        loader = DataLoader(ds, **kw)
        for epoch in range(3):
            for x in loader:
                step(x)
    def no_workers(ds):
        kw = {"num_workers": 0}
        loader = DataLoader(ds, **kw)
        for epoch in range(3):
            for x in loader:
                step(x)
    def updated(ds, extra):
        kw = {"num_workers": 4}
        kw.update(extra)
        loader = DataLoader(ds, **kw)
        for epoch in range(3):
            for x in loader:
                step(x)
    def item_set(ds):
        kw = {"num_workers": 4}
        kw["persistent_workers"] = True
        loader = DataLoader(ds, **kw)
        for epoch in range(3):
            for x in loader:
                step(x)
    def unpacks_another(ds, base):
        kw = {"num_workers": 4, **base}
        loader = DataLoader(ds, **kw)
        for epoch in range(3):
            for x in loader:
                step(x)
    def elsewhere(ds, kw):
        loader = DataLoader(ds, **kw)
        for epoch in range(3):
            for x in loader:
                step(x)
    """
    assert lines(code, RULE) == []


def test_dataset_changed_by_a_project_function(tmp_path):
    import textwrap

    from conftest import preview_options
    from torchlint.engine.linter import lint_text
    from torchlint.engine.rule import all_rules

    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "data_utils.py").write_text(
        "def resample(epoch, dataset):\n    dataset.indices = shuffle(epoch)\n"
        "def log_size(dataset):\n    print(len(dataset))\n"
    )
    code = textwrap.dedent(
        """
        import torch
        from torch.utils.data import DataLoader
        from data_utils import resample, log_size
        loader = DataLoader(ds, num_workers=4)
        for epoch in range(3):
            CALL
            for x in loader:
                step(x)
        """
    )
    rules = [rule for rule in all_rules() if rule.code == RULE]
    found = {}
    for call in ("resample(epoch, ds)", "resample(dataset=ds, epoch=epoch)", "log_size(ds)", "local_resample(epoch, ds)"):
        text = code.replace("CALL", call)
        (tmp_path / "train.py").write_text(text)
        found[call] = [f.line for f in lint_text(text, str(tmp_path / "train.py"), rules, preview_options()).findings]
    assert found == {
        "resample(epoch, ds)": [],
        "resample(dataset=ds, epoch=epoch)": [],
        "log_size(ds)": [5],
        "local_resample(epoch, ds)": [5],
    }


def test_a_worker_count_of_zero_assigned_earlier_has_no_workers_to_keep():
    code = """
    from torch.utils.data import DataLoader
    num_workers = 0
    loader = DataLoader(ds, num_workers=num_workers)
    for epoch in range(10):
        for x in loader:
            step(x)
    """
    assert lines(code, RULE) == []
    assert lines(code.replace("num_workers = 0", "num_workers = 2"), RULE) == [4]


def test_a_loader_iterated_by_a_function_called_every_epoch():
    code = """
    from torch.utils.data import DataLoader
    train_loader = DataLoader(train_set, num_workers=4)

    def train(epoch):
        for x in train_loader:
            step(x)

    def fresh_each_time():
        loader = DataLoader(train_set, num_workers=4)
        for x in loader:
            step(x)

    for epoch in range(10):
        train(epoch)
        fresh_each_time()
    """
    assert lines(code, RULE) == [3]
    assert lines(code.replace("        train(epoch)\n", "        train_set.resample(epoch)\n        train(epoch)\n"), RULE) == []


def test_a_loader_passed_to_a_function_that_the_epoch_loop_calls():
    code = """
    from torch.utils.data import DataLoader

    def train(loader, model):
        for x in loader:
            model(x).sum().backward()

    def main():
        train_loader = DataLoader(train_set, num_workers=4)
        for epoch in range(10):
            train(train_loader, model)

    def fresh(model):
        loader = DataLoader(train_set, num_workers=4)
        train(loader, model)

    def again():
        for epoch in range(10):
            fresh(model)

    def once(model):
        loader = DataLoader(other_set, num_workers=4)
        train(loader, model)  # `train` runs every epoch from `main`, but this loader once
    """
    assert lines(code, RULE) == [9]


@pytest.mark.stable_only
def test_a_loader_handed_to_a_function_of_another_module_that_loops_over_it(tmp_path):
    """`evaluate()` lives in the engine module: a validation loader handed to it every epoch,
    or every N steps of the training loop, starts its workers again each time. A function
    that does not loop over the parameter (`log_size`) is no pass over the loader."""
    import textwrap

    from torchlint.engine.linter import lint_text
    from torchlint.engine.rule import all_rules
    from torchlint.semantics import project

    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "engine.py").write_text(
        "def evaluate(model, data_loader, device):\n    for x, y in tqdm(data_loader):\n        model(x.to(device))\n"
        "def log_size(data_loader):\n    print(len(data_loader))\n"
    )
    code = textwrap.dedent(
        """
        import torch
        from torch.utils.data import DataLoader
        from engine import evaluate, log_size
        train_loader = DataLoader(train_set, batch_size=32, num_workers=4)
        val_loader = DataLoader(val_set, batch_size=32, num_workers=4)
        for epoch in range(10):
            for step, (x, y) in enumerate(train_loader):
                model(x.cuda()).sum().backward()
                optimizer.step()
                if (step + 1) % eval_every == 0 or step == 0:
                    CALL
        """
    )
    rules = [rule for rule in all_rules() if rule.code == RULE]
    found = {}
    for call in ("evaluate(model, val_loader, 'cuda')", "log_size(val_loader)"):
        text = code.replace("CALL", call)
        (tmp_path / "train.py").write_text(text)
        project.clear()
        found[call] = [f.line for f in lint_text(text, str(tmp_path / "train.py"), rules, preview_options()).findings]
    assert found == {"evaluate(model, val_loader, 'cuda')": [5, 6], "log_size(val_loader)": [5]}


@pytest.mark.parametrize("spelling", ["persistent_workers=False", "**dict(persistent_workers=False)"])
def test_an_explicit_false_is_a_decision(spelling):
    code = f"""
    from torch.utils.data import DataLoader
    def fit(ds, epochs):
        loader = DataLoader(ds, num_workers=4, {spelling})
        for epoch in range(epochs):
            for x in loader:
                step(x)
    """
    assert lint(code, [RULE]) == []
