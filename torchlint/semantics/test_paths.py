"""Which files are test or benchmark code by their path, and which a project keeps without
running them (kept free of LibCST: the configuration uses it, and start-up must stay cheap)."""

from __future__ import annotations

import fnmatch
from typing import Sequence

# Glob patterns of test and benchmark files. A pattern ending in `/` names a directory
# anywhere in the path; one without `/` matches the file name; others match the path.
DEFAULT_TEST_PATHS = (
    "tests/",
    "test/",
    "testing/",
    "benchmarks/",
    "benchmark/",
    "test_*.py",
    "*_test.py",
    "*_tests.py",
    "test.py",
    "tests.py",
    "unit_test.py",
    "testing.py",
    "conftest.py",
    "bench.py",
    "benchmark.py",
    "bench_*.py",
    "benchmark_*.py",
    "*_benchmark.py",
)


# Directories a project keeps code in that it does not run: superseded copies, experiments and
# backups (`temp/`, `archive/`, `scratch/`, ...). Their files are treated as test code is.
SUPERSEDED_DIRECTORIES = frozenset(
    {"archive", "archived", "attic", "backup", "backups", "deprecated", "obsolete", "scratch", "temp", "tmp", "trash", "unused"}
)


def superseded_path(path: str) -> bool:
    """Whether a directory of `path` (as given) is one a project keeps unrun code in."""
    parts = [part for part in path.replace("\\", "/").split("/") if part not in ("", ".")]
    return any(part.lower() in SUPERSEDED_DIRECTORIES for part in parts[:-1])


def path_is_test(path: str, patterns: Sequence[str] = DEFAULT_TEST_PATHS) -> bool:
    """Whether `path` (as given on the command line) matches one of the test-path globs."""
    return test_by_name_only(path, patterns) is not None


def test_by_name_only(path: str, patterns: Sequence[str] = DEFAULT_TEST_PATHS) -> "bool | None":
    """None when `path` matches no test-path glob; True when only globs of test file names match
    it (`train_test.py` outside any test directory), False when a directory or path glob or the
    glob of a benchmark's name does."""
    normalised = path.replace("\\", "/")
    parts = [part for part in normalised.split("/") if part not in ("", ".")]
    if not parts:
        return None
    by_name = False
    for pattern in patterns:
        if pattern.endswith("/"):
            directory = pattern.rstrip("/")
            if any(fnmatch.fnmatchcase(part, directory) for part in parts[:-1]):
                return False
        elif "/" not in pattern:
            if fnmatch.fnmatchcase(parts[-1], pattern):
                if "test" not in pattern.lower():
                    return False  # a benchmark's name: a loop that trains is what it times
                by_name = True
        else:
            pattern = pattern[2:] if pattern.startswith("./") else pattern
            if any(fnmatch.fnmatchcase("/".join(parts[index:]), pattern) for index in range(len(parts))):
                return False
    return True if by_name else None
