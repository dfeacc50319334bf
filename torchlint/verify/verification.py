"""Verifying rules: the fixer check, the runs, equivalence and timing of each program pair."""

from __future__ import annotations

import contextlib
import os
import queue
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from torchlint.verify.pairs import (
    AFTER,
    BEFORE,
    Fixture,
    VerifyError,
    default_fixtures_dir,
    fixed_program,
    fixture_codes,
    load_fixtures,
    select_codes,
)
from torchlint.verify.running import Job, ProgramFailure, ProgramRun, ProgramTimeout, Runner, checked, parse_result, program_env, sync_count
from torchlint.verify.sizes import SIZES
from torchlint.verify.stats import summarize, window_times
from torchlint.verify.tolerances import calibrated, compare, for_device, relative_noise, tolerance_for

Progress = Callable[[str], None]

DEVICES = ("cpu", "cuda")
# Rules whose fix removes host-device synchronisations; on CUDA they are counted as well.
SYNC_RULES = frozenset({"TL101", "TL103"})
# Rules whose fix changes how much device memory the step holds; on CUDA the peak is reported.
MEMORY_RULES = frozenset({"TL104", "TL107", "TL402", "TL601", "TL603"})
# Seconds one program may run before it is killed, by size. A program that outlasts it runs once
# more before the rule fails: a process group that never forms (a rare hang of a DDP rendezvous
# seen once in CI) should not fail a whole verification, and a real hang fails twice.
DEFAULT_TIMEOUT_S = {"tiny": 120.0, "small": 300.0, "large": 600.0}
# Measured steps per timed run (split into windows), after WARMUP_STEPS that are not measured.
TIMED_STEPS = {"tiny": 2, "small": 16, "large": 16}
# Timed repeats when none are asked for: small is the quick check (all pairs in about three
# minutes on one GPU), large the measurement (about eight minutes).
DEFAULT_REPEATS = {"tiny": 1, "small": 1, "large": 2}
WARMUP_STEPS = 3
WINDOW_STEPS = 2
EQUIVALENCE_STEPS = 2
# The run of before.py again in each repeat: the A/A control, and on a GPU the run-to-run noise.
AGAIN = "before again"
RUN_NAMES = {BEFORE: "before.py", AFTER: "after.py", AGAIN: "before.py (again)"}


def default_repeats(size: str) -> int:
    """Timed repeats at `size` when none are asked for."""
    return DEFAULT_REPEATS[size]


def default_steps(size: str, timed: bool) -> int:
    """Steps per run (measured steps when timed) when none are asked for."""
    return TIMED_STEPS[size] if timed else EQUIVALENCE_STEPS


@dataclass
class RuleVerification:
    """The outcome for one rule: seconds per step, speedup (before/after) with its interval when it
    is measurable, the A/A spread, whether results agree, and on CUDA synchronisations in the
    measured steps and peak memory (bytes)."""

    code: str
    name: str
    workload: str
    device: str
    equivalent: bool
    detail: str
    before_s: Optional[float] = None
    after_s: Optional[float] = None
    speedup: Optional[float] = None
    speedup_low: Optional[float] = None
    speedup_high: Optional[float] = None
    confidence: Optional[float] = None
    aa_spread: Optional[float] = None
    syncs_before: Optional[int] = None
    syncs_after: Optional[int] = None
    peak_before: Optional[int] = None
    peak_after: Optional[int] = None


@dataclass
class Measurements:
    """By label (before, after, before again): each run's result, per-step window times and peak."""

    results: Dict[str, List[object]] = field(default_factory=dict)
    windows: Dict[str, List[List[float]]] = field(default_factory=dict)
    peaks: Dict[str, Optional[int]] = field(default_factory=dict)

    def add(self, label: str, result: object, windows: List[float], peak: Optional[int]) -> None:
        self.results.setdefault(label, []).append(result)
        self.windows.setdefault(label, []).append(windows)
        self.peaks.setdefault(label, peak)


