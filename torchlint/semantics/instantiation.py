"""Whether a module-level class is ever built, or a module-level function ever called: code
that nothing in its project runs. Classes are described below; a function is judged the same
way (its name is what calls it: a call, a value handed on, a registry, an export, also in a
notebook of the project), and is
live also when a decorator may register it, when a packaging file names it (an entry point in
`pyproject.toml` or `setup.cfg`), or when its module is a `hubconf.py` (torch.hub calls its
functions by name). Dunder functions (`__getattr__`) and functions named `main` (the entry point
a launcher or a user's `python -c` may call by its conventional name) are never judged.

A class is *live* when something may build it: its name occurs (outside comments, import
statements and prose strings) in another module of the project that imports its module,
directly or through others (a call, an alias it imports it as, a subclass, a registry dict;
the import alone in a package's `__init__` or a module with `__all__`, which hand it on to the
users of a project packaged for installation (`setup.py`, `pyproject.toml`, `setup.cfg`) or,
when no project module imports them, to users outside it; the package of a program that its
own modules import hands on only what they use; a name imported and never used builds nothing, nor does a log message that names it, `"Mel
PostNet Loss: {:.4f}"`), in a string of any module (a name a factory
reads; another module's own class of the same name is no use of this one), in its own module
outside class bodies (module-level code, a function, the
`if __name__ == "__main__":` demo), or in the body of another class of its module that is
live (`Res2d` built by `ShortChunkCNN.__init__`). A class is also live when a decorator may
register it, when it takes class keywords (a metaclass), when a module looks names up
dynamically on its module (`getattr(models, args.arch)`), or star-imports it and looks names
up in its own namespace (`globals()[name]`) or hands them on: a package's `__init__` (which
`getattr(package, name)` and the package's users read), or a module no module of the project
imports that is no program (an export for users outside it), and every class of
the project is live when any module imports modules by name or hooks subclassing
(`import_module`, `__import__`, `sys.modules`, `__subclasses__`, `__init_subclass__`, a
metaclass other than `ABCMeta`, Hydra's `instantiate`, `locate`). `eval`, `exec` and
`globals()` see one module's namespace: they make the classes of their own module live
(any other class they could name is imported there, so named).

Only a class none of this holds for, in a project that trains models itself (a module calls
`backward()` or a trainer's `fit()`) and in a directory most of whose other modules the
project imports, is *never built*: its code runs in no configuration of the project (an
abandoned variant, `SampleCNNXL` next to the `SampleCNN` every script trains). In a library
that trains nothing, or a directory of modules that nothing in the project imports (a model
zoo whose users import `vit_pytorch.xcit` themselves), classes are built by its users. Classes defined inside functions or other classes are not judged.
Configuration files are not read: a project that builds classes named in its configuration
does so through one of the dynamic lookups above, which make every class live. A model a
project only unpickles (`torch.load` of a whole module saved elsewhere) is not seen.

Methods are judged only in scripts that nothing imports (`_uncalled_methods`): there a method of
a class with no library base whose name the script never mentions outside definitions cannot
be called (a checkpoint-loading variant of a training script keeps its `update_parameters`).
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Dict, FrozenSet, Set, Tuple

from torchlint.files.syntax import python_tree
from torchlint.semantics.project import (
    TRAINING,
    note_listing,
    code_text,
    dependency_files,
    file_enables,
    imported_files,
    importers_of,
    project_files,
    project_notebooks,
    project_root,
    read_module,
    read_notebook,
    search_roots,
    tree_stamp,
)

# Code that builds classes it finds by name anywhere in the program, or hooks class creation:
# where a module has any, no class of its project is provably never built.
_DYNAMIC = re.compile(
    r"(?<![\w.])__import__\s*\(|\bimport_module\b|\bsys\.modules\b|__subclasses__|__init_subclass__"
    r"|\bmetaclass\s*=|\w*instantiate\w*\s*\(|\blocate\s*\(|\bget_class\s*\("
)
# Code that evaluates names of its own module's namespace: it may build any class of its module.
_DYNAMIC_HERE = re.compile(r"(?<![\w.])(?:eval|exec|globals|vars|locals)\s*\(")
# `getattr(module, name)` with a name that is not a literal (not `getattr(self, name)`, an
# attribute of an object).
_DYNAMIC_GETATTR = re.compile(r"\bgetattr\s*\(\s*(?!(?:self|cls)\s*,)[A-Za-z_][\w.]*\s*,\s*(?![\s\"'])")
_STAR_IMPORT = re.compile(r"^\s*from\s+\S+\s+import\s+\*", re.MULTILINE)
# The standard library's abstract-class metaclass registers nothing.
_ABSTRACT_METACLASS = re.compile(r"\bmetaclass\s*=\s*(?:abc\.)?ABCMeta\b")


def unbuilt_definitions(path: str, text: str) -> FrozenSet[str]:
    """The module-level classes of the module at `path` (source `text`) that its project never
    builds, its module-level functions that it never calls (see the module docstring), and as
    `Class.method` the methods of a script's plain classes that nothing can call:
    empty for text that is not a file, and whenever anything may run them. Depends on every module of the project, noted as one stamp of the
    project's module listing."""
    if not os.path.isfile(path) or os.path.basename(path) == _HUB_MODULE:
        return frozenset()
    path = os.path.abspath(path)
    root = project_root(path)
    stamp = tree_stamp(root)
    note_listing(root, stamp)
    return _unbuilt_definitions(path, text, root, stamp) | _uncalled_methods(path, text, root, stamp)


