"""Datasets whose items are already tensors in memory: loading them has no work for worker
processes to overlap, and no decoding to speed up."""

from __future__ import annotations

from typing import AbstractSet, Dict, FrozenSet, List, Optional, Set, Tuple

import libcst as cst

from torchlint.semantics.bindings import reaching_values
from torchlint.semantics.calls import arguments_by_parameter
from torchlint.semantics.dataset_items import IN_MEMORY_LIBRARIES, LAZY_CALLS, LAZY_PREFIXES, MATERIALISING_BUILTINS, reads_storage
from torchlint.semantics.facts import FileFacts
from torchlint.semantics.kinds import Kind
from torchlint.semantics.names import dotted_name
from torchlint.semantics.project import TORCH_FACTORIES, FunctionFacts, project_function
from torchlint.semantics.tree import bound_names, descendants, descendants_of_type, nodes_of_type, per_module, scope_descendants
from torchlint.semantics.values import assigned_values, string_value

IN_MEMORY_DATASETS = frozenset({"torch.utils.data.TensorDataset", "torch.utils.data.dataset.TensorDataset"})
SUBSETS = frozenset({"torch.utils.data.Subset", "torch.utils.data.dataset.Subset"})
RANDOM_SPLITS = frozenset({"torch.utils.data.random_split", "torch.utils.data.dataset.random_split"})
CONCATENATIONS = frozenset({"torch.utils.data.ConcatDataset", "torch.utils.data.dataset.ConcatDataset", "torch.utils.data.ChainDataset", "torch.utils.data.dataset.ChainDataset"})
MAX_DATASET_STEPS = 4


def in_memory(ctx: FileFacts, dataset: cst.BaseExpression, known: AbstractSet[str] = frozenset(), depth: int = 0) -> bool:
    """A dataset of items already in memory: a `TensorDataset`, a Python list (`[(x, y) for
    ...]`, `list(zip(inputs, labels))`: its items were made before the loader exists), a
    dataset class that makes its data up (`self.data = torch.randn(length, size)`, reading
    nothing) or whose items are in memory (see `_makes_data_up`), a `Subset` of one, a name in
    `known`, a name or `self.` attribute the file only ever binds to one (`self.random_train =
    Subset(self.random_full, ...)`, a part of `random_split(dataset, sizes)`, an element of a
    tuple a function of the file returns), or a parameter of a function of the file to which
    every call of it passes one."""
    if isinstance(dataset, (cst.List, cst.ListComp)):
        return True
    if isinstance(dataset, cst.Call):
        qualified = ctx.qualified_name(dataset.func)
        if qualified in SUBSETS and dataset.args and depth < MAX_DATASET_STEPS:
            return in_memory(ctx, dataset.args[0].value, known, depth + 1)
        func = _partial_of(ctx, dataset.func) if depth < MAX_DATASET_STEPS else dataset.func
        return (
            qualified in IN_MEMORY_DATASETS
            or _builds_list(ctx, func)
            or _makes_data_up(ctx, func)
            or _handed_in_memory(ctx, dataset)
            or _fed_by_own_method(ctx, dataset)
            or (depth < MAX_DATASET_STEPS and _returns_in_memory(ctx, func, known, depth + 1))
        )
    if dotted_name(dataset) in known:
        return True
    values = _bound_values(ctx, dataset, depth)
    if not values and isinstance(dataset, cst.Name) and depth < MAX_DATASET_STEPS:
        values = _passed_to(ctx, dataset) or []
    return bool(values) and all(in_memory(ctx, value, known, depth + 1) for value in values)


def _bound_values(ctx: FileFacts, dataset: cst.BaseExpression, depth: int) -> List[cst.BaseExpression]:
    """What the file binds the name or `self.` attribute `dataset` to (assignments, parts of
    tuples it is unpacked from; not a `None` placeholder); [] past `MAX_DATASET_STEPS`."""
    name = dotted_name(dataset)
    if name is None or depth >= MAX_DATASET_STEPS:
        return []
    values = assigned_values(ctx.module, name) + _unpacked_from(ctx, name)
    return [value for value in values if not (isinstance(value, cst.Name) and value.value == "None")]


def graphs_built_per_item(ctx: FileFacts, dataset: cst.BaseExpression, depth: int = 0) -> bool:
    """Whether `dataset` is an instance of a PyTorch Geometric dataset class of the project
    that reads or builds each graph when it is indexed (`FunctionFacts.builds_graphs_per_item`),
    or a slice of one (`dataset[:n]`, another such instance): a call of the class, or a name
    every assignment reaching it binds to one."""
    if isinstance(dataset, cst.Subscript):
        return graphs_built_per_item(ctx, dataset.value, depth)
    if isinstance(dataset, cst.Call):
        facts = _project_class(ctx, dataset.func)
        return facts is not None and facts.builds_graphs_per_item
    if not isinstance(dataset, cst.Name) or depth >= MAX_DATASET_STEPS:
        return False
    values = reaching_values(ctx.module, ctx.frequency.enclosing_function(dataset), dataset.value)
    return bool(values) and all(graphs_built_per_item(ctx, value, depth + 1) for value in values)  # type: ignore[arg-type]


# Methods that change a container in place (`self.buffer.append(experience)`).
MUTATORS = frozenset({"append", "appendleft", "extend", "add", "push", "insert", "update", "put", "store", "remove", "pop", "clear"})


def _fed_by_own_method(ctx: FileFacts, dataset: cst.Call) -> bool:
    """`ExperienceSourceDataset(self.train_batch)`: a dataset handed a method of the object
    that builds it, uncalled. Its items are what that method makes in the main process (an
    agent playing its environment): nothing to load, and workers could not run the agent.
    Not a method of a value given one (`self.train_data.map(self.tokenize)`, a dataset's own
    preprocessing): the dataset is the value's."""
    if isinstance(dataset.func, cst.Attribute) and ctx.names.qualified_name(dataset.func.value) is None:
        return False
    klass = ctx.frequency.enclosing_class(dataset)
    if klass is None:
        function = ctx.frequency.enclosing_function(dataset)
        klass = ctx.frequency.enclosing_class(function) if function is not None else None
    if klass is None:
        return False
    methods = {item.name.value for item in klass.body.body if isinstance(item, cst.FunctionDef)}
    return bool(_given_attributes(dataset) & methods)


def samples_changing_state(ctx: FileFacts, dataset: cst.BaseExpression) -> bool:
    """`RLDataset(self.buffer, 200)` where another method of the class that builds it calls
    `self.buffer.append(...)`: a dataset handed a state its building object keeps changing (a
    replay buffer it fills). Its items are what the main process holds now; worker processes
    would sample stale copies of it. A name is followed to what the file binds it to."""
    if not isinstance(dataset, cst.Call):
        values = _bound_values(ctx, dataset, 0)
        return bool(values) and all(isinstance(value, cst.Call) and samples_changing_state(ctx, value) for value in values)
    klass = ctx.frequency.enclosing_class(dataset)
    if klass is None:
        function = ctx.frequency.enclosing_function(dataset)
        klass = ctx.frequency.enclosing_class(function) if function is not None else None
    return klass is not None and bool(_given_attributes(dataset) & _changed_attributes(ctx.module, klass))


def _given_attributes(dataset: cst.Call) -> Set[str]:
    """The attributes of `self` a dataset call is handed (`self.buffer` gives `buffer`)."""
    return {arg.value.attr.value for arg in dataset.args if isinstance(arg.value, cst.Attribute) and dotted_name(arg.value.value) == "self"}


def _changed_attributes(module: cst.Module, klass: cst.ClassDef) -> Set[str]:
    """The attributes of `self` that the class changes in place (`self.buffer.append(x)`)."""
    return {
        node.func.value.attr.value
        for node in descendants_of_type(module, klass, cst.Call)
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in MUTATORS
        and isinstance(node.func.value, cst.Attribute) and dotted_name(node.func.value.value) == "self"
    }


