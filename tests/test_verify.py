"""torchlint verify: fixer check, subprocess runs, equivalence within tolerance, timing and output."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import List, Optional

import pytest

from torchlint import verify as verify_module
from torchlint.verify import (
    DEFAULT_TOLERANCE,
    TABLE_COLUMNS,
    TOLERANCES,
    RuleVerification,
    Tolerance,
    VerifyError,
    compare,
    default_fixtures_dir,
    fixture_codes,
    format_table,
    summarize,
    to_json,
    verify,
)

REPOSITORY_FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TIGHT = Tolerance(1e-6, 1e-9, "test")

# A stand-in fixture program without torch: it prints per-step values, scaled by SCALE, as JSON.
FAKE_PROGRAM = """\
import json, os
steps = int(os.environ["TORCHLINT_STEPS"])
print("some log line")
print(json.dumps({{"losses": [{scale} * step for step in range(steps)], "device": os.environ["TORCHLINT_DEVICE"]}}))
"""


def fake(scale: float = 1.0) -> str:
    return FAKE_PROGRAM.format(scale=scale)


def make_fixture(root: Path, code: str, before: str, after: Optional[str] = None) -> Path:
    """A fixture pair under `root`; `after` defaults to `before` (what the fixer leaves unchanged)."""
    directory = root / code
    directory.mkdir(parents=True)
    (directory / "before.py").write_text(before)
    (directory / "after.py").write_text(before if after is None else after)
    return root


def result(**changes: object) -> RuleVerification:
    fields = dict(
        code="TL101",
        name="sync-in-loop",
        device="cpu",
        before_s=0.004,
        after_s=0.002,
        speedup=2.0,
        spread=0.25,
        equivalent=True,
        detail="",
        syncs_before=None,
        syncs_after=None,
    )
    fields.update(changes)
    return RuleVerification(**fields)  # type: ignore[arg-type]


# --- comparing results -------------------------------------------------------------------------


def test_equal_results_agree():
    assert compare({"losses": [1.0, 2.0], "n": 3}, {"losses": [1.0, 2.0], "n": 3}, TIGHT) is None


def test_numbers_within_tolerance_agree():
    assert compare({"mean_loss": 1.0}, {"mean_loss": 1.0 + 5e-6}, Tolerance(1e-5, 0.0, "t")) is None
    assert compare([0.0], [5e-10], TIGHT) is None  # the absolute tolerance covers values near zero
    assert compare(3, 3.0, TIGHT) is None


def test_numbers_outside_tolerance_are_reported_with_their_place():
    problem = compare({"losses": [1.0, 2.0, 3.0]}, {"losses": [1.0, 2.0, 3.1]}, TIGHT)
    assert problem is not None and problem.startswith("losses[2]: 3.0 before, 3.1 after")


def test_nested_structures_are_compared_recursively():
    before = {"eval": {"outputs": [[1.0, 2.0], [3.0]]}, "tag": "x"}
    assert compare(before, json.loads(json.dumps(before)), TIGHT) is None
    after = {"eval": {"outputs": [[1.0, 2.0], [3.5]]}, "tag": "x"}
    problem = compare(before, after, TIGHT)
    assert problem is not None and problem.startswith("eval.outputs[1][0]:")


def test_mismatched_keys_and_lengths_are_reported():
    problem = compare({"losses": [1.0], "extra": 1}, {"losses": [1.0], "other": 1}, TIGHT)
    assert problem == "result: keys differ (only before: ['extra'], only after: ['other'])"
    assert compare({"a": {"b": 1}}, {"a": {}}, TIGHT) == "a: keys differ (only before: ['b'], only after: [])"
    assert compare({"losses": [1.0, 2.0]}, {"losses": [1.0]}, TIGHT) == "losses: 2 items before, 1 after"


def test_types_strings_and_special_numbers():
    assert compare("a", "a", TIGHT) is None
    assert compare("a", "b", TIGHT) is not None
    assert compare(True, 1, TIGHT) is not None  # a boolean is not a number here
    assert compare([1.0], {"a": 1.0}, TIGHT) is not None
    assert compare(None, 0.0, TIGHT) is not None
    assert compare(math.nan, math.nan, TIGHT) is None
    assert compare(math.nan, 1.0, TIGHT) is not None
    assert compare(math.inf, math.inf, TIGHT) is None


def test_every_fixture_has_a_stated_tolerance():
    for code in fixture_codes(REPOSITORY_FIXTURES):
        tolerance = TOLERANCES[code]
        assert tolerance.reason and "\n" not in tolerance.reason
        # TF32 (TL604) is the one remedy that lowers matmul precision by design.
        assert 0 < tolerance.rel <= (2e-2 if code == "TL604" else 1e-4)
    assert TOLERANCES["TL301"].rel > TOLERANCES["TL101"].rel > DEFAULT_TOLERANCE.rel


# --- timing summary and output -----------------------------------------------------------------


def test_summary_reports_medians_speedup_and_spread():
    before_s, after_s, speedup, spread = summarize([0.4, 0.6, 0.5], [0.25, 0.2, 0.25])
    assert (before_s, after_s) == (0.5, 0.25)
    assert speedup == pytest.approx(2.0)
    # Per-repeat speedups 1.6, 3.0, 2.0: each lies within 2.0 ± 1.0.
    assert spread == pytest.approx(1.0)


def test_summary_refuses_a_speedup_from_noise():
    assert summarize([0.001], [-0.0002])[2:] == (None, None)


def test_table_has_every_column_and_a_row_per_rule():
    rows = [
        result(),
        result(
            code="TL301", name="conv-bias-before-bn", equivalent=False, detail="4 steps: losses[1]: 1 before, 2 after"
        ),
        result(code="TL402", device="cuda", before_s=None, after_s=None, speedup=None, spread=None),
        result(code="TL101", device="cuda", syncs_before=23, syncs_after=3),
    ]
    table = format_table(rows)
    lines = table.splitlines()
    for column in TABLE_COLUMNS:
        assert column in lines[0]
    assert lines[1].split() == ["TL101", "cpu", "4.000", "2.000", "2.00x", "±", "0.25", "yes", "-"]
    assert lines[2].split()[-2:] == ["NO", "-"]
    assert lines[3].split() == ["TL402", "cuda", "-", "-", "-", "yes", "-"]
    assert lines[4].endswith("23 -> 3")
    assert lines[5] == "TL301: 4 steps: losses[1]: 1 before, 2 after"
    assert len(lines) == 6


def test_json_has_the_same_fields():
    rows = [result(), result(code="TL402", speedup=None, spread=None, equivalent=False, detail="x")]
    data = json.loads(to_json(rows))
    assert [row["code"] for row in data] == ["TL101", "TL402"]
    assert set(data[0]) == {
        "code",
        "name",
        "device",
        "before_s",
        "after_s",
        "speedup",
        "spread",
        "equivalent",
        "detail",
        "syncs_before",
        "syncs_after",
    }
    assert data[0]["speedup"] == 2.0 and data[1]["speedup"] is None and data[1]["equivalent"] is False


# --- running programs (stand-ins without torch) ------------------------------------------------


def test_agreeing_programs_are_equivalent_and_timed(tmp_path):
    root = make_fixture(tmp_path, "TL501", fake(), fake(1.0 + 1e-9))
    messages: List[str] = []
    [outcome] = verify(["TL501"], "cpu", 2, "small", 2, messages.append, fixtures_dir=root)
    assert outcome.equivalent, outcome.detail
    assert (outcome.code, outcome.name, outcome.device) == ("TL501", "data-parallel", "cpu")
    assert outcome.before_s is not None and outcome.after_s is not None
    assert (outcome.syncs_before, outcome.syncs_after) == (None, None)
    assert "hand-written" in outcome.detail  # TL501 has no automatic fix: after.py runs as written
    assert "TL501: timing before (1/2)..." in messages and "TL501: timing after (2/2)..." in messages
    # Repeats alternate the order so that drift hits both programs alike.
    timing = [m for m in messages if "timing" in m]
    assert timing == [
        "TL501: timing before (1/2)...",
        "TL501: timing after (1/2)...",
        "TL501: timing after (2/2)...",
        "TL501: timing before (2/2)...",
    ]


def test_differing_results_are_not_equivalent(tmp_path):
    root = make_fixture(tmp_path, "TL501", fake(), fake(1.5))
    [outcome] = verify(["TL501"], "cpu", 2, "small", 1, None, fixtures_dir=root)
    assert not outcome.equivalent
    assert outcome.detail.startswith("2 steps: losses[1]: 1.0 before, 1.5 after")


def test_programs_get_steps_device_size_and_seeds(tmp_path):
    program = textwrap.dedent(
        """\
        import json, os
        assert os.environ["TORCHLINT_DEVICE"] == "cpu" and os.environ["TORCHLINT_SIZE"] == "large"
        assert os.environ["PYTHONHASHSEED"] == "0"
        print(json.dumps({"steps": int(os.environ["TORCHLINT_STEPS"])}))
        """
    )
    root = make_fixture(tmp_path, "TL501", program, program.replace('int(os.environ["TORCHLINT_STEPS"])', "3"))
    [outcome] = verify(["TL501"], "cpu", 3, "large", 1, None, fixtures_dir=root)
    # Both programs ran with 3 and with 6 steps; the results of both step counts are compared.
    assert outcome.detail.startswith("6 steps: steps: 6 before, 3 after")


def test_repeats_zero_checks_equivalence_only(tmp_path):
    root = make_fixture(tmp_path, "TL501", fake())
    messages: List[str] = []
    [outcome] = verify(["TL501"], "cpu", 2, "small", 0, messages.append, fixtures_dir=root)
    assert outcome.equivalent and outcome.before_s is None and outcome.speedup is None
    assert messages[1:] == ["TL501: running before...", "TL501: running after..."]


def test_a_failing_program_is_reported_without_a_traceback(tmp_path):
    failing = "import sys\nprint('starting')\nraise RuntimeError('CUDA out of memory, pretend')\n"
    root = make_fixture(tmp_path, "TL501", failing, fake())
    [outcome] = verify(["TL501"], "cpu", 2, "small", 1, None, fixtures_dir=root)
    assert not outcome.equivalent
    assert outcome.detail == "before.py exited with status 1: RuntimeError: CUDA out of memory, pretend"
    assert outcome.before_s is None and outcome.speedup is None


def test_a_program_without_a_json_result_is_reported(tmp_path):
    root = make_fixture(tmp_path, "TL501", fake(), "print('done')\n")
    [outcome] = verify(["TL501"], "cpu", 1, "small", 0, None, fixtures_dir=root)
    assert not outcome.equivalent
    assert outcome.detail == "after.py did not print a JSON result as its last line: 'done'"


def test_a_hanging_program_times_out(tmp_path):
    root = make_fixture(tmp_path, "TL501", "import time\ntime.sleep(30)\n", fake())
    [outcome] = verify(["TL501"], "cpu", 1, "small", 0, None, fixtures_dir=root, timeout=0.5)
    assert not outcome.equivalent and outcome.detail == "before.py timed out after 0.5 s"


def test_fixer_output_differing_from_after_is_reported(tmp_path):
    before = (REPOSITORY_FIXTURES / "TL401" / "before.py").read_text()
    after = (REPOSITORY_FIXTURES / "TL401" / "after.py").read_text().replace("optimizer.zero_grad()", "pass")
    root = make_fixture(tmp_path, "TL401", before, after)
    messages: List[str] = []
    [outcome] = verify(["TL401"], "cpu", 2, "small", 1, messages.append, fixtures_dir=root)
    assert not outcome.equivalent and outcome.before_s is None
    assert outcome.detail == (
        "torchlint's fix of before.py differs from after.py, "
        "line 20: after.py has 'pass', the fixer wrote 'optimizer.zero_grad()'"
    )
    assert messages == ["TL401: fixing before.py..."]  # nothing ran


def test_fixer_output_is_what_runs_as_after(tmp_path, monkeypatch):
    # A stand-in whose only finding is TL402: the program that runs as 'after' is the fixer's output.
    # A stub `torch` on PYTHONPATH spares two real imports of torch.
    stub = tmp_path / "stub" / "torch"
    stub.mkdir(parents=True)
    (stub / "__init__.py").write_text("def no_grad():\n    return lambda function: function\n")
    monkeypatch.setenv("PYTHONPATH", str(stub.parent))
    before = textwrap.dedent(
        """\
        import json
        import torch


        def evaluate(model, batches):
            model.eval()
            return [model(batch) for batch in batches]


        print(json.dumps({"decorators": sum(line.startswith("@") for line in open(__file__))}))
        """
    )
    fixed = before.replace("\n\ndef evaluate", "\n\n@torch.no_grad()\ndef evaluate")
    root = make_fixture(tmp_path / "fixtures", "TL402", before, fixed)
    [outcome] = verify(["TL402"], "cpu", 1, "small", 0, None, fixtures_dir=root)
    assert outcome.detail.startswith("1 steps: decorators: 0 before, 1 after")


def test_syncs_are_counted_on_cuda_for_tl101(tmp_path, monkeypatch):
    # A CPU build cannot set the sync debug mode: stand in for torch's warnings with the same text.
    wrapper = verify_module.SYNC_WRAPPER.replace("import torch\n", "").replace(
        'torch.cuda.set_sync_debug_mode("warn")\n', ""
    )
    monkeypatch.setattr(verify_module, "SYNC_WRAPPER", wrapper)
    program = textwrap.dedent(
        """\
        import json, os, warnings
        from pathlib import Path
        steps = int(os.environ["TORCHLINT_STEPS"])
        for _ in range(steps if Path(__file__).name == "before.py" else 0):
            warnings.warn("called a synchronizing CUDA operation")
        warnings.warn("something else")
        print(json.dumps({"steps": steps}))
        """
    )
    root = make_fixture(tmp_path, "TL101", program)
    [outcome] = verify(["TL101"], "cuda", 3, "small", 0, None, fixtures_dir=root)
    assert outcome.equivalent, outcome.detail
    assert (outcome.syncs_before, outcome.syncs_after) == (3, 0)
    [cpu] = verify(["TL101"], "cpu", 3, "small", 0, None, fixtures_dir=root)
    assert (cpu.syncs_before, cpu.syncs_after) == (None, None)


# --- errors before anything runs ----------------------------------------------------------------


def test_the_checkout_fixtures_are_found():
    assert default_fixtures_dir() == REPOSITORY_FIXTURES
    assert "TL101" in fixture_codes(REPOSITORY_FIXTURES)


def test_missing_fixtures_need_a_source_checkout(tmp_path, monkeypatch):
    monkeypatch.setattr(
        verify_module.torchlint, "__file__", str(tmp_path / "site-packages" / "torchlint" / "__init__.py")
    )
    with pytest.raises(VerifyError, match="source checkout"):
        verify(None, "cpu", 1, "small", 0, None)


@pytest.mark.parametrize(
    "arguments, message",
    [
        ((["TL999"], "cpu", 1, "small", 1), "no fixture pair for TL999"),
        ((None, "tpu", 1, "small", 1), "unknown device"),
        ((None, "cpu", 1, "huge", 1), "unknown size"),
        ((None, "cpu", 0, "small", 1), "steps"),
        ((None, "cpu", 1, "small", -1), "repeats"),
    ],
)
def test_bad_arguments_are_refused(arguments, message):
    with pytest.raises(VerifyError, match=message):
        verify(*arguments, None)


def test_verify_does_not_import_torch():
    code = "import sys, torchlint.verify; assert 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


# --- the real fixtures ------------------------------------------------------------------------------


def test_every_fixture_pair_is_equivalent_on_cpu_through_the_cli(monkeypatch):
    """Every rule's fixed program keeps its results (each program runs once)."""
    pytest.importorskip("torch")
    from click.testing import CliRunner

    from torchlint.cli import main

    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    result = CliRunner().invoke(main, ["verify", "--steps", "2", "--repeats", "0", "--output-format", "json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [row["code"] for row in rows] == fixture_codes(REPOSITORY_FIXTURES)
    assert all(row["equivalent"] for row in rows)


def test_a_real_fixture_is_timed(monkeypatch):
    pytest.importorskip("torch")
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    [result] = verify(["TL401"], "cpu", 2, "small", 1, None)
    assert result.equivalent and result.before_s is not None and result.after_s is not None
