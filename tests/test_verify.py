"""torchlint verify: fixer check, subprocess runs, equivalence within tolerance, timing and output."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import List, Optional

import pytest

from torchlint.verify.verification import (
    AFTER,
    AGAIN,
    BEFORE,
    RuleVerification,
    VerifyError,
    equivalence_problem,
    verify,
)
from torchlint.verify import clock, pairs, running, verification
from torchlint.verify.pairs import default_fixtures_dir, fixture_codes
from torchlint.verify.tolerances import (
    DEFAULT_TOLERANCE,
    GPU_REL_FLOOR,
    NOISE_FACTOR,
    TOLERANCES,
    Tolerance,
    calibrated,
    compare,
    for_device,
    relative_noise,
)
from torchlint.verify.environment import Environment
from torchlint.verify.output import COLUMNS, CPU_NOTE, Context, format_table, markdown_report, to_json
from torchlint.verify.sizes import SIZES, WORKLOADS
from torchlint.verify.stats import median_interval, summarize, window_times

REPOSITORY_FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
TIGHT = Tolerance(1e-6, 1e-9, "test")

# A stand-in fixture program without torch: it prints per-step values, scaled by SCALE, as JSON.
FAKE_PROGRAM = """\
import json, os
steps = int(os.environ["TORCHLINT_STEPS"])
print("some log line")
print(json.dumps({{"losses": [{scale} * step for step in range(steps)], "device": os.environ["TORCHLINT_DEVICE"]}}))
"""

# A timed stand-in: it marks each step's start and sleeps MS milliseconds per step.
TIMED_PROGRAM = """\
import json, os, time
from torchlint.verify.clock import mark_step
steps = int(os.environ["TORCHLINT_STEPS"])
for step in range(steps):
    mark_step()
    time.sleep({ms} / 1000)
