"""Code role: test and benchmark code, by path and by content; performance rules skip it."""

from __future__ import annotations

import textwrap

import pytest

from torchlint.engine.linter import lint_text
from torchlint.engine.rule import all_rules
from torchlint.semantics.roles import is_profiling_script
from torchlint.semantics.test_paths import path_is_test
from conftest import preview_options

SYNC = "import torch\nfor x in loader:\n    print(model(x.cuda()).item())\n"


@pytest.mark.parametrize(
    "path",
    [
        "tests/test_model.py",
        "pkg/tests/helpers.py",
        "test/models.py",
        "test_train.py",
        "src/model_test.py",
        "test.py",
        "unit_test.py",
        "testing.py",
        "conftest.py",
        "benchmarks/speed.py",
        "./tools/benchmark/run.py",
    ],
)
def test_test_and_benchmark_paths(path):
    assert path_is_test(path)


@pytest.mark.parametrize("path", ["train.py", "testament/train.py", "latest.py", "contest.py", "models/tester.py", "attest_utils.py"])
def test_training_paths(path):
    assert not path_is_test(path)


def test_configured_globs_replace_the_defaults():
    assert path_is_test("qa/check_model.py", ("qa/",))
    assert path_is_test("src/pkg/slow_checks.py", ("src/*/slow_*.py",))
    assert not path_is_test("tests/test_model.py", ("qa/",))


def findings(code: str, path: str = "train.py", **options) -> list:
    rules = [rule for rule in all_rules() if rule.code in ("TL101", "TL001")]
    return [f.code for f in lint_text(textwrap.dedent(code), path, rules, preview_options(**options)).findings]


def test_performance_rules_skip_test_files_unless_asked():
    assert findings(SYNC, "train.py") == ["TL101"]
    assert findings(SYNC, "tests/test_train.py") == []
    assert findings(SYNC, "tests/test_train.py", lint_test_code=True) == ["TL101"]
    assert findings(SYNC, "tests/test_train.py", test_paths=("qa/",)) == ["TL101"]


TRAINS = """
import torch
for x, y in loader:
    loss = criterion(model(x.cuda()), y.cuda())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(loss.item())
"""


@pytest.mark.parametrize("path", ["mnist_test.py", "src/cifar_test.py", "test.py", "test_train.py"])
def test_a_training_script_with_a_test_file_name_is_a_training_script(path):
    assert findings(TRAINS, path) == ["TL101"]


@pytest.mark.parametrize(
    "code, path",
    [
        (TRAINS, "tests/mnist_test.py"),  # a test directory decides alone
        (TRAINS + "\ndef test_converges():\n    pass\n", "mnist_test.py"),
        ("import pytest\n" + TRAINS, "mnist_test.py"),
        (TRAINS.replace("    optimizer.step()\n", ""), "mnist_test.py"),  # no optimizer step: not training
        (TRAINS.replace("    loss.backward()\n", ""), "mnist_test.py"),
    ],
)
def test_test_files_stay_test_code_unless_they_train(code, path):
    assert findings(code, path) == []


def test_noqa_in_skipped_test_files_is_not_unused():
    code = "import torch\nfor x in loader:\n    print(model(x.cuda()).item())  # noqa: TL101\n"
    assert findings(code, "tests/test_train.py") == []


def test_test_content_in_any_file():
    code = """
    import torch
    import unittest

    class TestModel(unittest.TestCase):
        def test_forward(self):
            for x in loader:
                print(model(x.cuda()).item())

    def test_cuda_sum():
        for x in loader:
            print(model(x.cuda()).item())

    def test_epoch(model, loader):
        for x in loader:
            print(model(x.cuda()).item())
    """
    assert findings(code) == ["TL101"]


def test_a_module_importing_pytest_is_test_code():
    code = "import pytest\n" + SYNC
    assert findings(code) == []


@pytest.mark.parametrize(
    "path",
    ["profile_model.py", "tools/profiling/run.py", "bench/train.py", "benchmark.py", "scripts/timing.py", "perf/step.py", "measure_throughput.py"],
)
def test_profiling_scripts(path):
    assert is_profiling_script(path)


@pytest.mark.parametrize("path", ["train.py", "profiles/train.py", "src/models/resnet.py", "improfiler/train.py", "speedy_net.py"])
def test_training_scripts_are_not_profiling_scripts(path):
    assert not is_profiling_script(path)
