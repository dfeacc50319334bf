#!/usr/bin/env python3
"""Generate a synthetic tree of PyTorch-style Python files to benchmark linters on.

Usage::

    python benchmarks/generate_tree.py OUT_DIR --lines N [--seed S]

The tree is one package with nested subpackages of models (layers, blocks,
backbones with registered factories), datasets and transforms, training and
evaluation loops, and utilities, plus a few scripts. Files are 50 to 3000
lines (log-uniform), about N lines in all, the same bytes for the same seed.
In about a quarter of the files, some blocks hold the anti-patterns torchlint
looks for: ``.item()`` and
``.cpu()`` in step loops, tensors created on the CPU and then moved, DataLoaders
without workers, convolutions with a bias before BatchNorm, zeroed gradients,
evaluation without ``no_grad`` and ``nn.DataParallel``. Every file is checked
to parse. Standard library only.
"""

from __future__ import annotations

import argparse
import ast
import math
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from textwrap import dedent

MIN_FILE_LINES, MAX_FILE_LINES = 50, 3000
MODULES_PER_PACKAGE = 12  # a package this full gets a new subpackage next to or below it
MAX_DEPTH = 4
SLOPPY_FILES = 0.25  # the share of the files that have anti-patterns
ANTI_PATTERN_RATE = 0.3  # in those, the share of the blocks that have theirs

ADJECTIVES = (
    "patch", "token", "spatial", "channel", "depth", "gated", "sparse", "dense", "local", "global",
    "cross", "shift", "window", "pyramid", "residual", "bottleneck", "inverted", "squeeze", "dual",
    "multi", "fused", "light", "deep", "wide", "tiny", "dilated", "grouped", "causal", "linear", "mixed",
)  # fmt: skip
NOUNS = (
    "block", "layer", "stage", "stem", "head", "encoder", "decoder", "attention", "embed", "pool",
    "norm", "proj", "gate", "unit", "branch", "fusion", "adapter", "neck", "mixer", "router",
)  # fmt: skip
ACTIVATIONS = ("nn.ReLU(inplace=True)", "nn.GELU()", "nn.SiLU(inplace=True)", "nn.Hardswish()", "nn.Mish()")
OPTIMIZERS = ("SGD", "AdamW", "Adam", "RMSprop")


def camel(*words: str) -> str:
    return "".join(word.capitalize() for word in words)


@dataclass
class Module:
    """One file being written: its lines and the names it defines."""

    rng: random.Random
    anti_pattern_rate: float = 0.0
    lines: list[str] = field(default_factory=list)
    names: set[str] = field(default_factory=set)
    exports: list[str] = field(default_factory=list)  # public top-level names, in order
    dim_blocks: list[str] = field(default_factory=list)  # nn.Module classes taking (dim)
    backbones: list[str] = field(default_factory=list)  # classes taking (num_classes=...)

    def name(self, make: Callable[[], str]) -> str:
        """A fresh name from ``make``; numbered when ``make`` keeps repeating itself."""
        for _ in range(10):
            candidate = make()
            if candidate not in self.names:
                break
        number = 2
        base = candidate
        while candidate in self.names:
            candidate, number = f"{base}{number}", number + 1
        self.names.add(candidate)
        return candidate

    def class_name(self, suffix: str = "") -> str:
        return self.name(lambda: camel(self.rng.choice(ADJECTIVES), self.rng.choice(NOUNS)) + suffix)

    def function_name(self, verb: str) -> str:
        return self.name(lambda: f"{verb}_{self.rng.choice(ADJECTIVES)}_{self.rng.choice(NOUNS)}")

    def add(self, code: str, export: str | None = None) -> None:
        """Append a top-level block, two blank lines after the one before."""
        if self.lines:
            self.lines += ["", ""]
        self.lines += dedent(code).strip("\n").split("\n")
        if export and not export.startswith("_"):
            self.exports.append(export)

    def anti(self) -> bool:
        """Whether this block gets its anti-pattern."""
        return self.rng.random() < self.anti_pattern_rate


# --- Model blocks ---------------------------------------------------------------


def conv_bn_act(m: Module) -> None:
    name, act = m.class_name(), m.rng.choice(ACTIVATIONS)
    bias = "" if m.anti() else ", bias=False"  # a bias right before BatchNorm is wasted
    m.add(
        f'''
        class {name}(nn.Module):
            """Convolution, batch norm and activation."""

            def __init__(self, in_chs: int, out_chs: int, kernel_size: int = {m.rng.choice((1, 3, 5))}, stride: int = 1, groups: int = 1) -> None:
                super().__init__()
                padding = kernel_size // 2
                self.conv = nn.Conv2d(in_chs, out_chs, kernel_size, stride=stride, padding=padding, groups=groups{bias})
                self.bn = nn.BatchNorm2d(out_chs)
                self.act = {act}

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                return self.act(self.bn(self.conv(x)))
        ''',
        name,
    )


