"""Round 26: a loader kept on the instance is followed where the code reaches it: stored as
an element of an attribute dict (`self.data_loader["train"] = DataLoader(...)`), read back
through a local name (`loader = self.data_loader["train"]`, `loader = self.loader`), and
iterated by a method of a same-file subclass. Hard negatives: a subclass that never passes
over it, and a loader kept in a dict that only a one-off method reads."""

from __future__ import annotations

import pytest
from conftest import lint

pytestmark = pytest.mark.stable_only

BASE = """
import torch
from torch.utils.data import DataLoader


class Processor:
    def __init__(self, dataset):
        self.dev = torch.device("cuda")
        self.model = torch.nn.Linear(4, 2).to(self.dev)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.load_data(dataset)

    def load_data(self, dataset):
        {store}

    def start(self):
        for epoch in range(100):
            self.train()
{between}
    def train(self):
        {read}
        for data, label in loader:
            data = data.float().to(self.dev)
            loss = self.model(data).mean()
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()


if __name__ == "__main__":
    {built}(None).start()
"""

DICT = 'self.data_loader = dict()\n        self.data_loader["train"] = DataLoader(dataset, batch_size=32, num_workers=4)'
ATTRIBUTE = "self.loader = DataLoader(dataset, batch_size=32, num_workers=4)"


@pytest.mark.parametrize(
    "store, read, between, built",
    [
        (DICT, 'loader = self.data_loader["train"]', "", "Processor"),
        (ATTRIBUTE, "loader = self.loader", "", "Processor"),
        # The training method belongs to a subclass defined in the same file.
        (ATTRIBUTE, "loader = self.loader", "\n\nclass Recognition(Processor):", "Recognition"),
        (DICT, 'loader = self.data_loader["train"]', "\n\nclass Recognition(Processor):", "Recognition"),
    ],
)
def test_loader_kept_on_the_instance_is_followed(store, read, between, built):
    code = BASE.format(store=store, read=read, between=between, built=built)
    found = sorted((finding.code, finding.line) for finding in lint(code, ["TL202", "TL203"]))
    line = 15 if store == DICT else 14
    assert found == [("TL202", line), ("TL203", line)]


ONE_OFF = """
import torch
from torch.utils.data import DataLoader


class Processor:
    def __init__(self, dataset):
        self.dev = torch.device("cuda")
        self.model = torch.nn.Linear(4, 2).to(self.dev)
        self.data_loader = dict()
        self.data_loader["export"] = DataLoader(dataset, batch_size=32, num_workers=4)


class Exporter(Processor):
    def export(self):
        loader = self.data_loader["export"]
        for data, label in loader:
            torch.save(self.model(data.to(self.dev)), "out.pt")


class Unrelated:
    def run(self, model, optimizer):
        for epoch in range(10):
            for data, label in self.loader:
                loss = model(data.cuda()).mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()


if __name__ == "__main__":
    Exporter(None).export()
"""


def test_a_pass_that_runs_once_or_a_class_that_does_not_derive_reports_nothing():
    assert lint(ONE_OFF, ["TL202", "TL203"]) == []
