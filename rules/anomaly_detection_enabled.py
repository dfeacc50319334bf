from typing import Optional

import libcst as cst

from torchlint.engine.rule import Rule
from torchlint.semantics.calls import argument, is_literal, keyword
from torchlint.semantics.framework_names import lightning_class
from torchlint.semantics.tree import descendants

# Calls that switch anomaly mode on for the rest of the process (or the `with` block).
SET_DETECT_ANOMALY = frozenset(
    {
        "torch.autograd.set_detect_anomaly",
        "torch.autograd.anomaly_mode.set_detect_anomaly",
        "torch.set_anomaly_enabled",
    }
)
# Context managers that switch anomaly mode on for their block.
DETECT_ANOMALY = frozenset({"torch.autograd.detect_anomaly", "torch.autograd.anomaly_mode.detect_anomaly"})
# The autograd profiler and NVTX emission: context managers with an `enabled` first parameter.
PROFILERS = frozenset(
    {
        "torch.autograd.profiler.profile",
        "torch.autograd.profiler_legacy.profile",
        "torch.autograd.profiler.emit_nvtx",
    }
)
# Words that mark an `if` test, a function or a file as an opt-in debugging or profiling switch.
DEBUG_WORDS = ("debug", "anomal", "profil", "nvtx")
TEST_BASES = frozenset({"unittest.TestCase", "unittest.case.TestCase"})


