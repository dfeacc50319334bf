"""The `torchlint` command line."""

from __future__ import annotations

import os
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

import click

from torchlint import __version__
from torchlint.engine.cache import CACHE_DIR_NAME, ResultCache, clean_cache, engine_fingerprint
from torchlint.config import ConfigError, Settings, load_settings, override, parse_torch_version
from torchlint.engine.context import Options
from torchlint.files.discovery import DEFAULT_EXCLUDE, DiscoveryResult, discover
from torchlint.engine.findings import Finding
from torchlint.output import FORMATTERS, Report
from torchlint.engine.rule import SEVERITIES, all_rules
from torchlint.engine.runner import FileJob, FileOutcome, FixMode, RunOptions, check_cached, check_files, default_workers
from torchlint.engine.selection import SelectionError, enabled_codes, expand, preview_warnings

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
# Files searched for in directories: Python sources, stubs and Jupyter notebooks.
SOURCE_EXTENSIONS = (".py", ".pyi", ".ipynb")


class UsageFailure(Exception):
    """A problem with how torchlint was called or configured: one line on stderr, exit code 2."""


def _split(values: Tuple[str, ...]) -> Optional[Tuple[str, ...]]:
    """`--select TL1,TL2 --select TL3` to ("TL1", "TL2", "TL3"); None when the option was not given."""
    if not values:
        return None
    return tuple(part.strip() for value in values for part in value.split(",") if part.strip())


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="torchlint")
def main() -> None:
    """torchlint: find PyTorch performance anti-patterns."""


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path, allow_dash=True))
@click.option("--select", multiple=True, help="Rules to enable: codes, prefixes (TL1), names or ALL. Replaces the configured selection.")
@click.option("--extend-select", multiple=True, help="Rules to enable on top of the selection.")
@click.option("--ignore", multiple=True, help="Rules to disable.")
@click.option("--exclude", multiple=True, help="Path patterns to skip, replacing the defaults.")
@click.option("--extend-exclude", multiple=True, help="Path patterns to skip on top of the defaults.")
@click.option("--force-exclude", is_flag=True, help="Apply excludes to paths given on the command line too.")
@click.option("--torch-version", help="The PyTorch version the code targets, e.g. 1.13 (default: current).")
@click.option("--min-severity", type=click.Choice(SEVERITIES), help="Only run rules of at least this severity (default: info, all).")
@click.option("--preview", is_flag=True, help="Also run preview rules (precision not yet measured at 0.90 or above).")
@click.option("--config", "config_path", type=click.Path(path_type=Path), help="Use this configuration file.")
@click.option("--isolated", is_flag=True, help="Ignore all configuration files.")
@click.option("--fix", is_flag=True, help="Apply safe fixes in place.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply (with --fix) or offer unsafe fixes.")
@click.option("--diff", is_flag=True, help="Print the changes --fix would make as a unified diff; write nothing.")
@click.option("--show-fixes", is_flag=True, help="List the findings that were fixed.")
@click.option("--add-noqa", is_flag=True, help="Add `# noqa: CODE` to every current finding's line.")
@click.option("--stdin-filename", help="The name to use for source read from standard input (path '-').")
@click.option("--output-format", type=click.Choice(sorted(FORMATTERS)), default="full", show_default=True)
@click.option("--statistics", is_flag=True, help="Print the number of findings per rule instead of each finding.")
@click.option("--exit-zero", is_flag=True, help="Exit with 0 even when there are findings.")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True)
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Worker processes (default: all cores).")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the result cache.")
@click.option("--cache-dir", type=click.Path(path_type=Path), help=f"Where to keep the result cache (default: {CACHE_DIR_NAME} in the project root).")
def check(
    paths: Tuple[Path, ...],
    select: Tuple[str, ...],
    extend_select: Tuple[str, ...],
    ignore: Tuple[str, ...],
    exclude: Tuple[str, ...],
    extend_exclude: Tuple[str, ...],
    force_exclude: bool,
    torch_version: Optional[str],
    min_severity: Optional[str],
    preview: bool,
    config_path: Optional[Path],
    isolated: bool,
    fix: bool,
    unsafe_fixes: bool,
    diff: bool,
    show_fixes: bool,
    add_noqa: bool,
    stdin_filename: Optional[str],
    output_format: str,
    statistics: bool,
    exit_zero: bool,
    color: str,
    jobs: Optional[int],
    no_cache: bool,
    cache_dir: Optional[Path],
) -> None:
    """Check PATHS (files or directories, default: the current directory; '-' reads standard input)."""
    from_stdin = Path("-") in paths
    try:
        if from_stdin and len(paths) > 1:
            raise UsageFailure("'-' (standard input) cannot be combined with other paths")
        if sum((fix, diff, add_noqa)) > 1:
            raise UsageFailure("--fix, --diff and --add-noqa cannot be combined")
        if add_noqa and from_stdin:
            raise UsageFailure("--add-noqa needs files, not standard input")
        settings = _settings(config_path, isolated, select, extend_select, ignore, exclude, extend_exclude, torch_version)
        rules = all_rules()
        floor = min_severity or settings.min_severity
        preview = preview or settings.preview
        codes = enabled_codes(rules, settings.select, settings.extend_select, settings.ignore, floor, preview)
        for warning in preview_warnings((*settings.select, *settings.extend_select), rules, preview):
            click.echo(warning, err=True)
        if from_stdin:
            name = stdin_filename or "-"
            file_jobs = [FileJob(name, codes - expand(settings.ignored_for(Path(name)), rules), sys.stdin.buffer.read())]
            discovered = DiscoveryResult([], [])
        else:
            discovered = discover(
                list(paths) or [Path(".")],
                root=settings.root,
                exclude=settings.exclude if settings.exclude is not None else DEFAULT_EXCLUDE,
                extend_exclude=settings.extend_exclude,
                force_exclude=force_exclude,
                extensions=SOURCE_EXTENSIONS,
            )
            file_jobs = [FileJob(str(p), codes - expand(settings.ignored_for(p), rules)) for p in discovered.files]
    except (ConfigError, SelectionError, UsageFailure) as error:
        _fail(str(error))
    for message in (*discovered.errors, *discovered.warnings):
        click.echo(message, err=True)
    mode = FixMode.ADD_NOQA if add_noqa else FixMode.DIFF if diff else FixMode.FIX if fix else FixMode.CHECK
    run_options = RunOptions(Options(settings.torch_version, settings.test_paths, settings.lint_test_code), mode, unsafe_fixes)
    workers = jobs or default_workers()
    if mode is FixMode.CHECK and not from_stdin and not no_cache:
        cache = ResultCache(cache_dir or settings.root / CACHE_DIR_NAME, engine_fingerprint(run_options.lint))
        outcomes = check_cached(file_jobs, run_options, workers, cache)
    else:
        outcomes = check_files(file_jobs, run_options, workers)
    view = _View(output_format, statistics, unsafe_fixes, _use_color(color), show_fixes)
    if mode is FixMode.DIFF:
        status = _emit_diff(outcomes)
    elif mode is FixMode.ADD_NOQA:
        status = _emit_add_noqa(outcomes, view)
    elif from_stdin and mode is FixMode.FIX:
        status = _emit_fixed_stdin(outcomes[0], view)
    else:
        status = _emit(outcomes, view, incomplete=bool(discovered.errors))
    if discovered.errors or any(outcome.error for outcome in outcomes):
        status = EXIT_ERROR
    sys.exit(EXIT_CLEAN if exit_zero and status == EXIT_FINDINGS else status)


