"""Property tests: on generated programs mixing anti-patterns with other Python, fixing
always parses, is idempotent, and changes only bytes inside reported fix spans."""

from __future__ import annotations

import keyword

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from torchlint.engine.fixer import apply_fixes, fix_text, line_offsets, parses
from torchlint.engine.linter import lint_text
from torchlint.engine.rule import all_rules
from conftest import preview_options

RULES = all_rules()
IMPORTS = [
    "import torch\n",
    "import torch as th\n",
    "import torch.nn as nn\n",
    "from torch import nn\n",
    "from torch.utils.data import DataLoader\n",
    "import numpy as np\n",
    "from __future__ import annotations\n",
]
ANTI_PATTERNS = [
    "optimizer.zero_grad(set_to_none=False)\n",
    "{a} = torch.zeros({n}, dtype=torch.float32).cuda()\n",
    "{a} = torch.randn({n}, {n}).to(device, non_blocking=True)\n",
    "{a} = torch.arange({n}).to({b})\n",
    "{a} = DataLoader({b}, batch_size={n})\n",
    "{a} = nn.Sequential(nn.Conv2d(3, {n}, 3), nn.BatchNorm2d({n}))\n",
    "{a}.grad.zero_()\n",
    "{a} = nn.DataParallel({b}, device_ids=[0, 1])\n",
    "{a} += {b}.item()\n",
    "{a} = {b}.cpu().numpy()\n",
    "{a}.eval()\n{b} = {a}({b})\n",
    "{a} = torch.zeros(\n    {n},\n).cuda()  # comment\n",
    "{a} = DataLoader(\n    {b},\n    batch_size={n}\n)\n",
    "torch.cuda.empty_cache()\n",
    "{a} = torch.tensor(np.zeros({n}))\n",
    "{a} = nn.Sequential(\n    nn.Linear({n}, {n}),\n    nn.BatchNorm1d({n}),\n)\n",
]
FILLERS = [
    "{a} = {b} + {n}\n",
    "print({a}, '{b}')\n",
    "{a} = [{b} for {b} in range({n})]\n",
    "pass\n",
    "{a} = f'{{{b}}}'\n",
    "# a comment\n",
    "\n",
    "{a} = {{'{b}': ({n},)}}\n",
]
HEADERS = [
    "def {a}({b}):\n",
    "for {a} in {b}:\n",
    "while {a}:\n",
    "if {a}:\n",
    "with torch.no_grad():\n",
    "class {a}:\n",
    "try:\n",
]

names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=6).filter(
    lambda name: not keyword.iskeyword(name) and name not in ("torch", "nn", "np", "th", "device")
)


@st.composite
def statement(draw, templates):
    return draw(st.sampled_from(templates)).format(a=draw(names), b=draw(names), n=draw(st.integers(1, 64)))


@st.composite
def block(draw, depth: int = 0):
    """Statements, some nested under compound headers (with `except` for `try`)."""
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        choice = draw(st.integers(0, 3 if depth < 2 else 1))
        if choice == 0:
            lines.append(draw(statement(ANTI_PATTERNS)))
        elif choice == 1:
            lines.append(draw(statement(FILLERS)))
        else:
            header = draw(statement(HEADERS))
            body = "".join("    " + line if line.strip() else line for line in draw(block(depth + 1)).splitlines(True))
            if not any(line.strip() and not line.strip().startswith("#") for line in body.splitlines()):
                body += "    pass\n"
            lines.append(header + body + ("except Exception:\n    pass\n" if header == "try:\n" else ""))
    return "".join(lines)


@st.composite
def program(draw):
    imports = draw(st.lists(st.sampled_from(IMPORTS), min_size=1, max_size=4, unique=True))
    imports.sort(key=lambda line: "__future__" not in line)
    text = "".join(imports) + draw(block())
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    return text


PROPERTIES = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPERTIES
@given(program())
def test_fixed_output_parses_and_fixing_twice_equals_once(text):
    assert parses(text)
    once = fix_text(text, "gen.py", RULES, preview_options(), unsafe=True)
    assert parses(once.text)
    twice = fix_text(once.text, "gen.py", RULES, preview_options(), unsafe=True)
    assert twice.text == once.text and twice.fixed == ()


@PROPERTIES
@given(program())
def test_every_changed_byte_is_inside_a_fix_span(text):
    """The text between applied edit spans survives unchanged, at its shifted position."""
    findings = [f for f in lint_text(text, "gen.py", RULES, preview_options()).findings if f.fixable(True)]
    fixed, applied = apply_fixes(text, findings)
    offsets = line_offsets(text)
    edits = sorted(
        (offsets[e.line - 1] + e.column - 1, offsets[e.end_line - 1] + e.end_column - 1, e.content)
        for finding in applied
        for e in finding.fix.edits
    )
    shift, previous_end = 0, 0
    for start, end, content in edits + [(len(text), len(text), "")]:
        gap = text[previous_end:start]
        assert fixed[previous_end + shift : start + shift] == gap
        shift += len(content) - (end - start)
        previous_end = end
    assert len(fixed) == len(text) + shift