def _unpacked_from(ctx: FileFacts, name: str) -> List[cst.BaseExpression]:
    """What the file binds to `name` as one element of a tuple target: the dataset that
    `random_split` splits (`train_set, val_set = random_split(dataset, sizes)`: each part is
    a subset of it), or the element at the same place of every tuple a function of the file
    returns (`dataset, model, optimizer = load_train_objs()`); the call itself when a return
    of that function is not such a tuple."""
    found: List[cst.BaseExpression] = []
    for node, places in _tuple_bindings(ctx.module).get(name, ()):
        value = node.value
        assert isinstance(value, cst.Call)
        if value.args and (dotted_name(value.func) or "").endswith("random_split"):
            # (not `ctx.qualified_name`, which keeps its answer for where the traversal stands)
            if ctx.names.qualified_name(value.func) in RANDOM_SPLITS:
                found.append(value.args[0].value)
            continue
        defined = ctx.frequency.local_functions().get(value.func.value, []) if isinstance(value.func, cst.Name) else []
        if len(defined) == 1:
            found.extend(_returned_elements(defined[0], value, places[0]))
    return found


@per_module
def _tuple_bindings(module: cst.Module) -> Dict[str, List[Tuple[cst.Assign, List[Tuple[int, int]]]]]:
    """The assignments of a call's result to tuple or list targets, by each dotted name such a
    target binds, with the places (index, length) where it binds the name."""
    found: Dict[str, List[Tuple[cst.Assign, List[Tuple[int, int]]]]] = {}
    for node in nodes_of_type(module, (cst.Assign,)):
        if not isinstance(node, cst.Assign) or not isinstance(node.value, cst.Call):
            continue
        places: Dict[str, List[Tuple[int, int]]] = {}
        for target in node.targets:
            if isinstance(target.target, (cst.Tuple, cst.List)):
                for index, element in enumerate(target.target.elements):
                    bound = dotted_name(element.value)
                    if bound is not None:
                        places.setdefault(bound, []).append((index, len(target.target.elements)))
        for bound, where in places.items():
            found.setdefault(bound, []).append((node, where))
    return found


def _returned_elements(function: cst.FunctionDef, call: cst.Call, place: Tuple[int, int]) -> List[cst.BaseExpression]:
    """The element at `place` (index, length) of every tuple `function` returns; `call`
    itself in place of a return that is not a tuple of that length."""
    index, length = place
    found: List[cst.BaseExpression] = []
    for node in scope_descendants(function.body):
        if not isinstance(node, cst.Return) or node.value is None:
            continue
        elements = node.value.elements if isinstance(node.value, cst.Tuple) else []
        starred = any(isinstance(element, cst.StarredElement) for element in elements)
        found.append(elements[index].value if len(elements) == length and not starred else call)
    return found


def _passed_to(ctx: FileFacts, parameter: cst.Name) -> Optional[List[cst.BaseExpression]]:
    """What every call of the file's function whose parameter `parameter` is passes to it
    (`train_logreg(train_feats_data=feats)`); None when a call passes nothing for it, or the
    function is never called in the file."""
    function = ctx.frequency.enclosing_function(parameter)
    if function is None or parameter.value not in {param.name.value for param in function.params.params}:
        return None
    passed = []
    for call in ctx.frequency.calls_named(function.name.value):
        argument = next((value for value, name in arguments_by_parameter(call, function) if name == parameter.value), None)
        if argument is None:
            return None
        passed.append(argument)
    return passed or None


def _partial_of(ctx: FileFacts, func: cst.BaseExpression) -> cst.BaseExpression:
    """What a name bound only to `functools.partial(what, ...)` calls (`dataset = partial(
    Reverse, 10, 16)` then `dataset(1000)` builds a `Reverse`); `func` itself otherwise."""
    values = assigned_values(ctx.module, dotted_name(func) or "") if isinstance(func, cst.Name) else []
    if len(values) != 1 or not isinstance(values[0], cst.Call) or not values[0].args:
        return func
    if ctx.qualified_name(values[0].func) != "functools.partial":
        return func
    return values[0].args[0].value


def _returns_in_memory(ctx: FileFacts, func: cst.BaseExpression, known: AbstractSet[str], depth: int) -> bool:
    """A function of the file (one definition) whose every return value is an in-memory
    dataset (`return TensorDataset(feats, labels)` after encoding the features)."""
    defined = ctx.frequency.local_functions().get(func.value, []) if isinstance(func, cst.Name) else []
    if len(defined) != 1:
        return False
    values = [node.value for node in scope_descendants(defined[0].body) if isinstance(node, cst.Return)]
    return bool(values) and all(value is not None and in_memory(ctx, value, known, depth) for value in values)


def _builds_list(ctx: FileFacts, func: cst.BaseExpression) -> bool:
    """`list(...)`, the builtin (not a name the file binds)."""
    return isinstance(func, cst.Name) and func.value == "list" and ctx.names.lookup("list") is None


def items_moved_to_device(ctx: FileFacts, dataset: cst.BaseExpression, depth: int = 0) -> bool:
    """A dataset whose class moves each item to an accelerator in `__getitem__`
    (`project.FunctionFacts.items_on_device`), a `Subset` of one, or a name the file only
    ever binds to one: its loader's batches are device tensors, which cannot be pinned."""
    if isinstance(dataset, cst.Call):
        if ctx.qualified_name(dataset.func) in SUBSETS and dataset.args and depth < MAX_DATASET_STEPS:
            return items_moved_to_device(ctx, dataset.args[0].value, depth + 1)
        facts = _project_class(ctx, dataset.func)
        return facts is not None and facts.items_on_device
    values = _bound_values(ctx, dataset, depth)
    return bool(values) and all(items_moved_to_device(ctx, value, depth + 1) for value in values)


def _project_class(ctx: FileFacts, func: cst.BaseExpression) -> Optional[FunctionFacts]:
    """What the project index knows of the class `func` names (capitalised), of this file or another module."""
    if not isinstance(func, (cst.Name, cst.Attribute)) or not (dotted_name(func) or "").rpartition(".")[2][:1].isupper():
        return None
    return project_function(ctx, func)


def _makes_data_up(ctx: FileFacts, func: cst.BaseExpression) -> bool:
    """A dataset class of the file, or of another project module (`project.FunctionFacts.
    makes_data_up`), that makes its data with a torch factory (in `__init__`, or item by item)
    and reads nothing (no file, array or image loading anywhere in the class); or one whose
    items are already in memory and cheap to get (`FunctionFacts.items_in_memory`: its
    `__getitem__` only indexes and converts attributes holding data in memory)."""
    classes = ctx.frequency.classes().get(func.value, []) if isinstance(func, cst.Name) else []
    for klass in classes:
        if _inherits_data(ctx, klass):
            continue  # `class Mnist(torchvision.datasets.MNIST)`: its base reads the data
        calls = [node for node in descendants(klass) if isinstance(node, cst.Call)]
        if any(_reads(call) for call in calls):
            continue
        if any((ctx.names.qualified_name(call.func) or "").rpartition(".")[::2] in TORCH_FACTORIES for call in calls):
            return True
    facts = _project_class(ctx, func)  # the file's class, or one of another project module
    return facts is not None and (facts.items_in_memory or (not classes and facts.makes_data_up))


# The bases of a dataset class that hold no data of their own.
EMPTY_DATASET_BASES = frozenset(
    {"torch.utils.data.Dataset", "torch.utils.data.dataset.Dataset", "torch.utils.data.IterableDataset",
     "torch.utils.data.dataset.IterableDataset", "object", "typing.Generic"}
)


def _inherits_data(ctx: FileFacts, klass: cst.ClassDef) -> bool:
    """Whether the class derives from a dataset of a library (`torchvision.datasets.MNIST`),
    whose data its base loads: a class of the file or an empty base (`Dataset`) is not one."""
    own = ctx.frequency.classes()
    for base in klass.bases:
        if base.keyword is not None:
            continue
        name = dotted_name(base.value) or ""
        if name in own or (ctx.names.qualified_name(base.value) or name) in EMPTY_DATASET_BASES:
            continue
        return True
    return False