def _settings(
    config_path: Optional[Path],
    isolated: bool,
    select: Tuple[str, ...],
    extend_select: Tuple[str, ...],
    ignore: Tuple[str, ...],
    exclude: Tuple[str, ...],
    extend_exclude: Tuple[str, ...],
    torch_version: Optional[str],
) -> Settings:
    settings = load_settings(config_path, isolated, Path.cwd())
    return override(
        settings,
        select=_split(select),
        extend_select=settings.extend_select + (_split(extend_select) or ()),
        ignore=settings.ignore + (_split(ignore) or ()),
        exclude=_split(exclude),
        extend_exclude=settings.extend_exclude + (_split(extend_exclude) or ()),
        torch_version=parse_torch_version(torch_version) if torch_version else None,
    )


@dataclass(frozen=True)
class _View:
    """How findings are shown."""

    output_format: str
    statistics: bool
    unsafe_fixes: bool
    color: bool
    show_fixes: bool


def _report_problems(outcomes: Sequence[FileOutcome]) -> None:
    for outcome in outcomes:
        if outcome.error:
            click.echo(f"torchlint: error: {outcome.error}", err=True)
        if outcome.warning:
            click.echo(f"torchlint: warning: {outcome.path}: {outcome.warning}", err=True)


def _emit(outcomes: Sequence[FileOutcome], view: _View, to_stderr: bool = False, incomplete: bool = False) -> int:
    """Print remaining findings, fixes made and the summary; return the exit status they call for."""
    _report_problems(outcomes)
    findings: List[Finding] = sorted((f for o in outcomes for f in o.findings), key=lambda f: f.sort_key)
    fixed = [f for o in outcomes for f in o.fixed]
    if view.statistics:
        click.echo(_statistics(findings, view.unsafe_fixes), nl=False, err=to_stderr)
    else:
        snippets = {o.path: o.snippets for o in outcomes}
        text = FORMATTERS[view.output_format](Report(findings, snippets, view.unsafe_fixes, view.color))
        if text:
            click.echo(text, nl=False, color=view.color, err=to_stderr)
    if view.show_fixes and fixed:
        click.echo(_fixed_listing(fixed), nl=False, err=True)
    incomplete = incomplete or any(o.error for o in outcomes)
    click.echo(_summary(findings, fixed, len(outcomes), view.unsafe_fixes, incomplete), err=True)
    return EXIT_FINDINGS if findings else EXIT_CLEAN


