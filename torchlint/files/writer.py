"""Atomic, faithful file writes: same directory temporary file, same mode, then replace."""

from __future__ import annotations

import os
import stat
import tempfile


def write_atomic(path: str, data: bytes) -> None:
    """Replace the file at `path` (following symlinks) with `data`, keeping its permission bits
    (a new file gets 0o644)."""
    target = os.path.realpath(path)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = 0o644
    directory = os.path.dirname(target) or "."
    handle, temporary = tempfile.mkstemp(prefix=".torchlint-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
