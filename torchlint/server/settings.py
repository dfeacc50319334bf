"""What checking one file in the editor needs: the file's configuration with the editor's
settings on top.

The editor's `select`, `ignore`, `preview` and `unsafe-fixes` act like the command-line
options of the same names (as ruff's server does): they are one more selection layer on top
of every file's configuration, so `select` replaces the configured selection and `ignore`
adds to it. `setup_for` is the one place that resolves configuration for a path, with the
same `Resolver` as `torchlint check`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, FrozenSet, Mapping, Optional, Tuple

from torchlint.config import ConfigError, Overrides, Resolver, Settings
from torchlint.engine.catalog import from_rules
from torchlint.engine.options import Options
from torchlint.engine.selection import Layer
from torchlint.files.discovery import DEFAULT_EXCLUDE, discover

# The files `torchlint check` finds in directories (its SOURCE_EXTENSIONS).
SOURCE_EXTENSIONS = (".py", ".pyi", ".ipynb")

_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


@dataclass(frozen=True)
class EditorSettings:
    """Settings the client sent; None leaves the file configuration's value."""

    select: Optional[Tuple[str, ...]] = None
    ignore: Tuple[str, ...] = ()
    preview: Optional[bool] = None
    unsafe_fixes: bool = False

    @classmethod
    def parse(cls, raw: Any) -> "EditorSettings":
        """Settings from a client's JSON object; keys may be spelled `unsafe-fixes`,
        `unsafe_fixes` or `unsafeFixes`. Raises ConfigError for a value of the wrong type."""
        if raw is None:
            return cls()
        if not isinstance(raw, Mapping):
            raise ConfigError("torchlint settings: expected an object")
        values = {_CAMEL.sub("-", str(key)).lower().replace("_", "-"): value for key, value in raw.items()}
        preview, unsafe = values.get("preview"), values.get("unsafe-fixes", False)
        if not isinstance(preview, (bool, type(None))) or not isinstance(unsafe, bool):
            raise ConfigError("torchlint settings: `preview` and `unsafe-fixes` must be true or false")
        select = values.get("select")
        return cls(None if select is None else _selectors(select, "select"), _selectors(values.get("ignore", []), "ignore"), preview, unsafe)


def _selectors(value: Any, key: str) -> Tuple[str, ...]:
    """A list of selectors, or one comma-separated string of them."""
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"torchlint settings: `{key}` must be a list of rule selectors")
    return tuple(item.strip() for item in value if item.strip())


@dataclass(frozen=True)
class FileSetup:
    """What checking one file needs: the rules enabled for it, the options they run with,
    where its rule documentation lives, and its result cache: the configuration's cache
    directory, or None for a file no configuration governs (one opened from site-packages,
    say), beside which the server writes nothing."""

    codes: FrozenSet[str]
    options: Options
    docs_url: str
    cache_dir: Optional[Path]
    unsafe_fixes: bool
    # Excluded by `exclude`/`extend-exclude`/.gitignore, as `torchlint check --force-exclude`
    # (and so the pre-commit hook) would exclude it: no diagnostics.
    excluded: bool = False


def setup_for(path: Path, editor: EditorSettings) -> FileSetup:
    """The configuration governing `path` (the closest one above it) with the editor's
    settings on top. Raises ConfigError with a one-line message."""
    settings = Resolver(path.parent).settings_for(path)
    rules = Layer("editor settings", editor.select, (), editor.ignore) if editor.select is not None or editor.ignore else None
    settings = Overrides(rules=rules, preview=editor.preview).apply(settings)
    catalog = from_rules()
    codes = settings.codes_for(path, settings.enabled(catalog), catalog)
    options = settings.lint_options(catalog)
    cache_dir = settings.cache_directory if settings.config_path is not None else None
    return FileSetup(frozenset(codes), options, settings.docs_url, cache_dir, editor.unsafe_fixes, _excluded(path, settings))


def _excluded(path: Path, settings: Settings) -> bool:
    if not path.is_file():
        return False  # an unsaved buffer: nothing on disk to match against
    found = discover(
        [path],
        root=settings.root,
        exclude=settings.exclude if settings.exclude is not None else DEFAULT_EXCLUDE,
        extend_exclude=settings.extend_exclude,
        force_exclude=True,
        extensions=SOURCE_EXTENSIONS,
    )
    return not found.files
