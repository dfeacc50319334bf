"""The server's pieces that need no client: editor settings, file setup, cache, hover text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("pygls")

from torchlint.config import ConfigError  # noqa: E402
from torchlint.engine.rule import Rule  # noqa: E402
from torchlint.engine.cache import CACHE_DIR_NAME  # noqa: E402
from torchlint.server.documents import Caches, Part, Snapshot, lint  # noqa: E402
from torchlint.server.rule_docs import hover_text, measured_cost  # noqa: E402
from torchlint.server.settings import EditorSettings, setup_for  # noqa: E402


def test_editor_settings_accept_every_key_spelling() -> None:
    for key in ("unsafeFixes", "unsafe-fixes", "unsafe_fixes"):
        assert EditorSettings.parse({key: True}).unsafe_fixes
    parsed = EditorSettings.parse({"select": "TL1, TL401", "ignore": ["TL101"], "preview": True})
    assert parsed == EditorSettings(("TL1", "TL401"), ("TL101",), True, False)
    assert EditorSettings.parse(None) == EditorSettings()


def test_editor_settings_read_extend_select_and_a_configuration_path_and_name_unknown_keys(tmp_path: Path) -> None:
    parsed = EditorSettings.parse({"extendSelect": ["TL401"], "configuration": "ci/torchlint.toml", "selct": ["TL1"]}, tmp_path)
    assert parsed.extend_select == ("TL401",) and parsed.configuration == tmp_path / "ci" / "torchlint.toml"
    assert parsed.unknown == ("selct",)
    assert EditorSettings.parse({"extend_select": "TL1", "configuration": str(tmp_path / "a.toml")}, Path("/elsewhere")) == EditorSettings(
        extend_select=("TL1",), configuration=tmp_path / "a.toml"
    )
    assert EditorSettings.parse({"configuration": ""}).configuration is None


@pytest.mark.parametrize("raw", [{"select": 3}, {"preview": "yes"}, {"unsafeFixes": 1}, ["TL101"], {"extendSelect": [1]}, {"configuration": ["a.toml"]}])
def test_editor_settings_of_the_wrong_type_are_refused(raw: object) -> None:
    with pytest.raises(ConfigError, match="torchlint settings"):
        EditorSettings.parse(raw)


def test_editor_select_replaces_and_ignore_adds_to_the_file_configuration(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.torchlint]\nselect = ["TL1"]\nignore = ["TL102"]\nper-file-ignores = { "scripts/*" = ["TL103"] }\n'
    )
    script = tmp_path / "scripts" / "train.py"
    from_file = setup_for(script, EditorSettings(preview=True))
    assert "TL101" in from_file.codes and not {"TL102", "TL103", "TL401"} & from_file.codes
    assert from_file.cache_dir == tmp_path / CACHE_DIR_NAME
    edited = setup_for(script, EditorSettings(select=("TL101", "TL102", "TL401"), ignore=("TL401",), preview=True, unsafe_fixes=True))
    # Layered as on the command line: the editor's `select` starts a new selection, which the
    # file's `ignore` no longer trims; the editor's `ignore` does.
    assert edited.codes == {"TL101", "TL102"} and edited.unsafe_fixes
    with pytest.raises(ConfigError, match="unknown rule selector"):
        setup_for(script, EditorSettings(select=("TL999",)))


def test_editor_extend_select_adds_and_configuration_replaces_the_closest_file(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.torchlint]\nselect = ["TL1"]\n')
    (tmp_path / "team.toml").write_text('select = ["TL4"]\n')
    script = tmp_path / "train.py"
    extended = setup_for(script, EditorSettings(preview=True, extend_select=("TL602",)))
    assert "TL101" in extended.codes and "TL602" in extended.codes and "TL401" not in extended.codes
    team = setup_for(script, EditorSettings(preview=True, configuration=tmp_path / "team.toml"))
    assert "TL401" in team.codes and "TL101" not in team.codes
    with pytest.raises(ConfigError, match="configuration file not found"):
        setup_for(script, EditorSettings(configuration=tmp_path / "missing.toml"))


def test_hover_has_summary_why_and_measured_cost() -> None:
    rule = Rule._registry["TL101"]
    text = hover_text(rule, "file:///TL101.md")
    assert text.startswith("**TL101 sync-in-loop** (warning, impact: high, fix: unsafe)")
    assert "**Why is this slow?**" in text and "[Documentation](file:///TL101.md)" in text
    assert measured_cost("Intro.\n\nMeasured: 1.18x faster on an H100.\n") == "1.18x faster on an H100."
    assert measured_cost("## Measured on GPUs\n1.2x on H100\n\n## Example\nx\n") == "1.2x on H100"
    assert measured_cost("## Why is this slow?\nIt syncs.\n") is None


def test_a_buffer_that_matches_the_disk_goes_through_the_result_cache(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.torchlint]\n")
    path = tmp_path / "train.py"
    text = "import torch\nfor x in loader:\n    x = x.cuda()\n    print(x.item())\n"
    path.write_text(text)
    setup = setup_for(path, EditorSettings(preview=True))
    snapshot = Snapshot(path, (Part(path.as_uri(), text, 1),))
    first = lint(snapshot, setup, Caches())
    assert [f.code for f in first[path.as_uri()]] == ["TL101"]
    (cache_file,) = (tmp_path / CACHE_DIR_NAME).glob("results-*.json")
    # Mark the stored finding: a later lint of the same text must come from the cache.
    stored = json.loads(cache_file.read_text())
    stored["entries"][str(path)]["findings"][0]["message"] = "from the cache"
    cache_file.write_text(json.dumps(stored))
    assert [f.message for f in lint(snapshot, setup, Caches())[path.as_uri()]] == ["from the cache"]
    edited = Snapshot(path, (Part(path.as_uri(), text.replace("print(x.item())", "pass"), 2),))
    assert lint(edited, setup, Caches()) == {path.as_uri(): ()}


def test_no_cache_is_written_beside_a_file_no_configuration_governs(tmp_path: Path) -> None:
    path = tmp_path / "site-packages" / "lib.py"
    path.parent.mkdir()
    path.write_text("import torch\nfor x in loader:\n    x = x.cuda()\n    print(x.item())\n")
    setup = setup_for(path, EditorSettings(preview=True))
    assert setup.cache_dir is None
    found = lint(Snapshot(path, (Part(path.as_uri(), path.read_text(), 1),)), setup, Caches())
    assert [f.code for f in found[path.as_uri()]] == ["TL101"]
    assert sorted(p.name for p in path.parent.iterdir()) == ["lib.py"]


def test_files_the_configuration_excludes_get_no_diagnostics(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.torchlint]\nextend-exclude = ["generated"]\n')
    for name in ("train.py", "generated/model.py", ".venv/lib/torch_util.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("import torch\n")
    excluded = {name: setup_for(tmp_path / name, EditorSettings()).excluded for name in ("train.py", "generated/model.py", ".venv/lib/torch_util.py")}
    assert excluded == {"train.py": False, "generated/model.py": True, ".venv/lib/torch_util.py": True}
    assert not setup_for(tmp_path / "unsaved.py", EditorSettings()).excluded
