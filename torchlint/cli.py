"""The `torchlint` command line."""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Dict, FrozenSet, Iterator, List, Mapping, Optional, Sequence, TextIO, Tuple

import click

from torchlint import __version__
from torchlint import baseline as baselines
from torchlint.config import (
    CACHE_DIR_NAME,
    COMMAND_LINE,
    CONFIG_FILES,
    OUTPUT_FORMATS,
    ConfigError,
    Overrides,
    PerFileIgnore,
    Resolver,
    Settings,
    parse_inline,
    parse_per_file_ignore,
    parse_torch_version,
)
from torchlint.engine.cache import ResultCache, clean_cache, engine_fingerprint, load_catalog, save_catalog
from torchlint.engine.catalog import Catalog, RuleInfo
from torchlint.engine.catalog import from_rules as catalog_from_rules
from torchlint.engine.catalog import infos as catalog_infos
from torchlint.engine.findings import Finding
from torchlint.engine.rule import IMPACTS, SEVERITIES
from torchlint.engine.runner import FileJob, FileOutcome, FixMode, RunOptions, check_cached, check_files, default_workers
from torchlint.engine.selection import Layer, SelectionError, preview_warnings
from torchlint.files.discovery import DEFAULT_EXCLUDE, discover, excluded_below
from torchlint.output import FORMATTERS, Report
from torchlint.watch import Watcher

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
# Files searched for in directories: Python sources, stubs and Jupyter notebooks.
SOURCE_EXTENSIONS = (".py", ".pyi", ".ipynb")


class UsageFailure(Exception):
    """A problem with how torchlint was called or configured: one line on stderr, exit code 2."""


# What stops a run with one line on standard error and exit code 2.
_FAILURES = (ConfigError, SelectionError, UsageFailure, baselines.BaselineError)
# How --watch polls (tests bound it).
WATCHER = Watcher()
_LOG = logging.getLogger("torchlint")


def _split(values: Tuple[str, ...]) -> Optional[Tuple[str, ...]]:
    """`--select TL1,TL2 --select TL3` to ("TL1", "TL2", "TL3"); None when the option was not given."""
    if not values:
        return None
    return tuple(part.strip() for value in values for part in value.split(",") if part.strip())


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="torchlint")
def main() -> None:
    """torchlint: find PyTorch performance anti-patterns."""


def _env(name: str) -> str:
    return f"TORCHLINT_{name}"


