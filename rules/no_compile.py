
import libcst as cst

from torchlint.engine.rule import Rule
from torchlint.semantics.project import COMPILE, DOUBLE_BACKWARD, VARIABLE_SHAPES, project_enables, project_uses, recurrent_heavy
from torchlint.semantics.roles import is_one_off_script
from torchlint.semantics.training import ADVICE_TRIGGERS, advice_site, loop_header

# The release that added `torch.compile`.
COMPILE_SINCE = (2, 0)


class NoCompile(Rule):
    """## What it does
    Flags a CUDA training script that never compiles its model: the file has a training loop
    and its program runs on CUDA (both as TL601 defines them; silent in
    reinforcement-learning programs), and neither it, a project module it imports, nor a
    project module that imports it mentions
    `torch.compile` or an option to compile.

    It is reported once per file, at its first training loop (advice is about the program,
    not about one loop), as advice (severity info).

    ## Why is this slow?
    In eager mode every PyTorch operation is a separate kernel launch that reads its inputs
    from GPU memory and writes its output back. `torch.compile` captures the forward and
    backward passes as graphs and generates fused kernels, so chains of pointwise
    operations, normalisations and activations read and write memory once, with less
    Python overhead per step. The PyTorch 2.0 release measured 43% faster training on
    average over 163 open-source models on an A100 (51% with AMP, 21% in float32); the gain
    is largest for models with many small operations and little for models dominated by a
    few large matmuls or convolutions.

    The rule is silent when the program mentions compilation in any form outside comments:
    `torch.compile` called or passed on (`compile_fn = torch.compile`),
    `torch._dynamo.optimize`, `model.compile()`, and options such as `compile=True`,
    `compile: bool = False`, `cfg.compile` or `--compile` (a decision either way). It is
    also silent when the configured `torch-version` is below 2.0, in files that never
    mention `cuda`, in scripts without a training loop of their own (inference and
    evaluation scripts, and Lightning `Trainer.fit` or Hugging Face `Trainer` scripts, whose
    loop lives in the framework, which has its own compile option), for models that cuDNN
    recurrent layers dominate (`nn.LSTM`, `nn.GRU`, `nn.RNN` without attention or explicit
    matrix products beside them), and in test code, demos, conversion and export scripts.

    ## Example
    ```python
    model = Net().cuda()
    for x, y in loader:
        loss = criterion(model(x.cuda()), y.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    ```

    ## Use instead
    ```python
    model = torch.compile(Net().cuda())
    for x, y in loader:
        ...
    ```

    ## Fix applicability
    None: compilation takes time at start-up and again for every new input shape, can fail
    on code it cannot trace, and changes results in the low bits (fused kernels round
    differently); whether it pays off for a given script needs a timed run.

    ## Measured precision
    0.92 on the development half (44/4: a DDP tutorial on `nn.Linear(20, 1)`, an LSTM built
    with `getattr(nn, rnn_type)`) and 0.96 held out (26/1: a DataParallel model ending in a
    cuDNN BiLSTM; 9 debatable, among them heads trained on a frozen backbone for an epoch or
    two and models whose input shapes change every step). The
    held-out false positives of the previous release were models dominated by `nn.LSTM`,
    `nn.GRU` or `nn.RNN`, whose cuDNN kernels `torch.compile` leaves as they are: the rule is
    now silent for them (`semantics.project.recurrent_heavy`), unless attention or explicit
    matrix products run beside them. See docs/precision.md.
    """

    code = "TL605"
    name = "no-compile"
    impact = "low"
    summary = "CUDA training script that never calls `torch.compile` on its model"
    severity = "info"
    triggers = ADVICE_TRIGGERS
    bad_examples = (
        "import torch\nmodel = Net().cuda()\nfor x, y in loader:\n    loss = model(x.cuda()).sum()\n"
        "    loss.backward()\n    opt.step()\n",
    )
    good_examples = (
        "import torch\nmodel = torch.compile(Net().cuda())\nfor x, y in loader:\n    loss = model(x.cuda()).sum()\n"
        "    loss.backward()\n    opt.step()\n",
        "import torch\nmodel = Net().cuda()\nif args.compile:\n    model = torch.compile(model)\nfor x, y in loader:\n"
        "    loss = model(x.cuda()).sum()\n    loss.backward()\n    opt.step()\n",
        "import torch\nmodel = Net()\nfor x, y in loader:\n    loss = model(x).sum()\n    loss.backward()\n    opt.step()\n",
        "import torch\nmodel = Net().cuda()\nfor x, y in loader:\n    with torch.no_grad():\n        preds = model(x.cuda())\n",
    )

    def leave_Module(self, node: cst.Module) -> None:
        if self.ctx.options.torch_version < COMPILE_SINCE or is_one_off_script(self.ctx.role_path):
            return
        loop = advice_site(self.ctx, COMPILE, VARIABLE_SHAPES)
        if loop is None or project_uses(self.ctx, COMPILE):
            return  # no training loop, or compilation chosen somewhere in the program
        if project_enables(self.ctx, DOUBLE_BACKWARD):
            return  # a gradient penalty in this program's own code: compiled graphs have no double backward
        if recurrent_heavy(self.ctx):
            return  # cuDNN's recurrent kernels stay as they are under `torch.compile`
        self.report(
            loop_header(loop),
            "this CUDA training loop runs the model eagerly, one kernel per operation; wrap the model in "
            "`torch.compile(model)` so its forward and backward run as fused kernels (time it: compilation "
            "costs start-up time)",
            start=loop,
        )
