"""Programs that pick the CPU: a file whose every device binding is the CPU and whose code
names no accelerator runs its tensors on the host, whatever else it calls a device.

`device = torch.device("cpu")` (or `device = "cpu"`, also as an attribute, `self.device`; the
names `devices.named_like_device` knows) with no `cuda`, `gpu`, `mps`, `xla`, `xpu`, `npu`,
`hpu` or accelerator anywhere in the code (comments aside): `.to(device)` there copies nothing,
and a `.item()` waits for nothing. A file that binds a device to anything else
(`torch.device(args.device)`, a rank), or names an accelerator anywhere (`"cuda" if
torch.cuda.is_available() else "cpu"`), is not such a program.
"""

from __future__ import annotations

import re

import libcst as cst

from torchlint.semantics.devices import named_like_device, names_cpu
from torchlint.semantics.project import code_text
from torchlint.semantics.tree import nodes_of_type, per_module
from torchlint.semantics.values import string_value

_ACCELERATOR = re.compile(r"cuda|gpu|accelerat|\b(?:mps|xla|xpu|npu|hpu)\b", re.IGNORECASE)


def picks_only_the_cpu(module: cst.Module, text: str) -> bool:
    """Whether the module (`text` its source) binds a device only to the CPU and names no accelerator."""
    if "cpu" not in text or _names_accelerator(text):
        return False  # cheap first: most modules name no CPU, or an accelerator
    return _binds_only_the_cpu(module)


def _names_accelerator(text: str) -> bool:
    """Whether the code of `text` (comments aside) names an accelerator; a mention with no `#`
    before it on its line is code, and only otherwise is the text tokenized."""
    matches = list(_ACCELERATOR.finditer(text))
    if any("#" not in text[text.rfind("\n", 0, match.start()) + 1 : match.start()] for match in matches):
        return True
    return bool(matches) and _ACCELERATOR.search(code_text(text)) is not None


@per_module
def _binds_only_the_cpu(module: cst.Module) -> bool:
    """Whether the module binds a device somewhere, and every such binding is the CPU."""
    values = [
        node.value
        for node in nodes_of_type(module, (cst.Assign,))
        if isinstance(node, cst.Assign) and any(named_like_device(target.target) for target in node.targets)
    ]
    return bool(values) and all(names_cpu(value, string_value(value)) for value in values)