@dataclass
class RuleRun:
    """What verifying one rule needs: its programs, environment settings and reporting."""

    code: str
    programs: Dict[str, Path]
    device: str
    steps: int
    size: str
    timeout: float
    progress: Progress
    runner: Runner
    threads: Optional[int] = None
    timed: bool = False

    @property
    def labels(self) -> Tuple[str, ...]:
        """The runs of each repeat; on a GPU before.py runs twice (A/A: timing and result noise)."""
        return (BEFORE, AFTER, AGAIN) if self.device == "cuda" else (BEFORE, AFTER)

    def _run(self, label: str, count_syncs: bool = False) -> ProgramRun:
        try:
            run = self.runner.run(self._job(label, count_syncs), self.timeout)
        except ProgramTimeout as first:
            self.progress(f"{self.code}: {first}; running it once more...")
            try:  # a fresh environment: another free port for a process group
                run = self.runner.run(self._job(label, count_syncs), self.timeout)
            except ProgramTimeout:
                raise ProgramTimeout(f"{first} (twice)") from None
        return checked(run, RUN_NAMES[label])

    def _job(self, label: str, count_syncs: bool) -> Job:
        program = self.programs[AFTER if label == AFTER else BEFORE]
        warmup = WARMUP_STEPS if self.timed else 0
        total = warmup + self.steps + 1 if self.timed else self.steps
        env = program_env(self.device, total, self.size, self.threads)
        return Job(program, env, self.device, self.timed and not count_syncs, warmup, count_syncs, self.threads)

    def runs(self, repeats: int, found: Measurements) -> None:
        """Run each program `repeats` times, rotating their order between repeats so that drift
        hits each alike; keep each run's result, window times and peak memory."""
        labels = self.labels
        for repeat in range(repeats):
            order = labels[repeat % len(labels) :] + labels[: repeat % len(labels)]
            for label in order:
                verb = "timing" if self.timed else "running"
                count = f" ({repeat + 1}/{repeats})" if repeats > 1 else ""
                self.progress(f"{self.code}: {verb} {label}{count}...")
                run = self._run(label)
                windows = window_times(run.marks, WARMUP_STEPS, WINDOW_STEPS) if self.timed else []
                found.add(label, parse_result(run, RUN_NAMES[label]), windows, run.peak_bytes)

    def syncs(self) -> Tuple[int, int]:
        """Synchronisations after the warm-up steps (all steps untimed), before and after the fix."""
        counts = []
        for label in (BEFORE, AFTER):
            self.progress(f"{self.code}: counting synchronisations in {label}...")
            counts.append(sync_count(self._run(label, count_syncs=True)))
        return counts[0], counts[1]


def equivalence_problem(code: str, results: Dict[str, List[object]], device: str = "cpu") -> Optional[str]:
    """How the after results differ from the before results of the same repeat, or None when they
    agree within the rule's tolerance (at least GPU_REL_FLOOR on a GPU), widened by the run-to-run
    noise of before.py where it ran again."""
    tolerance = for_device(tolerance_for(code), device)
    noise = max((relative_noise(a, b) for a, b in zip(results[BEFORE], results.get(AGAIN, []))), default=0.0)
    tolerance = calibrated(tolerance, noise)
    for repeat, (before, after) in enumerate(zip(results[BEFORE], results[AFTER])):
        problem = compare(before, after, tolerance)
        if problem:
            where = f"repeat {repeat + 1}: " if len(results[BEFORE]) > 1 else ""
            return where + problem
    return None


def verify_rule(fixture: Fixture, settings: RuleRun, repeats: int) -> RuleVerification:
    """Check the fix of one program pair, then run and compare both programs, `repeats` times when
    timed (at least once)."""
    settings.progress(f"{fixture.code}: fixing before.py...")
    before_text = fixture.read(BEFORE)
    after_text, mismatch = fixed_program(before_text, fixture.read(AFTER), fixture.fixable)
    if mismatch:
        return RuleVerification(fixture.code, fixture.name, fixture.workload, settings.device, False, mismatch)
    for label, text in ((BEFORE, before_text), (AFTER, after_text)):
        settings.programs[label].parent.mkdir(parents=True, exist_ok=True)
        settings.programs[label].write_text(text, encoding="utf-8")
    found = Measurements()
    syncs: Tuple[Optional[int], Optional[int]] = (None, None)
    try:
        settings.runs(max(repeats, 1) if settings.timed else 1, found)
        if settings.device == "cuda" and fixture.code in SYNC_RULES:
            syncs = settings.syncs()
    except ProgramFailure as failure:
        return RuleVerification(fixture.code, fixture.name, fixture.workload, settings.device, False, str(failure))
    return _result(fixture, settings, found, syncs)


def _timing_notes(outcome: RuleVerification, found: Measurements) -> List[str]:
    """Fill in the timing fields from the window times; the notes they call for."""
    windows = found.windows
    if not any(windows.get(BEFORE, [])) or not any(windows.get(AFTER, [])):
        return ["the programs marked too few steps to time (call clock.mark_step at each step start)"]
    timing = summarize(windows[BEFORE], windows[AFTER], windows.get(AGAIN, []))
    outcome.before_s, outcome.after_s = timing.before_s, timing.after_s
    if timing.aa is not None:
        outcome.aa_spread = timing.aa.spread()
    if timing.interval is None:
        return ["timing noise exceeds the time of a step; use more steps"]
    if not timing.measurable:
        spread = f" (A/A spread {outcome.aa_spread:.1%})" if outcome.aa_spread is not None else ""
        ratio = f"ratio {timing.speedup:.3f} [{timing.interval.low:.3f}, {timing.interval.high:.3f}]"
        return [f"no measurable difference{spread}: {ratio}"]
    outcome.speedup = timing.speedup
    outcome.speedup_low, outcome.speedup_high = timing.interval.low, timing.interval.high
    outcome.confidence = timing.interval.confidence
    return []


