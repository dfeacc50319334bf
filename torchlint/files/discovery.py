"""Find the files to check: recursion, exclude patterns and ``.gitignore`` files."""

from __future__ import annotations

import os
import posixpath
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from torchlint.files.git_index import NOTHING, TrackedPaths, tracked_paths
from torchlint.files.gitignore import GitIgnore

DEFAULT_EXCLUDE: tuple[str, ...] = (
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    "build",
    "dist",
    "__pycache__",
    "site-packages",
    "node_modules",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".torchlint_cache",
    ".ipynb_checkpoints",
    ".virtual_documents",  # JupyterLab's language-server copies of notebooks, as plain text
    "*.egg-info",
)

_VENV_MARKER = "pyvenv.cfg"

FileKey = tuple[int, int]  # (st_dev, st_ino)
Chain = tuple[GitIgnore, ...]  # ignore files in force, lowest precedence first


@dataclass(frozen=True)
class DiscoveryResult:
    """Files to check (sorted, unique) and one-line diagnostics.

    `errors` are problems with what the user asked for (exit code 2); `warnings` are things
    skipped on purpose that the user may want to know about, such as symbolic link loops.
    """

    files: list[Path]
    errors: list[str]
    warnings: list[str] = field(default_factory=list)


def discover(
    paths: Sequence[Path],
    *,
    root: Path,
    exclude: Sequence[str] = DEFAULT_EXCLUDE,
    extend_exclude: Sequence[str] = (),
    respect_gitignore: bool = True,
    force_exclude: bool = False,
    extensions: Sequence[str] = (".py",),
) -> DiscoveryResult:
    """Expand ``paths`` into the files to check; never raises for filesystem problems."""
    root_abs = _posix_abspath(root)
    patterns = [_strip_dot_slash(p) for p in (*exclude, *extend_exclude)]
    walker = _Walker(
        root_abs=root_abs,
        root_real=Path(os.path.realpath(root)).as_posix(),
        excludes=GitIgnore.from_lines(patterns, root_abs),
        detect_venvs=tuple(exclude) == DEFAULT_EXCLUDE,
        respect_gitignore=respect_gitignore,
        force_exclude=force_exclude,
        extensions=tuple(extensions),
    )
    for path in paths:
        walker.add(Path(path))
    walker.drain_deferred()
    return walker.result()


@dataclass(frozen=True)
class _DirTask:
    """A directory waiting to be scanned."""

    abs_path: str  # absolute, posix separators, symlinks kept
    rel_path: str  # relative to root, "" for root itself
    display: str  # the path as reported to the user
    chain: Chain  # ignore files of its ancestors
    key: FileKey
    top: bool  # named on the command line
    # An ignore file names it, but git tracks files below it: only those are checked.
    ignored: bool = False


