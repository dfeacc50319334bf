"""How often code runs, and why: the answers of `semantics.frequency` (kept free of the
analysis itself, so that every layer above can name them)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Callable, Optional, Tuple

import libcst as cst


class Frequency(enum.Enum):
    PER_STEP = "per step"
    PER_EPOCH = "per epoch"
    ONCE = "once"
    RARE = "rare"
    UNKNOWN = "unknown"


# Code that runs, or may run, every step: what rules about small per-call costs report (once
# per epoch, an allocation or a copy is lost in the noise).
MAY_RUN_EVERY_STEP = frozenset({Frequency.PER_STEP, Frequency.UNKNOWN})

# Strongest first: a function runs as often as its most frequent call site.
ORDER = (Frequency.PER_STEP, Frequency.PER_EPOCH, Frequency.UNKNOWN, Frequency.ONCE, Frequency.RARE)


# The reason a step loop gives; `Execution.step_loop` finds the loops by it.
IN_STEP_LOOP = "in the step loop"
# The reason an interval test (`if step % n == 0:`) gives: its body runs periodically.
UNDER_INTERVAL = "under an interval test"
# The reason a test of one value of a loop counter gives (`if i == 0:`): one iteration of its loop.
ONE_STEP = "on a single step"
# The reason of a pass over a data loader under such a test (`if step % val_interval == 0: for
# batch in val_loader:`): it runs again at every interval, as a per-epoch evaluation does.
PASS_AT_INTERVALS = "a pass over a loader that an interval test repeats"
# The step method a function called every training step of another module stands for
# (`Reason.method`): whatever it does, every training step does.
TRAINING_STEP_CALLEE = "train_step"
# The same for a function called for every batch of an evaluation pass that runs every epoch
# (`calculate_metrics(batch)` in the loop of a per-epoch `validate()` of another module).
EVALUATION_STEP_CALLEE = "eval_step"
OUTER_LOOP = "in a loop each iteration of which runs a whole training loop"


@dataclass(frozen=True)
class Reason:
    """One link of the chain: what makes the code run as often as it does, and where."""

    text: str
    at: Optional[cst.CSTNode] = None
    # The framework step method (`forward`, `training_step`, ...) whose body the code is in.
    method: str = ""
    # The training framework that runs that method every batch (`frameworks.LIGHTNING`), if any.
    framework: str = ""
    # The reason is a call in another module of the project (`frequency.called_elsewhere`), or a
    # step function whose callers this file does not show (`FrequencyAnalysis.takes_a_step`).
    external: bool = False
    # The calls in another module hand what the function returns to a Gym environment's step
    # (`frequency.called_elsewhere`): an action, which the environment takes on the host.
    environment: bool = False


@dataclass(frozen=True)
class Execution:
    """How often a node runs, why, and the step loop in its own function that repeats it."""

    frequency: Frequency
    reasons: Tuple[Reason, ...] = ()
    loop: Optional[cst.CSTNode] = None
    # Construction or conversion code (`__init__`, `setup()`, class bodies, what only they
    # call): its loops build something once rather than step through data.
    setup: bool = False

    def step_loop(self) -> Optional[cst.CSTNode]:
        """The step loop that makes the node run every step: in its own function (`loop`), or
        in the caller that runs its function every step; None when none does."""
        return next((reason.at for reason in self.reasons if reason.text == IN_STEP_LOOP), None)

    def interval_guard(self) -> Optional[cst.CSTNode]:
        """The `if` of the interval test that makes the node rare, if that is the reason: code
        that runs every N steps of its loop (a periodic validation), many times over a run."""
        first = self.reasons[0] if self.reasons else None
        return first.at if self.frequency is Frequency.RARE and first is not None and first.text == UNDER_INTERVAL else None

    def step_method(self) -> str:
        """The framework step method (`forward`, ...) that makes the node run every step, or ''."""
        return next((reason.method for reason in self.reasons if reason.method), "")

    def framework(self) -> str:
        """The training framework whose batch hook makes the node run every batch, or ''."""
        return next((reason.framework for reason in self.reasons if reason.framework), "")

    def why(self, path: str, line_of: Callable[[cst.CSTNode], int]) -> str:
        """The chain as text: "`log()` is called from `train()` (train.py:88); in the loop at train.py:80"."""
        return "; ".join(
            f"{reason.text} ({path}:{line_of(reason.at)})" if reason.at is not None else reason.text
            for reason in self.reasons
        )
