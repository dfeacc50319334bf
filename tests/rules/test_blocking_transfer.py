import pytest

from conftest import lines, lint, preview_options

from torchlint.engine.fixer import fix_text
from torchlint.engine.rule import all_rules

RULE = "TL106"
PINNED = "from torch.utils.data import DataLoader\nloader = DataLoader(ds, num_workers=4, pin_memory=True)\n"


def fixed(code):
    rules = [rule for rule in all_rules() if rule.code == RULE]
    return fix_text(code, "snippet.py", rules, preview_options(), unsafe=False).text


def test_moves_of_targets_and_their_elements():
    code = PINNED + """
for step, (x, batch) in enumerate(tqdm(loader)):
    a = x.cuda()
    b = x.to(device)
    c = batch["y"].to("cuda:0")
    d = x.to(device=device)
"""
    assert lines(code, RULE) == [5, 6, 7, 8]


def test_fix_adds_non_blocking_and_is_safe():
    code = PINNED + "for x, y in loader:\n    x, y = x.cuda(), y.to(device)\n"
    [finding] = lint(code, [RULE])[:1]
    assert finding.fix.applicability.value == "safe"
    assert fixed(code).endswith("x, y = x.cuda(non_blocking=True), y.to(device, non_blocking=True)\n")


def test_loader_must_pin_memory_on_cuda_and_be_torch_s():
    """`pin_memory=use_cuda` pins exactly where a copy to CUDA happens; an unknown flag does not."""
    code = """
    from torch.utils.data import DataLoader
    import torch
    from mylib import DataLoader as Other
    a = DataLoader(ds, num_workers=4)
    b = DataLoader(ds, num_workers=4, pin_memory=use_cuda)
    c = Other(ds, pin_memory=True)
    d = DataLoader(ds, num_workers=4, pin_memory=args.pin)
    for x in a:
        x.cuda()
    for x in b:
        x.cuda()
    for x in c:
        x.cuda()
    for x in d:
        x.cuda()
    """
    assert lines(code, RULE) == [12]


def test_already_non_blocking_casts_and_host_moves():
    code = PINNED + """
import torch
for x in loader:
    a = x.cuda(non_blocking=True)
    b = x.to(device, non_blocking=False)
    c = x.to(torch.float16)
    d = x.to("cpu")
    e = x.to(device, torch.float16)
    f = x.cuda(0, True)
    g = x.to(**opts)
    h = x.to(other)
    i = y.cuda()
"""
    assert lines(code, RULE) == []


def test_rebound_or_modified_batches_and_nested_scopes():
    code = PINNED + """
for x, y, z in loader:
    x = x.float()
    y.mul_(2)
    a = x.cuda()
    b = y.cuda()
    f = lambda: z.cuda()
"""
    assert lines(code, RULE) == []


def test_comprehensions_over_the_batch_move_it():
    """`[x.to(device) for x in batch]` and `{k: v.to(device) for k, v in batch.items()}`: the
    elements and entries of a pinned batch are pinned tensors."""
    code = PINNED + """
for batch, extra, rows in loader:
    batch = [x.to(device) for x in batch]
    extra = {k: v.to(device) for k, v in extra.items()}
    c = [t.cuda() for t in rows]
    d = [t.cuda() for t in other]
    e = {k: v.cuda() for k, v in other.items()}
"""
    assert lines(code, RULE) == [5, 6, 7]
    assert "x.to(device, non_blocking=True) for x in batch" in fixed(code)


def test_a_comprehension_name_that_draws_from_something_else_shadows_the_batch():
    """A comprehension's `for` binds its own names: `[x.to(device) for x in masks]` in a loop
    over `x` moves the masks, not the batch (a flex-attention `BlockMask.to()` has no
    `non_blocking`); a name drawn from the batch in one comprehension is not the batch in the
    next one of the same statement, and a clause drawing from an element drawn from the batch
    still is."""
    code = PINNED + """
for x in loader:
    masks = [x.to(device) for x in block_masks]
    both = [t.to(device) for t in x] + [t.to(device) for t in block_masks]
    rows = [r.to(device) for row in x for r in row]
    kept = [x.to(device) for _ in range(2)]
    own = [x.to(device) for x in x]
"""
    assert lines(code, RULE) == [6, 7, 8, 9]
    assert "[t.to(device) for t in block_masks]" in fixed(code)


