"""The single shared traversal: updates semantic state and dispatches nodes to every rule.

LibCST's own visitor rebuilds each node while walking; this walker reads the dataclass
fields directly and skips whitespace and punctuation, which makes the traversal an order
of magnitude cheaper than `Module.visit`.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple, Type

import libcst as cst

from torchlint.engine.context import FileContext
from torchlint.engine.rule import Rule
from torchlint.semantics.framework_names import LIGHTNING
from torchlint.semantics.names import dotted_name
from torchlint.semantics.tree import COMPREHENSIONS, bound_names, children, descendants, descendants_of_type, names_bound_by, scope_descendants
from torchlint.semantics.kinds import HOST_KINDS, MAYBE_DEVICE_KINDS, TENSOR_KINDS, Kind
from torchlint.semantics.devices import in_cpu_only_branch
from torchlint.semantics.modes import notebook_cell

Handler = Callable[[cst.CSTNode], None]

# A LightningModule's step methods, whose first parameter after `self` is the batch the
# trainer has moved to the module's device: what it unpacks to are tensors
# (`input_ids, mask, labels = batch`), collated by the loader.
BATCH_PARAMETER_HOOKS = frozenset({"training_step", "validation_step", "test_step", "predict_step"})

_METHODS: Dict[Tuple[type, str], List[Tuple[type, str]]] = {}


def _handler_methods(rule_class: type, prefix: str) -> List[Tuple[type, str]]:
    """(node type, method name) pairs of a rule class's `visit_*`/`leave_*` methods, cached."""
    key = (rule_class, prefix)
    methods = _METHODS.get(key)
    if methods is None:
        methods = [
            (getattr(cst, attribute[len(prefix):]), attribute)
            for attribute in dir(rule_class)
            if attribute.startswith(prefix)
        ]
        _METHODS[key] = methods
    return methods


def _handlers(rules: Sequence[Rule], prefix: str) -> Dict[type, List[Handler]]:
    table: Dict[type, List[Handler]] = {}
    for rule in rules:
        for node_type, attribute in _handler_methods(type(rule), prefix):
            table.setdefault(node_type, []).append(getattr(rule, attribute))
    return table


class Stale(Exception):
    """The text being analysed has changed since: its findings are no longer wanted."""


def walk(ctx: FileContext, rules: Sequence[Rule], stale: Optional[Callable[[], bool]] = None) -> None:
    """Traverse `ctx.module` once, keeping `ctx` up to date and calling each rule's handlers;
    `stale` is asked before each top-level statement, and a true answer raises `Stale`."""
    tracker = _SemanticTracker(ctx)
    # Per node type, the semantic tracker's handler and the rules' handlers in the order they
    # run: the tracker first on entering a node (rules see its bindings), last on leaving it.
    enter_handlers = _with(tracker.on_enter, _handlers(rules, "visit_"), first=True)
    leave_handlers = _with(tracker.on_leave, _handlers(rules, "leave_"), first=False)
    ancestors = ctx.ancestors
    empty: List[Handler] = []
    statement_of = ctx.statement_of
    statement: cst.CSTNode = ctx.module
    # Nodes to enter; a node to leave is pushed below the `_LEAVE` marker.
    stack: List[object] = [ctx.module]
    while stack:
        node = stack.pop()
        if node is _LEAVE:
            node = stack.pop()
            ancestors.pop()
            for handler in leave_handlers.get(type(node), empty):
                handler(node)
            continue
        node_type = type(node)
        if len(ancestors) == 1:
            statement = node
            if stale is not None and stale():
                raise Stale(ctx.path)
        if node_type is not cst.Name:  # a third of all nodes, seldom reported: placed the slow way
            statement_of[id(node)] = statement
        for handler in enter_handlers.get(node_type, empty):
            handler(node)
        below = children(node)
        if below or node_type in leave_handlers:  # a leaf nothing handles on leaving is done
            ancestors.append(node)
            stack.append(node)
            stack.append(_LEAVE)
            stack.extend(reversed(below))


_LEAVE = object()