print(json.dumps({{"steps": steps}}))
"""


def timed_fake(ms: float) -> str:
    return TIMED_PROGRAM.format(ms=ms)


@pytest.fixture(autouse=True)
def no_preload(monkeypatch):
    """The stand-in programs need no torch: the fork server need not import it first."""
    monkeypatch.setattr(running, "PRELOAD", ())


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
    fields: dict = dict(
        code="TL101",
        name="sync-in-loop",
        workload="ResNet step",
        device="cuda",
        equivalent=True,
        detail="",
        before_s=0.004,
        after_s=0.002,
        speedup=2.0,
        speedup_low=1.5,
        speedup_high=2.5,
        confidence=0.9375,
        aa_spread=0.05,
    )
    fields.update(changes)
    return RuleVerification(**fields)


def context(device: str = "cuda", timed: bool = True) -> Context:
    environment = Environment("3.11.7", "2.13.0", "12.4" if device == "cuda" else None, "NVIDIA H100", device == "cuda")
    command = f"torchlint verify --device {device} --size large --steps 20 --repeats 5"
    return Context(command, "large", device, 20, timed, environment, "2026-01-01 00:00 UTC")


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
        # TF32 (TL604) lowers matmul precision by design; cuDNN autotuning (TL603) changes the
        # convolution algorithms of every training step. Every other remedy agrees to 1e-4.
        assert 0 < tolerance.rel <= {"TL604": 2e-2, "TL603": 1e-3}.get(code, 1e-4)
    assert TOLERANCES["TL301"].rel > TOLERANCES["TL101"].rel > DEFAULT_TOLERANCE.rel


# --- timing statistics ----------------------------------------------------------------------------


def test_median_interval_uses_order_statistics():
    # Five values: only the full range reaches past 90% (1 - 2/32 = 93.75%).
    interval = median_interval([5.0, 1.0, 3.0, 2.0, 4.0])
    assert (interval.low, interval.high) == (1.0, 5.0)
    assert interval.confidence == pytest.approx(1 - 2 / 32)
    # Ten values: the 2nd and 9th order statistics cover the median with 97.9%.
    interval = median_interval([float(value) for value in range(10)])
    assert (interval.low, interval.high) == (1.0, 8.0)
    assert interval.confidence == pytest.approx(1 - 2 * 11 / 1024)
    assert interval.confidence >= 0.95


def test_window_times_leave_out_the_warm_up_and_need_the_next_step_start():
    # Step starts at 0, 5, 6, 7, ... seconds: the first step (warm-up) took 5 s.
    marks = [0.0, 5.0, 6.0, 7.0, 8.0, 9.5, 11.0]
    assert window_times(marks, warmup=1, window=2) == [1.0, 1.25]
    assert window_times(marks, warmup=1, window=5) == [1.2]
    assert window_times(marks, warmup=1, window=6) == []  # no start after the sixth measured step
    assert window_times([], warmup=3, window=4) == []


def test_summary_reports_medians_and_the_median_speedup_with_its_interval():
    # Two repeats of three windows; before/after ratios 1.6, 3.0, 2.0 and 2.0, 2.4, 2.0.
    timing = summarize([[0.4, 0.6, 0.5], [0.5, 0.6, 0.5]], [[0.25, 0.2, 0.25], [0.25, 0.25, 0.25]])
    assert (timing.before_s, timing.after_s) == (0.5, 0.25)
    assert timing.speedup == pytest.approx(2.0)
    assert timing.interval is not None
    assert (timing.interval.low, timing.interval.high) == pytest.approx((1.6, 3.0))
    assert timing.measurable and timing.aa is None  # the interval excludes 1; no A/A run to compare


def test_a_speedup_within_the_a_a_spread_is_not_measurable():
    before = [[1.00, 1.02, 0.98, 1.01, 0.99, 1.00]]
    again = [[0.95, 1.07, 0.93, 1.06, 0.94, 1.05]]  # the same program: ratios 0.92 to 1.07
    after = [[0.97, 0.99, 0.95, 0.98, 0.96, 0.97]]  # 3% faster, every window
    timing = summarize(before, after, again)
    assert timing.interval is not None and timing.interval.low > 1  # the interval excludes 1 ...
    assert timing.aa is not None and timing.aa.high > timing.interval.low
    assert not timing.measurable  # ... but the program differs from itself by as much
    assert timing.aa.spread() == pytest.approx(max(abs(r - 1) for r in (timing.aa.low, timing.aa.high)))
    steady = summarize(before, after, [[1.00, 1.02, 0.98, 1.01, 0.99, 1.00]])
    assert steady.measurable and steady.aa is not None and steady.aa.spread() == 0


def test_a_slowdown_outside_the_a_a_spread_is_measurable():
    timing = summarize([[1.0] * 6], [[1.2] * 6], [[1.0] * 6])
    assert timing.measurable and timing.speedup == pytest.approx(1 / 1.2)


def test_summary_refuses_a_speedup_from_noise():
    timing = summarize([[0.001]], [[-0.0002]])
    assert timing.speedup is None and timing.interval is None and not timing.measurable


# --- run-to-run noise -------------------------------------------------------------------------------


def test_run_to_run_noise_is_the_largest_relative_difference():
    assert relative_noise({"a": [1.0, 2.0], "b": 3}, {"a": [1.0, 2.0], "b": 3}) == 0.0
    assert relative_noise({"a": [1.0, 2.0]}, {"a": [1.0, 2.002]}) == pytest.approx(1e-3, rel=1e-3)
    assert relative_noise({"a": [1.0]}, {"a": [1.0, 2.0]}) == math.inf
    assert relative_noise({"nan": math.nan, "x": "text"}, {"nan": math.nan, "x": "other"}) == 0.0


def test_the_tolerance_widens_to_the_noise_of_the_program_itself():
    declared = Tolerance(1e-5, 1e-7, "rounding")
    assert calibrated(declared, 0.0) is declared and calibrated(declared, math.inf) is declared
    assert calibrated(declared, 1e-7) is declared  # ten times the noise is still inside 1e-5
    widened = calibrated(declared, 5e-5)
    assert widened.rel == pytest.approx(NOISE_FACTOR * 5e-5) and widened.abs_tol == declared.abs_tol
    assert "run-to-run" in widened.reason


def test_gpu_noise_passes_a_faithful_fix_and_still_fails_a_wrong_one():
    # Seen on an H200 (issue 26): two runs of the same program differ in the fifth digit.
    before, again = {"mean_loss": 2.394988}, {"mean_loss": 2.394920}
    faithful, wrong = {"mean_loss": 2.394855}, {"mean_loss": 2.36}
    assert equivalence_problem("TL101", {BEFORE: [before], AGAIN: [again], AFTER: [faithful]}, "cuda") is None
    problem = equivalence_problem("TL101", {BEFORE: [before], AGAIN: [again], AFTER: [wrong]}, "cuda")
    assert problem is not None and problem.startswith("mean_loss: 2.394988 before, 2.36 after")
    # A CPU is deterministic: no second run, and the declared tolerance holds.
    assert equivalence_problem("TL101", {BEFORE: [before], AFTER: [faithful]}) is not None


def test_on_a_gpu_the_tolerance_is_at_least_the_gpu_floor():
    # Seen on an H200: before and before again agreed bitwise, the fixed program 1.6e-5 apart.
    before, after = {"mean_loss": 2.317492425441742}, {"mean_loss": 2.317455068230629}
    results = {BEFORE: [before, before], AGAIN: [before, before], AFTER: [before, after]}
    assert equivalence_problem("TL101", results, "cuda") is None
    assert equivalence_problem("TL101", results, "cpu").startswith("repeat 2: mean_loss: ")
    assert for_device(TOLERANCES["TL604"], "cuda") is TOLERANCES["TL604"]  # already wider
    assert for_device(TOLERANCES["TL101"], "cuda").rel == GPU_REL_FLOOR


# --- output ---------------------------------------------------------------------------------------


def test_table_has_every_column_and_a_row_per_rule():
    rows = [
        result(syncs_before=23, syncs_after=3),
        result(code="TL301", equivalent=False, detail="4 steps: losses[1]: 1 before, 2 after"),
        result(code="TL402", before_s=None, after_s=None, speedup=None, speedup_low=None, speedup_high=None, aa_spread=None),
        result(code="TL601", peak_before=3 << 20, peak_after=1 << 20),
        result(code="TL102", speedup=None, speedup_low=None, speedup_high=None, detail="no measurable difference"),
    ]
    lines = format_table(rows, context()).splitlines()
    for header, _, _ in COLUMNS:
        assert header in lines[0]
    assert lines[1].split() == ["TL101", "ResNet", "step", "4.000", "2.000", "2.00x", "[1.50,", "2.50]", "±5.0%", "yes"] + [
        "23",
        "->",
        "3",
        "-",
        "high",
        "high",
    ]
    # Declared impact, then the level the measured speedup (2x) falls in.
    assert lines[2].split()[-6:] == ["±5.0%", "NO", "-", "-", "medium", "high"]
    assert lines[3].split()[3:] == ["-", "-", "-", "-", "yes", "-", "-", "medium", "-"]
    assert lines[4].split()[-5:] == ["3", "->", "1", "high", "high"]
    # Timed without a measurable difference: said in the speedup column and the measured impact.
    assert lines[5].split()[5:10] == ["no", "measurable", "difference", "±5.0%", "yes"]
    assert lines[5].split()[-1] == "none"
    assert lines[6] == "TL301: 4 steps: losses[1]: 1 before, 2 after"
    assert len(lines) == 8


def test_an_untimed_table_has_no_timing_columns_and_says_why():
    rows = [
        result(device="cpu", before_s=None, after_s=None, speedup=None, speedup_low=None, speedup_high=None, aa_spread=None),
    ]
    table = format_table(rows, context("cpu", timed=False))
    assert table.splitlines()[0].split() == ["rule", "workload", "equivalent", "impact"]
    assert table.splitlines()[-1] == CPU_NOTE and "x" not in table.splitlines()[1]


def test_json_has_the_fields_and_the_context():
    rows = [result(), result(code="TL402", speedup=None, equivalent=False, detail="x")]
    data = json.loads(to_json(rows, context()))
    assert data["command"].startswith("torchlint verify --device cuda") and data["size"] == "large"
    assert data["environment"]["gpu"] == "NVIDIA H100" and data["environment"]["cuda"] == "12.4"
    assert "batch 256" in data["shapes"]
    assert [row["code"] for row in data["results"]] == ["TL101", "TL402"]
    assert set(data["results"][0]) == set(RuleVerification.__dataclass_fields__)
    assert data["results"][0]["speedup"] == 2.0 and data["results"][1]["speedup"] is None
    assert data["results"][1]["equivalent"] is False


def test_markdown_report_has_the_environment_command_and_a_row_per_rule():
    rows = [result(syncs_before=20, syncs_after=1), result(code="TL301", equivalent=False, detail="a | b")]
    report = markdown_report(rows, context())
    assert "`torchlint verify --device cuda --size large --steps 20 --repeats 5`" in report
    assert "- GPU: NVIDIA H100" in report and "- torch 2.13.0, CUDA 12.4, Python 3.11.7" in report
    table = [line for line in report.splitlines() if line.startswith("| ")]
    assert len(table) == 4 and table[0].count("|") == len(COLUMNS) + 1
    assert table[2] == "| TL101 | ResNet step | 4.000 | 2.000 | 2.00x [1.50, 2.50] (94%) | ±5.0% | yes | 20 -> 1 | - | high | high |"
    assert table[3].split(" | ")[6] == "NO"
    assert "- TL301: a \\| b" in report


# --- running programs (stand-ins without torch) ------------------------------------------------


def test_agreeing_programs_are_equivalent_and_not_timed_on_cpu(tmp_path):
    root = make_fixture(tmp_path, "TL501", fake(), fake(1.0 + 1e-9))
    messages: List[str] = []
    [outcome] = verify(["TL501"], "cpu", 2, "small", 3, messages.append, fixtures_dir=root)
    assert outcome.equivalent, outcome.detail
    assert (outcome.code, outcome.name, outcome.device) == ("TL501", "data-parallel", "cpu")
    assert outcome.before_s is None and outcome.speedup is None  # a CPU is never timed
    assert (outcome.syncs_before, outcome.syncs_after) == (None, None)
    assert "hand-written" in outcome.detail  # TL501 has no automatic fix: after.py runs as written
    assert messages[:3] == ["TL501: fixing before.py...", "TL501: running before...", "TL501: running after..."]
    assert messages[3].startswith("[1/1] TL501: equivalent (") and len(messages) == 4


def test_on_cuda_the_marked_steps_are_timed_against_an_a_a_control(tmp_path):
    # Without a GPU the program's clock falls back to perf_counter: 40 ms per step before, 5 after
    # (sleeps overshoot on a loaded machine, so the bounds leave room above, not below).
    root = make_fixture(tmp_path, "TL601", timed_fake(40), timed_fake(5))
    messages: List[str] = []
    [outcome] = verify(["TL601"], "cuda", 8, "small", 2, messages.append, fixtures_dir=root)
    assert outcome.equivalent, outcome.detail
    assert 0.040 <= outcome.before_s < 0.080 and 0.005 <= outcome.after_s < 0.025
    assert outcome.speedup is not None and outcome.speedup > 2
    assert outcome.speedup_low > 1 and outcome.speedup_low <= outcome.speedup <= outcome.speedup_high
    assert outcome.aa_spread is not None and outcome.aa_spread < outcome.speedup_low - 1
    # Each repeat runs before, after and before again, rotating the order so drift hits each alike.
    timing = [m for m in messages if "timing" in m]
    assert timing == [
        "TL601: timing before (1/2)...",
        "TL601: timing after (1/2)...",
        "TL601: timing before again (1/2)...",
        "TL601: timing after (2/2)...",
        "TL601: timing before again (2/2)...",
        "TL601: timing before (2/2)...",
    ]
    assert messages[-1].startswith("[1/1] TL601: equivalent, speedup ")


def test_the_same_program_twice_shows_no_measurable_difference(tmp_path):
    root = make_fixture(tmp_path, "TL601", timed_fake(10))
    [outcome] = verify(["TL601"], "cuda", 8, "small", 2, None, fixtures_dir=root)
    assert outcome.equivalent, outcome.detail
    assert outcome.speedup is None and outcome.before_s is not None and outcome.aa_spread is not None
    assert "no measurable difference (A/A spread" in outcome.detail


def test_tiny_is_never_timed_and_memory_is_only_reported_for_memory_rules(tmp_path):
    root = make_fixture(tmp_path, "TL501", timed_fake(1))
    [tiny] = verify(["TL501"], "cuda", 2, "tiny", 3, None, fixtures_dir=root)
    assert tiny.speedup is None and tiny.before_s is None
    [small] = verify(["TL501"], "cuda", 8, "small", 1, None, fixtures_dir=root)
    assert small.before_s is not None and (small.peak_before, small.peak_after) == (None, None)


def test_a_program_that_marks_no_steps_is_not_timed(tmp_path):
    root = make_fixture(tmp_path, "TL501", fake())
    [outcome] = verify(["TL501"], "cuda", 4, "small", 1, None, fixtures_dir=root)
    assert outcome.equivalent and outcome.before_s is None
    assert "marked too few steps to time" in outcome.detail


def test_differing_results_are_not_equivalent(tmp_path):
    root = make_fixture(tmp_path, "TL501", fake(), fake(1.5))
    [outcome] = verify(["TL501"], "cpu", 2, "small", 1, None, fixtures_dir=root)
    assert not outcome.equivalent
    assert outcome.detail.startswith("losses[1]: 1.0 before, 1.5 after")


def test_programs_get_steps_device_size_and_seeds(tmp_path):
    program = textwrap.dedent(
        """\
        import json, os
        assert os.environ["TORCHLINT_DEVICE"] == "cuda" and os.environ["TORCHLINT_SIZE"] == "large"
        assert os.environ["PYTHONHASHSEED"] == "0"
        print(json.dumps({"steps": int(os.environ["TORCHLINT_STEPS"])}))
        """
    )
    root = make_fixture(tmp_path, "TL501", program, program.replace('int(os.environ["TORCHLINT_STEPS"])', "3"))
    [outcome] = verify(["TL501"], "cuda", 3, "large", 1, None, fixtures_dir=root)
    # Timed, a run has 3 warm-up steps, the 3 measured ones and the start of one more.
    assert outcome.detail.startswith("steps: 7 before, 3 after")


def test_untimed_rules_run_in_parallel_and_share_the_cores(tmp_path, monkeypatch):
    monkeypatch.delenv("OMP_NUM_THREADS", raising=False)
    threads = 'import json, os\nprint(json.dumps({"threads": os.environ.get("OMP_NUM_THREADS")}))\n'
    for code in ("TL101", "TL501", "TL601"):
        make_fixture(tmp_path, code, threads)
    outcomes = verify(None, "cpu", 2, "tiny", 0, None, fixtures_dir=tmp_path, jobs=3)
    assert [outcome.code for outcome in outcomes] == ["TL101", "TL501", "TL601"]
    assert all(outcome.equivalent for outcome in outcomes)
    # The programs' results show the thread count they got: the cores shared by three jobs.
    make_fixture(tmp_path / "one", "TL501", threads, threads.replace('os.environ.get("OMP_NUM_THREADS")', '"x"'))
    [shared] = verify(None, "cpu", 2, "tiny", 0, None, fixtures_dir=tmp_path / "one", jobs=3)
    expected = str(max(1, (os.cpu_count() or 1) // 3))
    assert shared.detail.startswith(f"threads: '{expected}' before, 'x' after")
    [alone] = verify(None, "cpu", 2, "tiny", 0, None, fixtures_dir=tmp_path / "one", jobs=1)
    assert alone.detail.startswith("threads: None before")


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


def test_a_hanging_program_times_out_twice(tmp_path):
    root = make_fixture(tmp_path, "TL501", "import time\ntime.sleep(30)\n", fake())
    messages: List[str] = []
    [outcome] = verify(["TL501"], "cpu", 1, "small", 0, messages.append, fixtures_dir=root, timeout=0.5)
    assert not outcome.equivalent and outcome.detail == "before.py timed out after 0.5 s (twice)"
    assert "TL501: before.py timed out after 0.5 s; running it once more..." in messages


def test_a_program_that_hangs_once_passes_on_its_second_run(tmp_path):
    marker = tmp_path / "hung-once"
    hangs_once = (
        "import pathlib, time\n"
        f"marker = pathlib.Path({str(marker)!r})\n"
        "if not marker.exists():\n"
        "    marker.touch()\n"
        "    time.sleep(30)\n"
    ) + fake()
    root = make_fixture(tmp_path, "TL501", hangs_once, fake())
    [outcome] = verify(["TL501"], "cpu", 1, "small", 0, None, fixtures_dir=root, timeout=2.0)
    assert outcome.equivalent, outcome.detail
    assert marker.exists()


def test_fixer_output_differing_from_after_is_reported(tmp_path):
    before = (REPOSITORY_FIXTURES / "TL402" / "before.py").read_text()
    after = (REPOSITORY_FIXTURES / "TL402" / "after.py").read_text().replace("@torch.no_grad()", "")
    root = make_fixture(tmp_path, "TL402", before, after)
    messages: List[str] = []
    [outcome] = verify(["TL402"], "cpu", 2, "small", 1, messages.append, fixtures_dir=root)
    assert not outcome.equivalent and outcome.before_s is None
    assert outcome.detail.startswith("torchlint's fix of before.py differs from after.py, line ")
    assert messages[0] == "TL402: fixing before.py..." and "running" not in " ".join(messages)  # nothing ran


def test_fixer_output_is_what_runs_as_after(tmp_path, monkeypatch):
    # A stand-in whose only finding is TL402: the program that runs as 'after' is the fixer's output.
    # A stub `torch` on PYTHONPATH (the fork server preloads nothing here) spares two real imports
    # of torch, and lets the test run where torch is not installed.
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
    assert outcome.detail.startswith("decorators: 0 before, 1 after")


def test_syncs_are_counted_on_cuda_for_tl101(tmp_path):
    # A CPU build has no sync debug mode: the stand-in prints torch's warning text itself.
    program = textwrap.dedent(
        """\
        import json, os, warnings
        from pathlib import Path
        warnings.simplefilter("always")
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


