"""Atomic, faithful file writes: same directory temporary file, same mode, then replace.

The temporary file is named `.torchlint-<pid>-<random>.tmp`. A process killed between
creating and renaming it cannot remove it, so every run removes, in the directories it
checks, the temporary files of torchlint processes that no longer exist.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import tempfile
import time
from typing import Iterable, Optional

TEMPORARY_PREFIX = ".torchlint-"
_TEMPORARY = re.compile(r"\.torchlint-(?P<pid>[0-9]+)-[A-Za-z0-9_]+\.tmp")
# Where process ids cannot be probed, a temporary file this old is taken as abandoned.
_ABANDONED_AFTER_S = 3600


class FileChanged(Exception):
    """The file no longer holds the bytes it was read with; it was left alone."""


def write_atomic(path: str, data: bytes, expected: Optional[bytes] = None) -> None:
    """Replace the file at `path` (following symlinks) with `data`, keeping its permission bits
    (a new file gets 0o644). With `expected`, raise `FileChanged` instead of writing when the
    file's content is no longer `expected` (compared just before the rename)."""
    target = os.path.realpath(path)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = 0o644
    directory = os.path.dirname(target) or "."
    handle, temporary = tempfile.mkstemp(prefix=f"{TEMPORARY_PREFIX}{os.getpid()}-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        if expected is not None and _content(target) != expected:
            raise FileChanged(path)
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _content(path: str) -> Optional[bytes]:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return None


def remove_abandoned_temporaries(directories: Iterable[str]) -> None:
    """Delete the temporary files that killed torchlint processes left in `directories`."""
    for directory in directories:
        try:
            with os.scandir(directory or ".") as entries:
                names = [entry.name for entry in entries if entry.name.startswith(TEMPORARY_PREFIX)]
        except OSError:
            continue
        for name in names:
            match = _TEMPORARY.fullmatch(name)
            if match is not None and _abandoned(os.path.join(directory or ".", name), int(match["pid"])):
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(directory or ".", name))


def _abandoned(path: str, pid: int) -> bool:
    """Whether the process that created the temporary file at `path` is gone."""
    if os.name != "posix":
        try:
            return time.time() - os.stat(path).st_mtime > _ABANDONED_AFTER_S
        except OSError:
            return False
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # exists, owned by someone else
        return False
    return False
