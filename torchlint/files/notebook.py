"""Jupyter notebooks: the code cells as one Python text, mapped back to cells and written back.

The code cells of a Python notebook are joined into `Notebook.source`, one text that torchlint
lints and fixes like a file, so names imported in one cell resolve in later ones. Each cell is
followed by an end marker, `pass  # torchlint: end of cell N`: a module-level statement, so a
cell's statements never continue into the next cell, and the line `with_source` splits on,
however many lines a fix inserted or removed. IPython syntax (magics, shell escapes, help) is
replaced line for line by `pass  # torchlint: magic K`, with the line's indentation, so line
numbers stay aligned and the text parses; `with_source` puts the original lines back. When a
cell's first line is indented, IPython strips that indent from every line that starts with
it before running the cell, and so does the neutral text; findings and fixes are shifted
back, and `with_source` indents those lines again.

Cells are numbered as a user counts them in the notebook: 1-based over all cells, markdown and
raw cells included. Only the changed cells' `source` values are rewritten in the file; every
other byte (outputs, metadata, key order, indentation, line endings) stays as it was.
"""

from __future__ import annotations

import ast
import bisect
import json
import re
from dataclasses import dataclass, replace
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from torchlint.engine.findings import Edit, Finding

END_MARKER = "pass  # torchlint: end of cell {}"
MAGIC_MARKER = "pass  # torchlint: magic {}"
# Cell magics whose body IPython runs as Python (as ruff treats them): the body is linted.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "debug", "prun", "python", "python3"})
MIN_NBFORMAT = 4

# Kernel languages that torchlint lints; anything else (R, Julia, ...) yields no code cells.
_PYTHON_LANGUAGES = frozenset({"python", "python3", "ipython", "ipython3"})
_BOM = "\ufeff"
# Lines as Python counts them: ended by \r\n, \r or \n (the last one possibly unterminated).
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")
_END_LINE = re.compile(r"[ \t]*pass[ \t]*# torchlint: end of cell (\d+)[ \t]*(?:\r\n|\r|\n)?")
_MAGIC_LINE = re.compile(r"([ \t]*)pass[ \t]*# torchlint: magic (\d+)[ \t]*(\r\n|\r|\n)?")
# `files = !ls`, `env = %env`: IPython assigns the output of a shell command or a magic.
_MAGIC_ASSIGN = re.compile(r"[ \t]*[\w.,()\[\]* \t]+=[ \t]*[!%]")
# Characters that start an IPython escape at the beginning of a statement.
_ESCAPES = ("%", "!", "?", "/", ",", ";")
_JSON_WS = " \t\r\n"
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_ESCAPED_NON_ASCII = re.compile(r"(?<!\\)(?:\\\\)*\\u(?!00[0-7])[0-9a-fA-F]{4}")
_FIRST_KEY_SEPARATOR = re.compile(r'[ \t\r\n]*\{[ \t\r\n]*"(?:[^"\\]|\\.)*"([ \t]*:[ \t]*)')
_COMPACT_ITEM_SEPARATOR = re.compile(r'(?:"|\]|\}|\d|true|false|null)(,[ \t]*)(?=["\[{\d\-tfn])')
_DECODER = json.JSONDecoder()
# JSON can escape a lone UTF-16 surrogate (`"\ud800"`); no Python source can hold one.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")

Source = Union[str, List[str]]


class NotebookError(ValueError):
    """The input is not a notebook torchlint can read, or a fixed text no longer fits it."""


