"""The shared training-loop analysis: loops, loaders, DDP wraps and project-wide settings."""

from __future__ import annotations

import textwrap

import libcst as cst

from torchlint.engine.context import FileContext, Options
from torchlint.semantics import training
from torchlint.semantics.project import (
    AUTOCAST,
    CONVOLUTION,
    CUDNN_BENCHMARK,
    CUDNN_DETERMINISTIC,
    LINEAR,
    MATMUL,
    TF32,
    file_enables,
    project_enables,
    project_modules,
)
from torchlint.semantics.training import is_loader_like, training_loops
from torchlint.engine.walker import walk

from conftest import write


def context(code: str, path: str = "snippet.py") -> FileContext:
    text = textwrap.dedent(code)
    ctx = FileContext(cst.parse_module(text), text, path, Options())
    walk(ctx, [])  # binds the imports, as the engine's traversal does before leave_Module
    return ctx


def loop_lines(code: str) -> list:
    ctx = context(code)
    return [ctx.module.code_for_node(loop).strip().splitlines()[0] for loop in training_loops(ctx)]


def expression(code: str) -> cst.BaseExpression:
    return cst.parse_expression(code)


def test_loader_like_iterables():
    for code in (
        "loader", "train_loader", "enumerate(tqdm(self.val_dataloader))", "loaders['train']", "dm.train_dataloader()",
        "enumerate(logger.log_every(data_loader, 10))", "tqdm.tqdm(loader)", "zip(loader_a, loader_b)", "zip(xs, loader)",
    ):
        assert is_loader_like(expression(code)), code
    for code in ("range(10)", "dataset", "batches", "zip(xs, ys)", "self.items()", "logger.log_every(xs, 10)"):
        assert not is_loader_like(expression(code)), code
    assert is_loader_like(expression("enumerate(dl)"), frozenset({"dl"}))


def test_training_loop_direct_and_through_functions():
    code = """
    import torch
    from torch.utils.data import DataLoader as DL
    dl = DL(ds)

    def train_step(batch):
        loss = model(batch)
        loss.backward()
        update()

    def update():
        optimizer.step()

    for x in train_loader:          # direct
        model(x).backward()
        optimizer.step()
    for i, x in enumerate(dl):      # a torch DataLoader under an alias; work in functions
        train_step(x)
    for x in val_loader:            # evaluation only
        model(x)
    for i in range(10):             # not over a loader
        loss.backward()
        optimizer.step()
    for x in loader:                # backward without a step
        model(x).backward()

    class Trainer:
        def fit(self):
            for batch in self.train_loader:
                self.step_once(batch)

        def step_once(self, batch):
            self.model(batch).backward()
            self.opt.step()
    """
    assert loop_lines(code) == [
        "for x in train_loader:          # direct",
        "for i, x in enumerate(dl):      # a torch DataLoader under an alias; work in functions",
        "for batch in self.train_loader:",
    ]


def test_recursive_functions_terminate():
    code = """
    def f(x):
        g(x)
    def g(x):
        f(x)
        x.backward()
    for x in loader:
        f(x)
    """
    assert loop_lines(code) == []


def test_dataloader_look_alike_is_not_torchs():
    code = """
    from mylib import DataLoader
    items = DataLoader(ds)
    for x in items:
        x.backward()
        opt.step()
    """
    assert loop_lines(code) == []


def test_ddp_wrap_resolves_aliases():
    ctx = context("from torch.nn.parallel import DistributedDataParallel as DDP\nfrom mylib import Wrap\n")
    assert training.is_ddp_wrap(expression("DDP(model)"), ctx)
    assert not training.is_ddp_wrap(expression("Wrap(model)"), ctx)
    assert not training.is_ddp_wrap(expression("torch.nn.DataParallel(model)"), ctx)


