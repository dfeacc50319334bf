"""`torchlint check` never imports torch, so torchlint.reference stays out of it."""

import json
import subprocess
import sys

import pytest

pytest.importorskip("torch")

CHECK_THEN_LIST_MODULES = """
import json, sys
from torchlint.cli import main
try:
    main(["check", "--no-cache", sys.argv[1]])
except SystemExit:
    pass
with open(sys.argv[2], "w") as output:
    json.dump(sorted(sys.modules), output)
"""


def test_check_imports_neither_torch_nor_the_reference_package(tmp_path):
    source, modules = tmp_path / "train.py", tmp_path / "modules.json"
    source.write_text("import torch\nfor x in loader:\n    total += loss.item()\n")
    command = [sys.executable, "-c", CHECK_THEN_LIST_MODULES, str(source), str(modules)]
    result = subprocess.run(command, check=False, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    loaded = json.loads(modules.read_text())
    assert "torchlint.engine.linter" in loaded
    assert [name for name in loaded if name.split(".")[0] == "torch" or name.startswith("torchlint.reference")] == []