@dataclass(frozen=True)
class JsonFormat:
    """How a notebook file is laid out, so that rewritten parts look like the rest."""

    indent: Optional[str]  # None: everything on one line
    ensure_ascii: bool
    item_separator: str
    key_separator: str
    newline: str  # "\n", or "\r\n" for a file with Windows line endings
    trailing: str  # whitespace after the closing brace, usually one newline

    @classmethod
    def detect(cls, text: str) -> "JsonFormat":
        """The layout of `text`, defaulting to what Jupyter writes where the text does not tell."""
        newline = "\r\n" if "\r\n" in text else "\n"
        indent_match = re.match(r"[ \t]*\{[ \t]*\r?\n([ \t]*)", text)
        indent = indent_match.group(1) if indent_match else None
        key_match = _FIRST_KEY_SEPARATOR.match(text)
        item_match = None if indent is not None else _COMPACT_ITEM_SEPARATOR.search(text)
        return cls(
            indent=indent,
            ensure_ascii=_NON_ASCII.search(text) is None and _ESCAPED_NON_ASCII.search(text) is not None,
            item_separator=item_match.group(1) if item_match else ("," if indent is not None else ", "),
            key_separator=key_match.group(1) if key_match else ": ",
            newline=newline,
            trailing=text[len(text.rstrip(_JSON_WS)) :],
        )

    def dumps(self, value: Any, prefix: str = "") -> str:
        """`value` as JSON in this layout, its continuation lines indented by `prefix`."""
        text = json.dumps(
            value,
            indent=self.indent,
            ensure_ascii=self.ensure_ascii,
            separators=(self.item_separator, self.key_separator),
        )
        return text.replace("\n", self.newline + prefix)

    def document(self, data: Any) -> str:
        """A whole notebook in this layout (key order as in `data`)."""
        return self.dumps(data) + self.trailing


@dataclass(frozen=True)
class CodeCell:
    """One linted code cell and where its text sits in `Notebook.source`."""

    index: int  # position among all cells of the notebook, 0-based
    text: str  # the cell's source as stored (list items joined)
    is_list: bool  # whether the file stores the source as a list of lines
    neutral: str  # `text` with IPython syntax neutralised, ending with a newline unless empty
    first_line: int  # 1-based line of `Notebook.source` where the cell starts
    indent: str = ""  # the first line's indent, which IPython strips (`_leading_indent`)
    stripped: Tuple[bool, ...] = ()  # for each line of `neutral`, whether `indent` was stripped from it

    def shift(self, line: int) -> int:
        """The columns stripped from the cell's 1-based `line`."""
        return len(self.indent) if 0 < line <= len(self.stripped) and self.stripped[line - 1] else 0

    @property
    def number(self) -> int:
        """The 1-based cell number a user sees, counting all cells."""
        return self.index + 1

    @property
    def line_count(self) -> int:
        return len(_lines(self.neutral))

    @property
    def added_newline(self) -> bool:
        """Whether `neutral` got a final newline that the stored source does not have."""
        return bool(self.text) and not self.text.endswith(("\n", "\r"))


@dataclass(frozen=True)
class _Magic:
    """A neutralised line: the original (without its line break) and the indent written for it."""

    original: str
    indent: str


