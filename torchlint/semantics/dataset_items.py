"""Dataset classes whose items are already in memory and cheap to get, read from a class's
code with CPython's `ast` for the project index (`project.FunctionFacts.items_in_memory`).

A map-style dataset gives worker processes nothing to overlap when its `__getitem__` (and
`__len__`) only index, slice, reshape or convert attributes that hold data in memory: no
file is read, nothing is decoded and no transform runs per item. This module decides that
from what the code does:

* `__getitem__` and `__len__` call only builtins, tensor and array conversions and reshapes
  (`.float()`, `.view(...)`, `torch.tensor(...)`, `np.asarray(...)`), and random draws (what a
  `raise` builds does not count, and an attribute compared with a constant, `if self.name ==
  "nbody":`, is a setting the method branches on, not data it gives); no
  method of the dataset itself (`self.transform(x)`), no function of the project or of
  another library (`Image.open`, `cv2.imread`, `np.load`, `tokenizer(...)`), no name the
  method does not bind (a global dataset);
* every attribute `__getitem__` reads is assigned, somewhere in the class or in a class of
  the same module it derives from, only values in memory: displays, comprehensions,
  arithmetic, calls of torch, NumPy, pandas and the standard library (a whole-file load such
  as `np.loadtxt`, `torch.load` or `list(csv.reader(f))` happens once), methods of values in
  memory, what the class's own methods return (their parameters in memory where the call
  hands them values in memory), parameters annotated as a list, dict,
  tuple, tensor or array, and parameters whose default is a number or string (a setting). Lazy handles read per item are not in memory (`np.memmap`,
  `np.load(..., mmap_mode=...)`, `torch.load(..., mmap=True)`, an `.npz` archive, `h5py`,
  `lmdb`, `zarr`), nor other datasets (`torch.utils.data` and torchvision classes, calls of
  project functions and classes), nor parameters stored as given (the caller may pass a
  dataset or a file handle).

Anything else keeps the answer False: the finding stays.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

from torchlint.files.syntax import ast_children
from torchlint.semantics.device_names import DEVICE_NAME
from torchlint.semantics.pyast import ast_dotted, ast_qualified, ast_walk

# Builtins whose result is a new value built from what they are given: a container they
# materialise (`list(reader)`) or a number or string.
MATERIALISING_BUILTINS = frozenset(
    "list tuple dict set frozenset sorted len int float str bool bytes range sum min max abs round "
    "divmod hash any all isinstance open".split()
)
# Builtins whose result holds what they are given (lazy iterators).
HOLDING_BUILTINS = frozenset("zip enumerate reversed iter map filter".split())
# Builtins `__getitem__` may call on an item: conversions, arithmetic, small containers.
CHEAP_BUILTINS = (MATERIALISING_BUILTINS | HOLDING_BUILTINS | {"slice"}) - {"open", "map", "filter"}
# Libraries whose calls give values in memory (a whole-file load is a one-time cost).
IN_MEMORY_LIBRARIES = frozenset(
    "torch numpy pandas json pickle csv gzip bz2 lzma re math random collections itertools os glob "
    "string sklearn copy functools operator".split()
)
# Calls of those libraries that give a lazy handle or another dataset, read per item.
LAZY_CALLS = frozenset({"numpy.memmap", "numpy.lib.format.open_memmap", "torch.from_file"})
LAZY_PREFIXES = ("torch.utils.", "torch.hub.")
# Libraries `__getitem__` may call: conversions and reshapes of tensors and arrays, random draws.
CHEAP_LIBRARIES = frozenset({"torch", "numpy", "random", "math"})
# Names of calls that read or write files (`np.load`, `torch.save`, `np.fromfile`).
IO_WORDS = ("load", "save", "read", "open", "from_file", "fromfile", "memmap", "genfromtxt")
# Calls that read stored data whatever their library: an archive or array store opened
# (`h5py.File`, `zipfile.ZipFile`), a directory listed for its files (`os.listdir`, `glob.glob`).
STORAGE_CALLS = frozenset({"File", "ZipFile", "TarFile", "listdir", "scandir", "glob", "iglob", "rglob", "walk", "fromfile", "memmap"})


def reads_storage(name: str) -> bool:
    """Whether a call of the dotted or qualified `name` reads stored data: `open(path)`,
    `np.load(...)`, `Image.open(...)`, `cv2.imread(...)`, `f.read()`, `h5py.File(path)`,
    `os.listdir(root)` (see `STORAGE_CALLS`)."""
    last = name.rpartition(".")[2]
    return last in STORAGE_CALLS or last.startswith(("open", "load", "read", "imread"))


# Methods `__getitem__` may call on an item: dtype conversions, reshapes, copies, dict and
# string access, building a small list.
CHEAP_METHODS = frozenset(
    "float long int double half bool byte short char type to view reshape unsqueeze squeeze permute "
    "transpose flatten contiguous clone copy detach numpy tolist item astype flip get keys values items "
    "split strip lower upper append extend".split()
)
# Annotations that declare a parameter to be data in memory.
IN_MEMORY_ANNOTATIONS = frozenset(
    {"list", "List", "dict", "Dict", "tuple", "Tuple", "Tensor", "torch.Tensor", "ndarray", "np.ndarray", "numpy.ndarray"}
)
# Methods that write an element into a container (`self.index.append((j, i))`).
MUTATORS = frozenset({"append", "extend", "insert", "update", "add"})
BUILTIN_NAMES = frozenset(dir(builtins))
# What a method that gives items cheaply never holds: definitions, and suspension points.
NOT_CHEAP = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Await, ast.Yield, ast.YieldFrom)
MAX_METHOD_DEPTH = 2
# PyTorch Geometric's base of datasets that make each graph in `get(idx)` (its
# `InMemoryDataset` holds them all, collated, instead).
GRAPH_DATASETS = frozenset({"torch_geometric.data.Dataset", "torch_geometric.data.dataset.Dataset"})
MAX_BASES = 4


def items_in_memory(node: ast.ClassDef, classes: Dict[str, ast.ClassDef], aliases: Dict[str, str], given: bool = False) -> bool:
    """Whether instances of the class `node` (whose module defines `classes` and imports
    `aliases`) hold their items in memory and give them cheaply (see the module's text);
    `given`: when the constructor is handed only values in memory, which its parameters
    then hold (`IMDbDataset(encodings, labels)` storing both as given)."""
    chain = _chain(node, classes)
    methods = _methods(chain)
    getitem = methods.get("__getitem__")
    if getitem is None or "__iter__" in methods or "__getitems__" in methods:
        return False
    return _gives_cheaply(chain, methods, getitem, aliases, given)


def builds_graphs_per_item(node: ast.ClassDef, classes: Dict[str, ast.ClassDef], aliases: Dict[str, str]) -> bool:
    """Whether the class is a PyTorch Geometric `Dataset` (not an `InMemoryDataset`) whose
    `get(idx)`, which the dataset's indexing calls for each graph (or its own `__getitem__`,
    which replaces that indexing), does more than index what the class holds: each graph is
    read or built when the loader asks for it; not one that keeps the graphs it builds in a
    cache of its own (`_memoises`)."""
    chain = _chain(node, classes)
    bases = {ast_qualified(base, aliases) for klass in chain for base in klass.bases}
    if not bases & GRAPH_DATASETS:
        return False
    methods = _methods(chain)
    item = methods.get("__getitem__") or methods.get("get")  # an own `__getitem__` replaces the dataset's indexing
    if item is None or _memoises(item, methods):
        return False
    return not _gives_cheaply(chain, methods, item, aliases, False)


def _memoises(item: ast.FunctionDef, methods: Dict[str, ast.FunctionDef]) -> bool:
    """Whether the item method, or a method of the class it calls, keeps each item it builds in
    an attribute it looks items up in first (`if idx in self.cache: return self.cache[idx]`,
    then `self.cache[idx] = graph`): after the first epoch the main process builds nothing,
    and worker processes would each fill a copy of the cache that dies with them."""
    self_name = _self_name(item)
    called = [methods[node.func.attr] for node in ast_walk(item) if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and isinstance(node.func.value, ast.Name) and node.func.value.id == self_name and node.func.attr in methods]
    for function in (item, *called):
        tested = {_self_attribute(node.comparators[0], self_name) for node in ast_walk(function)
                  if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.In)}
        stored = {_self_attribute(target.value, self_name) for node in ast_walk(function) if isinstance(node, ast.Assign)
                  for target in node.targets if isinstance(target, ast.Subscript)}
        if (tested & stored) - {None}:
            return True
    return False


def items_on_device(node: ast.ClassDef, classes: Dict[str, ast.ClassDef]) -> bool:
    """Whether the class's `__getitem__` moves what it gives to an accelerator, or builds it
    there: `.cuda()`, `.to(...)` of a device name or a CUDA string (`audio.to(self.device)`
    with the device the constructor was handed), or a `device=` keyword of either
    (`torch.tensor(self.X[i], device=self.device)`). A loader's batches of such items are
    device tensors already."""
    getitem = _methods(_chain(node, classes)).get("__getitem__")
    if getitem is None:
        return False
    for call in ast_walk(getitem):
        if not isinstance(call, ast.Call):
            continue
        if isinstance(call.func, ast.Attribute) and call.func.attr == "cuda":
            return True
        moved = call.args[0] if isinstance(call.func, ast.Attribute) and call.func.attr == "to" and call.args else None
        built = next((keyword.value for keyword in call.keywords if keyword.arg == "device"), None)
        if any(target is not None and _names_a_device(target) for target in (moved, built)):
            return True
    return False


def _names_a_device(target: ast.expr) -> bool:
    """A CUDA string, or a name or attribute named like a device (`self.device`)."""
    if isinstance(target, ast.Constant):
        return isinstance(target.value, str) and target.value.startswith("cuda")
    return DEVICE_NAME.match((ast_dotted(target) or "").rsplit(".", 1)[-1]) is not None


def _methods(chain: List[ast.ClassDef]) -> Dict[str, ast.FunctionDef]:
    """The methods of a class and its bases in `chain`, the nearest definition of each."""
    methods: Dict[str, ast.FunctionDef] = {}
    for klass in chain:
        for item in klass.body:
            if isinstance(item, ast.FunctionDef):
                methods.setdefault(item.name, item)
    return methods


def _gives_cheaply(chain: List[ast.ClassDef], methods: Dict[str, ast.FunctionDef], getitem: ast.FunctionDef, aliases: Dict[str, str], given: bool) -> bool:
    """Whether `getitem` (and `__len__`) only index and convert attributes in memory."""
    length = methods.get("__len__")
    reads = _cheap_reads(getitem, aliases)
    if reads is None or (length is not None and _cheap_reads(length, aliases) is None):
        return False  # (what `__len__` reads is a size, whatever holds it)
    provenance = _Provenance(chain, methods, aliases, given_init=given)
    return all(provenance.attribute(name) for name in sorted(reads))


def _chain(node: ast.ClassDef, classes: Dict[str, ast.ClassDef]) -> List[ast.ClassDef]:
    """The class and the classes of its module it derives from, nearest first."""
    chain = [node]
    for klass in chain:
        for base in klass.bases:
            found = classes.get(ast_dotted(base) or "")
            if found is not None and found not in chain and len(chain) <= MAX_BASES:
                chain.append(found)
    return chain


def _parameters(function: ast.FunctionDef) -> List[ast.arg]:
    args = function.args
    return [*args.posonlyargs, *args.args, *args.kwonlyargs, *filter(None, (args.vararg, args.kwarg))]


def _self_name(function: ast.FunctionDef) -> Optional[str]:
    """The name of a method's instance (or class) parameter; None for a static method."""
    if any(ast_dotted(decorator) == "staticmethod" for decorator in function.decorator_list):
        return None
    params = _parameters(function)
    return params[0].arg if params else None