def residual_block(m: Module) -> None:
    name, act = m.class_name("Block"), m.rng.choice(ACTIVATIONS)
    expansion = m.rng.choice((1, 2, 4))
    first = "nn.Conv2d(in_chs, mid_chs, 1)" if m.anti() else "nn.Conv2d(in_chs, mid_chs, 1, bias=False)"
    m.add(
        f'''
        class {name}(nn.Module):
            """Bottleneck residual block (expansion {expansion})."""

            expansion = {expansion}

            def __init__(self, in_chs: int, mid_chs: int, stride: int = 1, drop_path: float = 0.0) -> None:
                super().__init__()
                out_chs = mid_chs * self.expansion
                self.conv1 = nn.Sequential({first}, nn.BatchNorm2d(mid_chs), {act})
                self.conv2 = nn.Sequential(
                    nn.Conv2d(mid_chs, mid_chs, 3, stride=stride, padding=1, bias=False),
                    nn.BatchNorm2d(mid_chs),
                    {act},
                )
                self.conv3 = nn.Sequential(nn.Conv2d(mid_chs, out_chs, 1, bias=False), nn.BatchNorm2d(out_chs))
                self.shortcut: nn.Module = nn.Identity()
                if stride != 1 or in_chs != out_chs:
                    self.shortcut = nn.Sequential(
                        nn.Conv2d(in_chs, out_chs, 1, stride=stride, bias=False),
                        nn.BatchNorm2d(out_chs),
                    )
                self.drop_path = drop_path
                self.act = {act}

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                shortcut = self.shortcut(x)
                x = self.conv3(self.conv2(self.conv1(x)))
                if self.training and self.drop_path > 0.0:
                    keep = torch.rand(x.shape[0], 1, 1, 1, device=x.device) >= self.drop_path
                    x = x * keep / (1.0 - self.drop_path)
                return self.act(x + shortcut)
        ''',
        name,
    )


def attention(m: Module) -> None:
    name = m.class_name("Attention")
    mask = "torch.ones(n, n).to(x.device)" if m.anti() else "torch.ones(n, n, device=x.device)"
    m.add(
        f'''
        class {name}(nn.Module):
            """Multi-head self-attention."""

            def __init__(self, dim: int, num_heads: int = {m.rng.choice((4, 6, 8, 12, 16))}, qkv_bias: bool = {m.rng.choice((True, False))}, attn_drop: float = {m.rng.choice((0.0, 0.1))}, causal: bool = False) -> None:
                super().__init__()
                assert dim % num_heads == 0, f"dim {{dim}} should be divisible by num_heads {{num_heads}}"
                self.num_heads = num_heads
                self.head_dim = dim // num_heads
                self.scale = self.head_dim**-0.5
                self.causal = causal
                self.qkv = nn.Linear(dim, dim * 3, bias=qkv_bias)
                self.attn_drop = nn.Dropout(attn_drop)
                self.proj = nn.Linear(dim, dim)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                b, n, c = x.shape
                qkv = self.qkv(x).reshape(b, n, 3, self.num_heads, self.head_dim).permute(2, 0, 3, 1, 4)
                q, k, v = qkv.unbind(0)
                attn = (q * self.scale) @ k.transpose(-2, -1)
                if self.causal:
                    mask = {mask}.tril().bool()
                    attn = attn.masked_fill(~mask, float("-inf"))
                attn = self.attn_drop(attn.softmax(dim=-1))
                x = (attn @ v).transpose(1, 2).reshape(b, n, c)
                return self.proj(x)
        ''',
        name,
    )
    m.dim_blocks.append(name)


def mlp(m: Module) -> None:
    name, act = m.class_name("Mlp"), m.rng.choice(("nn.GELU", "nn.SiLU", "nn.ReLU"))
    m.add(
        f'''
        class {name}(nn.Module):
            def __init__(self, dim: int, hidden_ratio: float = {m.rng.choice((2.0, 4.0, 8 / 3))}, drop: float = {m.rng.choice((0.0, 0.1))}) -> None:
                super().__init__()
                hidden = int(dim * hidden_ratio)
                self.fc1 = nn.Linear(dim, hidden)
                self.act = {act}()
                self.drop = nn.Dropout(drop)
                self.fc2 = nn.Linear(hidden, dim)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                return self.drop(self.fc2(self.drop(self.act(self.fc1(x)))))
        ''',
        name,
    )
    m.dim_blocks.append(name)


def transformer_block(m: Module) -> None:
    if not m.dim_blocks:
        attention(m)
        mlp(m)
    name = m.class_name("Block")
    mixer, ffn = m.rng.choice(m.dim_blocks), m.rng.choice(m.dim_blocks)
    m.add(
        f'''
        class {name}(nn.Module):
            """Pre-norm block: {mixer} then {ffn}, with layer scale."""

            def __init__(self, dim: int, init_values: Optional[float] = {m.rng.choice(("None", "1e-5", "1e-6"))}) -> None:
                super().__init__()
                self.norm1 = nn.LayerNorm(dim)
                self.mixer = {mixer}(dim)
                self.norm2 = nn.LayerNorm(dim)
                self.ffn = {ffn}(dim)
                if init_values is not None:
                    self.gamma1 = nn.Parameter(init_values * torch.ones(dim))
                    self.gamma2 = nn.Parameter(init_values * torch.ones(dim))
                else:
                    self.gamma1 = self.gamma2 = None

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                if self.gamma1 is None:
                    x = x + self.mixer(self.norm1(x))
                    return x + self.ffn(self.norm2(x))
                x = x + self.gamma1 * self.mixer(self.norm1(x))
                return x + self.gamma2 * self.ffn(self.norm2(x))
        ''',
        name,
    )
    m.dim_blocks.append(name)


