"""Small helpers for reading call expressions."""

from __future__ import annotations

import re
from typing import Callable, List, Optional, Set, Tuple

import libcst as cst

from torchlint.semantics.tree import descendants


def keyword(call: cst.Call, name: str) -> Optional[cst.Arg]:
    """The `name=` argument of `call`, if passed by keyword."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg
    return None


def positional(call: cst.Call) -> Tuple[cst.Arg, ...]:
    """Plain positional arguments, stopping at the first `*args`."""
    result = []
    for arg in call.args:
        if arg.keyword is not None or arg.star:
            break
        result.append(arg)
    return tuple(result)


def argument(call: cst.Call, name: str, index: int) -> Optional[cst.Arg]:
    """The argument bound to parameter `name` at position `index`, by keyword or position."""
    found = keyword(call, name)
    if found is not None:
        return found
    args = positional(call)
    return args[index] if index < len(args) else None


def has_star(call: cst.Call, stars: str = "**") -> bool:
    """Whether `call` unpacks `*args` ('*') or `**kwargs` ('**') that may supply any argument."""
    return any(arg.star == stars for arg in call.args)


def method_call(node: cst.CSTNode) -> Optional[Tuple[cst.BaseExpression, str]]:
    """(receiver, method name) for `receiver.method(...)`, else None."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        return node.func.value, node.func.attr.value
    return None


def is_literal(node: cst.BaseExpression, value: str) -> bool:
    """Whether `node` is the literal `value` (`0`, `True`, `False`, `None`)."""
    if isinstance(node, cst.Integer):
        return node.value == value
    return isinstance(node, cst.Name) and node.value == value


def number_literal(node: cst.BaseExpression) -> bool:
    """A number literal, `2`, `-1`, `0.5`."""
    if isinstance(node, cst.UnaryOperation):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float))


def with_keyword(call: cst.Call, name: str, value: cst.BaseExpression) -> cst.Call:
    """`call` with `name=value` set: replaced in place if present, otherwise appended.

    The new argument follows the call's layout: a trailing comma stays trailing, the
    whitespace before the closing parenthesis stays there, and in a call with one argument
    per line the new one goes on a line of its own.
    """
    existing = keyword(call, name)
    if existing is not None:
        return call.deep_replace(existing, existing.with_changes(value=value))  # type: ignore[return-value]
    no_space = cst.SimpleWhitespace("")
    new_arg = cst.Arg(value=value, keyword=cst.Name(name), equal=cst.AssignEqual(no_space, no_space))
    args = list(call.args)
    if not args:
        return call.with_changes(args=[new_arg])
    last = args[-1]
    separator = _separator(call, args)
    if isinstance(last.comma, cst.Comma):
        new_arg = new_arg.with_changes(comma=last.comma)
    else:
        new_arg = new_arg.with_changes(whitespace_after_arg=last.whitespace_after_arg)
        last = last.with_changes(whitespace_after_arg=no_space)
    args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=separator))
    return call.with_changes(args=[*args, new_arg])


def _separator(call: cst.Call, args: list) -> cst.BaseParenthesizableWhitespace:
    """The whitespace the call puts between arguments (a line break and indent, or a space)."""
    if len(args) > 1 and isinstance(args[-2].comma, cst.Comma):
        return args[-2].comma.whitespace_after
    if isinstance(call.whitespace_before_args, cst.ParenthesizedWhitespace):
        return call.whitespace_before_args
    return cst.SimpleWhitespace(" ")


def arguments_by_parameter(call: cst.Call, function: cst.FunctionDef) -> List[Tuple[cst.BaseExpression, str]]:
    """(argument, parameter name) for the plain and keyword arguments of `call` to the
    same-file `function` (`self`/`cls` skipped for a method called on an object), up to the
    first `*args`/`**kwargs`."""
    parameters = [param.name.value for param in function.params.params]
    if parameters and parameters[0] in ("self", "cls") and isinstance(call.func, cst.Attribute):
        parameters = parameters[1:]
    pairs = []
    for index, arg in enumerate(call.args):
        if arg.star:
            break
        if arg.keyword is not None:
            pairs.append((arg.value, arg.keyword.value))
        elif index < len(parameters):
            pairs.append((arg.value, parameters[index]))
    return pairs