class AnomalyDetectionEnabled(Rule):
    """## What it does
    Flags autograd debugging tools left switched on: `torch.autograd.set_detect_anomaly(True)`,
    `with torch.autograd.detect_anomaly():`, and the autograd profiler
    (`torch.autograd.profiler.profile()`, `torch.autograd.profiler.emit_nvtx()`) used as a
    context manager.

    ## Why is this slow?
    Anomaly mode is a debugging aid. While it is on, autograd saves a Python traceback for
    every operation of the forward pass, so that an error in backward can name the forward
    line that caused it, and it checks the output of every backward function for NaN, which
    reads a result back to the host once per node of the graph. PyTorch warns that it slows
    the program down and should only be enabled for debugging; training steps commonly run
    several times slower with it. The autograd profiler and `emit_nvtx` record an event or an
    NVTX range for every operator, which adds a fixed cost per op and, for the profiler,
    memory that grows with the length of the run.

    To stay precise the rule is silent:
    - for `set_detect_anomaly(False)` and for any argument that is not the literal `True`
      (`set_detect_anomaly(args.debug)` is an opt-in switch), and for a profiler created with
      `enabled=` anything other than the literal `True`;
    - inside an `if` (or a conditional expression) whose test names a debugging switch
      (`debug`, `anomaly`, `profile`, `nvtx`: `if args.detect_anomaly:`,
      `if os.environ.get("DEBUG"):`), inside functions whose names do (`def debug_step`), and
      in files whose names do (`debug_nan.py`, `profile_model.py`): debugging tools;
    - in test code (`test_*.py`/`*_test.py` files, `test_*` functions, `unittest` classes),
      where catching the anomaly is the point;
    - for `detect_anomaly()`, `profile()` or `emit_nvtx()` objects that are created but not
      entered with `with` (they switch nothing on), and for `torch.profiler.profile`, whose
      schedule usually limits it to a few steps.

    Lightning's `Trainer(detect_anomaly=True)` (also `Trainer.from_argparse_args(args,
    detect_anomaly=True)`) turns the same mode on for the whole fit (since
    round 23; any value but the literal `True` is a switch, silent).

    ## Example
    ```python
    torch.autograd.set_detect_anomaly(True)
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    ```

    ## Use instead
    Remove the call, or enable it only behind an explicit debugging switch:
    ```python
    if args.detect_anomaly:
        torch.autograd.set_detect_anomaly(True)
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    ```
    To profile, use `torch.profiler.profile` with a `schedule` that records a few steps.

    ## Fix applicability
    None: whether the tool is still needed is the author's call, and removing a `with`
    block means re-indenting its body.

    ## Measured precision
    stable; no finding in the real-code benchmark. See docs/precision.md.
    """

    code = "TL403"
    impact = "medium"
    name = "anomaly-detection-enabled"
    summary = "Autograd anomaly detection or the autograd profiler left on in training code"
    triggers = ("anomaly", "profile", "emit_nvtx")
    bad_examples = (
        "import torch\ntorch.autograd.set_detect_anomaly(True)\n",
        "import torch\nwith torch.autograd.detect_anomaly():\n    loss.backward()\n",
        "from torch.autograd import profiler\nwith profiler.profile(use_cuda=True) as prof:\n    train_step()\n",
    )
    good_examples = (
        "import torch\ntorch.autograd.set_detect_anomaly(False)\n",
        "import torch\ntorch.autograd.set_detect_anomaly(args.debug)\n",
        "import torch\nif args.debug:\n    torch.autograd.set_detect_anomaly(True)\n",
        "import torch\nwith torch.autograd.profiler.profile(enabled=False):\n    train_step()\n",
        "import torch\nfrom mylib import set_detect_anomaly\nset_detect_anomaly(True)\n",
    )

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.ctx.qualified_name(node.func)
        if qualified is None:
            return
        message = self._message(node, qualified)
        if message is None or self._opted_in(node):
            return
        flag = keyword(node, "detect_anomaly")
        self.report(flag if flag is not None else node, message)  # a trainer's: at the option that turns it on

    def _message(self, node: cst.Call, qualified: str) -> Optional[str]:
        if lightning_class(qualified, "Trainer") or (
            qualified.endswith(".from_argparse_args") and lightning_class(qualified.rpartition(".")[0], "Trainer")
        ):
            flag = keyword(node, "detect_anomaly")
            if flag is None or not is_literal(flag.value, "True"):
                return None
            return (
                "`detect_anomaly=True` turns on autograd's anomaly mode for every step of the fit: a traceback "
                "for every forward op and a NaN check of every backward output; remove it or set it only behind a debug switch"
            )
        if qualified in SET_DETECT_ANOMALY:
            mode = argument(node, "enabled" if qualified == "torch.set_anomaly_enabled" else "mode", 0)
            if mode is None or not is_literal(mode.value, "True"):
                return None
            return (
                "anomaly detection records a traceback for every forward op and checks every backward "
                "output for NaN; remove it from training code or enable it only behind a debug switch"
            )
        if not self._entered(node):
            return None
        if qualified in DETECT_ANOMALY:
            return (
                "`detect_anomaly()` records a traceback for every forward op and checks every backward "
                "output for NaN; remove it from training code or enable it only behind a debug switch"
            )
        if qualified in PROFILERS:
            enabled = argument(node, "enabled", 0)
            if enabled is not None and not is_literal(enabled.value, "True"):
                return None
            tool = qualified.rpartition(".")[2]
            return (
                f"the autograd profiler (`{tool}`) records every operator; remove it from training code, "
                "or profile a few steps with `torch.profiler.profile(schedule=...)`"
            )
        return None

    def _entered(self, node: cst.Call) -> bool:
        """Whether `node` is the context manager of a `with` item."""
        parent = self.ctx.parent()
        return isinstance(parent, cst.WithItem) and parent.item is node

    def _opted_in(self, node: cst.Call) -> bool:
        """Behind a debugging switch, in a debugging helper, or in test code."""
        filename = self.ctx.path.replace("\\", "/").rsplit("/", 1)[-1].lower()
        if filename.startswith("test_") or filename.endswith("_test.py") or filename == "conftest.py":
            return True
        if any(word in filename for word in DEBUG_WORDS):
            return True
        for ancestor, child in self.ctx.path_to(node):
            if isinstance(ancestor, (cst.If, cst.IfExp)) and child is not ancestor.test and _names_debugging(ancestor.test):
                return True
            if isinstance(ancestor, cst.FunctionDef):
                name = ancestor.name.value.lower()
                if name.startswith("test_") or any(word in name for word in DEBUG_WORDS):
                    return True
            if isinstance(ancestor, cst.ClassDef) and any(
                self.ctx.qualified_name(base.value) in TEST_BASES for base in ancestor.bases
            ):
                return True
        return False


def _names_debugging(test: cst.BaseExpression) -> bool:
    """Whether an `if` test mentions a debugging switch in a name, attribute or string."""
    for node in descendants(test):
        if isinstance(node, (cst.Name, cst.SimpleString)) and any(word in node.value.lower() for word in DEBUG_WORDS):
            return True
    return False