def squeeze_excite(m: Module) -> None:
    name = m.class_name("SE")
    m.add(
        f'''
        class {name}(nn.Module):
            """Squeeze-and-excitation: channel attention from pooled features."""

            def __init__(self, channels: int, reduction: int = {m.rng.choice((4, 8, 16))}) -> None:
                super().__init__()
                hidden = max(8, channels // reduction)
                self.fc = nn.Sequential(
                    nn.AdaptiveAvgPool2d(1),
                    nn.Conv2d(channels, hidden, 1),
                    nn.ReLU(inplace=True),
                    nn.Conv2d(hidden, channels, 1),
                    nn.Sigmoid(),
                )

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                return x * self.fc(x)
        ''',
        name,
    )


def backbone(m: Module) -> None:
    if not m.dim_blocks:
        transformer_block(m)
    name, block = m.class_name("Net"), m.rng.choice(m.dim_blocks)
    stem = "nn.Conv2d(in_chans, embed_dim, patch_size, stride=patch_size)"
    if m.anti():
        stem = "nn.Sequential(nn.Conv2d(in_chans, embed_dim, patch_size, stride=patch_size), nn.BatchNorm2d(embed_dim))"
    m.add(
        f'''
        class {name}(nn.Module):
            """A {m.rng.choice(("ViT", "ConvNeXt", "MetaFormer", "hybrid"))}-style backbone built from {block}."""

            def __init__(
                self,
                num_classes: int = 1000,
                in_chans: int = 3,
                embed_dim: int = {m.rng.choice((192, 256, 384, 512, 768))},
                depth: int = {m.rng.choice((6, 8, 12, 24))},
                patch_size: int = {m.rng.choice((4, 8, 14, 16))},
                drop_rate: float = 0.0,
                global_pool: str = "avg",
            ) -> None:
                super().__init__()
                self.num_classes = num_classes
                self.global_pool = global_pool
                self.num_features = embed_dim
                self.patch_embed = {stem}
                self.cls_token = nn.Parameter(torch.zeros(1, 1, embed_dim))
                self.blocks = nn.ModuleList([{block}(embed_dim) for _ in range(depth)])
                self.norm = nn.LayerNorm(embed_dim)
                self.head_drop = nn.Dropout(drop_rate)
                self.head = nn.Linear(embed_dim, num_classes) if num_classes > 0 else nn.Identity()
                self.apply(self._init_weights)

            def _init_weights(self, module: nn.Module) -> None:
                if isinstance(module, nn.Linear):
                    nn.init.trunc_normal_(module.weight, std=0.02)
                    if module.bias is not None:
                        nn.init.zeros_(module.bias)
                elif isinstance(module, nn.LayerNorm):
                    nn.init.ones_(module.weight)
                    nn.init.zeros_(module.bias)
                elif isinstance(module, nn.Conv2d):
                    nn.init.kaiming_normal_(module.weight, mode="fan_out", nonlinearity="relu")

            @torch.jit.ignore
            def no_weight_decay(self) -> set:
                return {{"cls_token"}}

            def reset_classifier(self, num_classes: int, global_pool: Optional[str] = None) -> None:
                self.num_classes = num_classes
                if global_pool is not None:
                    self.global_pool = global_pool
                self.head = nn.Linear(self.num_features, num_classes) if num_classes > 0 else nn.Identity()

            def forward_features(self, x: torch.Tensor) -> torch.Tensor:
                x = self.patch_embed(x).flatten(2).transpose(1, 2)
                x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1)
                for block in self.blocks:
                    x = block(x)
                return self.norm(x)

            def forward_head(self, x: torch.Tensor, pre_logits: bool = False) -> torch.Tensor:
                x = x[:, 1:].mean(dim=1) if self.global_pool == "avg" else x[:, 0]
                x = self.head_drop(x)
                return x if pre_logits else self.head(x)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                return self.forward_head(self.forward_features(x))
        ''',
        name,
    )
    m.backbones.append(name)
    for size, scale in m.rng.sample((("tiny", 0.5), ("small", 0.75), ("base", 1.0), ("large", 1.5)), k=2):
        factory = m.name(lambda size=size: f"{name.lower()}_{size}")
        m.add(
            f'''
            @register_model
            def {factory}(pretrained: bool = False, **kwargs: Any) -> {name}:
                """{name}, {size} variant."""
                model = {name}(embed_dim=int({m.rng.choice((256, 384, 512))} * {scale}), **kwargs)
                if pretrained:
                    state = torch.hub.load_state_dict_from_url(PRETRAINED_URLS["{factory}"], map_location="cpu")
                    model.load_state_dict(state)
                return model
            ''',
            factory,
        )


# --- Data -------------------------------------------------------------------------


