"""Loader settings read from the project's configuration files (`semantics.config_files`):
a worker count or `pin_memory` that every YAML or JSON file of the project sets to `0` or
`false` is read like the literal; mixed values, unknown values, a key no file sets and a
command-line option the project defines keep the rules as they were."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from typing import Dict

import pytest
from click.testing import CliRunner

from torchlint.cli import main
from torchlint.files.config_text import UNKNOWN, read_json, read_yaml

pytestmark = pytest.mark.stable_only


def findings(tmp_path, monkeypatch, files: Dict[str, str], rules: str = "TL201,TL202,TL203") -> set:
    (tmp_path / "setup.py").write_text("")
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(textwrap.dedent(text))
    monkeypatch.chdir(tmp_path)
    for path in tmp_path.rglob("*"):  # backdated, so that a cache trusts their (mtime, size)
        status = path.stat()
        os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns - 10_000 * 10**9))
    result = CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", rules, "--output-format", "json", "."])
    return {(item["path"].split("/")[-1], item["code"], item["line"]) for item in json.loads(result.stdout)}


TRAIN = """
import torch
from omegaconf import OmegaConf
from torch.utils.data import DataLoader


def main():
    cfg = OmegaConf.load("configs/train.yaml")
    loader = DataLoader(dataset, batch_size=32, num_workers=cfg.data.num_workers, pin_memory=cfg.data.pin_memory)
    for epoch in range(cfg.epochs):
        for x, y in loader:
            loss = model(x.cuda(), y.cuda())
            loss.backward()


if __name__ == "__main__":
    main()
"""

CONFIG = """
# training settings
epochs: 10
data:
  root: "data/"   # where the images are
  num_workers: {workers}
  pin_memory: {pin}
"""


def config(workers: str = "4", pin: str = "true") -> str:
    return CONFIG.format(workers=workers, pin=pin)


def test_workers_that_the_configuration_sets_to_zero(tmp_path, monkeypatch) -> None:
    files = {"train.py": TRAIN, "configs/train.yaml": config(workers="0")}
    assert findings(tmp_path, monkeypatch, files) == {("train.py", "TL201", 9)}


def test_workers_that_the_configuration_sets(tmp_path, monkeypatch) -> None:
    files = {"train.py": TRAIN, "configs/train.yaml": config(workers="4")}
    assert findings(tmp_path, monkeypatch, files) == {("train.py", "TL203", 9)}


def test_pinning_that_the_configuration_turns_off(tmp_path, monkeypatch) -> None:
    files = {"train.py": TRAIN, "configs/train.yaml": config(workers="4", pin="false")}
    assert findings(tmp_path, monkeypatch, files) == {("train.py", "TL202", 9), ("train.py", "TL203", 9)}


def test_a_configured_setting_gets_no_fix(tmp_path, monkeypatch) -> None:
    files = {"train.py": TRAIN, "configs/train.yaml": config(workers="0", pin="false")}
    assert findings(tmp_path, monkeypatch, files) == {("train.py", "TL201", 9), ("train.py", "TL202", 9)}
    result = CliRunner().invoke(main, ["check", "--no-cache", "--isolated", "--select", "TL201,TL202", "--output-format", "json", "."])
    assert all(item["fix"] is None for item in json.loads(result.stdout))


def test_two_configurations_that_disagree(tmp_path, monkeypatch) -> None:
    files = {"train.py": TRAIN, "configs/train.yaml": config(workers="0"), "configs/large.yaml": config(workers="8", pin="false")}
    assert findings(tmp_path, monkeypatch, files) == {("train.py", "TL203", 9)}


def test_two_configurations_that_agree(tmp_path, monkeypatch) -> None:
    files = {"train.py": TRAIN, "configs/train.yaml": config(workers="0"), "configs/small.yaml": config(workers="0")}
    assert findings(tmp_path, monkeypatch, files) == {("train.py", "TL201", 9)}


def test_a_value_the_reader_does_not_know(tmp_path, monkeypatch) -> None:
    files = {"train.py": TRAIN, "configs/train.yaml": config(workers="0"), "configs/env.yaml": config(workers="${oc.env:WORKERS}")}
    assert findings(tmp_path, monkeypatch, files) == {("train.py", "TL203", 9)}


def test_a_key_inside_a_list_is_not_known(tmp_path, monkeypatch) -> None:
    listed = config(workers="0") + "stages:\n  - name: finetune\n    num_workers: 8\n"
    files = {"train.py": TRAIN, "configs/train.yaml": listed}
    assert findings(tmp_path, monkeypatch, files) == {("train.py", "TL203", 9)}


SECTIONS = """
train:
  num_workers: 4
  pin_memory: true