def test_the_workloads_are_the_checkout_fixtures():
    # pyproject maps the package torchlint.verify.workloads to fixtures/: one copy of the programs.
    assert default_fixtures_dir() == REPOSITORY_FIXTURES
    assert "TL101" in fixture_codes(REPOSITORY_FIXTURES)


def test_missing_workloads_are_reported(monkeypatch):
    monkeypatch.setattr(pairs, "WORKLOADS_PACKAGE", "torchlint.verify.no_such_workloads")
    with pytest.raises(VerifyError, match="workloads are not installed"):
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
    code = "import sys, torchlint.verify.command; assert 'torch' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


# --- sizes ----------------------------------------------------------------------------------------


def test_sizes_grow_and_small_and_large_are_realistic():
    tiny, small, large = (WORKLOADS[size] for size in SIZES)
    for field in ("batch", "image", "sequence", "model_dim", "features", "hidden", "decoded"):
        assert getattr(tiny, field) < getattr(small, field) < getattr(large, field), field
    for shapes in (small, large):
        assert 64 <= shapes.batch <= 256 and 512 <= shapes.sequence <= 2048
        assert shapes.decoded > shapes.image  # items are cropped after decoding


def test_the_size_changes_the_shapes_the_programs_build(monkeypatch):
    torch = pytest.importorskip("torch")
    from torchlint.verify import models

    built = {}
    for size in ("tiny", "small"):
        monkeypatch.setenv("TORCHLINT_SIZE", size)
        images, _ = models.images(1, torch.device("cpu"))
        tokens, _ = models.tokens(1, torch.device("cpu"))
        parameters = sum(p.numel() for p in models.resnet().parameters())
        built[size] = (tuple(images.shape), tuple(tokens.shape), tuple(models.decode(0).shape), parameters)
    assert built["tiny"] == ((1, 8, 3, 16, 16), (1, 2, 16, 32), (3, 16, 16), built["tiny"][3])
    assert built["small"][:3] == ((1, 64, 3, 32, 32), (1, 4, 512, 256), (3, 32, 32))
    assert built["small"][3] > built["tiny"][3]
    monkeypatch.setenv("TORCHLINT_SIZE", "huge")
    with pytest.raises(ValueError, match="TORCHLINT_SIZE='huge'"):
        models.resnet()