@dataclass(frozen=True, eq=False)
class Notebook:
    """A parsed notebook: its original bytes and JSON, layout, and the lintable Python text."""

    raw: bytes
    text: str  # the decoded file, without a byte-order mark
    data: Dict[str, Any]
    format: JsonFormat
    is_python: bool
    cells: Tuple[CodeCell, ...]
    source: str
    bom: bool = False
    _magics: Tuple[_Magic, ...] = ()

    @classmethod
    def parse(cls, data: bytes) -> "Notebook":
        """Read a notebook file; raises `NotebookError` with a one-line message if it is not one."""
        text, bom = _decode(data)
        notebook = _load(text)
        is_python = _is_python_notebook(notebook)
        magics: List[_Magic] = []
        cells: List[CodeCell] = []
        parts: List[str] = []
        line = 1
        for index, cell in enumerate(notebook["cells"]):
            if not is_python or not _is_python_code_cell(cell):
                continue
            source = cell.get("source", "")
            text_of_cell = "".join(source) if isinstance(source, list) else source
            indent, stripped = _leading_indent(_lines(_neutralise(text_of_cell, magics)))
            neutral = "".join(item[len(indent):] if cut else item for item, cut in stripped)
            marks = tuple(cut for _, cut in stripped) if indent else ()
            cells.append(CodeCell(index, text_of_cell, isinstance(source, list), neutral, line, indent, marks))
            parts += [neutral, END_MARKER.format(index + 1) + "\n"]
            line += len(_lines(neutral)) + 1
        fmt = JsonFormat.detect(text)
        return cls(data, text, notebook, fmt, is_python, tuple(cells), "".join(parts), bom, tuple(magics))

    def locate(self, line: int) -> Tuple[int, int]:
        """The (cell number, 1-based line in that cell) of a line of `source`.

        Lines outside any cell (an end marker, past the end) go to the nearest line of the
        cell before them.
        """
        cell = self._cell_at(line)
        return cell.number, _clamp(line - cell.first_line + 1, 1, max(cell.line_count, 1))

    def relocate(self, finding: Finding) -> Tuple[int, Finding]:
        """A finding on `source` as (cell number, the finding with lines counted in that cell).

        Fix edits are moved by the same offset; fixes are still applied to `source`.
        """
        number, line = self.locate(finding.line)
        end_number, end_line = self.locate(finding.end_line)
        if end_number != number or end_line < line:
            end_line = line
        cell = self._cell_at(finding.line)
        offset = cell.first_line - 1
        fix = finding.fix
        if fix is not None:
            fix = replace(fix, edits=tuple(_shift_edit(edit, offset, cell) for edit in fix.edits))
        columns = {"column": finding.column + cell.shift(line), "end_column": finding.end_column + cell.shift(end_line)}
        return number, replace(finding, line=line, end_line=end_line, fix=fix, **columns)

    def with_source(self, new_source: str) -> bytes:
        """The notebook file with the code cells taken from a (fixed) `source`.

        Only cells whose text changed are rewritten; an unchanged source gives back the
        original bytes. Raises `NotebookError` if `new_source` lost a cell's end marker.
        """
        changed: Dict[int, Source] = {}
        for cell, neutral in zip(self.cells, self._split(new_source)):
            if neutral != cell.neutral:
                changed[cell.index] = self._stored_source(cell, neutral)
        if not changed:
            return self.raw
        text = _splice_sources(self.text, changed, self.format)
        self._verify(text, changed)
        return ((_BOM if self.bom else "") + text).encode("utf-8")

    def _cell_at(self, line: int) -> CodeCell:
        if not self.cells:
            raise NotebookError("the notebook has no Python code cells")
        position = bisect.bisect_right([cell.first_line for cell in self.cells], line) - 1
        return self.cells[max(position, 0)]

    def _split(self, new_source: str) -> List[str]:
        """The neutral text of each code cell in `new_source`, found by the end markers."""
        lines = _lines(new_source)
        texts: List[str] = []
        start = 0
        for cell in self.cells:
            end = _find_end_marker(lines, start, cell.number)
            texts.append("".join(lines[start:end]))
            start = end + 1
        if texts and start < len(lines):
            texts[-1] += "".join(lines[start:])  # text a fix appended after the last marker
        return texts

    def _stored_source(self, cell: CodeCell, neutral: str) -> Source:
        """The `source` value to store for a cell whose neutral text is now `neutral`."""
        text = "".join(self._restore(line) for line in _indented_again(cell, _lines(neutral)))
        if cell.added_newline and text.endswith("\n"):
            text = text[:-1]
        return text.splitlines(keepends=True) if cell.is_list else text

    def _restore(self, line: str) -> str:
        """A line with a magic placeholder turned back into the original IPython line."""
        match = _MAGIC_LINE.fullmatch(line)
        if match is None or int(match.group(2)) >= len(self._magics):
            return line
        magic = self._magics[int(match.group(2))]
        indent = match.group(1)
        restored = magic.original if indent == magic.indent else indent + magic.original.lstrip(" \t")
        return restored + (match.group(3) or "")

    def _verify(self, text: str, changed: Dict[int, Source]) -> None:
        """Refuse to write a file whose cells do not read back as intended."""
        try:
            cells = json.loads(text)["cells"]
        except (ValueError, KeyError, TypeError) as error:
            raise NotebookError(f"rewriting the notebook failed: {error}") from None
        expected = self.data["cells"]
        if len(cells) != len(expected) or any(
            cells[i].get("source") != changed.get(i, expected[i].get("source")) for i in range(len(cells))
        ):
            raise NotebookError("rewriting the notebook failed: cells do not read back as written")