@dataclass(frozen=True)
class _Module:
    """What a module of the project tells about the classes of other modules."""

    trains: bool
    # It imports modules by name or hooks class creation.
    dynamic: bool
    # It looks up names dynamically on a module (`getattr(models, arch)`), or star-imports one
    # and looks names up in its own namespace (`globals()[args.model]`).
    reexports: bool
    # It star-imports a module: the names reach its importers, whose code names what it uses.
    star: bool
    # The words of its code outside import statements, and of the names it imports that it
    # uses (`from layers import PostNet as P`, then `P()`): a name it imports and never uses
    # builds nothing.
    words: FrozenSet[str]
    # The names its string literals spell (`ARCHS = ["Net", "NetXL"]` a factory reads).
    strings: FrozenSet[str]
    # The names its import statements bind or import (a package's `__init__` or a module with
    # `__all__` hands them on to whoever imports it).
    imported: FrozenSet[str]

    def uses(self, path: str, packaged: bool) -> FrozenSet[str]:
        """The words that may use another module's names, for the module at `path`: a package
        `__init__` or a module with `__all__` hands on what it imports, to the users of a
        project that is `packaged` for installation, or when no project module imports it
        (where some do, in a program's own package, they say what they use)."""
        hands_on = (os.path.basename(path) == "__init__.py" or "__all__" in self.words) and (packaged or not importers_of(path))
        return self.words | self.imported if hands_on else self.words


@lru_cache(maxsize=4096)
def _module_summary(text: str) -> _Module:
    code = code_text(text)
    imports = _IMPORT_STATEMENT.findall(code)
    words = set(re.findall(r"[A-Za-z_]\w*", _RETURN_ANNOTATION.sub(":", _IMPORT_STATEMENT.sub(" ", _STRING.sub(_unless_prose, code)))))
    words.update(name for statement in imports for name, alias in _ALIASED.findall(statement) if alias in words)
    return _Module(
        file_enables(text, TRAINING),
        _dynamic(code),
        bool((_STAR_IMPORT.search(code) and _DYNAMIC_HERE.search(code)) or _DYNAMIC_GETATTR.search(code)),
        bool(_STAR_IMPORT.search(code)),
        frozenset(words),
        frozenset(word for name in _NAME_STRINGS.findall(code) for word in name.split(".")),
        frozenset(word for statement in imports for word in re.findall(r"[A-Za-z_]\w*", statement)),
    )