def test_every_program_takes_its_shapes_from_the_size_marks_its_steps_and_says_why_its_size():
    for code in fixture_codes(REPOSITORY_FIXTURES):
        for label in ("before", "after"):
            text = (REPOSITORY_FIXTURES / code / f"{label}.py").read_text()
            assert "from torchlint.verify.sizes import" in text or "from torchlint.verify.models import" in text
            assert "from torchlint.verify.clock import mark_step" in text and "    mark_step()\n" in text, (code, label)
            assert "\nWorkload: " in text.split('"""')[1], (code, label)


# --- the program's clock and the runner ---------------------------------------------------------


def test_mark_step_does_nothing_without_a_recorder():
    clock.install(None)
    clock.mark_step()  # a fixture program run on its own


def test_the_recorder_marks_step_starts_after_the_warm_up():
    recorder = clock.Recorder(cuda=False, warmup=1)
    clock.install(recorder)
    try:
        for _ in range(3):
            clock.mark_step()
    finally:
        clock.install(None)
    seconds = recorder.seconds()
    assert len(seconds) == 3 and seconds[0] == 0.0 and seconds == sorted(seconds)


def _job(tmp_path: Path, text: str, **changes: object) -> running.Job:
    program = tmp_path / "program.py"
    program.write_text(text)
    return running.Job(program, running.program_env("cpu", 4, "tiny"), "cpu", **changes)  # type: ignore[arg-type]


