"""Programs that pick the CPU: a file whose every device binding is the CPU and whose code
names no accelerator runs its tensors on the host, whatever else it calls a device.

`device = torch.device("cpu")` (or `device = "cpu"`, also as an attribute, `self.device`; the
names `devices.named_like_device` knows) with no `cuda`, `gpu`, `mps`, `xla`, `xpu`, `npu`,
`hpu` or accelerator anywhere in the code (comments aside): `.to(device)` there copies nothing,
and a `.item()` waits for nothing. A file that binds a device to anything else
(`torch.device(args.device)`, a rank), or names an accelerator anywhere (`"cuda" if
torch.cuda.is_available() else "cpu"`), is not such a program.

A notebook whose code names no accelerator runs on the CPU: nothing imports it, and a tensor's
`x.device` there is the CPU.

A program that picks a device and never uses it runs on the CPU too: the file binds a device
name (`device = torch.device("cuda" if torch.cuda.is_available() else "cpu")`), never reads
it, places nothing itself (no `.cuda()`, no `.to(...)`, no `device=` argument) and names no
accelerator elsewhere (`torch.set_default_device("cuda")`, `nn.DataParallel`, a cuDNN setting).
Loading a checkpoint to it (`torch.load(f, map_location=self.device)`) is no use: the module's
`load_state_dict` copies the tensors into its own parameters, which nothing moved.
"""

from __future__ import annotations

import os
import re
from typing import Tuple

import libcst as cst

from torchlint.semantics.devices import named_like_device, names_cpu
from torchlint.semantics.framework_names import OTHER_AUTOGRAD_PACKAGES
from torchlint.semantics.names import dotted_name
from torchlint.semantics.project import code_text, launched_values, module_imports, option_default
from torchlint.semantics.tree import nodes_of_type, per_module
from torchlint.semantics.values import string_value

_ACCELERATOR = re.compile(r"cuda|gpu|accelerat|\b(?:mps|xla|xpu|npu|hpu)\b", re.IGNORECASE)
# Wrappers that run a module on the GPUs.
_PARALLEL = re.compile(r"DataParallel|set_default_device")


def picks_only_the_cpu(module: cst.Module, text: str) -> bool:
    """Whether the module (`text` its source) binds a device only to the CPU and names no accelerator."""
    if "cpu" not in text or _names_accelerator(text):
        return False  # cheap first: most modules name no CPU, or an accelerator
    return _binds_only_the_cpu(module)


def devices_default_to_the_cpu(path: str, module: cst.Module, text: str) -> bool:
    """Whether every device the module names is a command-line setting that defaults to the
    CPU and that no launch script of the project sets (`parser.add_argument("--device",
    default="cpu")`, then `model.to(args.device)` and `device=args.device`; see
    `project.option_default`, `project.launched_values`), in code that names no accelerator:
    the program runs on the host unless its user asks otherwise."""
    if "cpu" not in text or _names_accelerator(text) or not os.path.isfile(path):
        return False
    settings = _device_arguments(module)
    return bool(settings) and all(_cpu_setting(path, setting) for setting in settings)


@per_module
def _device_arguments(module: cst.Module) -> Tuple[cst.BaseExpression, ...]:
    """The devices the module's calls name: `device=` and `map_location=` arguments, the
    argument of `torch.device(...)`, and a `.to(...)` argument named like a device."""
    found = []
    for call in nodes_of_type(module, (cst.Call,)):
        assert isinstance(call, cst.Call)
        for arg in call.args:
            keyword = arg.keyword.value if arg.keyword is not None else None
            if keyword in ("device", "map_location") or (
                keyword is None and dotted_name(call.func) in ("torch.device", "device") and arg is call.args[0]
            ):
                found.append(arg.value)
        method = call.func.attr.value if isinstance(call.func, cst.Attribute) else None
        if method == "to" and call.args and call.args[0].keyword is None and named_like_device(call.args[0].value):
            found.append(call.args[0].value)
    return tuple(found)


