"""The paths a git repository tracks, read from its index file (`.git/index`).

Ignore files apply to untracked files only: git itself checks a tracked file that a
`.gitignore` pattern matches (a `*` followed by `!src` leaves `src/model.py` ignored for new
files, but the committed one is still part of the project). Discovery asks this module before
it skips such a path. The index is read directly (no `git` process); an index this module
cannot read (a newer format, a damaged file) tracks nothing, and the ignore files decide.

Format (git's `Documentation/gitformat-index.txt`): a 12-byte header (`DIRC`, version 2 to 4,
entry count), then one entry per path: 40 bytes of file status, the object id (20 bytes, or 32
in a SHA-256 repository), 16 bits of flags (and 16 more in version 3 and up when the extended
flag is set), then the path. Versions 2 and 3 end the path with NUL bytes up to a multiple of
8; version 4 stores how many bytes of the previous path to drop, then the rest of the path
ending with one NUL.
"""

from __future__ import annotations

import bisect
import os
import posixpath
import struct
from dataclasses import dataclass
from typing import List, Optional, Tuple

_HEADER = struct.Struct(">4sII")
_STATUS_BYTES = 40
_EXTENDED = 0x4000
_SHA256_KEY = "objectformat = sha256"


@dataclass(frozen=True)
class TrackedPaths:
    """The sorted paths (relative to the work tree, `/`-separated) an index tracks."""

    paths: Tuple[str, ...]

    def tracks(self, relative: str, is_dir: bool) -> bool:
        """Whether the file `relative` is tracked, or for a directory, any file below it."""
        if not is_dir:
            index = bisect.bisect_left(self.paths, relative)
            return index < len(self.paths) and self.paths[index] == relative
        prefix = relative.rstrip("/") + "/"
        index = bisect.bisect_left(self.paths, prefix)
        return index < len(self.paths) and self.paths[index].startswith(prefix)


NOTHING = TrackedPaths(())


def tracked_paths(git_dir: str) -> TrackedPaths:
    """The paths the index of the git directory `git_dir` tracks; none if it cannot be read."""
    try:
        with open(posixpath.join(git_dir, "index"), "rb") as handle:
            data = handle.read()
    except OSError:
        return NOTHING
    paths = _entries(data, _object_id_bytes(git_dir))
    return TrackedPaths(tuple(sorted(paths))) if paths is not None else NOTHING


def _object_id_bytes(git_dir: str) -> int:
    """20 for SHA-1 repositories, 32 for those whose config sets `objectformat = sha256`."""
    try:
        with open(posixpath.join(git_dir, "config"), encoding="utf-8", errors="replace") as handle:
            config = handle.read().lower().replace("\t", " ")
    except OSError:
        return 20
    return 32 if _SHA256_KEY in " ".join(config.split()) else 20


def _entries(data: bytes, id_bytes: int) -> Optional[List[str]]:
    """The paths of the index `data`, or None when it is not an index this module reads."""
    if len(data) < _HEADER.size:
        return None
    signature, version, count = _HEADER.unpack_from(data)
    if signature != b"DIRC" or version not in (2, 3, 4):
        return None
    paths: List[str] = []
    offset = _HEADER.size
    previous = b""
    fixed = _STATUS_BYTES + id_bytes + 2
    try:
        for _ in range(count):
            start = offset
            (flags,) = struct.unpack_from(">H", data, offset + fixed - 2)
            offset += fixed + (2 if version >= 3 and flags & _EXTENDED else 0)
            if version == 4:
                dropped, offset = _varint(data, offset)
                end = data.index(b"\0", offset)
                path = previous[: len(previous) - dropped] + data[offset:end]
                offset = end + 1
            else:
                end = data.index(b"\0", offset)
                path = data[offset:end]
                offset = start + ((end - start) // 8 + 1) * 8  # NUL padding to a multiple of 8
            previous = path
            paths.append(os.fsdecode(path))
    except (struct.error, ValueError, IndexError):
        return None
    return paths


def _varint(data: bytes, offset: int) -> Tuple[int, int]:
    """Git's offset encoding of a number (each continuation adds one before shifting), and
    the offset after it."""
    byte = data[offset]
    value = byte & 0x7F
    offset += 1
    while byte & 0x80:
        byte = data[offset]
        value = ((value + 1) << 7) | (byte & 0x7F)
        offset += 1
    return value, offset
