"""Jupyter notebooks: IPython syntax never breaks parsing, lines map back to cells, and writing
back changes exactly the cells that changed, byte for byte."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, Optional

import libcst as cst
import pytest

from torchlint.engine.context import Options
from torchlint.engine.fixer import fix_text
from torchlint.engine.linter import lint_text
from torchlint.files.notebook import END_MARKER, Notebook, NotebookError
from torchlint.engine.rule import all_rules

NOTEBOOKS = Path(__file__).parent / "data" / "notebooks"
# How each fixture was written, to check what we write against what the writing tool would.
LAYOUTS: Dict[str, Dict[str, Any]] = {
    "jupyter.ipynb": dict(indent=1, sort_keys=True, ensure_ascii=False, newline="\n", trailing="\n"),
    "string_sources_indent2.ipynb": dict(indent=2, ensure_ascii=False, newline="\n", trailing=""),
    "escaped_crlf_indent4.ipynb": dict(indent=4, ensure_ascii=True, newline="\r\n", trailing="\r\n"),
    "compact.ipynb": dict(ensure_ascii=False, newline="\n", trailing=""),
}
FIXTURES = sorted(LAYOUTS)


def written_as(name: str, data: Any) -> bytes:
    """`data` serialised the way the tool that wrote fixture `name` serialises."""
    options = dict(LAYOUTS[name])
    newline, trailing = options.pop("newline"), options.pop("trailing")
    return (json.dumps(data, **options).replace("\n", newline) + trailing).encode("utf-8")


def notebook_bytes(*cells: Any, language: Optional[str] = "python", **dump: Any) -> bytes:
    """A notebook of `cells`: strings are code cells, ("markdown", text) others; Jupyter layout."""
    built = []
    for cell in cells:
        kind, source = ("code", cell) if isinstance(cell, (str, list)) else cell
        built.append({"cell_type": kind, "metadata": {}, "source": source, **({"outputs": []} if kind == "code" else {})})
    metadata = {"kernelspec": {"language": language, "name": "k"}} if language else {}
    data = {"cells": built, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}
    options = {"indent": 1, "ensure_ascii": False, **dump}
    return (json.dumps(data, **options) + "\n").encode("utf-8")


def load(name: str) -> Notebook:
    return Notebook.parse((NOTEBOOKS / name).read_bytes())


def cell_source(data: bytes, number: int) -> Any:
    return json.loads(data)["cells"][number - 1]["source"]


def replace_line(source: str, old: str, new: str) -> str:
    assert source.count(old) == 1
    return source.replace(old, new)


# --- IPython syntax -------------------------------------------------------------------------

IPYTHON_CELLS = [
    "%matplotlib inline\nimport torch",
    "!pip install torch\n!!ls",
    "files = !ls -la\nenv = %env\na, b = %sx echo 1 2",
    "torch.zeros?\n?torch.ones\ntorch.nn.Module??\nx = 1  # really?",
    "%%capture\nthis is not python (\n  nor this",
    "\n%%bash\necho hi\n",
    "for i in range(3):\n    %time f(i)\n    !echo {i}\nprint(i)",
    "def f():\n    %timeit -n 3 g()\n",
    "%timeit a = \\\n   b + \\\n     c\nx = 2",
    "/print 1 2\n,print a b\n;print a b",
    "s = '''\n%not a magic\n!nor this\n'''\nt = (1\n     % 2)\nu = \"a\" \\\n    \"b\"",
    "await asyncio.sleep(1)\n%load_ext autoreload",
    # Automagics: line magics without `%`.
    "pip install yfinance\nmatplotlib inline\ncd data\nload_ext autoreload",
    "",
]


@pytest.mark.parametrize("cell", IPYTHON_CELLS)
def test_ipython_syntax_never_breaks_parsing(cell):
    notebook = Notebook.parse(notebook_bytes("import torch", cell, "x = 1"))
    cst.parse_module(notebook.source)
    assert len(notebook.source.splitlines()) == sum(c.line_count + 1 for c in notebook.cells)


def test_all_ipython_cells_together_parse_and_round_trip():
    data = notebook_bytes(*IPYTHON_CELLS)
    notebook = Notebook.parse(data)
    cst.parse_module(notebook.source)
    assert notebook.with_source(notebook.source) == data


def test_python_lines_are_kept_and_magics_neutralised_in_place():
    cell = "s = '''\n%not a magic\n'''\nt = (1\n     % 2)\n  %who\nx?"
    notebook = Notebook.parse(notebook_bytes(cell))
    lines = notebook.source.splitlines()
    assert lines[:5] == cell.splitlines()[:5]
    assert lines[5].startswith("  pass  # torchlint: magic")
    assert lines[6].startswith("pass  # torchlint: magic")
    assert lines[7] == END_MARKER.format(1)


def test_cell_magic_replaces_every_line():
    notebook = Notebook.parse(notebook_bytes("%%bash\nfor f in *; do\n  echo $f\ndone"))
    assert all("torchlint: magic" in line for line in notebook.source.splitlines()[:4])


def test_genuine_syntax_error_is_reported_in_its_cell():
    notebook = Notebook.parse(notebook_bytes("import torch", ("markdown", "# hi"), "x = 1\ny = (", "z = 2"))
    findings = lint_text(notebook.source, "nb.ipynb", all_rules(), Options()).findings
    assert [f.code for f in findings] == ["TL000"]
    assert notebook.locate(findings[0].line) == (3, 2)


def test_cells_do_not_merge_into_one_statement():
    notebook = Notebook.parse(notebook_bytes("@decorator", "def f():\n    pass"))
    findings = lint_text(notebook.source, "nb.ipynb", all_rules(), Options()).findings
    assert [f.code for f in findings] == ["TL000"]
    assert notebook.locate(findings[0].line)[0] == 1


# --- locate ---------------------------------------------------------------------------------


def test_locate_counts_all_cells_and_lines_within_the_cell():
    notebook = Notebook.parse(
        notebook_bytes(("markdown", "# Title"), "%matplotlib inline\nimport torch", ("raw", "r"), "a = 1\n\nb = 2\n")
    )
    source = notebook.source.splitlines()
    assert notebook.locate(2) == (2, 2) and source[1] == "import torch"
    assert notebook.locate(4) == (4, 1) and source[3] == "a = 1"
    assert notebook.locate(6) == (4, 3) and source[5] == "b = 2"
    assert notebook.locate(3) == (2, 2)  # cell 2's end marker: its last line
    assert notebook.locate(99) == (4, 3)


@pytest.mark.parametrize("name", FIXTURES)
def test_locate_maps_every_line_of_every_cell(name):
    notebook = load(name)
    source = notebook.source.splitlines()
    for cell in notebook.cells:
        for offset, line in enumerate(cell.text.splitlines()):
            assert notebook.locate(cell.first_line + offset) == (cell.number, offset + 1)
            if "torchlint: magic" not in source[cell.first_line + offset - 1]:
                assert source[cell.first_line + offset - 1] == line
    assert [cell.number for cell in notebook.cells] == [2, 3, 4, 5, 7]


def test_relocate_moves_finding_and_fix_into_cell_lines():
    notebook = Notebook.parse(notebook_bytes("import torch\n", ("markdown", "x"), "optimizer.zero_grad(set_to_none=False)"))
    finding = lint_text(notebook.source, "nb.ipynb", all_rules(), Options()).findings[0]
    number, moved = notebook.relocate(finding)
    assert (number, moved.line, moved.end_line, moved.column) == (3, 1, 1, 1)
    assert all(edit.line == 1 for edit in moved.fix.edits)


# --- writing back ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", FIXTURES)
def test_fixture_layout_is_detected(name):
    text = (NOTEBOOKS / name).read_bytes()
    notebook = Notebook.parse(text)
    assert written_as(name, notebook.data) == text
    assert notebook.format.document(notebook.data).encode("utf-8") == text


@pytest.mark.parametrize("name", FIXTURES)
def test_unchanged_notebook_round_trips_to_the_same_bytes(name):
    notebook = load(name)
    cst.parse_module(notebook.source)
    assert notebook.with_source(notebook.source) == (NOTEBOOKS / name).read_bytes()


@pytest.mark.parametrize("name", FIXTURES)
def test_a_change_in_one_cell_rewrites_only_that_cell(name):
    original = (NOTEBOOKS / name).read_bytes()
    notebook = Notebook.parse(original)
    fixed = replace_line(notebook.source, "optimizer.zero_grad(set_to_none=False)", "optimizer.zero_grad()")
    result = notebook.with_source(fixed)
    expected = json.loads(original)
    cell = expected["cells"][3]
    text = "".join(cell["source"]).replace("(set_to_none=False)", "()")
    cell["source"] = text.splitlines(keepends=True) if isinstance(cell["source"], list) else text
    assert result == written_as(name, expected)
    assert _inside(_changed_region(original, result), _source_region(name, original, 4))


def test_a_change_keeps_other_cells_outputs_and_magics_byte_identical():
    original = (NOTEBOOKS / "jupyter.ipynb").read_bytes()
    notebook = Notebook.parse(original)
    fixed = replace_line(notebook.source, "import torch.nn as nn\n", "import torch.nn as nn\nimport os\n")
    result = notebook.with_source(fixed)
    assert cell_source(result, 2) == ["%matplotlib inline\n", "import torch\n", "import torch.nn as nn\n", "import os\n", "!pip install -q tqdm"]
    before, after = json.loads(original), json.loads(result)
    before["cells"][1]["source"] = after["cells"][1]["source"]
    assert before == after


def test_source_shape_is_kept_list_or_string():
    data = notebook_bytes(["x = 1\n", "y = 2"], "a = 1\nb = 2")
    notebook = Notebook.parse(data)
    result = notebook.with_source(notebook.source.replace("= 1", "= 3"))
    assert cell_source(result, 1) == ["x = 3\n", "y = 2"]
    assert cell_source(result, 2) == "a = 3\nb = 2"


def test_final_newline_of_a_cell_is_kept_as_it_was():
    notebook = Notebook.parse(notebook_bytes("x = 1\n", "y = 1"))
    result = notebook.with_source(notebook.source.replace("= 1", "= 2"))
    assert (cell_source(result, 1), cell_source(result, 2)) == ("x = 2\n", "y = 2")


def test_magic_lines_are_restored_in_a_changed_cell_even_when_reindented():
    cell = "%load_ext autoreload\nfor i in range(3):\n    %time f(i)\nx = 1"
    notebook = Notebook.parse(notebook_bytes(cell))
    fixed = notebook.source.replace("for i in range(3):\n    pass", "with ctx:\n  for i in range(3):\n        pass")
    fixed = fixed.replace("x = 1", "x = 2")
    assert cell_source(notebook.with_source(fixed), 1) == (
        "%load_ext autoreload\nwith ctx:\n  for i in range(3):\n        %time f(i)\nx = 2"
    )


def test_cell_magic_lines_are_restored_with_their_indentation():
    notebook = Notebook.parse(notebook_bytes("%%bash\n  echo hi\n", "import torch"))
    fixed = "import os\n" + notebook.source
    assert cell_source(notebook.with_source(fixed), 1) == "import os\n%%bash\n  echo hi\n"


def test_lines_inserted_or_removed_in_a_cell_stay_in_that_cell():
    notebook = Notebook.parse(notebook_bytes("a = 1\nb = 2", "c = 3", "d = 4\ne = 5"))
    fixed = notebook.source.replace("b = 2\n", "").replace("c = 3\n", "c = 3\nc2 = 3\nc3 = 3\n")
    result = notebook.with_source(fixed)
    assert [cell_source(result, n) for n in (1, 2, 3)] == ["a = 1", "c = 3\nc2 = 3\nc3 = 3", "d = 4\ne = 5"]


def test_lost_end_marker_is_an_error():
    notebook = Notebook.parse(notebook_bytes("a = 1", "b = 2"))
    with pytest.raises(NotebookError, match="end marker of cell 1"):
        notebook.with_source(notebook.source.replace(END_MARKER.format(1) + "\n", ""))


def test_byte_order_mark_and_crlf_are_kept():
    data = b"\xef\xbb\xbf" + notebook_bytes("x = 1", "y = 1").replace(b"\n", b"\r\n")
    notebook = Notebook.parse(data)
    assert notebook.with_source(notebook.source) == data
    result = notebook.with_source(notebook.source.replace("y = 1", "y = 2"))
    assert result == data.replace(b'"y = 1"', b'"y = 2"')


def test_ascii_escaped_notebook_stays_escaped():
    data = notebook_bytes("s = 'é'", "t = 1", ensure_ascii=True)
    notebook = Notebook.parse(data)
    assert notebook.format.ensure_ascii
    assert notebook.with_source(notebook.source.replace("t = 1", "t = 'ü'")) == data.replace(b'"t = 1"', b'"t = \'\\u00fc\'"')


# --- what is linted -------------------------------------------------------------------------


def test_non_python_notebook_has_no_code_cells():
    notebook = Notebook.parse(notebook_bytes("x <- 1", language="R"))
    assert not notebook.is_python and notebook.cells == () and notebook.source == ""
    assert notebook.with_source("") == notebook.raw


def test_cells_of_another_language_are_skipped():
    data = json.loads(notebook_bytes("x = 1", "y = 1"))
    data["cells"][0]["metadata"]["vscode"] = {"languageId": "sql"}
    notebook = Notebook.parse(json.dumps(data).encode())
    assert [cell.number for cell in notebook.cells] == [2]


@pytest.mark.parametrize(
    "data, message",
    [
        (b"{not json", "invalid JSON"),
        (b"[1, 2]", "not a Jupyter notebook"),
        (b'{"cells": []}', "no nbformat"),
        (b'{"cells": [], "nbformat": 3, "nbformat_minor": 0}', "nbformat 3 is not supported"),
        (b'{"cells": [{"cell_type": "code", "source": 3}], "nbformat": 4}', "cell 1 has a source"),
        (b'{"cells": [7], "nbformat": 4}', "cell 1 is not a JSON object"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b"[" * 100000, "invalid JSON"),
    ],
)
def test_invalid_notebooks_raise_one_line_errors(data, message):
    with pytest.raises(NotebookError, match=message) as error:
        Notebook.parse(data)
    assert "\n" not in str(error.value)


# --- end to end -----------------------------------------------------------------------------


def test_lint_and_fix_across_cells():
    data = notebook_bytes(
        "import torch\n%matplotlib inline",
        ("markdown", "Training"),
        ["model.train()\n", "optimizer.zero_grad(set_to_none=False)\n", "!nvidia-smi"],
    )
    notebook = Notebook.parse(data)
    rules, options = all_rules(), Options()
    findings = lint_text(notebook.source, "nb.ipynb", rules, options).findings
    assert [(f.code, notebook.locate(f.line)) for f in findings] == [("TL401", (3, 2))]
    fixed = fix_text(notebook.source, "nb.ipynb", rules, options, unsafe=True)
    assert [f.code for f in fixed.fixed] == ["TL401"] and fixed.warning is None
    result = notebook.with_source(fixed.text)
    assert cell_source(result, 3) == ["model.train()\n", "optimizer.zero_grad()\n", "!nvidia-smi"]
    assert cell_source(result, 1) == "import torch\n%matplotlib inline"
    assert Notebook.parse(result).with_source(fixed.text) == result


def test_torch_import_in_an_earlier_cell_is_what_makes_the_rule_fire():
    lone = Notebook.parse(notebook_bytes("x = 1", ("markdown", "m"), "optimizer.zero_grad(set_to_none=False)"))
    assert lint_text(lone.source, "nb.ipynb", all_rules(), Options()).findings == ()


@pytest.mark.parametrize("name", FIXTURES)
def test_fixture_end_to_end_changes_only_the_fixed_cell(name):
    original = (NOTEBOOKS / name).read_bytes()
    notebook = Notebook.parse(original)
    fixed = fix_text(notebook.source, name, all_rules(), Options(), unsafe=True)
    assert "TL401" in {f.code for f in fixed.fixed}
    result = notebook.with_source(fixed.text)
    assert "    optimizer.zero_grad()\n" in "".join(cell_source(result, 4))
    assert _inside(_changed_region(original, result), _source_region(name, original, 4))


# --- helpers --------------------------------------------------------------------------------


def _changed_region(before: bytes, after: bytes) -> range:
    """Offsets of `before` outside the common prefix and suffix of the two."""
    start = 0
    while start < min(len(before), len(after)) and before[start] == after[start]:
        start += 1
    end = 0
    while end < min(len(before), len(after)) - start and before[-1 - end] == after[-1 - end]:
        end += 1
    return range(start, len(before) - end)


def _source_region(name: str, data: bytes, number: int) -> range:
    """Byte offsets of cell `number`'s `source` value in fixture `name` (its text is unique)."""
    notebook = Notebook.parse(data)
    prefix = " " * 3 * LAYOUTS[name].get("indent", 0)
    value = notebook.format.dumps(notebook.data["cells"][number - 1]["source"], prefix).encode("utf-8")
    assert data.count(value) == 1
    start = data.index(value)
    return range(start, start + len(value))