val:
  num_workers: 0
  pin_memory: true
"""


@pytest.mark.parametrize(("section", "expected"), [("train", {("train.py", "TL203", 9)}), ("val", {("train.py", "TL201", 9)}), ("test", {("train.py", "TL203", 9)})])
def test_the_key_path_chooses_the_section(tmp_path, monkeypatch, section, expected) -> None:
    program = TRAIN.replace("cfg.data.num_workers", f"cfg.{section}.num_workers").replace("cfg.data.pin_memory", "cfg.train.pin_memory")
    files = {"train.py": program, "configs/train.yaml": SECTIONS + "epochs: 3\n"}
    assert findings(tmp_path, monkeypatch, files) == expected


JSON_TRAIN = """
import json
import torch
from torch.utils.data import DataLoader

with open("config.json") as handle:
    config = json.load(handle)
loader = DataLoader(dataset, batch_size=32, num_workers=config["loader"]["workers"], pin_memory=True)
for epoch in range(config["epochs"]):
    for x, y in loader:
        loss = model(x.cuda(), y.cuda())
        loss.backward()
"""


@pytest.mark.parametrize(("workers", "expected"), [(0, {("train.py", "TL201", 8)}), (2, {("train.py", "TL203", 8)})])
def test_a_json_configuration(tmp_path, monkeypatch, workers, expected) -> None:
    files = {"train.py": JSON_TRAIN, "config.json": json.dumps({"epochs": 5, "loader": {"workers": workers}})}
    assert findings(tmp_path, monkeypatch, files) == expected


def test_a_json_file_of_data_is_no_configuration(tmp_path, monkeypatch) -> None:
    program = JSON_TRAIN.replace('"config.json"', '"labels.json"')
    files = {"train.py": program, "labels.json": json.dumps({"loader": {"workers": 0}})}
    assert findings(tmp_path, monkeypatch, files) == {("train.py", "TL203", 8)}


def test_no_configuration_file(tmp_path, monkeypatch) -> None:
    assert findings(tmp_path, monkeypatch, {"train.py": TRAIN}) == {("train.py", "TL203", 9)}


ARGS_TRAIN = """
import argparse
import torch
from torch.utils.data import DataLoader

parser = argparse.ArgumentParser()
parser.add_argument("--num_workers", type=int, default={default})
args = parser.parse_args()
loader = DataLoader(dataset, batch_size=32, num_workers=args.num_workers, pin_memory=True)
for epoch in range(10):
    for x, y in loader:
        loss = model(x.cuda(), y.cuda())
        loss.backward()
"""


@pytest.mark.parametrize(("default", "expected"), [("4", {("train.py", "TL203", 9)}), ("0", set()), ("os.cpu_count()", {("train.py", "TL203", 9)})])
def test_a_command_line_default_wins_over_the_files(tmp_path, monkeypatch, default, expected) -> None:
    files = {"train.py": ARGS_TRAIN.replace("{default}", default), "configs/train.yaml": "num_workers: 0\n"}
    assert findings(tmp_path, monkeypatch, files) == expected


def test_an_attribute_of_the_object_is_no_setting(tmp_path, monkeypatch) -> None:
    program = TRAIN.replace("cfg.data.num_workers", "self.num_workers").replace("def main():", "def main(self):")
    files = {"train.py": program, "configs/train.yaml": "num_workers: 0\n"}
    assert findings(tmp_path, monkeypatch, files, "TL203") == {("train.py", "TL203", 9)}


HPARAMS = """
import lightning as L
from torch.utils.data import DataLoader


class MNISTDataModule(L.LightningDataModule):
    def __init__(self, data_dir: str = "data/", batch_size: int = 64, num_workers: int = 4):
        super().__init__()
        self.save_hyperparameters()

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=self.hparams.batch_size, num_workers=self.hparams.num_workers, shuffle=True)
"""

TRAINER = """
import hydra
import lightning as L


