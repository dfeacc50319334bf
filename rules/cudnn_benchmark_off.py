import libcst as cst

from torchlint.engine.rule import Rule
from torchlint.semantics.project import CONVOLUTION, CUDNN_BENCHMARK, CUDNN_DETERMINISTIC, VARIABLE_SHAPES, project_enables
from torchlint.semantics.training import ADVICE_TRIGGERS, advice_site, loop_header


class CudnnBenchmarkOff(Rule):
    """## What it does
    Flags a CUDA training script for a convolutional model that never turns on cuDNN
    autotuning: the file has a training loop and its program runs on CUDA (both as TL601
    defines them; silent in reinforcement-learning programs), uses convolutions (`nn.Conv2d`
    and friends, `F.conv2d`, or `torchvision.models`, in the file or a project module it
    imports), and never sets
    `torch.backends.cudnn.benchmark`.

    It is reported once per file, at its first training loop (advice is about the program,
    not about one loop), as advice (severity info).

    ## Why is this slow?
    cuDNN has several algorithms for every convolution, and which one is fastest depends on
    the shapes, the data type and the GPU. By default PyTorch picks one by heuristics. With
    `cudnn.benchmark = True` it times the candidates the first time it sees each input shape
    and reuses the fastest from then on. When the input shapes stay the same from step to
    step (fixed image size and batch size, the usual case), that one-off cost buys a faster
    convolution for every later step; the tuning guide lists it among the first settings
    to turn on for convolutional networks.

    The rule is silent when the file, a project module it imports, or one that imports it
    (the entry script that calls the trainer) assigns
    `cudnn.benchmark` any value (`= args.benchmark` and `= False` are decisions), sets
    `cudnn.deterministic` or calls `torch.use_deterministic_algorithms(...)`
    (reproducibility chosen on purpose: autotuning may pick different algorithms from run
    to run), and in files that never mention `cuda` or `torch.accelerator` (the current
    accelerator, CUDA on NVIDIA GPUs).

    ## Example
    ```python
    model = torchvision.models.resnet50().cuda()
    for images, labels in loader:
        loss = criterion(model(images.cuda()), labels.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    ```

    ## Use instead
    ```python
    torch.backends.cudnn.benchmark = True
    model = torchvision.models.resnet50().cuda()
    for images, labels in loader:
        ...
    ```
    Leave it off when input shapes change at almost every step (variable-length sequences
    fed to 1-d convolutions, multi-scale training): each new shape is benchmarked again.

    ## Fix applicability
    None: whether the input shapes are fixed, and whether run-to-run reproducibility is
    required, cannot be read from the code.

    ## Measured precision
    stable. 1.00 on both halves (28/0 dev, 16/0 held out). See docs/precision.md.
    """

    code = "TL603"
    impact = "low"
    name = "cudnn-benchmark-off"
    summary = "Convolutional CUDA training without `torch.backends.cudnn.benchmark = True`"
    severity = "info"
    triggers = ADVICE_TRIGGERS
    bad_examples = (
        "import torch\nmodel = torch.nn.Conv2d(3, 8, 3).cuda()\nfor x, y in loader:\n    loss = model(x.cuda()).sum()\n"
        "    loss.backward()\n    opt.step()\n",
    )
    good_examples = (
        "import torch\ntorch.backends.cudnn.benchmark = True\nmodel = torch.nn.Conv2d(3, 8, 3).cuda()\n"
        "for x, y in loader:\n    loss = model(x.cuda()).sum()\n    loss.backward()\n    opt.step()\n",
        "import torch\ntorch.backends.cudnn.deterministic = True\nmodel = torch.nn.Conv2d(3, 8, 3).cuda()\n"
        "for x, y in loader:\n    loss = model(x.cuda()).sum()\n    loss.backward()\n    opt.step()\n",
        "import torch\nmodel = torch.nn.Linear(3, 8).cuda()\nfor x, y in loader:\n    loss = model(x.cuda()).sum()\n"
        "    loss.backward()\n    opt.step()\n",
        "import torch\nmodel = torch.nn.Conv2d(3, 8, 3)\nfor x, y in loader:\n    loss = model(x).sum()\n"
        "    loss.backward()\n    opt.step()\n",
    )

    def leave_Module(self, node: cst.Module) -> None:
        loop = advice_site(self.ctx, CUDNN_BENCHMARK, CUDNN_DETERMINISTIC, VARIABLE_SHAPES)
        if loop is None or not project_enables(self.ctx, CONVOLUTION):
            return  # no loop, convolutions, or a choice already made (or shapes that change every step)
        self.report(
            loop_header(loop),
            "this CUDA training loop runs convolutions with cuDNN's default algorithm choice; set "
            "`torch.backends.cudnn.benchmark = True` once at start-up so the fastest algorithm is timed and "
            "reused (when input shapes are fixed)",
            start=loop,
        )