@pytest.mark.parametrize("fork", [True, False], ids=["forked", "spawned"])
def test_the_runner_runs_a_program_as_main_and_returns_its_status_output_and_marks(tmp_path, monkeypatch, fork):
    if not fork:
        monkeypatch.delattr(os, "fork")
    text = textwrap.dedent(
        """\
        import os, sys
        from torchlint.verify.clock import mark_step
        for _ in range(int(os.environ["TORCHLINT_STEPS"])):
            mark_step()
        print(__name__, os.path.basename(os.getcwd()) == os.path.basename(os.path.dirname(__file__)))
        sys.exit("stopped on purpose")
        """
    )
    with running.Runner() as runner:
        run = runner.run(_job(tmp_path, text, record=True), timeout=60)
        again = runner.run(_job(tmp_path, "print('second')\n"), timeout=60)
    assert (run.returncode, run.stdout, run.stderr.strip()) == (1, "__main__ True\n", "stopped on purpose")
    assert run.marks == ()  # a failed program's marks are not read
    assert again.returncode == 0 and again.stdout == "second\n" and again.marks == ()


def test_the_runner_reads_the_marks_of_a_program_that_succeeds(tmp_path):
    text = "from torchlint.verify.clock import mark_step\nfor _ in range(5):\n    mark_step()\n"
    with running.Runner() as runner:
        run = runner.run(_job(tmp_path, text, record=True), timeout=60)
        unrecorded = runner.run(_job(tmp_path, text), timeout=60)
    assert run.returncode == 0 and len(run.marks) == 5 and run.peak_bytes is None
    assert unrecorded.marks == ()


