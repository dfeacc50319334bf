"""`torchlint verify`: run each rule's fixture pair before and after torchlint's own fix.

For every rule with `fixtures/<CODE>/before.py` and `after.py`, the fixer must turn before.py into
after.py; both programs then run in fresh interpreters with the same environment. Their JSON results
must agree within the rule's tolerance, and their time per step is measured from runs of N and 2N
steps, so that start-up, imports and warm-up cancel. torch is imported only by those subprocesses.
"""

from __future__ import annotations

import json
import math
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import torchlint
from torchlint.engine.context import Options
from torchlint.engine.findings import Applicability
from torchlint.engine.fixer import fix_text
from torchlint.engine.rule import all_rules

Progress = Callable[[str], None]

BEFORE = "before"
AFTER = "after"
SIZES = ("small", "large")
DEVICES = ("cpu", "cuda")
# Rules whose fix removes host-device synchronisations; on CUDA they are counted as well.
SYNC_RULES = frozenset({"TL101", "TL103"})
# Python prints "file:line: UserWarning: <message>", c10's own handler "[W...] Warning: <message>".
SYNC_WARNING = "Warning: called a synchronizing CUDA operation"
DEFAULT_TIMEOUT_S = 600.0

# Runs a fixture program with CUDA sync debugging on; every synchronisation prints a warning.
SYNC_WRAPPER = """\
import os, runpy, sys, warnings
import torch
warnings.simplefilter("always")
torch.cuda.set_sync_debug_mode("warn")
path = sys.argv[1]
sys.argv = [path]
sys.path.insert(0, os.path.dirname(path))
runpy.run_path(path, run_name="__main__")
"""


class VerifyError(Exception):
    """verify cannot run at all: no fixtures, an unknown rule, bad arguments."""


class ProgramFailure(Exception):
    """A fixture program failed; the message becomes the rule's detail."""


@dataclass(frozen=True)
class Tolerance:
    """How close before and after results must be: math.isclose(rel_tol=rel, abs_tol=abs_tol)."""

    rel: float
    abs_tol: float
    reason: str


TOLERANCES: Dict[str, Tolerance] = {
    "TL101": Tolerance(1e-5, 1e-7, "the loss is summed on the device in float32, not on the host in float64: rounding"),
    "TL102": Tolerance(1e-6, 1e-7, "tensors are created on the device instead of copied there: the same values"),
    "TL201": Tolerance(1e-6, 1e-7, "worker processes load the same items in the same order: the same batches"),
    "TL301": Tolerance(1e-4, 1e-6, "BatchNorm in training mode cancels the conv bias exactly; float rounding differs"),
    "TL401": Tolerance(1e-6, 1e-7, "gradients set to None are written instead of added to zeros: the same values"),
    "TL402": Tolerance(1e-6, 1e-7, "no_grad records no graph but changes no forward value"),
    "TL501": Tolerance(1e-6, 1e-7, "DDP averages gradients over the processes, a world of one here: the same updates"),
    "TL104": Tolerance(1e-6, 1e-7, "emptying the allocator cache changes no computed value"),
    "TL105": Tolerance(1e-6, 1e-7, "from_numpy wraps the same data that torch.tensor copied"),
    "TL107": Tolerance(1e-6, 1e-7, "one concatenation after the loop joins the same pieces in the same order"),
    "TL108": Tolerance(1e-6, 1e-7, "the model is moved once instead of every step: the same parameters"),
    "TL403": Tolerance(1e-6, 1e-7, "anomaly detection only checks values; it changes none"),
    "TL502": Tolerance(1e-6, 1e-7, "searching for unused parameters changes no gradient when every parameter is used"),
    "TL602": Tolerance(1e-6, 1e-7, "torch.amp.autocast/GradScaler are the same implementation under the new names"),
    "TL103": Tolerance(1e-6, 1e-7, "values read once after the loop instead of every step: float rounding only"),
    "TL106": Tolerance(1e-6, 1e-7, "an asynchronous copy from pinned memory moves the same bytes"),
    "TL202": Tolerance(1e-6, 1e-7, "pinned host memory holds the same batches"),
    "TL203": Tolerance(1e-6, 1e-7, "workers kept between epochs load the same items in the same order"),
    "TL503": Tolerance(1e-6, 1e-7, "no_sync defers the same all-reduce to the last micro-batch: the same gradients"),
    "TL601": Tolerance(1e-6, 1e-7, "mixed precision changes the numbers, so the program compares rounded accuracy"),
    "TL603": Tolerance(1e-4, 1e-6, "cuDNN autotuning may pick algorithms that round differently"),
    "TL604": Tolerance(2e-2, 1e-4, "TF32 matmuls round inputs to 10 mantissa bits: losses agree to about 1e-3"),
}
DEFAULT_TOLERANCE = Tolerance(1e-6, 1e-7, "a fix must not change results")


