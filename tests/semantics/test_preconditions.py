"""The semantics the fixes' preconditions ask: bindings, values that escape, dtypes, datasets."""

from __future__ import annotations

import textwrap
from typing import Dict

import libcst as cst

from torchlint.engine.context import FileContext, Options
from torchlint.engine.rule import Rule
from torchlint.engine.walker import walk
from torchlint.semantics.bindings import attribute_assignments, binds_locally, method_definitions
from torchlint.semantics.calls import uncalled_references
from torchlint.semantics.datasets import items_may_carry_graph
from torchlint.semantics.dtypes import program_makes_complex, python_number
from torchlint.semantics.escapes import computed_names, outer_names_augmented, receiving_calls
from torchlint.semantics.shapes import may_be_vector
from torchlint.semantics.tree import descendants


def _context(code: str) -> FileContext:
    text = textwrap.dedent(code)
    return FileContext(cst.parse_module(text), text, "train.py", Options())


def _function(ctx: FileContext, name: str) -> cst.FunctionDef:
    return next(node for node in descendants(ctx.module) if isinstance(node, cst.FunctionDef) and node.name.value == name)


class _Probe(Rule):
    """Asks `question(ctx, argument)` of each `probe(expr)` argument while the traversal stands on it."""

    question = staticmethod(python_number)

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.seen: Dict[str, bool] = {}

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "probe":
            argument = node.args[0].value
            self.seen[self.ctx.module.code_for_node(argument)] = self.question(self.ctx, argument)


def _probe(code: str, question) -> Dict[str, bool]:
    ctx = _context(code)
    probe = _Probe(ctx)
    probe.question = question
    walk(ctx, [probe])
    return probe.seen


def test_a_name_is_local_to_a_function_wherever_it_binds_it():
    ctx = _context(
        """
        def forward(self, x):
            y = F.softmax(x, -1)
            B, T, F = y.shape
        def uses(x):
            return F.relu(x)
        def declared(x):
            global F
            F = None
        def imported(x):
            import torch.nn.functional as F
        """
    )
    assert binds_locally(_function(ctx, "forward"), "F")
    assert not binds_locally(_function(ctx, "uses"), "F")
    assert not binds_locally(_function(ctx, "declared"), "F")
    assert binds_locally(_function(ctx, "imported"), "F")
    assert binds_locally(_function(ctx, "forward"), "x") and not binds_locally(_function(ctx, "forward"), "T2")


def test_a_method_bound_by_assignment_in_a_class_body():
    ctx = _context(
        """
        def _move(self, device):
            return self
        class Pair:
            to = _move
        class Other:
            cuda = staticmethod(_move)
            cpu = lambda self, non_blocking=False: self
        """
    )
    [move] = method_definitions(ctx, "to")
    assert isinstance(move, cst.FunctionDef) and move.name.value == "_move"
    assert method_definitions(ctx, "cuda") == [None]
    assert isinstance(method_definitions(ctx, "cpu")[0], cst.Lambda)
    assert method_definitions(ctx, "pin_memory") == []


def test_values_computed_in_a_function_and_where_they_go():
    ctx = _context(
        """
        def evaluate(model, x, history, best):
            out = model(x)
            score = out.sum().item()
            history += [out]
            heapq.heappush(best, (score, out))
            print(score, len(out))
            total = 0
            total += score
        """
    )
    function = _function(ctx, "evaluate")
    computed = computed_names(function.body)
    assert "out" in computed and "score" not in computed and "total" not in computed
    assert list(outer_names_augmented(function, computed)) == ["history"]
    assert {ctx.module.code_for_node(call.func) for call in receiving_calls(function.body, computed)} == {"heapq.heappush", "len"}


def test_numbers_and_tensors():
    seen = _probe(
        """
        import math
        import torch
        class A(torch.nn.Module):
            def __init__(self, dim):
                self.scale = 8 ** -0.5
                self.temperature = torch.nn.Parameter(torch.ones(1))
            def forward(self, q):
                probe(self.scale)
                probe(1 / math.sqrt(q.size(-1)))
                probe(q.shape[-1] ** -0.5)
                probe(self.temperature)
                probe(self.logit_scale.exp())
                probe(q.size())
        """,
        python_number,
    )
    assert seen == {
        "self.scale": True,
        "1 / math.sqrt(q.size(-1))": True,
        "q.shape[-1] ** -0.5": True,
        "self.temperature": False,
        "self.logit_scale.exp()": False,
        "q.size()": False,
    }


