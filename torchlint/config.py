"""Configuration, resolved per checked file as ruff does.

The closest configuration file above a checked file governs it: `.torchlint.toml` or
`torchlint.toml` (whose top level is the table), or a `pyproject.toml` with a
`[tool.torchlint]` table (one without the table is passed over). `extend = "PATH"` loads
another file first and applies this one on top. `--config FILE` governs every file, and
`--isolated` ignores all files. `--config KEY=VALUE` (an inline TOML pair) applies on top of
every file's settings, and the other command-line options on top of that.
"""

from __future__ import annotations

import configparser
import fnmatch
import os
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Dict, FrozenSet, Optional, Sequence, Tuple, TypeVar

from torchlint.engine.cache import CACHE_DIR_NAME
from torchlint.engine.catalog import RuleInfo
from torchlint.engine.options import DEFAULT_TORCH_VERSION, Options
from torchlint.engine.rule import IMPACTS, SEVERITIES
from torchlint.engine.selection import ADVICE, Layer, SelectionError, at_least, expand, resolve, stable
from torchlint.output import FORMATTERS
from torchlint.semantics.test_paths import DEFAULT_TEST_PATHS

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

# Searched in each directory in this order; the first that configures torchlint wins.
CONFIG_FILES = (".torchlint.toml", "torchlint.toml", "pyproject.toml")
REPOSITORY = "https://github.com/torchlint/torchlint"
# The rule pages on the default branch: no release tag exists yet (docs/release.md), and
# `torchlint rule CODE` prints the installed version's text offline.
DEFAULT_DOCS_URL = f"{REPOSITORY}/blob/main/docs/rules/{{code}}.md"
OUTPUT_FORMATS = tuple(sorted(FORMATTERS))

_RULE_KEYS = ("select", "extend-select", "ignore")
_FIX_KEYS = ("fixable", "extend-fixable", "unfixable")
_PATH_KEYS = ("exclude", "extend-exclude")
_SCALAR_KEYS = ("torch-version", "min-severity", "min-impact", "output-format", "docs-url", "cache-dir")
_BOOL_KEYS = ("preview", "lint-test-code", "respect-gitignore")
_KEYS = frozenset(
    _RULE_KEYS + _FIX_KEYS + _PATH_KEYS + _SCALAR_KEYS + _BOOL_KEYS + ("per-file-ignores", "extend-per-file-ignores", "extend", "test-paths")
)
_VERSION = re.compile(r"^[0-9]+(\.[0-9]+){0,2}$")
_ALL = (Layer("default", ("ALL",)),)
# The default rule selection: every rule but the advice, which is opt-in (`selection.ADVICE`).
_DEFAULT_RULES = (Layer("default", ("ALL",), ignore=(ADVICE,)),)
COMMAND_LINE = "command line"
# How messages name the inline `--config KEY=VALUE` pairs.
INLINE = "--config"


class ConfigError(ValueError):
    """A configuration problem, reported in one line with exit code 2."""


@dataclass(frozen=True)
class PerFileIgnore:
    """Rules disabled for files matching `pattern`, a shell glob relative to `base` (a pattern
    without `/` also matches the file name at any depth)."""

    base: Path
    pattern: str
    selectors: Tuple[str, ...]
    origin: str

    def matches(self, path: Path) -> bool:
        absolute = _absolute(path)
        try:
            relative = absolute.relative_to(self.base).as_posix()
        except ValueError:
            relative = path.as_posix()
        pattern = self.pattern[2:] if self.pattern.startswith("./") else self.pattern
        if fnmatch.fnmatchcase(relative, pattern) or fnmatch.fnmatchcase(relative, pattern.rstrip("/") + "/*"):
            return True
        return "/" not in pattern and fnmatch.fnmatchcase(absolute.name, pattern)


