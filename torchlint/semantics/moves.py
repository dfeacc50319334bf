"""Values created on the host and moved to a device by a later statement of the same scope.

`mask = torch.BoolTensor(x.size()).fill_(0)` then `if x.is_cuda: mask = mask.cuda()`, or
`eta = torch.FloatTensor(b, 1).uniform_()`, `eta = eta.expand(...)`, `eta = eta.cuda()`:
the name holds the created tensor, followed through steps that keep it where it is
(`devices.SAME_PLACE_METHODS`) and through elementwise computations of created values with
number literals (`weights = 1 / torch.log2(position.float())`: a new tensor on the host as
well), and to a new name that takes it through such steps (`expanded = seq_range.unsqueeze(0).
expand(b, n)`, when the scope writes the old name nowhere else), until it is moved. The creation and the move must be in the
same loop (or both outside loops) and nothing may read the name in between: a host use of
the value (`table[idx]` before `idx = idx.cuda()`) is a reason to create it there.

A function may also return such a value for its caller to move (`def sample_gumbel(shape,
eps=1e-10): U = torch.rand(shape); return -torch.log(eps - torch.log(U + eps))`, then
`sample_gumbel(size).cuda()`): `returned_creations` names the calls that made it. In
computations a parameter that defaults to a number (`eps`) counts as a number literal.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable, Dict, FrozenSet, List, Optional, Sequence, Tuple

import libcst as cst

from torchlint.semantics.calls import method_call, number_literal
from torchlint.semantics.devices import SAME_PLACE_METHODS, same_place_source
from torchlint.semantics.names import dotted_name
from torchlint.semantics.training import called_function
from torchlint.semantics.tree import bound_names, descendants, names_bound_by, scope_descendants

# Joins of tensors whose result is a new tensor where its parts are.
JOINS = frozenset({"torch.cat", "torch.stack", "torch.concat", "torch.hstack", "torch.vstack"})
# Calls that copy a tensor to a named device, and those that may copy it to where another
# tensor is (`type_as`), which a helper returning it does not show to be a device.
DEVICE_MOVES = ("cuda", "to")
MOVES = (*DEVICE_MOVES, "type_as")
# Elementwise methods and `torch` functions (and reductions) whose result is a new tensor
# where their operands are.
ELEMENTWISE = frozenset(
    "abs neg exp log log2 log10 log1p sqrt rsqrt reciprocal sigmoid tanh sin cos pow clamp clip floor ceil round sign "
    "sum mean cumsum cumprod eq ne lt le gt ge logical_not".split()
)
Loop = Optional[cst.CSTNode]
QualifiedName = Callable[[cst.BaseExpression], Optional[str]]


def returns_moved(function: cst.FunctionDef, parameter: str) -> bool:
    """Whether the function returns `parameter` moved to a device: `return x.cuda()`,
    `return Variable(x).cuda(self.index)`, `return Variable(x.cuda())`, `return
    x.to(self.device)` (on some path)."""
    for node in scope_descendants(function.body):
        if not isinstance(node, cst.Return) or node.value is None:
            continue
        returned = node.value
        if isinstance(returned, cst.Call) and isinstance(returned.func, cst.Name) and len(returned.args) == 1:
            returned = returned.args[0].value  # a wrapper of the moved value, `Variable(x.cuda())`
        found = method_call(returned)
        if found is None or found[1] not in DEVICE_MOVES:
            continue  # `x.type_as(ref)`: where `ref` is, which the helper does not say
        moved = found[0]
        if isinstance(moved, cst.Call) and len(moved.args) == 1:
            moved = moved.args[0].value  # a wrapper such as the deprecated `Variable(x)`
        if isinstance(moved, cst.Name) and moved.value == parameter:
            return True
    return False


def moving_parameter(call: cst.Call, functions: Dict[str, List[cst.FunctionDef]]) -> Optional[Tuple[cst.Arg, cst.FunctionDef]]:
    """The argument of `call` that a same-file helper returns moved to a device
    (`get_variable(z)` with `return Variable(arg).cuda()`), with the helper; None otherwise."""
    for function in called_function(call, functions)[:1]:
        parameters = [p.name.value for p in function.params.params]
        if parameters and parameters[0] in ("self", "cls") and isinstance(call.func, cst.Attribute):
            parameters = parameters[1:]
        for arg, parameter in zip(call.args, parameters):
            if arg.keyword is not None or arg.star:
                break
            if returns_moved(function, parameter):
                return arg, function
    return None


def later_moves(
    scope: cst.CSTNode, functions: Callable[[], Dict[str, List[cst.FunctionDef]]], qualified_name: QualifiedName = dotted_name
) -> Dict[int, Tuple[cst.Call, ...]]:
    """For each call of `scope` (a function, or a module without its functions) that moves a
    name's value to a device (`mask.cuda()`, `x.to(device)`, or a same-file helper, among
    `functions()`, that returns its argument moved), by id, the calls that created the value
    (several when it joins created values: `lbl = torch.cat((lbl_1, lbl_2), 1)`)
    when an earlier statement of the same scope and loop assigned it and nothing read it since
    (see the module docstring). Whether that call is a host factory, and the move's target a
    device, is the caller's question. `qualified_name` resolves the file's names (the
    deprecated `Variable(...)` wrapper, however imported). One walk of the scope; ask once per
    scope."""
    return _walked(scope, functions, qualified_name).found


def returned_creations(
    function: cst.FunctionDef, functions: Callable[[], Dict[str, List[cst.FunctionDef]]], qualified_name: QualifiedName = dotted_name
) -> Tuple[cst.Call, ...]:
    """The calls that made the value `function` returns, when every `return` of it returns a
    value made by a call of the function and not moved or read since (`return torch.rand(n)`,
    `U = torch.rand(shape)` then `return -torch.log(U + eps)`; whether each is a host factory
    is the caller's question); () otherwise, and for a generator."""
    nodes = list(scope_descendants(function.body))
    returns = [node for node in nodes if isinstance(node, cst.Return)]
    if not returns or any(isinstance(node, (cst.Yield, cst.Await)) for node in nodes):
        return ()
    returned = _walked(function, functions, qualified_name).returned
    if len(returned) != len(returns) or not all(returned):
        return ()
    found: Dict[int, cst.Call] = {id(call): call for calls in returned for call in calls}
    return tuple(found.values())


def _walked(scope: cst.CSTNode, functions: Callable[[], Dict[str, List[cst.FunctionDef]]], qualified_name: QualifiedName) -> "_Walk":
    """One walk of the statements of `scope` (a function, or a module without its functions)."""
    walk = _Walk(functions, _number_parameters(scope) if isinstance(scope, cst.FunctionDef) else frozenset(), scope, qualified_name)
    body = scope.body  # type: ignore[attr-defined]  # a module's statements, or a function's block
    walk.block(body.body if isinstance(body, cst.IndentedBlock) else [body] if isinstance(body, cst.BaseSuite) else body, None)
    return walk


def _number_parameters(function: cst.FunctionDef) -> FrozenSet[str]:
    """The parameters of `function` that default to a number literal (`eps=1e-10`)."""
    params = function.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    return frozenset(param.name.value for param in every if param.default is not None and number_literal(param.default))


class _Walk:
    """Statements of one scope in source order, with the names whose created value is still
    unread (`pending`: name -> (creating call, enclosing loop))."""

    def __init__(
        self, functions: Callable[[], Dict[str, List[cst.FunctionDef]]], numbers: FrozenSet[str], scope: cst.CSTNode, qualified_name: QualifiedName
    ) -> None:
        self.functions = functions  # asked only when a helper may move a pending name
        self.qualified_name = qualified_name
        self.numbers = numbers  # parameters that default to a number, read as one
        self.scope = scope
        self._spellings: Optional[Counter] = None  # how often each name is written in the scope, nested scopes included
        self.pending: Dict[str, Tuple[Tuple[cst.Call, ...], Loop]] = {}
        self.found: Dict[int, Tuple[cst.Call, ...]] = {}
        # For each `return` walked, in order, the calls that made the value it returns (or ()).
        self.returned: List[Tuple[cst.Call, ...]] = []

    def block(self, statements: Sequence[cst.CSTNode], loop: Loop) -> None:
        for statement in statements:
            self.statement(statement, loop)

    def statement(self, statement: cst.CSTNode, loop: Loop) -> None:
        if isinstance(statement, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            for small in statement.body:
                self.simple(small, loop)
        elif isinstance(statement, cst.If):
            self.expression(statement.test, loop)
            self.suite(statement.body, loop)
            if statement.orelse is not None:
                self.statement(statement.orelse, loop)
        elif isinstance(statement, cst.Else):
            self.suite(statement.body, loop)
        elif isinstance(statement, (cst.For, cst.While)):
            self.expression(statement.iter if isinstance(statement, cst.For) else statement.test, loop)
            for name in bound_names(statement.target) if isinstance(statement, cst.For) else ():
                self.pending.pop(name, None)
            self.suite(statement.body, statement)
            if statement.orelse is not None:
                self.suite(statement.orelse.body, loop)
        elif isinstance(statement, cst.With):
            for item in statement.items:
                self.expression(item, loop)  # the `as` name too: it is bound anew
            self.suite(statement.body, loop)
        elif isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            self.pending.pop(statement.name.value, None)  # their bodies are scopes of their own
        elif isinstance(statement, cst.Try):
            self.suite(statement.body, loop)
            for part in (*statement.handlers, statement.orelse, statement.finalbody):
                self.pending = {}  # a handler or later part may run after any statement of the body
                if part is not None:
                    self.suite(part.body, loop)
        else:
            self.pending = {}  # `match`, `try*`, ...: not followed

    def suite(self, body: cst.BaseSuite, loop: Loop) -> None:
        self.block(body.body if isinstance(body, cst.IndentedBlock) else [body], loop)

    def expression(self, node: cst.CSTNode, loop: Loop, kept: Optional[cst.Name] = None) -> List[cst.CSTNode]:
        """Record the moves of pending names in `node`, then forget the names it reads otherwise
        (`kept`: the name a same-place step reads, `eta` in `eta = eta.expand(...)`); the nodes
        of `node` that run in this scope, none while no name is pending (nothing to forget)."""
        if not self.pending:
            return []  # no move of a created value to record
        used = {id(kept)}
        nodes = list(scope_descendants(node))
        for item in nodes:
            if isinstance(item, cst.Call):
                moved = self._moved_name(item, loop)
                if moved is not None:
                    self.found[id(item)] = self.pending.pop(moved.value)[0]
                    used.add(id(moved))
        for item in nodes:
            if isinstance(item, cst.Name) and id(item) not in used:
                self.pending.pop(item.value, None)
        return nodes

    def simple(self, small: cst.CSTNode, loop: Loop) -> None:
        if isinstance(small, cst.Return):
            self.returned.append(self._made(small.value, loop) if small.value is not None else ())
        filled = _filled_in_place(small)
        if filled is not None and filled in self.pending and self.pending[filled][1] is loop:
            return  # `b[:, 0] = 4`, `b.fill_(1)`: still the created value, written where it is
        if not isinstance(small, cst.Assign) or len(small.targets) != 1 or not isinstance(small.targets[0].target, cst.Name):
            for node in self.expression(small, loop):
                for name in names_bound_by(node):
                    self.pending.pop(name, None)
            return
        name = small.targets[0].target.value
        source = same_place_source(small.value, self.qualified_name, lambda _: None)
        previous = self.pending.get(name)
        if isinstance(source, cst.Name) and source.value == name and previous is not None and previous[1] is loop:
            self.expression(small.value, loop, kept=source)
            self.pending[name] = previous  # `eta = eta.expand(...)`: still the created value
            return
        joined = self._joined(small.value, loop) or self._derived(small.value, loop) or self._handed_on(source, loop)
        self.expression(small.value, loop)
        if joined:
            # `lbl = torch.cat((lbl_1, lbl_2), 1)` or `weights = 1 / torch.log2(position.float())` of created values
            self.pending[name] = (joined, loop)
        elif isinstance(source, cst.Call) and id(small.value) not in self.found and not _is_move(source):
            self.pending[name] = ((source,), loop)
        else:
            self.pending.pop(name, None)

    def _made(self, value: cst.BaseExpression, loop: Loop) -> Tuple[cst.Call, ...]:
        """The calls that made `value` (a returned value): a call that is no move, a pending
        name of any loop, or a join or computation of pending names; () for anything else."""
        source = same_place_source(value, self.qualified_name, lambda _: None)
        if isinstance(source, cst.Name) and source.value in self.pending:
            return self.pending[source.value][0]
        joined = self._joined(value, loop) or self._derived(value, loop)
        if joined:
            return joined
        return (source,) if isinstance(source, cst.Call) and not _is_move(source) else ()

    def _handed_on(self, source: Optional[cst.BaseExpression], loop: Loop) -> Tuple[cst.Call, ...]:
        """The creations a pending name of this loop holds when a new name takes its value
        through steps that keep it where it is (`seq_range_expand = seq_range.unsqueeze(0).
        expand(b, n)`), and the scope (with the functions nested in it, which may read it too)
        writes the old name nowhere but where it is bound and here: no later read of the old
        name can be a host use of the value. () otherwise."""
        if not (isinstance(source, cst.Name) and source.value in self.pending and self.pending[source.value][1] is loop):
            return ()
        if self._spellings is None:
            self._spellings = Counter(node.value for node in descendants(self.scope) if isinstance(node, cst.Name))
        return self.pending[source.value][0] if self._spellings[source.value] == 2 else ()

    def _joined(self, value: cst.BaseExpression, loop: Loop) -> Tuple[cst.Call, ...]:
        """The creations a `torch.cat`/`torch.stack` of pending names of this loop joins (`(lbl_1,
        lbl_2)`, with a literal dimension at most); () for any other value."""
        if not (isinstance(value, cst.Call) and dotted_name(value.func) in JOINS and value.args):
            return ()
        parts = value.args[0].value
        rest = value.args[1:]
        if not isinstance(parts, (cst.Tuple, cst.List)) or any(not isinstance(arg.value, cst.Integer) for arg in rest):
            return ()
        names = [element.value for element in parts.elements]
        if not names or not all(isinstance(item, cst.Name) and item.value in self.pending and self.pending[item.value][1] is loop for item in names):
            return ()
        return tuple(call for item in names for call in self.pending[item.value][0])  # type: ignore[union-attr]

    def _derived(self, value: cst.BaseExpression, loop: Loop) -> Tuple[cst.Call, ...]:
        """The creations an elementwise computation of pending names of this loop with number
        literals is made from (`(labels.unsqueeze(0) == labels.unsqueeze(1)).float()`, `1 /
        torch.log2(position.float())`): a new tensor on the host as well. () when it reads
        anything else, which may be on the device."""
        names: List[cst.Name] = []
        if not self._computed_from(value, loop, names) or not names:
            return ()
        found: Dict[int, cst.Call] = {id(call): call for name in names for call in self.pending[name.value][0]}
        return tuple(found.values())

    def _computed_from(self, node: cst.BaseExpression, loop: Loop, names: List[cst.Name]) -> bool:
        """Whether `node` computes only with pending names of this loop (collected in `names`,
        at least one) and number literals, by arithmetic, comparisons, `SAME_PLACE_METHODS` and
        the elementwise `ELEMENTWISE` methods or `torch` functions."""
        if number_literal(node) or (isinstance(node, cst.Name) and node.value in self.numbers and node.value not in self.pending):
            return True
        if isinstance(node, cst.Name):
            names.append(node)
            return node.value in self.pending and self.pending[node.value][1] is loop
        if isinstance(node, cst.BinaryOperation):
            return self._computed_from(node.left, loop, names) and self._computed_from(node.right, loop, names)
        if isinstance(node, cst.UnaryOperation):
            return self._computed_from(node.expression, loop, names)
        if isinstance(node, cst.Comparison):
            parts = [node.left, *(target.comparator for target in node.comparisons)]
            return all(self._computed_from(part, loop, names) for part in parts)
        if not isinstance(node, cst.Call) or any(arg.star for arg in node.args):
            return False
        found = method_call(node)
        if dotted_name(node.func) in {f"torch.{name}" for name in ELEMENTWISE}:
            operands = []
        elif found is not None and found[1] in SAME_PLACE_METHODS | ELEMENTWISE:
            operands = [found[0]]
        else:
            return False
        if any(arg.keyword is not None and not number_literal(arg.value) for arg in node.args):
            return False  # `dim=1`, not `out=` or `device=`
        operands += [arg.value for arg in node.args if arg.keyword is None]
        return bool(operands) and all(self._computed_from(operand, loop, names) for operand in operands)

    def _moved_name(self, call: cst.Call, loop: Loop) -> Optional[cst.Name]:
        """The pending name `call` moves to a device in this loop, if it moves one."""
        found = method_call(call)
        if found is not None and found[1] in MOVES:
            moved = same_place_source(found[0], self.qualified_name, lambda _: None)
        else:
            read = any(isinstance(arg.value, cst.Name) and arg.value.value in self.pending for arg in call.args)
            helper = moving_parameter(call, self.functions()) if read else None
            moved = helper[0].value if helper is not None else None
        if isinstance(moved, cst.Name) and moved.value in self.pending and self.pending[moved.value][1] is loop:
            return moved
        return None


def _filled_in_place(small: cst.CSTNode) -> Optional[str]:
    """The name a statement writes constants into in place, reading nothing else: `b[:, 0] =
    4`, `mask[0] = True`, `b.fill_(1)`, `b.uniform_(-1, 1)`; such a write runs as well on
    the device, so the value may be created there. None for other statements."""
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Subscript):
        target = small.targets[0].target
        name, parts = target.value, [*target.slice, small.value]
    elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) and isinstance(small.value.func, cst.Attribute):
        method = small.value.func
        if not method.attr.value.endswith("_") or method.attr.value.startswith("_"):
            return None
        name, parts = method.value, list(small.value.args)
    else:
        return None
    if not isinstance(name, cst.Name):
        return None
    constant = all(
        not isinstance(item, (cst.Name, cst.Attribute, cst.Call, cst.Await, cst.Yield, cst.NamedExpr)) or (isinstance(item, cst.Name) and item.value in ("True", "False", "None"))
        for part in parts for item in scope_descendants(part)
    )
    return name.value if constant else None


def _is_move(call: cst.Call) -> bool:
    found = method_call(call)
    return found is not None and found[1] in MOVES
