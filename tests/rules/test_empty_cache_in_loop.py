import textwrap

import pytest

from conftest import lines, lint

from torchlint.engine.context import Options
from torchlint.engine.fixer import fix_text
from torchlint.engine.rule import all_rules

RULE = "TL104"


def fixed(code):
    """The snippet fixed, preview variants included (the fix is the same in both tiers)."""
    rules = [rule for rule in all_rules() if rule.code == RULE]
    return fix_text(textwrap.dedent(code), "snippet.py", rules, Options(preview=True), unsafe=True).text


def test_empty_cache_in_step_loops_however_imported():
    code = """
    import torch
    import torch.cuda as tc
    from torch.cuda import empty_cache
    from torch.cuda import empty_cache as free
    for x, y in loader:
        loss = model(x.cuda())
        torch.cuda.empty_cache()
        tc.empty_cache()
        empty_cache()
        free()
        torch.cuda.memory.empty_cache()
    while step < total:
        step = train_step(step)
        torch.cuda.empty_cache()
    """
    assert lines(code, RULE) == [8, 9, 10, 11, 12, 15]


def test_reported_span_and_message():
    [finding] = lint("import torch\nfor x in loader:\n    torch.cuda.empty_cache()\n", [RULE])
    assert (finding.line, finding.column, finding.end_column) == (3, 5, 29)
    assert "cudaMalloc" in finding.message


def test_outside_loops_and_in_functions_defined_in_loops():
    code = """
    import torch
    torch.cuda.empty_cache()
    def cleanup():
        torch.cuda.empty_cache()
    for x in loader:
        callback = lambda: torch.cuda.empty_cache()
        def hook():
            torch.cuda.empty_cache()
    """
    assert lines(code, RULE) == []


def test_look_alikes_other_backends_and_shadowed_names():
    code = """
    import torch
    import mylib
    from mylib.cuda import empty_cache
    for x in loader:
        empty_cache()
        mylib.cuda.empty_cache()
        cache.empty_cache()
        torch.mps.empty_cache()
    def f(torch):
        for x in loader:
            torch.cuda.empty_cache()
    """
    assert lines(code, RULE) == []


def test_epoch_job_and_container_loops():
    code = """
    import torch
    for epoch in range(1, args.epochs + 1):
        train(model, loader)
        torch.cuda.empty_cache()
    for model_name in model_names:
        run_benchmark(model_name)
        torch.cuda.empty_cache()
    for cfg in configs:
        torch.cuda.empty_cache()
    for i in range(num_trials):
        torch.cuda.empty_cache()
    for name, p in model.named_parameters():
        torch.cuda.empty_cache()
    for phase in ["train", "val"]:
        torch.cuda.empty_cache()
    for epoch in range(epochs):
        for batch in train_loader:
            step(batch)
            torch.cuda.empty_cache()
    """
    assert lines(code, RULE) == [20]


def test_guards_handlers_and_memory_checks():
    code = """
    import torch
    for step, batch in enumerate(loader):
        train_step(batch)
        if step % 1000 == 0:
            torch.cuda.empty_cache()
        if (step + 1) % args.log_every == 0:
            torch.cuda.empty_cache()
        if step == 0:
            torch.cuda.empty_cache()
        if torch.cuda.memory_reserved() > limit:
            torch.cuda.empty_cache()
        if args.empty_cache:
            torch.cuda.empty_cache()
        if low_memory:
            pass
        else:
            torch.cuda.empty_cache()
        try:
            train_step(batch)
        except torch.cuda.OutOfMemoryError:
            torch.cuda.empty_cache()
    """
    assert lines(code, RULE) == []


def test_conditions_that_are_not_guards():
    code = """
    import torch
    for step, batch in enumerate(loader):
        if torch.cuda.is_available():
            torch.cuda.empty_cache()
        if step % 100 == 0:
            log(step)
        else:
            torch.cuda.empty_cache()
        try:
            train_step(batch)
        finally:
            torch.cuda.empty_cache()
    """
    assert lines(code, RULE) == [5, 9, 13]