@dataclass(frozen=True)
class Settings:
    """The effective settings for the files one configuration governs.

    `sources` records, per key, where its value came from (a file, "command line", an
    environment variable, or an inference); keys that are absent have their defaults.
    """

    root: Path
    config_path: Optional[Path] = None
    rule_layers: Tuple[Layer, ...] = _DEFAULT_RULES
    fix_layers: Tuple[Layer, ...] = _ALL
    per_file_ignores: Tuple[PerFileIgnore, ...] = ()
    exclude: Optional[Tuple[str, ...]] = None
    extend_exclude: Tuple[str, ...] = ()
    torch_version: Tuple[int, int] = DEFAULT_TORCH_VERSION
    min_severity: str = "info"
    min_impact: str = "low"
    output_format: str = "full"
    docs_url: str = DEFAULT_DOCS_URL
    cache_dir: Optional[Path] = None
    # Globs of test and benchmark files (see `semantics.roles`); `lint-test-code` lints them too.
    test_paths: Tuple[str, ...] = DEFAULT_TEST_PATHS
    lint_test_code: bool = False
    # Preview rules run only in preview mode.
    preview: bool = False
    # Whether discovery skips what `.gitignore` files name.
    respect_gitignore: bool = True
    sources: Tuple[Tuple[str, str], ...] = ()

    def source(self, key: str) -> str:
        return dict(self.sources).get(key, "default")

    @property
    def cache_directory(self) -> Path:
        """Where results for these files are cached: `cache-dir`, else beside the configuration."""
        return self.cache_dir or self.root / CACHE_DIR_NAME

    def enabled(self, catalog: Sequence[RuleInfo]) -> FrozenSet[str]:
        """The codes the selection enables; checks every selector, `per-file-ignores` included."""
        try:
            codes = stable(at_least(resolve(self.rule_layers, catalog), catalog, self.min_severity, self.min_impact), catalog, self.preview)
            resolve(self.fix_layers, catalog, _FIX_KEYS)
        except SelectionError as error:
            raise ConfigError(str(error)) from None
        for entry in self.per_file_ignores:
            try:
                expand(entry.selectors, catalog)
            except SelectionError as error:
                raise ConfigError(f"{entry.origin}: {error}") from None
        return codes

    def codes_for(self, path: Path, enabled: FrozenSet[str], catalog: Sequence[RuleInfo]) -> FrozenSet[str]:
        """The enabled codes minus those `per-file-ignores` disable for `path`."""
        ignored = [selector for entry in self.per_file_ignores if entry.matches(path) for selector in entry.selectors]
        return enabled - expand(ignored, catalog) if ignored else enabled

    def lint_options(self, catalog: Sequence[RuleInfo]) -> Options:
        """The settings that change what rules report, for the engine."""
        return Options(self.torch_version, tuple(sorted(self.unfixable(catalog))), self.test_paths, self.lint_test_code, self.preview)

    def unfixable(self, catalog: Sequence[RuleInfo]) -> FrozenSet[str]:
        """Codes whose fixes are never offered (`unfixable`, or not `fixable`)."""
        return frozenset(info.code for info in catalog) - resolve(self.fix_layers, catalog, _FIX_KEYS)


def parse_torch_version(value: object) -> Tuple[int, int]:
    """`"1.13"`, `"2"` or `"2.4.1"` to a (major, minor) tuple."""
    if not isinstance(value, str) or not _VERSION.match(value):
        raise ConfigError(f"invalid torch-version {value!r} (expected a string MAJOR.MINOR such as \"1.13\")")
    numbers = [int(part) for part in value.split(".")[:2]]
    return (numbers[0], numbers[1] if len(numbers) > 1 else 0)


def _absolute(path: Path) -> Path:
    """An absolute path without resolving symbolic links (as the user sees the tree)."""
    return Path(os.path.abspath(path))


class Resolver:
    """The settings that govern each path, found and loaded once per directory and file."""

    def __init__(
        self,
        cwd: Path,
        config_path: Optional[Path] = None,
        isolated: bool = False,
        adjust: Callable[[Settings], Settings] = lambda settings: settings,
    ) -> None:
        self.cwd = _absolute(cwd)
        self._adjust = adjust
        self._found: Dict[Path, Optional[Path]] = {}
        self._declared: Dict[Path, Optional[Declared]] = {}
        self._loaded: Dict[Tuple[Optional[Path], Optional[Declared]], Settings] = {}
        self._fixed: Optional[Settings] = None
        if isolated:
            self._fixed = adjust(Settings(root=self.cwd))
        elif config_path is not None:
            if not config_path.is_file():
                raise ConfigError(f"{config_path}: configuration file not found")
            config = _absolute(config_path)
            self._fixed = adjust(_with_declared(load_file(config), self.declared_for(config.parent)))

    def settings_for(self, path: Path) -> Settings:
        """The settings of the closest configuration above `path` (a file or a directory),
        with the torch version the project declares when the configuration sets none."""
        if self._fixed is not None:
            return self._fixed
        start = _absolute(path)
        directory = start if start.is_dir() else start.parent
        config = self.config_for(directory)
        declared = self.declared_for(config.parent if config else directory)
        key = (config, declared)
        if key not in self._loaded:
            settings = load_file(config) if config else Settings(root=self.cwd)
            self._loaded[key] = self._adjust(_with_declared(settings, declared))
        return self._loaded[key]

    def config_for(self, directory: Path) -> Optional[Path]:
        """The configuration file governing `directory`, or None."""

        def probe(candidate: Path) -> Optional[Tuple[Optional[Path]]]:
            found = _config_in(candidate)
            return (found,) if found is not None else None

        return _upwards(directory, self._found, probe)

    def declared_for(self, directory: Path) -> Optional["Declared"]:
        """The torch requirement of the nearest project (directory with dependency files)."""

        def probe(candidate: Path) -> Optional[Tuple[Optional[Declared]]]:
            files = _dependency_files(candidate)
            return (_declared_torch(files),) if files else None

        return _upwards(directory, self._declared, probe)