def _bound(function: ast.FunctionDef) -> Set[str]:
    """Names the function binds: its parameters and every name it stores."""
    stored = {item.id for item in ast_walk(function) if isinstance(item, ast.Name) and isinstance(item.ctx, ast.Store)}
    return stored | {arg.arg for arg in _parameters(function)}


def _cheap_reads(method: ast.FunctionDef, aliases: Dict[str, str]) -> Optional[Set[str]]:
    """The attributes of `self` that `method` reads, if it does nothing but index, slice,
    convert and reshape (see `CHEAP_BUILTINS`, `CHEAP_LIBRARIES`, `CHEAP_METHODS`); None
    when it does anything else."""
    bound = _bound(method)
    known = bound | set(aliases) | BUILTIN_NAMES
    self_name = _self_name(method)
    reads: Set[str] = set()
    # what a `raise` builds runs only when the item cannot be given (`raise Exception(...)`)
    raised = {id(part) for item in ast_walk(method) if isinstance(item, ast.Raise) for part in ast_walk(item)}
    # an attribute compared with a constant is a setting the method branches on
    # (`if self.dataset_name == "nbody":`), not data it gives
    settings = {
        id(operand) for item in ast_walk(method) if isinstance(item, ast.Compare)
        and any(isinstance(part, ast.Constant) for part in (item.left, *item.comparators))
        for operand in (item.left, *item.comparators)
    }
    # and so is one handed on as where or how to build (`device=self.device`, `dtype=self.dtype`)
    settings |= {id(item.value) for item in ast_walk(method) if isinstance(item, ast.keyword) and item.arg in ("device", "dtype")}
    for item in ast_walk(method):
        if id(item) in raised:
            continue
        if item is not method and isinstance(item, NOT_CHEAP):
            return None
        if isinstance(item, ast.Name) and isinstance(item.ctx, ast.Load) and item.id not in known:
            return None  # a global: what it holds is not seen here
        if isinstance(item, ast.Attribute) and isinstance(item.value, ast.Name) and item.value.id == self_name and id(item) not in settings:
            reads.add(item.attr)
        if isinstance(item, ast.Call) and not _cheap_call(item, aliases, bound, self_name):
            return None
    return reads