def _handed_in_memory(ctx: FileFacts, dataset: cst.Call) -> bool:
    """`IMDbDataset(train_encodings, train_labels)`: a dataset class of the project that gives
    its items cheaply from what its constructor is given (`FunctionFacts.
    items_in_memory_if_given`), handed only values the program holds in memory (`held`)."""
    if not dataset.args or any(arg.star for arg in dataset.args):
        return False
    facts = _project_class(ctx, dataset.func)
    return facts is not None and facts.items_in_memory_if_given and all(held(ctx, arg.value) for arg in dataset.args)


def held(ctx: FileFacts, value: cst.BaseExpression, depth: int = 0) -> bool:
    """Whether `value` is data the program holds in memory, no dataset nor a lazy handle read
    per item: a literal or a display of such values, a whole load or computation of torch,
    NumPy, pandas or the standard library (`pd.read_csv(path)`, not `np.load(path,
    mmap_mode="r")`), what a builtin makes of such values (`list(texts)`), an attribute,
    item or method result of such a value (`df.iloc[:n]["review"].values`), what an object
    built by a `transformers` `from_pretrained` returns when called (a tokenizer's
    encodings), or a name every assignment reaching it binds to one of these (followed
    `MAX_DATASET_STEPS` names deep; a parameter is not known)."""
    if depth > MAX_DATASET_STEPS:
        return False
    if isinstance(value, (cst.Integer, cst.Float, cst.SimpleString, cst.ConcatenatedString)):
        return True
    if isinstance(value, (cst.List, cst.Tuple, cst.Set)):
        return all(held(ctx, element.value, depth + 1) for element in value.elements)
    if isinstance(value, cst.Dict):
        return all(isinstance(element, cst.DictElement) and held(ctx, element.value, depth + 1) for element in value.elements)
    if isinstance(value, cst.Name):
        values = reaching_values(ctx.module, ctx.frequency.enclosing_function(value), value.value)
        return bool(values) and all(held(ctx, item, depth + 1) for item in values)  # type: ignore[union-attr]
    if isinstance(value, cst.Attribute):
        return held(ctx, value.value, depth)
    if isinstance(value, cst.Subscript):
        return held(ctx, value.value, depth)
    if isinstance(value, cst.Call) and not any(arg.star for arg in value.args):
        return _call_held(ctx, value, depth)
    return False


def _call_held(ctx: FileFacts, call: cst.Call, depth: int) -> bool:
    qualified = ctx.qualified_name(call.func) or ""
    root = qualified.split(".")[0]
    if root in IN_MEMORY_LIBRARIES:
        lazy = qualified in LAZY_CALLS or qualified.startswith(LAZY_PREFIXES) or any(
            arg.keyword is not None and arg.keyword.value in ("mmap", "mmap_mode") for arg in call.args
        )
        archive = qualified == "numpy.load" and any((string_value(arg.value) or "").endswith(".npz") for arg in call.args)
        return not (lazy or archive)
    if isinstance(call.func, cst.Name) and ctx.names.lookup(call.func.value) is None and call.func.value in MATERIALISING_BUILTINS - {"open"}:
        return all(held(ctx, arg.value, depth + 1) for arg in call.args)
    if isinstance(call.func, cst.Name):
        made = reaching_values(ctx.module, ctx.frequency.enclosing_function(call), call.func.value)
        return bool(made) and all(_pretrained(ctx, item) for item in made)  # type: ignore[union-attr]
    return isinstance(call.func, cst.Attribute) and not qualified and held(ctx, call.func.value, depth)


def _pretrained(ctx: FileFacts, value: cst.BaseExpression) -> bool:
    """`AutoTokenizer.from_pretrained(...)` (of `transformers`): called, it gives values in memory."""
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute) and value.func.attr.value == "from_pretrained"):
        return False
    return (ctx.qualified_name(value.func) or "").startswith("transformers.")


def _reads(call: cst.Call) -> bool:
    """A call that reads stored data (`dataset_items.reads_storage`)."""
    return reads_storage(dotted_name(call.func) or "")


def items_may_carry_graph(ctx: FileFacts, dataset: cst.BaseExpression, depth: int = 0) -> bool:
    """Whether the dataset's items may carry an autograd graph, which a worker process cannot
    send back (PyTorch refuses to pickle a non-leaf tensor that requires gradients): the
    expression that makes the dataset, or the values of the names it reads (`features =
    [encoder(x) for x in raw]`), runs or receives a module (a name the value inference knows
    as one, `nn.Linear(...)`, a module class of the file), makes a tensor that requires
    gradients (`requires_grad`, `nn.Parameter`), or is a dataset class of the file whose code
    does one of these."""
    for node in descendants(dataset):
        if isinstance(node, cst.Name) and node.value == "requires_grad" or isinstance(node, cst.Arg) and node.keyword is not None and node.keyword.value == "requires_grad":
            return True
        if not isinstance(node, (cst.Name, cst.Attribute, cst.Call)):
            continue
        if isinstance(node, cst.Call):
            if _makes_module_or_parameter(ctx, node.func) or _class_may_carry_graph(ctx, node.func):
                return True
        elif ctx.kind_of(node) is Kind.MODULE:
            return True
        elif isinstance(node, cst.Name) and depth < MAX_DATASET_STEPS and node is not dataset:
            if _made_to_require_grad(ctx.module, node.value):
                return True
            if any(items_may_carry_graph(ctx, value, depth + 1) for value in assigned_values(ctx.module, node.value)):
                return True
    if isinstance(dataset, cst.Name) and depth < MAX_DATASET_STEPS:
        return any(items_may_carry_graph(ctx, value, depth + 1) for value in assigned_values(ctx.module, dataset.value))
    return False


def _made_to_require_grad(module: cst.Module, name: str) -> bool:
    """Whether the file asks for gradients of the tensor `name` after making it:
    `name.requires_grad_()` or `name.requires_grad = True`."""
    return name in _made_to_require_grad_in(module)


@per_module
def _made_to_require_grad_in(module: cst.Module) -> FrozenSet[str]:
    """The (dotted) names the file asks gradients of, `_made_to_require_grad`, found once."""
    found: Set[str] = set()
    for node in nodes_of_type(module, (cst.Call,)):
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "requires_grad_":
            found.add(dotted_name(node.func.value) or "")
    for node in nodes_of_type(module, (cst.Assign,)):
        for target in node.targets:
            held, _, attribute = (dotted_name(target.target) or "").rpartition(".")
            if attribute == "requires_grad":
                found.add(held)
    return frozenset(found - {""})


def _makes_module_or_parameter(ctx: FileFacts, func: cst.BaseExpression) -> bool:
    """A call that builds a torch module or parameter (`nn.Linear(...)`, `nn.Parameter(...)`)."""
    qualified = ctx.qualified_name(func) or ""
    return qualified.startswith("torch.nn.") and qualified.rpartition(".")[2][:1].isupper()


def _class_may_carry_graph(ctx: FileFacts, func: cst.BaseExpression) -> bool:
    """A class of the file, or a function of the file (`build()` that returns
    `Lookup(nn.Parameter(table))`), whose code builds a module or parameter or asks for
    gradients."""
    name = func.value if isinstance(func, cst.Name) else None
    definitions = [*ctx.frequency.classes().get(name, []), *ctx.frequency.local_functions().get(name, [])] if name else []
    return any(
        (isinstance(node, cst.Name) and node.value == "requires_grad") or (isinstance(node, cst.Call) and _makes_module_or_parameter(ctx, node.func))
        for definition in definitions
        for node in descendants(definition)
    )