@dataclass
class _Walker:
    """State of one discovery run."""

    root_abs: str
    root_real: str
    excludes: GitIgnore
    detect_venvs: bool
    respect_gitignore: bool
    force_exclude: bool
    extensions: tuple[str, ...]
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    found: dict[FileKey, tuple[str, bool]] = field(default_factory=dict)
    visited: set[FileKey] = field(default_factory=set)
    deferred: list[_DirTask] = field(default_factory=list)
    ignore_files: dict[str, Optional[GitIgnore]] = field(default_factory=dict)
    chains: dict[str, Chain] = field(default_factory=dict)
    repos: dict[str, Optional[str]] = field(default_factory=dict)
    tracked: dict[str, TrackedPaths] = field(default_factory=dict)

    def add(self, path: Path) -> None:
        """Handle one path named by the user."""
        display = os.fspath(path)
        try:
            st = os.stat(path)
        except OSError as exc:
            self._error(display, exc)
            return
        abs_path = _posix_abspath(path)
        is_dir = stat.S_ISDIR(st.st_mode)
        chain = self._chain_for(posixpath.dirname(abs_path))
        if self.force_exclude and self._excluded_explicit(abs_path, is_dir, chain):
            return
        key = (st.st_dev, st.st_ino)
        if not is_dir:
            self._register(display, key, via_symlink=False)
            return
        rel_path = self._rel_to_root(abs_path)
        self._walk(_DirTask(abs_path, rel_path, display, chain, key, top=True))

    def drain_deferred(self) -> None:
        """Walk symlinked directories last, so real paths win over link paths."""
        while self.deferred:
            task = self.deferred.pop(0)
            if task.key in self.visited and _is_link_loop(task.abs_path):
                self.warnings.append(f"torchlint: warning: {Path(task.display)}: symbolic link loop, skipped")
            self._walk(task)

    def result(self) -> DiscoveryResult:
        files = sorted({Path(display) for display, _ in self.found.values()})
        return DiscoveryResult(files, list(self.errors), list(self.warnings))

    def _walk(self, task: _DirTask) -> None:
        stack = [task]
        while stack:
            current = stack.pop()
            if current.key not in self.visited:
                self.visited.add(current.key)
                stack.extend(reversed(self._scan(current)))

    def _scan(self, task: _DirTask) -> list[_DirTask]:
        """List one directory; register its files and return its real subdirectories."""
        try:
            with os.scandir(task.abs_path) as it:
                entries = sorted(it, key=lambda entry: entry.name)
        except OSError as exc:
            self._error(task.display, exc)
            return []
        names = {entry.name for entry in entries}
        if self.detect_venvs and not task.top and _VENV_MARKER in names:
            return []
        chain = self._local_chain(task, names)
        children = (self._visit(entry, task, chain) for entry in entries)
        return [child for child in children if child is not None]

    def _visit(
        self, entry: os.DirEntry[str], parent: _DirTask, chain: Chain
    ) -> Optional[_DirTask]:
        """Register a matching file, or return a subdirectory to descend into."""
        name = entry.name
        try:
            is_dir = entry.is_dir()
            if not is_dir and not (name.endswith(self.extensions) and entry.is_file()):
                return None
            is_link = entry.is_symlink()
        except OSError:
            return None
        abs_path = posixpath.join(parent.abs_path, name)
        rel_path = posixpath.join(parent.rel_path, name)
        if self.excludes.match(rel_path, is_dir):
            return None
        ignored = parent.ignored or _chain_verdict(chain, abs_path, is_dir) is True
        if ignored and not self._tracked(abs_path, is_dir):
            return None
        display = os.path.join(parent.display, name)
        try:
            key = _entry_key(entry, parent.key[0], is_link or is_dir)
        except OSError as exc:
            self._error(display, exc)
            return None
        if not is_dir:
            self._register(display, key, via_symlink=is_link)
            return None
        child = _DirTask(abs_path, rel_path, display, chain, key, top=False, ignored=ignored)
        if is_link:
            self.deferred.append(child)
            return None
        return child

    def _register(self, display: str, key: FileKey, via_symlink: bool) -> None:
        """Record a file once; a real path replaces one reached through a symlink."""
        previous = self.found.get(key)
        if previous is None or (previous[1] and not via_symlink):
            self.found[key] = (display, via_symlink)

    def _tracked(self, abs_path: str, is_dir: bool) -> bool:
        """Whether git tracks the file at `abs_path`, or for a directory any file below it:
        ignore files apply to untracked files only (`git_index`)."""
        repo = self._repo_of(posixpath.dirname(abs_path))
        if repo is None:
            return False
        if repo not in self.tracked:
            git_dir = _git_dir(repo)
            self.tracked[repo] = tracked_paths(git_dir) if git_dir is not None else NOTHING
        return self.tracked[repo].tracks(abs_path[len(repo.rstrip("/")) + 1 :], is_dir)

    def _repo_of(self, directory: str) -> Optional[str]:
        """The root of the git work tree that holds `directory`, if any."""
        if directory not in self.repos:
            parent = posixpath.dirname(directory)
            self.repos[directory] = directory if _has_git(directory) else (self._repo_of(parent) if parent != directory else None)
        return self.repos[directory]

    def _excluded_explicit(self, abs_path: str, is_dir: bool, chain: Chain) -> bool:
        """Exclusion of a named path, including exclusion inherited from its parents."""
        *ancestors, _ = _lineage(abs_path)
        return any(self._excluded_named(d, True, chain) for d in ancestors) or (
            self._excluded_named(abs_path, is_dir, chain)
        )

    def _excluded_named(self, abs_path: str, is_dir: bool, chain: Chain) -> bool:
        """Exclusion of one path, without its parents; patterns skip root's ancestors."""
        rel_path = self._rel_to_root(abs_path)
        if rel_path and rel_path.rpartition("/")[2] != "..":
            if self.excludes.match(rel_path, is_dir):
                return True
            if is_dir and self.detect_venvs and not _is_outside(rel_path):
                if os.path.isfile(posixpath.join(abs_path, _VENV_MARKER)):
                    return True
        return _chain_verdict(chain, abs_path, is_dir) is True and not self._tracked(abs_path, is_dir)

    def _rel_to_root(self, abs_path: str) -> str:
        """Path relative to root; through realpaths when lexically outside root."""
        rel_path = _relpath(abs_path, self.root_abs)
        if _is_outside(rel_path):
            real = _relpath(os.path.realpath(abs_path), self.root_real)
            if not _is_outside(real):
                return real
        return rel_path

    def _local_chain(self, task: _DirTask, names: set[str]) -> Chain:
        """Ignore files in force inside ``task``'s directory."""
        if not self.respect_gitignore:
            return ()
        chain = self._info_exclude(task.abs_path) if ".git" in names else task.chain
        if ".gitignore" in names:
            chain += self._load_gitignore(task.abs_path)
        return chain

    def _chain_for(self, directory: str) -> Chain:
        """Ignore files of ``directory`` and its ancestors up to the repository root."""
        if not self.respect_gitignore:
            return ()
        if directory not in self.chains:
            self.chains[directory] = self._build_chain(directory)
        return self.chains[directory]

    def _build_chain(self, directory: str) -> Chain:
        lineage = _lineage(directory)
        repo = next((d for d in reversed(lineage) if _has_git(d)), None)
        if repo is not None:
            top, chain = repo, self._info_exclude(repo)
        elif _is_within(directory, self.root_abs):
            top, chain = self.root_abs, ()
        else:
            return ()
        for ancestor in lineage[lineage.index(top) :]:
            chain += self._load_gitignore(ancestor)
        return chain

    def _info_exclude(self, repo: str) -> Chain:
        git_dir = _git_dir(repo)
        if git_dir is None:
            return ()
        return self._load(posixpath.join(git_dir, "info", "exclude"), repo)

    def _load_gitignore(self, directory: str) -> Chain:
        return self._load(posixpath.join(directory, ".gitignore"), directory)

    def _load(self, file_path: str, base_dir: str) -> Chain:
        """A one-element chain for a non-empty ignore file, else empty (cached)."""
        if file_path not in self.ignore_files:
            self.ignore_files[file_path] = self._read_ignore_file(file_path, base_dir)
        ignore = self.ignore_files[file_path]
        return () if ignore is None else (ignore,)

    def _read_ignore_file(self, file_path: str, base_dir: str) -> Optional[GitIgnore]:
        try:
            ignore = GitIgnore.from_file(file_path, base_dir)
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return None
        except OSError as exc:
            self._error(file_path, exc)
            return None
        return ignore if ignore.rules else None

    def _error(self, display: str, exc: OSError) -> None:
        reason = os.strerror(exc.errno).lower() if exc.errno else str(exc)
        self.errors.append(f"torchlint: error: {Path(display)}: {reason}")