def _cheap_call(call: ast.Call, aliases: Dict[str, str], bound: Set[str], self_name: Optional[str]) -> bool:
    func = call.func
    if isinstance(func, ast.Name) and func.id not in bound and func.id not in aliases:
        return func.id in CHEAP_BUILTINS
    qualified = ast_qualified(func, aliases)
    if qualified is not None:
        parts = qualified.split(".")
        top_level = len(parts) == 2 or parts[:2] in (["numpy", "random"], ["torch", "random"])
        return parts[0] in CHEAP_LIBRARIES and top_level and not parts[-1].startswith(IO_WORDS)
    if isinstance(func, ast.Attribute):
        on_self = isinstance(func.value, ast.Name) and func.value.id == self_name
        return not on_self and func.attr in CHEAP_METHODS
    return False


@dataclass
class _Provenance:
    """Where the attributes of a class's instances get their values, and whether they are in memory."""

    chain: List[ast.ClassDef]
    methods: Dict[str, ast.FunctionDef]
    aliases: Dict[str, str]
    # The constructor is handed only values in memory: its parameters hold such values.
    given_init: bool = False
    known: Dict[str, bool] = field(default_factory=dict)
    returns: Dict[Tuple[str, bool], bool] = field(default_factory=dict)
    # The attributes being decided, each taken to be in memory where its own values read it.
    assuming: Set[str] = field(default_factory=set)

    def attribute(self, name: str) -> bool:
        """Whether every value the class assigns to `self.<name>` is in memory. While it is being
        decided, a value that reads the attribute itself (`self.x = np.append(self.x, more)`)
        leaves the answer to the others; any other cycle proves nothing (False)."""
        if name in self.assuming:
            return True
        if name not in self.known:
            self.known[name] = False
            before, returns = set(self.known), set(self.returns)
            self.assuming.add(name)
            try:
                held = self._assigned_in_memory(name)
            finally:
                self.assuming.discard(name)
            if not held:  # what was decided assuming it in memory is undecided again
                for other in set(self.known) - before:
                    del self.known[other]
                for key in set(self.returns) - returns:
                    del self.returns[key]
            self.known[name] = held
        return self.known[name]

    def _assigned_in_memory(self, name: str) -> bool:
        plain, elements = self._assignments(name)
        if not plain or all(self._reads_itself(value, name, scope) for scope, value in plain):
            return False  # set elsewhere (a base class of another module, the caller), or only from itself
        if not all(self._scope(scope).in_memory(value) for scope, value in plain):
            return False
        if all(self._array(value) for _, value in plain):
            return True  # items written into a tensor or array are copied into it
        return all(self._scope(scope).in_memory(value) for scope, value in elements)

    def _reads_itself(self, value: ast.AST, name: str, method: Optional[ast.FunctionDef]) -> bool:
        self_name = _self_name(method) if method is not None else None
        return any(_self_attribute(item, self_name) == name for item in ast_walk(value))

    def _scope(self, method: Optional[ast.FunctionDef]) -> "_Scope":
        return _Scope(self, method, given=self.given_init and method is not None and method is self.methods.get("__init__"))

    def _array(self, value: ast.AST) -> bool:
        """A call of torch or NumPy: a tensor or array, which copies what is written into it."""
        qualified = ast_qualified(value.func, self.aliases) if isinstance(value, ast.Call) else None
        return qualified is not None and qualified.split(".")[0] in ("torch", "numpy")

    def _assignments(self, name: str) -> Tuple[List[Tuple[Optional[ast.FunctionDef], ast.AST]], List[Tuple[Optional[ast.FunctionDef], ast.AST]]]:
        """The values assigned to `self.<name>` (`self.x = v`, `self.x, self.y = v`, `self.x
        += v`, or `x = v` in a class body) and the elements written into it (`self.x[k] = v`,
        `self.x.append(v)`), each with the method it is in."""
        plain: List[Tuple[Optional[ast.FunctionDef], ast.AST]] = []
        elements: List[Tuple[Optional[ast.FunctionDef], ast.AST]] = []
        for klass in self.chain:
            for statement in klass.body:
                if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
                    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                    if any(isinstance(target, ast.Name) and target.id == name for target in targets):
                        plain.append((None, statement.value))
        for method in self.methods.values():
            self_name = _self_name(method)
            for item in ast_walk(method):
                for target, value in _stores(item):
                    if _self_attribute(target, self_name) == name:
                        plain.append((method, value))
                    elif isinstance(target, ast.Subscript) and _self_attribute(target.value, self_name) == name:
                        elements.append((method, value))
                if isinstance(item, ast.Call) and isinstance(item.func, ast.Attribute) and item.func.attr in MUTATORS:
                    if _self_attribute(item.func.value, self_name) == name:
                        elements.extend((method, arg) for arg in item.args)
        return plain, elements

    def method_returns_in_memory(self, name: str, depth: int, given: bool = False) -> bool:
        """Whether every value the class's method `name` returns is in memory; `given`: the
        call hands it only values in memory, which its parameters then hold
        (`self.preprocess(loc, vel)` after `loc = np.load(...)`)."""
        method = self.methods.get(name)
        if method is None or depth > MAX_METHOD_DEPTH:
            return False
        key = (name, given)
        if key not in self.returns:
            self.returns[key] = False
            values = [item.value for item in ast_walk(method) if isinstance(item, ast.Return)]
            self.returns[key] = all(value is None or _Scope(self, method, depth, given).in_memory(value) for value in values)
        return self.returns[key]