def test_a_program_killed_for_its_time_leaves_the_runner_usable(tmp_path):
    with running.Runner() as runner:
        with pytest.raises(running.ProgramFailure, match="program.py timed out after 0.3 s"):
            runner.run(_job(tmp_path, "import time\ntime.sleep(30)\n"), timeout=0.3)
        assert runner.run(_job(tmp_path, "print('next')\n"), timeout=60).stdout == "next\n"


def test_a_wrong_after_py_fails_equivalence_with_real_programs(tmp_path, monkeypatch):
    """A remedy that changes what is computed (here the learning rate) is caught on a CPU."""
    pytest.importorskip("torch")
    monkeypatch.setattr(running, "PRELOAD", running.DEFAULT_PRELOAD)
    before = (REPOSITORY_FIXTURES / "TL101" / "before.py").read_text()
    after = (REPOSITORY_FIXTURES / "TL101" / "after.py").read_text().replace("lr=0.05", "lr=0.06")
    root = make_fixture(tmp_path, "TL101", before, after)
    # The fixer check would refuse the pair before anything runs; here the runs themselves are tested.
    monkeypatch.setattr(verification, "fixed_program", lambda before_text, after_text, fixable: (after_text, None))
    [outcome] = verify(["TL101"], "cpu", 3, "tiny", 0, None, fixtures_dir=root)
    assert not outcome.equivalent and outcome.detail.startswith("mean_loss: ")