@dataclass
class RuleVerification:
    """The outcome for one rule: seconds per step, speedup (before/after) and whether results agree."""

    code: str
    name: str
    device: str
    before_s: Optional[float]
    after_s: Optional[float]
    speedup: Optional[float]
    spread: Optional[float]
    equivalent: bool
    detail: str
    syncs_before: Optional[int]
    syncs_after: Optional[int]


@dataclass(frozen=True)
class ProgramRun:
    """One finished subprocess: wall time, exit status and output."""

    seconds: float
    returncode: int
    stdout: str
    stderr: str


@dataclass
class Measurements:
    """Per-step samples and the results of the first repeat, by program label."""

    samples: Dict[str, List[float]] = field(default_factory=lambda: {BEFORE: [], AFTER: []})
    results: Dict[str, Dict[int, object]] = field(default_factory=lambda: {BEFORE: {}, AFTER: {}})


# ---------------------------------------------------------------------------------------------
# Fixtures and the fixer


def default_fixtures_dir() -> Path:
    """The repository's `fixtures/` directory; verify needs a source checkout to find it."""
    path = Path(torchlint.__file__).resolve().parents[1] / "fixtures"
    if not path.is_dir():
        raise VerifyError(
            f"verify needs a source checkout of torchlint: no fixtures directory at {path} "
            "(an installed wheel does not ship the fixture programs)"
        )
    return path


def fixture_codes(fixtures_dir: Path) -> List[str]:
    """Codes of the rules that have both `before.py` and `after.py`, sorted."""
    if not fixtures_dir.is_dir():
        raise VerifyError(f"no fixtures directory at {fixtures_dir}")
    return sorted(
        path.name for path in fixtures_dir.iterdir() if (path / "before.py").is_file() and (path / "after.py").is_file()
    )


def select_codes(codes: Optional[Sequence[str]], available: Sequence[str]) -> List[str]:
    """The requested codes (all available ones when None), each of which must have a fixture pair."""
    if codes is None:
        return list(available)
    chosen = list(dict.fromkeys(code.upper() for code in codes))
    missing = [code for code in chosen if code not in available]
    if missing:
        raise VerifyError(f"no fixture pair for {', '.join(missing)}; available: {', '.join(available)}")
    return chosen


def first_difference(expected: str, actual: str) -> str:
    """Where two texts first differ, as 'line N: expected ... got ...'."""
    want, got = expected.splitlines(), actual.splitlines()
    for number, (a, b) in enumerate(zip(want, got), start=1):
        if a != b:
            return f"line {number}: after.py has {a.strip()!r}, the fixer wrote {b.strip()!r}"
    if len(want) != len(got):
        return f"after.py has {len(want)} lines, the fixer wrote {len(got)}"
    return "the texts differ in line endings or trailing whitespace"


def fixed_program(before: str, after: str, fixable: bool) -> Tuple[str, Optional[str]]:
    """The program to run as 'after' and, if the fixer disagrees with after.py, why.

    For a rule without an automatic fix, after.py is the hand-written remedy and runs as written.
    """
    if not fixable:
        return after, None
    fixed = fix_text(before, "before.py", all_rules(), Options(), unsafe=True).text
    if fixed != after:
        return fixed, "torchlint's fix of before.py differs from after.py, " + first_difference(after, fixed)
    return fixed, None


# ---------------------------------------------------------------------------------------------
# Running programs


