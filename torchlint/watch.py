"""`torchlint check --watch`: check again whenever a checked file, its directory or its
configuration changes, found by polling modification times (no file-system notification
library needed)."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Callable, Collection, Dict, Optional, Tuple

Stamp = Optional[Tuple[int, int]]


@dataclass
class Watcher:
    """How often to poll, and (for tests) after how many polls to stop; None polls until
    interrupted."""

    interval: float = 0.5
    polls: Optional[int] = None
    sleep: Callable[[float], None] = field(default=time.sleep)

    def run(self, check: Callable[[], Collection[str]], announce: Callable[[str], None]) -> None:
        """Run `check` (it returns the paths to watch), then again after each change to them;
        a directory's time changes when a file in it is added, removed or renamed."""
        announce("watching for changes; Ctrl-C stops")
        polls = 0
        try:
            watched = check()
            seen = stamps(watched)
            while self.polls is None or polls < self.polls:
                self.sleep(self.interval)
                polls += 1
                if stamps(watched) != seen:
                    announce("change detected; checking again")
                    watched = check()
                    seen = stamps(watched)
        except KeyboardInterrupt:
            pass


def stamps(paths: Collection[str]) -> Dict[str, Stamp]:
    """Each path's modification time (nanoseconds) and size; None for a path that is gone."""
    found: Dict[str, Stamp] = {}
    for path in paths:
        try:
            status = os.stat(path)
        except OSError:
            found[path] = None
        else:
            found[path] = (status.st_mtime_ns, status.st_size)
    return found