def test_memory_measuring_loops_and_test_code():
    code = """
    import torch
    for batch_size in sizes:
        torch.cuda.reset_peak_memory_stats()
        run(batch_size)
        peak = torch.cuda.max_memory_allocated()
        torch.cuda.empty_cache()
    def test_training():
        for x in loader:
            torch.cuda.empty_cache()
    """
    assert lines(code, RULE) == []


def test_fix_removes_the_statement():
    code = """
    import torch
    for x, y in loader:
        loss = model(x.cuda())  # forward
        loss.backward()

        torch.cuda.empty_cache()
        optimizer.step()
    """
    assert fixed(code) == textwrap.dedent(
        """
        import torch
        for x, y in loader:
            loss = model(x.cuda())  # forward
            loss.backward()

            optimizer.step()
        """
    )


def test_fix_removes_the_last_and_first_statements_of_nested_blocks():
    code = """
    import torch
    def train():
        for x in loader:
            with torch.autocast("cuda"):
                torch.cuda.empty_cache()
                step(x)
            if step % 10 == 0:
                log(x)
            torch.cuda.empty_cache()
        return 1
    """
    assert fixed(code) == textwrap.dedent(
        """
        import torch
        def train():
            for x in loader:
                with torch.autocast("cuda"):
                    step(x)
                if step % 10 == 0:
                    log(x)
            return 1
        """
    )


def test_fix_leaves_pass_in_an_otherwise_empty_block():
    code = """
    import torch
    for x in loader:
        step(x)
        if torch.cuda.is_available():
            torch.cuda.empty_cache()  # free memory
    for x in loader: torch.cuda.empty_cache()
    """
    assert fixed(code) == textwrap.dedent(
        """
        import torch
        for x in loader:
            step(x)
            if torch.cuda.is_available():
                pass  # free memory
        for x in loader: pass
        """
    )


def test_no_fix_when_comments_would_be_lost_or_the_call_is_not_a_statement():
    code = """
    import torch
    for x in loader:
        step(x)
        # release memory for the next batch
        torch.cuda.empty_cache()
        step(x)
        torch.cuda.empty_cache()  # keep memory low
        step(x); torch.cuda.empty_cache()
        result = torch.cuda.empty_cache()
        step(x)
        torch.cuda.empty_cache()
    """
    findings = lint(code, [RULE])
    assert [(f.line, f.fix is not None) for f in findings] == [(6, False), (8, False), (9, False), (10, False), (12, True)]
    assert {f.fix.applicability.value for f in findings if f.fix} == {"unsafe"}


def test_fix_keeps_windows_newlines():
    code = "import torch\r\nfor x in loader:\r\n    step(x)\r\n    torch.cuda.empty_cache()\r\n    log(x)\r\n"
    rules = [rule for rule in all_rules() if rule.code == RULE]
    result = fix_text(code, "snippet.py", rules, Options(preview=True), unsafe=True).text
    assert result == "import torch\r\nfor x in loader:\r\n    step(x)\r\n    log(x)\r\n"


@pytest.mark.stable_only
def test_stable_in_loops_that_train_preview_in_other_step_loops(monkeypatch):
    code = """
    import torch
    for x, y in loader:
        loss = model(x.cuda())
        loss.backward()
        optimizer.step()
        torch.cuda.empty_cache()
    def quantize(model, calibration):
        for name, layer in model.named_children():
            gptq(layer, calibration)
            torch.cuda.empty_cache()
        for volume in test_volumes:
            predict(model, volume.cuda())
            torch.cuda.empty_cache()
    """
    assert lines(code, RULE) == [7]
    monkeypatch.setenv("TORCHLINT_PREVIEW", "1")
    assert lines(code, RULE) == [7, 14]
