"""Where the values a function computes can go: into names, into calls, out of the function.

A value "may carry a graph" when a call computed it (a module's forward, a tensor operation)
and no host conversion (`.item()`, `len()`) or metadata read (`.shape`) came last. The names
bound to such values are followed through the function's assignments and loops.
"""

from __future__ import annotations

from typing import Dict, FrozenSet, Iterable, Iterator, List, Optional, Sequence, Set, Tuple

import libcst as cst

from torchlint.semantics.calls import method_call
from torchlint.semantics.names import dotted_name
from torchlint.semantics.tree import bound_names, descendants, per_module

# Values without autograd state: host conversions, sizes and metadata.
HOST_RESULTS = frozenset({"item", "tolist", "numpy", "size", "dim", "numel", "argmax", "argmin", "format", "join"})
HOST_FUNCTIONS = frozenset({"float", "int", "len", "round", "bool", "str", "range", "print"})
# Builtins that yield what they receive: `enumerate(out)` and `zip(names, out)` yield the
# tensors themselves, with their `grad_fn`; host values only when every argument is one.
PASS_THROUGH_BUILTINS = frozenset({"enumerate", "zip"})
METADATA = frozenset({"shape", "dtype", "device", "ndim"})
# Builtins that only compute a new value from what they receive (they keep nothing and show nothing).
VALUE_BUILTINS = frozenset(
    "float int len bool round abs min max sum enumerate zip sorted reversed list tuple range isinstance any all".split()
)


def computed_names(body: cst.CSTNode, seeded: Set[str] = frozenset()) -> Set[str]:
    """The names in `body` bound (by assignment, `+=`, `:=`, a loop or a comprehension's `for`)
    to values that may carry a graph, starting from the names in `seeded`."""
    bindings: List[Tuple[Sequence[cst.CSTNode], cst.BaseExpression]] = []
    for node in descendants(body):
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.NamedExpr, cst.For, cst.CompFor)):
            value = node.iter if isinstance(node, (cst.For, cst.CompFor)) else node.value
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            if value is not None:
                bindings.append((targets, value))
    computed = set(seeded)
    while True:
        more = {
            item.value
            for targets, value in bindings
            if may_carry_graph(value, computed)
            for target in targets
            for item in [target, *descendants(target)]
            if isinstance(item, cst.Name) and item.value not in computed
        }
        if not more:
            return computed
        computed |= more


def may_carry_graph(expression: cst.BaseExpression, computed: Set[str]) -> bool:
    """Whether `expression` may evaluate to a value with autograd state: it computes one by a
    call, or reads a name in `computed`, and does not end in a host conversion."""
    if host_value(expression):
        return False
    if isinstance(expression, cst.Call) and isinstance(expression.func, cst.Name) and expression.func.value in PASS_THROUGH_BUILTINS:
        return any(may_carry_graph(arg.value, computed) for arg in expression.args)
    return any(
        (isinstance(item, cst.Name) and item.value in computed) or (isinstance(item, cst.Call) and not host_value(item))
        for item in [expression, *descendants(expression)]
    )


def host_value(expression: cst.BaseExpression) -> bool:
    """A value that carries no autograd state: a host conversion or tensor metadata."""
    if isinstance(expression, cst.Attribute):
        return expression.attr.value in METADATA
    if isinstance(expression, cst.Call):
        found = method_call(expression)
        if found is not None:
            return found[1] in HOST_RESULTS
        return isinstance(expression.func, cst.Name) and expression.func.value in HOST_FUNCTIONS
    return isinstance(expression, (cst.SimpleString, cst.Integer, cst.Float, cst.Comparison))


def receiving_calls(body: cst.CSTNode, computed: Set[str], modules: Set[str] = frozenset()) -> Iterator[cst.Call]:
    """The calls in `body` that receive a value that may carry a graph as an argument, other
    than methods of such a value (`out.argmax(1)` computes a new one) that change no outer
    value in place; calling one of `modules` (dotted names) makes a new value."""
    fresh = computed - outer_aliases(body, computed, modules)
    for node in descendants(body):
        if not isinstance(node, cst.Call) or not any(may_carry_graph(arg.value, computed) for arg in node.args):
            continue
        found = method_call(node)
        if found is not None and may_carry_graph(found[0], computed) and not _changes_outer_value(node, found[1], fresh):
            continue
        yield node