def test_complex_values_in_their_spellings():
    for code in (
        "import torch\nw = torch.exp(1j * torch.ones(3))\n",
        "import torch\nw = torch.polar(torch.ones(3), torch.zeros(3))\n",
        "from torch import view_as_complex\nw = view_as_complex(x)\n",
        "import torch\nw = torch.fft.rfft(x)\n",
        "import numpy as np\nw = np.zeros(3, dtype='complex64')\n",
        "import torch\nw = torch.ones(3, dtype=torch.cfloat)\n",
    ):
        assert program_makes_complex(_context(code)), code
    for code in ("import torch\nw = torch.fft.irfft(x)\nname = 'complex'\n", "import torch\nw = torch.exp(x)\n"):
        assert not program_makes_complex(_context(code)), code


def test_dataset_items_that_may_carry_an_autograd_graph():
    seen = _probe(
        """
        import torch
        encoder = torch.nn.Linear(3, 2)
        features = [encoder(torch.ones(3) * i) for i in range(4)]
        plain = [torch.ones(3) * i for i in range(4)]
        class Embedded(torch.utils.data.Dataset):
            def __init__(self):
                self.table = torch.nn.Embedding(4, 2)
        leaves = [torch.zeros(2, requires_grad=True)]
        probe(features)
        probe(plain)
        probe(Embedded())
        probe(leaves)
        """,
        items_may_carry_graph,
    )
    assert seen == {"features": True, "plain": False, "Embedded()": True, "leaves": True}


def test_dataset_items_made_to_require_gradients_later():
    """`x.requires_grad_()` or `x.requires_grad = True` anywhere in the file, of that very
    name: not of another name, an attribute of it or a name that merely ends the same."""
    seen = _probe(
        """
        import torch
        a = torch.ones(3)
        b = torch.ones(3)
        c = torch.ones(3)
        d = torch.ones(3)
        e = torch.ones(3)
        a.requires_grad_()
        b.requires_grad = True
        c.weight.requires_grad = True
        self.d.requires_grad_()
        def later():
            other.requires_grad_(); requires_grad = True
        probe([a]); probe([b]); probe([c]); probe([d]); probe([e])
        """,
        items_may_carry_graph,
    )
    assert seen == {"[a]": True, "[b]": True, "[c]": False, "[d]": False, "[e]": False}


def test_values_that_may_be_vectors():
    seen = _probe(
        """
        import torch
        from torch import nn
        class Pool(nn.Module):
            def __init__(self, d):
                self.query = nn.Parameter(torch.randn(d))
                self.keys = nn.Parameter(torch.randn(5, d))
        positions = torch.arange(8)
        matrix = torch.zeros((3, 4))
        probe(self.query); probe(self.keys); probe(positions); probe(matrix); probe(torch.ones(*shape))
        """,
        lambda ctx, node: may_be_vector(ctx, node, None),
    )
    assert seen == {"self.query": True, "self.keys": False, "positions": True, "matrix": False, "torch.ones(*shape)": False}


def test_attributes_that_a_class_body_defines():
    ctx = _context(
        """
        import dataclasses
        class Settings:
            fallback = "cpu"
            @property
            def device(self):
                return torch.float64
        @dataclasses.dataclass
        class Config:
            width: int = 3
        """
    )
    assert [v and ctx.module.code_for_node(v) for v in attribute_assignments(ctx.module, "s.device")] == [None, "torch.float64"]
    assert [ctx.module.code_for_node(v) for v in attribute_assignments(ctx.module, "s.fallback")] == ['"cpu"']
    assert attribute_assignments(ctx.module, "cfg.width") == [None]
    assert attribute_assignments(ctx.module, "cfg.other") == []


def test_names_used_other_than_by_calling_them():
    code = """
        import torch
        from torch.cpu.amp import autocast
        with torch.cpu.amp.autocast():
            pass
        ok = isinstance(ctx, torch.cuda.amp.GradScaler)
        def step(scaler: torch.cpu.amp.GradScaler) -> None: ...
        {extra}
        probe(0)
        """

    def question(ctx, node):
        return uncalled_references(ctx.module, ctx.qualified_name)

    used = _probe(code.format(extra="pass"), question)["0"]
    assert "torch.cuda.amp.GradScaler" in used and "torch.cpu.amp.autocast" not in used
    assert "torch.cpu.amp.GradScaler" not in used  # an annotation tests nothing
    assert "torch.cpu.amp.autocast" in _probe(code.format(extra="factory = autocast"), question)["0"]
