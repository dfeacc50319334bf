"""A function that the file hands on as a value (`create_trainer(train_step, ...)`, building
an ignite engine in another module) and whose body runs a backward pass and an optimizer step
outside loops of its own is a training step at each call: `.item()` in it syncs every step
(issue 25, from effects, not names). Hard negatives: a function handed on that runs backward
without an optimizer step (an LBFGS closure), one that loops over its own data, and a step
function that nothing calls or takes."""

from __future__ import annotations

import textwrap

import pytest
from conftest import lint

pytestmark = pytest.mark.stable_only

PROGRAM = """
import torch
from trainers import create_trainer


def training(model, optimizer, loader, device):
    def {name}(engine, batch):
        x, y = batch[0].to(device), batch[1].to(device)
        {body}
        return {{"loss": loss.item()}}

    {hand_on}


if __name__ == "__main__":
    training(torch.nn.Linear(3, 1).cuda(), None, None, "cuda")
"""

STEP = "loss = torch.nn.functional.mse_loss(model(x), y)\n        optimizer.zero_grad()\n        loss.backward()\n        optimizer.step()"


def _lines(name: str = "train_step", body: str = STEP, hand_on: str = "trainer = create_trainer(train_step, model=model)") -> list:
    code = textwrap.dedent(PROGRAM.format(name=name, body=body, hand_on=hand_on))
    return [f.line for f in lint(code, ["TL101"])]


def test_step_function_handed_to_another_module_is_per_step() -> None:
    assert _lines() == [13]


def test_a_step_function_with_another_name_is_per_step_too() -> None:
    assert _lines(name="update", hand_on="trainer = create_trainer(update, model=model)") == [13]


def test_closure_without_an_optimizer_step_is_not_a_step() -> None:
    body = "loss = torch.nn.functional.mse_loss(model(x), y)\n        loss.backward()"
    assert _lines(body=body, hand_on="optimizer.step(train_step)") == []


def test_function_looping_over_its_own_data_is_judged_by_its_loops() -> None:
    body = (
        "for x, y in loader:\n            loss = torch.nn.functional.mse_loss(model(x), y)\n"
        "            loss.backward()\n            optimizer.step()"
    )
    assert _lines(body=body) == []


def test_step_function_nothing_calls_or_takes_is_not_per_step() -> None:
    assert _lines(hand_on="pass") == []