def _chain_root(expression: cst.BaseExpression, modules: Set[str] = frozenset()) -> cst.BaseExpression:
    """The name a chain of methods, attributes and subscripts starts at (`running` in
    `running.view(-1)[0].mul_(0.9)`); the call itself for a call of a plain name or of one of
    `modules`, which makes a new value."""
    while isinstance(expression, (cst.Call, cst.Attribute, cst.Subscript)):
        if isinstance(expression, cst.Call):
            if not isinstance(expression.func, cst.Attribute) or dotted_name(expression.func) in modules:
                return expression
            expression = expression.func
        expression = expression.value
    return expression


def outer_aliases(body: cst.CSTNode, computed: Set[str], modules: Set[str] = frozenset()) -> Set[str]:
    """Names bound to a chain that starts at a value not computed here (`flat = total.view(-1)`,
    `buf = stats.get("sum")`): a view or the object itself, which an in-place change writes
    through to the outer value."""
    aliases: Set[str] = set()
    while True:
        more = {
            name
            for node in descendants(body)
            if isinstance(node, cst.Assign)
            for root in [_chain_root(node.value, modules)]
            if isinstance(root, cst.Name) and (root.value not in computed or root.value in aliases)
            for target in node.targets
            for name in bound_names(target.target)
            if name not in aliases
        }
        if not more:
            return aliases
        aliases |= more


# Tensor methods whose result may share memory with the tensor (a view, or the tensor itself):
# also its storage (`x.untyped_storage().fill_(0)` writes the tensor's memory) and the pieces
# of a split (`x.chunk(2)[0].zero_()`).
VIEW_METHODS = frozenset(
    "view view_as reshape flatten unflatten squeeze unsqueeze transpose permute movedim t expand "
    "expand_as narrow select diagonal contiguous detach as_strided numpy "
    "untyped_storage storage _typed_storage ravel unfold swapaxes swapdims moveaxis adjoint "
    "split chunk unbind tensor_split hsplit vsplit dsplit".split()
)


def view_aliases(body: cst.CSTNode, names: Set[str]) -> Dict[str, str]:
    """Names `body` binds to a view of one of `names` (`flat = x.view(-1)`, `row = x[0]`,
    `img = x.T`, `(alias := x)`, also of such a view), each mapped to the name it views: an in-place change
    of the alias writes through to that tensor."""
    aliases: Dict[str, str] = {}
    # `alias = x` and `(alias := x)` alike; walked once
    views = [node for node in descendants(body) if isinstance(node, (cst.Assign, cst.NamedExpr)) and _viewing(node.value)]
    while True:
        more = {
            name: aliases.get(root, root)
            for node in views
            for root in [getattr(_chain_root(node.value), "value", None)]
            if root in names or root in aliases
            for target in ([t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target])
            for name in bound_names(target)
            if name not in names and name not in aliases
        }
        if not more:
            return aliases
        aliases.update(more)


def element_aliases(body: cst.CSTNode, names: Set[str]) -> Dict[str, str]:
    """Names a `for` loop or a comprehension of `body` binds to the elements or entries of one
    of `names` (`for t in batch`, `for k, v in batch.items()`, `[t.clamp_(0, 1) for t in
    batch.values()]`), each mapped to that name: a list or dict batch holds the very tensors,
    and a tensor's elements are views of it, so an in-place change of one writes to the batch."""
    aliases: Dict[str, str] = {}
    for node in descendants(body):
        if not isinstance(node, (cst.For, cst.CompFor)):
            continue
        source, target = node.iter, node.target
        if isinstance(source, cst.Call) and isinstance(source.func, cst.Name) and source.func.value == "enumerate" and source.args:
            source = source.args[0].value  # `for i, t in enumerate(batch)`: the element is the second name
            target = target.elements[1].value if isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2 else target
        if isinstance(source, cst.Call) and isinstance(source.func, cst.Attribute) and source.func.attr.value in ("items", "values") and not source.args:
            source = source.func.value
        if isinstance(source, cst.Name) and source.value in names:
            aliases.update({name: source.value for name in bound_names(target) if name not in names})
    return aliases