def free_port() -> int:
    """A TCP port that is free right now, for programs that start a process group."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def program_env(device: str, steps: int, size: str) -> Dict[str, str]:
    """The environment every fixture program runs with: same seeds, steps, device and size."""
    env = dict(os.environ)
    env.update(
        TORCHLINT_STEPS=str(steps),
        TORCHLINT_DEVICE=device,
        TORCHLINT_SIZE=size,
        PYTHONHASHSEED="0",
        MASTER_ADDR="127.0.0.1",
        MASTER_PORT=str(free_port()),
    )
    return env


def last_line(text: str) -> str:
    """The last non-empty line of `text`, or '' when there is none."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def run_program(command: Sequence[str], env: Mapping[str, str], cwd: Path, timeout: float) -> ProgramRun:
    """Run `command` to completion and time it with perf_counter; raise ProgramFailure on timeout."""
    start = time.perf_counter()
    try:
        done = subprocess.run(list(command), cwd=cwd, env=dict(env), capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise ProgramFailure(f"{Path(command[-1]).name} timed out after {timeout:g} s") from None
    return ProgramRun(time.perf_counter() - start, done.returncode, done.stdout, done.stderr)


def checked(run: ProgramRun, label: str) -> ProgramRun:
    """`run` itself, or ProgramFailure with the last line of its error output."""
    if run.returncode != 0:
        message = last_line(run.stderr) or "no error output"
        raise ProgramFailure(f"{label}.py exited with status {run.returncode}: {message}")
    return run


def parse_result(run: ProgramRun, label: str) -> object:
    """The JSON object a fixture program prints as its last line of output."""
    line = last_line(run.stdout)
    try:
        return json.loads(line)
    except json.JSONDecodeError:
        shown = line if len(line) <= 80 else line[:77] + "..."
        raise ProgramFailure(f"{label}.py did not print a JSON result as its last line: {shown!r}") from None


# ---------------------------------------------------------------------------------------------
# Equivalence


def numbers_close(a: float, b: float, tolerance: Tolerance) -> bool:
    """Whether two numbers agree; NaN matches NaN and infinities match themselves."""
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return math.isclose(a, b, rel_tol=tolerance.rel, abs_tol=tolerance.abs_tol)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _compare_dicts(before: dict, after: dict, tolerance: Tolerance, where: str) -> Optional[str]:
    if before.keys() != after.keys():
        only_before = sorted(map(str, before.keys() - after.keys()))
        only_after = sorted(map(str, after.keys() - before.keys()))
        return f"{where or 'result'}: keys differ (only before: {only_before}, only after: {only_after})"
    for key in before:
        problem = compare(before[key], after[key], tolerance, f"{where}.{key}" if where else str(key))
        if problem:
            return problem
    return None


def _compare_lists(before: list, after: list, tolerance: Tolerance, where: str) -> Optional[str]:
    if len(before) != len(after):
        return f"{where or 'result'}: {len(before)} items before, {len(after)} after"
    for index, (a, b) in enumerate(zip(before, after)):
        problem = compare(a, b, tolerance, f"{where}[{index}]")
        if problem:
            return problem
    return None


def compare(before: object, after: object, tolerance: Tolerance, where: str = "") -> Optional[str]:
    """None when two JSON results agree within `tolerance`, else where and how they first differ."""
    if isinstance(before, dict) and isinstance(after, dict):
        return _compare_dicts(before, after, tolerance, where)
    if isinstance(before, list) and isinstance(after, list):
        return _compare_lists(before, after, tolerance, where)
    if _is_number(before) and _is_number(after):
        if numbers_close(float(before), float(after), tolerance):  # type: ignore[arg-type]
            return None
        limits = f"rel {tolerance.rel:g}, abs {tolerance.abs_tol:g}"
        return f"{where or 'result'}: {before!r} before, {after!r} after ({limits})"
    if type(before) is not type(after) or before != after:
        return f"{where or 'result'}: {before!r} before, {after!r} after"
    return None


def tolerance_for(code: str) -> Tolerance:
    return TOLERANCES.get(code, DEFAULT_TOLERANCE)


# ---------------------------------------------------------------------------------------------
# Timing and synchronisations


def summarize(before: Sequence[float], after: Sequence[float]) -> Tuple[float, float, Optional[float], Optional[float]]:
    """Median seconds per step, speedup = before/after and spread = the largest distance of one
    repeat's own speedup from it (so every repeat lies within speedup ± spread)."""
    before_s, after_s = statistics.median(before), statistics.median(after)
    if min(*before, *after) <= 0:
        return before_s, after_s, None, None
    speedup = before_s / after_s
    ratios = [b / a for b, a in zip(before, after)]
    return before_s, after_s, speedup, max(abs(ratio - speedup) for ratio in ratios)


def count_syncs(program: Path, label: str, env: Mapping[str, str], timeout: float) -> int:
    """Host-device synchronisations of one run, counted from CUDA sync-debug warnings."""
    command = [sys.executable, "-c", SYNC_WRAPPER, str(program)]
    run = checked(run_program(command, env, program.parent, timeout), label)
    return sum(SYNC_WARNING in line for line in run.stderr.splitlines())


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

    def run(self, label: str, steps: int) -> ProgramRun:
        """One checked run of the program `label` with `steps` steps."""
        env = program_env(self.device, steps, self.size)
        command = [sys.executable, str(self.programs[label])]
        return checked(run_program(command, env, self.programs[label].parent, self.timeout), label)

    def measure(self, repeats: int) -> Measurements:
        """Time N and 2N steps per program, alternating the order between repeats (ABBA)."""
        found = Measurements()
        for repeat in range(max(repeats, 1)):
            order = (BEFORE, AFTER) if repeat % 2 == 0 else (AFTER, BEFORE)
            for label in order:
                if repeats:
                    self.progress(f"{self.code}: timing {label} ({repeat + 1}/{repeats})...")
                    self._time_once(label, repeat == 0, found)
                else:
                    self.progress(f"{self.code}: running {label}...")
                    found.results[label][self.steps] = parse_result(self.run(label, self.steps), label)
        return found

    def _time_once(self, label: str, keep_results: bool, found: Measurements) -> None:
        short, long = self.run(label, self.steps), self.run(label, 2 * self.steps)
        found.samples[label].append((long.seconds - short.seconds) / self.steps)
        if keep_results:
            found.results[label][self.steps] = parse_result(short, label)
            found.results[label][2 * self.steps] = parse_result(long, label)

    def syncs(self) -> Tuple[int, int]:
        """Synchronisations of a run of `steps` steps, before and after the fix."""
        counts = []
        for label in (BEFORE, AFTER):
            self.progress(f"{self.code}: counting synchronisations in {label}...")
            env = program_env(self.device, self.steps, self.size)
            counts.append(count_syncs(self.programs[label], label, env, self.timeout))
        return counts[0], counts[1]


def equivalence_problem(code: str, results: Dict[str, Dict[int, object]]) -> Optional[str]:
    """How before and after results differ for some step count, or None when they agree."""
    for steps in sorted(results[BEFORE]):
        problem = compare(results[BEFORE][steps], results[AFTER][steps], tolerance_for(code))
        if problem:
            return f"{steps} steps: {problem}"
    return None


# ---------------------------------------------------------------------------------------------
# Verifying


@dataclass(frozen=True)
class Fixture:
    """One rule's fixture pair and what verify needs to know about the rule."""

    code: str
    name: str
    fixable: bool
    directory: Path

    def read(self, label: str) -> str:
        return (self.directory / f"{label}.py").read_text(encoding="utf-8")


def verify_rule(fixture: Fixture, settings: RuleRun, repeats: int) -> RuleVerification:
    """Check the fix of one fixture pair, then run, compare and time both programs."""
    settings.progress(f"{fixture.code}: fixing before.py...")
    before_text = fixture.read(BEFORE)
    after_text, mismatch = fixed_program(before_text, fixture.read(AFTER), fixture.fixable)
    if mismatch:
        return _failed(fixture, settings.device, mismatch)
    for label, text in ((BEFORE, before_text), (AFTER, after_text)):
        settings.programs[label].parent.mkdir(parents=True, exist_ok=True)
        settings.programs[label].write_text(text, encoding="utf-8")
    try:
        found = settings.measure(repeats)
        counted = settings.device == "cuda" and fixture.code in SYNC_RULES
        syncs: Tuple[Optional[int], Optional[int]] = settings.syncs() if counted else (None, None)
    except ProgramFailure as failure:
        return _failed(fixture, settings.device, str(failure))
    return _result(fixture, settings.device, found, syncs)


def _failed(fixture: Fixture, device: str, detail: str) -> RuleVerification:
    return RuleVerification(fixture.code, fixture.name, device, None, None, None, None, False, detail, None, None)


def _result(
    fixture: Fixture, device: str, found: Measurements, syncs: Tuple[Optional[int], Optional[int]]
) -> RuleVerification:
    problem = equivalence_problem(fixture.code, found.results)
    notes = [problem] if problem else []
    if not fixture.fixable:
        notes.append("no automatic fix: after.py is the hand-written remedy")
    before_s = after_s = speedup = spread = None
    if found.samples[BEFORE]:
        before_s, after_s, speedup, spread = summarize(found.samples[BEFORE], found.samples[AFTER])
        if speedup is None:
            notes.append("timing noise exceeds the time of the extra steps; use more steps")
    return RuleVerification(
        fixture.code,
        fixture.name,
        device,
        before_s,
        after_s,
        speedup,
        spread,
        problem is None,
        "; ".join(notes),
        syncs[0],
        syncs[1],
    )


def _check_arguments(device: str, steps: int, size: str, repeats: int) -> None:
    if device not in DEVICES:
        raise VerifyError(f"unknown device {device!r}; choose one of {', '.join(DEVICES)}")
    if size not in SIZES:
        raise VerifyError(f"unknown size {size!r}; choose one of {', '.join(SIZES)}")
    if steps < 1:
        raise VerifyError("steps must be at least 1")
    if repeats < 0:
        raise VerifyError("repeats must be at least 0 (0 checks equivalence without timing)")


def verify(
    codes: Optional[Sequence[str]],
    device: str,
    steps: int,
    size: str,
    repeats: int,
    progress: Optional[Progress],
    *,
    fixtures_dir: Optional[Path] = None,
    timeout: float = DEFAULT_TIMEOUT_S,
) -> List[RuleVerification]:
    """Verify the fixture pairs of `codes` (all when None) on `device`, one rule after another.

    Each program runs with `steps` and 2 × `steps` steps, `repeats` times; `repeats=0` runs each
    once with `steps` steps and checks equivalence only. Raises VerifyError when nothing can run.
    """
    _check_arguments(device, steps, size, repeats)
    fixtures = Path(fixtures_dir) if fixtures_dir is not None else default_fixtures_dir()
    chosen = select_codes(codes, fixture_codes(fixtures))
    report: Progress = progress or (lambda message: None)
    results = []
    with tempfile.TemporaryDirectory(prefix="torchlint-verify-") as tmp:
        for fixture in load_fixtures(chosen, fixtures):
            programs = {label: Path(tmp) / fixture.code / f"{label}.py" for label in (BEFORE, AFTER)}
            settings = RuleRun(fixture.code, programs, device, steps, size, timeout, report)
            results.append(verify_rule(fixture, settings, repeats))
    return results


def load_fixtures(codes: Sequence[str], fixtures_dir: Path) -> List[Fixture]:
    """The fixture pairs of `codes`; a code that names no rule is treated as fixable."""
    rules = {rule.code: rule for rule in all_rules()}
    fixtures = []
    for code in codes:
        rule = rules.get(code)
        fixable = rule is None or rule.fix_applicability is not Applicability.NONE
        fixtures.append(Fixture(code, rule.name if rule else "", fixable, fixtures_dir / code))
    return fixtures


# ---------------------------------------------------------------------------------------------
# Output

TABLE_COLUMNS = ("rule", "device", "before ms/step", "after ms/step", "speedup ± spread", "equivalent", "syncs")


def _ms(seconds: Optional[float]) -> str:
    return "-" if seconds is None else f"{seconds * 1000:.3f}"


def _speedup(result: RuleVerification) -> str:
    if result.speedup is None:
        return "-"
    return f"{result.speedup:.2f}x ± {result.spread or 0.0:.2f}"


def _syncs(result: RuleVerification) -> str:
    if result.syncs_before is None or result.syncs_after is None:
        return "-"
    return f"{result.syncs_before} -> {result.syncs_after}"


def table_row(result: RuleVerification) -> Tuple[str, ...]:
    """The cells of one result, in TABLE_COLUMNS order."""
    return (
        result.code,
        result.device,
        _ms(result.before_s),
        _ms(result.after_s),
        _speedup(result),
        "yes" if result.equivalent else "NO",
        _syncs(result),
    )


NUMERIC_COLUMNS = frozenset({2, 3, 4})


def _table_line(row: Sequence[str], widths: Sequence[int]) -> str:
    cells = [
        cell.rjust(width) if column in NUMERIC_COLUMNS else cell.ljust(width)
        for column, (cell, width) in enumerate(zip(row, widths))
    ]
    return "  ".join(cells).rstrip()


def format_table(results: Sequence[RuleVerification]) -> str:
    """An aligned text table (numbers right-aligned), followed by one line per rule with a detail."""
    rows = [TABLE_COLUMNS] + [table_row(result) for result in results]
    widths = [max(len(row[column]) for row in rows) for column in range(len(TABLE_COLUMNS))]
    lines = [_table_line(row, widths) for row in rows]
    lines.extend(f"{result.code}: {result.detail}" for result in results if result.detail)
    return "\n".join(lines)


def to_json(results: Sequence[RuleVerification]) -> str:
    """The results as a JSON array of objects with the RuleVerification fields (seconds per step)."""
    return json.dumps([asdict(result) for result in results], indent=2, allow_nan=False)