def constructed_classes(ctx: FileFacts, expression: cst.BaseExpression, depth: int = 0) -> Set[str]:
    """Names of the file's classes whose instance `expression` may be: a call of one, either
    branch of a conditional expression, a name through every assignment to it in the file,
    or a call of a function of the file through what it returns (`build_dataset(split)` that
    returns `Numbers()`); through torch's wrappers, whose items are the wrapped dataset's
    (`Subset(Records(...), idx)`, a part of `random_split(Records(...), sizes)`, either
    dataset of `ConcatDataset([A(), B()])`), an item of a list, tuple or dict display
    (`splits["train"]` with `splits = {"train": A(), ...}`, each element counted)."""
    if depth >= MAX_DATASET_STEPS:
        return set()
    if isinstance(expression, cst.IfExp):
        return constructed_classes(ctx, expression.body, depth + 1) | constructed_classes(ctx, expression.orelse, depth + 1)
    if isinstance(expression, cst.Name):
        values = [*assigned_values(ctx.module, expression.value), *_unpacked_from(ctx, expression.value)]
        return {name for value in values for name in constructed_classes(ctx, value, depth + 1)}
    # (parts of the expression itself cost no step: they end where the expression does)
    if isinstance(expression, cst.Subscript):
        return constructed_classes(ctx, expression.value, depth)
    if isinstance(expression, (cst.List, cst.Tuple, cst.Set)):
        return {name for element in expression.elements for name in constructed_classes(ctx, element.value, depth)}
    if isinstance(expression, cst.Dict):
        return {name for element in expression.elements if isinstance(element, cst.DictElement) for name in constructed_classes(ctx, element.value, depth)}
    if isinstance(expression, cst.Call) and (ctx.names.qualified_name(expression.func) or "") in SUBSETS | RANDOM_SPLITS | CONCATENATIONS:
        wrapped = next((arg.value for arg in expression.args if arg.keyword is None or arg.keyword.value in ("dataset", "datasets")), None)
        return constructed_classes(ctx, wrapped, depth) if wrapped is not None else set()
    if not isinstance(expression, cst.Call) or not isinstance(expression.func, cst.Name):
        return set()
    called = expression.func.value
    if called in ctx.frequency.classes():
        return {called}
    returned = [
        node.value
        for function in ctx.frequency.local_functions().get(called, [])
        for node in scope_descendants(function.body)
        if isinstance(node, cst.Return) and node.value is not None
    ]
    return {name for value in returned for name in constructed_classes(ctx, value, depth + 1)}


def unsharded_iterable_class(ctx: FileFacts, name: str) -> bool:
    """Whether the class `name` of the file may be an `IterableDataset` whose every worker
    would yield every item: it or a class of the file it derives from subclasses
    `IterableDataset`, or derives from a class of another module while defining `__iter__`;
    and no class of that chain mentions `get_worker_info`, itself or in a function of the
    file it calls (`shard(items)` that splits by worker)."""
    chain = _class_chain(ctx, name)
    classes = ctx.frequency.classes()
    bases = [base.value for klass in chain for base in klass.bases]
    iterable = any((ctx.qualified_name(base) or dotted_name(base) or "").endswith("IterableDataset") for base in bases)
    foreign = any(dotted_name(base) not in classes and not (ctx.qualified_name(base) or "").startswith("torch.") for base in bases)
    iterates = any(isinstance(item, cst.FunctionDef) and item.name.value == "__iter__" for klass in chain for item in descendants(klass))
    if not (iterable or (foreign and iterates)):
        return False
    functions = ctx.frequency.local_functions()
    called = {item.value for klass in chain for item in descendants(klass) if isinstance(item, cst.Name) and item.value in functions}
    bodies = [*chain, *(function for helper in called for function in functions[helper])]
    return not any(isinstance(item, cst.Name) and item.value == "get_worker_info" for body in bodies for item in descendants(body))


def _class_chain(ctx: FileFacts, name: str, depth: int = 0) -> List[cst.ClassDef]:
    """The classes of the file named `name`, and the classes of the file they derive from."""
    found = list(ctx.frequency.classes().get(name, []))
    for klass in found[:] if depth < MAX_DATASET_STEPS else []:
        for base in klass.bases:
            base_name = dotted_name(base.value)
            if base_name and base_name != name:
                found.extend(_class_chain(ctx, base_name, depth + 1))
    return found


# Calls that open a file or store whose handle an object may keep (`open`, `h5py.File`,
# `lmdb.open`, `zipfile.ZipFile`, `tarfile.TarFile`, `Path(p).open`, `gzip.GzipFile`,
# `io.FileIO`, `pandas.HDFStore`, a `tempfile.TemporaryFile` cache), by their last name.
FILE_OPENERS = frozenset(
    {"open", "File", "ZipFile", "TarFile", "GzipFile", "BZ2File", "LZMAFile", "FileIO", "BufferedReader", "BufferedRandom", "HDFStore", "fdopen"}
    # `tempfile`'s files are real files whose offset forked workers share too.
    | {"TemporaryFile", "NamedTemporaryFile", "SpooledTemporaryFile", "TextIOWrapper", "BufferedRWPair"}
)


def _opens_file(value: cst.BaseExpression, handles: FrozenSet[str] = frozenset(), openers: FrozenSet[str] = frozenset()) -> bool:
    """Whether an expression's value is, or holds, a handle a file opener returns (`open(p)`,
    `Path(p).open()`, `tempfile.TemporaryFile()`, `[open(p) for p in paths]`, `{"train":
    open(p)}`, `(open(p), n)`, a conditional of one, a name in `handles` that the method bound
    to one), the opener named by its last name or a function of the file in `openers` that
    returns one (`open_records(p)`), or an object of a class (a capitalised name)
    made around one, which keeps it (`io.TextIOWrapper(io.FileIO(p))`, `csv.DictReader(open(p))`);
    not what a method of the handle or a function handed it returns
    (`open(p).read().splitlines()`, `json.load(open(p))` keep no file)."""
    def opens(item: cst.BaseExpression) -> bool:
        return _opens_file(item, handles, openers)

    if isinstance(value, cst.Name):
        return value.value in handles
    if isinstance(value, cst.Call):
        func = value.func
        last = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else None
        if last in FILE_OPENERS or (isinstance(func, cst.Name) and func.value in openers):
            return True
        return bool(last) and last[:1].isupper() and any(opens(arg.value) for arg in value.args)
    if isinstance(value, (cst.Tuple, cst.List, cst.Set)):
        return any(opens(element.value) for element in value.elements)
    if isinstance(value, cst.Dict):
        return any(isinstance(element, cst.DictElement) and opens(element.value) for element in value.elements)
    if isinstance(value, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
        return opens(value.elt)
    if isinstance(value, cst.DictComp):
        return opens(value.value)
    if isinstance(value, cst.IfExp):
        return opens(value.body) or opens(value.orelse)
    return False


def _local_handles(function: cst.FunctionDef, openers: FrozenSet[str]) -> FrozenSet[str]:
    """The local names the function binds to a handle (`f = tempfile.TemporaryFile()`), in
    source order."""
    handles: Set[str] = set()
    for node in descendants(function):
        if isinstance(node, cst.Assign) and _opens_file(node.value, frozenset(handles), openers):
            handles.update(t.target.value for t in node.targets if isinstance(t.target, cst.Name))
    return frozenset(handles)


@per_module
def _file_openers(module: cst.Module) -> FrozenSet[str]:
    """The module-level functions of the file that return a handle they open (`def
    open_records(p): return open(p, "rb")`, also through a local name): a call of one opens
    a file as `open` does."""
    found: Set[str] = set()
    for statement in module.body:
        if isinstance(statement, cst.FunctionDef):
            handles = _local_handles(statement, frozenset())
            returned = [node.value for node in scope_descendants(statement.body) if isinstance(node, cst.Return) and node.value is not None]
            if any(_opens_file(value, handles) for value in returned):
                found.add(statement.name.value)
    return frozenset(found)


def _self_target(target: cst.BaseExpression) -> bool:
    """An attribute of `self` (`self.f`), also inside a tuple target (`self.f, self.n = ...`)."""
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(_self_target(element.value) for element in target.elements)
    if isinstance(target, cst.StarredElement):
        return _self_target(target.value)
    return isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) and target.value.value == "self"