def _neutralise(text: str, magics: List[_Magic]) -> str:
    """`text` with each IPython-only line replaced by a numbered `pass` placeholder.

    The originals are appended to `magics`. A cell magic that runs its body as Python
    (`%%time`, `%%capture`, ...) is set aside and the rest of the cell is linted, as ruff
    does, provided that rest compiles; any other cell magic (`%%bash`, `%%html`, ...) makes
    the whole cell non-Python, so every line of it is replaced. The result ends with a newline.
    """
    lines = _lines(text)
    magic = _cell_magic(lines)
    if magic is None:
        return _neutralise_lines(lines, magics)
    head = "".join(_placeholder(line, "", magics) for line in lines[: magic + 1])
    if _magic_name(lines[magic]) in PYTHON_CELL_MAGICS:
        mark = len(magics)
        body = _neutralise_lines(lines[magic + 1 :], magics)
        if _compiles(body):
            return head + body
        del magics[mark:]
    return head + "".join(_placeholder(line, "", magics) for line in lines[magic + 1 :])


def _neutralise_lines(lines: Sequence[str], magics: List[_Magic]) -> str:
    """Lines of Python with IPython line magics, shell escapes and help replaced."""
    scan = _Scan()
    continued: Optional[str] = None  # the indent of a magic continued by a backslash
    out: List[str] = []
    for line in lines:
        body = line.rstrip("\r\n")
        if continued is not None:
            out.append(_placeholder(line, continued, magics))
            continued = continued if body.endswith("\\") else None
            continue
        probe = scan.copy()
        code = probe.feed(line)
        if scan.at_statement_start and _is_ipython(body, code, probe):
            out.append(_placeholder(line, _indent(body), magics))
            continued = _indent(body) if body.endswith("\\") else None
            continue
        scan = probe
        out.append(line if line.endswith(("\n", "\r")) else line + "\n")
    return "".join(out)


def _leading_indent(lines: Sequence[str]) -> Tuple[str, List[Tuple[str, bool]]]:
    """The indent of a cell's first line, and each line with whether it starts with that
    indent: IPython strips it from those lines before it runs the cell (its `leading_indent`
    cleanup). No indent ("") when the first line is not indented."""
    indent = _indent(lines[0].rstrip("\r\n")) if lines else ""
    return indent, [(line, bool(indent) and line.startswith(indent)) for line in lines]


def _indented_again(cell: CodeCell, lines: List[str]) -> List[str]:
    """The lines of a cell's new neutral text with the indent IPython strips put back: on the
    same lines while a fix kept their number, on every non-blank line when all of them had
    it; a fix that changed the number of lines of a cell whose indent only some lines had
    cannot be put back, and raises `NotebookError`."""
    if not cell.indent:
        return lines
    if len(lines) == len(cell.stripped):
        return [cell.indent + line if cut else line for line, cut in zip(lines, cell.stripped)]
    original = _lines(cell.neutral)
    if all(cut for line, cut in zip(original, cell.stripped) if line.strip()):
        return [cell.indent + line if line.strip() else line for line in lines]
    raise NotebookError(f"a fix changed the lines of cell {cell.number}, whose leading indent IPython strips from some lines only")


