import textwrap

from conftest import in_step_loop, lines, lint

from torchlint.engine.context import Options
from torchlint.engine.fixer import fix_text
from torchlint.engine.rule import all_rules

RULE = "TL105"


def fixed(code):
    rules = [rule for rule in all_rules() if rule.code == RULE]
    return fix_text(textwrap.dedent(code), "snippet.py", rules, Options(), unsafe=True).text


def test_arrays_from_numpy_calls_numpy_results_and_annotations():
    code = """
    import numpy as np
    import torch
    def load(a: np.ndarray, t: torch.Tensor):
        x = torch.tensor(a)
        y = torch.tensor(np.zeros((3, 4)))
        batch = np.stack(rows).astype(np.float32)
        z = torch.tensor(batch)
        w = torch.tensor(t.cpu().numpy())
        noise = np.random.randn(3, 4)
        v = torch.tensor(noise * 2)
        b: np.ndarray = read()
        u = torch.tensor(b)
    """
    assert lines(code, RULE) == [5, 6, 8, 9, 11, 13]


def test_reported_span_and_message():
    [finding] = lint("import numpy as np\nimport torch\nfor b in loader:\n    x = torch.tensor(np.ones(3))\n", [RULE])
    assert (finding.line, finding.column, finding.end_column) == (4, 9, 33)
    assert "torch.from_numpy()" in finding.message


def test_aliases_resolve():
    code = """
    import numpy
    import torch as th
    from numpy import asarray
    from torch import tensor, Tensor
    a = th.tensor(numpy.arange(10))
    b = tensor(asarray(data))
    c = Tensor(numpy.ones(3))
    """
    assert lines(in_step_loop(code), RULE) == [6, 7, 8]


def test_lists_numbers_and_unknown_values():
    code = """
    import numpy as np
    import torch
    def f(data, rows, n: int):
        a = torch.tensor([1, 2, 3])
        b = torch.tensor(data)
        c = torch.tensor(n)
        d = torch.tensor(rows[0])
        e = torch.Tensor(3, 4)
        f = torch.tensor(df.values)
        g = torch.tensor(tf_tensor.numpy())
    """
    assert lines(code, RULE) == []


def test_numpy_results_that_may_be_scalars():
    code = """
    import numpy as np
    import torch
    def f(a: np.ndarray):
        m = np.mean(a)
        x = torch.tensor(m)
        y = torch.tensor(a.sum())
        z = torch.tensor(a[0])
        r = np.random.rand()
        torch.tensor(r)
        torch.tensor(np.random.randint(0, 10))
        torch.tensor(np.float32(1.5))
        torch.tensor(a @ a)
        torch.tensor(np.flip(a))
        torch.tensor(np.load(path, mmap_mode="r"))
        s = t = np.max(a)
        torch.tensor(s)
        torch.tensor(t)
        if (k := np.argmax(a)) > 0:
            torch.tensor(k)
    """
    assert lines(code, RULE) == []


def test_names_follow_their_latest_assignment_and_scope():
    code = """
    import numpy as np
    import torch
    arr = np.zeros(3)
    def f():
        arr = np.sum(other)
        return torch.tensor(arr)
    def g():
        return torch.tensor(arr)
    arr = np.mean(arr)
    torch.tensor(arr)
    arr = [1, 2]
    torch.tensor(arr)
    """
    assert lines(code, RULE) == [9]


def test_look_alikes():
    code = """
    import torch
    import jax.numpy as jnp
    import cupy as np
    from mylib import tensor
    a = torch.tensor(jnp.zeros(3))
    b = torch.tensor(np.zeros(3))
    c = tensor(__import__("numpy").zeros(3))
    """
    assert lines(code, RULE) == []


def test_arguments_that_need_a_copy_or_a_new_leaf():
    code = """
    import numpy as np
    import torch
    a = np.zeros(3)
    torch.tensor(a, device="cuda")
    torch.tensor(a, dtype=torch.float32, device=device)
    torch.tensor(a, requires_grad=True)
    torch.tensor(a, pin_memory=True)
    torch.tensor(a, **options)
    torch.Tensor(a, 3)
    torch.tensor(a, dtype=torch.float32)
    """
    assert lines(in_step_loop(code), RULE) == [11]


def test_fix_only_without_other_arguments():
    code = """
    import numpy as np
    import torch
    a = np.zeros(3)
    x = torch.tensor(a)
    y = torch.tensor(a, dtype=torch.float32)
    z = torch.Tensor(a)
    """
    findings = lint(in_step_loop(code), [RULE])
    assert [(f.line, f.fix is not None) for f in findings] == [(5, True), (6, False), (7, False)]
    assert findings[0].fix.applicability.value == "unsafe"
    assert "as_tensor" in findings[1].message


def test_fix_rewrites_the_constructor_however_imported():
    code = """
    import numpy as np
    import torch
    import torch as th
    from torch import tensor
    for a in arrays:
        a = np.zeros(3)
        x = torch.tensor(a)
        y = th.tensor(np.ones(2))
        z = tensor(a)
    """
    assert fixed(code) == textwrap.dedent(
        """
        import numpy as np
        import torch
        import torch as th
        from torch import tensor
        for a in arrays:
            a = np.zeros(3)
            x = torch.from_numpy(a)
            y = th.from_numpy(np.ones(2))
            z = torch.from_numpy(a)
        """
    )


def test_an_imported_constructor_gets_torch_imported_after_the_last_import():
    [finding] = lint("import numpy as np\nfrom torch import tensor\nfor b in loader:\n    x = tensor(np.zeros(3))\n", [RULE])
    assert [edit.content for edit in finding.fix.edits] == ["torch.from_numpy", "\nimport torch"]
    shadowed = "import numpy as np\nfrom torch import tensor\ntorch = None\nfor b in loader:\n    x = tensor(np.zeros(3))\n"
    assert [f.fix for f in lint(shadowed, [RULE])] == [None]


def test_once_at_setup_is_silent():
    code = """
    import numpy as np
    import torch

    TABLE = torch.tensor(np.load("table.npy"))

    class Net(torch.nn.Module):
        def __init__(self, weights: np.ndarray):
            super().__init__()
            self.w = torch.tensor(weights)

    def setup_anchors(a: np.ndarray):
        return torch.tensor(a)

    class Frames(torch.utils.data.Dataset):
        def __getitem__(self, index):
            return torch.tensor(np.load(self.files[index]))
    """
    assert lines(code, RULE) == [17]
