"""Building blocks of fixes that add code: a module name to write and the import that binds
it, and the indentation of a statement. One place, so that every rule inserts the same way.

Imports go where Python allows them and where the new name is bound before it is used: after
the last unconditional top-level import that precedes the statement using the name, else after
the module docstring and `from __future__` imports, else at the top of the file (above the
first decorator of a decorated definition). In a notebook whose first cell starts with a cell
magic (`%%capture`) nothing is inserted at the top: the magic must stay the cell's first line.
"""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

import libcst as cst

from torchlint.engine.reports import NodeEdit
from torchlint.semantics.bindings import binds_locally
from torchlint.semantics.names import dotted_name
from torchlint.semantics.tree import COMPREHENSIONS, children, names_bound_by, per_module, top_level_index

# The line a notebook's IPython syntax is replaced with (see `torchlint.files.notebook`).
_MAGIC_PLACEHOLDER = "# torchlint: magic "


def top_level_statement(module: cst.Module, node: cst.CSTNode) -> Optional[int]:
    """The index in `module.body` of the statement that contains `node` (an id the index
    holds is `node`'s: the module, and so every node in it, is alive)."""
    return top_level_index(module).get(id(node))


def module_name(module: cst.Module, imported: str, used_at: cst.CSTNode) -> Optional[Tuple[str, Tuple[NodeEdit, ...]]]:
    """The name to write for module `imported` (`torch`) at `used_at`, and the edits that
    add `import torch` when no earlier unconditional top-level import binds it.

    None when that cannot be done safely: the name `imported` is bound to something else at
    the top level or in a function around `used_at` (`import torch` inside `main()` below a
    nested `def`: a decorator naming it there would raise `UnboundLocalError`), or the
    import would have to go above a notebook's cell magic.
    """
    index = top_level_statement(module, used_at)
    if index is None:
        return None
    bound = _bindings(module.body[:index], imported) or imported
    if binds_otherwise(module, bound, imported):
        return None
    if _bound_locally_otherwise(module.body[index], used_at, bound, imported):
        return None
    if bound != imported or _bindings(module.body[:index], imported):
        return bound, ()
    edit = import_edit(module, f"import {imported}", module.body[:index])
    return (imported, (edit,)) if edit is not None else None


def _bound_locally_otherwise(top: cst.CSTNode, node: cst.CSTNode, name: str, imported: str) -> bool:
    """Whether a function around `node` (within `top`) makes `name` local without binding it
    to `imported` by an `import` statement of its body that runs before the statement
    holding `node` (`def main(): import torch` above the use is fine; below it, not)."""
    path: List[cst.CSTNode] = []

    def find(current: cst.CSTNode) -> bool:
        path.append(current)
        if current is node or any(find(child) for child in children(current)):
            return True
        path.pop()
        return False

    find(top)
    for index, function in enumerate(path[:-1]):
        if not isinstance(function, cst.FunctionDef) or not binds_locally(function, name):
            continue
        statements = list(getattr(function.body, "body", ()))
        holder = path[index + 2] if index + 2 < len(path) else None
        earlier = statements[: statements.index(holder)] if holder in statements else []
        if _bindings(earlier, imported) != name:
            return True
    return False


def _bindings(statements: Sequence[cst.CSTNode], imported: str) -> Optional[str]:
    """The name the first plain `import X` / `import X as Y` among `statements` binds."""
    for statement in statements:
        for small in _imports(statement):
            if isinstance(small, cst.Import):
                for alias in small.names:
                    if dotted_name(alias.name) == imported:
                        return alias.asname.name.value if alias.asname and isinstance(alias.asname.name, cst.Name) else imported
    return None


@per_module
def binds_otherwise(module: cst.Module, name: str, imported: str) -> bool:
    """Whether module-level code binds `name` to something other than the module `imported`
    (`torch = None` in an `except`, `def torch()`, `import x as torch`); `import torch` under
    `if TYPE_CHECKING:` binds the same module."""
    stack: List[cst.CSTNode] = [module]
    while stack:
        node = stack.pop()
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            if node.name.value == name:
                return True
            continue
        if isinstance(node, (cst.Lambda, *COMPREHENSIONS)):
            continue
        if isinstance(node, (cst.Import, cst.ImportFrom)) and not isinstance(node.names, cst.ImportStar):
            for alias in node.names:
                module_path = dotted_name(alias.name) or ""
                if alias.asname is not None:
                    bound, same = dotted_name(alias.asname.name), module_path == imported  # type: ignore[arg-type]
                elif isinstance(node, cst.Import):
                    bound, same = module_path.split(".")[0], module_path.split(".")[0] == imported
                else:
                    bound, same = module_path, False
                if bound == name and not (isinstance(node, cst.Import) and same):
                    return True
            continue
        if name in names_bound_by(node):
            return True
        stack.extend(children(node))
    return False


def import_edit(module: cst.Module, statement: str, preceding: Sequence[cst.CSTNode]) -> Optional[NodeEdit]:
    """An edit that adds the import `statement` among the top-level statements `preceding`
    the one that needs it: after the last import there, else after the docstring and the
    `from __future__` imports, else above the first statement."""
    imports = [s for s in preceding if _imports(s)]
    if imports:
        return NodeEdit(imports[-1], f"\n{statement}", insert_after=True)
    header = [s for s in module.body if _is_docstring(s, module) or _is_future_import(s)]
    if header and all(any(s is p for p in preceding) for s in header):
        return NodeEdit(header[-1], f"\n{statement}", insert_after=True)
    if not module.body or header or _MAGIC_PLACEHOLDER in module.code_for_node(module.body[0]):
        return None
    return NodeEdit(module.body[0], f"{statement}\n", insert_before=True)


def _imports(statement: cst.CSTNode) -> Tuple[cst.CSTNode, ...]:
    """The import statements of a simple top-level statement line (none for `from __future__`)."""
    if not isinstance(statement, cst.SimpleStatementLine) or _is_future_import(statement):
        return ()
    return tuple(s for s in statement.body if isinstance(s, (cst.Import, cst.ImportFrom)))


def _is_future_import(statement: cst.CSTNode) -> bool:
    return isinstance(statement, cst.SimpleStatementLine) and any(
        isinstance(s, cst.ImportFrom) and s.module is not None and dotted_name(s.module) == "__future__" for s in statement.body
    )


def _is_docstring(statement: cst.CSTNode, module: cst.Module) -> bool:
    return (
        statement is module.body[0]
        and isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def indentation(module: cst.Module, ancestors: Sequence[cst.CSTNode]) -> str:
    """The indentation of a statement inside the blocks `ancestors` (outermost first):
    each indented block's own indent, and the case indent of a `match` statement."""
    default = module.default_indent
    return "".join(
        block.indent if block.indent is not None else default
        for block in ancestors
        if isinstance(block, (cst.IndentedBlock, cst.Match))
    )