def dataset(m: Module) -> None:
    name = m.class_name("Dataset")
    suffix = m.rng.choice((".jpg", ".png", ".npy", ".pt"))
    m.add(
        f'''
        class {name}(Dataset):
            """Samples listed in an annotation file under ``root``."""

            def __init__(self, root: str, split: str = "train", transform: Optional[Callable] = None, max_samples: Optional[int] = None) -> None:
                self.root = Path(root)
                self.split = split
                self.transform = transform
                self.samples: List[Tuple[Path, int]] = []
                with open(self.root / f"{{split}}.txt", encoding="utf-8") as handle:
                    for line in handle:
                        line = line.strip()
                        if not line or line.startswith("#"):
                            continue
                        path, label = line.rsplit(" ", 1)
                        self.samples.append((self.root / path, int(label)))
                if max_samples is not None:
                    self.samples = self.samples[:max_samples]
                self.classes = sorted({{label for _, label in self.samples}})

            def __len__(self) -> int:
                return len(self.samples)

            def _load(self, path: Path) -> torch.Tensor:
                if path.suffix == "{suffix}" and path.suffix in (".npy", ".pt"):
                    return torch.load(path) if path.suffix == ".pt" else torch.from_numpy(np.load(path))
                with Image.open(path) as image:
                    array = np.asarray(image.convert("RGB"), dtype=np.float32) / 255.0
                return torch.from_numpy(array).permute(2, 0, 1)

            def __getitem__(self, index: int) -> Tuple[torch.Tensor, int]:
                path, label = self.samples[index]
                try:
                    sample = self._load(path)
                except OSError as error:
                    raise RuntimeError(f"cannot read {{path}}") from error
                if self.transform is not None:
                    sample = self.transform(sample)
                return sample, label
        ''',
        name,
    )


def transform(m: Module) -> None:
    name = m.class_name()
    size = m.rng.choice((160, 192, 224, 256, 288, 384))
    m.add(
        f'''
        class {name}:
            """Random resized crop to {size} pixels, flip and normalisation."""

            def __init__(self, size: int = {size}, scale: Tuple[float, float] = (0.08, 1.0), mean: Sequence[float] = IMAGENET_MEAN, std: Sequence[float] = IMAGENET_STD) -> None:
                self.size = size
                self.scale = scale
                self.mean = torch.tensor(mean).view(-1, 1, 1)
                self.std = torch.tensor(std).view(-1, 1, 1)

            def __call__(self, image: torch.Tensor) -> torch.Tensor:
                _, height, width = image.shape
                area = height * width * random.uniform(*self.scale)
                ratio = math.exp(random.uniform(math.log(3 / 4), math.log(4 / 3)))
                crop_w = min(width, int(round(math.sqrt(area * ratio))))
                crop_h = min(height, int(round(math.sqrt(area / ratio))))
                top = random.randint(0, height - crop_h)
                left = random.randint(0, width - crop_w)
                image = image[:, top : top + crop_h, left : left + crop_w]
                image = F.interpolate(image[None], size=(self.size, self.size), mode="bilinear", align_corners=False)[0]
                if random.random() < 0.5:
                    image = image.flip(-1)
                return (image - self.mean) / self.std

            def __repr__(self) -> str:
                return f"{{type(self).__name__}}(size={{self.size}}, scale={{self.scale}})"
        ''',
        name,
    )


def collate(m: Module) -> None:
    name = m.function_name("collate")
    m.add(
        f'''
        def {name}(batch: List[Tuple[torch.Tensor, int]], pad_value: float = 0.0) -> Dict[str, torch.Tensor]:
            """Pad samples to the largest one in the batch and stack them."""
            max_h = max(sample.shape[-2] for sample, _ in batch)
            max_w = max(sample.shape[-1] for sample, _ in batch)
            images = torch.full((len(batch), batch[0][0].shape[0], max_h, max_w), pad_value)
            mask = torch.zeros(len(batch), max_h, max_w, dtype=torch.bool)
            for i, (sample, _) in enumerate(batch):
                images[i, :, : sample.shape[-2], : sample.shape[-1]] = sample
                mask[i, : sample.shape[-2], : sample.shape[-1]] = True
            labels = torch.tensor([label for _, label in batch], dtype=torch.long)
            return {{"images": images, "mask": mask, "labels": labels}}
        ''',
        name,
    )


def build_loader(m: Module) -> None:
    name = m.function_name("build")
    workers = "" if m.anti() else "\n                num_workers=num_workers,\n                persistent_workers=num_workers > 0,"
    m.add(
        f'''
        def {name}(dataset: Dataset, batch_size: int = {m.rng.choice((32, 64, 128, 256))}, num_workers: int = {m.rng.choice((4, 8, 16))}, distributed: bool = False, shuffle: bool = True) -> DataLoader:
            """A DataLoader over ``dataset``, sharded when ``distributed``."""
            sampler = DistributedSampler(dataset, shuffle=shuffle) if distributed else None
            return DataLoader(
                dataset,
                batch_size=batch_size,
                shuffle=shuffle and sampler is None,
                sampler=sampler,{workers}
                pin_memory=torch.cuda.is_available(),
                drop_last=shuffle,
            )
        ''',
        name,
    )


# --- Training ---------------------------------------------------------------------


