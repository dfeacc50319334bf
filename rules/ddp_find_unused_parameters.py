import libcst as cst

from torchlint.engine.rule import Rule
from torchlint.semantics.calls import is_literal, keyword
from torchlint.semantics.framework_names import lightning_class
from torchlint.semantics.passed_values import default_of_option
from torchlint.semantics.project import FREEZES_LATER, project_uses
from torchlint.semantics.values import string_value

DISTRIBUTED_DATA_PARALLEL = frozenset(
    {
        "torch.nn.parallel.DistributedDataParallel",
        "torch.nn.parallel.distributed.DistributedDataParallel",
    }
)


# Lightning's names for DDP that finds unused parameters after every forward.
FINDING_STRATEGIES = frozenset({"ddp_find_unused_parameters_true", "ddp_spawn_find_unused_parameters_true"})


class DdpFindUnusedParameters(Rule):
    """## What it does
    Flags `DistributedDataParallel(..., find_unused_parameters=True)` (however DDP is
    imported), unless `static_graph=True` is passed as well, and Lightning's own ways of
    asking for it: `DDPStrategy(find_unused_parameters=True)` and a trainer's
    `strategy="ddp_find_unused_parameters_true"`.

    ## Why is this slow?
    With `find_unused_parameters=True`, DDP walks the autograd graph from the outputs of
    every forward pass to find the parameters that will not receive a gradient, and marks
    them ready for the all-reduce so that the step does not wait for them. That is an extra
    traversal of the whole graph on every iteration, on the critical path between forward
    and backward. PyTorch itself logs a warning when the flag is set but no parameter was
    unused, because the traversal is then pure overhead.

    The flag is required when some parameters really get no gradient in a step (branches,
    frozen heads, mixture-of-experts routing): without it DDP waits for those gradients and
    fails at the next iteration. When the set of used parameters is the same in every step,
    `static_graph=True` lets DDP find them once, in the first iteration, instead of every
    time; the rule is silent when `static_graph=True` is passed.

    Nor is it reported in a program that freezes parameters at run time (`param.requires_grad
    = False` or `p.requires_grad_(False)` in a function other than a constructor, in the file
    or a module of its program: `freeze_layers(model)` after the wrap): DDP registered those
    parameters when it was built and waits for their gradients unless told to find them
    unused. A module frozen in its constructor (an EMA copy, a momentum encoder) is not.
    Only the literal `True` is reported, and a command-line option that is `True` unless the
    user turns it off (`find_unused_parameters=args.find_unused` after
    `parser.add_argument("--find-unused", default=True, ...)`): an option that is off by
    default is a deliberate switch. DDP wrappers of other libraries than Lightning are not
    reported.

    ## Example
    ```python
    model = DistributedDataParallel(model, device_ids=[local_rank], find_unused_parameters=True)
    ```

    ## Use instead
    If every parameter gets a gradient in every step:
    ```python
    model = DistributedDataParallel(model, device_ids=[local_rank])
    ```
    If some parameters are never used, but always the same ones:
    ```python
    model = DistributedDataParallel(model, device_ids=[local_rank], static_graph=True)
    ```

    ## Fix applicability
    None: whether every parameter receives a gradient each step depends on the model and
    the data, which the linter cannot see; removing the flag from a model that does skip
    parameters makes training fail.

    ## Measured precision
    Stable: 3 true findings and no false one over the development halves of the real-code
    benchmark (2026-11-28); Lightning's strategy name, added in the twentieth round, found the
    one Lightning miss labelled there and nothing else. See docs/precision.md.
    """

    code = "TL502"
    impact = "medium"
    name = "ddp-find-unused-parameters"
    summary = "`DistributedDataParallel(find_unused_parameters=True)` traverses the autograd graph every step"
    triggers = ("find_unused_parameters",)
    bad_examples = (
        "import torch\nmodel = torch.nn.parallel.DistributedDataParallel(model, find_unused_parameters=True)\n",
        "from torch.nn.parallel import DistributedDataParallel as DDP\nmodel = DDP(model, device_ids=[rank], find_unused_parameters=True)\n",
        "import torch\nfrom lightning.pytorch.strategies import DDPStrategy\nstrategy = DDPStrategy(find_unused_parameters=True)\n",
        "import torch\nimport pytorch_lightning as pl\ntrainer = pl.Trainer(strategy=\"ddp_find_unused_parameters_true\")\n",
    )
    good_examples = (
        "from torch.nn.parallel import DistributedDataParallel as DDP\nmodel = DDP(model, device_ids=[rank])\n",
        "from torch.nn.parallel import DistributedDataParallel as DDP\nmodel = DDP(model, find_unused_parameters=args.find_unused)\n",
        "from torch.nn.parallel import DistributedDataParallel as DDP\nmodel = DDP(model, find_unused_parameters=True, static_graph=True)\n",
        "import torch\nfrom lightning.pytorch.strategies import DDPStrategy\nstrategy = DDPStrategy(find_unused_parameters=False)\n",
        "import lightning as L\ntrainer = L.Trainer(strategy=\"ddp\")\n",
    )

    def visit_Call(self, node: cst.Call) -> None:
        qualified = self.ctx.qualified_name(node.func) or ""
        if lightning_class(qualified, "Trainer"):
            self._check_strategy_name(node)
            return
        if qualified not in DISTRIBUTED_DATA_PARALLEL and not lightning_class(qualified, "DDPStrategy"):
            return
        flag = keyword(node, "find_unused_parameters")
        if flag is None or not (is_literal(flag.value, "True") or default_of_option(self.ctx, flag.value) is True):
            return
        static = keyword(node, "static_graph")
        if static is not None and is_literal(static.value, "True") or self._freezes_later():
            return
        self.report(
            node,
            "`find_unused_parameters=True` makes DDP traverse the autograd graph after every forward; "
            "remove it if every parameter gets a gradient each step, or pass `static_graph=True` "
            "if the unused set never changes",
        )

    def _freezes_later(self) -> bool:
        """Whether the program freezes parameters after building its model (see
        `project.FREEZES_LATER`): those already wrapped get no gradient, which DDP must be told."""
        return project_uses(self.ctx, FREEZES_LATER)

    def _check_strategy_name(self, node: cst.Call) -> None:
        """`Trainer(strategy="ddp_find_unused_parameters_true")`: Lightning's DDP told to find
        unused parameters every step."""
        strategy = keyword(node, "strategy")
        if strategy is not None and string_value(strategy.value) in FINDING_STRATEGIES and not self._freezes_later():
            self.report(
                strategy,
                f"`strategy=\"{string_value(strategy.value)}\"` makes DDP traverse the autograd graph after every "
                "forward; use `\"ddp\"` if every parameter gets a gradient each step",
            )
