"""Round 24: `from torch.functional import F` is `torch.nn.functional` (torch re-exports it
there), so what it computes is a tensor to every rule (`names._REEXPORTS`)."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only

CODE = """
import torch
{imports}

for epoch in range(100):
    for old_probs, action_probs in loader:
        d = F.kl_div(old_probs.cuda(), action_probs.cuda())
        if d < 0.01:
            beta /= 2
        (d * beta).backward()
        optimizer.step()
"""


@pytest.mark.parametrize("imports, reported", [
    ("from torch.functional import F", [8]),
    ("import torch.nn.functional as F", [8]),
    ("from mylib import F", []),
])
def test_the_functional_module_torch_reexports(imports, reported):
    assert lines(CODE.format(imports=imports), "TL103") == reported