def _self_attribute(node: ast.AST, self_name: Optional[str]) -> Optional[str]:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == self_name:
        return node.attr
    return None


def _stores(item: ast.AST) -> List[Tuple[ast.AST, ast.AST]]:
    """(target, value) pairs a statement stores, a tuple target paired element by element
    when the value is a tuple of the same length, each element with the whole value otherwise."""
    if isinstance(item, ast.Assign):
        pairs = [(target, item.value) for target in item.targets]
    elif isinstance(item, (ast.AnnAssign, ast.AugAssign)) and item.value is not None:
        pairs = [(item.target, item.value)]
    elif isinstance(item, (ast.For, ast.comprehension)):
        pairs = [(item.target, item.iter)]
    elif isinstance(item, ast.withitem) and item.optional_vars is not None:
        pairs = [(item.optional_vars, item.context_expr)]
    else:
        return []
    found: List[Tuple[ast.AST, ast.AST]] = []
    while pairs:
        target, value = pairs.pop()
        if isinstance(target, (ast.Tuple, ast.List)):
            paired = isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts)
            pairs.extend(zip(target.elts, value.elts) if paired else ((element, value) for element in target.elts))
        elif isinstance(target, ast.Starred):
            pairs.append((target.value, value))
        else:
            found.append((target, value))
    return found