class _ConfigValue(click.ParamType):
    """A `--config` value; `TORCHLINT_CONFIG` holds one whole value (a path may have spaces)."""

    name = "PATH|KEY=VALUE"

    def split_envvar_value(self, rv: str) -> Sequence[str]:
        return (rv,)


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path, allow_dash=True))
@click.option("--select", multiple=True, help="Rules to enable: codes, prefixes (TL1), names or ALL. Replaces the configured selection.")
@click.option("--extend-select", multiple=True, help="Rules to enable on top of the selection.")
@click.option("--ignore", multiple=True, help="Rules to disable.")
@click.option("--per-file-ignores", multiple=True, metavar="PATTERN:CODES", help="Rules to disable in matching files, replacing the configured table.")
@click.option("--extend-per-file-ignores", multiple=True, metavar="PATTERN:CODES", help="Like --per-file-ignores, on top of the configured table.")
@click.option("--fixable", multiple=True, help="Rules whose fixes may be applied (default: ALL).")
@click.option("--extend-fixable", multiple=True, help="Rules to make fixable on top of --fixable.")
@click.option("--unfixable", multiple=True, help="Rules whose fixes are never applied or offered.")
@click.option("--exclude", multiple=True, help="Path patterns to skip, replacing the defaults.")
@click.option("--extend-exclude", multiple=True, help="Path patterns to skip on top of the defaults.")
@click.option("--force-exclude", is_flag=True, help="Apply excludes to paths given on the command line too.")
@click.option("--torch-version", envvar=_env("TORCH_VERSION"), show_envvar=True, help="The PyTorch version the code targets, e.g. 1.13 (default: inferred from the project's dependencies, else current).")
@click.option("--min-severity", type=click.Choice(SEVERITIES), help="Only run rules of at least this severity (default: info, all).")
@click.option("--min-impact", type=click.Choice(IMPACTS), help="Only run rules whose findings cost at least this much (default: low, all).")
@click.option("--preview", is_flag=True, envvar=_env("PREVIEW"), show_envvar=True, help="Also run preview rules (precision not yet measured at 0.90 or above).")
@click.option("--config", multiple=True, type=_ConfigValue(), envvar=_env("CONFIG"), show_envvar=True, help="A configuration file for every file, or a TOML `KEY = VALUE` pair that overrides one key of [tool.torchlint] (repeatable).")
@click.option("--isolated", is_flag=True, help="Ignore all configuration files.")
@click.option("--fix", is_flag=True, help="Apply safe fixes in place.")
@click.option("--fix-only", is_flag=True, help="Apply fixes and report only what was fixed, not the remaining findings.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply (with --fix) or offer unsafe fixes.")
@click.option("--diff", is_flag=True, help="Print the changes --fix would make as a unified diff; write nothing.")
@click.option("--show-fixes", is_flag=True, help="List the findings that were fixed.")
@click.option("--exit-non-zero-on-fix", is_flag=True, help="Exit 1 when a fix was applied, even if no finding remains.")
@click.option("--add-noqa", is_flag=True, help="Add `# noqa: CODE` to every current finding's line.")
@click.option("--stdin-filename", help="The name to use for source read from standard input (path '-').")
@click.option("--output-format", type=click.Choice(OUTPUT_FORMATS), envvar=_env("OUTPUT_FORMAT"), show_envvar=True, help="How findings are shown (default: full, or `output-format` from the configuration).")
@click.option("-o", "--output-file", type=click.Path(path_type=Path, dir_okay=False), envvar=_env("OUTPUT_FILE"), show_envvar=True, help="Write the findings to this file instead of standard output.")
@click.option("--statistics", is_flag=True, help="Print the number of findings per rule instead of each finding.")
@click.option("--exit-zero", is_flag=True, help="Exit with 0 even when there are findings.")
@click.option("-q", "--quiet", is_flag=True, help="Print findings only: no summary.")
@click.option("-s", "--silent", is_flag=True, help="Print nothing but errors; the exit code tells the result.")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True)
@click.option("--jobs", "-j", type=click.IntRange(min=1), help="Worker processes (default: all cores).")
@click.option("--no-cache", is_flag=True, envvar=_env("NO_CACHE"), show_envvar=True, help="Neither read nor write the result cache.")
@click.option("--cache-dir", type=click.Path(path_type=Path), envvar=_env("CACHE_DIR"), show_envvar=True, help=f"Where to keep the result cache (default: {CACHE_DIR_NAME} beside the governing configuration).")
@click.option("--baseline", type=click.Path(path_type=Path, dir_okay=False), help="Report only findings that this baseline file does not record.")
@click.option("--update-baseline", is_flag=True, help="Record the current findings in the --baseline file and exit 0.")
@click.option("--show-settings", is_flag=True, help="Print the settings that govern the first path (and where each comes from), then exit.")
@click.option("--show-files", is_flag=True, help="Print the files that would be checked, then exit.")
@click.option("--ignore-noqa", is_flag=True, help="Ignore every `# noqa` comment: report what they suppress.")
@click.option("--no-respect-gitignore", "no_respect_gitignore", is_flag=True, help="Check files that `.gitignore` files name too.")
@click.option("-w", "--watch", is_flag=True, help="Check again whenever a checked file, its directory or its configuration changes.")
@click.option("-v", "--verbose", is_flag=True, help="Log what torchlint does (configuration, files, cache, timings) to standard error.")
@click.pass_context
def check(ctx: click.Context, **given: object) -> None:
    """Check PATHS (files or directories, default: the current directory; '-' reads standard input)."""
    args = CheckArgs(**given)  # type: ignore[arg-type]
    _log_to_stderr(args.verbose)
    try:
        _validate(args)
        if args.watch:
            _watch(ctx, args)
            sys.exit(EXIT_CLEAN)
        sys.exit(_check(ctx, args).status)
    except _FAILURES as error:
        _fail(str(error))


@dataclass(frozen=True)
class _Checked:
    """A run's exit status, and the paths whose change calls for another (`--watch`)."""

    status: int
    watched: FrozenSet[str] = frozenset()


def _check(ctx: click.Context, args: CheckArgs) -> _Checked:
    """One run of `torchlint check`; problems with the call or the configuration raise."""
    config_file, inline = _config_arguments(args.config)
    resolver = Resolver(Path.cwd(), config_file, args.isolated, _overrides(ctx, args, inline).apply)
    if args.show_settings:
        click.echo(_show_settings(resolver, args.paths[0] if args.paths else Path(".")))
        return _Checked(EXIT_CLEAN)
    plan = _plan(args, resolver)
    baseline = baselines.load(args.baseline) if args.baseline and not args.update_baseline else None
    # How the report looks follows the configuration of the working directory.
    here = resolver.settings_for(Path.cwd())
    for message in (*plan.errors, *plan.warnings):
        click.echo(message, err=True)
    if args.show_files:
        for job in sorted(plan.jobs, key=lambda pair: pair[1].path):
            click.echo(job[1].path)
        return _Checked(EXIT_ERROR if plan.errors else EXIT_CLEAN)
    # --diff shows what --fix would do, with or without --fix, and writes nothing (as ruff).
    mode = FixMode.ADD_NOQA if args.add_noqa else FixMode.DIFF if args.diff else FixMode.FIX if args.fix or args.fix_only else FixMode.CHECK
    outcomes = _run(plan, args, mode)
    if args.update_baseline:
        return _Checked(_update_baseline(args.baseline, outcomes, plan))
    view = _View(
        args.output_format or here.output_format,
        args.statistics,
        args.unsafe_fixes,
        _use_color(args.color, args.output_file),
        args.show_fixes,
        args.quiet or args.silent,
        args.silent,
        args.fix_only,
        here.docs_url,
        {info.code: info for info in plan.catalog},
        baseline,
        args.baseline.absolute().parent if args.baseline else None,
    )
    with _output(args.output_file) as out:
        if mode is FixMode.DIFF:
            status = _emit_diff(outcomes, view, out)
        elif mode is FixMode.ADD_NOQA:
            status = _emit_add_noqa(outcomes, view, out)
        elif plan.from_stdin and mode is FixMode.FIX:
            status = _emit_fixed_stdin(outcomes[0], view)
        else:
            status = _emit(outcomes, view, out, incomplete=bool(plan.errors))
    if mode is FixMode.FIX and args.exit_non_zero_on_fix and any(o.fixed for o in outcomes):
        status = EXIT_FINDINGS
    if plan.errors or any(outcome.error for outcome in outcomes):
        status = EXIT_ERROR
    return _Checked(EXIT_CLEAN if args.exit_zero and status == EXIT_FINDINGS else status, _watched(args, [job.path for _, job in plan.jobs]))