def test_batches_changed_in_place_through_their_elements():
    """A loop or comprehension over the batch's tensors or entries that changes them in place
    (`for t in batch: t.sub_(m)`, `[t.clamp_(0, 1) for t in batch]`) writes to the pinned
    memory an asynchronous copy may still read: silent. Reading the elements, or changing a
    list of other tensors in place, keeps the finding."""
    code = PINNED + """
for batch in loader:
    a = [t.to(device) for t in batch]
    for t in batch:
        t.sub_(1)
for batch in loader:
    a = [t.to(device) for t in batch]
    [t.clamp_(0, 1) for t in batch]
for batch in loader:
    a = {k: v.to(device) for k, v in batch.items()}
    for v in batch.values():
        v.mul_(2)
for batch in loader:
    a = [t.to(device) for t in batch]
    for t in batch:
        print(t.sum())
    [b.zero_() for b in buffers]
"""
    assert lines(code, RULE) == [16]


def test_batches_changed_in_place_through_a_view_after_the_move():
    code = PINNED + """
for x, y in loader:
    flat = x.view(-1)
    row = y[0].t()
    a = x.cuda()
    b = y.cuda()
    flat.mul_(2)
    row += 1
for x, y in loader:
    copy = x.clone()
    a = x.cuda()
    copy.mul_(2)
"""
    assert lines(code, RULE) == [13]


def test_loader_rebound_or_from_another_scope():
    code = """
    from torch.utils.data import DataLoader
    loader = DataLoader(ds, num_workers=4, pin_memory=True)
    def train(loader):
        for x in loader:
            x.cuda()
    loader = make_loader()
    for x in loader:
        x.cuda()
    """
    assert lines(code, RULE) == []


def test_loader_as_attribute_of_self():
    code = """
    import torch
    class Trainer:
        def __init__(self, ds):
            self.loader = torch.utils.data.DataLoader(ds, num_workers=2, pin_memory=True)
        def fit(self):
            for x in self.loader:
                x.to(self.device)
    """
    assert lines(code, RULE) == [8]


TRAINING = PINNED + """
for x, y in loader:
    loss = criterion(model(x.cuda()), y.cuda())
    loss.backward()
    optimizer.step()
"""


@pytest.mark.stable_only
def test_stable_in_loops_that_run_with_training():
    assert lines(TRAINING, RULE) == [5, 5]
    inference = PINNED + "for x, y in loader:\n    outputs.append(model(x.cuda()))\n"
    assert lines(inference, RULE) == []


def test_silent_in_programs_that_never_train_even_in_preview():
    demo = PINNED + "if __name__ == '__main__':\n    for x, y in loader:\n        print(model(x.cuda()).argmax(1))\n"
    assert lines(demo, RULE) == []
    assert lines(demo.replace("print(model(x.cuda()).argmax(1))", "model(x.cuda()).sum().backward()"), RULE) == [5]


def test_loaders_handed_on_keyword_dicts_and_parts_of_batches():
    code = """
    import torch
    from torch.utils.data import DataLoader
    loader_args = dict(batch_size=8, num_workers=4, pin_memory=True)
    train_loader = DataLoader(train_set, shuffle=True, **loader_args)
    def train(loader):
        for batch in loader:
            images, masks = batch["image"], batch["mask"]
            images = images.to(device=device, dtype=torch.float32)
            masks = masks.to(device)
            criterion(model(images), masks).backward()
            optimizer.step()
    for epoch in range(3):
        train(train_loader)
    """
    findings = lint(code, [RULE])
    assert [f.line for f in findings] == [9, 10]
    assert all(f.fix.applicability.value == "unsafe" for f in findings)  # `**loader_args` may hold a collate_fn


def test_a_batch_name_rebound_after_its_move_or_changed_in_place():
    code = PINNED + """
for imgs, caps in loader:
    imgs = imgs.to(device)
    caps = caps.to(device)
    imgs = encoder(imgs)
    imgs = imgs.to(device)
    criterion(model(imgs), caps).backward()
    optimizer.step()
for x, y in loader:
    x.mul_(2)
    x = x.to(device)
    loss = model(x).sum()
    loss.backward()
    optimizer.step()
"""
    assert lines(code, RULE) == [5, 6]  # not the move of the encoded value, nor of a batch changed in place