def _result(
    fixture: Fixture, settings: RuleRun, found: Measurements, syncs: Tuple[Optional[int], Optional[int]]
) -> RuleVerification:
    problem = equivalence_problem(fixture.code, found.results, settings.device)
    notes = [problem] if problem else []
    if not fixture.fixable:
        notes.append("no automatic fix: after.py is the hand-written remedy")
    outcome = RuleVerification(
        fixture.code, fixture.name, fixture.workload, settings.device, problem is None, "", syncs_before=syncs[0],
        syncs_after=syncs[1],
    )
    if settings.timed:
        notes += _timing_notes(outcome, found)
    if fixture.code in MEMORY_RULES:
        outcome.peak_before, outcome.peak_after = found.peaks.get(BEFORE), found.peaks.get(AFTER)
    outcome.detail = "; ".join(notes)
    return outcome


def _check_arguments(device: str, steps: Optional[int], size: str, repeats: int) -> None:
    if device not in DEVICES:
        raise VerifyError(f"unknown device {device!r}; choose one of {', '.join(DEVICES)}")
    if size not in SIZES:
        raise VerifyError(f"unknown size {size!r}; choose one of {', '.join(SIZES)}")
    if steps is not None and steps < 1:
        raise VerifyError("steps must be at least 1")
    if repeats < 0:
        raise VerifyError("repeats must be at least 0 (0 checks equivalence without timing)")


def is_timed(device: str, size: str, repeats: int) -> bool:
    """Whether a run measures time: on CUDA, at a realistic size, with repeats."""
    return device == "cuda" and size != "tiny" and repeats > 0


def verify(
    codes: Optional[Sequence[str]],
    device: str,
    steps: Optional[int],
    size: str,
    repeats: int,
    progress: Optional[Progress],
    *,
    fixtures_dir: Optional[Path] = None,
    timeout: Optional[float] = None,
    jobs: int = 1,
) -> List[RuleVerification]:
    """Verify the program pairs of `codes` (all when None) on `device`, one rule after another.

    Each program runs with `steps` steps (default: default_steps) for its result. On CUDA at size
    small or large with `repeats` > 0 the runs are timed: each program marks its step starts, the
    first WARMUP_STEPS are left out and `steps` more are measured in windows; before.py also runs
    a second time in each repeat (the A/A control). Untimed runs verify up to `jobs` rules at once
    (timing runs one program at a time). A program may run `timeout` seconds (default by size,
    DEFAULT_TIMEOUT_S) and runs once more after a time-out. Raises VerifyError when nothing can run.
    """
    _check_arguments(device, steps, size, repeats)
    timeout = timeout if timeout is not None else DEFAULT_TIMEOUT_S[size]
    timed = is_timed(device, size, repeats)
    steps = steps or default_steps(size, timed)
    directory = Path(fixtures_dir) if fixtures_dir is not None else default_fixtures_dir()
    chosen = select_codes(codes, fixture_codes(directory))
    report: Progress = progress or (lambda message: None)
    parallel = not timed and jobs > 1
    # Programs that run side by side share the cores instead of each starting a thread per core.
    threads = max(1, (os.cpu_count() or 1) // jobs) if parallel else None
    fixtures = load_fixtures(chosen, directory)
    runners: "queue.Queue[Runner]" = queue.Queue()
    with tempfile.TemporaryDirectory(prefix="torchlint-verify-") as tmp, contextlib.ExitStack() as stack:
        for _ in range(jobs if parallel else 1):
            runners.put(stack.enter_context(Runner()))

        def one(numbered: Tuple[int, Fixture]) -> RuleVerification:
            index, fixture = numbered
            started = time.perf_counter()
            programs = {label: Path(tmp) / fixture.code / f"{label}.py" for label in (BEFORE, AFTER)}
            runner = runners.get()
            try:
                settings = RuleRun(fixture.code, programs, device, steps, size, timeout, report, runner, threads, timed)
                outcome = verify_rule(fixture, settings, repeats)
            finally:
                runners.put(runner)
            elapsed = time.perf_counter() - started
            report(f"[{index}/{len(fixtures)}] {fixture.code}: {_verdict(outcome, timed)} ({elapsed:.1f} s)")
            return outcome

        numbered = list(enumerate(fixtures, start=1))
        if not parallel:
            return [one(item) for item in numbered]
        with ThreadPoolExecutor(jobs) as pool:
            return list(pool.map(one, numbered))


def _verdict(outcome: RuleVerification, timed: bool) -> str:
    """The progress line's summary of one rule."""
    verdict = "equivalent" if outcome.equivalent else "NOT equivalent"
    if outcome.speedup is not None:
        return f"{verdict}, speedup {outcome.speedup:.2f}x"
    if timed and outcome.before_s is not None:
        return f"{verdict}, no measurable difference"
    return verdict