def _watched(args: CheckArgs, files: Sequence[str]) -> FrozenSet[str]:
    """What --watch polls: the checked files, their directories (a file added or removed
    changes its directory) and the paths given, and the configuration files that may govern
    them there and above, present or not (creating one counts as a change)."""
    given = [os.path.abspath(path) for path in args.paths or (Path("."),)]
    directories = {os.path.dirname(os.path.abspath(path)) for path in files}
    directories.update(parent for path in given for parent in (path, *map(str, Path(path).parents)))
    configs = (os.path.join(directory, name) for directory in directories for name in CONFIG_FILES)
    return frozenset((*files, *given, *directories, *configs))


def _watch(ctx: click.Context, args: CheckArgs) -> None:
    """--watch: check, then check again after each change until interrupted. A run that
    fails (a configuration being edited) says why and keeps watching what it watched."""
    watched = _watched(args, ())

    def once() -> FrozenSet[str]:
        nonlocal watched
        try:
            watched = _check(ctx, args).watched or watched
        except _FAILURES as error:
            click.echo(f"torchlint: error: {error}", err=True)
        return watched

    WATCHER.run(once, lambda message: click.echo(f"torchlint: {message}", err=True))


def _config_arguments(values: Tuple[str, ...]) -> Tuple[Optional[Path], Dict[str, object]]:
    """--config: at most one configuration file, and inline `KEY = VALUE` pairs (a value that
    names no file and holds `=`)."""
    def names_a_file(value: str) -> bool:
        return Path(value).is_file() or "=" not in value

    files = [Path(value) for value in values if names_a_file(value)]
    if len(files) > 1:
        raise UsageFailure(f"--config names {len(files)} configuration files; give at most one (and any number of KEY=VALUE pairs)")
    return (files[0] if files else None), parse_inline([value for value in values if not names_a_file(value)])


def _log_to_stderr(verbose: bool) -> None:
    """-v: torchlint's debug log on standard error (as it is when the message is written)."""
    _LOG.handlers = [handler for handler in _LOG.handlers if not isinstance(handler, _Stderr)]
    _LOG.setLevel(logging.DEBUG if verbose else logging.WARNING)
    if verbose:
        _LOG.addHandler(_Stderr())


