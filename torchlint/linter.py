"""Linting one source text: parse once, walk once, position and filter what the rules reported."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Mapping, Optional, Sequence, Tuple, Type

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst.metadata import CodeRange

from torchlint.context import FileContext, Options
from torchlint.findings import Edit, Finding, Fix
from torchlint.noqa import is_suppressed
from torchlint.positions import compute_positions, to_span
from torchlint.rule import NodeEdit, Report, Rule
from torchlint.walker import walk

PARSE_ERROR = "TL000"


@dataclass(frozen=True)
class LintResult:
    findings: Tuple[Finding, ...]
    # The parsed module, kept for the fixer; None when the file did not parse or was skipped.
    module: Optional[cst.Module] = None


def lint_text(text: str, path: str, rules: Sequence[Type[Rule]], options: Options) -> LintResult:
    """All findings of `rules` in `text`, with `# noqa` comments applied."""
    checks_parse = any(rule.code == PARSE_ERROR for rule in rules)
    analysing = [rule for rule in rules if rule.code != PARSE_ERROR]
    if not any(rule.may_apply(text) for rule in analysing):
        if not checks_parse or _compiles(text):
            return LintResult(())
    try:
        module = cst.parse_module(text)
    except cst.ParserSyntaxError as error:
        if not checks_parse:
            return LintResult(())
        return LintResult((_syntax_error_finding(path, text, error),))
    except (RecursionError, MemoryError):
        return LintResult((parse_error_finding(path, 1, 1, "file is too deeply nested to analyse"),))
    ctx = FileContext(module, text, path, options)
    walk(ctx, [rule(ctx) for rule in analysing])
    reports = [r for r in ctx.reports if ctx.names.imports_torch or not r.rule.requires_torch]
    if not reports:
        return LintResult((), module)
    lines = text.splitlines()
    positions = compute_positions(module)
    findings = []
    for report in reports:
        finding = _finding(report, path, positions, module, lines)
        line = lines[finding.line - 1] if finding.line <= len(lines) else ""
        if not is_suppressed(finding.code, line):
            findings.append(finding)
    return LintResult(tuple(sorted(set(findings), key=lambda f: f.sort_key)), module)


def parse_error_finding(path: str, line: int, column: int, message: str) -> Finding:
    rule = Rule._registry[PARSE_ERROR]
    return Finding(PARSE_ERROR, rule.name, message, path, line, column, line, column, None, rule.doc_pointer())


def _compiles(text: str) -> bool:
    """A fast syntax check with CPython's parser; LibCST confirms any error it reports."""
    try:
        compile(text, "<torchlint>", "exec", ast.PyCF_ONLY_AST)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _syntax_error_finding(path: str, text: str, error: cst.ParserSyntaxError) -> Finding:
    """Prefer CPython's message and position, which users know; fall back to LibCST's."""
    try:
        compile(text, path, "exec", ast.PyCF_ONLY_AST)
    except SyntaxError as python_error:
        if python_error.lineno:
            message = f"cannot parse: {python_error.msg}"
            return parse_error_finding(path, python_error.lineno, max(python_error.offset or 1, 1), message)
    except (ValueError, RecursionError, MemoryError):
        pass
    message = f"cannot parse: {error.message}".splitlines()[0]
    return parse_error_finding(path, error.raw_line, error.raw_column + 1, message)


def _finding(
    report: Report, path: str, positions: Mapping[cst.CSTNode, CodeRange], module: cst.Module, lines: Sequence[str]
) -> Finding:
    rule = report.rule
    span = to_span(positions[report.start or report.node], positions[report.node])
    fix = None
    if report.fix is not None:
        edits = tuple(_edit(edit, positions, module, lines) for edit in report.fix.edits)
        fix = Fix(report.fix.applicability, edits, report.fix.message)
    return Finding(rule.code, rule.name, report.message, path, *span, fix, rule.doc_pointer())


def _code_for(module: cst.Module, node: cst.CSTNode, indent: str) -> str:
    """Code for `node` as it will sit in the file: continuation lines get the indentation of
    the line it starts on (LibCST's own `code_for_node` renders it at module level)."""
    state = CodegenState(default_indent=module.default_indent, default_newline=module.default_newline)
    if indent:
        state.increase_indent(indent)
    node._codegen(state)
    return "".join(state.tokens)


def _edit(edit: NodeEdit, positions: Mapping[cst.CSTNode, CodeRange], module: cst.Module, lines: Sequence[str]) -> Edit:
    where = positions[edit.node]
    content = edit.content
    if isinstance(content, cst.CSTNode):
        if hasattr(content, "lpar"):
            content = content.with_changes(lpar=(), rpar=())
        line = lines[where.start.line - 1] if where.start.line <= len(lines) else ""
        content = _code_for(module, content, line[: len(line) - len(line.lstrip(" \t"))])
    elif module.default_newline != "\n":
        content = content.replace("\n", module.default_newline)
    if edit.insert_before or edit.insert_after:
        point = where.start if edit.insert_before else where.end
        return Edit(point.line, point.column + 1, point.line, point.column + 1, content)
    return Edit(*to_span(where, where), content)