def _cpu_setting(path: str, setting: cst.BaseExpression) -> bool:
    """`"cpu"`, or `args.<dest>` of an option whose default names the CPU and that no launch
    script passes (also inside `torch.device(...)`)."""
    if isinstance(setting, cst.Call) and dotted_name(setting.func) in ("torch.device", "device") and len(setting.args) == 1:
        return _cpu_setting(path, setting.args[0].value)  # `map_location=torch.device(args.device)`
    literal = string_value(setting)
    if literal is not None:
        return literal.split(":")[0].lower() == "cpu"
    if not (isinstance(setting, cst.Attribute) and isinstance(setting.value, cst.Name) and setting.value.value != "self"):
        return False
    default = option_default(path, setting.attr.value)
    return isinstance(default, str) and default.split(":")[0].lower() == "cpu" and not launched_values(path, setting.attr.value)


def notebook_on_the_host(path: str, text: str) -> bool:
    """Whether the file is a notebook whose code names no accelerator: nothing imports a
    notebook, so its cells run on the CPU (`.to(x.device)` there moves nothing), unless it
    calls a project function that places work on a device itself (`FileContext.serves_device`),
    or imports another library with autograd (JAX, TensorFlow), which uses a GPU unasked."""
    return path.endswith(".ipynb") and not _names_accelerator(text) and not any(
        statement.module.split(".")[0] in OTHER_AUTOGRAD_PACKAGES for statement in module_imports(text)
    )


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


# Calls that place a tensor or module on a device, by method name.
_PLACING_METHODS = frozenset({"cuda", "to"})


# Text that places something on a device: a module holding any of it uses its device.
_PLACING_TEXT = re.compile(r"\.cuda\(|\.to\(")


def leaves_its_device_unused(module: cst.Module, text: str) -> bool:
    """`_leaves_its_device_unused`, after a look at the text: most modules that mention a
    device place something with it (`.to(`, `.cuda(`)."""
    return "device" in text.lower() and _PLACING_TEXT.search(text) is None and _leaves_its_device_unused(module)


@per_module
def _leaves_its_device_unused(module: cst.Module) -> bool:
    """Whether the module binds a device name that nothing reads (but `map_location=`), places nothing itself (no
    `.cuda()` or `.to(...)` call, no `device=` argument) and names no accelerator outside those
    bindings (`torch.set_default_device("cuda")`, `nn.DataParallel(model)`, a cuDNN setting)."""
    statements = [
        node for node in nodes_of_type(module, (cst.Assign,))
        if isinstance(node, cst.Assign) and any(named_like_device(target.target) for target in node.targets)
    ]
    if not statements:
        return False
    bindings = [target.target for node in statements for target in node.targets]
    names = {dotted_name(target) for target in bindings}
    nodes = nodes_of_type(module, (cst.Name, cst.Attribute, cst.Call))
    # Not read: the bindings, the names after a dot (`device` of `torch.device`), and where a
    # checkpoint is loaded to (`torch.load(f, map_location=self.device)`: `load_state_dict`
    # copies it into the module's own parameters, wherever they are).
    targets = {id(target) for target in bindings} | {id(node.attr) for node in nodes if isinstance(node, cst.Attribute)} | {
        id(arg.value) for node in nodes if isinstance(node, cst.Call) for arg in node.args if arg.keyword is not None and arg.keyword.value == "map_location"
    }
    for node in nodes:
        if isinstance(node, cst.Call):
            placing = isinstance(node.func, cst.Attribute) and node.func.attr.value in _PLACING_METHODS
            if placing or any(arg.keyword is not None and arg.keyword.value == "device" for arg in node.args):
                return False
        elif id(node) not in targets and dotted_name(node) in names:
            return False  # read: handed on, compared, or placed through
    code = code_text(module.code)
    bound = [code_text(module.code_for_node(node)) for node in statements]
    return len(_ACCELERATOR.findall(code)) <= sum(len(_ACCELERATOR.findall(text)) for text in bound) and not _PARALLEL.search(code)
