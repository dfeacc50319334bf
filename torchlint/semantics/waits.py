"""Read-backs that find the device idle: the iteration already waited.

A read-back (`.item()`, `.cpu()`, `.tolist()`, `.numpy()`) copies its tensor to the host
after everything queued before it on the stream has run: the first one in a step waits for
the forward, backward and optimizer step. A second one right after it, with only host work in
between (Python arithmetic on the numbers read, appending to lists, logging, a progress bar's
postfix), finds nothing queued: it copies a value that is ready, and fixing it alone would save
nothing, since the first read still waits (`epoch_g_loss += g_loss.item()` then
`epoch_d_loss += d_loss.item()`).

This module decides that from the statements of the loop's body: the statement that holds the
read, and every statement before it up to an earlier read-back in the same iteration, are
simple statements of host work only, in the same block or in blocks of `if` statements whose
tests are host work too. Anything else (a call that may queue device work, arithmetic on values
of unknown kind, a nested loop, a `with` block) keeps the read a wait of its own.
"""

from __future__ import annotations

from typing import Callable, Dict, Optional

import libcst as cst

from torchlint.semantics.names import dotted_name
from torchlint.semantics.tree import descendants

# Methods that read a tensor back to the host (without arguments), or make a view of it.
READ_BACKS = frozenset({"item", "cpu", "tolist", "numpy"})
_VIEWS = frozenset({"detach"})
# Builtins and methods that only do host work on the numbers and containers they are given.
_HOST_BUILTINS = frozenset({"print", "len", "str", "float", "int", "round", "format", "isinstance", "repr", "abs"})
_HOST_METHODS = frozenset(
    {"append", "extend", "insert", "set_postfix", "set_postfix_str", "set_description", "write", "log", "info", "debug", "warning", "format", "join"}
)
# Expressions that hold no computation of their own.
_PLAIN = (cst.Name, cst.Attribute, cst.SimpleString, cst.Integer, cst.Float)


def waited_before(node: cst.Call, loop: cst.CSTNode, parents: Dict[int, cst.CSTNode], on_host: Callable[[cst.BaseExpression], bool]) -> bool:
    """Whether, in the same iteration of `loop`, an earlier statement read a device value back
    (a receiver `on_host` does not know to be on the host) with only host work since, so that
    the read-back `node` finds nothing queued (see the module docstring)."""
    current: Optional[cst.CSTNode] = _statement(node, parents)
    if current is None or not _host_work(current):
        return False
    while current is not None and current is not loop:
        block = parents.get(id(current))
        if not isinstance(block, cst.IndentedBlock):
            return False
        index = next(position for position, item in enumerate(block.body) if item is current)
        for earlier in reversed(block.body[:index]):
            if not isinstance(earlier, cst.SimpleStatementLine):
                return False
            if _reads_back(earlier, on_host) and _host_work(earlier, after_reads=True):
                return True  # whatever it computed, its read waited for it, and host work followed
            if not _host_work(earlier):
                return False
        current = _enclosing_if(block, parents)
    return False


def _statement(node: cst.CSTNode, parents: Dict[int, cst.CSTNode]) -> Optional[cst.SimpleStatementLine]:
    current = parents.get(id(node))
    while current is not None and not isinstance(current, (cst.SimpleStatementLine, cst.BaseCompoundStatement, cst.Lambda, cst.FunctionDef)):
        current = parents.get(id(current))
    return current if isinstance(current, cst.SimpleStatementLine) else None


def _enclosing_if(block: cst.IndentedBlock, parents: Dict[int, cst.CSTNode]) -> Optional[cst.CSTNode]:
    """The `if` statement whose body or `else` is `block`, when its tests are host work (an
    `elif` chain climbs to its first `if`); None for any other block."""
    owner = parents.get(id(block))
    if isinstance(owner, cst.Else):
        owner = parents.get(id(owner))
    while isinstance(owner, cst.If):
        if not _host_expression(owner.test):
            return None
        parent = parents.get(id(owner))
        if not isinstance(parent, cst.If) or parent.orelse is not owner:
            return owner
        owner = parent
    return None


def _reads_back(statement: cst.SimpleStatementLine, on_host: Callable[[cst.BaseExpression], bool]) -> bool:
    return any(
        isinstance(item, cst.Call) and isinstance(item.func, cst.Attribute) and item.func.attr.value in READ_BACKS
        and not item.args and not on_host(item.func.value)
        for item in descendants(statement)
    )


def _host_work(statement: cst.SimpleStatementLine, after_reads: bool = False) -> bool:
    """Whether every small statement is host work: a call of `_host_call`, an assignment of a
    host expression, `pass`. `after_reads`: what a read-back's receiver computes counts as
    done before it (the read waits for it)."""
    for small in statement.body:
        if isinstance(small, cst.Expr):
            if not (isinstance(small.value, cst.Call) and _host_expression(small.value, after_reads)):
                return False
        elif isinstance(small, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            if small.value is None or not _host_expression(small.value, after_reads):
                return False
        elif not isinstance(small, cst.Pass):
            return False
    return True


def _host_expression(expression: cst.BaseExpression, after_reads: bool = False) -> bool:
    """A read-back, a host call of host expressions, a plain value, or arithmetic with a
    number read back (`loss.item() * n`)."""
    if isinstance(expression, cst.Call):
        if after_reads and _read_back(expression):
            return True
        return _host_call(expression) and all(_host_expression(arg.value, after_reads) for arg in expression.args)
    if isinstance(expression, (cst.BinaryOperation, cst.Comparison)):
        operands = [expression.left, expression.right] if isinstance(expression, cst.BinaryOperation) else [
            expression.left, *(item.comparator for item in expression.comparisons)
        ]
        read = any(_read_back(item) for item in operands)  # a number read back (a tensor times 2 is device work)
        return read and all(_host_expression(item, after_reads) for item in operands)
    if isinstance(expression, (cst.Dict, cst.List, cst.Tuple)):
        values = [getattr(element, "value", None) for element in expression.elements]
        return all(value is not None and _host_expression(value, after_reads) for value in values)
    if isinstance(expression, cst.FormattedString):
        return all(_host_expression(part.expression, after_reads) for part in expression.parts if isinstance(part, cst.FormattedStringExpression))
    if isinstance(expression, cst.Subscript):  # `optimizer.param_groups[0]["lr"]`: a literal key
        keys = [element.slice.value for element in expression.slice if isinstance(element.slice, cst.Index)]
        return len(keys) == len(expression.slice) and all(isinstance(key, (cst.Integer, cst.SimpleString)) for key in keys) and _host_expression(expression.value, after_reads)
    return isinstance(expression, _PLAIN)


def _read_back(expression: cst.BaseExpression) -> bool:
    return isinstance(expression, cst.Call) and isinstance(expression.func, cst.Attribute) and expression.func.attr.value in READ_BACKS


def _host_call(call: cst.Call) -> bool:
    func = call.func
    if isinstance(func, cst.Name):
        return func.value in _HOST_BUILTINS
    if not isinstance(func, cst.Attribute):
        return False
    method = func.attr.value
    if method in READ_BACKS or method in _VIEWS:
        return not call.args and isinstance(func.value, (cst.Name, cst.Attribute, cst.Call)) and (
            not isinstance(func.value, cst.Call) or _host_call(func.value)
        )
    return method in _HOST_METHODS and dotted_name(func.value) is not None