# A function's return annotation (`-> GANModule | ConditionalGANModule:`), which builds nothing.
_RETURN_ANNOTATION = re.compile(r"->[^\n]*:[ \t]*$", re.MULTILINE)
# A string literal, triple-quoted or on one line.
_STRING = re.compile(r'"""[\s\S]*?"""' r"|'''[\s\S]*?'''" r'|"(?:[^"\\\n]|\\.)*"' r"|'(?:[^'\\\n]|\\.)*'")


def _unless_prose(string: "re.Match[str]") -> str:
    """A string literal as it is, or a blank for prose (a docstring, a log message naming a
    class: `"Mel PostNet Loss: {:.4f}"`), whose words call nothing."""
    return " " if any(character.isspace() for character in string.group()) else string.group()


# An import statement (its continuation lines too: in parentheses or after a backslash).
_IMPORT_STATEMENT = re.compile(r"^[ \t]*(?:from[ \t]+[\w.]+[ \t]+)?import[ \t]+(?:\([^)]*\)|(?:[^\n\\;]|\\\n)*)", re.MULTILINE)
_ALIASED = re.compile(r"([A-Za-z_]\w*)\s+as\s+([A-Za-z_]\w*)")


# A string literal that is a name or a dotted path (`"NetXL"`, `"models.blocks.NetXL"`), not prose.
_NAME_STRINGS = re.compile(r"[\"']([A-Za-z_][\w.]*)[\"']")


@lru_cache(maxsize=256)
def _unbuilt_definitions(path: str, text: str, root: str, stamp: str) -> FrozenSet[str]:
    """`unbuilt_definitions`, once per module text and state of its project (`stamp`)."""
    own = _own_candidates(text)
    if not own:
        return frozenset()
    mentioned = set(_packaging_words(root, stamp) & own.keys())
    trains = file_enables(_outside_definitions(text, own), TRAINING)  # the candidates' own training is no evidence
    importers = _importers(path)
    packaged = any(os.path.basename(file) in _INSTALLING_FILES for file in dependency_files(root))
    for file in project_files(root):
        if os.path.abspath(file) == path:
            continue
        source = read_module(file).text
        summary = _module_summary(source)
        exports = summary.reexports or (summary.star and (os.path.basename(file) == "__init__.py" or (_ENTRY_POINT not in source and not importers_of(file))))
        if summary.dynamic or (exports and path in imported_files(file, source, search_roots(file))):
            return frozenset()  # a module that may build any class it imports, or hands them on unnamed
        trains = trains or summary.trains
        # a module that does not import this one names its classes in strings only (another
        # module's own `UNET` is no use of this one's)
        mentioned |= (summary.uses(file, packaged) if os.path.abspath(file) in importers else summary.strings) & own.keys()
    for notebook in project_notebooks(root):  # a notebook's cells call the modules' functions too
        code = read_notebook(notebook).text
        summary = _module_summary(code)
        trains = trains or summary.trains
        imports = importers.union([path]).intersection(imported_files(notebook, code, search_roots(notebook)))
        mentioned |= (summary.uses(notebook, packaged) if imports else summary.strings) & own.keys()
    if not trains or not _siblings_imported(path, root):
        return frozenset()  # a library: its users build its classes
    return frozenset(own) - _live_in_own_module(own, mentioned)


