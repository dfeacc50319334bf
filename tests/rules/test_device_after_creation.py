from conftest import in_step_loop, lines, lint

RULE = "TL102"


def test_factories_moved_by_cuda_and_to_device():
    code = """
    import torch
    a = torch.zeros(3).cuda()
    b = torch.ones(2, 2).cuda(1)
    c = torch.arange(10).to(device)
    d = torch.eye(3).to("cuda:0")
    e = torch.full((2,), 1.0).to(torch.device("cuda"))
    h = torch.empty(4).to(device=args.device)
    i = torch.rand(3).to(local_device, non_blocking=True)
    j = torch.zeros(3).to(local_rank)
    """
    assert lines(in_step_loop(code), RULE) == [3, 4, 5, 6, 7, 8, 9, 10]


def test_aliases_resolve():
    code = """
    import torch as th
    from torch import zeros as z
    dev = th.device("cuda")
    a = th.randn(2).to(dev)
    b = z(3).cuda()
    """
    assert lines(in_step_loop(code), RULE) == [5, 6]


def test_reported_span_is_the_move():
    [finding] = lint("import torch\nfor b in loader:\n    x = torch.zeros(3).cuda()\n", [RULE])
    assert (finding.line, finding.column, finding.end_column) == (3, 9, 30)


def test_not_a_device_move():
    code = """
    import torch
    a = torch.zeros(3).to(torch.float16)
    b = torch.zeros(3).to(other_tensor)
    c = torch.zeros(3).to("cpu")
    d = torch.zeros(3).to(dtype=torch.half)
    e = torch.from_numpy(arr).cuda()
    f = torch.as_tensor(data).cuda()
    g = torch.zeros(3, pin_memory=True).cuda()
    h = model.cuda()
    i = torch.nn.Linear(2, 2).cuda()
    j = x.zeros(3).cuda()
    k = torch.zeros(3)
    table[k] = 1  # used on the host before the move (an unused one is reported)
    k = k.cuda()
    """
    assert lines(in_step_loop(code), RULE) == []


def test_look_alike_factories_from_other_libraries():
    code = """
    import torch
    import numpy as np
    from jax.numpy import zeros
    a = np.zeros(3).to(device)
    b = zeros(3).to(device)
    """
    assert lines(in_step_loop(code), RULE) == []


def test_fix_applicability_depends_on_randomness_and_requires_grad():
    code = """
    import torch
    a = torch.zeros(3).cuda()
    b = torch.randn(3).cuda()
    c = torch.zeros(3, requires_grad=True).cuda()
    """
    fixes = [f.fix.applicability.value for f in lint(in_step_loop(code), [RULE])]
    assert fixes == ["safe", "unsafe", "unsafe"]


def test_fix_reads_move_arguments_by_method():
    code = """
    import torch
    a = torch.arange(3).cuda(0, True)
    b = torch.arange(3).to(device, torch.float16, True)
    c = torch.randn(2, generator=g).cuda()
    d = torch.zeros(3, out=buf).cuda()
    """
    fixes = [f.fix.edits[0].content if f.fix else None for f in lint(in_step_loop(code), [RULE])]
    assert fixes == [
        'torch.arange(3, device="cuda:0")',
        "torch.arange(3, device=device).to(torch.float16)",
        None,
        None,
    ]


def test_fix_keeps_the_factory_dtype_and_refuses_unpacked_arguments():
    code = """
    import torch
    device = torch.device("cuda")
    x = torch.zeros(3)
    a = torch.arange(0, 10, 0.3).to(device, torch.long)
    b = torch.full_like(x, 3.7).to(device=device, dtype=torch.uint8)
    c = torch.zeros(3, **options).to(device)
    d = torch.zeros(3).to(device, **options)
    e = torch.zeros(3).to(dev)
    """
    found = lint(in_step_loop(code), [RULE])
    fixes = [f.fix.edits[0].content if f.fix else None for f in found]
    assert fixes[:2] == [
        "torch.arange(0, 10, 0.3, device=device).to(torch.long)",
        "torch.full_like(x, 3.7, device=device).to(torch.uint8)",
    ]
    assert fixes[2:4] == [None, None]
    assert "(fix: none: the factory call has **kwargs)" in found[2].message
    assert "(fix: none: the move unpacks arguments)" in found[3].message
    assert found[4].fix.applicability.value == "unsafe"
    assert found[4].message.endswith("(fix: unsafe: `dev` is only named like a device)")