# --- the real fixtures ------------------------------------------------------------------------------


# One pair per kind of workload; .ci/run checks every pair with `torchlint verify --size tiny`
# from an installed wheel, so the suite does not run all 44 programs a second time.
WORKLOAD_SAMPLES = ("TL101", "TL201", "TL301", "TL402", "TL503", "TL604")


def test_a_pair_of_each_workload_is_equivalent_on_cpu_through_the_cli(monkeypatch):
    """Real programs at size tiny keep their results; a CPU prints no timings."""
    pytest.importorskip("torch")
    from click.testing import CliRunner

    from torchlint.cli import main

    monkeypatch.setattr(running, "PRELOAD", running.DEFAULT_PRELOAD)
    monkeypatch.setenv("TORCHLINT_SIZE", "tiny")
    arguments = ["verify", "--device", "auto", "--output-format", "json", "--jobs", "2"]
    result = CliRunner().invoke(main, arguments + [f"--rule={code}" for code in WORKLOAD_SAMPLES])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["size"], data["device"], data["timed"]) == ("tiny", "cpu", False)
    rows = data["results"]
    assert [row["code"] for row in rows] == list(WORKLOAD_SAMPLES)
    assert all(row["equivalent"] and row["speedup"] is None for row in rows)
    assert [row["workload"] for row in rows] == [
        "ResNet step",
        "decoding loader",
        "conv net step",
        "MLP step",
        "DDP step, one process",
        "transformer block step",
    ]