class _Stderr(logging.Handler):
    """Log records as lines on standard error."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(logging.Formatter("[%(asctime)s %(name)s] %(message)s", "%H:%M:%S"))

    def emit(self, record: logging.LogRecord) -> None:
        click.echo(self.format(record), err=True)


@dataclass(frozen=True)
class CheckArgs:
    """The options of `torchlint check`, as click parsed them."""

    paths: Tuple[Path, ...]
    select: Tuple[str, ...]
    extend_select: Tuple[str, ...]
    ignore: Tuple[str, ...]
    per_file_ignores: Tuple[str, ...]
    extend_per_file_ignores: Tuple[str, ...]
    fixable: Tuple[str, ...]
    extend_fixable: Tuple[str, ...]
    unfixable: Tuple[str, ...]
    exclude: Tuple[str, ...]
    extend_exclude: Tuple[str, ...]
    force_exclude: bool
    torch_version: Optional[str]
    min_severity: Optional[str]
    min_impact: Optional[str]
    preview: bool
    config: Tuple[str, ...]
    isolated: bool
    fix: bool
    fix_only: bool
    unsafe_fixes: bool
    diff: bool
    show_fixes: bool
    exit_non_zero_on_fix: bool
    add_noqa: bool
    stdin_filename: Optional[str]
    output_format: Optional[str]
    output_file: Optional[Path]
    statistics: bool
    exit_zero: bool
    quiet: bool
    silent: bool
    color: str
    jobs: Optional[int]
    no_cache: bool
    cache_dir: Optional[Path]
    baseline: Optional[Path]
    update_baseline: bool
    show_settings: bool
    show_files: bool
    ignore_noqa: bool
    no_respect_gitignore: bool
    watch: bool
    verbose: bool

    @property
    def from_stdin(self) -> bool:
        return Path("-") in self.paths


def _validate(args: CheckArgs) -> None:
    if args.from_stdin and len(args.paths) > 1:
        raise UsageFailure("'-' (standard input) cannot be combined with other paths")
    if args.add_noqa and (args.fix or args.fix_only or args.diff or args.ignore_noqa):
        raise UsageFailure("--add-noqa cannot be combined with --fix, --fix-only, --diff or --ignore-noqa")
    if args.add_noqa and args.from_stdin:
        raise UsageFailure("--add-noqa needs files, not standard input")
    if args.watch and (args.from_stdin or args.add_noqa or args.update_baseline or args.show_settings or args.show_files):
        raise UsageFailure("--watch needs files and cannot be combined with --add-noqa, --update-baseline, --show-settings or --show-files")
    if args.update_baseline and (args.baseline is None or args.fix or args.fix_only or args.diff or args.add_noqa):
        raise UsageFailure("--update-baseline needs --baseline FILE and cannot be combined with fixing")


def _overrides(ctx: click.Context, args: CheckArgs, inline: Dict[str, object]) -> Overrides:
    """The command-line (and environment) values that apply on top of every configuration:
    the `--config KEY=VALUE` pairs (`inline`), then the other options."""
    origins = {"respect-gitignore": COMMAND_LINE} if args.no_respect_gitignore else {}
    for name in ("select", "extend_select", "ignore", "per_file_ignores", "extend_per_file_ignores", "fixable", "extend_fixable", "unfixable", "exclude", "extend_exclude", "torch_version", "min_severity", "min_impact", "output_format", "cache_dir", "preview"):
        if getattr(args, name):
            from_env = ctx.get_parameter_source(name) is click.core.ParameterSource.ENVIRONMENT
            origins[name.replace("_", "-")] = f"environment ({_env(name.upper())})" if from_env else COMMAND_LINE
    rules = fixes = None
    if args.select or args.extend_select or args.ignore:
        rules = Layer("", _split(args.select), _split(args.extend_select) or (), _split(args.ignore) or ())
    if args.fixable or args.extend_fixable or args.unfixable:
        fixes = Layer("", _split(args.fixable), _split(args.extend_fixable) or (), _split(args.unfixable) or ())
    cwd = Path.cwd()
    return Overrides(
        rules=rules,
        fixes=fixes,
        per_file_ignores=tuple(parse_per_file_ignore(v, cwd, "--per-file-ignores") for v in args.per_file_ignores) or None,
        extend_per_file_ignores=tuple(parse_per_file_ignore(v, cwd, "--extend-per-file-ignores") for v in args.extend_per_file_ignores),
        exclude=_split(args.exclude),
        extend_exclude=_split(args.extend_exclude) or (),
        torch_version=parse_torch_version(args.torch_version) if args.torch_version else None,
        min_severity=args.min_severity,
        min_impact=args.min_impact,
        output_format=args.output_format,
        cache_dir=Path(os.path.abspath(args.cache_dir)) if args.cache_dir else None,
        preview=True if args.preview else None,
        respect_gitignore=False if args.no_respect_gitignore else None,
        inline=inline,
        cwd=cwd,
        origins=origins,
    )


@dataclass
class _Plan:
    """The files to check, each with the settings that govern it, and discovery's messages."""

    jobs: List[Tuple[Settings, FileJob]]
    errors: List[str]
    warnings: List[str]
    from_stdin: bool
    catalog: Catalog
    catalog_loaded: bool


