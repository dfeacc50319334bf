"""Opt-in switches: tests that hold only when a flag that is off by default is turned on."""

import libcst as cst

from torchlint.semantics.flags import only_when_switched_on

MODULE = cst.parse_module(
    "import argparse\n"
    "parser = argparse.ArgumentParser()\n"
    "parser.add_argument('--use-optimizer', action='store_true')\n"
    "parser.add_argument('--amp', action='store_true', default=True)\n"
    "parser.add_argument('--workers', type=int, default=4)\n"
    "fine_tune_encoder = False\n"
    "use_cuda = True\n"
    "def build(use_bn=False, depth=3):\n    pass\n"
)
BUILD = next(node for node in MODULE.body if isinstance(node, cst.FunctionDef))


def holds(test: str) -> bool:
    return only_when_switched_on(cst.parse_expression(test), MODULE, BUILD)


def test_flags_off_by_default():
    assert holds("args.use_optimizer")
    assert holds("fine_tune_encoder")
    assert holds("fine_tune_encoder is True and encoder_optimizer is None")
    assert holds("use_bn")


def test_choices_switches_on_by_default_and_negations_are_not_opt_in():
    assert not holds("args.amp")  # store_true with a true default
    assert not holds("args.workers")
    assert not holds("use_cuda")
    assert not holds("depth")
    assert not holds("not fine_tune_encoder")
    assert not holds("fine_tune_encoder or other")
    assert not holds("args.optimizer == 'adam'")