def test_data_factories_and_like_factories_save_nothing():
    code = """
    import torch
    a = torch.tensor(host_list).to(device)
    b = torch.tensor([1.0, 2.0]).cuda()
    c = torch.zeros_like(x).to(x.device)
    d = torch.ones_like(out).cuda()
    """
    assert lines(in_step_loop(code), RULE) == []


def test_like_factory_of_a_host_tensor_is_reported():
    code = """
    import torch
    host = torch.linspace(0, 1, 10)
    a = torch.zeros_like(host).to(device)
    b = torch.zeros_like(host).to(host.device)
    """
    assert lines(in_step_loop(code), RULE) == [4]


def test_only_code_that_runs_every_step():
    code = """
    import torch

    mask = torch.zeros(3).cuda()

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.table = torch.arange(10).to(device)

        def forward(self, x):
            return x + torch.ones(3).to(device)

    def log_images(step):
        grid = torch.zeros(3).cuda()

    for epoch in range(10):
        noise = torch.randn(3).cuda()
        for step, batch in enumerate(loader):
            if step % 100 == 0:
                log_images(step)
            if not torch.isfinite(loss):
                fallback = torch.zeros(1).cuda()
                raise RuntimeError("diverged")
    """
    assert lines(code, RULE) == [12]


def test_empty_tensors_have_nothing_to_copy():
    code = """
    import torch
    for x in loader:
        a = torch.empty(0).to(x.device)
        b = torch.zeros((0, 4)).cuda()
        c = torch.arange(0, 8).cuda()
        d = torch.zeros(2, 4).cuda()
    """
    assert lines(code, RULE) == [6, 7]


def test_a_factory_handed_to_a_helper_that_moves_it_to_the_device():
    """`get_torch_variable(torch.randn(...))`: the helper returns its parameter moved to CUDA,
    so the noise is created on the host and copied every step. No fix: other callers of the
    helper may pass other values."""
    code = """
    import torch
    from torch.autograd import Variable
    class Trainer:
        def get_torch_variable(self, arg):
            if self.cuda:
                return Variable(arg).cuda(self.cuda_index)
            return Variable(arg)
        def keep(self, arg):
            return arg
        def train(self, loader):
            z0 = self.get_torch_variable(torch.randn(64, 100))
            for images in loader:
                z = self.get_torch_variable(torch.randn(64, 100))
                w = self.keep(torch.randn(64, 100))
                loss = self.D(self.G(z)).mean()
                loss.backward()
                self.optimizer.step()
    """
    [finding] = lint(code, [RULE])
    assert finding.line == 14 and finding.fix is None and "by `get_torch_variable()`" in finding.message


def test_a_parameter_given_a_dtype_through_a_starred_tuple_gets_no_fix():
    """`targets.smooth(*args)` with `args = (2, 4, torch.float64)` passes the dtype as the
    helper's `device`: `torch.full(..., device=torch.float64)` would raise. A tuple that holds
    a device there, or a dtype at another position, leaves the fix (unsafe: named like a
    device)."""
    template = """
import torch

class Targets:
    def smooth(self, n, classes, device):
        return torch.full((n, classes), 0.1).to(device)

targets = Targets()
args = {args}
for step in range(3):
    loss = model(targets.smooth(*args)).sum()
    loss.backward()
    optimizer.step()
"""
    def fix(args):
        [finding] = lint(template.format(args=args), [RULE])
        return finding.fix.applicability.value if finding.fix else None

    assert fix("(2, 4, torch.float64)") is None
    assert fix('(2, 4, "cpu")') == "unsafe"
    assert fix("(torch.float64, 4)") == "unsafe"