def _inside(inner: range, outer: range) -> bool:
    return outer.start <= inner.start and inner.stop <= outer.stop


# The command line on notebooks -----------------------------------------------------------


def _cli_notebook(path):
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Training\n"]},
        {"cell_type": "code", "execution_count": 1, "id": "a1", "metadata": {}, "outputs": [], "source": ["import torch\n", "%matplotlib inline"]},
        {
            "cell_type": "code",
            "execution_count": 2,
            "id": "b2",
            "metadata": {"scrolled": True},
            "outputs": [{"name": "stdout", "output_type": "stream", "text": ["ok\n"]}],
            "source": ["!pip install timm\n", "optimizer.zero_grad(set_to_none=False)"],
        },
    ]
    document = {"cells": cells, "metadata": {"kernelspec": {"language": "python", "name": "python3"}}, "nbformat": 4, "nbformat_minor": 5}
    path.write_text(json.dumps(document, indent=1) + "\n")
    return document


def test_cli_reports_cells_and_fixes_only_the_cell(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from torchlint.cli import main

    monkeypatch.chdir(tmp_path)
    document = _cli_notebook(tmp_path / "train.ipynb")
    result = CliRunner().invoke(main, ["check", "--unsafe-fixes", "--output-format", "concise", "."])
    assert result.exit_code == 1
    assert result.stdout.startswith("train.ipynb:cell 3:2:1: TL401 [*] ")
    data = json.loads(CliRunner().invoke(main, ["check", "--output-format", "json", "--no-cache"]).stdout)
    assert [(d["cell"], d["line"], d["code"]) for d in data] == [(3, 2, "TL401")]
    full = CliRunner().invoke(main, ["check", "--no-cache", "train.ipynb"]).stdout
    assert "2 | optimizer.zero_grad(set_to_none=False)" in full
    assert CliRunner().invoke(main, ["check", "--fix", "--unsafe-fixes", "train.ipynb"]).exit_code == 0
    fixed = json.loads((tmp_path / "train.ipynb").read_text())
    document["cells"][2]["source"] = ["!pip install timm\n", "optimizer.zero_grad()"]
    assert fixed == document


# --- Cell magics that run Python, and the CI formats ------------------------------------------

LOOP = "for x in loader:\n    total += model(x.cuda()).item()\n    optimizer.step()\n"


@pytest.mark.parametrize("magic,linted", [("%%time", True), ("%%capture out", True), ("\n%%timeit -n 3", True), ("%%bash", False), ("%%html", False)])
def test_python_cell_magics_are_linted_after_the_magic_line(magic: str, linted: bool):
    notebook = Notebook.parse(notebook_bytes("import torch", f"{magic}\n{LOOP}"))
    findings = [notebook.relocate(f) for f in lint_text(notebook.source, "nb.ipynb", all_rules(), Options()).findings]
    expected = [(2, 2 + magic.count("\n") + 1)] if linted else []
    assert [(cell, f.line) for cell, f in findings if f.code == "TL101"] == expected


def test_a_python_cell_magic_whose_body_does_not_compile_is_set_aside():
    notebook = Notebook.parse(notebook_bytes("import torch", "%%capture\nnot python (\n"))
    assert [f.code for f in lint_text(notebook.source, "nb.ipynb", all_rules(), Options()).findings] == []


def test_ci_formats_keep_the_cell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from click.testing import CliRunner

    from torchlint.cli import main

    (tmp_path / "nb.ipynb").write_bytes(notebook_bytes("import torch", ("markdown", "# Train"), LOOP))
    monkeypatch.chdir(tmp_path)

    def output(name: str) -> str:
        return CliRunner().invoke(main, ["check", "--no-cache", "--output-format", name, "nb.ipynb"]).stdout

    github = output("github")
    assert "title=TL101 sync-in-loop (cell 3%2C line 2)" in github and "line=" not in github
    sarif = json.loads(output("sarif"))["runs"][0]["results"][0]
    assert sarif["properties"] == {"impact": "high", "cell": 3} and sarif["message"]["text"].startswith("cell 3, line 2: ")
    junit = output("junit")
    assert "TL101 sync-in-loop at cell 3:2:" in junit and "nb.ipynb:cell 3:2:" in junit


# IPython strips the first line's indent from every line that starts with it before it runs a
# cell (its `leading_indent` cleanup): such a cell is Python, not a parse error.
INDENTED_CELL = " import torch\n optimizer.zero_grad(set_to_none=False)\n"
PARTLY_INDENTED_CELL = " def step():\n     optimizer.zero_grad(set_to_none=False)\nstep()\n"


@pytest.mark.parametrize("cell", [INDENTED_CELL, PARTLY_INDENTED_CELL, "\timport torch\n\tx = 1\n"])
def test_a_cell_whose_first_line_is_indented_parses_as_ipython_runs_it(cell):
    notebook = Notebook.parse(notebook_bytes("import torch", cell))
    assert [f.code for f in lint_text(notebook.source, "nb.ipynb", all_rules(), Options()).findings if f.code == "TL000"] == []


def test_a_genuinely_misindented_cell_is_still_a_parse_error():
    notebook = Notebook.parse(notebook_bytes("x = 1\n  y = 2\n"))
    assert [f.code for f in lint_text(notebook.source, "nb.ipynb", all_rules(), Options()).findings] == ["TL000"]


def test_findings_and_fixes_of_an_indented_cell_point_at_its_own_columns():
    notebook = Notebook.parse(notebook_bytes("import torch", INDENTED_CELL))
    rules, options = all_rules(), Options()
    finding = next(f for f in lint_text(notebook.source, "nb.ipynb", rules, options).findings if f.code == "TL401")
    cell, moved = notebook.relocate(finding)
    assert (cell, moved.line, moved.column) == (2, 2, finding.column + 1)
    edit, neutral = moved.fix.edits[0], "optimizer.zero_grad(set_to_none=False)"
    stored = INDENTED_CELL.splitlines()[edit.line - 1]
    assert edit.line == 2 and edit.end_column > edit.column
    # The edit covers in the stored line what the rule's edit covered in the stripped one.
    assert stored[edit.column - 1 : edit.end_column - 1] == neutral[edit.column - 2 : edit.end_column - 2]


@pytest.mark.parametrize("cell", [INDENTED_CELL, PARTLY_INDENTED_CELL])
def test_a_fixed_indented_cell_keeps_its_indent(cell):
    notebook = Notebook.parse(notebook_bytes("import torch", cell))
    rules, options = all_rules(), Options()
    fixed = fix_text(notebook.source, "nb.ipynb", rules, options, unsafe=True)
    assert [f.code for f in fixed.fixed] == ["TL401"]
    assert cell_source(notebook.with_source(fixed.text), 2) == cell.replace("zero_grad(set_to_none=False)", "zero_grad()")


def test_lines_added_to_a_partly_indented_cell_cannot_be_put_back():
    notebook = Notebook.parse(notebook_bytes(PARTLY_INDENTED_CELL))
    assert notebook.with_source(notebook.source) == notebook.raw
    with pytest.raises(NotebookError, match="cell 1"):
        notebook.with_source(notebook.source.replace("step()\n", "step()\nstep()\n", 1))
    fully = Notebook.parse(notebook_bytes(INDENTED_CELL))
    added = fully.with_source(fully.source.replace("import torch\n", "import torch\nimport os\n", 1))
    assert cell_source(added, 1) == " import torch\n import os\n optimizer.zero_grad(set_to_none=False)\n"


@pytest.mark.parametrize("line, magic", [
    ("pip install yfinance", True),
    ("matplotlib inline", True),
    ("time = 3", False),
    ("run(x)", False),
    ("time and x", False),
    ("pip.main(['install', 'x'])", False),
])
def test_automagic_lines_are_magics_and_python_is_kept(line, magic):
    notebook = Notebook.parse(notebook_bytes(line))
    assert notebook.source.splitlines()[0].startswith("pass  # torchlint: magic") is magic
