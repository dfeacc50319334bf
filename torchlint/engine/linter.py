"""Linting one source text: parse once, walk once, position and filter what the rules reported."""

from __future__ import annotations

import abc
import gc
import re
import sys
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Callable, Dict, Iterator, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Type

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst.metadata import CodeRange

from torchlint.engine.context import FileContext
from torchlint.engine.options import Options
from torchlint.engine.findings import Edit, Finding, Fix
from torchlint.engine.noqa import UNUSED_NOQA, apply_noqa
from torchlint.engine.positions import compute_positions, statement_lines, to_span
from torchlint.engine.reparse import Reparser
from torchlint.engine.reports import NodeEdit, Report
from torchlint.engine.rule import Rule
from torchlint.semantics.framework_names import OTHER_AUTOGRAD_PACKAGES, TORCH_PACKAGES
from torchlint.semantics.project import code_text, star_imports_torch
from torchlint.semantics.roles import trains_with_a_test_name
from torchlint.semantics.test_paths import test_by_name_only
from torchlint.semantics.tree import comments, module_nodes, remembering_children
from torchlint.files.syntax import nests_too_deeply, python_tree, text_facts
from torchlint.files.source import physical_lines
from torchlint.engine.walker import walk

PARSE_ERROR = "TL000"
# LibCST's code generation and the value inference recurse once per nesting level; long
# operator chains that CPython accepts need more than the default 1000 frames. Deeper code
# is reported as TL000 rather than crashing.
RECURSION_LIMIT = 8000
if sys.getrecursionlimit() < RECURSION_LIMIT:
    sys.setrecursionlimit(RECURSION_LIMIT)


@dataclass(frozen=True)
class LintResult:
    findings: Tuple[Finding, ...]


# Rules the engine implements itself rather than through the traversal.
ENGINE_CODES = frozenset({PARSE_ERROR, UNUSED_NOQA})


def lint_text(
    text: str,
    path: str,
    rules: Sequence[Type[Rule]],
    options: Options,
    reparser: Optional[Reparser] = None,
    stale: Optional[Callable[[], bool]] = None,
) -> LintResult:
    """All findings of `rules` in `text`, with `# noqa` comments applied. For the language
    server: `reparser` holds the tree of an earlier version of the text, to re-parse only what
    changed, and `stale` says when the text has changed again (then `walker.Stale` is raised)."""
    if options.skips_tests_in(path):
        if test_by_name_only(path, options.test_paths) and trains_with_a_test_name(text):
            options = replace(options, lint_test_code=True)  # a training script, by what it does
        else:
            rules = [rule for rule in rules if not rule.skips_test_code]
    enabled = frozenset(rule.code for rule in rules)
    analysing = [rule for rule in rules if rule.code not in ENGINE_CODES]
    with _collected_once(), remembering_children():
        findings, parsed = _analyse(text, path, analysing, PARSE_ERROR in enabled, options, reparser, stale)
    if parsed and not options.ignore_noqa:
        findings = apply_noqa(findings, text, path, enabled, frozenset(Rule._registry), UNUSED_NOQA in enabled)
    if options.unfixable:
        findings = [replace(f, fix=None) if f.code in options.unfixable else f for f in findings]
    return LintResult(tuple(sorted(set(findings), key=lambda f: f.sort_key)))