def keeps_open_file(ctx: FileFacts, name: str) -> bool:
    """Whether the dataset class `name` of the file (or a base of the file) opens a file in
    the main process and keeps it (`self.f = open(path, "rb")`, `self.h5 = h5py.File(path)`)
    in `__init__` or `__len__` (the sampler asks the length before workers start) or in a
    method of the class they call (`self._open()`, a lazy `self._file()`), also through a
    function of the file that returns the handle (`self.f = open_records(path)`): forked worker
    processes share the open file's offset, so their seek-then-read calls interleave and read
    each other's records. A file opened only in `__getitem__` is each worker's own."""
    methods: Dict[str, List[cst.FunctionDef]] = {}
    for klass in _class_chain(ctx, name):
        for method in klass.body.body:
            if isinstance(method, cst.FunctionDef):
                methods.setdefault(method.name.value, []).append(method)
    openers = _file_openers(ctx.module)
    pending, seen = ["__init__", "__len__"], set()
    while pending:
        method_name = pending.pop()
        if method_name in seen:
            continue
        seen.add(method_name)
        for method in methods.get(method_name, []):
            # Local names the method binds to a handle (`f = tempfile.TemporaryFile()`, then `self.f = f`).
            kept = _local_handles(method, openers)
            for node in descendants(method):
                # `self.f = open(p)`, `self.f: IO = ...`, `self.files = [open(p) for p in ps]`,
                # `self.f, self.n = open(p), n`, `setattr(self, name, open(p))`
                if isinstance(node, cst.Assign) and node.value is not None and _opens_file(node.value, kept, openers):
                    if any(_self_target(t.target) for t in node.targets):
                        return True
                if isinstance(node, cst.AnnAssign) and node.value is not None and _opens_file(node.value, kept, openers) and _self_target(node.target):
                    return True
                if (
                    isinstance(node, cst.Call) and dotted_name(node.func) in ("setattr", "object.__setattr__") and len(node.args) == 3
                    and isinstance(node.args[0].value, cst.Name) and node.args[0].value.value == "self" and _opens_file(node.args[2].value, kept, openers)
                ):
                    return True
                if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and isinstance(node.func.value, cst.Name) and node.func.value.value == "self":
                    pending.append(node.func.attr.value)
    return False


def handed_open_file(ctx: FileFacts, dataset: cst.BaseExpression) -> bool:
    """Whether the call that makes the dataset (directly or through the names it is assigned
    to) is handed a file the main process opened: a handle (`Records(open(path, "rb"))`, or a
    name bound to one, `handle = open(path)`), or an object of a class of the file that keeps
    one (`Records(Reader(path))` where `Reader.__init__` does `self.f = open(path)`). The
    dataset keeps it as if it had opened it in `__init__` (`keeps_open_file`): forked workers
    share its offset."""
    made = [dataset] if isinstance(dataset, cst.Call) else assigned_values(ctx.module, dataset.value) if isinstance(dataset, cst.Name) else []
    for call in made:
        if not isinstance(call, cst.Call):
            continue
        for arg in call.args:
            values = [arg.value, *(assigned_values(ctx.module, arg.value.value) if isinstance(arg.value, cst.Name) else [])]
            if any(_opens_file(value, openers=_file_openers(ctx.module)) for value in values):
                return True
            if any(keeps_open_file(ctx, name) for name in constructed_classes(ctx, arg.value)):
                return True
    return False


# Calls that make a tensor or array whose dtype, unless given, follows the data they are
# handed (a JSON number, a decoded file): by qualified name, with the position of the value
# whose type decides it and the position `dtype` may be passed at (None: keyword only).
DATA_TYPED_CONVERSIONS = {
    "torch.tensor": (0, None), "torch.as_tensor": (0, None), "torch.from_numpy": (0, None), "torch.load": (None, None),
    "torch.full": (1, None), "numpy.full": (1, 2), "numpy.array": (0, 1), "numpy.asarray": (0, 1), "numpy.asanyarray": (0, 1),
    "numpy.load": (None, None), "numpy.loadtxt": (None, 1), "numpy.genfromtxt": (None, 1),
}
# Methods that set the dtype of what they are called on (`torch.tensor(y).float()`), and the
# builtins whose result has one type (`torch.tensor([float(v) for v in row])`).
DTYPE_METHODS = frozenset("float double half bfloat16 long int short byte char bool astype type".split())
TYPED_BUILTINS = frozenset({"float", "int", "bool", "len"})


def _typed_value(ctx: FileFacts, value: cst.BaseExpression, scope: "_Scope") -> bool:
    """Whether `value` has one type whatever the data: a number or boolean literal, `float(v)`,
    `int(v)`, a call of a dtype method (`a.astype(np.float32)`), a conversion given a dtype,
    the bytes of a read as a list of ints, arithmetic of such values, settings and indices
    (`2.0 * index`, `i * self.scale`), the index `__getitem__` is given, a local name every
    assignment gives such a value, or a list, tuple or comprehension of such values. Not an
    item looked up in data (`record["y"]`, `self.labels[i]`) or what a decoding call returns
    (`ast.literal_eval(field)`, `np.load(path)`): its type is the data's."""
    if isinstance(value, (cst.Integer, cst.Float)) or (isinstance(value, cst.Name) and value.value in ("True", "False")):
        return True
    if isinstance(value, cst.Name):
        return scope.typed_name(value.value)
    if isinstance(value, cst.UnaryOperation):
        return _typed_value(ctx, value.expression, scope)
    if isinstance(value, cst.BinaryOperation):
        operands = (value.left, value.right)
        if isinstance(value.operator, cst.Divide) or any(isinstance(o, cst.Float) or _calls_float(o) for o in operands):
            return True  # a true division, or arithmetic with a float, gives a float
        return all(_arithmetic_operand(ctx, o, scope) for o in operands)
    if isinstance(value, (cst.List, cst.Tuple)):
        return bool(value.elements) and all(_typed_value(ctx, element.value, scope) for element in value.elements)
    if isinstance(value, (cst.ListComp, cst.GeneratorExp)):
        return _typed_value(ctx, value.elt, scope)
    if isinstance(value, cst.Call):
        if isinstance(value.func, cst.Name) and value.func.value in TYPED_BUILTINS:
            return True
        if isinstance(value.func, cst.Name) and value.func.value in ("list", "bytes", "bytearray") and value.args:
            read = value.args[0].value  # `list(f.read(2))`: the bytes of a read, as ints
            return isinstance(read, cst.Call) and isinstance(read.func, cst.Attribute) and read.func.attr.value == "read"
        if isinstance(value.func, cst.Attribute) and value.func.attr.value in DTYPE_METHODS:
            return True
        return (ctx.names.qualified_name(value.func) or "") in DATA_TYPED_CONVERSIONS and _data_typed(ctx, value, scope) is None
    return False


def _calls_float(value: cst.BaseExpression) -> bool:
    return isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and value.func.value == "float"


def _arithmetic_operand(ctx: FileFacts, value: cst.BaseExpression, scope: "_Scope") -> bool:
    """An operand of arithmetic whose type does not follow the data: a typed value, or a name
    or attribute (an index, a setting: `i * self.scale`)."""
    if isinstance(value, (cst.Name, cst.Attribute)):
        return True
    return _typed_value(ctx, value, scope)