def test_file_enables_features_but_not_comments():
    assert file_enables("with torch.autocast('cuda'):\n    pass\n", AUTOCAST)
    assert file_enables("from torch.cuda.amp import autocast\n", AUTOCAST)
    assert not file_enables("# with torch.autocast('cuda'):\nx = 1\n", AUTOCAST)
    assert not file_enables("x = 'no amp here'\n", AUTOCAST)
    assert file_enables("torch.backends.cudnn.benchmark = True\n", CUDNN_BENCHMARK)
    assert file_enables("import torch.backends.cudnn as cb\ncb.benchmark = args.bench\n", CUDNN_BENCHMARK)
    assert not file_enables("if torch.backends.cudnn.benchmark == True:\n    pass\n", CUDNN_BENCHMARK)
    assert not file_enables("# torch.backends.cudnn.benchmark = True\n", CUDNN_BENCHMARK)
    assert file_enables("torch.backends.cudnn.deterministic = True\n", CUDNN_DETERMINISTIC)
    assert file_enables("torch.use_deterministic_algorithms(True)\n", CUDNN_DETERMINISTIC)
    assert file_enables("torch.backends.cuda.matmul.allow_tf32 = True\n", TF32)
    assert file_enables("torch.set_float32_matmul_precision('high')\n", TF32)
    assert not file_enables("torch.backends.cudnn.allow_tf32 = True\n", TF32)
    assert file_enables("self.conv = nn.Conv2d(3, 8, 3)\n", CONVOLUTION)
    assert file_enables("from torchvision import models\n", CONVOLUTION)
    assert not file_enables("self.fc = nn.Linear(3, 8)\n", CONVOLUTION)
    assert file_enables("import torchvision as tv\nmodel = tv.models.resnet50()\n", CONVOLUTION)
    assert not file_enables("import torchvision as tv\nds = tv.datasets.MNIST('.')\n", CONVOLUTION)


def test_matmul_heavy_work():
    for code in (
        "attn = nn.MultiheadAttention(64, 8)", "y = torch.einsum('ij,jk->ik', a, b)",
        "y = a @ b", "y = x.matmul(w)", "layer = nn.TransformerEncoderLayer(64, 8)", "from transformers import AutoModel",
        "out = F.scaled_dot_product_attention(q, k, v)",
    ):
        assert file_enables(code + "\n", MATMUL), code
    for code in (
        "self.conv = nn.Conv2d(3, 8, 3)", "self.rnn = nn.LSTM(8, 16)", "self.fc = nn.Linear(3, 8)",
        "f(x)\n@torch.no_grad()\ndef f(): pass", "# y = a @ b", "'Contact: someone@example.com'",
    ):
        assert not file_enables(code + "\n", MATMUL), code
    assert file_enables("self.fc = nn.Linear(3, 8)\n", LINEAR) and file_enables("y = F.linear(x, w)\n", LINEAR)


def test_unparsable_text_is_searched_as_it_is():
    assert file_enables("def broken(:\n    torch.set_float32_matmul_precision('high')\n", TF32)


def test_project_imports_are_followed(tmp_path):
    write(tmp_path, "pyproject.toml", "")
    write(tmp_path, "proj/__init__.py", "")
    write(tmp_path, "proj/setup_env.py", "import torch\ntorch.backends.cudnn.benchmark = True\n")
    write(tmp_path, "proj/amp_utils.py", "from .inner import helper\n")
    write(tmp_path, "proj/inner.py", "import torch\nctx = torch.autocast('cuda')\n")
    write(tmp_path, "proj/models/__init__.py", "")
    write(tmp_path, "proj/models/net.py", "import torch.nn as nn\nconv = nn.Conv2d(3, 8, 3)\n")
    script = write(
        tmp_path,
        "proj/train.py",
        """
        import torch
        import proj.setup_env
        from .amp_utils import helper
        from proj.models import net
        """,
    )
    ctx = context(open(script).read(), script)
    modules = {path.split(str(tmp_path))[-1] for path in project_modules(script, ctx.text)}
    assert "/proj/setup_env.py" in modules and "/proj/inner.py" in modules and "/proj/models/net.py" in modules
    assert project_enables(ctx, CUDNN_BENCHMARK)
    assert project_enables(ctx, AUTOCAST)  # through amp_utils -> inner
    assert project_enables(ctx, CONVOLUTION)
    assert not project_enables(ctx, TF32)