def train_epoch(m: Module) -> None:
    name = m.function_name("train")
    zero = "optimizer.zero_grad(set_to_none=False)" if m.anti() else "optimizer.zero_grad(set_to_none=True)"
    record = "meter.update(loss.item(), images.shape[0])" if m.anti() else "running = running + loss.detach()"
    m.add(
        f'''
        def {name}(model: nn.Module, loader: DataLoader, optimizer: torch.optim.Optimizer, scaler: torch.cuda.amp.GradScaler, device: torch.device, epoch: int, clip_grad: Optional[float] = {m.rng.choice(("None", "1.0", "5.0"))}, log_interval: int = {m.rng.choice((10, 50, 100))}) -> Dict[str, float]:
            """Train ``model`` for one epoch with mixed precision."""
            model.train()
            meter = AverageMeter()
            running = torch.zeros((), device=device)
            start = time.perf_counter()
            for step, (images, targets) in enumerate(loader):
                images = images.to(device, non_blocking=True)
                targets = targets.to(device, non_blocking=True)
                with torch.autocast(device_type=device.type, dtype=torch.bfloat16):
                    output = model(images)
                    loss = F.cross_entropy(output, targets, label_smoothing=0.1)
                {zero}
                scaler.scale(loss).backward()
                if clip_grad is not None:
                    scaler.unscale_(optimizer)
                    torch.nn.utils.clip_grad_norm_(model.parameters(), clip_grad)
                scaler.step(optimizer)
                scaler.update()
                {record}
                if step % log_interval == 0:
                    elapsed = time.perf_counter() - start
                    LOGGER.info("epoch %d step %d/%d (%.1f s)", epoch, step, len(loader), elapsed)
            return {{"loss": meter.avg if meter.count else float(running) / max(1, len(loader)), "time": time.perf_counter() - start}}
        ''',
        name,
    )


def evaluate(m: Module) -> None:
    name = m.function_name("evaluate")
    body = """
    model.eval()
    correct = total = 0
    for images, targets in loader:
        images, targets = images.to(device), targets.to(device)
        output = model(images)
        correct += (output.argmax(dim=1) == targets).sum().item()
        total += targets.numel()
    return {"top1": 100.0 * correct / max(1, total)}
"""
    if not m.anti():
        body = """
    model.eval()
    correct = torch.zeros((), dtype=torch.long, device=device)
    total = 0
    with torch.no_grad():
        for images, targets in loader:
            images, targets = images.to(device), targets.to(device)
            output = model(images)
            correct += (output.argmax(dim=1) == targets).sum()
            total += targets.numel()
    return {"top1": 100.0 * correct.item() / max(1, total)}
"""
    signature = f"def {name}(model: nn.Module, loader: DataLoader, device: torch.device) -> Dict[str, float]:"
    m.add(signature + '\n    """Top-1 accuracy of ``model`` on ``loader``."""' + body, name)


def manual_loop(m: Module) -> None:
    name = m.function_name("fit")
    zero = (
        "for param in model.parameters():\n                    if param.grad is not None:\n                        param.grad.zero_()"
        if m.anti()
        else "optimizer.zero_grad()"
    )
    m.add(
        f'''
        def {name}(model: nn.Module, batches: Iterable[Tuple[torch.Tensor, torch.Tensor]], steps: int = {m.rng.choice((100, 1000, 5000))}, lr: float = {m.rng.choice(("1e-3", "3e-4", "0.1"))}) -> List[float]:
            """A bare training loop over pre-built batches."""
            optimizer = torch.optim.{m.rng.choice(OPTIMIZERS)}(model.parameters(), lr=lr)
            history: List[float] = []
            for step, (inputs, targets) in zip(range(steps), batches):
                {zero}
                loss = F.mse_loss(model(inputs), targets)
                loss.backward()
                optimizer.step()
                history.append(loss.detach())
            return [float(value) for value in torch.stack(history).cpu()]
        ''',
        name,
    )


def scheduler(m: Module) -> None:
    name = m.function_name("cosine")
    m.add(
        f'''
        def {name}(optimizer: torch.optim.Optimizer, base_lr: float, step: int, total_steps: int, warmup_steps: int = {m.rng.choice((500, 1000, 2000))}, min_lr: float = 1e-6) -> float:
            """Set a linear-warmup, cosine-decay learning rate for ``step``; return it."""
            if step < warmup_steps:
                lr = base_lr * (step + 1) / warmup_steps
            else:
                progress = (step - warmup_steps) / max(1, total_steps - warmup_steps)
                lr = min_lr + 0.5 * (base_lr - min_lr) * (1.0 + math.cos(math.pi * progress))
            for group in optimizer.param_groups:
                group["lr"] = lr * group.get("lr_scale", 1.0)
            return lr
        ''',
        name,
    )


def checkpointing(m: Module) -> None:
    save, load = m.function_name("save"), m.function_name("load")
    m.add(
        f'''
        def {save}(path: Union[str, Path], model: nn.Module, optimizer: Optional[torch.optim.Optimizer] = None, epoch: int = 0, **extra: Any) -> None:
            """Write a checkpoint atomically: to a temporary file, then renamed."""
            path = Path(path)
            path.parent.mkdir(parents=True, exist_ok=True)
            state = {{"model": model.state_dict(), "epoch": epoch, **extra}}
            if optimizer is not None:
                state["optimizer"] = optimizer.state_dict()
            tmp = path.with_suffix(".tmp")
            torch.save(state, tmp)
            os.replace(tmp, path)


        def {load}(path: Union[str, Path], model: nn.Module, optimizer: Optional[torch.optim.Optimizer] = None, strict: bool = True) -> int:
            """Restore a checkpoint written by ``{save}``; return its epoch."""
            state = torch.load(path, map_location="cpu")
            missing, unexpected = model.load_state_dict(state["model"], strict=strict)
            if missing or unexpected:
                LOGGER.warning("missing keys: %s; unexpected keys: %s", missing, unexpected)
            if optimizer is not None and "optimizer" in state:
                optimizer.load_state_dict(state["optimizer"])
            return int(state.get("epoch", 0))
        ''',
    )
    m.exports += [save, load]


