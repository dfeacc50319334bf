"""What checking one file in the editor needs: the file's configuration with the editor's
settings on top.

The editor's `select`, `extend-select`, `ignore`, `preview`, `unsafe-fixes` and
`configuration` act like the command-line options of the same names (`configuration` like
`--config`), as ruff's server does: they are one more selection layer on top of every file's
configuration, so `select` replaces the configured selection and `extend-select` and `ignore`
add to it. `setup_for` is the one place that resolves configuration for a path, with the
same `Resolver` as `torchlint check`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, FrozenSet, Mapping, Optional, Sequence, Tuple

from torchlint.config import ConfigError, Overrides, Resolver, Settings
from torchlint.engine.catalog import from_rules
from torchlint.engine.options import Options
from torchlint.engine.selection import Layer
from torchlint.files.discovery import DEFAULT_EXCLUDE, discover

# The files `torchlint check` finds in directories (its SOURCE_EXTENSIONS).
SOURCE_EXTENSIONS = (".py", ".pyi", ".ipynb")

_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


# The settings the server reads, in the spelling `parse` normalises keys to.
KNOWN_KEYS = ("select", "extend-select", "ignore", "preview", "unsafe-fixes", "configuration")


@dataclass(frozen=True)
class EditorSettings:
    """Settings the client sent; None leaves the file configuration's value. `unknown` holds
    the keys the server does not read, as the client spelled them, so that it can say so."""

    select: Optional[Tuple[str, ...]] = None
    ignore: Tuple[str, ...] = ()
    preview: Optional[bool] = None
    unsafe_fixes: bool = False
    extend_select: Tuple[str, ...] = ()
    configuration: Optional[Path] = None
    unknown: Tuple[str, ...] = ()

    @classmethod
    def parse(cls, raw: Any, base: Optional[Path] = None) -> "EditorSettings":
        """Settings from a client's JSON object; keys may be spelled `unsafe-fixes`,
        `unsafe_fixes` or `unsafeFixes`. A relative `configuration` path is taken from `base`
        (the workspace root; by default the current directory). Raises ConfigError for a value
        of the wrong type."""
        if raw is None:
            return cls()
        if not isinstance(raw, Mapping):
            raise ConfigError("torchlint settings: expected an object")
        values = {_normal(key): value for key, value in raw.items()}
        preview, unsafe = values.get("preview"), values.get("unsafe-fixes", False)
        if not isinstance(preview, (bool, type(None))) or not isinstance(unsafe, bool):
            raise ConfigError("torchlint settings: `preview` and `unsafe-fixes` must be true or false")
        select = values.get("select")
        return cls(
            select=None if select is None else _selectors(select, "select"),
            ignore=_selectors(values.get("ignore", []), "ignore"),
            preview=preview,
            unsafe_fixes=unsafe,
            extend_select=_selectors(values.get("extend-select", []), "extend-select"),
            configuration=_configuration(values.get("configuration"), base or Path.cwd()),
            unknown=tuple(str(key) for key in raw if _normal(key) not in KNOWN_KEYS),
        )


def _normal(key: Any) -> str:
    """`unsafeFixes` and `unsafe_fixes` as `unsafe-fixes`."""
    return _CAMEL.sub("-", str(key)).lower().replace("_", "-")


def unknown_settings_message(keys: Sequence[str]) -> str:
    """What the server says about settings it does not read, naming the ones it does."""
    known = ", ".join(re.sub(r"-(.)", lambda m: m.group(1).upper(), key) for key in KNOWN_KEYS)
    names = ", ".join(f"`{key}`" for key in keys)
    return f"torchlint: unknown setting{'s' if len(keys) > 1 else ''} {names} ignored (the server reads {known})"


def _configuration(value: Any, base: Path) -> Optional[Path]:
    """The configuration file every file uses (like `--config`); None or "" for each file's own."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ConfigError("torchlint settings: `configuration` must be the path of a configuration file")
    return base / Path(value).expanduser()


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
    """The configuration governing `path` (the editor's `configuration`, or else the closest
    one above it) with the editor's settings on top. Raises ConfigError with a one-line message."""
    settings = Resolver(path.parent, editor.configuration).settings_for(path)
    changes_rules = editor.select is not None or editor.extend_select or editor.ignore
    rules = Layer("editor settings", editor.select, editor.extend_select, editor.ignore) if changes_rules else None
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
