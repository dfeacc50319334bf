"""Verifying rules: the fixer check, the runs, equivalence and timing of each program pair."""

from __future__ import annotations

import os
import sys
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
from torchlint.verify.running import (
    ProgramFailure,
    checked,
    count_syncs,
    measured_run,
    parse_result,
    program_env,
    run_program,
)
from torchlint.verify.sizes import SIZES
from torchlint.verify.stats import summarize
from torchlint.verify.tolerances import compare, tolerance_for

Progress = Callable[[str], None]

DEVICES = ("cpu", "cuda")
# Rules whose fix removes host-device synchronisations; on CUDA they are counted as well.
SYNC_RULES = frozenset({"TL101", "TL103"})
# Rules whose fix changes how much device memory the step holds; on CUDA the peak is reported.
MEMORY_RULES = frozenset({"TL104", "TL107", "TL402", "TL601", "TL603"})
DEFAULT_TIMEOUT_S = 600.0
# Steps per measured run: tiny checks equivalence in a couple of steps; timing needs more.
TIMED_STEPS = {"tiny": 2, "small": 10, "large": 20}
EQUIVALENCE_STEPS = 2


def default_steps(size: str, timed: bool) -> int:
    """Steps per run when none are asked for."""
    return TIMED_STEPS[size] if timed else EQUIVALENCE_STEPS


@dataclass
class RuleVerification:
    """The outcome for one rule: seconds per step, speedup (before/after) with its interval, whether
    results agree, and on CUDA synchronisations and peak memory (bytes)."""

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
    syncs_before: Optional[int] = None
    syncs_after: Optional[int] = None
    peak_before: Optional[int] = None
    peak_after: Optional[int] = None


@dataclass
class Measurements:
    """Per-step samples, results by step count, and peak memory, by program label."""

    samples: Dict[str, List[float]] = field(default_factory=lambda: {BEFORE: [], AFTER: []})
    results: Dict[str, Dict[int, object]] = field(default_factory=lambda: {BEFORE: {}, AFTER: {}})
    peaks: Dict[str, Optional[int]] = field(default_factory=lambda: {BEFORE: None, AFTER: None})


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
    threads: Optional[int] = None

    def env(self, steps: int) -> Dict[str, str]:
        return program_env(self.device, steps, self.size, self.threads)

    def results(self, found: Measurements) -> None:
        """Run each program once with `steps` steps for its result (on CUDA, also the warm-up)."""
        for label in (BEFORE, AFTER):
            self.progress(f"{self.code}: running {label}...")
            program = self.programs[label]
            command = [sys.executable, str(program)]
            run = checked(run_program(command, self.env(self.steps), program.parent, self.timeout), label)
            found.results[label][self.steps] = parse_result(run, label)

    def timings(self, repeats: int, found: Measurements) -> None:
        """Time N and 2N steps per program, alternating the order between repeats (ABBA)."""
        for repeat in range(repeats):
            order = (BEFORE, AFTER) if repeat % 2 == 0 else (AFTER, BEFORE)
            for label in order:
                self.progress(f"{self.code}: timing {label} ({repeat + 1}/{repeats})...")
                program = self.programs[label]
                _, short = measured_run(program, label, self.env(self.steps), self.timeout)
                long_run, long = measured_run(program, label, self.env(2 * self.steps), self.timeout)
                found.samples[label].append((long.seconds - short.seconds) / self.steps)
                if repeat == 0:
                    found.results[label][2 * self.steps] = parse_result(long_run, label)
                    found.peaks[label] = short.peak_bytes

    def syncs(self) -> Tuple[int, int]:
        """Synchronisations of a run of `steps` steps, before and after the fix."""
        counts = []
        for label in (BEFORE, AFTER):
            self.progress(f"{self.code}: counting synchronisations in {label}...")
            counts.append(count_syncs(self.programs[label], label, self.env(self.steps), self.timeout))
        return counts[0], counts[1]


