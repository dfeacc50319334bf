"""Programs that pick the CPU: a file whose every device binding is the CPU and whose code
names no accelerator runs its tensors on the host, whatever else it calls a device.

`device = torch.device("cpu")` (or `device = "cpu"`, also as an attribute, `self.device`) with
no `cuda`, `gpu`, `mps`, `xla`, `xpu`, `npu`, `hpu` or accelerator anywhere in the code
(comments aside): `.to(device)` there copies nothing, and a `.item()` waits for nothing. A file
that binds a device to anything else (`torch.device(args.device)`, a parameter), or names an
accelerator anywhere (`"cuda" if torch.cuda.is_available() else "cpu"`), is not such a program.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache

from torchlint.files.syntax import python_tree
from torchlint.semantics.project import code_text

_ACCELERATOR = re.compile(r"cuda|gpu|accelerat|\b(?:mps|xla|xpu|npu|hpu)\b", re.IGNORECASE)


@lru_cache(maxsize=1024)
def picks_only_the_cpu(text: str) -> bool:
    """Whether the module `text` binds a device only to the CPU and names no accelerator."""
    if "cpu" not in text or _names_accelerator(text):
        return False  # cheap first: most modules name no CPU, or an accelerator
    try:
        tree = python_tree(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    bindings = [node.value for node in ast.walk(tree) if isinstance(node, ast.Assign) and any(_names_device(target) for target in node.targets)]
    return bool(bindings) and all(_is_cpu(value) for value in bindings)


def _names_accelerator(text: str) -> bool:
    """Whether the code of `text` (comments aside) names an accelerator; a mention with no `#`
    before it on its line is code, and only otherwise is the text tokenized."""
    matches = list(_ACCELERATOR.finditer(text))
    if any("#" not in text[text.rfind("\n", 0, match.start()) + 1 : match.start()] for match in matches):
        return True
    return bool(matches) and _ACCELERATOR.search(code_text(text)) is not None


def _names_device(target: ast.AST) -> bool:
    name = target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) else ""
    return "device" in name.lower()


def _is_cpu(value: ast.AST) -> bool:
    """`"cpu"` or `torch.device("cpu")`."""
    if isinstance(value, ast.Call) and len(value.args) == 1 and not value.keywords:
        func = value.func
        if (isinstance(func, ast.Attribute) and func.attr == "device") or (isinstance(func, ast.Name) and func.id == "device"):
            value = value.args[0]
    return isinstance(value, ast.Constant) and isinstance(value.value, str) and value.value.split(":")[0] == "cpu"