def _enumerated(iterated: cst.BaseExpression) -> bool:
    """`enumerate(x)` with one plain argument."""
    return (
        isinstance(iterated, cst.Call) and isinstance(iterated.func, cst.Name) and iterated.func.value == "enumerate"
        and len(iterated.args) == 1 and iterated.args[0].keyword is None and not iterated.args[0].star
    )


def _with(
    tracking: Dict[Type[cst.CSTNode], Callable], handlers: Dict[type, List[Handler]], first: bool
) -> Dict[type, List[Handler]]:
    """The rules' `handlers` by node type with the tracker's handler for that type added,
    first or last."""
    combined = {node_type: list(found) for node_type, found in handlers.items()}
    for node_type, handler in tracking.items():
        found = combined.setdefault(node_type, [])
        if first:
            found.insert(0, handler)
        else:
            found.append(handler)
    return combined


class _SemanticTracker:
    """Keeps the name resolver and value inference in step with the traversal."""

    def __init__(self, ctx: FileContext) -> None:
        self.ctx = ctx
        self.names = ctx.names
        self.values = ctx.values
        # How many times each scope (by id, with the scope) binds each name: asked for aliases.
        self._bindings: Dict[int, Tuple[cst.CSTNode, Counter]] = {}
        # Per `if` statement with an `else` being walked, the kinds its body left (`_leave_if`).
        self._after_body: Dict[int, Dict[str, Kind]] = {}
        # Per `if` statement being walked whose body runs only off CUDA, the kinds before it.
        self._before_host_branch: Dict[int, Dict[str, Kind]] = {}
        # Per module class (by id, with the class), its methods' parameters given a hook's batch.
        self._hook_helpers: Dict[int, Tuple[cst.ClassDef, Dict[str, Set[str]]]] = {}
        self.on_enter: Dict[Type[cst.CSTNode], Callable] = {
            cst.Module: self._enter_module,
            cst.Import: self.names.bind_import,
            cst.ImportFrom: self.names.bind_import,
            cst.ClassDef: self._enter_class,
            cst.FunctionDef: self._enter_function,
            cst.Lambda: self._enter_lambda,
            cst.For: self._enter_for,
            cst.WithItem: self._enter_with_item,
            cst.ExceptHandler: self._enter_except,
            cst.If: self._enter_if,
            cst.Else: self._enter_else,
            cst.Call: self._enter_call,
        }
        for comprehension in COMPREHENSIONS:
            self.on_enter[comprehension] = self._enter_comprehension
        self.on_leave: Dict[Type[cst.CSTNode], Callable] = {
            cst.ClassDef: self._leave_scope,
            cst.FunctionDef: self._leave_scope,
            cst.Lambda: self._leave_scope,
            cst.Assign: self._leave_assign,
            cst.AnnAssign: self._leave_ann_assign,
            cst.AugAssign: self._leave_aug_assign,
            cst.NamedExpr: self._leave_named_expr,
            cst.If: self._leave_if,
        }
        for comprehension in COMPREHENSIONS:
            self.on_leave[comprehension] = self._leave_scope

    def _enter_scope(self, node: cst.CSTNode) -> None:
        self.names.push(node)

    def _enter_module(self, node: cst.Module) -> None:
        """The module scope, with the imports of its marimo cells: a cell's imports reach
        every other cell, whatever their order in the file."""
        self.names.push(node)
        for cell in (item for item in node.body if isinstance(item, cst.FunctionDef) and notebook_cell(item, node)):
            for found in scope_descendants(cell.body):  # under `if`/`try` too, not in nested functions
                if isinstance(found, (cst.Import, cst.ImportFrom)):
                    self.names.bind_import(found)

    def _leave_scope(self, node: cst.CSTNode) -> None:
        self.names.pop()

    def _enter_class(self, node: cst.ClassDef) -> None:
        self.values.note_class(node)
        self._bind(node.name.value, None)
        self.names.push(node, is_class=True)

    def _in_notebook_cell(self) -> bool:
        """Directly in a marimo cell, whose imports and definitions reach the other cells."""
        scopes = self.names.scopes
        return len(scopes) == 2 and isinstance(scopes[1].node, cst.FunctionDef) and notebook_cell(scopes[1].node, self.ctx.module)

    def _enter_function(self, node: cst.FunctionDef) -> None:
        owner = self.names.scopes[-1].node
        self._bind(node.name.value, None)
        self.names.push(node)
        if not self._in_notebook_cell():
            # A cell's parameters are the names other cells define, not new values.
            self._bind_parameters(node.params)
            method = isinstance(owner, cst.ClassDef) and not node.decorators
            self.names.scopes[-1].open_parameters = {
                param.name.value for param in (*node.params.posonly_params, *node.params.params)[1 if method else 0:]
                if self.values.lookup(param.name.value) is None
            }
        if isinstance(owner, cst.ClassDef) and owner.name.value in self.values.module_classes and node.params.params and not node.decorators:
            self._bind(node.params.params[0].name.value, Kind.MODULE)  # a module's method: `self(x)` runs its forward
            if node.name.value in BATCH_PARAMETER_HOOKS and len(node.params.params) > 1 and self._lightning_hook(node):
                self._bind(node.params.params[1].name.value, Kind.TENSOR)
            for name in self._batch_arguments(owner).get(node.name.value, ()):
                self._bind(name, Kind.TENSOR)

    def _batch_arguments(self, klass: cst.ClassDef) -> Dict[str, Set[str]]:
        """For each method of the module class `klass` that the class calls only from
        Lightning's batch hooks (`self.shared_step(batch, "train")` in `training_step`), the
        parameters each call passes the hook's batch to: the batch the trainer moved to the
        accelerator. Found once per class."""
        found = self._hook_helpers.get(id(klass))
        if found is not None and found[0] is klass:
            return found[1]
        given: Dict[str, List[Set[str]]] = {}
        methods = {item.name.value: item for item in klass.body.body if isinstance(item, cst.FunctionDef)}
        for method in methods.values():
            hook = method.name.value in BATCH_PARAMETER_HOOKS and len(method.params.params) > 1
            batch = method.params.params[1].name.value if hook else None
            for call in descendants_of_type(self.ctx.module, method, cst.Call):
                callee = call.func.attr.value if isinstance(call.func, cst.Attribute) and dotted_name(call.func.value) == "self" else None
                if callee not in methods or callee in BATCH_PARAMETER_HOOKS:
                    continue
                parameters = [param.name.value for param in methods[callee].params.params[1:]]
                handed = {
                    parameters[index] if arg.keyword is None else arg.keyword.value
                    for index, arg in enumerate(call.args)
                    if batch is not None and not arg.star and isinstance(arg.value, cst.Name) and arg.value.value == batch
                    and (arg.keyword is not None or index < len(parameters))
                }
                given.setdefault(callee, []).append(handed if hook and self._lightning_hook(method) else set())
        shared = {name: set.intersection(*calls) for name, calls in given.items()}
        helpers = {name: parameters for name, parameters in shared.items() if parameters}
        self._hook_helpers[id(klass)] = (klass, helpers)
        return helpers

    def _lightning_hook(self, node: cst.FunctionDef) -> bool:
        """Whether Lightning runs the method `node` once per batch."""
        return any(reason.framework == LIGHTNING for reason in self.ctx.execution(node.body).reasons)

    def _enter_call(self, node: cst.Call) -> None:
        self.ctx.arguments.note_call(node, self.names.scopes, self.values.kind_of)

    def _enter_lambda(self, node: cst.Lambda) -> None:
        self.names.push(node)
        self._bind_parameters(node.params)

    def _bind_parameters(self, params: cst.Parameters) -> None:
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            kind = self.values.annotation_kind(param.annotation.annotation) if param.annotation else None
            self._bind(param.name.value, kind)
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                self._bind(star.name.value, Kind.OTHER)

    def _enter_comprehension(self, node: cst.BaseComp) -> None:
        self.names.push(node)
        comp_for = node.for_in
        while comp_for is not None:
            if not self._bind_zipped(comp_for.target, comp_for.iter):
                self._bind_target(comp_for.target, self.values.loop_target_kind(comp_for.iter))
            comp_for = comp_for.inner_for_in

    def _enter_for(self, node: cst.For) -> None:
        if self._bind_zipped(node.target, node.iter):
            return
        target, iterated = node.target, node.iter
        if _enumerated(iterated) and isinstance(target, (cst.Tuple, cst.List)) and len(target.elements) == 2 and self.names.lookup("enumerate") is None:
            self._bind_target(target.elements[0].value, Kind.NUMBER)  # `for i, row in enumerate(t):` counts, and walks t's rows
            target, iterated = target.elements[1].value, iterated.args[0].value  # type: ignore[attr-defined]
        kind = self.values.loop_target_kind(iterated)
        for name in bound_names(target):
            self._bind(name, kind)
        if kind is None and isinstance(target, cst.Name):
            derived = self.values.tensor_parameters(iterated)
            if derived:  # the rows of a tensor the function's callers pass
                self.names.scopes[-1].derived[target.value] = frozenset(derived)

    def _bind_zipped(self, target: cst.BaseExpression, iterated: cst.BaseExpression) -> bool:
        """`for true, pred in zip(labels, predictions):` binds each name to a row of the
        iterable beside it (`pred` to a row of a device tensor lives on the device). False,
        binding nothing, for any other loop."""
        if not (isinstance(iterated, cst.Call) and isinstance(iterated.func, cst.Name) and iterated.func.value == "zip"):
            return False
        if self.names.lookup("zip") is not None or not isinstance(target, (cst.Tuple, cst.List)):
            return False
        elements, args = target.elements, iterated.args
        if len(elements) != len(args) or any(isinstance(item, cst.StarredElement) for item in elements) or any(arg.star or arg.keyword for arg in args):
            return False
        for element, arg in zip(elements, args):
            self._bind_target(element.value, self.values.loop_target_kind(arg.value))
        return True

    def _enter_if(self, node: cst.If) -> None:
        if in_cpu_only_branch([(node, node.body)], self.names.qualified_name):
            self._before_host_branch[id(node)] = dict(self.names.scopes[-1].values)

    def _enter_else(self, node: cst.Else) -> None:
        owner = self.ctx.ancestors[-1] if self.ctx.ancestors else None
        if isinstance(owner, cst.If):
            self._after_body[id(owner)] = dict(self.names.scopes[-1].values)

    def _leave_if(self, node: cst.If) -> None:
        """After `if ...: loss = model(x)` / `else: loss = torch.tensor(0.)`, the name holds a
        tensor that may be on the device, whatever branch the walk took last; after a branch
        that binds it to a value of unknown kind, its kind is unknown. A branch that runs only
        off CUDA (`if logits.device.type == "mps": logits = logits.cpu()`) leaves the kinds of
        the CUDA run: those before it, or those of the body when the `else` is that branch."""
        after_body = self._after_body.pop(id(node), None)
        before = self._before_host_branch.pop(id(node), None)
        values = self.names.scopes[-1].values
        if before is not None and node.orelse is None:
            values.clear()
            values.update(before)
            return
        if after_body is not None and isinstance(node.orelse, cst.Else) and in_cpu_only_branch([(node, node.orelse)], self.names.qualified_name):
            values.clear()
            values.update(after_body)
            return
        if after_body is None:
            return
        for name in after_body.keys() | values.keys():
            kinds = {after_body.get(name), values.get(name)}
            if Kind.HOST_TENSOR not in kinds or len(kinds) == 1 or kinds <= HOST_KINDS:
                continue
            if kinds & MAYBE_DEVICE_KINDS:
                values[name] = Kind.TENSOR
            else:
                values.pop(name, None)  # host in one branch, unknown in the other

    def _enter_with_item(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._bind_target(node.asname.name)

    def _enter_except(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self._bind_target(node.name.name)

    def _leave_assign(self, node: cst.Assign) -> None:
        kind = self.values.kind_of(node.value)
        for target in node.targets:
            if not self._bind_pairwise(target.target, node.value):
                self._bind_derived(target.target, node.value, kind)
            item = target.target
            if isinstance(item, cst.Attribute) and isinstance(item.value, cst.Name) and item.value.value == "self":
                self.values.note_attribute(item.attr.value, kind)
        alias = self._torch_alias(node)
        if alias is not None:
            self.names.bind_alias(*alias)

    def _bind_pairwise(self, target: cst.BaseExpression, value: cst.BaseExpression) -> bool:
        """`x, y = x.to(device), y.to(device)`: each name takes the kind of the value beside
        it (all values are read before any name is bound). False, binding nothing, unless
        target and value are displays of the same length without starred items."""
        displays = (cst.Tuple, cst.List)
        if not (isinstance(target, displays) and isinstance(value, displays)) or len(target.elements) != len(value.elements):
            return False
        if any(isinstance(item, cst.StarredElement) for item in (*target.elements, *value.elements)):
            return False
        for item, kind in [(item, self.values.kind_of(element.value)) for item, element in zip(target.elements, value.elements)]:
            self._bind_target(item.value, kind)
        return True

    def _bind_derived(self, target: cst.BaseExpression, value: cst.BaseExpression, kind: "Kind | None") -> None:
        """Bind `target` to `value`; a single name of unknown kind whose value is a tensor if
        an open parameter is, computed as tensor code computes (`actual = scores[i].argmax()`,
        `ValueInference.tensor_evidence`), is noted as derived from it."""
        derived = self.values.tensor_parameters(value) if kind is None and isinstance(target, cst.Name) else ()
        self._bind_target(target, kind)
        if derived and self.values.tensor_evidence(value):
            self.names.scopes[-1].derived[target.value] = frozenset(derived)

    def _torch_alias(self, node: cst.Assign) -> Optional[Tuple[str, str]]:
        """`Tensor = torch.FloatTensor`: a name bound once in its scope to a torch name stands
        for it (not one bound again elsewhere, `if cuda: Tensor = torch.cuda.FloatTensor`)."""
        if len(node.targets) != 1 or not isinstance(node.targets[0].target, cst.Name) or not isinstance(node.value, (cst.Name, cst.Attribute)):
            return None
        qualified = self.names.qualified_name(node.value)
        if qualified is None or not qualified.startswith("torch."):
            return None
        name = node.targets[0].target.value
        return (name, qualified) if self._binding_counts(self.names.scopes[-1].node)[name] == 1 else None

    def _binding_counts(self, scope: cst.CSTNode) -> Counter:
        """How many times `scope` binds each name, counted once per scope."""
        known = self._bindings.get(id(scope))
        if known is None or known[0] is not scope:
            counts = Counter(name for item in scope_descendants(scope) for name in names_bound_by(item))
            known = self._bindings[id(scope)] = (scope, counts)
        return known[1]

    def _leave_ann_assign(self, node: cst.AnnAssign) -> None:
        kind = self.values.annotation_kind(node.annotation.annotation)
        if kind is None and node.value is not None:
            kind = self.values.kind_of(node.value)
        self._bind_target(node.target, kind)

    def _leave_aug_assign(self, node: cst.AugAssign) -> None:
        if isinstance(node.target, cst.Name):
            current = self.values.lookup(node.target.value)
            added = self.values.kind_of(node.value)
            kind = current if current is added else (Kind.TENSOR if MAYBE_DEVICE_KINDS & {current, added} else None)
            self.values.assign(node.target.value, kind)

    def _leave_named_expr(self, node: cst.NamedExpr) -> None:
        self._bind_target(node.target, self.values.kind_of(node.value))

    def _bind_target(self, target: cst.BaseExpression, kind: "Kind | None" = None) -> None:
        """Bind the names of a target; a single name takes the value's kind, and so does each
        name a tensor is unpacked to (`loss_a, loss_b = model(x)`: a module's outputs,
        `values, indices = t.max(1)`), but not a starred one (a list)."""
        names = bound_names(target)
        unpacked = isinstance(target, (cst.Tuple, cst.List)) and kind in TENSOR_KINDS and not any(
            isinstance(item, cst.StarredElement) for item in descendants(target)
        )
        for name in names:
            self._bind(name, kind if isinstance(target, cst.Name) or unpacked else None)

    def _bind(self, name: str, kind: "Kind | None") -> None:
        """Bind `name` locally, except that a fallback in an `except` block keeps an import binding."""
        previous = self.names.lookup(name)
        if previous and self.ctx.enclosing(cst.ExceptHandler) is not None:
            return
        self.names.bind_local(name)
        self.values.assign(name, kind)
        self.names.scopes[-1].open_parameters.discard(name)
        self.names.scopes[-1].derived.pop(name, None)