def equivalence_problem(code: str, results: Dict[str, Dict[int, object]]) -> Optional[str]:
    """How before and after results differ for some step count, or None when they agree."""
    for steps in sorted(results[BEFORE]):
        problem = compare(results[BEFORE][steps], results[AFTER][steps], tolerance_for(code))
        if problem:
            return f"{steps} steps: {problem}"
    return None


def verify_rule(fixture: Fixture, settings: RuleRun, repeats: int) -> RuleVerification:
    """Check the fix of one program pair, then run and compare both programs; time them when
    `repeats` > 0 (on CUDA only)."""
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
        settings.results(found)
        settings.timings(repeats, found)
        if settings.device == "cuda" and fixture.code in SYNC_RULES:
            syncs = settings.syncs()
    except ProgramFailure as failure:
        return RuleVerification(fixture.code, fixture.name, fixture.workload, settings.device, False, str(failure))
    return _result(fixture, settings.device, found, syncs)


def _result(
    fixture: Fixture, device: str, found: Measurements, syncs: Tuple[Optional[int], Optional[int]]
) -> RuleVerification:
    problem = equivalence_problem(fixture.code, found.results)
    notes = [problem] if problem else []
    if not fixture.fixable:
        notes.append("no automatic fix: after.py is the hand-written remedy")
    outcome = RuleVerification(
        fixture.code, fixture.name, fixture.workload, device, problem is None, "", syncs_before=syncs[0],
        syncs_after=syncs[1],
    )
    if found.samples[BEFORE]:
        timing = summarize(found.samples[BEFORE], found.samples[AFTER])
        outcome.before_s, outcome.after_s, outcome.speedup = timing.before_s, timing.after_s, timing.speedup
        if timing.interval is None:
            notes.append("timing noise exceeds the time of the extra steps; use more steps")
        else:
            interval = timing.interval
            outcome.speedup_low, outcome.speedup_high = interval.low, interval.high
            outcome.confidence = interval.confidence
    if fixture.code in MEMORY_RULES:
        outcome.peak_before, outcome.peak_after = found.peaks[BEFORE], found.peaks[AFTER]
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
    timeout: float = DEFAULT_TIMEOUT_S,
    jobs: int = 1,
) -> List[RuleVerification]:
    """Verify the program pairs of `codes` (all when None) on `device`, one rule after another.

    Each program runs once with `steps` steps (default: default_steps) for its result; on CUDA at
    size small or large it is then timed with `steps` and 2 × `steps` steps, `repeats` times.
    Untimed runs verify up to `jobs` rules at once (timing runs one program at a time). Raises
    VerifyError when nothing can run.
    """
    _check_arguments(device, steps, size, repeats)
    timed = is_timed(device, size, repeats)
    steps = steps or default_steps(size, timed)
    directory = Path(fixtures_dir) if fixtures_dir is not None else default_fixtures_dir()
    chosen = select_codes(codes, fixture_codes(directory))
    report: Progress = progress or (lambda message: None)
    parallel = not timed and jobs > 1
    # Programs that run side by side share the cores instead of each starting a thread per core.
    threads = max(1, (os.cpu_count() or 1) // jobs) if parallel else None
    with tempfile.TemporaryDirectory(prefix="torchlint-verify-") as tmp:

        def one(fixture: Fixture) -> RuleVerification:
            started = time.perf_counter()
            programs = {label: Path(tmp) / fixture.code / f"{label}.py" for label in (BEFORE, AFTER)}
            settings = RuleRun(fixture.code, programs, device, steps, size, timeout, report, threads)
            outcome = verify_rule(fixture, settings, repeats if timed else 0)
            verdict = "equivalent" if outcome.equivalent else "NOT equivalent"
            report(f"{fixture.code}: {verdict} ({time.perf_counter() - started:.1f} s)")
            return outcome

        fixtures = load_fixtures(chosen, directory)
        if not parallel:
            return [one(fixture) for fixture in fixtures]
        with ThreadPoolExecutor(jobs) as pool:
            return list(pool.map(one, fixtures))
