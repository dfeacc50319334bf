"""`torchlint verify` as a command: choose the device, run, and render the results and report."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional, Sequence, Tuple

from torchlint.verify.verification import Progress, VerifyError, default_repeats, default_steps, is_timed, verify
from torchlint.verify.environment import Environment, probe
from torchlint.verify.output import Context, format_table, markdown_report, to_json


@dataclass(frozen=True)
class Request:
    """The command's options, `device` being cpu, cuda or auto, and `steps` and `repeats` None for
    the size's default."""

    codes: Sequence[str]
    device: str
    steps: Optional[int]
    size: str
    repeats: Optional[int]
    jobs: int = 1

    @property
    def timed_repeats(self) -> int:
        """The repeats asked for, or the size's default."""
        return default_repeats(self.size) if self.repeats is None else self.repeats


def choose_device(requested: str, environment: Environment) -> str:
    """`auto` is cuda when torch sees a GPU; cuda without one, or no torch at all, is an error."""
    if environment.torch is None:
        raise VerifyError('verify needs torch: pip install "torchlint[verify] @ git+https://github.com/torchlint/torchlint@main"')
    if requested == "auto":
        return "cuda" if environment.cuda_available else "cpu"
    if requested == "cuda" and not environment.cuda_available:
        raise VerifyError("--device cuda, but torch sees no CUDA device")
    return requested


def command_line(request: Request, device: str, steps: int) -> str:
    """The command that reproduces this run, every option spelled out."""
    words = ["torchlint", "verify", "--device", device, "--size", request.size, "--steps", str(steps)]
    words += ["--repeats", str(request.timed_repeats)]
    for code in request.codes:
        words += ["--rule", code]
    return shlex.join(words)


def run(request: Request, output_format: str, report: Optional[Path], progress: Progress) -> Tuple[str, bool]:
    """Verify, write the Markdown report when asked, and return the rendered output and whether
    every pair was equivalent."""
    if report is not None and not report.resolve().parent.is_dir():
        raise VerifyError(f"cannot write the report to {report}: no such directory")
    environment = probe()
    device = choose_device(request.device, environment)
    timed = is_timed(device, request.size, request.timed_repeats)
    steps = request.steps or default_steps(request.size, timed)
    if not timed and device == "cpu":
        progress("timings need a GPU: on a CPU, verify checks equivalence only")
    codes = list(request.codes) or None
    results = verify(codes, device, steps, request.size, request.timed_repeats, progress, jobs=request.jobs)
    date = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    context = Context(command_line(request, device, steps), request.size, device, steps, timed, environment, date)
    if report is not None:
        try:
            report.write_text(markdown_report(results, context), encoding="utf-8")
        except OSError as error:
            raise VerifyError(f"cannot write the report to {report}: {error.strerror}") from None
    rendered = to_json(results, context) if output_format == "json" else format_table(results, context)
    return rendered, all(result.equivalent for result in results)