def main_function(m: Module, model_name: str) -> None:
    parallel = "nn.DataParallel(model)" if m.anti() else "DistributedDataParallel(model, device_ids=[local_rank])"
    m.add(
        f'''
        def parse_args(argv: Optional[Sequence[str]] = None) -> argparse.Namespace:
            parser = argparse.ArgumentParser(description=__doc__)
            parser.add_argument("data", help="dataset root")
            parser.add_argument("--epochs", type=int, default={m.rng.choice((90, 100, 300))})
            parser.add_argument("--batch-size", type=int, default={m.rng.choice((64, 128, 256))})
            parser.add_argument("--lr", type=float, default={m.rng.choice(("1e-3", "5e-4", "0.1"))})
            parser.add_argument("--workers", type=int, default=8)
            parser.add_argument("--output", default="output")
            parser.add_argument("--resume", default="")
            return parser.parse_args(argv)


        def main(argv: Optional[Sequence[str]] = None) -> None:
            args = parse_args(argv)
            local_rank = int(os.environ.get("LOCAL_RANK", 0))
            device = torch.device("cuda", local_rank) if torch.cuda.is_available() else torch.device("cpu")
            torch.manual_seed(42 + local_rank)
            model = {model_name}(num_classes=1000).to(device)
            if torch.cuda.device_count() > 1:
                model = {parallel}
            optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.05)
            train_set = TensorDataset(torch.randn(512, 3, 224, 224), torch.randint(0, 1000, (512,)))
            loader = DataLoader(train_set, batch_size=args.batch_size, shuffle=True, num_workers=args.workers)
            for epoch in range(args.epochs):
                model.train()
                for images, targets in loader:
                    images, targets = images.to(device), targets.to(device)
                    loss = F.cross_entropy(model(images), targets)
                    optimizer.zero_grad(set_to_none=True)
                    loss.backward()
                    optimizer.step()
                LOGGER.info("epoch %d done", epoch)


        if __name__ == "__main__":
            main()
        ''',
    )


# --- Utilities --------------------------------------------------------------------


def average_meter(m: Module) -> None:
    name = m.class_name("Meter")
    m.add(
        f'''
        class {name}:
            """Keeps the latest value, the sum, the count and the average."""

            def __init__(self, name: str = "", fmt: str = ":.4f") -> None:
                self.name = name
                self.fmt = fmt
                self.reset()

            def reset(self) -> None:
                self.val = 0.0
                self.sum = 0.0
                self.count = 0
                self.avg = 0.0

            def update(self, val: float, n: int = 1) -> None:
                self.val = val
                self.sum += val * n
                self.count += n
                self.avg = self.sum / self.count

            def __str__(self) -> str:
                template = "{{name}} {{val" + self.fmt + "}} ({{avg" + self.fmt + "}})"
                return template.format(**self.__dict__)
        ''',
        name,
    )


def accuracy(m: Module) -> None:
    name = m.function_name("topk")
    m.add(
        f'''
        def {name}(output: torch.Tensor, target: torch.Tensor, topk: Tuple[int, ...] = (1, 5)) -> List[torch.Tensor]:
            """Top-k accuracies in percent, as tensors (no host synchronisation)."""
            maxk = min(max(topk), output.shape[1])
            _, pred = output.topk(maxk, dim=1, largest=True, sorted=True)
            correct = pred.t().eq(target.reshape(1, -1).expand_as(pred.t()))
            return [correct[: min(k, maxk)].reshape(-1).float().sum(0) * 100.0 / target.shape[0] for k in topk]
        ''',
        name,
    )


def collect_predictions(m: Module) -> None:
    name = m.function_name("collect")
    gather = (
        "predictions.extend(output.argmax(dim=1).cpu().tolist())"
        if m.anti()
        else "predictions.append(output.argmax(dim=1))"
    )
    finish = "return predictions" if m.anti() else "return torch.cat(predictions).tolist() if predictions else []"
    m.add(
        f'''
        @torch.inference_mode()
        def {name}(model: nn.Module, loader: DataLoader, device: torch.device) -> List[int]:
            """The predicted class of every sample in ``loader``."""
            predictions = []
            for batch in loader:
                images = batch[0] if isinstance(batch, (list, tuple)) else batch["images"]
                output = model(images.to(device))
                {gather}
            {finish}
        ''',
        name,
    )


def seed_everything(m: Module) -> None:
    name = m.function_name("seed")
    m.add(
        f'''
        def {name}(seed: int, deterministic: bool = False) -> None:
            """Seed Python, NumPy and PyTorch; optionally make cuDNN deterministic."""
            random.seed(seed)
            np.random.seed(seed)
            torch.manual_seed(seed)
            torch.cuda.manual_seed_all(seed)
            os.environ["PYTHONHASHSEED"] = str(seed)
            torch.backends.cudnn.deterministic = deterministic
            torch.backends.cudnn.benchmark = not deterministic
        ''',
        name,
    )