def _plan(args: CheckArgs, resolver: Resolver) -> _Plan:
    """Find the files and the settings of each; results never depend on the working directory."""
    started = time.monotonic()
    errors: List[str] = []
    warnings: List[str] = []
    files: List[Tuple[Settings, Path, Optional[bytes]]] = []
    if args.from_stdin:
        name = args.stdin_filename or "-"
        settings = resolver.settings_for(Path(name) if args.stdin_filename else Path.cwd())
        files.append((settings, Path(name), sys.stdin.buffer.read()))
    else:
        groups: Dict[Settings, List[Path]] = {}
        for path in args.paths or (Path("."),):
            groups.setdefault(resolver.settings_for(path), []).append(path)
        seen = set()
        for settings, paths in groups.items():
            found = discover(
                paths,
                root=settings.root,
                exclude=settings.exclude if settings.exclude is not None else DEFAULT_EXCLUDE,
                extend_exclude=settings.extend_exclude,
                respect_gitignore=settings.respect_gitignore,
                force_exclude=args.force_exclude,
                extensions=SOURCE_EXTENSIONS,
            )
            errors += found.errors
            warnings += found.warnings
            for path in found.files:
                key = os.path.abspath(path)
                governing = resolver.settings_for(path)
                if key in seen or (governing is not settings and _excluded(path, governing)):
                    continue
                seen.add(key)
                files.append((governing, path, None))
    distinct = list(dict.fromkeys(settings for settings, _, _ in files))
    catalog = load_catalog(s.cache_directory for s in distinct)
    loaded = catalog is not None
    catalog = catalog or catalog_from_rules()
    enabled = {settings: settings.enabled(catalog) for settings in distinct}
    # Each preview rule selected by name is warned about once per run, not once per configuration.
    warnings += dict.fromkeys(w for s in distinct for w in preview_warnings(s.rule_layers, catalog, s.preview))
    jobs = [(s, FileJob(str(p), s.codes_for(p, enabled[s], catalog), data)) for s, p, data in files]
    for settings in distinct:
        governed = sum(1 for s, _, _ in files if s is settings)
        _LOG.debug("configuration %s (root %s) governs %s", settings.config_path or "none (defaults)", settings.root, _plural(governed, "file"))
    for _, job in jobs:
        _LOG.debug("to check: %s (%s)", job.path, _plural(len(job.codes), "rule"))
    _LOG.debug("found %s in %.3f s", _plural(len(jobs), "file"), time.monotonic() - started)
    return _Plan(jobs, errors, warnings, args.from_stdin, catalog, loaded)


def _excluded(path: Path, settings: Settings) -> bool:
    exclude = settings.exclude if settings.exclude is not None else DEFAULT_EXCLUDE
    return excluded_below(path, settings.root, exclude, settings.extend_exclude)


def _run(plan: _Plan, args: CheckArgs, mode: FixMode) -> List[FileOutcome]:
    """Check each group of files that share settings, with its own cache and options."""
    groups: Dict[Settings, List[FileJob]] = {}
    for settings, job in plan.jobs:
        groups.setdefault(settings, []).append(job)
    workers = args.jobs or default_workers()
    caches: Dict[Tuple[Path, str], ResultCache] = {}
    outcomes: List[FileOutcome] = []
    progress = _Progress(len(plan.jobs), sys.stderr.isatty() and not args.silent)
    started = time.monotonic()
    for settings, jobs in groups.items():
        lint = replace(settings.lint_options(plan.catalog), ignore_noqa=args.ignore_noqa)
        run_options = RunOptions(lint, mode, args.unsafe_fixes)
        if mode is FixMode.CHECK and not plan.from_stdin and not args.no_cache:
            key = (settings.cache_directory, engine_fingerprint(lint))
            if key not in caches:
                caches[key] = ResultCache(*key)
            cache = caches[key]
            found = check_cached(jobs, run_options, workers, cache, progress)
        else:
            found = check_files(jobs, run_options, workers, progress)
        outcomes += found
    progress.finish()
    _LOG.debug("checked %s in %.3f s (%s, %s)", _plural(len(outcomes), "file"), time.monotonic() - started, mode.value, _plural(workers, "worker"))
    if not plan.catalog_loaded:
        for directory, _ in caches:
            save_catalog(directory, plan.catalog)
    return outcomes


class _Progress:
    """"Checked N of M files" on standard error when it is a terminal and the run has taken
    more than `DELAY` seconds (a cold run on a large tree); erased when the run ends."""

    DELAY = 2.0

    def __init__(self, total: int, enabled: bool) -> None:
        self.total = total
        self.enabled = enabled
        self.done = 0
        self.start = self.shown_at = time.monotonic()
        self.shown = False

    def __call__(self) -> None:
        self.done += 1
        now = time.monotonic()
        if self.enabled and now - self.start > self.DELAY and now - self.shown_at > 0.1:
            sys.stderr.write(f"\rtorchlint: checked {self.done} of {self.total} files")
            sys.stderr.flush()
            self.shown, self.shown_at = True, now

    def finish(self) -> None:
        if self.shown:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


@dataclass(frozen=True)
class _View:
    """How findings are shown."""

    output_format: str
    statistics: bool
    unsafe_fixes: bool
    color: bool
    show_fixes: bool
    # --quiet: findings without the summary; --silent: nothing at all.
    quiet: bool = False
    silent: bool = False
    # --fix-only: the remaining findings are not listed.
    fix_only: bool = False
    docs_url: Optional[str] = None
    # The rule catalog by code.
    rules: Mapping[str, RuleInfo] = field(default_factory=dict)
    # --baseline: the recorded fingerprints, and the directory paths in it are relative to.
    baseline: Optional[Counter] = None
    baseline_base: Optional[Path] = None


@contextlib.contextmanager
def _output(path: Optional[Path]) -> Iterator[TextIO]:
    """Standard output, or the file of `--output-file` (written whole at the end)."""
    if path is None:
        yield sys.stdout
        return
    buffer = io.StringIO()
    yield buffer
    try:
        path.write_text(buffer.getvalue(), encoding="utf-8")
    except OSError as error:
        raise UsageFailure(f"{path}: cannot write: {error.strerror or error}") from None


