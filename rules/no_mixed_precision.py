import libcst as cst

from torchlint.engine.rule import Rule
from torchlint.semantics.project import AUTOCAST
from torchlint.semantics.training import ADVICE_TRIGGERS, advice_site, loop_header


class NoMixedPrecision(Rule):
    """## What it does
    Flags a training script that runs on CUDA but never uses automatic mixed precision: the
    file has a training loop (a loop over a data loader or over data named as such,
    `tqdm(training_data)`, or a `for`/`while` loop that draws its batches from a loader with
    `next(...)`, that calls `.backward()` and an optimizer's `.step()` (or hands the loss and
    the optimizer to a helper, `loss_scaler(loss, optimizer)`), directly or through functions
    of the same file); the program runs on CUDA (the file, a project module it imports, or the
    entry script that imports it mentions CUDA); and none of them uses `autocast`
    (`torch.autocast`, `torch.amp.autocast`, `torch.cuda.amp.autocast`). Silent in
    reinforcement-learning programs (they step Gym environments), whose networks are small.

    It is reported once per file, at its first training loop (advice is about the program,
    not about one loop), as advice (severity info):
    the evidence is project-wide, and full precision can be a deliberate choice.

    ## Why is this slow?
    Without autocast every matmul and convolution runs in float32. Tensor cores, which hold
    most of a modern GPU's arithmetic throughput, run float16 and bfloat16 several times
    faster, and half-width activations halve the memory traffic and the activation memory
    kept for backward. The PyTorch tuning guide reports speed-ups of up to about 3x on
    tensor-core GPUs (Volta and later) for models dominated by matmuls and convolutions.
    autocast keeps precision-sensitive operations (reductions, softmax, losses) in float32.

    The rule is silent when the file or a project module it imports or that imports it
    mentions `autocast` anywhere outside comments (also `autocast(enabled=False)`: the switch
    exists), sets
    `mixed_precision` (Accelerate and similar trainers), or converts with `.half()` /
    `.bfloat16()` (low precision chosen by other means), and in programs built on
    `torch.distributed.rpc` (the forward may run in another process). Files that never mention
    `cuda` (or `torch.accelerator`, the current accelerator: CUDA on NVIDIA GPUs)
    are not reported: on the CPU the gain is smaller and not reliable.

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
    model = Net().cuda()
    for x, y in loader:
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = criterion(model(x.cuda()), y.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    ```
    float16 (GPUs without bfloat16, before Ampere) also needs a `torch.amp.GradScaler` to
    keep small gradients from underflowing. The bundled `torchlint.reference.AmpStep`
    implements the whole step (autocast, GradScaler for
    float16, unscaling before clipping, accumulation).

    ## Fix applicability
    None: reduced precision changes the numbers a model computes, and whether a model
    trains as well under it (and which dtype the hardware supports) needs a run to tell.

    ## Measured precision
    stable. 0.94 on the dev half (49/3: a DDP tutorial on `nn.Linear(20, 1)`) and 0.92 held
    out (36/3: a tiny MLP GAN, a tiny data-bound ViT notebook, word2vec's embedding lookups).
    See docs/precision.md.
    """

    code = "TL601"
    impact = "high"
    name = "no-mixed-precision"
    summary = "CUDA training loop without automatic mixed precision (`torch.autocast`)"
    severity = "info"
    triggers = ADVICE_TRIGGERS
    bad_examples = (
        "import torch\nmodel = model.cuda()\nfor x, y in loader:\n    loss = model(x.cuda())\n    loss.backward()\n    opt.step()\n",
        "import torch\ndef train_step(x):\n    loss = model(x)\n    loss.backward()\n    optimizer.step()\n\n"
        "for x in train_loader:\n    train_step(x.to('cuda'))\n",
    )
    good_examples = (
        "import torch\nmodel = model.cuda()\nfor x, y in loader:\n    with torch.autocast('cuda'):\n        loss = model(x.cuda())\n"
        "    loss.backward()\n    opt.step()\n",
        "import torch\nfor x, y in loader:\n    loss = model(x)\n    loss.backward()\n    opt.step()\n",
        "import torch\nmodel = model.cuda()\nfor x in loader:\n    preds = model(x.cuda())\n",
        "import torch\nmodel = model.cuda()\nfor i in range(100):\n    loss = model(x)\n    loss.backward()\n    opt.step()\n",
    )

    def leave_Module(self, node: cst.Module) -> None:
        loop = advice_site(self.ctx, AUTOCAST)
        if loop is None:
            return
        self.report(
            loop_header(loop),
            "this CUDA training loop runs in float32 throughout; run the forward pass and loss under "
            "`torch.autocast(\"cuda\", dtype=torch.bfloat16)` (float16 with a GradScaler on older GPUs) to use "
            "tensor cores, see `torchlint.reference.AmpStep`",
            start=loop,
        )
