"""The ninth recall round of issue 25, implicit synchronisation: a tensor of unknown origin
(a learner's batch entry) is known to be one once the code calls a method only tensors have
(`mask[:, t].expand(-1, n)`), so testing its truth in a loop that trains every step is
reported (TL103). Positives and hard negatives, in the default mode a user runs."""

from __future__ import annotations

from typing import Dict

import pytest
from conftest import project_findings

pytestmark = pytest.mark.stable_only


def findings(tmp_path, monkeypatch, files: Dict[str, str]) -> set:
    return project_findings(tmp_path, monkeypatch, files, "TL103")


LEARNER = """
import torch as th
from torch.optim import RMSprop


class Learner:
    def __init__(self, critic, args):
        self.critic = critic
        self.optimiser = RMSprop(params=critic.parameters(), lr=args.lr)

    def cuda(self):
        self.critic.cuda()

    def train(self, batch, rewards, mask):
        for t in reversed(range(rewards.size(1))):
            mask_t = {mask_t}
            if {test}:
                continue
            q_t = self.critic(batch, t)
            loss = ((q_t - rewards[:, t]) ** 2 * mask_t).sum() / mask_t.sum()
            {step}
"""

_STEP = "self.optimiser.zero_grad()\n            loss.backward()\n            self.optimiser.step()"


@pytest.mark.parametrize(
    ("mask_t", "test", "step", "expected"),
    [
        ("mask[:, t].expand(-1, 4)", "mask_t.sum() == 0", _STEP, {("learner.py", "TL103", 17)}),
        ("mask[:, t].unsqueeze(-1)", "mask_t.sum() == 0", _STEP, {("learner.py", "TL103", 17)}),
        ("mask[:, t].long()", "not mask_t.any()", _STEP, {("learner.py", "TL103", 17)}),
        ("mask[:, t].detach()", "mask_t.max() < 1", _STEP, {("learner.py", "TL103", 17)}),
        # hard negatives: methods NumPy arrays have too, a NumPy array, a value already on
        # the host, an identity test, a loop that does not train and stops on the value
        ("mask[:, t].squeeze()", "mask_t.sum() == 0", _STEP, set()),
        ("mask[:, t].reshape(-1)", "mask_t.sum() == 0", _STEP, set()),
        ("th.from_numpy(mask[:, t]).long()", "mask_t.sum() == 0", _STEP, set()),
        ("mask[:, t].expand(-1, 4)", "mask_t is None", _STEP, set()),
        ("mask[:, t].expand(-1, 4)", "mask_t.sum() == 0", "break", set()),
    ],
)
def test_tensor_known_by_its_methods(tmp_path, monkeypatch, mask_t, test, step, expected) -> None:
    files = {"learner.py": LEARNER.format(mask_t=mask_t, test=test, step=step)}
    assert findings(tmp_path, monkeypatch, files) == expected


def test_module_methods_do_not_make_a_tensor(tmp_path, monkeypatch) -> None:
    """`.float()` and `.half()` are a module's too: their results stay unknown."""
    text = LEARNER.format(mask_t="mask[:, t].float()", test="mask_t.sum() == 0", step=_STEP)
    assert findings(tmp_path, monkeypatch, {"learner.py": text}) == set()


def test_test_code_is_not_reported(tmp_path, monkeypatch) -> None:
    """The same learner in a pytest module is test code."""
    text = "import pytest\n" + LEARNER.format(mask_t="mask[:, t].expand(-1, 4)", test="mask_t.sum() == 0", step=_STEP)
    assert findings(tmp_path, monkeypatch, {"test_learner.py": text}) == set()