def _report_problems(outcomes: Sequence[FileOutcome]) -> None:
    for outcome in outcomes:
        if outcome.error:
            click.echo(f"torchlint: error: {outcome.error}", err=True)
        if outcome.warning:
            click.echo(f"torchlint: warning: {outcome.path}: {outcome.warning}", err=True)


def _emit(outcomes: Sequence[FileOutcome], view: _View, out: TextIO, to_stderr: bool = False, incomplete: bool = False) -> int:
    """Print remaining findings, fixes made and the summary; return the exit status they call for."""
    _report_problems(outcomes)
    findings: List[Finding] = sorted((f for o in outcomes for f in o.findings), key=lambda f: f.sort_key)
    fixed = [f for o in outcomes for f in o.fixed]
    snippets = {o.path: o.snippets for o in outcomes}
    known = 0
    if view.baseline is not None and view.baseline_base is not None:
        new = baselines.new_findings(findings, snippets, view.baseline, view.baseline_base)
        known, findings = len(findings) - len(new), new
    stream = sys.stderr if to_stderr else out
    if view.silent or view.fix_only:
        pass
    elif view.statistics:
        click.echo(_statistics(findings, view), nl=False, file=stream)
    else:
        text = FORMATTERS[view.output_format](Report(findings, snippets, view.unsafe_fixes, view.color, view.docs_url, view.rules))
        if text:
            click.echo(text, nl=False, color=view.color, file=stream)
    if (view.show_fixes or view.fix_only) and fixed and not view.silent:
        click.echo(_fixed_listing(fixed), nl=False, err=True)
    incomplete = incomplete or any(o.error for o in outcomes)
    if not view.quiet:
        summary = _summary(findings, fixed, len(outcomes), view.unsafe_fixes, incomplete)
        click.echo(summary + (f" {_plural(known, 'finding')} in the baseline not shown." if known else ""), err=True)
    if view.fix_only:
        return EXIT_CLEAN
    return EXIT_FINDINGS if any(_fails_the_gate(finding, view) for finding in findings) else EXIT_CLEAN


def _fails_the_gate(finding: Finding, view: "_View") -> bool:
    """Whether a finding sets exit code 1: every finding but advice (severity `info`: once-per-
    program settings whose gain depends on the model, such as `torch.compile` or autocast),
    which is shown without failing a CI gate."""
    info = view.rules.get(finding.code)
    return info is None or info.severity != "info"


def _update_baseline(path: Path, outcomes: Sequence[FileOutcome], plan: _Plan) -> int:
    """--update-baseline: record every current finding; exit 0 unless something failed."""
    _report_problems(outcomes)
    findings = sorted((f for o in outcomes for f in o.findings), key=lambda f: f.sort_key)
    try:
        baselines.save(path, findings, {o.path: o.snippets for o in outcomes})
    except baselines.BaselineError as error:
        raise UsageFailure(str(error)) from None
    click.echo(f"Recorded {_plural(len(findings), 'finding')} in {path}.", err=True)
    return EXIT_ERROR if plan.errors or any(o.error for o in outcomes) else EXIT_CLEAN


def _emit_fixed_stdin(outcome: FileOutcome, view: _View) -> int:
    """Standard input with --fix: the fixed source on stdout, everything else on stderr."""
    if outcome.fixed_source is not None:
        sys.stdout.flush()
        sys.stdout.buffer.write(outcome.fixed_source)
        sys.stdout.buffer.flush()
    return _emit([outcome], view, sys.stderr, to_stderr=True)


def _emit_diff(outcomes: Sequence[FileOutcome], view: _View, out: TextIO) -> int:
    _report_problems(outcomes)
    diffs = [o.diff for o in outcomes if o.diff]
    if not view.silent:
        for diff in diffs:
            click.echo(diff, nl=False, file=out)
    would_fix = sum(len(o.fixed) for o in outcomes)
    if not view.quiet:
        click.echo(f"Would fix {would_fix} finding{'s' if would_fix != 1 else ''} in {len(diffs)} file{'s' if len(diffs) != 1 else ''}.", err=True)
    return EXIT_FINDINGS if diffs else EXIT_CLEAN


def _emit_add_noqa(outcomes: Sequence[FileOutcome], view: _View, out: TextIO) -> int:
    """After --add-noqa: what could not be suppressed (a line inside a string) keeps exit 1."""
    added = sum(o.noqa_added for o in outcomes)
    status = _emit(outcomes, view, out) if any(o.findings for o in outcomes) else EXIT_CLEAN
    if status == EXIT_CLEAN:
        _report_problems(outcomes)
    if not view.quiet:
        click.echo(f"Added {_plural(added, 'noqa directive')}.", err=True)
    return status


def _fixed_listing(fixed: Sequence[Finding]) -> str:
    counts = Counter((f.path, f.code, f.name) for f in fixed)
    lines = [f"Fixed {len(fixed)} finding{'s' if len(fixed) != 1 else ''}:"]
    for (path, code, name), count in sorted(counts.items()):
        lines.append(f"  {path}: {count} x {code} ({name})")
    return "\n".join(lines) + "\n"


