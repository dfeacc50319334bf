"""The package's layers import downwards only: files, semantics, engine, rules, output, CLI.

Every import counts, including those under `TYPE_CHECKING` and those inside functions.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, List, Set

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"torchlint": ROOT / "torchlint", "torchlint.rules": ROOT / "rules"}


def _modules() -> Dict[str, Path]:
    found = {}
    for package, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package, *parts])] = path
    return found


def _imports(path: Path, name: str, known: Set[str]) -> Set[str]:
    """The project modules `path` (module `name`) imports, wherever the import statement is."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: Set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets.add(base)
            targets.update(f"{base}.{alias.name}" for alias in node.names)
    return {target for target in targets if target in known and target != name}


def _graph() -> Dict[str, Set[str]]:
    modules = _modules()
    return {name: _imports(path, name, set(modules)) for name, path in modules.items()}


def _cycle(graph: Dict[str, Set[str]]) -> List[str]:
    """One import cycle among the modules (without package `__init__` re-exports), or []."""
    state: Dict[str, int] = {}
    stack: List[str] = []

    def visit(node: str) -> List[str]:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph[node]):
            if state.get(target) == 1:
                return stack[stack.index(target):] + [target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return []

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return []


def test_semantics_imports_nothing_from_the_engine_or_above():
    above = ("torchlint.engine", "torchlint.rules", "torchlint.output", "torchlint.cli", "torchlint.server")
    graph = _graph()
    offending = {
        name: sorted(target for target in targets if target.startswith(above))
        for name, targets in graph.items()
        if name.startswith("torchlint.semantics")
    }
    assert {name: targets for name, targets in offending.items() if targets} == {}


def test_no_import_cycle_between_modules():
    assert _cycle(_graph()) == []


def test_the_checker_sees_imports_under_type_checking_and_in_functions(tmp_path):
    path = tmp_path / "probe.py"
    path.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from torchlint.engine.context import FileContext\n"
        "def f():\n    from . import tree\n",
        encoding="utf-8",
    )
    known = {"torchlint.engine.context", "torchlint.semantics.tree"}
    assert _imports(path, "torchlint.semantics.probe", known) == known


def test_the_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) == []