@contextmanager
def _collected_once() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a file is analysed, then collect what was
    allocated meanwhile once. The parse and the analysis allocate hundreds of thousands of
    objects, most of which live until the file is done: at the collector's default thresholds
    they set off thousands of collections, and the full ones re-examine every tree still held,
    which took a fifth to a third of the CPU time of a cold run. Garbage of the file's own
    analysis waits until the file is done (the peak memory of one file's analysis)."""
    if not gc.isenabled():  # paused already (by the caller, or for a file another thread analyses)
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect(0)


def _analyse(
    text: str,
    path: str,
    rules: Sequence[Type[Rule]],
    checks_parse: bool,
    options: Options,
    reparser: Optional[Reparser] = None,
    stale: Optional[Callable[[], bool]] = None,
) -> Tuple[List[Finding], bool]:
    """Findings before suppression, and whether the text parsed.

    CPython's parser checks the syntax first: it is much faster than LibCST and gives the
    messages users know; its tree tells whether the code nests so deeply that LibCST's parser
    would overflow its stack. LibCST has the last word on other errors (code for a newer Python).
    """
    python_error = _syntax_problem(text)
    applicable = [rule for rule in rules if rule.may_apply(text)]
    # A PyTorch file: it imports torch, gets it from a star import of a project module, or runs
    # a backward pass on what project modules give it (a trainer subclass that imports only its
    # base class; in its code, not a comment), imports no other library with autograd and names
    # no `torch.` it never imports (code that cannot run).
    imported = text_facts(text).imported if python_error is None else frozenset()
    torch_file = python_error is None and (
        bool(TORCH_PACKAGES & imported) or ("import *" in text and star_imports_torch(path, text))
        or (".backward(" in text and "torch." not in text and not OTHER_AUTOGRAD_PACKAGES & imported and ".backward(" in code_text(text))
    )
    if python_error is None and not torch_file:
        applicable = [rule for rule in applicable if not rule.requires_torch]  # their reports are dropped
    if python_error is None and not applicable:
        return [], True
    if python_error is not None and (python_error.too_deep or not checks_parse):
        return ([parse_error_finding(path, *python_error)] if checks_parse else []), False
    try:
        if python_error is not None:
            module = cst.parse_module(text)
        else:
            module = reparser.parse(text, python_tree(text), _parse_valid) if reparser is not None else _parse_valid(text)
        if not applicable:
            return [], True
        ctx = FileContext(module, text, path, options)
        walk(ctx, [rule(ctx) for rule in applicable], stale)  # a rule whose triggers are absent reports nothing
        reports = [r for r in ctx.reports if ctx.names.imports_torch or torch_file or not r.rule.requires_torch]
        if not reports:
            return [], True
        lines = physical_lines(text)
        located = statement_lines(module, python_tree(text), text) if python_error is None else None
        statements = _edited_statements(module, reports)
        nodes = _nodes_to_place(reports) + list(statements.values())
        holders = [ctx.statement_of[id(node)] for node in nodes if id(node) in ctx.statement_of]
        positions = compute_positions(module, nodes, holders, located)
        return [_finding(report, path, positions, module, lines, statements) for report in reports], True
    except cst.ParserSyntaxError as error:
        expanded = _indentation_expanded(text) if python_error is None else text
        if expanded != text:  # valid Python that LibCST's tokenizer rejects: tabs after spaces in an indent
            findings, parsed = _analyse(expanded, path, rules, checks_parse, options, None, stale)
            return [replace(finding, fix=None) for finding in findings], parsed  # its edits are of other text
        if not checks_parse:
            return [], False
        if python_error is None:
            message = f"cannot parse: {error.message}".splitlines()[0]
            python_error = _SyntaxProblem(error.raw_line, error.raw_column + 1, message)
        return [parse_error_finding(path, *python_error)], False
    except RecursionError:
        return ([parse_error_finding(path, *_TOO_DEEP)] if checks_parse else []), False


_CHECKED = cst.CSTNode.__post_init__
_INDENT = re.compile(r"^[ \t]+", re.MULTILINE)


def _indentation_expanded(text: str) -> str:
    """`text` with the tabs of every line's indentation expanded to columns of eight, as
    CPython reads them: LibCST's tokenizer rejects some mixes CPython accepts (eight spaces
    then three tabs after a line of three tabs). Only the lines' columns change."""
    return _INDENT.sub(lambda found: found.group().expandtabs(8), text)


def _parse_valid(text: str) -> cst.Module:
    """LibCST's tree of `text`, which CPython has parsed: without the check LibCST makes of
    every node it builds (that each field holds what the grammar allows), which costs a
    fifth of the parse and re-checks what CPython's parser has just accepted. Nodes built
    meanwhile by another thread are not checked either (torchlint builds no invalid ones)."""
    cst.CSTNode.__post_init__ = _unchecked  # type: ignore[method-assign]
    try:
        return cst.parse_module(text)
    finally:
        cst.CSTNode.__post_init__ = _CHECKED  # type: ignore[method-assign]


def _unchecked(node: cst.CSTNode) -> None:
    """A node's `__post_init__` without its validation."""


class _PlainTypeChecks(abc.ABCMeta):
    """LibCST's node classes with `isinstance` and `issubclass` answered from the class
    hierarchy, as for a plain class. Every LibCST node class is an abstract base class, whose
    checks go through `ABCMeta`'s Python-level hooks and their caches of virtual subclasses:
    the analysis makes millions of such checks, at about twice the cost of a plain one. LibCST
    registers no virtual subclasses, so the answers are the same."""

    __instancecheck__ = type.__instancecheck__
    __subclasscheck__ = type.__subclasscheck__


def _use_plain_type_checks(root: type) -> None:
    """Give `root` and every class derived from it `_PlainTypeChecks` as its metaclass."""
    pending = [root]
    while pending:
        node_class = pending.pop()
        if type(node_class) is abc.ABCMeta:
            node_class.__class__ = _PlainTypeChecks
            pending.extend(node_class.__subclasses__())


_use_plain_type_checks(cst.CSTNode)


class _SyntaxProblem(NamedTuple):
    line: int
    column: int
    message: str

    @property
    def too_deep(self) -> bool:
        return self.message in (_TOO_DEEP.message, "cannot parse: too many nested parentheses")


_TOO_DEEP = _SyntaxProblem(1, 1, "cannot parse: the code is nested too deeply to analyse")


def _syntax_problem(text: str) -> Optional[_SyntaxProblem]:
    """What CPython's parser says is wrong with `text`, if anything (see `nests_too_deeply`:
    a text whose tree was built for the project index is not parsed again)."""
    try:
        return _TOO_DEEP if nests_too_deeply(text) else None
    except SyntaxError as error:
        return _SyntaxProblem(error.lineno or 1, max(error.offset or 1, 1), f"cannot parse: {error.msg}")
    except (RecursionError, MemoryError):
        return _TOO_DEEP
    except ValueError as error:  # source code string cannot contain null bytes
        return _SyntaxProblem(1, 1, f"cannot parse: {error}")


def parse_error_finding(path: str, line: int, column: int, message: str) -> Finding:
    rule = Rule._registry[PARSE_ERROR]
    return Finding(PARSE_ERROR, rule.name, message, path, line, column, line, column, None, rule.doc_url())


def _finding(
    report: Report, path: str, positions: Mapping[cst.CSTNode, CodeRange], module: cst.Module, lines: Sequence[str],
    statements: Mapping[int, cst.CSTNode],
) -> Finding:
    rule = report.rule
    span = to_span(positions[report.start or report.node], positions[report.node])
    fix = None
    message = report.message
    pending = report.fix
    if pending is not None and pending.edits and all(_keeps_comments(edit) for edit in pending.edits):
        edits = tuple(_edit(edit, positions, module, lines, statements.get(id(edit.node))) for edit in pending.edits)
        if all(edit is not None for edit in edits):
            fix = Fix(pending.applicability, edits, pending.message)  # type: ignore[arg-type]
    if pending is not None and pending.reason:
        message += f" (fix: {'unsafe' if fix is not None else 'none'}: {pending.reason})"
    return Finding(rule.code, rule.name, message, path, *span, fix, rule.doc_url())


def _nodes_to_place(reports: Sequence[Report]) -> List[cst.CSTNode]:
    """Every node whose position a finding or one of its edits needs."""
    nodes: List[cst.CSTNode] = []
    for report in reports:
        nodes.append(report.node)
        if report.start is not None:
            nodes.append(report.start)
        if report.fix is not None:
            nodes.extend(_anchor(edit) for edit in report.fix.edits)
    return nodes


def _edited_statements(module: cst.Module, reports: Sequence[Report]) -> Dict[int, cst.CSTNode]:
    """For each node an edit replaces with a node, the innermost statement holding it, by the
    node's id: its continuation lines are indented from that statement's line."""
    parents = None
    found: Dict[int, cst.CSTNode] = {}
    for edit in (edit for report in reports if report.fix is not None for edit in report.fix.edits):
        if not isinstance(edit.content, cst.CSTNode) or edit.insert_before or edit.insert_after:
            continue
        parents = module_nodes(module).parents if parents is None else parents
        node: Optional[cst.CSTNode] = edit.node
        while node is not None and not isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            node = parents.get(id(node))
        if node is not None:
            found[id(edit.node)] = node
    return found


def _anchor(edit: NodeEdit) -> cst.CSTNode:
    """The node whose position an edit uses: text inserted before a decorated `def` or
    `class` goes above its first decorator, never between a decorator and the definition."""
    node = edit.node
    if edit.insert_before and isinstance(node, (cst.FunctionDef, cst.ClassDef)) and node.decorators:
        return node.decorators[0]
    return node


def _line_deletion(where: CodeRange, lines: Sequence[str]) -> Optional[Edit]:
    """Delete the lines from the node's first to its last, if nothing else (no other
    statement, no comment) shares them."""
    first, last = lines[where.start.line - 1], lines[where.end.line - 1]
    if first[: where.start.column].strip() or last[where.end.column :].strip():
        return None
    if where.end.line < len(lines):
        return Edit(where.start.line, 1, where.end.line + 1, 1, "")
    return Edit(where.start.line, 1, where.end.line, len(last) + 1, "")


def _keeps_comments(edit: NodeEdit) -> bool:
    """A replacement must not drop a comment that sat inside the replaced code."""
    if edit.delete_lines:
        return not comments(edit.node)
    if edit.insert_before or edit.insert_after or not isinstance(edit.content, cst.CSTNode):
        return True
    return comments(edit.node) == comments(edit.content)


def _code_for(module: cst.Module, node: cst.CSTNode, indent: str) -> str:
    """Code for `node` as it will sit in the file: continuation lines get the indentation of
    the line it starts on (LibCST's own `code_for_node` renders it at module level)."""
    state = CodegenState(default_indent=module.default_indent, default_newline=module.default_newline)
    if indent:
        state.increase_indent(indent)
    node._codegen(state)
    return "".join(state.tokens)


def _edit(
    edit: NodeEdit, positions: Mapping[cst.CSTNode, CodeRange], module: cst.Module, lines: Sequence[str],
    statement: Optional[cst.CSTNode] = None,
) -> Optional[Edit]:
    """The text edit for a tree edit; None when it cannot be made without touching other code.
    A node's continuation lines are indented from the line of its `statement` (LibCST keeps
    them relative to the block), not from the line the node starts on."""
    where = positions[_anchor(edit)]
    if edit.delete_lines:
        return _line_deletion(where, lines)
    content = edit.content
    if isinstance(content, cst.CSTNode):
        if hasattr(content, "lpar"):
            content = content.with_changes(lpar=(), rpar=())
        first = positions[statement].start.line if statement is not None and statement in positions else where.start.line
        line = lines[first - 1] if first <= len(lines) else ""
        content = _code_for(module, content, line[: len(line) - len(line.lstrip(" \t"))])
    elif module.default_newline != "\n":
        content = content.replace("\n", module.default_newline)
    if edit.insert_before:
        return Edit(where.start.line, where.start.column + 1, where.start.line, where.start.column + 1, content)
    if edit.insert_after:
        # At the end of the node's last line, after any trailing comment.
        line = where.end.line
        column = len(lines[line - 1]) + 1 if line <= len(lines) else where.end.column + 1
        return Edit(line, column, line, column, content)
    return Edit(*to_span(where, where), content)