class _Scope:
    """Whether values of one method (or a class body, `function` None) are in memory."""

    def __init__(self, provenance: _Provenance, function: Optional[ast.FunctionDef], depth: int = 0, given: bool = False) -> None:
        self.provenance = provenance
        # The method's caller hands it only values in memory.
        self.given = given
        self.aliases = provenance.aliases
        self.depth = depth
        self.locals: Dict[str, List[ast.AST]] = {}
        self.parameters: Dict[str, Optional[ast.AST]] = {}
        # Parameters with a number or string default: settings, in memory (`partition="train"`).
        self.settings: Set[str] = set()
        self.self_name: Optional[str] = None
        self.deciding: Set[str] = set()
        if function is not None:
            self.self_name = _self_name(function)
            self.parameters = {arg.arg: arg.annotation for arg in _parameters(function)}
            self.settings = _constant_defaults(function)
            nodes = ast_walk(function)
            for item in nodes:
                for target, value in _stores(item):
                    if isinstance(target, ast.Name):
                        self.locals.setdefault(target.id, []).append(value)
            for item in nodes:  # what is put into a local container (`samples.append(x)`)
                written = item.func.value if isinstance(item, ast.Call) and isinstance(item.func, ast.Attribute) else None
                if isinstance(written, ast.Name) and written.id in self.locals and item.func.attr in MUTATORS:
                    self.locals[written.id].extend(item.args)

    def in_memory(self, node: ast.AST) -> bool:
        if isinstance(node, (ast.Constant, ast.Lambda, ast.JoinedStr, ast.BinOp, ast.UnaryOp, ast.Compare)):
            return True  # arithmetic makes a new value, even of a lazy array
        if isinstance(node, ast.Name):
            return self._name(node.id)
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id == self.self_name:
                return self.provenance.attribute(node.attr)
            return ast_qualified(node, self.aliases) is not None or self.in_memory(node.value)
        if isinstance(node, ast.Subscript):
            return self.in_memory(node.value)
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            return self._comprehension(node)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.BoolOp, ast.IfExp, ast.Starred, ast.NamedExpr)):
            parts = [child for child in ast_children(node) if isinstance(child, ast.expr)]
            return all(self.in_memory(part) for part in parts)
        return False

    def _name(self, name: str) -> bool:
        if name in self.parameters:
            return name != self.self_name and (self.given or _declared_in_memory(self.parameters[name]) or name in self.settings)
        if name in self.locals:
            if name in self.deciding:
                return True  # `data += noise`: the other assignments decide
            self.deciding.add(name)
            try:
                return all(self.in_memory(value) for value in self.locals[name])
            finally:
                self.deciding.discard(name)
        return name in self.aliases  # an imported module or value; a global is not seen here

    def _comprehension(self, node: ast.AST) -> bool:
        generators = getattr(node, "generators", [])
        if not all(self.in_memory(generator.iter) for generator in generators):
            return False
        elements = [node.key, node.value] if isinstance(node, ast.DictComp) else [getattr(node, "elt")]
        bound = {item.id for generator in generators for item in ast_walk(generator.target) if isinstance(item, ast.Name)}
        inner = _Scope(self.provenance, None, self.depth)
        inner.self_name, inner.parameters, inner.deciding, inner.settings = self.self_name, self.parameters, self.deciding, self.settings
        inner.given = self.given
        inner.locals = {**self.locals, **{name: [ast.Constant(None)] for name in bound}}
        return all(inner.in_memory(element) for element in elements)

    def _call(self, call: ast.Call) -> bool:
        func = call.func
        qualified = ast_qualified(func, self.aliases)
        if qualified is not None:
            return _library_in_memory(qualified, call)
        if isinstance(func, ast.Name):
            if func.id in self.locals or func.id in self.parameters:
                return False  # a callable value: what it returns is not seen
            if func.id in HOLDING_BUILTINS:
                return all(self.in_memory(arg) for arg in call.args)
            return func.id in MATERIALISING_BUILTINS
        if not isinstance(func, ast.Attribute):
            return False
        receiver = func.value
        if isinstance(receiver, ast.Name) and (receiver.id == self.self_name or receiver.id in self._class_names()):
            given = all(self.in_memory(arg.value if isinstance(arg, ast.Starred) else arg) for arg in call.args) and all(
                keyword.arg is not None and self.in_memory(keyword.value) for keyword in call.keywords
            )
            return self.provenance.method_returns_in_memory(func.attr, self.depth + 1, given)
        return self.in_memory(receiver)

    def _class_names(self) -> Set[str]:
        return {klass.name for klass in self.provenance.chain}