def _viewing(expression: cst.BaseExpression) -> bool:
    """A chain of subscripts, attributes and view methods (`x.view(-1)[0]`)."""
    while isinstance(expression, (cst.Call, cst.Attribute, cst.Subscript)):
        if isinstance(expression, cst.Call):
            if not isinstance(expression.func, cst.Attribute) or expression.func.attr.value not in VIEW_METHODS:
                return False
            expression = expression.func
        expression = expression.value
    return isinstance(expression, cst.Name)


def viewed_name(expression: cst.BaseExpression) -> Optional[str]:
    """The name a chain of subscripts, attributes and view methods starts at (`x` in
    `x.data`, `x.numpy()[:]`, `x.view(-1)[0]`): a change in place of the chain writes to it."""
    root = _chain_root(expression) if _viewing(expression) else None
    return root.value if isinstance(root, cst.Name) else None


def attribute_store(node: cst.CSTNode) -> bool:
    """A call that assigns an attribute, the dynamic spelling of `obj.name = value`:
    `setattr(obj, "name", value)` or `object.__setattr__(obj, "name", value)`."""
    return isinstance(node, cst.Call) and dotted_name(node.func) in ("setattr", "object.__setattr__") and len(node.args) == 3


def stored_targets(target: cst.BaseExpression) -> Iterator[cst.BaseExpression]:
    """The attributes and subscripts an assignment target stores into, also inside a tuple or
    list target (`report.logits, report.preds = ...`, `cache["a"], n = ...`)."""
    if isinstance(target, (cst.Attribute, cst.Subscript)):
        yield target
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from stored_targets(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from stored_targets(target.value)


def in_place_function(qualified: str) -> bool:
    """A torch function that changes its first argument in place (`torch.Tensor.add_(running,
    out)`, `torch.nn.init.zeros_`): what it is handed is written into that argument."""
    last = qualified.rpartition(".")[2]
    return last.endswith("_") and not last.startswith("__")


# Decorators of another module that keep nothing a function computes: they change how it is
# bound (`staticmethod`), or wrap it in a torch mode or compiler.
_PURE_DECORATORS = frozenset({"staticmethod", "classmethod", "property", "abc.abstractmethod", "typing.overload", "functools.wraps"})


def decorator_keeps_values(qualified: Optional[str]) -> bool:
    """Whether a decorator of another module (by its qualified name; None when unknown) may
    keep what the function it wraps computes, as a cache does (`functools.lru_cache`,
    `functools.cache`); not the binding decorators and torch's own (`torch.no_grad`,
    `torch.compile`)."""
    if qualified is None:
        return True
    return qualified not in _PURE_DECORATORS and not qualified.startswith("torch.")


def _changes_outer_value(call: cst.Call, method: str, fresh: Set[str]) -> bool:
    """An in-place method (`add_`, `copy_`) on a chain that starts at a name not computed
    here (`running.mul_(0.9).add_(out)`), or at a view of one (`flat = running.view(-1)`):
    the value it writes into outlives the call."""
    if not method.endswith("_") or method.startswith("__"):
        return False
    root = _chain_root(call)
    return not (isinstance(root, cst.Name) and root.value in fresh)


def outer_names_augmented(function: cst.FunctionDef, computed: Set[str]) -> Iterator[str]:
    """Names that `function` extends with a value that may carry a graph (`history += [out]`)
    without binding them by a plain assignment of its own to a new value: a parameter, an
    outer name or an alias of an outer value (`running = stats["sum"]`), whose object (a
    caller's list or tensor) the change reaches."""
    assigned = {
        item.value
        for node in descendants(function.body)
        if isinstance(node, cst.AssignTarget)
        for item in [node.target, *descendants(node.target)]
        if isinstance(item, cst.Name)
    } - outer_aliases(function.body, computed)
    for node in descendants(function.body):
        if isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name) and node.target.value not in assigned:
            if may_carry_graph(node.value, computed):
                yield node.target.value