@pytest.mark.gpu
def test_a_real_pair_is_timed_and_its_syncs_counted_on_cuda(monkeypatch):
    monkeypatch.setattr(running, "PRELOAD", running.DEFAULT_PRELOAD)
    [outcome] = verify(["TL101"], "cuda", 12, "small", 2, None)
    assert outcome.equivalent, outcome.detail
    assert outcome.before_s and outcome.after_s and outcome.aa_spread is not None
    if outcome.speedup is None:
        assert "no measurable difference (A/A spread" in outcome.detail
    else:
        assert outcome.speedup_low <= outcome.speedup <= outcome.speedup_high
    # After the warm-up every step's `.item()` synchronises before the fix; after it, the read
    # after the loop.
    assert outcome.syncs_before is not None and outcome.syncs_after is not None
    assert outcome.syncs_before >= 12 and outcome.syncs_after <= 2


@pytest.mark.gpu
def test_a_wrong_after_py_fails_equivalence_on_cuda_despite_gpu_noise(tmp_path, monkeypatch):
    monkeypatch.setattr(running, "PRELOAD", running.DEFAULT_PRELOAD)
    before = (REPOSITORY_FIXTURES / "TL301" / "before.py").read_text()
    after = (REPOSITORY_FIXTURES / "TL301" / "after.py").read_text().replace("lr=", "lr=1.1 * ")
    assert after != (REPOSITORY_FIXTURES / "TL301" / "after.py").read_text()
    monkeypatch.setattr(verification, "fixed_program", lambda before_text, after_text, fixable: (after_text, None))
    root = make_fixture(tmp_path, "TL301", before, after)
    [outcome] = verify(["TL301"], "cuda", 4, "small", 0, None, fixtures_dir=root)
    assert not outcome.equivalent, outcome.detail


# --- the command ----------------------------------------------------------------------------------


def test_the_command_writes_the_report_and_reproduces_its_options(tmp_path, monkeypatch):
    from torchlint.verify import command

    calls = []

    def fake_verify(codes, device, steps, size, repeats, progress, jobs):
        calls.append((codes, device, steps, size, repeats, jobs))
        return [result(device=device, syncs_before=9, syncs_after=1)]

    monkeypatch.setattr(command, "probe", lambda: context().environment)
    monkeypatch.setattr(command, "verify", fake_verify)
    report = tmp_path / "gpu-results.md"
    request = command.Request(("TL101",), "auto", None, "large", 5, jobs=2)
    rendered, equivalent = command.run(request, "text", report, lambda message: None)
    assert calls == [(["TL101"], "cuda", 16, "large", 5, 2)]  # auto picks the GPU; large times 16 steps
    assert equivalent and "2.00x [1.50, 2.50]" in rendered
    text = report.read_text()
    assert "`torchlint verify --device cuda --size large --steps 16 --repeats 5 --rule TL101`" in text
    assert "| TL101 | ResNet step | 4.000 | 2.000 | 2.00x [1.50, 2.50] (94%) | ±5.0% | yes | 9 -> 1 | - |" in text


@pytest.mark.parametrize(("size", "repeats"), [("small", 1), ("large", 2)])
def test_the_command_repeats_a_quick_small_run_once_and_a_large_run_twice(monkeypatch, size, repeats):
    from torchlint.verify import command

    calls = []
    monkeypatch.setattr(command, "probe", lambda: context().environment)
    monkeypatch.setattr(command, "verify", lambda *args, **kwargs: calls.append(args[4]) or [result()])
    request = command.Request((), "cuda", None, size, None)
    assert f"--repeats {repeats}" in command.command_line(request, "cuda", 16)
    command.run(request, "text", None, lambda message: None)
    assert calls == [repeats]


def test_the_command_chooses_the_device_from_what_torch_sees():
    from torchlint.verify.command import choose_device

    cpu_only = Environment("3.11.7", "2.13.0+cpu", None, None, False)
    assert choose_device("auto", cpu_only) == "cpu"
    assert choose_device("auto", context().environment) == "cuda"
    with pytest.raises(VerifyError, match="no CUDA device"):
        choose_device("cuda", cpu_only)
    with pytest.raises(VerifyError, match="needs torch"):
        choose_device("cpu", Environment("3.11.7", None, None, None, False))


@pytest.mark.stable_only
@pytest.mark.parametrize("code", ["TL101", "TL102", "TL201", "TL202", "TL203"])
def test_verify_fixes_preview_variants_too(code):
    """A rule's program pair may show its preview variant (TL202's loader feeds an evaluation
    loop): verify proves the fix whatever the user's preview mode."""
    before = (REPOSITORY_FIXTURES / code / "before.py").read_text()
    after = (REPOSITORY_FIXTURES / code / "after.py").read_text()
    assert pairs.fixed_program(before, after, fixable=True) == (after, None)
