"""Configuration: `[tool.torchlint]` in the nearest pyproject.toml, overridden by the command line."""

from __future__ import annotations

import fnmatch
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Dict, Optional, Tuple

from torchlint.engine.context import DEFAULT_TORCH_VERSION
from torchlint.semantics.roles import DEFAULT_TEST_PATHS
from torchlint.engine.rule import SEVERITIES, all_rules
from torchlint.engine.selection import SelectionError, expand

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python < 3.11 only
    import tomli as tomllib

_BOOL_KEYS = ("lint-test-code", "preview")
_LIST_KEYS = ("select", "extend-select", "ignore", "exclude", "extend-exclude")
_KEYS = frozenset(_LIST_KEYS + ("per-file-ignores", "torch-version", "min-severity", "test-paths") + _BOOL_KEYS)
_VERSION = re.compile(r"^[0-9]+(\.[0-9]+){0,2}$")


class ConfigError(ValueError):
    """A configuration problem, reported in one line with exit code 2."""


@dataclass(frozen=True)
class Settings:
    """Effective settings for one run."""

    root: Path
    config_path: Optional[Path] = None
    select: Tuple[str, ...] = ("ALL",)
    extend_select: Tuple[str, ...] = ()
    ignore: Tuple[str, ...] = ()
    per_file_ignores: Dict[str, Tuple[str, ...]] = field(default_factory=dict)
    exclude: Optional[Tuple[str, ...]] = None
    extend_exclude: Tuple[str, ...] = ()
    torch_version: Tuple[int, int] = DEFAULT_TORCH_VERSION
    min_severity: str = "info"
    test_paths: Tuple[str, ...] = DEFAULT_TEST_PATHS
    lint_test_code: bool = False
    preview: bool = False

    def ignored_for(self, path: Path) -> Tuple[str, ...]:
        """Selectors that `per-file-ignores` disables for `path`."""
        try:
            relative = path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            relative = path.as_posix()
        ignored: Tuple[str, ...] = ()
        for pattern, selectors in self.per_file_ignores.items():
            if _path_matches(relative, pattern):
                ignored += selectors
        return ignored


def _path_matches(relative: str, pattern: str) -> bool:
    pattern = pattern[2:] if pattern.startswith("./") else pattern
    if fnmatch.fnmatchcase(relative, pattern) or fnmatch.fnmatchcase(relative, pattern.rstrip("/") + "/*"):
        return True
    return "/" not in pattern and fnmatch.fnmatchcase(relative.rsplit("/", 1)[-1], pattern)


def parse_torch_version(value: object) -> Tuple[int, int]:
    """`"1.13"`, `"2"` or `"2.4.1"` to a (major, minor) tuple."""
    if not isinstance(value, str) or not _VERSION.match(value):
        raise ConfigError(f"invalid torch-version {value!r} (expected a string MAJOR.MINOR such as \"1.13\")")
    numbers = [int(part) for part in value.split(".")[:2]]
    return (numbers[0], numbers[1] if len(numbers) > 1 else 0)


def find_config(start: Path) -> Optional[Path]:
    """The nearest pyproject.toml with a `[tool.torchlint]` table, from `start` upwards."""
    for directory in (start, *start.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file() and "torchlint" in _tool_table(_read_toml(candidate), candidate):
            return candidate
    return None


def load_settings(config_path: Optional[Path], isolated: bool, cwd: Path) -> Settings:
    """Settings from an explicit `--config`, the nearest pyproject.toml, or the defaults."""
    if isolated:
        return Settings(root=cwd)
    if config_path is None:
        config_path = find_config(cwd.resolve())
        if config_path is None:
            return Settings(root=cwd)
    elif not config_path.is_file():
        raise ConfigError(f"{config_path}: configuration file not found")
    document = _read_toml(config_path)
    tool = _tool_table(document, config_path)
    table = tool.get("torchlint", {} if config_path.name == "pyproject.toml" else document)
    return settings_from_table(table, config_path)


def _tool_table(document: Dict[str, Any], path: Path) -> Dict[str, Any]:
    tool = document.get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(f"{path}: `tool` must be a table")
    return tool


def settings_from_table(table: Dict[str, Any], config_path: Path) -> Settings:
    """Validate a `[tool.torchlint]` table and build Settings from it."""
    where = f"{config_path} [tool.torchlint]"
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: expected a table")
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(_KEYS))})")
    values: Dict[str, Any] = {key.replace("-", "_"): _string_list(table[key], f"{where} {key}") for key in _LIST_KEYS if key in table}
    if "per-file-ignores" in table:
        raw = table["per-file-ignores"]
        if not isinstance(raw, dict):
            raise ConfigError(f"{where} per-file-ignores: expected a table of pattern = [codes]")
        values["per_file_ignores"] = {pattern: _string_list(codes, f"{where} per-file-ignores") for pattern, codes in raw.items()}
    if "torch-version" in table:
        try:
            values["torch_version"] = parse_torch_version(table["torch-version"])
        except ConfigError as error:
            raise ConfigError(f"{where}: {error}") from None
    if "test-paths" in table:
        values["test_paths"] = _string_list(table["test-paths"], f"{where} test-paths")
    for key in _BOOL_KEYS:
        if key in table:
            if not isinstance(table[key], bool):
                raise ConfigError(f"{where}: {key} must be true or false")
            values[key.replace("-", "_")] = table[key]
    if "min-severity" in table:
        if table["min-severity"] not in SEVERITIES:
            raise ConfigError(f"{where}: min-severity must be one of {', '.join(SEVERITIES)}")
        values["min_severity"] = table["min-severity"]
    _check_selectors(values, where)
    return Settings(root=config_path.parent, config_path=config_path, **values)


def _check_selectors(values: Dict[str, Any], where: str) -> None:
    """Every rule selector in the table must name a rule."""
    rules = all_rules()
    groups = [(key, values.get(key, ())) for key in ("select", "extend_select", "ignore")]
    groups += [(f"per-file-ignores {pattern!r}", codes) for pattern, codes in values.get("per_file_ignores", {}).items()]
    for key, selectors in groups:
        try:
            expand(selectors, rules)
        except SelectionError as error:
            raise ConfigError(f"{where} {key.replace('_', '-')}: {error}") from None


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
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read: {error}") from None


def override(settings: Settings, **changes: Any) -> Settings:
    """Apply command-line values (those that are not None) on top of file settings."""
    return replace(settings, **{key: value for key, value in changes.items() if value is not None})