def dropped_unread(names: Set[str], statement: cst.CSTNode, block: cst.CSTNode) -> bool:
    """Whether the values `statement` binds to `names` are dropped before anything reads them:
    the next statement of its block that mentions one of them deletes them (`rating =
    rating.cpu().numpy()` then `del rating`) or binds them anew without reading them."""
    statements = list(block.body) if isinstance(block, cst.IndentedBlock) else []
    index = next((i for i, item in enumerate(statements) if item is statement), None)
    if not names or index is None:
        return False
    for later in statements[index + 1 :]:
        mentioned = {node.value for node in descendants(later) if isinstance(node, cst.Name)} & names
        if not mentioned:
            continue
        small = later.body[0] if isinstance(later, cst.SimpleStatementLine) and len(later.body) == 1 else None
        if isinstance(small, cst.Del):
            return True
        if isinstance(small, cst.Assign):
            read = {node.value for node in descendants(small.value) if isinstance(node, cst.Name)}
            return not (read & names)
        return False
    return False


def accumulated(path: Iterable[Tuple[cst.CSTNode, cst.CSTNode]]) -> bool:
    """Whether the value at the start of `path` (its (ancestor, child) chain, innermost first)
    is added into an accumulator (`acc += (pred == y).cpu().numpy().mean()`) through method
    chains, calls and arithmetic: a running total, not an output of the loop."""
    for ancestor, child in path:
        if isinstance(ancestor, cst.AugAssign):
            return child is ancestor.value and isinstance(ancestor.operator, cst.AddAssign)
        if not isinstance(ancestor, (cst.Attribute, cst.Call, cst.Arg, cst.BinaryOperation)):
            return False
    return False


# Calls that hand a sequence on for iteration element by element (`for k, box in enumerate(boxes)`).
ITERATION_WRAPPERS = frozenset({"enumerate", "zip", "list", "tuple", "sorted", "reversed", "iter"})


def walked_in_python(module: cst.Module, names: Set[str], scope: cst.CSTNode) -> bool:
    """Whether `scope` (of `module`) walks a value bound to one of `names` element by element
    in Python: a `for` loop or comprehension over it (also through `enumerate`, `zip` and the
    like), or an index of it taken with such a loop's target (`scores[k]` in `[... for k, box
    in enumerate(boxes)]`): values made into Python records one by one, not a tensor
    computation. The scope is read once (`_walked_names`)."""
    return bool(names & _walked_names(module, scope))


@per_module
def _walked_names(module: cst.Module, scope: cst.CSTNode) -> FrozenSet[str]:
    """The names `scope` walks element by element (see `walked_in_python`)."""
    targets: Set[str] = set()
    iterables: List[cst.BaseExpression] = []
    subscripts: List[cst.Subscript] = []
    for node in descendants(scope):
        if isinstance(node, (cst.For, cst.CompFor)):
            iterables.append(node.iter)
            targets.update(bound_names(node.target))
        elif isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and len(node.slice) == 1:
            subscripts.append(node)
    walked = {name for iterable in iterables for name in _iterated_names(iterable)}
    walked |= {
        node.value.value for node in subscripts
        if isinstance(node.slice[0].slice, cst.Index) and isinstance(node.slice[0].slice.value, cst.Name)
        and node.slice[0].slice.value.value in targets
    }
    return frozenset(walked)


def _iterated_names(iterable: cst.BaseExpression) -> Set[str]:
    """The names an iterable walks: itself, or through `enumerate`, `zip` and the like."""
    if isinstance(iterable, cst.Name):
        return {iterable.value}
    if isinstance(iterable, cst.Call) and dotted_name(iterable.func) in ITERATION_WRAPPERS:
        return {name for arg in iterable.args if not arg.star for name in _iterated_names(arg.value)}
    return set()