def _entry_key(entry: os.DirEntry[str], parent_dev: int, needs_stat: bool) -> FileKey:
    """Identity of the entry's target; plain files share their directory's device."""
    if needs_stat:
        st = entry.stat()
        return (st.st_dev, st.st_ino)
    return (parent_dev, entry.inode())


def _chain_verdict(chain: Chain, abs_path: str, is_dir: bool) -> Optional[bool]:
    """The deepest ignore file with an opinion decides."""
    for ignore in reversed(chain):
        prefix = ignore.base_dir.rstrip("/") + "/"
        if abs_path.startswith(prefix):
            verdict = ignore.match(abs_path[len(prefix) :], is_dir)
            if verdict is not None:
                return verdict
    return None


def _is_link_loop(link: str) -> bool:
    """Whether a symlinked directory points at itself or at one of its own ancestors."""
    target = os.path.realpath(link)
    parent = os.path.realpath(os.path.dirname(link))
    return parent == target or _is_within(parent, target)


def _git_dir(repo: str) -> Optional[str]:
    """The git directory of a repository root (``.git`` or its ``gitdir:`` target)."""
    dot_git = posixpath.join(repo, ".git")
    if os.path.isdir(dot_git):
        return dot_git
    try:
        first_line = Path(dot_git).read_text(encoding="utf-8", errors="replace").split("\n")[0]
    except OSError:
        return None
    if not first_line.startswith("gitdir:") or "\0" in first_line:  # a damaged `.git` file names no directory
        return None
    return Path(repo, first_line[len("gitdir:") :].strip()).as_posix()


def _has_git(directory: str) -> bool:
    return os.path.lexists(posixpath.join(directory, ".git"))


def _lineage(path: str) -> list[str]:
    """``path`` and its ancestors, outermost first."""
    pure = Path(path)
    return [p.as_posix() for p in reversed((pure, *pure.parents))]


def _posix_abspath(path: os.PathLike[str] | str) -> str:
    return Path(os.path.abspath(path)).as_posix()


def _relpath(path: str, start: str) -> str:
    """Posix relative path, "" for ``start`` itself, ``path`` if on another drive."""
    try:
        rel_path = Path(os.path.relpath(path, start)).as_posix()
    except ValueError:
        return path
    return "" if rel_path == "." else rel_path


def _is_outside(rel_path: str) -> bool:
    return rel_path == ".." or rel_path.startswith("../")


def _is_within(path: str, base: str) -> bool:
    return path == base or path.startswith(base.rstrip("/") + "/")


def _strip_dot_slash(pattern: str) -> str:
    return pattern[2:] if pattern.startswith("./") else pattern


def excluded_below(path: Path, root: Path, exclude: Sequence[str], extend_exclude: Sequence[str] = ()) -> bool:
    """Whether the exclude patterns of a configuration in `root` exclude `path` or one of its
    directories below `root` (for files that a nested configuration governs)."""
    root_abs = _posix_abspath(root)
    rel_path = _relpath(_posix_abspath(path), root_abs)
    if _is_outside(rel_path):
        return False
    excludes = GitIgnore.from_lines([_strip_dot_slash(p) for p in (*exclude, *extend_exclude)], root_abs)
    parts = rel_path.split("/")
    return any(excludes.match("/".join(parts[: i + 1]), i < len(parts) - 1) for i in range(len(parts)))
