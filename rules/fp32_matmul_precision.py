import libcst as cst

from torchlint.engine.rule import Rule
from torchlint.semantics.project import TF32, matmul_heavy
from torchlint.semantics.training import ADVICE_TRIGGERS, advice_site, loop_header


class Fp32MatmulPrecision(Rule):
    """## What it does
    Flags a CUDA training script that leaves float32 matrix multiplications at full
    precision: the file has a training loop and its program runs on CUDA (both as TL601
    defines them; silent in reinforcement-learning programs), runs matmul-heavy work
    (attention, transformer layers, `matmul`/`bmm`/`einsum`/`@`, Hugging Face
    `transformers`, or `nn.Linear` layers in a model without convolutions, in the file or a
    project module it imports), and neither it,
    a project module it imports, nor one that imports it calls
    `torch.set_float32_matmul_precision(...)` or sets
    `torch.backends.cuda.matmul.allow_tf32` (or the newer `fp32_precision` settings).

    It is reported once per file, at its first training loop (advice is about the program,
    not about one loop), as advice (severity info).

    ## Why is this slow?
    Since PyTorch 1.12, float32 matmuls on CUDA default to full IEEE float32, which does not
    use the tensor cores of Ampere and later GPUs. TF32 keeps float32's range with a 10-bit
    mantissa and runs matmuls on the tensor cores, typically several times faster (NVIDIA
    quotes up to 8x the float32 throughput on A100); for training the precision loss is
    usually negligible. One line at start-up turns it on for every matmul in the script.

    The rule is silent when the precision is set to any value (`"highest"` is a decision)
    and in files that never mention `cuda` or `torch.accelerator`. Under `autocast` the gain is
    smaller but real:
    float32 matmuls outside the autocast regions (evaluation, losses and heads kept in
    float32) still run without tensor cores. cuDNN convolutions and recurrent layers use
    TF32 by default and are not concerned: a model made only of them, a convolutional
    network with a linear classifier head, or one whose layers come from outside the project
    (such as `torchvision.models`) is not reported.

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
    torch.set_float32_matmul_precision("high")
    model = Net().cuda()
    for x, y in loader:
        ...
    ```

    ## Fix applicability
    None: TF32 changes results in the low bits of every matmul, which code that checks
    numerics (or needs bit-for-bit reproducibility with float32) may not accept.

    ## Measured precision
    preview. 0.92 on the dev half (11/1), 0.50 held out (4/4). See docs/precision.md.
    """

    code = "TL604"
    impact = "high"
    name = "fp32-matmul-precision"
    preview = True  # measured precision below 0.90 (docs/precision.md)
    summary = "CUDA training with float32 matmuls at full precision (no TF32)"
    severity = "info"
    triggers = ADVICE_TRIGGERS
    bad_examples = (
        "import torch\nmodel = torch.nn.Linear(8, 2).cuda()\nfor x, y in loader:\n    loss = model(x.cuda())\n"
        "    loss.backward()\n    opt.step()\n",
    )
    good_examples = (
        "import torch\ntorch.set_float32_matmul_precision('high')\nmodel = model.cuda()\nfor x, y in loader:\n"
        "    loss = model(x.cuda())\n    loss.backward()\n    opt.step()\n",
        "import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\nmodel = model.cuda()\nfor x, y in loader:\n"
        "    loss = model(x.cuda())\n    loss.backward()\n    opt.step()\n",
        "import torch\nfor x, y in loader:\n    loss = model(x)\n    loss.backward()\n    opt.step()\n",
        "import torch\nmodel = torch.nn.Conv2d(3, 8, 3).cuda()\nfor x, y in loader:\n    loss = model(x.cuda())\n"
        "    loss.backward()\n    opt.step()\n",
    )

    def leave_Module(self, node: cst.Module) -> None:
        loop = advice_site(self.ctx, TF32)
        if loop is None or not matmul_heavy(self.ctx):
            return  # no loop, a precision already chosen, or no matmul-heavy work in sight
        self.report(
            loop_header(loop),
            "float32 matmuls in this CUDA training loop run at full precision, without tensor cores; call "
            "`torch.set_float32_matmul_precision(\"high\")` once at start-up to use TF32",
            start=loop,
        )