T = TypeVar("T")


def _upwards(directory: Path, memo: Dict[Path, Optional[T]], probe: Callable[[Path], Optional[Tuple[Optional[T]]]]) -> Optional[T]:
    """The answer of the first directory from `directory` upwards where `probe` gives one
    (a 1-tuple), else None; remembered for every directory passed on the way."""
    visited = []
    answer: Optional[T] = None
    for candidate in (directory, *directory.parents):
        if candidate in memo:
            answer = memo[candidate]
            break
        visited.append(candidate)
        found = probe(candidate)
        if found is not None:
            answer = found[0]
            break
    memo.update(dict.fromkeys(visited, answer))
    return answer


@dataclass(frozen=True)
class Declared:
    """A project's lowest allowed torch version, and the requirement it comes from."""

    version: Tuple[int, int]
    file: Path
    requirement: str


_TORCH_REQUIREMENT = re.compile(r"^\s*torch\s*(?:\[[^\]]*\])?\s*(?P<spec>[^;#]*)", re.IGNORECASE)
_LOWER_BOUND = re.compile(r"(?P<op>~=|===|==|>=|>)\s*(?P<major>[0-9]+)(?:\.(?P<minor>[0-9]+))?")


def _dependency_files(directory: Path) -> Tuple[Path, ...]:
    candidates = [directory / "pyproject.toml", directory / "setup.cfg", *sorted(directory.glob("requirements*.txt"))]
    return tuple(path for path in candidates if path.is_file())


def _requirements(path: Path) -> Tuple[str, ...]:
    """The requirement strings a dependency file declares (unreadable parts count as none)."""
    if path.name == "pyproject.toml":
        dependencies = _read_toml(path).get("project", {}).get("dependencies", [])
        return tuple(item for item in dependencies if isinstance(item, str)) if isinstance(dependencies, list) else ()
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ()
    if path.name == "setup.cfg":
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(text)
        except configparser.Error:
            return ()
        text = parser.get("options", "install_requires", fallback="")
    return tuple(line.split(" #")[0].strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith(("#", "-")))


def _declared_torch(files: Sequence[Path]) -> Optional[Declared]:
    """The lower bound of the first `torch` requirement with one (`torch>=1.13`, `torch==2.1.*`)."""
    for path in files:
        for requirement in _requirements(path):
            match = _TORCH_REQUIREMENT.match(requirement)
            if match is None or re.match(r"torch[\w.-]", requirement.strip(), re.IGNORECASE):
                continue
            bounds = [(int(b["major"]), int(b["minor"] or 0)) for b in _LOWER_BOUND.finditer(match["spec"])]
            if bounds:
                return Declared(max(bounds), path, requirement)
    return None


def _with_declared(settings: Settings, declared: Optional[Declared]) -> Settings:
    """`settings` targeting the declared torch version when no configuration sets one."""
    if declared is None or settings.source("torch-version") != "default":
        return settings
    origin = f"inferred from {declared.file} ({declared.requirement})"
    return replace(settings, torch_version=declared.version, sources=tuple(sorted({**dict(settings.sources), "torch-version": origin}.items())))


def _config_in(directory: Path) -> Optional[Path]:
    for name in CONFIG_FILES:
        candidate = directory / name
        if candidate.is_file() and (name != "pyproject.toml" or "torchlint" in _tool_table(_read_toml(candidate), candidate)):
            return candidate
    return None