class _Scope:
    """The function a conversion is in: its local assignments, and the index it is given."""

    def __init__(self, ctx: FileFacts, function: cst.FunctionDef, fixed: Set[int]) -> None:
        self.ctx, self.fixed = ctx, fixed
        params = [param.name.value for param in function.params.params]
        self.index = params[1] if function.name.value == "__getitem__" and len(params) > 1 else None
        self.assigned: Dict[str, List[cst.BaseExpression]] = {}
        for node in descendants(function):
            if isinstance(node, cst.Assign):
                for target in node.targets:
                    if isinstance(target.target, cst.Name):
                        self.assigned.setdefault(target.target.value, []).append(node.value)
                    else:
                        for name in bound_names(target.target):
                            self.assigned.setdefault(name, []).append(cst.Name("__unknown__"))
        self.following: Set[str] = set()

    def typed_name(self, name: str) -> bool:
        if name == self.index:
            return True
        values = self.assigned.get(name)
        if not values or name in self.following:
            return False
        self.following.add(name)
        try:
            return all(_typed_value(self.ctx, value, self) for value in values)
        finally:
            self.following.discard(name)


def _constant_dtype(ctx: FileFacts, value: cst.BaseExpression) -> bool:
    """A dtype spelled out: `torch.float32`, `np.int64`, `"float32"`, `float`; not a name or
    attribute that holds one (`dtype=self.dtype`, which each dataset may set otherwise)."""
    if isinstance(value, cst.SimpleString):
        return True
    if isinstance(value, cst.Name) and value.value in ("float", "int", "bool", "complex"):
        return True
    return (ctx.names.qualified_name(value) or "").startswith(("torch.", "numpy."))


def _data_typed(ctx: FileFacts, call: cst.Call, scope: _Scope) -> Optional[str]:
    """The name of the conversion `call` makes when the dtype of its result may follow the
    data it is handed: no constant `dtype` and a value not known to have one type, and its
    result not converted on the spot (`scope.fixed` holds the calls a dtype method is called on)."""
    qualified = ctx.names.qualified_name(call.func) or ""
    if qualified not in DATA_TYPED_CONVERSIONS or id(call) in scope.fixed:
        return None
    value_at, dtype_at = DATA_TYPED_CONVERSIONS[qualified]
    dtype = next((arg.value for arg in call.args if arg.keyword is not None and arg.keyword.value == "dtype"), None)
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    if dtype is None and dtype_at is not None and len(positional) > dtype_at:
        dtype = positional[dtype_at].value
    if dtype is not None:
        return None if _constant_dtype(ctx, dtype) else qualified
    if value_at is not None and len(positional) > value_at and _typed_value(ctx, positional[value_at].value, scope):
        return None
    return qualified


def item_dtype_from_data(ctx: FileFacts, name: str) -> Optional[str]:
    """The conversion (`torch.tensor`, `torch.as_tensor`, `np.load`, ...) by which the dataset
    class `name` of the file (or a base of the file) makes, in `__getitem__` or in a method
    or function of the file it calls, a tensor or array whose dtype follows the data of
    each item (`torch.tensor(record["y"])` of a JSON number that is `3` in one record and
    `0.5` in another; `np.load(path)` of files saved with other dtypes; a `dtype=` chosen per
    item). Default collation stacks a batch with `torch.stack`, which promotes mixed dtypes
    in the main process; in a worker it stacks into shared memory of the first item's
    dtype, which refuses a wider kind (`TypeError`) or narrows the others (float64 items
    become float32)."""
    methods: Dict[str, List[cst.FunctionDef]] = {}
    for klass in _class_chain(ctx, name):
        for method in klass.body.body:
            if isinstance(method, cst.FunctionDef):
                methods.setdefault(method.name.value, []).append(method)
    functions = ctx.frequency.local_functions()
    pending, seen = ["__getitem__", "__getitems__"], set()
    bodies: List[cst.FunctionDef] = []
    while pending:
        called = pending.pop()
        if called in seen:
            continue
        seen.add(called)
        found = methods.get(called, []) if not called.startswith(".") else functions.get(called[1:], [])
        for body in found:
            bodies.append(body)
            for node in descendants(body):
                if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and isinstance(node.func.value, cst.Name) and node.func.value.value == "self":
                    pending.append(node.func.attr.value)
                elif isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value in functions:
                    pending.append("." + node.func.value)
    for body in bodies:
        fixed = {
            id(node.func.value)
            for node in descendants(body)
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in DTYPE_METHODS
        }
        scope = _Scope(ctx, body, fixed)
        for node in descendants(body):
            if isinstance(node, cst.Call) and (found := _data_typed(ctx, node, scope)) is not None:
                return found
    return None


# torch's functions that make quantized tensors, and its quantized dtypes.
QUANTIZING = frozenset({"torch.quantize_per_tensor", "torch.quantize_per_channel", "torch.quantize_per_tensor_dynamic"})
QUANTIZED_DTYPES = frozenset({"torch.quint8", "torch.qint8", "torch.qint32", "torch.quint4x2", "torch.quint2x4"})


def makes_quantized_tensors(ctx: FileFacts) -> Optional[str]:
    """A quantizing call or quantized dtype the file names (`torch.quantize_per_tensor(feats,
    0.01, 0, torch.quint8)`: features kept in 8 bits): a dataset may hand out such tensors,
    which default collation stacks into shared memory only in worker processes, and
    `Tensor.new(storage)` refuses a quantized tensor there (`RuntimeError`)."""
    for node in descendants(ctx.module):
        if isinstance(node, (cst.Attribute, cst.Name)):
            qualified = ctx.qualified_name(node)
            if qualified in QUANTIZING or qualified in QUANTIZED_DTYPES:
                return qualified
    return None


# Calls and attributes that give a lazily conjugated view of a complex tensor (its conjugate
# or negative bit set: `z.conj()`, `z.mH`, and `.imag` of such a view).
CONJUGATING = frozenset({"conj", "adjoint", "mH", "H"})


def makes_conjugate_views(ctx: FileFacts) -> Optional[str]:
    """A conjugating call or attribute the file names (`torch.fft.rfft(x).conj()`) where it
    also makes complex values: a dataset may hand out such a lazy view, which default
    collation stacks into shared memory only in a worker, where `torch.stack(..., out=)`
    refuses it (`RuntimeError`)."""
    from torchlint.semantics.dtypes import program_makes_complex

    for node in descendants(ctx.module):
        if isinstance(node, cst.Attribute) and node.attr.value in CONJUGATING:
            return node.attr.value if program_makes_complex(ctx) else None
    return None


# Methods of Python's containers that change them in place.
MUTATING_METHODS = frozenset("append extend insert pop remove clear update add discard setdefault popitem sort reverse".split())
# torch's own iterable-style datasets that do not split their items by worker: a chain of
# datasets, and the data pipes (`IterableWrapper(range(n))` in every worker yields every item).
TORCH_ITERABLES = ("torch.utils.data.ChainDataset", "torch.utils.data.dataset.ChainDataset", "torch.utils.data.datapipes.")


def torch_iterable(ctx: FileFacts, dataset: cst.BaseExpression, depth: int = 0) -> Optional[str]:
    """The name of a torch iterable-style dataset class (`ChainDataset`, a data pipe) that
    `dataset` is made by, directly or through the names it is assigned from; its workers
    would each yield every item of the datasets it wraps."""
    if depth >= MAX_DATASET_STEPS:
        return None
    if isinstance(dataset, cst.Name):
        return next((found for value in assigned_values(ctx.module, dataset.value) if (found := torch_iterable(ctx, value, depth + 1))), None)
    if not isinstance(dataset, cst.Call):
        return None
    qualified = ctx.qualified_name(dataset.func) or ""
    return qualified.rpartition(".")[2] if qualified.startswith(TORCH_ITERABLES) else None


def changed_in_place(module: cst.Module, name: str) -> bool:
    """Whether the file changes what `name` holds in place: a container method that changes
    it (`items.append(x)`), an item stored or deleted (`items[i] = x`), or `items += [x]`."""
    for node in descendants(module):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            if node.func.attr.value in MUTATING_METHODS and dotted_name(node.func.value) == name:
                return True
        targets: List[cst.BaseExpression] = []
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        elif isinstance(node, cst.AugAssign):
            targets = [node.target]
            if dotted_name(node.target) == name:
                return True
        elif isinstance(node, cst.Del):
            targets = [node.target]
        if any(isinstance(target, cst.Subscript) and dotted_name(target.value) == name for target in targets):
            return True
    return False


