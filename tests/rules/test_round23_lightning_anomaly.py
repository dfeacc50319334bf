"""Round 23 (TL403, batch 31's keyword spotting): Lightning's `Trainer(detect_anomaly=True)`
turns on autograd's anomaly mode for the whole fit, as `torch.autograd.set_detect_anomaly(True)`
does. A flag read from the command line is a switch; another library's `Trainer` is not
Lightning's."""

from __future__ import annotations

import pytest
from conftest import lines

pytestmark = pytest.mark.stable_only


@pytest.mark.parametrize("imports, trainer, reported", [
    ("import pytorch_lightning as pl", "pl.Trainer(max_epochs=50, accelerator='gpu', detect_anomaly=True)", [3]),
    ("from lightning import Trainer", "Trainer(max_epochs=50, detect_anomaly=True)", [3]),
    ("from pytorch_lightning import Trainer", "Trainer.from_argparse_args(args, gpus=1, detect_anomaly=True)", [3]),
    ("import pytorch_lightning as pl", "pl.Trainer(max_epochs=50, detect_anomaly=args.debug)", []),
    ("import pytorch_lightning as pl", "pl.Trainer(max_epochs=50, detect_anomaly=False)", []),
    ("from transformers import Trainer", "Trainer(model=model, detect_anomaly=True)", []),
])
def test_a_trainer_with_anomaly_detection(imports, trainer, reported):
    code = f"{imports}\ntrainer = {trainer}\ntrainer.fit(model, loader)\n"
    assert lines("\n" + code, "TL403") == reported


def test_a_trainer_finding_points_at_the_option():
    # Round 24: the finding is at `detect_anomaly=True`, the option to remove, also when the
    # call spans lines; a `# noqa` on that line silences it.
    from conftest import lint

    code = "import pytorch_lightning as pl\ntrainer = pl.Trainer(\n    max_epochs=50,\n    detect_anomaly=True,\n)\n"
    [finding] = lint(code, ["TL403"])
    assert (finding.line, finding.column) == (4, 5)
    assert lint(code.replace("detect_anomaly=True,", "detect_anomaly=True,  # noqa: TL403"), ["TL403"]) == []