def load_file(path: Path, chain: Tuple[Path, ...] = ()) -> Settings:
    """Settings from one configuration file and the files it `extend`s."""
    if path in chain:
        raise ConfigError(f"{chain[-1]}: `extend` forms a cycle through {path}")
    document = _read_toml(path)
    is_pyproject = path.name == "pyproject.toml"
    table = _tool_table(document, path).get("torchlint", {}) if is_pyproject else document
    where = f"{path} [tool.torchlint]" if is_pyproject else str(path)
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: expected a table")
    _check_keys(table, where, _KEYS)
    base = Settings(root=path.parent)
    if "extend" in table:
        target = table["extend"]
        if not isinstance(target, str):
            raise ConfigError(f"{where} extend: expected a path string")
        extended = _absolute(path.parent / Path(target).expanduser())
        if not extended.is_file():
            raise ConfigError(f"{where} extend: {extended} not found")
        base = load_file(extended, chain + (path,))
    return replace(_apply(base, table, path.parent, where, str(path)), root=path.parent, config_path=path)


def _check_keys(table: Dict[str, Any], where: str, known: FrozenSet[str]) -> None:
    unknown = sorted(set(table) - known)
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(known))})")


def apply_inline(settings: Settings, table: Dict[str, Any], directory: Path) -> Settings:
    """`settings` with the pairs of `--config KEY=VALUE` applied; paths in them are relative
    to `directory` (the working directory)."""
    _check_keys(table, INLINE, _KEYS - {"extend"})
    return _apply(settings, table, directory, INLINE, f"{COMMAND_LINE} ({INLINE})")


def parse_inline(pairs: Sequence[str]) -> Dict[str, Any]:
    """The `--config` values that are not files, each a TOML `KEY = VALUE` pair, as one table
    (a later pair wins, as in ruff)."""
    table: Dict[str, Any] = {}
    for pair in pairs:
        try:
            table.update(tomllib.loads(pair))
        except tomllib.TOMLDecodeError as error:
            raise ConfigError(f"{INLINE} {pair!r}: neither a configuration file nor a TOML `KEY = VALUE` pair ({error})") from None
    return table


def _apply(base: Settings, table: Dict[str, Any], directory: Path, where: str, source: str) -> Settings:
    """`base` with the keys of one configuration table applied: `where` names the table in
    messages, `source` in `--show-settings`; relative paths start at `directory`."""
    sources = dict(base.sources)
    sources.update(dict.fromkeys((key for key in table if key != "extend"), source))
    lists = {key: _string_list(table[key], f"{where} {key}") for key in _RULE_KEYS + _FIX_KEYS + _PATH_KEYS if key in table}
    values: Dict[str, Any] = {"sources": tuple(sorted(sources.items()))}
    if any(key in table for key in _RULE_KEYS):
        values["rule_layers"] = base.rule_layers + (_layer(where, lists, _RULE_KEYS),)
    if any(key in table for key in _FIX_KEYS):
        values["fix_layers"] = base.fix_layers + (_layer(where, lists, _FIX_KEYS),)
    if "exclude" in lists:
        values["exclude"] = lists["exclude"]
    values["extend_exclude"] = base.extend_exclude + lists.get("extend-exclude", ())
    if "per-file-ignores" in table:
        values["per_file_ignores"] = _per_file_ignores(table["per-file-ignores"], directory, f"{where} per-file-ignores")
    if "extend-per-file-ignores" in table:
        extra = _per_file_ignores(table["extend-per-file-ignores"], directory, f"{where} extend-per-file-ignores")
        values["per_file_ignores"] = values.get("per_file_ignores", base.per_file_ignores) + extra
    if "torch-version" in table:
        try:
            values["torch_version"] = parse_torch_version(table["torch-version"])
        except ConfigError as error:
            raise ConfigError(f"{where}: {error}") from None
    values.update(_scalars(table, where))
    if "test-paths" in table:
        values["test_paths"] = _string_list(table["test-paths"], f"{where} test-paths")
    for key in _BOOL_KEYS:
        if key in table:
            if not isinstance(table[key], bool):
                raise ConfigError(f"{where} {key}: expected true or false")
            values[key.replace("-", "_")] = table[key]
    if "cache-dir" in table:
        values["cache_dir"] = _absolute(directory / Path(values["cache_dir"]).expanduser())
    return replace(base, **values)


def _layer(where: str, lists: Dict[str, Tuple[str, ...]], keys: Tuple[str, str, str]) -> Layer:
    return Layer(where, lists.get(keys[0]), lists.get(keys[1], ()), lists.get(keys[2], ()))