def test_sibling_script_imports_and_missing_modules(tmp_path):
    write(tmp_path, "utils.py", "import torch\ntorch.set_float32_matmul_precision('high')\n")
    write(tmp_path, "other.py", "import torch\ntorch.backends.cudnn.benchmark = True\n")
    script = write(tmp_path, "train.py", "import torch\nimport numpy\nfrom utils import seed\nfrom missing import x\n")
    ctx = context(open(script).read(), script)
    assert project_enables(ctx, TF32)
    assert not project_enables(ctx, CUDNN_BENCHMARK)  # other.py is not imported


def test_text_without_a_file_only_searches_itself():
    ctx = context("import torch\nfrom utils import seed\n", "snippet.py")
    assert not project_enables(ctx, TF32)


def test_loops_over_data_or_drawing_batches_in_a_while_loop_train():
    code = """
    import torch
    for batch in tqdm(training_data, desc="train"):
        loss = model(batch)
        loss.backward()
        optimizer.step()
    for x, y in get_batches(data, batch_size):
        net(x).sum().backward()
        opt.step()
    for x in dataset:
        model(x).sum().backward()
        optimizer.step()
    data_iter = iter(train_loader)
    while True:
        batch = next(data_iter)
        model(batch).sum().backward()
        optimizer.step()
    while True:
        batch = sample()
        model(batch).sum().backward()
        optimizer.step()
    """
    assert loop_lines(code) == [
        'for batch in tqdm(training_data, desc="train"):',
        "for x, y in get_batches(data, batch_size):",
        "while True:",
    ]  # a dataset iterated directly yields single samples; `sample()` draws from no loader


def test_optimizer_step_variants_and_training_step_helpers_count_as_training():
    code = """
    import torch
    for batch in train_loader:
        loss = model(batch)
        loss.backward()
        optimizer.step_and_update_lr()
    for samples, targets in train_loader:
        loss = criterion(model(samples), targets)
        loss_scaler(loss, optimizer, parameters=model.parameters())
    for images, targets in train_loader:
        loss = criterion(model(images), targets)
        loss.backward()
        scheduler.step_update(epoch)
    for inputs, targets in train_loader:
        loss = criterion(model(inputs), targets)
        log(loss, step)
        adjust_learning_rate(optimizer, step)
    """
    assert loop_lines(code) == ["for batch in train_loader:", "for samples, targets in train_loader:"]


def test_bucketed_batches_have_variable_shapes():
    from torchlint.semantics.project import VARIABLE_SHAPES

    assert file_enables("train_iterator = BucketIterator(train, batch_size=64, device=device)\n", VARIABLE_SHAPES)
    assert not file_enables("train_iterator = Iterator(train, batch_size=64)\n", VARIABLE_SHAPES)


def test_loops_that_draw_batches_by_a_call_named_for_it():
    code = """
    import torch
    while True:
        image_tensors, labels = train_dataset.get_batch()
        model(image_tensors).sum().backward()
        optimizer.step()
    for i in range(0, n, bptt):
        data, targets = get_batch(source, i)
        model(data).sum().backward()
        optimizer.step()
    for i in range(steps):
        batch_size = get_batch_size(i)
        model(x).sum().backward()
        optimizer.step()
    for e in range(epochs):
        for x, y in get_batches(train_words, 512):
            model(x).sum().backward()
            optimizer.step()
    """
    assert loop_lines(code) == ["while True:", "for i in range(0, n, bptt):", "for x, y in get_batches(train_words, 512):"]


def test_batches_drawn_with_dunder_next_from_an_attribute():
    """WGAN code keeps an infinite generator over the loader on `self` and draws from it."""
    code = """
    import torch
    class Trainer:
        def train(self, train_loader):
            self.data = self.get_infinite_batches(train_loader)
            for g_iter in range(self.generator_iters):
                images = self.data.__next__()
                self.D(images.cuda()).mean().backward()
                self.d_optimizer.step()
            self.items = iter(self.names)
            for i in range(10):
                name = self.items.__next__()
                self.G(name).mean().backward()
                self.g_optimizer.step()
    """
    assert loop_lines(code) == ["for g_iter in range(self.generator_iters):"]
