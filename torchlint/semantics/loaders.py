"""What a data loader is for: the loops that iterate it, followed into same-file functions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Iterator, List, Optional, Set

import libcst as cst

from torchlint.semantics.calls import positional
from torchlint.semantics.frequency import repeated_with_training
from torchlint.semantics.names import dotted_name
from torchlint.semantics.training import called_function, local_functions
from torchlint.semantics.tree import descendants, iterated_source

if TYPE_CHECKING:
    from torchlint.engine.context import FileContext



def loader_use(ctx: "FileContext", loader: cst.Call) -> str:
    """How the file uses the loader `loader` builds: "train" when a loop that runs with
    training iterates it (directly, or as the argument of a same-file function that does): a
    loop that trains, or the per-epoch validation loop (see
    `frequency.repeated_with_training`); "other" when only other loops do (a final test, an
    inference pass), "unknown" otherwise (returned, passed to another module, kept in a
    container)."""
    name = _assigned_name(ctx.module, loader)
    if name is None:
        return "unknown"
    functions = local_functions(ctx.module)
    loops = list(_loops_over(ctx.module, name, functions, set()))
    if not loops:
        return "unknown"
    return "train" if any(repeated_with_training(ctx, loop) for loop in loops) else "other"


def _assigned_name(module: cst.Module, value: cst.CSTNode) -> Optional[str]:
    for node in descendants(module):
        if isinstance(node, cst.Assign) and node.value is value and len(node.targets) == 1:
            return dotted_name(node.targets[0].target)
    return None


def _loops_over(
    scope: cst.CSTNode, name: str, functions: Dict[str, List[cst.FunctionDef]], seen: Set[int]
) -> Iterator[cst.CSTNode]:
    """Loops in `scope` over `name` (`for x in enumerate(tqdm(name))`), and in same-file
    functions that receive `name` as an argument, under their parameter's name."""
    for node in descendants(scope):
        if isinstance(node, cst.For) and _mentions(node.iter, name):
            yield node
        elif isinstance(node, cst.Call):
            for function in called_function(node, functions):
                parameter = _parameter_for(function, node, name)
                if parameter is not None and id(function) not in seen:
                    seen.add(id(function))
                    yield from _loops_over(function.body, parameter, functions, seen)


def _mentions(iterated: cst.BaseExpression, name: str) -> bool:
    source = iterated_source(iterated)
    if dotted_name(source) == name:
        return True
    return isinstance(source, cst.Call) and any(_mentions(arg.value, name) for arg in positional(source))


def _parameter_for(function: cst.FunctionDef, call: cst.Call, name: str) -> Optional[str]:
    """The parameter of `function` that `call` passes `name` to."""
    parameters = [p.name.value for p in function.params.params]
    if parameters and parameters[0] in ("self", "cls") and isinstance(call.func, cst.Attribute):
        parameters = parameters[1:]
    for index, arg in enumerate(call.args):
        if dotted_name(arg.value) != name or arg.star:
            continue
        if arg.keyword is not None:
            return arg.keyword.value
        return parameters[index] if index < len(parameters) else None
    return None
