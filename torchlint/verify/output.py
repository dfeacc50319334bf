"""verify's results for people and machines: a terminal table, JSON, and a Markdown report."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Callable, List, Optional, Sequence, Tuple

from torchlint.engine.rule import all_rules
from torchlint.verify.verification import WARMUP_STEPS, WINDOW_STEPS, RuleVerification
from torchlint.verify.environment import Environment
from torchlint.verify.sizes import WORKLOADS

CPU_NOTE = (
    "Equivalence only: timings need a GPU (run `torchlint verify --device cuda --size large` on a CUDA machine)."
)
MIB = 1024 * 1024
NOT_MEASURABLE = "no measurable difference"
# Speedups (before/after time per step) at which a measured fix counts as medium and high
# impact; the README's "Impact levels" gives the same bounds for the declared levels.
IMPACT_SPEEDUPS = (("high", 1.25), ("medium", 1.05))


@dataclass(frozen=True)
class Context:
    """How the results were obtained: the exact command, size, device and environment."""

    command: str
    size: str
    device: str
    steps: int
    timed: bool
    environment: Environment
    date: str


def _ms(seconds: Optional[float]) -> str:
    return "-" if seconds is None else f"{seconds * 1000:.3f}"


def _speedup(result: RuleVerification) -> str:
    if result.speedup is None:
        return NOT_MEASURABLE if result.before_s is not None else "-"
    if result.speedup_low is None or result.speedup_high is None:
        return f"{result.speedup:.2f}x"
    return f"{result.speedup:.2f}x [{result.speedup_low:.2f}, {result.speedup_high:.2f}]"


def declared_impact(result: RuleVerification) -> str:
    """The impact level the rule declares (`torchlint rule CODE`)."""
    return next((rule.impact for rule in all_rules() if rule.code == result.code), "-")


def measured_impact(result: RuleVerification) -> str:
    """The level the measured speedup falls in: "none" when timed without a measurable difference,
    "slower" when the fix measurably slows the step, "-" without timings."""
    if result.speedup is None:
        return "none" if result.before_s is not None else "-"
    if result.speedup < 1:
        return "slower"
    return next((level for level, bound in IMPACT_SPEEDUPS if result.speedup >= bound), "low")


def _pair(before: Optional[float], after: Optional[float], scale: float = 1.0) -> str:
    if before is None or after is None:
        return "-"
    return f"{before / scale:.0f} -> {after / scale:.0f}"


# (header, cell, right-aligned); a column with no value in any row is left out of the table.
Column = Tuple[str, Callable[[RuleVerification], str], bool]
COLUMNS: Tuple[Column, ...] = (
    ("rule", lambda r: r.code, False),
    ("workload", lambda r: r.workload, False),
    ("before ms/step", lambda r: _ms(r.before_s), True),
    ("after ms/step", lambda r: _ms(r.after_s), True),
    ("speedup [interval]", _speedup, True),
    ("A/A spread", lambda r: "-" if r.aa_spread is None else f"±{r.aa_spread:.1%}", True),
    ("equivalent", lambda r: "yes" if r.equivalent else "NO", False),
    ("syncs", lambda r: _pair(r.syncs_before, r.syncs_after), False),
    ("peak MiB", lambda r: _pair(r.peak_before, r.peak_after, MIB), False),
    ("impact", declared_impact, False),
    ("measured impact", measured_impact, False),
)
SPEEDUP_COLUMN = COLUMNS[4]
ALWAYS = frozenset({"rule", "workload", "equivalent", "impact"})


def _columns(results: Sequence[RuleVerification]) -> List[Column]:
    return [c for c in COLUMNS if c[0] in ALWAYS or any(c[1](result) != "-" for result in results)]


def format_table(results: Sequence[RuleVerification], context: Optional[Context] = None) -> str:
    """An aligned text table (numbers right-aligned), one line per rule with a detail, and on an
    untimed run the note that timings need a GPU."""
    columns = _columns(results)
    rows = [[header for header, _, _ in columns]] + [[cell(r) for _, cell, _ in columns] for r in results]
    widths = [max(len(row[index]) for row in rows) for index in range(len(columns))]
    lines = [
        "  ".join(
            cell.rjust(width) if column[2] else cell.ljust(width) for cell, width, column in zip(row, widths, columns)
        ).rstrip()
        for row in rows
    ]
    lines.extend(f"{result.code}: {result.detail}" for result in results if result.detail)
    if context is not None and not context.timed:
        lines.append(CPU_NOTE if context.device == "cpu" else "Equivalence only: no timed repeats at this size.")
    return "\n".join(lines)


def to_json(results: Sequence[RuleVerification], context: Optional[Context] = None) -> str:
    """The results (seconds per step, bytes) with the context they were obtained in."""
    data: dict = {"results": [asdict(result) for result in results]}
    if context is not None:
        data = {**asdict(context), "shapes": WORKLOADS[context.size].describe(), **data}
    return json.dumps(data, indent=2, allow_nan=False)


def _markdown_cell(text: str) -> str:
    return text.replace("|", "\\|")


def markdown_report(results: Sequence[RuleVerification], context: Context) -> str:
    """The Markdown page docs/gpu-results.md is made of: environment, command and one table row
    per rule with every column."""
    env = context.environment
    lines = [
        "# torchlint verify results",
        "",
        f"Produced by `{context.command}` on {context.date}; do not edit by hand.",
        "",
        f"- GPU: {env.gpu or 'none (CPU)'}",
        f"- torch {env.torch or 'not installed'}, CUDA {env.cuda or 'none'}, Python {env.python}",
        f"- device `{context.device}`, size `{context.size}` ({WORKLOADS[context.size].describe()}), "
        f"{context.steps} {'measured ' if context.timed else ''}steps per run",
        "- time per step: CUDA events the programs record at each step start, after "
        f"{WARMUP_STEPS} warm-up steps, in windows of {WINDOW_STEPS} steps; each repeat runs before.py, "
        "after.py and before.py again, each in its own process. The speedup is the median of the windows' "
        "before/after ratios with a distribution-free interval for that median (its coverage in brackets); "
        "it is reported only when the interval excludes 1 and lies outside the A/A interval (before.py "
        "against itself), whose largest distance from 1 is the A/A spread",
        "",
        "| " + " | ".join(header for header, _, _ in COLUMNS) + " |",
        "| " + " | ".join("---:" if numeric else "---" for _, _, numeric in COLUMNS) + " |",
    ]
    for result in results:
        cells = [cell(result) for _, cell, _ in COLUMNS]
        if result.confidence is not None:
            cells[COLUMNS.index(SPEEDUP_COLUMN)] += f" ({result.confidence:.0%})"
        lines.append("| " + " | ".join(_markdown_cell(cell) for cell in cells) + " |")
    details = [f"- {result.code}: {_markdown_cell(result.detail)}" for result in results if result.detail]
    if details:
        lines += ["", *details]
    if not context.timed:
        lines += ["", CPU_NOTE if context.device == "cpu" else "Equivalence only: no timed repeats at this size."]
    return "\n".join(lines) + "\n"