def timer(m: Module) -> None:
    name = m.class_name("Timer")
    m.add(
        f'''
        class {name}:
            """Context manager that logs how long its block took (synchronising CUDA)."""

            def __init__(self, label: str, sync: bool = {m.rng.choice((True, False))}) -> None:
                self.label = label
                self.sync = sync and torch.cuda.is_available()
                self.elapsed = 0.0

            def __enter__(self) -> "{name}":
                if self.sync:
                    torch.cuda.synchronize()
                self._start = time.perf_counter()
                return self

            def __exit__(self, *exc_info: object) -> None:
                if self.sync:
                    torch.cuda.synchronize()
                self.elapsed = time.perf_counter() - self._start
                LOGGER.debug("%s took %.3f ms", self.label, self.elapsed * 1000)
        ''',
        name,
    )


def merge_config(m: Module) -> None:
    name = m.function_name("merge")
    m.add(
        f'''
        def {name}(base: Dict[str, Any], override: Dict[str, Any], path: str = "") -> Dict[str, Any]:
            """Recursively merge ``override`` into a copy of ``base``; unknown keys are errors."""
            merged = dict(base)
            for key, value in override.items():
                where = f"{{path}}.{{key}}" if path else key
                if key not in base:
                    raise KeyError(f"unknown configuration key {{where!r}}")
                if isinstance(value, dict) and isinstance(base[key], dict):
                    merged[key] = {name}(base[key], value, where)
                elif base[key] is not None and not isinstance(value, type(base[key])):
                    raise TypeError(f"{{where}}: expected {{type(base[key]).__name__}}, got {{type(value).__name__}}")
                else:
                    merged[key] = value
            return merged
        ''',
        name,
    )


def tensor_helpers(m: Module) -> None:
    pad, masked = m.function_name("pad"), m.function_name("masked")
    positions = "torch.arange(length).to(device)" if m.anti() else "torch.arange(length, device=device)"
    m.add(
        f'''
        def {pad}(x: torch.Tensor, multiple: int = {m.rng.choice((8, 14, 16, 32))}, value: float = 0.0) -> torch.Tensor:
            """Pad the last two dimensions of ``x`` up to a multiple of ``multiple``."""
            height, width = x.shape[-2:]
            pad_h = (multiple - height % multiple) % multiple
            pad_w = (multiple - width % multiple) % multiple
            if pad_h == 0 and pad_w == 0:
                return x
            return F.pad(x, (0, pad_w, 0, pad_h), value=value)


        def {masked}(x: torch.Tensor, lengths: torch.Tensor, dim: int = 1) -> torch.Tensor:
            """Mean of ``x`` over ``dim``, ignoring the positions past each sequence's length."""
            length, device = x.shape[dim], x.device
            mask = {positions}[None, :] < lengths[:, None]
            mask = mask.unsqueeze(-1).to(x.dtype)
            return (x * mask).sum(dim) / mask.sum(dim).clamp_min(1.0)
        ''',
    )
    m.exports += [pad, masked]


def constants(m: Module) -> None:
    m.add(
        f'''
        IMAGENET_MEAN = (0.485, 0.456, 0.406)
        IMAGENET_STD = (0.229, 0.224, 0.225)
        DEFAULT_CROP_PCT = {m.rng.choice((0.875, 0.9, 0.95))}
        LOGGER = logging.getLogger(__name__)
        '''
    )


# --- Files and packages -----------------------------------------------------------

HEADER = '''\
"""{doc}"""

from __future__ import annotations

import argparse
import logging
import math
import os
import random
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from PIL import Image
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, Dataset, DistributedSampler, TensorDataset

from {root}.registry import PRETRAINED_URLS, register_model
from {root}.utils.meters import AverageMeter
'''

Block = Callable[[Module], None]


@dataclass(frozen=True)
class Kind:
    """A kind of module: how many of the files, where they go, what they hold."""

    share: float
    doc: str
    subpackages: tuple[str, ...]  # created from the start, so that even small trees nest
    blocks: tuple[Block, ...]


KINDS: dict[str, Kind] = {
    "models": Kind(0.35, "Model layers and backbones.", ("layers", "backbones"), (
        conv_bn_act, residual_block, attention, mlp, transformer_block, squeeze_excite, backbone, backbone,
    )),
    "data": Kind(0.2, "Datasets, transforms and loaders.", ("datasets",), (
        dataset, transform, collate, build_loader, tensor_helpers,
    )),
    "engine": Kind(0.2, "Training and evaluation loops.", ("loops",), (
        train_epoch, evaluate, manual_loop, scheduler, checkpointing, collect_predictions,
    )),
    "utils": Kind(0.25, "Utilities: metrics, timing, seeding and configuration.", (), (
        average_meter, accuracy, seed_everything, timer, merge_config, tensor_helpers, collect_predictions,
    )),
}  # fmt: skip


def module_text(rng: random.Random, kind: str, root: str, target_lines: int, script: bool) -> tuple[str, list[str]]:
    """The source of one module of ``kind`` with about ``target_lines`` lines, and its exported names."""
    m = Module(rng, ANTI_PATTERN_RATE if rng.random() < SLOPPY_FILES else 0.0)
    m.lines = HEADER.format(doc=KINDS[kind].doc, root=root).rstrip("\n").split("\n")
    constants(m)
    while len(m.lines) < target_lines - (40 if script else 0):
        rng.choice(KINDS[kind].blocks)(m)
    if script:
        if not m.backbones:
            backbone(m)
        main_function(m, m.backbones[0])
    return "\n".join(m.lines) + "\n", m.exports