def _statistics(findings: Sequence[Finding], view: _View) -> str:
    """Findings per rule: a table, or with a JSON output format a JSON list."""
    counts = Counter((f.code, f.name) for f in findings)
    fixable = {f.code for f in findings if f.fixable(view.unsafe_fixes)}
    rows = [(code, name, count, code in fixable) for (code, name), count in sorted(counts.items())]
    if view.output_format in ("json", "json-lines"):
        items = [{"code": code, "name": name, "count": count, "fixable": fix} for code, name, count, fix in rows]
        if view.output_format == "json":
            return json.dumps(items, indent=2) + "\n"
        return "".join(json.dumps(item) + "\n" for item in items)
    return "".join(f"{count:>5}  {code}  {name}{'  [*]' if fix else ''}\n" for code, name, count, fix in rows)


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


def _use_color(choice: str, output_file: Optional[Path] = None) -> bool:
    """--color always/never; with auto: FORCE_COLOR (non-empty) forces it, NO_COLOR turns it
    off, else colour when standard output is a terminal (never in an output file)."""
    if choice != "auto":
        return choice == "always"
    if os.environ.get("FORCE_COLOR"):
        return True
    return output_file is None and "NO_COLOR" not in os.environ and sys.stdout.isatty()


def _show_settings(resolver: Resolver, path: Path) -> str:
    settings = resolver.settings_for(path)
    catalog = load_catalog([settings.cache_directory]) or catalog_from_rules()
    return _describe(settings, path, settings.codes_for(path, settings.enabled(catalog), catalog))


def _describe(settings: Settings, path: Path, codes: FrozenSet[str]) -> str:
    """The resolved settings for `path`, one per line with where each value came from, and
    the rules enabled for it."""
    def show(value: object) -> str:
        if isinstance(value, tuple) and value and isinstance(value[0], Layer):
            return "; ".join(_layer_text(layer) for layer in value)
        if isinstance(value, tuple) and value and isinstance(value[0], PerFileIgnore):
            return ", ".join(f"{entry.pattern!r} = {list(entry.selectors)} (in {entry.base})" for entry in value)
        if isinstance(value, tuple) and len(value) == 2 and all(isinstance(v, int) for v in value):
            return ".".join(map(str, value))
        if isinstance(value, bool):
            return "true" if value else "false"
        if value == ():
            return "none"
        if isinstance(value, tuple):
            return str(list(value))
        return "default" if value is None else str(value)

    rows = [
        ("file", str(path), ""),
        ("configuration", str(settings.config_path or "none (defaults)"), ""),
        ("root", str(settings.root), ""),
    ]
    for key, attribute, source_keys in _SHOWN:
        origin = ", ".join(dict.fromkeys(settings.source(k) for k in source_keys))
        rows.append((key, show(getattr(settings, attribute)), origin))
    rows.append(("cache-dir", str(settings.cache_directory), settings.source("cache-dir")))
    rows.append(("enabled rules", " ".join(sorted(codes)), ""))
    width = max(len(key) for key, _, _ in rows)
    return "\n".join(f"{key:<{width}}  {value}" + (f"  [{origin}]" if origin else "") for key, value, origin in rows)


_SHOWN = (
    ("rules", "rule_layers", ("select", "extend-select", "ignore")),
    ("fixes", "fix_layers", ("fixable", "extend-fixable", "unfixable")),
    ("per-file-ignores", "per_file_ignores", ("per-file-ignores", "extend-per-file-ignores")),
    ("exclude", "exclude", ("exclude",)),
    ("extend-exclude", "extend_exclude", ("extend-exclude",)),
    ("torch-version", "torch_version", ("torch-version",)),
    ("min-severity", "min_severity", ("min-severity",)),
    ("min-impact", "min_impact", ("min-impact",)),
    ("output-format", "output_format", ("output-format",)),
    ("docs-url", "docs_url", ("docs-url",)),
    ("preview", "preview", ("preview",)),
    ("test-paths", "test_paths", ("test-paths",)),
    ("lint-test-code", "lint_test_code", ("lint-test-code",)),
    ("respect-gitignore", "respect_gitignore", ("respect-gitignore",)),
)


def _layer_text(layer: Layer) -> str:
    parts = [f"select={list(layer.select)}"] if layer.select is not None else []
    parts += [f"extend={list(layer.extend_select)}"] if layer.extend_select else []
    parts += [f"ignore={list(layer.ignore)}"] if layer.ignore else []
    return f"{' '.join(parts)} ({layer.origin or COMMAND_LINE})"


def _fail(message: str) -> None:
    click.echo(f"torchlint: error: {message}", err=True)
    sys.exit(EXIT_ERROR)