def shared_contents_changed(ctx: FileFacts, dataset: cst.BaseExpression) -> Optional[str]:
    """A name the file passes to the call that makes the dataset (directly or through the
    name it is assigned to) and changes in place (`pool = Pool(items)`, then
    `items.append(x)` between epochs): the dataset holds that object, so its contents, and
    perhaps its length, change without the dataset being named; also through a name or
    attribute the file binds to it (`self.memory = memory`, then `self.memory.append(x)`), or
    as written for an item (`Pool(buffers["train"])`, then `buffers["train"].extend(new)`).
    Worker processes keep the copy they started with. The call may be one a function of the
    file returns (`make_pool()` returning `Pool(BUFFER)`), and an attribute handed to it may
    change through a method of its owner (`Pool(memory.items)`, then `memory.push(x)`)."""
    made = [dataset] if isinstance(dataset, cst.Call) else assigned_values(ctx.module, dataset.value) if isinstance(dataset, cst.Name) else []
    functions = ctx.frequency.local_functions()
    made += [
        node.value
        for call in made
        if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value not in ctx.frequency.classes()
        for function in functions.get(call.func.value, [])
        for node in scope_descendants(function.body)
        if isinstance(node, cst.Return) and isinstance(node.value, cst.Call)
    ]
    for call in made:
        if not isinstance(call, cst.Call):
            continue
        for arg in call.args:
            name = dotted_name(arg.value)
            if name is not None and changed_in_place(ctx.module, name):
                return name
            if isinstance(arg.value, cst.Attribute) and name is not None and _method_called_on(ctx.module, name.rpartition(".")[0]):
                return name
            for alias in _aliases(ctx.module, arg.value):
                if changed_in_place(ctx.module, alias):
                    return alias
            if isinstance(arg.value, cst.Subscript) and _changed_in_place_as_written(ctx.module, arg.value):
                return ctx.module.code_for_node(arg.value)
    return length_global_changed(ctx, dataset)


def _method_called_on(module: cst.Module, owner: str) -> bool:
    """Whether the file calls a method on the object `owner` names (`memory.push(x)`), which
    may change what its attributes hold."""
    return any(
        isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and dotted_name(node.func.value) == owner
        for node in descendants(module)
    )


def _aliases(module: cst.Module, value: cst.BaseExpression) -> List[str]:
    """The names and attributes the file binds to the name `value` (`replay = items`, and
    `self.memory = memory` for a parameter `memory`): other names that hold the same object."""
    if not isinstance(value, cst.Name):
        return []
    found: List[str] = []
    for node in descendants(module):
        if isinstance(node, cst.Assign) and isinstance(node.value, cst.Name) and node.value.value == value.value:
            found += [name for t in node.targets for name in [dotted_name(t.target)] if name is not None and name != value.value]
    return sorted(set(found))


def _changed_in_place_as_written(module: cst.Module, value: cst.BaseExpression) -> bool:
    """Whether the file changes in place the container spelled as `value` is
    (`buffers["train"].extend(new)` for a dataset made from `buffers["train"]`)."""
    code = module.code_for_node(value)
    for node in descendants(module):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in MUTATING_METHODS:
            if module.code_for_node(node.func.value) == code:
                return True
        if isinstance(node, cst.AugAssign) and module.code_for_node(node.target) == code:
            return True
    return False


def length_global_changed(ctx: FileFacts, dataset: cst.BaseExpression) -> Optional[str]:
    """A module-level name that the `__len__` of the dataset's class of the file (or of a
    base of the file, or a function of the file it calls) reads, and that the file changes
    after binding it: in place (`PAIRS[:] = mined`, `PAIRS.append(p)`, `CFG.n = 4`) or by
    binding it again (`LIMIT = 2 + 2 * epoch` in the epoch loop, or in a function that
    declares it `global`). Also a module-level container that `__init__` reads and the file
    changes in place (`self.pairs = PAIRS`). Also a class-level attribute of that class that
    `__len__` or `__init__` reads (`len(type(self).BANK)`) and the file changes in place
    through the class (`HardNegatives.BANK.extend(mined)`), or that `__len__` reads and the
    file binds again (`HardNegatives.SIZE = 4`). The sampler asks the main process's length,
    which follows the change, while worker processes keep the copy they started with: their
    items run out (`IndexError`)."""
    module = ctx.module
    top = _module_bindings(module)
    functions = ctx.frequency.local_functions()
    for class_name in sorted(constructed_classes(ctx, dataset)):
        for klass in _class_chain(ctx, class_name):
            for method in klass.body.body:
                if not isinstance(method, cst.FunctionDef) or method.name.value not in ("__len__", "__init__"):
                    continue
                bodies = [method]
                called = {node.func.value for node in descendants(method) if isinstance(node, cst.Call) and isinstance(node.func, cst.Name)}
                bodies += [function for name in sorted(called) for function in functions.get(name, [])]
                read = {node.value for body in bodies for node in descendants(body) if isinstance(node, cst.Name) and node.value in top}
                for name in sorted(read - {class_name}):
                    if changed_in_place(module, name) or _attribute_assigned(module, name):
                        return name
                    if method.name.value == "__len__" and _bound_again(module, name):
                        return name
                for name in _class_attributes_read(bodies, [klass.name.value for klass in _class_chain(ctx, class_name)]):
                    if changed_in_place(module, name) or (method.name.value == "__len__" and _assigned(module, name)):
                        return name
    return None


def _class_attributes_read(bodies: List[cst.FunctionDef], classes: List[str]) -> List[str]:
    """`Class.attr` for each attribute the methods in `bodies` read through the class or an
    instance (`self.BANK`, `type(self).BANK`, `self.__class__.BANK`, `cls.BANK`,
    `HardNegatives.BANK`), for every class of the chain `classes`: the names by which the
    file may change a class-level attribute (`HardNegatives.BANK.extend(mined)`)."""
    owners = {"self", "cls", "type(self)", "self.__class__", *classes}
    read: Set[str] = set()
    for body in bodies:
        for node in descendants(body):
            if not isinstance(node, cst.Attribute):
                continue
            owner = node.value
            spelled = (
                "type(self)"
                if isinstance(owner, cst.Call) and dotted_name(owner.func) == "type" and len(owner.args) == 1 and dotted_name(owner.args[0].value) == "self"
                else dotted_name(owner)
            )
            if spelled in owners:
                read.add(node.attr.value)
    return [f"{klass}.{attr}" for attr in sorted(read) for klass in classes]


def _assigned(module: cst.Module, name: str) -> bool:
    """Whether the file binds the dotted `name` (`HardNegatives.BANK = mined`)."""
    for node in descendants(module):
        targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target] if isinstance(node, (cst.AugAssign, cst.AnnAssign)) else []
        if any(dotted_name(target) == name for target in targets):
            return True
    return False


@per_module
def _module_bindings(module: cst.Module) -> FrozenSet[str]:
    """The names that statements at module level bind by assignment."""
    names: Set[str] = set()
    for line in module.body:
        if isinstance(line, cst.SimpleStatementLine):
            for small in line.body:
                targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target] if isinstance(small, (cst.AnnAssign, cst.AugAssign)) else []
                names |= {node.value for target in targets for node in [target, *descendants(target)] if isinstance(node, cst.Name)}
    return frozenset(names)


def _attribute_assigned(module: cst.Module, name: str) -> bool:
    """Whether the file assigns an attribute of what `name` holds (`CFG.n = 4`)."""
    for node in descendants(module):
        targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target] if isinstance(node, (cst.AugAssign, cst.AnnAssign)) else []
        if any(isinstance(target, cst.Attribute) and dotted_name(target.value) == name for target in targets):
            return True
    return False


