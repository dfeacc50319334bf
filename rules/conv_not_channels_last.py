
import libcst as cst

from torchlint.engine.rule import Rule
from torchlint.semantics.project import AUTOCAST, CHANNELS_LAST, conv_heavy, project_enables, project_uses
from torchlint.semantics.roles import is_one_off_script
from torchlint.semantics.training import ADVICE_TRIGGERS, advice_site, loop_header


class ConvNotChannelsLast(Rule):
    """## What it does
    Flags a convolutional CUDA training script that runs in mixed precision with the default
    (channels-first) memory format: the file has a training loop and its program runs on
    CUDA (both as TL601 defines them; silent in reinforcement-learning programs), uses
    `autocast` (or `.half()`/`.bfloat16()`), its model is made of 2-d or 3-d convolutions
    (`nn.Conv2d`, `nn.Conv3d`, their transposed forms, `F.conv2d`, or `torchvision.models`,
    in the file or a project module it imports) with no attention, transformer layers or
    explicit matrix products, and `channels_last` appears nowhere in the program.

    It is reported once per file, at its first training loop (advice is about the program,
    not about one loop), as advice (severity info).

    ## Why is this slow?
    The tensor-core convolution kernels of cuDNN work on NHWC data ("channels last"). PyTorch
    stores images as NCHW, so under mixed precision every convolution of a channels-first
    model transposes its input and output around the kernel, or falls back to slower
    kernels. Converting the model and its input batches to `torch.channels_last` once
    removes those transposes: the PyTorch memory-format tutorial reports over 22% higher
    training throughput for ResNet-50 with AMP, and 8% to 35% across a set of vision models
    on a V100. In float32 the gain is small (the kernels do not run on tensor cores), which
    is why the rule asks for autocast.

    The rule is silent when the file, a project module it imports, or a project module that
    imports it mentions `channels_last` (or `channels_last_3d`) anywhere outside comments, an
    option such as `--channels-last` included; when the convolutions are 1-d only (sequence
    models); when the model is matmul-heavy (a vision transformer's patch embedding is a
    convolution, but its step time is spent in attention); in files that never mention
    `cuda`; in scripts without a training loop (evaluation, inference); and in test code,
    demos, conversion and export scripts.

    ## Example
    ```python
    model = torchvision.models.resnet50().cuda()
    for images, labels in loader:
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = criterion(model(images.cuda()), labels.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    ```

    ## Use instead
    ```python
    model = torchvision.models.resnet50().cuda().to(memory_format=torch.channels_last)
    for images, labels in loader:
        images = images.cuda().to(memory_format=torch.channels_last)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = criterion(model(images), labels.cuda())
        ...
    ```
    Use `torch.channels_last_3d` for 5-d inputs (`nn.Conv3d`).

    ## Fix applicability
    None: a model with operations that have no channels-last kernels (some custom CUDA
    extensions, grouped convolutions on older cuDNN) can get slower, and code that calls
    `.view()` on activations may need `.reshape()`; only a timed run tells.

    ## Measured precision
    preview. No finding on the development half; one on the held-out half, a false positive
    (0/1): a Lightning example that imports the library's own Fabric modules, whose mention
    of autocast made a float32 run look mixed-precision. Too few findings to leave preview.
    See docs/precision.md.
    """

    code = "TL303"
    name = "conv-not-channels-last"
    preview = True  # too few findings on the benchmark to measure (docs/precision.md)
    impact = "high"
    summary = "Convolutional CUDA training under autocast without `memory_format=torch.channels_last`"
    severity = "info"
    triggers = ADVICE_TRIGGERS
    bad_examples = (
        "import torch\nmodel = torch.nn.Conv2d(3, 8, 3).cuda()\nfor x, y in loader:\n"
        "    with torch.autocast('cuda'):\n        loss = model(x.cuda()).sum()\n    loss.backward()\n    opt.step()\n",
    )
    good_examples = (
        "import torch\nmodel = torch.nn.Conv2d(3, 8, 3).cuda().to(memory_format=torch.channels_last)\n"
        "for x, y in loader:\n    x = x.cuda().to(memory_format=torch.channels_last)\n"
        "    with torch.autocast('cuda'):\n        loss = model(x).sum()\n    loss.backward()\n    opt.step()\n",
        "import torch\nmodel = torch.nn.Conv2d(3, 8, 3).cuda()\nfor x, y in loader:\n"
        "    loss = model(x.cuda()).sum()\n    loss.backward()\n    opt.step()\n",
        "import torch\nmodel = torch.nn.Conv1d(3, 8, 3).cuda()\nfor x, y in loader:\n"
        "    with torch.autocast('cuda'):\n        loss = model(x.cuda()).sum()\n    loss.backward()\n    opt.step()\n",
        "import torch\nmodel = torch.nn.Conv2d(3, 8, 3)\nfor x, y in loader:\n"
        "    with torch.autocast('cpu'):\n        loss = model(x).sum()\n    loss.backward()\n    opt.step()\n",
    )

    def leave_Module(self, node: cst.Module) -> None:
        loop = advice_site(self.ctx, CHANNELS_LAST)
        if loop is None or is_one_off_script(self.ctx.role_path):
            return
        if not project_enables(self.ctx, AUTOCAST) or not conv_heavy(self.ctx) or project_uses(self.ctx, CHANNELS_LAST):
            return  # float32 training, no convolutional model, or the memory format chosen elsewhere
        self.report(
            loop_header(loop),
            "this mixed-precision CUDA training loop runs convolutions on channels-first tensors; convert the model "
            "and each input batch with `.to(memory_format=torch.channels_last)` so the tensor-core kernels "
            "need no transposes",
            start=loop,
        )
