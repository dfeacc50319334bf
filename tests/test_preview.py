"""The preview tier and the test-code settings: `--preview`, `preview`, `test-paths`, `lint-test-code`."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from torchlint.cli import main
from torchlint.engine.rule import all_rules
from torchlint.engine.cache import engine_fingerprint
from torchlint.engine.catalog import from_json, from_rules, to_json
from torchlint.engine.options import Options
from torchlint.engine.selection import Layer, expand, preview_warnings, stable

TRAIN = "import torch\nfor x in loader:\n    y = torch.zeros(3).cuda()\n    y.sum().backward()\n    print(y.sum().item())\n"
# TL101's preview variant: a loop that does not train (evaluation, here in a training script).
VALIDATE = "import torch\nfor x in loader:\n    print(model(x.cuda()).sum().item())\n"

pytestmark = pytest.mark.stable_only  # the gate itself is under test


@pytest.fixture
def preview_tl102(monkeypatch):
    """TL102 as the only preview rule for the duration of a test (the gate's mechanics; the
    shipped tiers are checked below)."""
    for rule in all_rules():
        monkeypatch.setattr(rule, "preview", rule.code == "TL102")


def check(*args):
    result = CliRunner().invoke(main, ["check", "--no-cache", "--output-format", "json", *args])
    codes = sorted({d["code"] for d in json.loads(result.stdout)}) if result.stdout.startswith("[") else None
    return result, codes


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "train.py").write_text(TRAIN)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_train.py").write_text(TRAIN)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_preview_rules_run_only_in_preview_mode(preview_tl102):
    catalog = from_rules()
    assert [info.code for info in catalog if info.preview] == ["TL102"]
    assert "TL102" not in stable(expand(["ALL"], catalog), catalog, preview=False)
    assert "TL102" in stable(expand(["ALL"], catalog), catalog, preview=True)
    assert "TL102" not in stable(expand(["TL102"], catalog), catalog, preview=False)


def test_naming_a_preview_rule_warns(preview_tl102):
    catalog = from_rules()
    assert len(preview_warnings([Layer("", ("TL102",))], catalog, preview=False)) == 1
    assert len(preview_warnings([Layer("", ("ALL",), ("device-after-creation",))], catalog, preview=False)) == 1
    assert preview_warnings([Layer("", ("TL1", "ALL"))], catalog, preview=False) == []
    assert preview_warnings([Layer("", ("TL102",))], catalog, preview=True) == []


def test_cli_preview_flag_and_setting(project, preview_tl102):
    result, codes = check("train.py")
    assert codes == ["TL101"] and "preview" not in result.stderr
    result, codes = check("--select", "TL102", "train.py")
    assert codes == [] and result.stderr.count("TL102 (device-after-creation) is a preview rule") == 1
    assert check("--preview", "train.py")[1] == ["TL101", "TL102"]
    (project / "pyproject.toml").write_text("[tool.torchlint]\npreview = true\n")
    assert check("train.py")[1] == ["TL101", "TL102"]


def test_a_stable_rule_reports_its_preview_variant_only_in_preview_mode(project):
    (project / "loop.py").write_text(VALIDATE)
    assert check("loop.py")[1] == [] and check("--preview", "loop.py")[1] == ["TL101"]
    for _ in range(2):  # the second round is answered by the cache, which keeps the modes apart
        for flags, expected in (((), []), (("--preview",), ["TL101"])):
            result = CliRunner().invoke(main, ["check", "--select", "TL101", "--output-format", "json", *flags, "loop.py"])
            assert [item["code"] for item in json.loads(result.stdout)] == expected
    variants = {rule.code for rule in all_rules() if rule.preview_variant}
    assert variants == {"TL101", "TL102", "TL103", "TL106", "TL201", "TL202", "TL203", "TL402"} and not any(rule.preview for rule in all_rules() if rule.preview_variant)
    assert "Preview variant" in CliRunner().invoke(main, ["rule", "TL101"]).stdout


def test_rule_listing_shows_the_tier(preview_tl102):
    listing = CliRunner().invoke(main, ["rule", "--all"]).stdout.splitlines()
    assert "preview" in next(line for line in listing if line.startswith("TL102"))
    assert "stable" in next(line for line in listing if line.startswith("TL101"))
    assert "Preview: runs only with --preview." in CliRunner().invoke(main, ["rule", "TL102"]).stdout


def test_test_code_settings(project):
    assert check("--preview", ".")[1] == ["TL101", "TL102"]
    result, _ = check("--preview", ".")
    assert all(not item["path"].startswith("tests") for item in json.loads(result.stdout))
    (project / "pyproject.toml").write_text("[tool.torchlint]\nlint-test-code = true\n")
    result, _ = check("--preview", ".")
    assert any(item["path"].startswith("tests") for item in json.loads(result.stdout))
    (project / "pyproject.toml").write_text('[tool.torchlint]\ntest-paths = ["train.py"]\n')
    result, _ = check("--preview", ".")
    assert {item["path"] for item in json.loads(result.stdout)} == {"tests/test_train.py"}


@pytest.mark.parametrize("body", ["preview = 1\n", 'lint-test-code = "yes"\n', 'test-paths = "tests/"\n'])
def test_invalid_settings_are_one_line_errors(project, body):
    (project / "pyproject.toml").write_text("[tool.torchlint]\n" + body)
    result, _ = check(".")
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1


def test_show_settings_names_the_new_keys_and_their_sources(project, monkeypatch):
    (project / "pyproject.toml").write_text('[tool.torchlint]\ntest-paths = ["qa/"]\nlint-test-code = true\n')
    monkeypatch.setenv("TORCHLINT_PREVIEW", "1")
    shown = CliRunner().invoke(main, ["check", "--show-settings", "train.py"]).stdout
    rows = {line.split()[0]: line for line in shown.splitlines()}
    assert rows["preview"].split()[1] == "true" and "TORCHLINT_PREVIEW" in rows["preview"]
    assert "['qa/']" in rows["test-paths"] and "pyproject.toml" in rows["test-paths"]
    assert rows["lint-test-code"].split()[1] == "true"


def test_preview_is_per_configuration_and_warned_once(tmp_path, monkeypatch, preview_tl102):
    for name in ("a", "b", "c"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "train.py").write_text(TRAIN)
        (tmp_path / name / "pyproject.toml").write_text('[tool.torchlint]\nextend-select = ["TL102"]\n')
    (tmp_path / "b" / "pyproject.toml").write_text('[tool.torchlint]\nextend-select = ["TL102"]\npreview = true\n')
    monkeypatch.chdir(tmp_path)
    result, _ = check("a", "b", "c")
    found = {(item["path"].split("/")[0], item["code"]) for item in json.loads(result.stdout)}
    assert ("b", "TL102") in found and ("a", "TL102") not in found
    assert result.stderr.count("is a preview rule") == 1


def test_rule_json_and_catalog_carry_the_tier(preview_tl102):
    items = json.loads(CliRunner().invoke(main, ["rule", "--all", "--output-format", "json"]).stdout)
    tiers = {item["code"]: (item["tier"], item["preview"]) for item in items}
    assert tiers["TL102"] == ("preview", True) and tiers["TL101"] == ("stable", False)
    catalog = from_rules()
    assert from_json(to_json(catalog)) == catalog


def test_test_code_options_are_part_of_the_cache_key():
    assert engine_fingerprint(Options()) != engine_fingerprint(Options(lint_test_code=True))
    assert engine_fingerprint(Options()) != engine_fingerprint(Options(test_paths=("qa/",)))


def test_rules_below_the_precision_bar_ship_in_preview():
    """The tiers docs/precision.md decides: stable rules measured at 0.90 or above (or with
    no finding to measure), preview rules below."""
    shipped = {rule.code for rule in all_rules() if rule.preview}
    assert shipped == {"TL105", "TL107", "TL109", "TL110", "TL302", "TL303", "TL304", "TL604"}