def _bound_again(module: cst.Module, name: str) -> bool:
    """Whether the module-level `name` is bound more than once, in a loop at module level, or
    in a function that declares it `global`."""
    bindings = 0
    for node in descendants(module):
        targets: List[cst.BaseExpression] = []
        if isinstance(node, cst.Assign):
            targets = [t.target for t in node.targets]
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, (cst.For, cst.CompFor)):
            targets = [node.target]
        elif isinstance(node, cst.NamedExpr):
            targets = [node.target]
        if any(isinstance(item, cst.Name) and item.value == name for target in targets for item in [target, *descendants(target)]):
            bindings += 1
    if bindings > 1:
        return True
    for function in nodes_of_type(module, (cst.FunctionDef,)):
        if any(isinstance(node, cst.Global) and any(item.name.value == name for item in node.names) for node in scope_descendants(function.body)):
            return True
    return False


def changed_through_loader(module: cst.Module, loader: cst.Call) -> Optional[str]:
    """`<name>.dataset`, when the file may change the dataset through the loader it is
    assigned to (`loader = DataLoader(pool)`, then `loader.dataset.items.append(x)` or
    `self.loader.dataset.grow(2)`, or through its sampler's `loader.sampler.data_source`,
    also through a name bound to it, `pool = loader.dataset`,
    then `pool.items.append(x)`): a method called on it or on one of its attributes, or one
    of its attributes or items assigned or deleted. `len(loader.dataset)` changes nothing."""
    names: Set[str] = set()
    for node in descendants(module):
        if isinstance(node, cst.Assign) and node.value is loader:
            names |= {name for t in node.targets for name in [dotted_name(t.target)] if name is not None}
        elif isinstance(node, cst.AnnAssign) and node.value is loader:
            names |= {name for name in [dotted_name(node.target)] if name is not None}
    prefixes = {name + suffix for name in names for suffix in (".dataset", ".sampler.data_source")}
    for node in descendants(module):
        # `pool = loader.dataset`: the dataset again, under another name
        if isinstance(node, cst.Assign) and dotted_name(node.value) in prefixes:
            prefixes |= {name for t in node.targets for name in [dotted_name(t.target)] if name is not None}
    for prefix in sorted(prefixes):
        for node in descendants(module):
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
                owner = dotted_name(node.func.value) or ""
                if owner == prefix or owner.startswith(prefix + "."):
                    return prefix
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target] if isinstance(node, (cst.AugAssign, cst.Del, cst.AnnAssign)) else []
            for target in targets:
                owner = dotted_name(target.value) if isinstance(target, (cst.Attribute, cst.Subscript)) else None
                if owner is not None and (owner == prefix or owner.startswith(prefix + ".")):
                    return prefix
    return None


def changed_through_alias(ctx: FileFacts, dataset: cst.BaseExpression, length_only: bool = False) -> Optional[str]:
    """A name through which the file may change the dataset other than its own: a name or
    attribute the file binds to it (`self.pool = pool`, then `self.pool.add(x)`; `memory =
    train_set`, then `memory.items.append(x)`), or the item it is read from, as written
    (`DataLoader(splits["train"])`, then `splits["train"].items.append(x)`): a method called
    on it or on one of its attributes, or one of its attributes or items assigned, changed or
    deleted. With `length_only`, an attribute assigned anew counts only when the `__len__` of
    the dataset's class reads it (`self.pool.items = mined`, not `self.ds.scale = s`): what
    else changes is a documented behaviour change, while a length the workers' copy no longer
    matches makes them raise."""
    module = ctx.module
    if isinstance(dataset, cst.Name):
        spelled = _aliases(module, dataset)
    elif isinstance(dataset, cst.Subscript):
        spelled = [module.code_for_node(dataset)]
    else:
        return None
    measured = _length_attributes(ctx, dataset) if length_only else None
    for code in spelled:
        if _changed_as_written(module, code, measured):
            return code
    return None


def _length_attributes(ctx: FileFacts, dataset: cst.BaseExpression) -> Set[str]:
    """The attributes of `self` that the `__len__` of the dataset's classes of the file reads."""
    return {
        node.attr.value
        for name in constructed_classes(ctx, dataset)
        for klass in _class_chain(ctx, name)
        for method in klass.body.body
        if isinstance(method, cst.FunctionDef) and method.name.value == "__len__"
        for node in descendants(method)
        if isinstance(node, cst.Attribute) and dotted_name(node.value) == "self"
    }


def _changed_as_written(module: cst.Module, code: str, measured: Optional[Set[str]] = None) -> bool:
    """Whether the file calls a method on what `code` spells or on one of its attributes or
    items, or assigns, changes or deletes one of them (with `measured`, an attribute of it
    assigned anew only when its name is in `measured`)."""

    def under(node: cst.BaseExpression) -> bool:
        written = module.code_for_node(node)
        return written == code or written.startswith((code + ".", code + "["))

    for node in descendants(module):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and under(node.func.value):
            return True
        targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target] if isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.Del)) else []
        for target in targets:
            if not (isinstance(target, (cst.Attribute, cst.Subscript)) and under(target.value)):
                continue
            plain = isinstance(node, (cst.Assign, cst.AnnAssign)) and isinstance(target, cst.Attribute) and module.code_for_node(target.value) == code
            if measured is None or not plain or target.attr.value in measured:
                return True
    return False


def changed_by_file(ctx: FileFacts, dataset: cst.BaseExpression) -> Optional[str]:
    """A name through which the file may change the dataset after it is made: the dataset's
    own name when the file calls a method on it or on one of its attributes, or assigns one
    of its attributes or items (`ds.items.append(x)`, `ds.difficulty = d`), and what
    `changed_through_alias`, `shared_contents_changed` and `changed_by_reflection` find."""
    name = dotted_name(dataset)
    if name is not None and not isinstance(dataset, cst.Call):
        for node in descendants(ctx.module):
            if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
                owner = dotted_name(node.func.value) or ""
                if owner == name or owner.startswith(name + "."):
                    return name
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target] if isinstance(node, cst.AugAssign) else []
            for target in targets:
                if isinstance(target, (cst.Attribute, cst.Subscript)) and (dotted_name(target.value) or "").split(".")[0] == name.split(".")[0] and (dotted_name(target.value) or "").startswith(name):
                    return name
    return changed_through_alias(ctx, dataset) or shared_contents_changed(ctx, dataset) or changed_by_reflection(ctx, dataset)


# Calls that set or hand out an object's attributes by name: `setattr(ds, "n", 4)`,
# `vars(ds).update(n=4)`, `object.__setattr__(ds, "n", 4)`.
REFLECTING_CALLS = frozenset({"setattr", "delattr", "vars", "object.__setattr__", "object.__delattr__"})


def changed_by_reflection(ctx: FileFacts, dataset: cst.BaseExpression) -> Optional[str]:
    """A name of the dataset (its own, or one the file binds to it) through which the file
    may change it without calling a method on it or assigning its attributes: handed to
    `setattr`, `vars` or `object.__setattr__` (`setattr(ds, "n", 4)`, `vars(ds).update(n=4)`),
    its `__dict__` read, or one of its class's methods taken as a bound method, to be called
    later under another name (`callbacks = [pool.grow]`, then `callback()`)."""
    if not isinstance(dataset, cst.Name):
        return None
    names = {dataset.value, *_aliases(ctx.module, dataset)}
    methods = {
        method.name.value
        for name in constructed_classes(ctx, dataset)
        for klass in _class_chain(ctx, name)
        for method in klass.body.body
        if isinstance(method, cst.FunctionDef)
    }
    nodes = list(descendants(ctx.module))
    called = {id(node.func) for node in nodes if isinstance(node, cst.Call)}
    for node in nodes:
        if isinstance(node, cst.Call) and dotted_name(node.func) in REFLECTING_CALLS and node.args and dotted_name(node.args[0].value) in names:
            return dotted_name(node.args[0].value)
        if isinstance(node, cst.Attribute) and dotted_name(node.value) in names:
            if node.attr.value == "__dict__" or (node.attr.value in methods and id(node) not in called):
                return dotted_name(node.value)
    return None