ANY_ATTRIBUTE = "*"


# Calls that look up an attribute whose name they are handed as their argument at this position
# (`getattr(x, name)`, `x.__getattribute__(name)`, `inspect.getattr_static(x, name)`), by their
# last name; `attrgetter(path)` takes a dotted path.
_NAMED_LOOKUPS = {"getattr": 1, "getattr_static": 1, "__getattribute__": 0, "__getattr__": 0, "attrgetter": 0}
# Calls that run code from a string: the code may read any attribute.
_CODE_RUNNERS = frozenset({"eval", "exec"})


def attribute_read(node: cst.CSTNode) -> Optional[str]:
    """The attribute `node` reads: `x.grad` and `getattr(x, "grad")` read `grad`;
    `getattr(x, name)` with a name that is not a literal may read any (ANY_ATTRIBUTE), and so
    may `x.__getattribute__(name)`, `inspect.getattr_static(x, name)` and
    `operator.attrgetter(path)` handed a name that is not a literal
    (`attrgetter(".".join(fields))`), and `eval`/`exec` of code that is not a literal
    (`eval("model.weight.gr" + "ad")`; literal code is read by `reads_attribute`)."""
    if isinstance(node, cst.Attribute):
        return node.attr.value
    if not isinstance(node, cst.Call):
        return None
    func = node.func
    last = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else None
    if last == "getattr" and not isinstance(func, cst.Name):
        last = None  # a method named getattr of some object
    position = _NAMED_LOOKUPS.get(last or "")
    if position is not None:
        if position == 0 and last in ("__getattribute__", "__getattr__") and isinstance(func, cst.Attribute) and _unbound_dunder(func):
            position = 1  # `object.__getattribute__(x, name)`
        if len(node.args) <= position:
            return None
        name = node.args[position].value
        if node.args[position].star:
            return ANY_ATTRIBUTE
        if isinstance(name, cst.SimpleString) and isinstance(name.evaluated_value, str):
            return name.evaluated_value if last != "attrgetter" else None  # a literal path: `_names_attribute`
        if last == "attrgetter" and isinstance(name, (cst.List, cst.Tuple, cst.Set)):
            return None
        return ANY_ATTRIBUTE
    if last in _CODE_RUNNERS and isinstance(func, cst.Name) and node.args:
        code = node.args[0].value
        if isinstance(code, cst.SimpleString) and isinstance(code.evaluated_value, str):
            return None  # literal code: `reads_attribute` reads it for the attribute's name
        return ANY_ATTRIBUTE
    return None


def _unbound_dunder(func: cst.Attribute) -> bool:
    """`object.__getattribute__` or `torch.Tensor.__getattribute__`: a class's function, which
    takes the object first (a capitalised or builtin name before the dunder)."""
    owner = func.value
    name = owner.attr.value if isinstance(owner, cst.Attribute) else owner.value if isinstance(owner, cst.Name) else ""
    return name == "object" or name == "type" or name[:1].isupper()


def reads_attribute(node: cst.CSTNode, attribute: str) -> bool:
    """Whether `node` reads the attribute `attribute`, spelled out, through `getattr`, or by
    a call handed its name as a string path (`operator.attrgetter("weight.grad")`, also in a
    list or tuple, `map(getattr, params, ["grad"])`) or handed `getattr` itself
    (`functools.reduce(getattr, names, p)`, which may read any attribute), by a lookup
    handed a name that is not a literal (`attribute_read`), or by code run from a string
    that names it or is not a literal."""
    return attribute_read(node) in (attribute, ANY_ATTRIBUTE) or (
        isinstance(node, cst.Call) and any(_names_attribute(arg.value, attribute) or _is_getattr(arg.value) for arg in node.args)
    ) or _code_mentions(node, attribute)