def test_an_attribute_stored_from_a_constructor_argument_that_is_a_dtype_gets_no_fix():
    """`self.device = device` in `__init__`, and the file builds the object with a dtype: by
    position, through a name bound to the class or a dict literal holding it, or a starred
    tuple. `torch.zeros(..., device=torch.float64)` would raise. A device argument keeps the
    unsafe fix (the attribute is a device only by its name)."""
    template = """
import torch

class Trainer:
    def __init__(self, device):
        self.device = device

    def train_step(self, x):
        noise = torch.zeros(x.shape).to(self.device)
        loss = model(x + noise).sum()
        loss.backward()
        optimizer.step()

TRAINERS = {{"base": Trainer}}
{build}
for step in range(3):
    trainer.train_step(x)
"""
    def fix(build):
        [finding] = lint(template.format(build=build), [RULE])
        return finding.fix.applicability.value if finding.fix else None

    assert fix("trainer = Trainer(torch.float64)") is None
    assert fix("cls = Trainer\ntrainer = cls(torch.float64)") is None
    assert fix('trainer = TRAINERS["base"](torch.float64)') is None
    assert fix("trainer = Trainer(*(torch.float64,))") is None
    assert fix('trainer = Trainer("cpu")') == "unsafe"
    assert fix('trainer = Other(torch.float64)') == "unsafe"


def _applicability(code):
    """The fix applicability of the one TL102 finding of `code` (None: no fix)."""
    [finding] = lint(code, [RULE])
    return finding.fix.applicability.value if finding.fix else None


def test_a_field_of_a_class_declared_tuple_or_dataclass_built_by_position_with_a_dtype_gets_no_fix():
    """`class RunConfig(NamedTuple): device: object` (or a dataclass) built as
    `RunConfig(torch.float64, 2)` gives `cfg.device` a dtype by position: no fix, as for the
    functional `namedtuple`. A device there, a dtype at another field's position, a plain
    class with annotations and its own `__init__`, or a dataclass with a base class (whose
    fields come first: `RunConfig(2, torch.float64)` sets `seed` and `steps`) leave the
    unsafe fix."""
    template = """
import dataclasses
from typing import NamedTuple
import torch

{klass}

cfg = {build}
for step in range(cfg.steps):
    y = torch.zeros(3, 1).to(cfg.device)
    loss = model(x - y).sum()
    loss.backward()
    optimizer.step()
"""
    named = "class RunConfig(NamedTuple):\n    device: object\n    steps: int"
    data = "@dataclasses.dataclass\nclass RunConfig:\n    device: object\n    steps: int = 2"
    based = "@dataclasses.dataclass\nclass Base:\n    seed: int = 0\n\n@dataclasses.dataclass\nclass RunConfig(Base):\n    steps: int = 2\n    device: object = 'cpu'"
    plain = "class RunConfig:\n    device: object\n    steps: int\n\n    def __init__(self, steps, device):\n        self.steps, self.device = steps, 'cpu'"

    def fix(klass, build):
        return _applicability(template.format(klass=klass, build=build))

    assert fix(named, "RunConfig(torch.float64, 2)") is None
    assert fix(data, "RunConfig(torch.float64)") is None
    assert fix(named, 'RunConfig("cpu", 2)') == "unsafe"
    assert fix(named, "RunConfig(2, torch.float64)") == "unsafe"
    assert fix(data, 'RunConfig("cpu", 3)') == "unsafe"
    assert fix(plain, "RunConfig(torch.float64, 2)") == "unsafe"
    assert fix(based, "RunConfig(2, torch.float64)") == "unsafe"


def test_a_device_attribute_set_by_setattr_or_returned_through_another_attribute():
    """`setattr(trainer, "device", torch.float64)` (or `object.__setattr__` in a frozen
    dataclass's `__post_init__`) gives the `self.device` a method reads a dtype: no fix,
    where the safe fix made `torch.ones(1, device=torch.float64)` raise. A `setattr` of
    another literal name leaves the safe fix; one whose name the file cannot read makes the
    move only named like a device. A `device` property returning an attribute follows that
    attribute's assignments."""
    template = """
import torch
ON_GPU = torch.cuda.is_available()  # the program may run on CUDA, so the CPU device is a choice

class Trainer:
    def __init__(self):
        {init}

    def step(self, x):
        shift = torch.ones(1).to(self.device)
        loss = model(x + shift).sum()
        loss.backward()
        optimizer.step()
{extra}
trainer = Trainer()
{store}
for i in range(3):
    trainer.step(x)
"""
    prop = "\n    @property\n    def device(self):\n        return self._precision\n"

    def fix(store, init='self.device = torch.device("cpu")', extra=""):
        [finding] = lint(template.format(store=store, init=init, extra=extra), [RULE])
        return finding.fix.applicability.value if finding.fix else None

    assert fix('setattr(trainer, "device", torch.float64)') is None
    assert fix('object.__setattr__(trainer, "device", torch.float64)') is None
    assert fix('setattr(trainer, "steps", torch.float64)') == "safe"
    assert fix("for key, value in overrides.items():\n    setattr(trainer, key, value)") == "unsafe"
    assert fix("", init="self._precision = torch.float64", extra=prop) is None
    assert fix("", init='self._precision = torch.device("cpu")', extra=prop) == "unsafe"


