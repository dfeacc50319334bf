"""Output formats through the real CLI: severity in the text and JSON formats; github, sarif,
junit, json-lines, gitlab, rdjson, pylint and grouped."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Dict, List, Type
from urllib.parse import unquote

import jsonschema
import pytest
from click.testing import CliRunner, Result

from torchlint import __version__
from torchlint.cli import main
from torchlint.engine.findings import Finding
from torchlint.output import Report
from torchlint.output.github import annotation, escape_data, escape_property
from torchlint.output.junit import format_junit
from torchlint.engine.rule import Rule, all_rules

DATA = Path(__file__).parent / "data"
SCHEMA = json.loads((DATA / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
# Written from GitLab's documentation of the Code Quality report and reviewdog's
# DiagnosticResult proto and JSON schema; each file's `$comment` cites its source.
GITLAB_SCHEMA = json.loads((DATA / "gitlab-code-quality-schema.json").read_text(encoding="utf-8"))
RDJSON_SCHEMA = json.loads((DATA / "rdjson-schema.json").read_text(encoding="utf-8"))
ZERO_GRAD = "import torch\noptimizer.zero_grad(set_to_none=False)\n"
DATA_PARALLEL = "import torch.nn as nn\nm = nn.DataParallel(x, device_ids=[0, 1])\n"
LOADER = "import torch\nloader = torch.utils.data.DataLoader(ds)\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "zg.py").write_text(ZERO_GRAD)
    (tmp_path / "dp.py").write_text(DATA_PARALLEL)
    (tmp_path / "clean.py").write_text("import torch\nx = torch.zeros(3)\n")
    return tmp_path


def check(output_format: str, *args: str) -> Result:
    return CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--output-format", output_format, *args])


def as_json(*args: str) -> List[Dict[str, object]]:
    return json.loads(check("json", *args).stdout)


def rule_class(code: str) -> Type[Rule]:
    return next(rule for rule in all_rules() if rule.code == code)


def sarif(*args: str) -> Dict:
    result = check("sarif", *args)
    log = json.loads(result.stdout)
    jsonschema.validators.validator_for(SCHEMA)(SCHEMA).validate(log)
    return log


def finding(message: str = "msg", path: str = "a.py") -> Finding:
    return Finding("TL401", "grad-zeroing", message, path, 3, 5, 4, 2)


# --- github ---


def test_escape_data_as_the_actions_toolkit():
    assert escape_data("100% done\r\nnext: a, b") == "100%25 done%0D%0Anext: a, b"
    assert escape_data("%0A") == "%250A"


def test_escape_property_also_escapes_colon_and_comma():
    assert escape_property("C:\\x,y%\n") == "C%3A\\x%2Cy%25%0A"


def test_annotation_escapes_message_and_properties():
    line = annotation(finding("two\nlines, 50%: ok", "dir,a/b:c%.py"), "warning")
    assert line == (
        "::warning file=dir%2Ca/b%3Ac%25.py,line=3,col=5,endLine=4,endColumn=2,"
        "title=TL401 grad-zeroing::two%0Alines, 50%25: ok"
    )


def test_github_output(project: Path):
    result = check("github", "zg.py", "dp.py")
    assert result.exit_code == 1
    messages = {item["code"]: item["message"] for item in as_json("zg.py", "dp.py")}
    assert result.stdout.splitlines() == [
        f"::warning file=dp.py,line=2,col=5,endLine=2,endColumn=42,title=TL501 data-parallel::{messages['TL501']}",
        f"::warning file=zg.py,line=2,col=1,endLine=2,endColumn=39,title=TL401 grad-zeroing::{messages['TL401']}",
    ]


def test_github_escapes_paths_from_the_cli(project: Path):
    (project / "we,ird").mkdir()
    (project / "we,ird" / "z:100%.py").write_text(ZERO_GRAD)
    result = check("github", "we,ird")
    assert result.stdout.startswith("::warning file=we%2Cird/z%3A100%25.py,line=2,col=1,")


def test_github_paths_are_relative_to_the_working_directory(project: Path):
    result = check("github", str(project / "zg.py"))
    assert result.stdout.startswith("::warning file=zg.py,")


@pytest.mark.parametrize("severity, command", [("error", "error"), ("info", "notice"), ("warning", "warning")])
def test_github_command_follows_rule_severity(project: Path, monkeypatch: pytest.MonkeyPatch, severity: str, command: str):
    monkeypatch.setattr(rule_class("TL401"), "severity", severity, raising=False)
    assert check("github", "--select", "ALL", "zg.py").stdout.startswith(f"::{command} file=zg.py,")


def test_github_prints_nothing_without_findings(project: Path):
    result = check("github", "clean.py")
    assert (result.exit_code, result.stdout) == (0, "")


# --- sarif ---


def test_sarif_is_valid_and_describes_every_rule(project: Path):
    log = sarif("zg.py", "dp.py")
    assert log["version"] == "2.1.0"
    assert log["$schema"].endswith("sarif-schema-2.1.0.json")
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["semanticVersion"]) == ("torchlint", __version__)
    rules = all_rules()
    assert [item["id"] for item in driver["rules"]] == [rule.code for rule in rules]
    for descriptor, rule in zip(driver["rules"], rules):
        assert descriptor["name"] == rule.name
        assert descriptor["shortDescription"]["text"] == rule.summary
        assert descriptor["help"] == {"text": rule.documentation(), "markdown": rule.documentation()}
        assert descriptor["fullDescription"]["text"] and not descriptor["fullDescription"]["text"].startswith("#")
        assert descriptor["defaultConfiguration"]["level"] == {"error": "error", "warning": "warning", "info": "note"}[rule.severity]
        assert descriptor["properties"] == {"fixApplicability": rule.fix_applicability.value, "impact": rule.impact}


def test_sarif_results(project: Path):
    log = sarif("zg.py", "dp.py")
    (run,) = log["runs"]
    expected = as_json("zg.py", "dp.py")
    assert len(run["results"]) == len(expected) == 2
    for result, item in zip(run["results"], expected):
        assert result["ruleId"] == item["code"]
        assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == item["code"]
        assert result["level"] == "warning"
        assert result["properties"] == {"impact": item["impact"]}
        assert result["message"]["text"] == item["message"]
        (location,) = result["locations"]
        physical = location["physicalLocation"]
        assert physical["artifactLocation"] == {"uri": item["path"], "uriBaseId": "%SRCROOT%"}
        assert physical["region"] == {
            "startLine": item["line"],
            "startColumn": item["column"],
            "endLine": item["end_line"],
            "endColumn": item["end_column"],
        }
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == project.resolve().as_uri() + "/"


def apply_sarif_fix(text: str, fix: Dict) -> str:
    """Apply single-line replacements of a SARIF fix, last first."""
    lines = text.splitlines(keepends=True)
    (change,) = fix["artifactChanges"]
    for replacement in reversed(change["replacements"]):
        region = replacement["deletedRegion"]
        assert region["startLine"] == region["endLine"]
        line = lines[region["startLine"] - 1]
        start, end = region["startColumn"] - 1, region["endColumn"] - 1
        lines[region["startLine"] - 1] = line[:start] + replacement["insertedContent"]["text"] + line[end:]
    return "".join(lines)


def test_sarif_fix_matches_the_fix_command(project: Path):
    results = {r["ruleId"]: r for r in sarif("--unsafe-fixes", "zg.py", "dp.py")["runs"][0]["results"]}
    assert "fixes" not in results["TL501"]
    (fix,) = results["TL401"]["fixes"]
    assert fix["artifactChanges"][0]["artifactLocation"]["uri"] == "zg.py"
    assert check("json", "--fix", "--unsafe-fixes", "zg.py").exit_code == 0
    assert apply_sarif_fix(ZERO_GRAD, fix) == (project / "zg.py").read_text() == "import torch\noptimizer.zero_grad()\n"


def test_sarif_unsafe_fixes_only_with_the_flag(project: Path):
    (project / "dl.py").write_text(LOADER)
    assert "fixes" not in sarif("dl.py")["runs"][0]["results"][0]
    (fix,) = sarif("--unsafe-fixes", "dl.py")["runs"][0]["results"][0]["fixes"]
    assert "num_workers=4" in apply_sarif_fix(LOADER, fix)


@pytest.mark.parametrize("severity, level", [("error", "error"), ("info", "note")])
def test_sarif_level_follows_rule_severity(project: Path, monkeypatch: pytest.MonkeyPatch, severity: str, level: str):
    monkeypatch.setattr(rule_class("TL401"), "severity", severity, raising=False)
    run = sarif("--select", "ALL", "zg.py")["runs"][0]
    descriptor = next(item for item in run["tool"]["driver"]["rules"] if item["id"] == "TL401")
    assert descriptor["defaultConfiguration"]["level"] == run["results"][0]["level"] == level


def test_sarif_uri_is_a_relative_posix_uri(project: Path):
    (project / "sub dir").mkdir()
    (project / "sub dir" / "a:100%.py").write_text(ZERO_GRAD)
    for argument in ("sub dir", str(project / "sub dir" / "a:100%.py")):
        location = sarif(argument)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
        assert location["uriBaseId"] == "%SRCROOT%"
        assert location["uri"] == "sub%20dir/a%3A100%25.py"
        assert unquote(location["uri"]) == "sub dir/a:100%.py"


def test_sarif_uri_outside_the_working_directory_is_absolute(project: Path, monkeypatch: pytest.MonkeyPatch):
    (project / "elsewhere").mkdir()
    monkeypatch.chdir(project / "elsewhere")
    location = sarif(str(project / "zg.py"))["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": (project / "zg.py").as_uri()}


def fingerprints(*args: str) -> List[str]:
    return [r["partialFingerprints"]["torchlint/v1"] for r in sarif(*args)["runs"][0]["results"]]


def test_sarif_fingerprints_survive_line_moves(project: Path):
    before = fingerprints("zg.py")
    (project / "zg.py").write_text("import torch\n\n# a comment\n\n" + ZERO_GRAD.split("\n", 1)[1])
    results = sarif("zg.py")["runs"][0]["results"]
    assert results[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 5
    assert fingerprints("zg.py") == before


def test_sarif_fingerprints_count_duplicates(project: Path):
    (project / "twice.py").write_text(ZERO_GRAD + "optimizer.zero_grad(set_to_none=False)\n")
    first, second = fingerprints("twice.py")
    assert first.split(":") == [second.split(":")[0], "1"]
    assert second.endswith(":2")


def test_sarif_fingerprints_depend_on_rule_path_and_line_text(project: Path):
    (project / "copy.py").write_text(ZERO_GRAD)
    (project / "other.py").write_text("import torch\nopt.zero_grad(set_to_none=False)\n")
    hashes = {fingerprints(name)[0] for name in ("zg.py", "copy.py", "other.py")}
    assert len(hashes) == 3


def test_sarif_without_findings(project: Path):
    result = check("sarif", "clean.py")
    assert result.exit_code == 0
    log = json.loads(result.stdout)
    jsonschema.validators.validator_for(SCHEMA)(SCHEMA).validate(log)
    assert log["runs"][0]["results"] == []
    assert len(log["runs"][0]["tool"]["driver"]["rules"]) == len(all_rules())


# --- junit ---


def test_junit_output(project: Path):
    result = check("junit", "zg.py", "dp.py")
    assert result.exit_code == 1
    root = ET.fromstring(result.stdout)
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    assert suite.get("name") == "torchlint"
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("2", "2", "0")
    cases = suite.findall("testcase")
    for case, item in zip(cases, as_json("zg.py", "dp.py")):
        assert case.get("classname") == case.get("file") == item["path"]
        assert case.get("line") == str(item["line"])
        assert case.get("name").startswith(f"{item['code']} {item['name']}")
        failure = case.find("failure")
        assert failure.get("message") == item["message"]
        assert failure.get("type") == "warning"
        assert failure.text.startswith(f"{item['path']}:{item['line']}:{item['column']}: {item['code']} ")
    assert len(cases) == 2


def test_junit_escapes_markup_in_paths(project: Path):
    (project / 'a<&">.py').write_text(ZERO_GRAD)
    case = ET.fromstring(check("junit", 'a<&">.py').stdout).find("testsuite/testcase")
    assert case.get("classname") == 'a<&">.py'


def test_junit_escapes_markup_newlines_and_control_characters():
    message = 'use <b> & "q"\nsecond line\x1b\x00'
    report = Report([finding(message, "x.py")], {}, unsafe_fixes=False, color=False)
    failure = ET.fromstring(format_junit(report)).find("testsuite/testcase/failure")
    assert failure.get("message") == 'use <b> & "q"\nsecond line\ufffd\ufffd'
    assert failure.text.endswith('use <b> & "q"\nsecond line\ufffd\ufffd')


def test_junit_without_findings(project: Path):
    root = ET.fromstring(check("junit", "clean.py").stdout)
    suite = root.find("testsuite")
    assert suite.get("tests") == "0" and suite.findall("testcase") == []


# --- json-lines ---


def test_json_lines_match_json(project: Path):
    result = check("json-lines", "zg.py", "dp.py")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert [json.loads(line) for line in lines] == as_json("zg.py", "dp.py")
    assert len(lines) == 2


def test_json_lines_without_findings(project: Path):
    assert check("json-lines", "clean.py").stdout == ""


# --- severity in the text and JSON formats ---

SEVERITY_COLOURS = {"error": "\x1b[31m", "warning": "\x1b[33m", "info": "\x1b[36m"}


@pytest.mark.parametrize("severity", ["error", "warning", "info"])
def test_text_formats_name_the_severity(project: Path, monkeypatch: pytest.MonkeyPatch, severity: str):
    monkeypatch.setattr(rule_class("TL401"), "severity", severity, raising=False)
    for output_format in ("full", "concise", "grouped"):
        assert f"TL401 {severity}: `zero_grad" in check(output_format, "--select", "ALL", "zg.py").stdout
    item = as_json("--select", "ALL", "zg.py")[0]
    assert item["severity"] == severity


@pytest.mark.parametrize("severity", ["error", "warning", "info"])
def test_colour_follows_the_severity(project: Path, monkeypatch: pytest.MonkeyPatch, severity: str):
    monkeypatch.setattr(rule_class("TL401"), "severity", severity, raising=False)
    coloured = check("full", "--select", "ALL", "--color", "always", "zg.py").stdout
    assert f"{SEVERITY_COLOURS[severity]}\x1b[1mTL401" in coloured
    assert f"{SEVERITY_COLOURS[severity]}\x1b[1m{severity}" in coloured
    others = set(SEVERITY_COLOURS.values()) - {SEVERITY_COLOURS[severity]}
    assert not any(colour in coloured for colour in others)
    plain = CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", "ALL", "zg.py"], env={"NO_COLOR": "1"}).stdout
    assert "\x1b[" not in plain and f"TL401 {severity}:" in plain


def test_json_severity_is_the_rules(project: Path):
    rules = {rule.code: rule for rule in all_rules()}
    items = as_json("zg.py", "dp.py")
    assert items and all(item["severity"] == rules[item["code"]].severity for item in items)


# --- pylint and grouped ---


def test_pylint_output(project: Path):
    result = check("pylint", "zg.py", "dp.py")
    assert result.exit_code == 1
    expected = [f"{item['path']}:{item['line']}: [{item['code']}] {item['message']}" for item in as_json("zg.py", "dp.py")]
    assert result.stdout.splitlines() == expected


def test_grouped_output_lists_findings_under_each_file(project: Path):
    (project / "both.py").write_text(ZERO_GRAD + DATA_PARALLEL)
    result = check("grouped", "both.py", "zg.py")
    assert result.exit_code == 1
    blocks = result.stdout.split("\n\n")
    assert blocks[0].splitlines()[0] == "both.py:"
    assert [line.split()[:2] for line in blocks[0].splitlines()[1:]] == [["2:1", "TL401"], ["4:5", "TL501"]]
    assert blocks[1].splitlines()[0] == "zg.py:" and blocks[1].splitlines()[1].startswith("  2:1 TL401 warning: ")


# --- gitlab ---


def gitlab(*args: str) -> List[Dict]:
    issues = json.loads(check("gitlab", *args).stdout)
    jsonschema.validators.validator_for(GITLAB_SCHEMA)(GITLAB_SCHEMA).validate(issues)
    return issues


def test_gitlab_validates_and_matches_the_findings(project: Path):
    (project / "twice.py").write_text(ZERO_GRAD + "optimizer.zero_grad(set_to_none=False)\n")
    issues = gitlab("zg.py", "dp.py", "twice.py")
    expected = as_json("zg.py", "dp.py", "twice.py")
    assert len(issues) == len(expected) == 4
    for issue, item in zip(issues, expected):
        assert issue["check_name"] == f"{item['code']} {item['name']}"
        assert issue["description"] == f"{item['code']} {item['message']}"
        assert issue["location"] == {"path": item["path"], "lines": {"begin": item["line"]}}
        assert issue["severity"] == "major"
    # GitLab shows one issue per fingerprint: two identical lines need two.
    assert len({issue["fingerprint"] for issue in issues}) == 4


def test_gitlab_fingerprints_survive_line_moves(project: Path):
    before = gitlab("zg.py")[0]["fingerprint"]
    (project / "zg.py").write_text("\n\n" + ZERO_GRAD)
    assert gitlab("zg.py")[0]["fingerprint"] == before


@pytest.mark.parametrize("severity, expected", [("error", "critical"), ("warning", "major"), ("info", "info")])
def test_gitlab_severity_follows_rule_severity(project: Path, monkeypatch: pytest.MonkeyPatch, severity: str, expected: str):
    monkeypatch.setattr(rule_class("TL401"), "severity", severity, raising=False)
    assert gitlab("--select", "ALL", "zg.py")[0]["severity"] == expected


def test_gitlab_without_findings_is_an_empty_list(project: Path):
    assert gitlab("clean.py") == []


# --- rdjson ---


def rdjson(*args: str) -> Dict:
    result = json.loads(check("rdjson", *args).stdout)
    jsonschema.validators.validator_for(RDJSON_SCHEMA)(RDJSON_SCHEMA).validate(result)
    return result


def test_rdjson_validates_and_matches_the_findings(project: Path):
    result = rdjson("zg.py", "dp.py")
    assert result["source"] == {"name": "torchlint"}
    expected = as_json("zg.py", "dp.py")
    assert len(result["diagnostics"]) == len(expected) == 2
    for diagnostic, item in zip(result["diagnostics"], expected):
        assert diagnostic["message"] == item["message"]
        assert diagnostic["code"] == {"value": item["code"], "url": item["url"]}
        assert diagnostic["severity"] == "WARNING"
        span = {"start": {"line": item["line"], "column": item["column"]}, "end": {"line": item["end_line"], "column": item["end_column"]}}
        assert diagnostic["location"] == {"path": item["path"], "range": span}


def test_rdjson_columns_count_utf8_bytes_and_suggestions_follow_unsafe_fixes(project: Path):
    (project / "u.py").write_text("import torch\n\u00e9 = 1; optimizer.zero_grad(set_to_none=False)\n")
    (diagnostic,) = rdjson("u.py")["diagnostics"]
    # "é = 1; " is 7 characters and 8 bytes: the call starts at character 8, byte 9.
    assert diagnostic["location"]["range"] == {"start": {"line": 2, "column": 9}, "end": {"line": 2, "column": 47}}
    assert "suggestions" not in diagnostic  # TL401's fix is unsafe
    (diagnostic,) = rdjson("--unsafe-fixes", "u.py")["diagnostics"]
    assert diagnostic["suggestions"] == [{"range": diagnostic["location"]["range"], "text": "optimizer.zero_grad()"}]


def test_rdjson_finding_over_several_lines_ends_after_its_last_line(project: Path):
    (project / "m.py").write_text("import torch.nn as nn\nm = nn.DataParallel(\n    x, device_ids=[0, 1])\n")
    (diagnostic,) = rdjson("m.py")["diagnostics"]
    assert diagnostic["location"]["range"] == {"start": {"line": 2, "column": 5}, "end": {"line": 4, "column": 1}}


@pytest.mark.parametrize("severity, expected", [("error", "ERROR"), ("warning", "WARNING"), ("info", "INFO")])
def test_rdjson_severity_follows_rule_severity(project: Path, monkeypatch: pytest.MonkeyPatch, severity: str, expected: str):
    monkeypatch.setattr(rule_class("TL401"), "severity", severity, raising=False)
    assert rdjson("--select", "ALL", "zg.py")["diagnostics"][0]["severity"] == expected


def test_the_schemas_reject_what_the_consumers_reject():
    """The schema files are not vacuous: each refuses a document its consumer would refuse."""
    bad_issue = [{"description": "d", "check_name": "c", "fingerprint": "f", "severity": "warning", "location": {"path": "a.py", "lines": {"begin": 1}}}]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validators.validator_for(GITLAB_SCHEMA)(GITLAB_SCHEMA).validate(bad_issue)
    no_start = {"diagnostics": [{"message": "m", "location": {"path": "a.py", "range": {"end": {"line": 1}}}}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validators.validator_for(RDJSON_SCHEMA)(RDJSON_SCHEMA).validate(no_start)