def file_size(rng: random.Random) -> int:
    """A log-uniform file size in lines."""
    return int(math.exp(rng.uniform(math.log(MIN_FILE_LINES), math.log(MAX_FILE_LINES))))


@dataclass
class Package:
    path: Path  # relative to OUT_DIR
    modules: list[tuple[str, list[str]]] = field(default_factory=list)  # (module name, exports)


def pick_package(rng: random.Random, packages: dict[str, list[Package]], kind: str) -> Package:
    """A package of ``kind`` with room for one more module; a new nested one when all are full."""
    room = [package for package in packages[kind] if len(package.modules) < MODULES_PER_PACKAGE]
    if room:
        return rng.choice(room)
    parents = [package for package in packages[kind] if len(package.path.parts) < MAX_DEPTH] or [packages[kind][0]]
    parent = rng.choice(parents)
    while True:
        child = parent.path / f"{rng.choice(ADJECTIVES)}_{rng.choice(NOUNS)}s"
        if all(package.path != child for package in packages[kind]):
            break
    packages[kind].append(Package(child))
    return packages[kind][-1]


def write(out_dir: Path, relative: Path, text: str) -> int:
    """Write one file after checking that it parses; return its number of lines."""
    ast.parse(text, filename=str(relative))
    path = out_dir / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return text.count("\n")


def generate(out_dir: Path, total_lines: int, seed: int) -> tuple[int, int]:
    """Write the tree; return the number of files and of lines."""
    rng = random.Random(seed)
    root = f"synth_{rng.choice(ADJECTIVES)}_{rng.choice(NOUNS)}"
    packages = {
        name: [Package(Path(root) / name), *(Package(Path(root) / name / sub) for sub in kind.subpackages)]
        for name, kind in KINDS.items()
    }
    kinds, weights = list(KINDS), [kind.share for kind in KINDS.values()]
    lines = write(out_dir, Path(root) / "registry.py", REGISTRY)
    lines += write(out_dir, Path(root) / "utils" / "meters.py", METERS)
    packages["utils"][0].modules.append(("meters", ["AverageMeter"]))
    files = 2
    while lines < total_lines:
        target = max(MIN_FILE_LINES, min(file_size(rng), total_lines - lines))
        script = rng.random() < 0.05
        kind = "engine" if script else rng.choices(kinds, weights)[0]
        text, exports = module_text(rng, kind, root, target, script)
        if script:
            relative = Path("tools") / f"train_{rng.choice(ADJECTIVES)}_{files}.py"
        else:
            package = pick_package(rng, packages, kind)
            name = f"{rng.choice(ADJECTIVES)}_{rng.choice(NOUNS)}_{files}"
            package.modules.append((name, exports))
            relative = package.path / f"{name}.py"
        lines += write(out_dir, relative, text)
        files += 1
    for package in [Package(Path(root)), *(package for group in packages.values() for package in group)]:
        lines += write(out_dir, package.path / "__init__.py", init_text(package))
        files += 1
    return files, lines


def init_text(package: Package) -> str:
    """An ``__init__.py`` re-exporting the public names of the package's modules."""
    lines = [f'"""The {package.path.name} package."""', ""]
    for name, exports in package.modules:
        if exports:
            lines.append(f"from .{name} import {', '.join(sorted(exports)[:8])}")
    return "\n".join(lines).rstrip("\n") + "\n"


REGISTRY = '''\
"""A registry of model factories and their pretrained weights."""

from __future__ import annotations

from typing import Callable, Dict, TypeVar

F = TypeVar("F", bound=Callable)

MODELS: Dict[str, Callable] = {}
PRETRAINED_URLS: Dict[str, str] = {}


def register_model(factory: F) -> F:
    """Register ``factory`` under its name."""
    if factory.__name__ in MODELS:
        raise ValueError(f"model {factory.__name__!r} is registered twice")
    MODELS[factory.__name__] = factory
    PRETRAINED_URLS.setdefault(factory.__name__, f"https://example.invalid/weights/{factory.__name__}.pth")
    return factory


def create_model(name: str, **kwargs: object) -> object:
    try:
        factory = MODELS[name]
    except KeyError:
        raise ValueError(f"unknown model {name!r}; known: {', '.join(sorted(MODELS))}") from None
    return factory(**kwargs)
'''

METERS = '''\
"""Running averages."""


class AverageMeter:
    def __init__(self) -> None:
        self.sum = 0.0
        self.count = 0
        self.avg = 0.0

    def update(self, value: float, n: int = 1) -> None:
        self.sum += value * n
        self.count += n
        self.avg = self.sum / self.count
'''


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Generate a synthetic tree of PyTorch-style Python files.")
    parser.add_argument("out_dir", type=Path, help="directory to create (must not exist or be empty)")
    parser.add_argument("--lines", type=int, required=True, help="about how many lines in all")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.lines < MIN_FILE_LINES:
        print(f"error: --lines must be at least {MIN_FILE_LINES}", file=sys.stderr)
        return 2
    if args.out_dir.exists() and not (args.out_dir.is_dir() and not any(args.out_dir.iterdir())):
        print(f"error: {args.out_dir} exists and is not an empty directory", file=sys.stderr)
        return 2
    files, lines = generate(args.out_dir, args.lines, args.seed)
    print(f"wrote {files:,} files, {lines:,} lines to {args.out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