def _compiles(text: str) -> bool:
    try:
        compile(text, "<cell>", "exec", ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


class _Scan:
    """Just enough of Python's tokenizer to tell where statements start: strings, brackets,
    comments and backslash continuations, carried from line to line."""

    def __init__(self, quote: str = "", depth: int = 0, backslash: bool = False) -> None:
        self.quote = quote  # the open string's delimiter, "" outside strings
        self.depth = depth  # open brackets
        self.backslash = backslash  # the last line ended with a continuation backslash

    @property
    def at_statement_start(self) -> bool:
        return not self.quote and self.depth == 0 and not self.backslash

    def copy(self) -> "_Scan":
        return _Scan(self.quote, self.depth, self.backslash)

    def feed(self, line: str) -> str:
        """Advance over one line; return its code with any comment removed."""
        body = line.rstrip("\r\n")
        self.backslash = False
        i = 0
        while i < len(body):
            if self.quote:
                i = self._skip_string(body, i)
                continue
            char = body[i]
            if char == "#":
                return body[:i]
            if char in "\"'":
                self.quote = body[i : i + 3] if body[i : i + 3] in ('"""', "'''") else char
                i += len(self.quote)
                continue
            if char in "([{":
                self.depth += 1
            elif char in ")]}":
                self.depth = max(self.depth - 1, 0)
            elif char == "\\" and i == len(body) - 1:
                self.backslash = True
            i += 1
        if len(self.quote) == 1 and not body.endswith("\\"):
            self.quote = ""  # an unterminated string: a syntax error that Python reports, not us
        return body

    def _skip_string(self, body: str, i: int) -> int:
        """Advance inside the open string, to just past its closing quote if it is on this line."""
        while i < len(body):
            if body[i] == "\\":
                if i == len(body) - 1:
                    return i + 1  # an escaped line break: the string goes on
                i += 2
            elif body.startswith(self.quote, i):
                end = i + len(self.quote)
                self.quote = ""
                return end
            else:
                i += 1
        return i


# A line magic called without its `%` (IPython's automagic, on by default), followed by an
# argument that cannot continue a Python expression of that name: `pip install yfinance`,
# `matplotlib inline`, `cd data` (not `time = 3`, `run(x)`, `pip.main()`, `ls -la`).
_AUTOMAGIC = re.compile(
    r"(?:pip|conda|mamba|cd|env|load_ext|reload_ext|matplotlib|pylab|timeit|time|autoreload|aimport|run|who|whos)"
    r"[ \t]+(?!(?:and|or|not|in|is|if|else|for)\b)[A-Za-z_/~\\\"'$]"
)


def _is_ipython(body: str, code: str, after: _Scan) -> bool:
    """Whether a line at the start of a statement is IPython syntax rather than Python."""
    stripped = body.lstrip(" \t")
    if stripped.startswith(_ESCAPES) or _AUTOMAGIC.match(stripped):
        return True
    if _MAGIC_ASSIGN.match(body):
        return True
    return not after.quote and code.rstrip().endswith("?")  # `obj?`, `obj.attr??`


def _cell_magic(lines: Sequence[str]) -> Optional[int]:
    """The index of the first non-blank line when it is a cell magic such as `%%capture`."""
    for index, line in enumerate(lines):
        if line.strip():
            return index if line.lstrip().startswith("%%") else None
    return None


def _magic_name(line: str) -> str:
    return line.strip()[2:].split(maxsplit=1)[0] if line.strip()[2:].strip() else ""


def _placeholder(line: str, indent: str, magics: List[_Magic]) -> str:
    ending = line[len(line.rstrip("\r\n")) :] or "\n"
    magics.append(_Magic(line.rstrip("\r\n"), indent))
    return indent + MAGIC_MARKER.format(len(magics) - 1) + ending


def _indent(body: str) -> str:
    return body[: len(body) - len(body.lstrip(" \t"))]


def _lines(text: str) -> List[str]:
    return _LINE.findall(text)


def _clamp(value: int, low: int, high: int) -> int:
    return max(low, min(value, high))


def _shift_edit(edit: Edit, offset: int, cell: CodeCell) -> Edit:
    """`edit` moved up `offset` lines, into the cell, and right by the indent IPython strips."""
    line, end_line = max(edit.line - offset, 1), max(edit.end_line - offset, 1)
    return replace(edit, line=line, end_line=end_line, column=edit.column + cell.shift(line), end_column=edit.end_column + cell.shift(end_line))


def _find_end_marker(lines: Sequence[str], start: int, number: int) -> int:
    """Index of cell `number`'s end marker at or after `start`."""
    for index in range(start, len(lines)):
        match = _END_LINE.fullmatch(lines[index])
        if match is not None and int(match.group(1)) == number:
            return index
    raise NotebookError(f"the fixed source lost the end marker of cell {number}")


def _decode(data: bytes) -> Tuple[str, bool]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise NotebookError(f"not UTF-8 text (byte {error.start})") from None
    if text.startswith(_BOM):
        return text[1:], True
    return text, False


def _load(text: str) -> Dict[str, Any]:
    """The notebook's JSON, checked to be an nbformat 4 notebook."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise NotebookError(f"invalid JSON: {error.msg} (line {error.lineno}, column {error.colno})") from None
    except RecursionError:
        raise NotebookError("invalid JSON: nested too deeply") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise NotebookError("not a Jupyter notebook: no list of cells")
    version = data.get("nbformat")
    if not isinstance(version, int) or isinstance(version, bool):
        raise NotebookError("not a Jupyter notebook: no nbformat version")
    if version < MIN_NBFORMAT:
        raise NotebookError(f"nbformat {version} is not supported (version {MIN_NBFORMAT} or later is)")
    for index, cell in enumerate(data["cells"]):
        _check_cell(cell, index)
    return data


def _check_cell(cell: Any, index: int) -> None:
    if not isinstance(cell, dict):
        raise NotebookError(f"cell {index + 1} is not a JSON object")
    if cell.get("cell_type") != "code":
        return
    source = cell.get("source", "")
    if not isinstance(source, str) and not (isinstance(source, list) and all(isinstance(s, str) for s in source)):
        raise NotebookError(f"cell {index + 1} has a source that is neither text nor a list of lines")
    if any(_LONE_SURROGATE.search(line) for line in ([source] if isinstance(source, str) else source)):
        raise NotebookError(f"cell {index + 1} has a source with an escaped lone surrogate, which is not text")


def _is_python_notebook(data: Dict[str, Any]) -> bool:
    """Whether the kernel's language is Python (or not recorded)."""
    metadata = _object(data.get("metadata"))
    languages = (_object(metadata.get("kernelspec")).get("language"), _object(metadata.get("language_info")).get("name"))
    return all(_is_python_name(language) for language in languages)


def _is_python_code_cell(cell: Dict[str, Any]) -> bool:
    """A code cell not marked as another language (VS Code records one per cell)."""
    if cell.get("cell_type") != "code":
        return False
    vscode = _object(_object(cell.get("metadata")).get("vscode"))
    return _is_python_name(vscode.get("languageId"))


def _is_python_name(language: Any) -> bool:
    return language is None or (isinstance(language, str) and language.lower() in _PYTHON_LANGUAGES)


def _object(value: Any) -> Dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _splice_sources(text: str, changed: Dict[int, Source], fmt: JsonFormat) -> str:
    """`text` with the `source` values of the `changed` cells replaced, nothing else touched."""
    spans = _source_spans(text)
    for index in sorted(changed, reverse=True):
        if index not in spans:
            raise NotebookError(f"cell {index + 1} has no source to rewrite")
        start, end = spans[index]
        line_start = text.rfind("\n", 0, start) + 1
        prefix = _indent(text[line_start:start])
        text = text[:start] + fmt.dumps(changed[index], prefix) + text[end:]
    return text


def _source_spans(text: str) -> Dict[int, Tuple[int, int]]:
    """Character spans of each cell's `source` value, by cell index (the last one of duplicates)."""
    spans: Dict[int, Tuple[int, int]] = {}
    for key, start, _ in _members(text, _skip_ws(text, 0)):
        if key == "cells":
            spans = {}
            for index, cell_start in enumerate(_elements(text, start)):
                for cell_key, value_start, value_end in _members(text, cell_start):
                    if cell_key == "source":
                        spans[index] = (value_start, value_end)
    return spans


def _members(text: str, start: int) -> List[Tuple[str, int, int]]:
    """(key, value start, value end) of each member of the JSON object at `start`."""
    members = []
    i = _skip_ws(text, start + 1)
    while text[i] != "}":
        key, i = json.decoder.scanstring(text, i + 1)  # type: ignore[attr-defined]
        i = _skip_ws(text, _skip_ws(text, i) + 1)  # past the colon
        end = _value_end(text, i)
        members.append((key, i, end))
        i = _skip_ws(text, end)
        if text[i] == ",":
            i = _skip_ws(text, i + 1)
    return members


def _elements(text: str, start: int) -> List[int]:
    """Start offsets of the elements of the JSON array at `start`."""
    starts = []
    i = _skip_ws(text, start + 1)
    while text[i] != "]":
        starts.append(i)
        i = _skip_ws(text, _value_end(text, i))
        if text[i] == ",":
            i = _skip_ws(text, i + 1)
    return starts


def _value_end(text: str, start: int) -> int:
    return _DECODER.raw_decode(text, start)[1]


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in _JSON_WS:
        i += 1
    return i