def _scalars(table: Dict[str, Any], where: str) -> Dict[str, Any]:
    """The string-valued keys, checked: `min-severity`, `min-impact`, `output-format`, `docs-url`, `cache-dir`."""
    values: Dict[str, Any] = {}
    for key in ("min-severity", "min-impact", "output-format", "docs-url", "cache-dir"):
        if key not in table:
            continue
        value = table[key]
        if not isinstance(value, str) or not value:
            raise ConfigError(f"{where} {key}: expected a non-empty string")
        if key == "min-severity" and value not in SEVERITIES:
            raise ConfigError(f"{where}: min-severity must be one of {', '.join(SEVERITIES)}")
        if key == "min-impact" and value not in IMPACTS:
            raise ConfigError(f"{where}: min-impact must be one of {', '.join(IMPACTS)}")
        if key == "output-format" and value not in OUTPUT_FORMATS:
            raise ConfigError(f"{where} output-format: must be one of {', '.join(OUTPUT_FORMATS)}")
        if key == "docs-url" and "{code}" not in value:
            raise ConfigError(f"{where} docs-url: must contain {{code}}, e.g. \"https://example.org/rules/{{code}}.html\"")
        values[key.replace("-", "_")] = value
    return values


def _per_file_ignores(raw: Any, base: Path, where: str) -> Tuple[PerFileIgnore, ...]:
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: expected a table of pattern = [codes]")
    return tuple(PerFileIgnore(base, pattern, _string_list(codes, f"{where} {pattern!r}"), f"{where} {pattern!r}") for pattern, codes in raw.items())


def _tool_table(document: Dict[str, Any], path: Path) -> Dict[str, Any]:
    tool = document.get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(f"{path}: `tool` must be a table")
    return tool


def _string_list(value: Any, where: str) -> Tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{where}: expected a list of strings")
    return tuple(value)


def _read_toml(path: Path) -> Dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from None
    except RecursionError:
        raise ConfigError(f"{path}: invalid TOML: nested too deeply") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read: {error}") from None


@dataclass(frozen=True)
class Overrides:
    """Values given on the command line (or in environment variables); they apply on top of
    every file's settings. `origins` says where each given key came from."""

    rules: Optional[Layer] = None
    fixes: Optional[Layer] = None
    per_file_ignores: Optional[Tuple[PerFileIgnore, ...]] = None
    extend_per_file_ignores: Tuple[PerFileIgnore, ...] = ()
    exclude: Optional[Tuple[str, ...]] = None
    extend_exclude: Tuple[str, ...] = ()
    torch_version: Optional[Tuple[int, int]] = None
    min_severity: Optional[str] = None
    min_impact: Optional[str] = None
    output_format: Optional[str] = None
    cache_dir: Optional[Path] = None
    preview: Optional[bool] = None
    respect_gitignore: Optional[bool] = None
    # The `--config KEY=VALUE` pairs, as one TOML table; they apply before the other options.
    inline: Dict[str, Any] = field(default_factory=dict)
    cwd: Path = field(default_factory=Path.cwd)
    origins: Dict[str, str] = field(default_factory=dict)

    def apply(self, settings: Settings) -> Settings:
        if self.inline:
            settings = apply_inline(settings, self.inline, self.cwd)
        values: Dict[str, Any] = {
            key: value
            for key, value in (
                ("exclude", self.exclude),
                ("torch_version", self.torch_version),
                ("min_severity", self.min_severity),
                ("min_impact", self.min_impact),
                ("output_format", self.output_format),
                ("cache_dir", self.cache_dir),
                ("preview", self.preview),
                ("respect_gitignore", self.respect_gitignore),
            )
            if value is not None
        }
        if self.rules is not None:
            values["rule_layers"] = settings.rule_layers + (self.rules,)
        if self.fixes is not None:
            values["fix_layers"] = settings.fix_layers + (self.fixes,)
        values["extend_exclude"] = settings.extend_exclude + self.extend_exclude
        ignores = settings.per_file_ignores if self.per_file_ignores is None else self.per_file_ignores
        values["per_file_ignores"] = ignores + self.extend_per_file_ignores
        values["sources"] = tuple(sorted({**dict(settings.sources), **self.origins}.items()))
        return replace(settings, **values)


def parse_per_file_ignore(value: str, base: Path, origin: str) -> PerFileIgnore:
    """`PATTERN:CODE[,CODE...]` from the command line."""
    pattern, _, codes = value.rpartition(":")
    selectors = tuple(code.strip() for code in codes.split(",") if code.strip())
    if not pattern or not selectors:
        raise ConfigError(f"{origin}: expected PATTERN:CODES such as 'tests/*:TL201', got {value!r}")
    return PerFileIgnore(base, pattern, selectors, f"{origin} {pattern!r}")