def _library_in_memory(qualified: str, call: ast.Call) -> bool:
    """A call of a library that gives a value in memory, not a lazy handle read per item."""
    if qualified.split(".")[0] not in IN_MEMORY_LIBRARIES or qualified in LAZY_CALLS or qualified.startswith(LAZY_PREFIXES):
        return False
    if qualified == "numpy.load" and any(isinstance(arg, ast.Constant) and str(arg.value).endswith(".npz") for arg in call.args):
        return False  # an archive: each access to one of its arrays reads and decompresses it again
    keywords = {keyword.arg for keyword in call.keywords}
    if "mmap_mode" in keywords or "mmap" in keywords:
        mapped = next(keyword.value for keyword in call.keywords if keyword.arg in ("mmap_mode", "mmap"))
        return isinstance(mapped, ast.Constant) and mapped.value in (None, False)
    return True


def _constant_defaults(function: ast.FunctionDef) -> Set[str]:
    """The parameters whose default is a number, string or boolean."""
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    pairs += [(arg, default) for arg, default in zip(args.kwonlyargs, args.kw_defaults) if default is not None]
    return {arg.arg for arg, default in pairs if isinstance(default, ast.Constant) and isinstance(default.value, (int, float, str))}


def _declared_in_memory(annotation: Optional[ast.AST]) -> bool:
    """An annotation that declares data in memory (`list`, `List[Tensor]`, `torch.Tensor`)."""
    if isinstance(annotation, ast.Subscript):
        annotation = annotation.value
    return (ast_dotted(annotation) or "") in IN_MEMORY_ANNOTATIONS