def _code_mentions(node: cst.CSTNode, attribute: str) -> bool:
    """`eval`/`exec` of a literal string of code that mentions `attribute` as a word
    (`exec("g = p.grad")`)."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in _CODE_RUNNERS and node.args):
        return False
    code = node.args[0].value
    text = code.evaluated_value if isinstance(code, cst.SimpleString) else None
    return isinstance(text, str) and re.search(rf"\b{re.escape(attribute)}\b", text) is not None


def _names_attribute(value: cst.BaseExpression, attribute: str) -> bool:
    """A string literal that is a dotted attribute path with `attribute` in it, or a list,
    tuple or set literal holding one."""
    if isinstance(value, (cst.List, cst.Tuple, cst.Set)):
        return any(_names_attribute(element.value, attribute) for element in value.elements)
    text = value.evaluated_value if isinstance(value, cst.SimpleString) else None
    return isinstance(text, str) and all(part.isidentifier() for part in text.split(".")) and attribute in text.split(".")


def _is_getattr(value: cst.BaseExpression) -> bool:
    """The builtin `getattr` passed as a value."""
    return isinstance(value, cst.Name) and value.value == "getattr"


def uncalled_references(module: cst.Module, qualify: Callable[[cst.BaseExpression], Optional[str]]) -> Set[str]:
    """The qualified names (by `qualify`) the file uses other than by calling them, importing
    them or annotating with them: `isinstance(ctx, torch.cuda.amp.autocast)`, a base class,
    `factory = autocast`. A rewrite of the calls of such a name alone would leave these uses
    meaning the old object."""
    skipped: Set[int] = set()
    for node in descendants(module):
        if isinstance(node, cst.Call):
            skipped.add(id(node.func))
        elif isinstance(node, cst.Attribute):
            skipped.add(id(node.attr))
        elif isinstance(node, (cst.Import, cst.ImportFrom, cst.Annotation)):
            skipped.update(id(item) for item in descendants(node))
    return {
        name
        for node in descendants(module)
        if isinstance(node, (cst.Name, cst.Attribute)) and id(node) not in skipped
        for name in [qualify(node)]
        if name is not None
    }


def reads_classes(module: cst.Module, qualify: Callable[[cst.BaseExpression], Optional[str]]) -> bool:
    """Whether the file reads the class of an object: `type(x)` (the builtin `type`, not
    rebound to a qualified name, with one argument) or `x.__class__`. An object made by another class (a rewrite
    to a newer API) shows that class there, in its name and module."""
    return any(
        (
            isinstance(node, cst.Call) and len(node.args) == 1 and isinstance(node.func, cst.Name)
            and node.func.value == "type" and qualify(node.func) in (None, "type", "builtins.type")
        )
        or (isinstance(node, cst.Attribute) and node.attr.value == "__class__")
        for node in descendants(module)
    )


# Calls that turn their arguments into text: builtins, and the methods of files and loggers.
TEXT_FUNCTIONS = frozenset({"print", "str", "repr", "format"})
TEXT_WRITERS = frozenset({"write", "info", "debug", "warning", "error", "log"})


def result_shown(module: cst.Module, call: cst.Call) -> Optional[str]:
    """The name `call`'s result is bound to (`ctx = make()`, `with make() as ctx:`) when the
    file turns that name into text (`print(ctx)`, `str(ctx)`, `f"{ctx}"`, `log.info(ctx)`),
    which for a plain object shows its class's module and name; else None."""
    names = set()
    for node in descendants(module):
        if isinstance(node, cst.Assign) and node.value is call:
            names |= {t.target.value for t in node.targets if isinstance(t.target, cst.Name)}
        elif isinstance(node, cst.WithItem) and node.item is call and node.asname is not None and isinstance(node.asname.name, cst.Name):
            names.add(node.asname.name.value)
    for node in descendants(module):
        texts = isinstance(node, cst.Call) and (
            (isinstance(node.func, cst.Name) and node.func.value in TEXT_FUNCTIONS)
            or (isinstance(node.func, cst.Attribute) and node.func.attr.value in TEXT_WRITERS)
        )
        shown = [arg.value for arg in node.args] if texts else [node.expression] if isinstance(node, cst.FormattedStringExpression) else []  # type: ignore[union-attr]
        for value in shown:
            if isinstance(value, cst.Name) and value.value in names:
                return value.value
    return None
