"""The lint options that change what rules report (kept free of LibCST so that start-up is cheap)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Tuple

from torchlint.semantics.test_paths import DEFAULT_TEST_PATHS, path_is_test, superseded_path

# The PyTorch release the code is assumed to target when no `torch-version` is configured.
DEFAULT_TORCH_VERSION = (2, 13)


@dataclass(frozen=True)
class Options:
    """Settings that change what rules report."""

    torch_version: Tuple[int, int] = DEFAULT_TORCH_VERSION
    # Rules whose fixes are dropped (`unfixable`): their findings are reported without a fix.
    # Sorted, so that the repr (part of the cache key) is the same in every process.
    unfixable: Tuple[str, ...] = ()
    # Globs of test and benchmark files, which performance rules skip unless `lint_test_code`.
    test_paths: Tuple[str, ...] = DEFAULT_TEST_PATHS
    lint_test_code: bool = False
    # Preview mode: preview rules run, and stable rules also report their preview variants
    # (findings of a kind whose measured precision is below the bar, see `Rule.preview_variant`).
    preview: bool = False
    # `--ignore-noqa`: `# noqa` comments suppress nothing (and TL001 judges none).
    ignore_noqa: bool = False

    def skips_tests_in(self, path: str) -> bool:
        """Whether performance rules skip the file at `path` as test code, or as code its
        project keeps without running it (judged within its project, see
        `project.test_module` and `project.superseded_module`)."""
        if self.lint_test_code:
            return False
        test, kept = path_is_test(path, self.test_paths), superseded_path(path)
        if not (test or kept):
            return False  # cheap first: the path within the project is a part of this one
        from torchlint.semantics.project import superseded_module, test_module  # imported on use: start-up stays cheap

        return (test and test_module(path, self.test_paths)) or (kept and superseded_module(path))