@pytest.mark.parametrize(
    ("loader", "expected"),
    [
        ("DataLoader(ds, pin_memory=True, collate_fn=collate)", None),
        ("DataLoader(ds, batch_size=None, pin_memory=True)", None),
        ("DataLoader(ds, batch_size=8, pin_memory=True)", "safe"),
    ],
)
def test_no_fix_for_batches_that_may_hold_a_block_mask(loader, expected):
    """A file that makes flex-attention block masks may hand one along with a batch that is
    not collated by default: `BlockMask.to()` takes no `non_blocking`. Default collation
    cannot hold one."""
    code = (
        "from torch.nn.attention.flex_attention import create_block_mask\nfrom torch.utils.data import DataLoader\n"
        f"mask = create_block_mask(causal, None, None, 128, 128)\nloader = {loader}\n"
        "for batch in loader:\n    batch = {k: v.to(device) for k, v in batch.items()}\n    loss = model(batch).sum()\n    loss.backward()\n"
    )
    [finding] = lint(code, [RULE])
    assert (finding.fix.applicability.value if finding.fix else None) == expected


@pytest.mark.parametrize(
    ("to", "expected"),
    [
        ("def to(self, device):\n        return self", None),
        ("to = _move", None),
        ("def __getattr__(self, name):\n        return getattr(self.x, name)", None),
        # hard negatives: a to() that takes non_blocking, by name or in **kwargs
        ("def to(self, device, non_blocking=False):\n        return self", "safe"),
        ("def to(self, *args, **kwargs):\n        return self", "safe"),
    ],
)
def test_no_fix_when_another_module_of_the_project_defines_a_blocking_to(tmp_path, to, expected):
    """A batch class of another module (a NamedTuple that default collation keeps) whose
    `.to()` takes no `non_blocking`: the fix would make the move raise TypeError."""
    from torchlint.engine.linter import lint_text

    (tmp_path / "setup.py").write_text("")
    (tmp_path / "batch.py").write_text(f"from typing import NamedTuple\n\ndef _move(self, device):\n    return self\n\nclass Pair(NamedTuple):\n    x: object\n    {to}\n")
    train = tmp_path / "train.py"
    train.write_text(PINNED + "for batch in loader:\n    batch = batch.to(device)\n    loss = model(batch).sum()\n    loss.backward()\n")
    rules = [rule for rule in all_rules() if rule.code == RULE]
    [finding] = lint_text(train.read_text(), str(train), rules, preview_options()).findings
    assert (finding.fix.applicability.value if finding.fix else None) == expected


def test_a_batch_replaced_by_its_move_then_written_on_the_device():
    """`image = image.cuda()` first in the loop: later writes through `image` (CutMix's
    `image[..., y0:y1, x0:x1] = ...`) change the device copy, not the pinned host batch the
    copy reads. A view or alias taken before the move, or a move that keeps the name, still
    leaves the host batch written after the copy started."""
    code = PINNED + """
for image, label in loader:
    image = image.cuda()
    label = label.cuda()
    image[:, :, 2:4, 2:4] = image[perm, :, 2:4, 2:4]
    loss = criterion(model(image), label)
    loss.backward()
    optimizer.step()
for image, label in loader:
    flat = image.view(-1)
    image = image.cuda()
    flat.mul_(2)
for image, label in loader:
    moved = image.cuda()
    image[0] = 0
"""
    assert lines(code, RULE) == [5, 6]
    assert "image = image.cuda(non_blocking=True)" in fixed(code)


def test_a_name_rebound_to_its_device_copy_no_longer_holds_the_batch():
    """After `x = x.to(device)`, `x.to(cpu)` copies the device tensor back to the host:
    `non_blocking=True` there lets the host read it before the copy is done (on an H200, 3 of
    12 steps summed other values). A move that does not rebind the name (`model(x.to(device))`)
    or a dtype cast on the host (`x = x.to(torch.float16)`) leaves the batch's later moves
    reported; after a rebinding in one branch the name may hold either, and is not followed."""
    code = PINNED + """
cpu = torch.device("cpu")
for x, y in loader:
    x = x.to(device)
    y = torch.cat([y.to(device), y.to(device)])
    loss = model(x).sum()
    loss.backward()
    optimizer.step()
    back = x.to(cpu)
    labels = y.to(cpu)
for x, y in loader:
    out = model(x.to(device))
    x = x.to(torch.float16)
    if use_cuda:
        y = y.to(device)
    out.sum().backward()
    optimizer.step()
    again = x.to(device)
    other = y.to(device)
"""
    assert lines(code, RULE) == [6, 7, 7, 14, 17, 20]  # not 11, 12 (copies back) nor 21