@lru_cache(maxsize=256)
def _uncalled_methods(path: str, text: str, root: str, stamp: str) -> FrozenSet[str]:
    """`Class.method` for the methods of a program's plain classes that nothing can call: the
    module at `path` (source `text`) is a script (a `__main__` block, a loop or a call at its
    top level) that no project module or notebook imports, the class derives from nothing but
    `object` or classes of its module (no library calls its methods by name: not a
    `nn.Module`'s `forward`, a gym environment's `step`), and the method's name occurs nowhere
    in the module's code but in definitions (the `update_parameters` of a script that only
    loads a checkpoint and evaluates). Dunder and decorated methods are never judged, nor any
    method of a module that looks names up dynamically. Once per module text and state of its
    project (`stamp`): the candidates from the module's own tree first, the project asked only
    when there are any."""
    if "class " not in text:
        return frozenset()
    try:
        tree = python_tree(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return frozenset()
    if not any(isinstance(node, _PROGRAM_STATEMENTS) and not (isinstance(node, ast.Expr) and not isinstance(node.value, ast.Call)) for node in tree.body):
        return frozenset()  # no code runs at its top level: a library its users import
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    plain = [
        node for node in classes.values()
        if not node.keywords and all(isinstance(base, ast.Name) and (base.id == "object" or base.id in classes) for base in node.bases)
    ]
    if not plain:
        return frozenset()
    unnamed = {method.name for node in classes.values() for method in node.body if isinstance(method, _FUNCTIONS)} - _words(tree)
    found = frozenset(
        f"{node.name}.{method.name}"
        for node in plain for method in node.body
        if isinstance(method, _FUNCTIONS) and not method.decorator_list and not method.name.startswith("__") and method.name in unnamed
    )
    if not found:
        return found
    code = code_text(text)
    if _dynamic(code) or _DYNAMIC_HERE.search(code) or "getattr" in code or _importers(path):
        return frozenset()
    if any(path in map(os.path.abspath, imported_files(notebook, read_notebook(notebook).text, search_roots(notebook))) for notebook in project_notebooks(root)):
        return frozenset()
    return found


def _importers(path: str) -> Set[str]:
    """The project modules that import the module at `path`, directly or through others (a
    package `__init__` that imports it, and whoever imports that package)."""
    found: Set[str] = set()
    stack = [path]
    while stack:
        for importer in map(os.path.abspath, importers_of(stack.pop())):
            if importer not in found and importer != path:
                found.add(importer)
                stack.append(importer)
    return found


@lru_cache(maxsize=64)
def _packaging_words(root: str, stamp: str) -> FrozenSet[str]:
    """The identifiers of the project's packaging tables (`pyproject.toml`, `setup.cfg`), where
    entry points name the functions that installed commands call; once per state of the
    project (`stamp`)."""
    words: Set[str] = set()
    for file in dependency_files(root):
        if os.path.basename(file) in _PACKAGING_FILES:
            try:
                with open(file, encoding="utf-8", errors="replace") as handle:
                    words.update(re.findall(r"[A-Za-z_]\w*", handle.read()))
            except OSError:
                continue
    return frozenset(words)


def _outside_definitions(text: str, definitions: Dict[str, Tuple[Set[str], bool]]) -> str:
    """`text` without the lines of the module-level classes and functions named in `definitions`."""
    tree = python_tree(text)
    lines = _LINES.findall(text)  # the line breaks CPython counts, not every one `splitlines` knows
    for node in tree.body:
        if isinstance(node, _DEFINITIONS) and node.name in definitions:
            start = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
            for index in range(start - 1, node.end_lineno or node.lineno):
                lines[index] = "\n"
    return "".join(lines)


_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
# The nodes whose body may open with a docstring.
_DOCUMENTED = (ast.Module, ast.ClassDef, *_FUNCTIONS)
# Top-level statements that make a module a program: a `__main__` block, a loop, a call (an
# expression statement other than a docstring).
_PROGRAM_STATEMENTS = (ast.If, ast.For, ast.While, ast.With, ast.Expr)
_DEFINITIONS = (ast.ClassDef, *_FUNCTIONS)
# The conventional entry point a launcher or a user's shell may call by name.
_ENTRY_FUNCTION = "main"
_PACKAGING_FILES = frozenset({"pyproject.toml", "setup.cfg"})
# Files that make a project installable: its packages are an API for users outside it.
_INSTALLING_FILES = _PACKAGING_FILES | {"setup.py"}
_HUB_MODULE = "hubconf.py"

# Files of a directory that are no modules for others to import.
NOT_MODULES = frozenset({"__init__.py", "setup.py", "conftest.py"})
_ENTRY_POINT = "__main__"


def _siblings_imported(path: str, root: str) -> bool:
    """Whether at least half of the other modules in the directory of the module at `path`
    (`__init__`, `setup.py` and scripts with a `__main__` block aside: nothing imports a
    program) are imported by the project's modules: the package of a program, whose scripts
    reach its modules, not a library of modules that its users import one by one (notebooks
    do not count: the helper modules of a course's notebooks are such a library, whose
    readers call from their own cells what the shipped cells do not)."""
    directory = os.path.dirname(path)
    siblings = [
        file
        for file in map(os.path.abspath, project_files(root))
        if os.path.dirname(file) == directory and file != path and os.path.basename(file) not in NOT_MODULES
        and _ENTRY_POINT not in read_module(file).text
    ]
    return 2 * sum(1 for file in siblings if any(importer.endswith(".py") for importer in importers_of(file))) >= len(siblings)


def _dynamic(code: str) -> bool:
    return any(_ABSTRACT_METACLASS.match(code, match.start()) is None for match in _DYNAMIC.finditer(code))


def _own_candidates(text: str) -> Dict[str, Tuple[Set[str], bool]]:
    """For each module-level class or function of `text` that nothing in its own module
    outside such definitions names: the other module-level definitions whose bodies name it,
    and whether it may be registered (decorators, class keywords). Empty when the module itself
    looks names up dynamically or does not parse."""
    code = code_text(text)
    if _dynamic(code) or _DYNAMIC_HERE.search(code):
        return {}
    try:
        tree = python_tree(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    definitions = {
        node.name: node
        for node in tree.body
        if isinstance(node, _DEFINITIONS) and not node.name.startswith("__") and not (isinstance(node, _FUNCTIONS) and node.name == _ENTRY_FUNCTION)
    }
    outside: Set[str] = set()
    inside: Dict[str, Set[str]] = {name: set() for name in definitions}
    for statement in tree.body:
        words = _words(statement)
        if isinstance(statement, _DEFINITIONS) and statement.name in definitions:
            for word in words & set(definitions) - {statement.name}:
                inside[word].add(statement.name)
        else:
            outside |= words
    return {
        name: (inside[name], bool(node.decorator_list or getattr(node, "keywords", None)))
        for name, node in definitions.items()
        if name not in outside
    }


def _words(node: ast.AST) -> Set[str]:
    """The names, attribute names and identifier-like words of strings in `node`; not of
    docstrings (a class's docstring that names another class looks nothing up; a string
    further down a body may list what a user can pick, `'UNet()'` among model options)."""
    found: Set[str] = set()
    prose: Set[int] = set()
    for item in ast.walk(node):  # (a definition is met before its docstring)
        if isinstance(item, _DOCUMENTED) and item.body and isinstance(item.body[0], ast.Expr):
            prose.add(id(item.body[0].value))
        elif isinstance(item, ast.Name):
            found.add(item.id)
        elif isinstance(item, ast.Attribute):
            found.add(item.attr)
        elif isinstance(item, ast.Constant) and isinstance(item.value, str) and id(item) not in prose:
            found.update(re.findall(r"[A-Za-z_]\w*", item.value))
    return found


def _live_in_own_module(own: Dict[str, Tuple[Set[str], bool]], mentioned: Set[str]) -> Set[str]:
    """The candidates that may be built: named elsewhere in the project, registrable, or named
    in the body of a class of the module that may be built (a class that is no candidate is
    named outside class bodies, so it may be built)."""
    live = {name for name, (_, registered) in own.items() if registered or name in mentioned}
    changed = True
    while changed:
        changed = False
        for name, (users, _) in own.items():
            if name not in live and any(user in live or user not in own for user in users):
                live.add(name)
                changed = True
    return live
