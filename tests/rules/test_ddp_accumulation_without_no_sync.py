from conftest import lines, lint

RULE = "TL503"

HEADER = """
import contextlib
import torch
from torch.nn.parallel import DistributedDataParallel as DDP
model = DDP(Net().cuda(), device_ids=[rank])
"""


def test_accumulation_without_no_sync_reported_on_backward():
    code = HEADER + """
for epoch in range(3):
    for i, (x, y) in enumerate(train_loader):
        loss = criterion(model(x), y) / accum_steps
        loss.backward()
        if (i + 1) % accum_steps == 0 or i + 1 == len(train_loader):
            optimizer.step()
            optimizer.zero_grad()
        scheduler.step()
"""
    [finding] = lint(code, [RULE])
    assert finding.line == 10 and finding.fix is None and "no_sync" in finding.message


def test_scaler_and_named_guards_and_step_in_a_function():
    code = HEADER + """
def update():
    scaler.step(optimizer)
    scaler.update()
for step, batch in enumerate(loader):
    scaler.scale(model(batch)).backward()
    if step % args.gradient_accumulation_steps == 0:
        update()
for batch in loader:
    model(batch).backward()
    accumulated += 1
    if accumulated == accum_steps:
        optimizer.step()
"""
    assert lines(code, RULE) == [11, 15]


def test_no_sync_in_the_loop_or_a_called_function_silences():
    code = HEADER + """
def micro_step(batch, last):
    with contextlib.nullcontext() if last else model.no_sync():
        model(batch).backward()
for i, batch in enumerate(loader):
    micro_step(batch, (i + 1) % accum == 0)
    if (i + 1) % accum == 0:
        optimizer.step()
for i, batch in enumerate(loader):
    model.require_backward_grad_sync = (i + 1) % accum == 0
    model(batch).backward()
    if (i + 1) % accum == 0:
        optimizer.step()
"""
    assert lines(code, RULE) == []


def test_no_accumulation_is_silent():
    code = HEADER + """
for i, batch in enumerate(loader):
    model(batch).backward()
    optimizer.step()
    if i % log_every == 0:
        print(i)
for i, batch in enumerate(loader):
    if (i + 1) % accum == 0:
        model(batch).backward()
        optimizer.step()
"""
    assert lines(code, RULE) == []


def test_without_torch_ddp_silent():
    body = """
for i, batch in enumerate(loader):
    model(batch).backward()
    if (i + 1) % accum == 0:
        optimizer.step()
"""
    assert lines("import torch\nmodel = Net().cuda()\n" + body, RULE) == []
    assert lines("import torch\nfrom mylib import DistributedDataParallel\nmodel = DistributedDataParallel(m)\n" + body, RULE) == []
    assert lines("import torch\nmodel = torch.nn.parallel.DistributedDataParallel(m)\n" + body, RULE) == [5]


def test_an_else_branch_that_steps_every_iteration_does_not_hide_accumulation():
    code = HEADER + """
for i, (x, y) in enumerate(train_loader):
    if args.accum_steps > 1:
        loss = criterion(model(x), y) / args.accum_steps
        loss.backward()
        if (i + 1) % args.accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
    else:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
"""
    assert lines(code, RULE) == [10]


def test_steps_in_else_of_the_window_and_every_iteration_branches():
    window_else = HEADER + """
for i, x in enumerate(train_loader):
    model(x).backward()
    if (i + 1) % accum != 0:
        continue
    else:
        optimizer.step()
"""
    assert lines(window_else, RULE) == [8]
    both_branches_step = HEADER + """
for i, x in enumerate(train_loader):
    model(x).backward()
    if use_clip:
        clip(model)
        optimizer.step()
    else:
        optimizer.step()
"""
    assert lines(both_branches_step, RULE) == []
    unguarded_and_guarded = HEADER + """
for i, x in enumerate(train_loader):
    model(x).backward()
    optimizer.step()
    if (i + 1) % log_every == 0:
        ema.step()
"""
    assert lines(unguarded_and_guarded, RULE) == []


ENGINE = """
import torch
def train_one_epoch(model, data_loader, optimizer, loss_scaler, accum_iter):
    for step, (samples, targets) in enumerate(data_loader):
        loss = criterion(model(samples.cuda()), targets.cuda()) / accum_iter
        loss_scaler(loss, optimizer, parameters=model.parameters(), update_grad=(step + 1) % accum_iter == 0)
        if (step + 1) % accum_iter == 0:
            optimizer.zero_grad()
"""


def test_a_step_helper_told_to_step_at_the_end_of_each_window(tmp_path):
    """The loss scaler runs the backward pass every micro-batch and steps when `update_grad`
    holds; DDP is chosen by the entry script that imports the engine module."""
    import textwrap

    from conftest import preview_options
    from torchlint.engine.linter import lint_text
    from torchlint.engine.rule import all_rules
    from torchlint.semantics import project

    def found(main: str) -> list:
        (tmp_path / "main.py").write_text(main)
        project.clear()
        rules = [rule for rule in all_rules() if rule.code == RULE]
        return [f.line for f in lint_text(engine, str(tmp_path / "engine.py"), rules, preview_options()).findings]

    (tmp_path / "pyproject.toml").write_text("")
    engine = textwrap.dedent(ENGINE)
    (tmp_path / "engine.py").write_text(engine)
    assert found("from engine import train_one_epoch\nmodel = torch.nn.parallel.DistributedDataParallel(model)\n") == [6]
    assert found("from engine import train_one_epoch\nmodel = model.cuda()\n") == []  # no DDP in the program
    assert lines(HEADER + ENGINE.replace("update_grad=(step + 1) % accum_iter == 0", "update_grad=True"), RULE) == []
