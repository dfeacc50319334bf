"""Round 25: a loop whose every iteration calls a same-file function that fits a Lightning
trainer (`train_process(config)` in a hyperparameter search) runs a whole training run per
iteration (`FrequencyAnalysis._fits_a_trainer`): what it does between runs runs once per run."""

from __future__ import annotations

import pytest
from conftest import lint

pytestmark = pytest.mark.stable_only

CODE = """
import lightning as L
import torch


def train_process(config):
    model = build(config)
    trainer = L.Trainer(max_epochs=100, accelerator="gpu", devices=1)
    {fit}
    return trainer


for config in configs:
    for i in range(4):
        train_process(config)
        torch.cuda.empty_cache()
"""


@pytest.mark.parametrize("fit, reported", [
    ("trainer.fit(model, datamodule=make_data(config))", False),
    ("trainer.validate(model, datamodule=make_data(config))", True),
])
def test_a_loop_over_runs_of_a_fitting_helper(fit, reported):
    assert bool(lint(CODE.format(fit=fit), ["TL104"])) == reported


def test_an_evaluation_after_each_run_of_a_loop_over_configurations():
    code = """
    import lightning as L
    import torch


    def train_process(config):
        model = build(config)
        trainer = L.Trainer(max_epochs=100, accelerator="gpu", devices=1)
        trainer.fit(model, datamodule=make_data(config))
        return model


    def embed(model, loader):
        out = []
        with torch.no_grad():
            for batch in loader:
                out.append(model(batch.to(model.device)).cpu())
        return torch.cat(out).numpy()


    for config in configs:
        model = train_process(config)
        embed(model, make_data(config).test_dataloader())
    """
    assert lint(code, ["TL101"]) == []  # once per run, after it: the values go to NumPy anyway