def _emit_fixed_stdin(outcome: FileOutcome, view: _View) -> int:
    """Standard input with --fix: the fixed source on stdout, everything else on stderr."""
    if outcome.fixed_source is not None:
        sys.stdout.flush()
        sys.stdout.buffer.write(outcome.fixed_source)
        sys.stdout.buffer.flush()
    return _emit([outcome], view, to_stderr=True)


def _emit_diff(outcomes: Sequence[FileOutcome]) -> int:
    _report_problems(outcomes)
    diffs = [o.diff for o in outcomes if o.diff]
    for diff in diffs:
        click.echo(diff, nl=False)
    would_fix = sum(len(o.fixed) for o in outcomes)
    click.echo(f"Would fix {would_fix} finding{'s' if would_fix != 1 else ''} in {len(diffs)} file{'s' if len(diffs) != 1 else ''}.", err=True)
    return EXIT_FINDINGS if diffs else EXIT_CLEAN


def _emit_add_noqa(outcomes: Sequence[FileOutcome], view: _View) -> int:
    """After --add-noqa: what could not be suppressed (a line inside a string) keeps exit 1."""
    added = sum(o.noqa_added for o in outcomes)
    status = _emit(outcomes, view) if any(o.findings for o in outcomes) else EXIT_CLEAN
    if status == EXIT_CLEAN:
        _report_problems(outcomes)
    click.echo(f"Added {_plural(added, 'noqa directive')}.", err=True)
    return status


def _fixed_listing(fixed: Sequence[Finding]) -> str:
    counts = Counter((f.path, f.code, f.name) for f in fixed)
    lines = [f"Fixed {len(fixed)} finding{'s' if len(fixed) != 1 else ''}:"]
    for (path, code, name), count in sorted(counts.items()):
        lines.append(f"  {path}: {count} x {code} ({name})")
    return "\n".join(lines) + "\n"