def test_a_device_attribute_bound_in_a_tuple_an_annotation_or_a_loop_target():
    """`trainer.device, trainer.steps = torch.float64, 2`, `trainer.device: object =
    torch.float64` and `for trainer.device in ("cpu", torch.float64)` give the `self.device`
    of a method a dtype: no fix (the safe fix raised). Devices in the same places keep the
    safe fix; a loop over values it cannot read makes the move only named like a device."""
    template = """
import torch
ON_GPU = torch.cuda.is_available()  # the program may run on CUDA, so the CPU device is a choice

class Trainer:
    def __init__(self):
        self.device = "cpu"

    def step(self, x):
        pad = torch.zeros(1).to(self.device)
        loss = model(x + pad).sum()
        loss.backward()
        optimizer.step()

trainer = Trainer()
{bind}
    trainer.step(x)
"""

    def fix(bind):
        return _applicability(template.format(bind=bind))

    assert fix("trainer.device, trainer.steps = torch.float64, 2\nfor i in range(3):") is None
    assert fix("trainer.device: object = torch.float64\nfor i in range(3):") is None
    assert fix('for trainer.device in ("cpu", torch.float64):') is None
    assert fix('trainer.device, trainer.steps = "cpu", 2\nfor i in range(3):') == "safe"
    assert fix('trainer.device: str = "cpu"\nfor i in range(3):') == "safe"
    assert fix('for trainer.device in ("cpu", "cpu:0"):') == "safe"
    assert fix("for trainer.device in placements:") == "unsafe"


def test_a_device_read_from_a_list_a_dict_call_an_or_or_getattr_of_torch():
    """A device spelled out in the file through `PLACES[1]` of a list literal, `PLACES["precise"]`
    of `dict(precise=...)`, `override or "cpu"` with `override = torch.float64`, or
    `getattr(torch, "float64")` is a dtype: no fix (the unsafe fix raised). The element at
    another index, another key, devices on both sides of `or` and `getattr(torch, "device")`
    calls keep the unsafe fix (only named like a device)."""
    template = """
import torch

{setup}
device = {read}
for step in range(3):
    pad = torch.zeros(1).to(device)
    loss = model(x + pad).sum()
    loss.backward()
    optimizer.step()
"""

    def fix(setup, read):
        return _applicability(template.format(setup=setup, read=read))

    places = 'PLACES = ["cpu", torch.float64]'
    keyed = 'PLACES = dict(train="cpu", precise=torch.float64)'
    assert fix(places, "PLACES[1]") is None
    assert fix(places, "PLACES[0]") == "unsafe"
    assert fix(keyed, 'PLACES["precise"]') is None
    assert fix(keyed, 'PLACES["train"]') == "unsafe"
    assert fix("override = torch.float64", 'override or "cpu"') is None
    assert fix('override = "cpu"', 'override or "cpu"') == "unsafe"
    assert fix("", 'getattr(torch, "float64")') is None
    assert fix("", 'getattr(torch, "device")("cpu")') == "unsafe"


def test_a_device_returned_by_a_function_of_the_file():
    """`device = pick(name)` where `pick` may return a dtype (directly, or through a name it
    assigns one to): no fix. A helper returning devices keeps the unsafe fix."""
    template = """
import torch

def pick(name):
    chosen = "cpu"
    if name == "precise":
        {branch}
    return chosen

device = pick("cpu")
for step in range(3):
    pad = torch.zeros(1).to(device)
    loss = model(x + pad).sum()
    loss.backward()
    optimizer.step()
"""

    def fix(branch):
        return _applicability(template.format(branch=branch))

    assert fix("chosen = torch.float64") is None
    assert fix("return torch.float64") is None
    assert fix('chosen = torch.device("cpu")') == "unsafe"
    assert fix('return "cpu"') == "unsafe"
