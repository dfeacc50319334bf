from conftest import lines, lint

RULE = "TL602"


def fixed(code: str):
    """(applicability, replacement text) of each finding's fix, None where there is none."""
    result = []
    for finding in lint(code, [RULE]):
        if finding.fix is None:
            result.append(None)
        else:
            [edit] = finding.fix.edits
            result.append((finding.fix.applicability.value, edit.content))
    return result


def test_every_import_path():
    code = """
    import torch
    import torch.cuda.amp as amp
    from torch.cuda.amp import autocast, GradScaler
    from torch.cpu.amp import autocast as cpu_autocast
    from torch.cuda.amp.grad_scaler import GradScaler as OldScaler
    with torch.cuda.amp.autocast():
        pass
    with amp.autocast(dtype=torch.bfloat16):
        pass
    with autocast():
        pass
    with cpu_autocast():
        pass
    a = torch.cuda.amp.GradScaler()
    b = GradScaler(enabled=use_amp)
    c = OldScaler()
    d = torch.cpu.amp.GradScaler()
    @torch.cuda.amp.autocast()
    def forward(x):
        return x
    """
    assert lines(code, RULE) == [7, 9, 11, 13, 15, 16, 17, 18, 19]


def test_new_api_references_and_look_alikes():
    code = """
    import torch
    from torch.amp import autocast, GradScaler
    from apex.amp import autocast as apex_autocast
    from accelerate.utils import GradScalerKwargs
    with torch.amp.autocast("cuda"):
        pass
    with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
        pass
    with autocast("cpu"):
        pass
    with apex_autocast():
        pass
    scaler = GradScaler("cuda")
    if isinstance(scaler, torch.cuda.amp.GradScaler):
        pass
    ctx = torch.cuda.amp.autocast
    def f(torch):
        with torch.cuda.amp.autocast():
            pass
    """
    assert lines(code, RULE) == []
    assert lines("from torch.cuda.amp import autocast\n", RULE) == []


def test_fix_inserts_the_device_and_keeps_arguments():
    code = """
    import torch
    with torch.cuda.amp.autocast():
        pass
    with torch.cuda.amp.autocast(enabled=use_amp, dtype=torch.float16):
        pass
    scaler = torch.cuda.amp.GradScaler(2.0**10, growth_interval=100)
    with torch.cpu.amp.autocast(cache_enabled=False):
        pass
    s = torch.cuda.amp.GradScaler(**scaler_kwargs)
    """
    assert fixed(code) == [
        ("safe", 'torch.amp.autocast("cuda", dtype=torch.float16)'),
        ("safe", 'torch.amp.autocast("cuda", enabled=use_amp, dtype=torch.float16)'),
        ("safe", 'torch.amp.GradScaler("cuda", 2.0**10, growth_interval=100)'),
        ("safe", 'torch.amp.autocast("cpu", cache_enabled=False, dtype=torch.bfloat16)'),
        ("safe", 'torch.amp.GradScaler("cuda", **scaler_kwargs)'),
    ]


def test_positional_autocast_arguments_become_keywords():
    # The old autocast takes (enabled, dtype, cache_enabled); the new one (device_type, dtype, enabled, ...).
    code = """
    import torch
    with torch.cuda.amp.autocast(True, torch.bfloat16):
        pass
    with torch.cuda.amp.autocast(False):
        pass
    with torch.cuda.amp.autocast(*flags):
        pass
    """
    assert fixed(code) == [
        ("safe", 'torch.amp.autocast("cuda", enabled=True, dtype=torch.bfloat16)'),
        ("safe", 'torch.amp.autocast("cuda", enabled=False)'),
        None,
    ]


def test_fix_uses_the_torch_alias_and_needs_a_plain_import():
    aliased = "import torch as th\nfrom torch.cuda.amp import GradScaler\nscaler = GradScaler()\n"
    assert fixed(aliased) == [("safe", 'th.amp.GradScaler("cuda")')]
    no_plain_import = "from torch.cuda.amp import GradScaler\nscaler = GradScaler()\n"
    [finding] = lint(no_plain_import, [RULE])
    assert [edit.content for edit in finding.fix.edits] == ['torch.amp.GradScaler("cuda")', "\nimport torch"]
    conditional = "try:\n    import torch\nexcept ImportError:\n    torch = None\nscaler = torch.cuda.amp.GradScaler()\n"
    assert fixed(conditional) == [None]


def test_multi_line_call_keeps_its_layout_and_comments():
    code = """
    import torch
    with torch.cuda.amp.autocast(
        enabled=use_amp,  # only on GPUs
        dtype=torch.float16,
    ):
        pass
    """
    [(applicability, content)] = fixed(code)
    assert applicability == "safe"
    assert content == 'torch.amp.autocast(\n    "cuda",\n    enabled=use_amp,  # only on GPUs\n    dtype=torch.float16,\n)'


def test_fix_writes_out_the_default_dtype_the_new_class_would_inherit():
    nested = """
    import torch
    with torch.autocast("cuda", dtype=torch.bfloat16):
        with torch.cuda.amp.autocast():
            pass
        with torch.cuda.amp.autocast(dtype=torch.float16):
            pass
        with torch.cuda.amp.autocast(enabled=False):
            pass
        with torch.cuda.amp.autocast(**options):
            pass
    """
    assert fixed(nested) == [
        ("safe", 'torch.amp.autocast("cuda", dtype=torch.float16)'),
        ("safe", 'torch.amp.autocast("cuda", dtype=torch.float16)'),
        ("safe", 'torch.amp.autocast("cuda", enabled=False)'),
        None,
    ]


def test_message():
    [finding] = lint("import torch\nscaler = torch.cuda.amp.GradScaler()\n", [RULE])
    assert finding.message == '`torch.cuda.amp.GradScaler` is deprecated; use `torch.amp.GradScaler("cuda", ...)`'


def test_not_deprecated_on_old_targets():
    code = "import torch\nscaler = torch.cuda.amp.GradScaler()\n"
    assert lint(code, [RULE], torch_version=(2, 3)) == []
    assert len(lint(code, [RULE], torch_version=(2, 4))) == 1


def test_new_api_elsewhere_in_a_script_does_not_hide_the_old_one():
    code = """
    import torch
    ctx = torch.amp.autocast(device_type="cuda", dtype=torch.bfloat16)
    scaler = torch.cuda.amp.GradScaler(enabled=True)
    """
    assert [f.code for f in lint(code, ["TL602"])] == ["TL602"]