def _statistics(findings: Sequence[Finding], unsafe_fixes: bool) -> str:
    counts = Counter((f.code, f.name) for f in findings)
    fixable = {f.code for f in findings if f.fixable(unsafe_fixes)}
    return "".join(
        f"{count:>5}  {code}  {name}{'  [*]' if code in fixable else ''}\n" for (code, name), count in sorted(counts.items())
    )


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _summary(findings: Sequence[Finding], fixed: Sequence[Finding], files: int, unsafe_fixes: bool, incomplete: bool) -> str:
    if incomplete and not findings and not fixed:
        return f"No findings in {_plural(files, 'checked file')}, but some paths could not be checked (see above)."
    if fixed:
        total = len(findings) + len(fixed)
        return f"Found {_plural(total, 'finding')} ({len(fixed)} fixed, {len(findings)} remaining) in {_plural(files, 'checked file')}."
    if not findings:
        return f"All checks passed ({_plural(files, 'file')} checked)."
    fixable = sum(f.fixable(unsafe_fixes) for f in findings)
    hidden = sum(f.fixable(True) for f in findings) - fixable
    text = f"Found {_plural(len(findings), 'finding')} in {_plural(files, 'checked file')}."
    if fixable:
        text += f" {fixable} fixable with --fix."
    if hidden:
        text += f" {hidden} more with --unsafe-fixes."
    return text


def _use_color(choice: str) -> bool:
    if choice != "auto":
        return choice == "always"
    return "NO_COLOR" not in os.environ and sys.stdout.isatty()


def _fail(message: str) -> None:
    click.echo(f"torchlint: error: {message}", err=True)
    sys.exit(EXIT_ERROR)


@main.command()
@click.argument("code", required=False)
@click.option("--all", "show_all", is_flag=True, help="List every rule.")
def rule(code: Optional[str], show_all: bool) -> None:
    """Print the documentation of a rule (by code or name), or list all rules."""
    rules = all_rules()
    if show_all or code is None:
        for item in rules:
            tier = "preview" if item.preview else "stable"
            click.echo(f"{item.code}  {item.name:<24} {item.severity:<8} {item.fix_applicability.value:<7} {tier:<8} {item.summary}")
        return
    matches = [item for item in rules if code.upper() == item.code or code.lower() == item.name]
    if not matches:
        _fail(f"unknown rule {code!r}; `torchlint rule --all` lists the rules")
    item = matches[0]
    click.echo(
        f"# {item.code} {item.name}\n\nSeverity: {item.severity}. Fix: {item.fix_applicability.value}."
        f"{' Preview: runs only with --preview.' if item.preview else ''}\n\n{item.documentation()}",
        nl=False,
    )


@main.command()
@click.option("--cache-dir", type=click.Path(path_type=Path), help="The cache directory to remove.")
@click.option("--config", "config_path", type=click.Path(path_type=Path), help="Use this configuration file.")
@click.option("--isolated", is_flag=True, help="Ignore all configuration files.")
def clean(cache_dir: Optional[Path], config_path: Optional[Path], isolated: bool) -> None:
    """Remove the result cache."""
    try:
        root = load_settings(config_path, isolated, Path.cwd()).root
    except ConfigError as error:
        _fail(str(error))
    directory = cache_dir or root / CACHE_DIR_NAME
    removed = clean_cache(directory)
    click.echo(f"Removed {directory}." if removed else f"No cache at {directory}.", err=True)


@main.command()
@click.option("--rule", "codes", multiple=True, help="Verify this rule (repeatable; default: every rule with a fixture pair).")
@click.option("--device", type=click.Choice(["cpu", "cuda"]), default="cpu", show_default=True)
@click.option("--steps", type=click.IntRange(min=1), default=20, show_default=True, help="Training steps per measured run.")
@click.option("--size", type=click.Choice(["small", "large"]), default="small", show_default=True)
@click.option("--repeats", type=click.IntRange(min=0), default=3, show_default=True, help="Timed repeats (0: check equivalence only).")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
def verify(codes: Tuple[str, ...], device: str, steps: int, size: str, repeats: int, output_format: str) -> None:
    """Run each rule's before/after fixture programs: same results, and how much faster.

    Needs torch and a source checkout (the programs live in fixtures/). Exits 1 when a fixed
    program does not keep its results.
    """
    from torchlint import verify as verification

    def progress(message: str) -> None:
        click.echo(f"torchlint verify: {message}", err=True)

    try:
        results = verification.verify(list(codes) or None, device, steps, size, repeats, progress)
    except verification.VerifyError as error:
        _fail(str(error))
    click.echo(verification.to_json(results) if output_format == "json" else verification.format_table(results))
    sys.exit(EXIT_CLEAN if all(result.equivalent for result in results) else EXIT_FINDINGS)
