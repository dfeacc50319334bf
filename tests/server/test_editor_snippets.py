"""docs/editors.md shows the editor configurations that editors/headless/run.sh tries."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from torchlint.cli import main

ROOT = Path(__file__).resolve().parents[2]
HEADLESS = ROOT / "editors" / "headless"
SNIPPETS = ("nvim-0.11.lua", "nvim-0.8.lua", "nvim-0.7.lua", "nvim-lspconfig.lua", "nvim-lsp-file.lua", "lsp/torchlint.lua", "eglot.el")


def _fenced_blocks(text: str) -> list[str]:
    return [block.strip("\n") for block in re.findall(r"^```[a-z]*\n(.*?)^```$", text, flags=re.S | re.M)]


@pytest.mark.parametrize("name", SNIPPETS)
def test_each_tried_configuration_is_a_snippet_of_the_page(name: str) -> None:
    blocks = _fenced_blocks((ROOT / "docs" / "editors.md").read_text())
    assert (HEADLESS / name).read_text().strip("\n") in blocks


def test_the_script_runs_every_configuration() -> None:
    script = (HEADLESS / "run.sh").read_text()
    for name in SNIPPETS:
        if "/" not in name:  # lsp/torchlint.lua is found on the runtime path, by nvim-lsp-file.lua
            assert Path(name).stem in script


@pytest.mark.stable_only
def test_the_diagnostics_the_page_lists_are_what_torchlint_check_finds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """run.sh checks a copy of examples/train.py, outside any configuration, with the defaults."""
    page = (ROOT / "docs" / "editors.md").read_text()
    found = re.search(r"Every editor showed the same (\d+) findings.*?^```text\n(.*?)^```$", page, flags=re.S | re.M)
    assert found is not None
    shutil.copy(ROOT / "examples" / "train.py", tmp_path)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check", "--no-cache", "--output-format", "json", "train.py"])
    findings = [f"{item['line']}:{item['column']} {item['code']}" for item in json.loads(result.stdout)]
    assert found.group(2).splitlines() == findings and int(found.group(1)) == len(findings)