@hydra.main(config_path="configs", config_name="train")
def main(cfg):
    datamodule = hydra.utils.instantiate(cfg.data)
    model = hydra.utils.instantiate(cfg.model)
    L.Trainer(max_epochs=10, accelerator="gpu").fit(model, datamodule)
"""


@pytest.mark.parametrize(("workers", "expected"), [("0", set()), ("4", {("datamodule.py", "TL203", 12)})])
def test_hydra_settings_of_saved_hyperparameters(tmp_path, monkeypatch, workers, expected) -> None:
    data = f"_target_: datamodule.MNISTDataModule\ndata_dir: data/\nbatch_size: 128\nnum_workers: {workers}\n"
    files = {"datamodule.py": HPARAMS, "train.py": TRAINER, "configs/data/mnist.yaml": data, "configs/train.yaml": "defaults:\n  - data: mnist\n  - _self_\n"}
    assert findings(tmp_path, monkeypatch, files, "TL203") == expected


BY_NAME = """
import lightning as L
from datamodule import MNISTDataModule

datamodule = MNISTDataModule(num_workers=4)
L.Trainer(max_epochs=10, accelerator="gpu").fit(model, datamodule)
"""


def test_saved_hyperparameters_of_a_class_built_by_name(tmp_path, monkeypatch) -> None:
    files = {"datamodule.py": HPARAMS, "train.py": BY_NAME, "configs/data/mnist.yaml": "num_workers: 0\n"}
    assert findings(tmp_path, monkeypatch, files, "TL203") == {("datamodule.py", "TL203", 12)}


def _cached_run(tmp_path) -> set:
    """The findings of a separate `torchlint check` process that keeps its result cache."""
    command = [sys.executable, "-m", "torchlint", "check", "--isolated", "--select", "TL201,TL203", "--output-format", "json", "."]
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=False)
    return {(item["path"].split("/")[-1], item["code"], item["line"]) for item in json.loads(result.stdout)}


def test_a_new_configuration_file_invalidates_the_cache(tmp_path, monkeypatch) -> None:
    files = {"train.py": TRAIN, "configs/train.yaml": config(workers="0")}
    assert findings(tmp_path, monkeypatch, files) == {("train.py", "TL201", 9)}
    assert _cached_run(tmp_path) == {("train.py", "TL201", 9)}
    (tmp_path / "configs/large.yaml").write_text(config(workers="8"))  # the listing changes
    old = os.stat(tmp_path / "configs/train.yaml")
    os.utime(tmp_path / "configs/large.yaml", ns=(old.st_atime_ns, old.st_mtime_ns))
    assert _cached_run(tmp_path) == {("train.py", "TL203", 9)}


# -- the reader ----------------------------------------------------------------------------


def test_the_yaml_reader_reads_block_mappings() -> None:
    text = 'a:\n  b: 1  # one\n  c: "x # y"\n  d: false\n  e: ~\n  f: 0.5\n  g:\nh: yes\ni: 1e-3\nj: [1, 2]\nk: |\n  z: 3\n'
    read = read_yaml(text)
    assert dict(read.settings) == {
        ("a", "b"): 1, ("a", "c"): "x # y", ("a", "d"): False, ("a", "e"): None, ("a", "f"): 0.5, ("a", "g"): None,
        ("h",): UNKNOWN, ("i",): UNKNOWN, ("j",): UNKNOWN, ("k",): UNKNOWN,
    }
    assert read.hidden == {"z"}


def test_the_yaml_reader_hides_what_it_cannot_read() -> None:
    assert read_yaml("a:\n\tb: 1\n").settings == ()
    assert "b" in read_yaml("a:\n\tb: 1\n").hidden
    assert read_yaml("just text\nnum_workers: 2\n").hidden == {"num_workers"}
    listed = read_yaml("runs:\n- workers: 2\n  name: x\nworkers: 0\n")
    assert listed.hidden == {"workers", "name"} and (("workers",), 0) in listed.settings


def test_the_json_reader() -> None:
    read = read_json('{"a": {"num-workers": 2, "b": [{"c": 1}]}, "d": null}')
    assert dict(read.settings) == {("a", "num_workers"): 2, ("a", "b"): UNKNOWN, ("d",): None}
    assert read.hidden == {"c"}
    assert read_json("{not json: 1}").hidden == {"json"}