@main.command()
@click.argument("code", required=False)
@click.option("--all", "show_all", is_flag=True, help="List every rule.")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
def rule(code: Optional[str], show_all: bool, output_format: str) -> None:
    """Print the documentation of a rule (by code or name), or list all rules."""
    from torchlint.engine.rule import all_rules

    rules = all_rules()
    if not (show_all or code is None):
        rules = [item for item in rules if code.upper() == item.code or code.lower() == item.name]
        if not rules:
            _fail(f"unknown rule {code!r}; `torchlint rule --all` lists the rules")
    if output_format == "json":
        items = [
            {**asdict(info), "tier": _tier(info.preview), "fix": info_rule.fix_label(), "documentation": info_rule.documentation()}
            for info, info_rule in zip(catalog_infos(rules), rules)
        ]
        click.echo(json.dumps(items if show_all or code is None else items[0], indent=2))
    elif show_all or code is None:
        # "safe/unsafe": safe by default, unsafe in the cases `torchlint rule CODE` names.
        rows = [
            (item.code, item.name, item.severity, item.impact, item.fix_applicability.value + ("/unsafe" if item.unsafe_when else ""), _tier(item.preview), item.summary)
            for item in rules
        ]
        widths = [max(len(row[column]) for row in rows) for column in range(6)]
        for row in rows:
            click.echo("  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[6])
    else:
        item = rules[0]
        tier = f" {item.tier_note()}" if item.tier_note() else ""
        click.echo(f"# {item.code} {item.name}\n\nSeverity: {item.severity}. Impact: {item.impact}. Fix: {item.fix_label()}.{tier}\n\n{item.documentation()}", nl=False)


def _tier(preview: bool) -> str:
    """The tier `torchlint rule` shows: preview rules run only in preview mode."""
    return "preview" if preview else "stable"


@main.command()
@click.option("--cache-dir", type=click.Path(path_type=Path), help="The cache directory to remove.")
@click.option("--config", "config_path", type=click.Path(path_type=Path), help="Use this configuration file.")
@click.option("--isolated", is_flag=True, help="Ignore all configuration files.")
def clean(cache_dir: Optional[Path], config_path: Optional[Path], isolated: bool) -> None:
    """Remove the result cache."""
    try:
        directory = cache_dir or Resolver(Path.cwd(), config_path, isolated).settings_for(Path.cwd()).cache_directory
    except ConfigError as error:
        _fail(str(error))
    removed = clean_cache(directory)
    click.echo(f"Removed {directory}." if removed else f"No cache at {directory}.", err=True)


@main.command()
@click.option("--rule", "codes", multiple=True, help="Verify this rule (repeatable; default: every rule with a program pair).")
@click.option("--device", type=click.Choice(["auto", "cpu", "cuda"]), default="auto", show_default=True, help="auto: cuda when torch sees a GPU.")
@click.option("--size", type=click.Choice(["tiny", "small", "large"]), default="small", show_default=True, envvar="TORCHLINT_SIZE", show_envvar=True, help="Workload shapes; tiny checks equivalence only.")
@click.option("--steps", type=click.IntRange(min=1), help="Steps per run [default: 2 without timing; timed: 16 measured steps after 3 warm-up steps].")
@click.option("--repeats", type=click.IntRange(min=0), help="Timed repeats on CUDA, each running before.py, after.py and before.py again (0: check equivalence only) [default: 1 at size small, 2 at large].")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--report", type=click.Path(dir_okay=False, path_type=Path), help="Also write the results as a Markdown table to this file.")
@click.option("--jobs", type=click.IntRange(min=1), default=min(4, os.cpu_count() or 1), show_default="CPUs, at most 4", help="Rules checked at once when nothing is timed.")
def verify(codes: Tuple[str, ...], device: str, size: str, steps: Optional[int], repeats: Optional[int], output_format: str, report: Optional[Path], jobs: int) -> None:
    """Run each rule's before/after programs: the same results, and on a GPU how much faster.

    Needs torch (the verify extra). On a CPU it checks equivalence only. Exits 1 when a fixed
    program does not keep its results.
    """
    from torchlint.verify.verification import VerifyError
    from torchlint.verify.command import Request, run

    def progress(message: str) -> None:
        click.echo(f"torchlint verify: {message}", err=True)

    try:
        rendered, equivalent = run(Request(codes, device, steps, size, repeats, jobs), output_format, report, progress)
    except VerifyError as error:
        _fail(str(error))
    click.echo(rendered)
    sys.exit(EXIT_CLEAN if equivalent else EXIT_FINDINGS)


@main.command()
def server() -> None:
    """Run the language server (LSP over standard input and output) for editors.

    Needs the `server` extra: pip install "torchlint[server] @ git+https://github.com/torchlint/torchlint@main". See docs/editors.md.
    """
    try:
        from torchlint.server.server import run
    except ModuleNotFoundError as error:
        if (error.name or "").split(".")[0] not in ("pygls", "lsprotocol"):
            raise
        _fail("`torchlint server` needs the server extra: pip install 'torchlint[server] @ git+https://github.com/torchlint/torchlint@main'")
    run()
