import textwrap

from conftest import lines, lint, preview_options

from torchlint.engine.linter import lint_text
from torchlint.engine.rule import all_rules
from torchlint.semantics import project

RULE = "TL601"

TRAIN = """
import torch
model = Net().cuda()
for epoch in range(3):
    for x, y in train_loader:
        loss = criterion(model(x.cuda()), y.cuda())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    for x, y in val_loader:
        model(x.cuda())
for x, y in train_loader:
    loss = criterion(model(x.cuda()), y.cuda())
    loss.backward()
    optimizer.step()
"""


def test_reported_once_at_first_training_loop_as_info():
    [finding] = lint(TRAIN, [RULE])
    assert finding.line == 5 and finding.fix is None
    assert "autocast" in finding.message and "AmpStep" in finding.message
    assert [rule for rule in all_rules() if rule.code == RULE][0].severity == "info"


def test_every_autocast_spelling_silences():
    for line in (
        "with torch.autocast('cuda'):\n    pass",
        "from torch.amp import autocast",
        "ctx = torch.cuda.amp.autocast(enabled=args.amp)",
        "accelerator = Accelerator(mixed_precision='bf16')",
        "model = model.half()",
    ):
        assert lines(TRAIN + line + "\n", RULE) == [], line


def test_commented_autocast_does_not_silence():
    assert lines(TRAIN + "# with torch.autocast('cuda'):\n", RULE) == [5]


def test_cpu_scripts_and_non_training_loops_are_silent():
    assert lines(TRAIN.replace(".cuda()", ""), RULE) == []
    code = """
    import torch
    model = Net().cuda()
    for x in loader:
        with torch.no_grad():
            preds = model(x.cuda())
    for i in range(100):
        loss = model(x.cuda())
        loss.backward()
        optimizer.step()
    for x in dataset:
        loss = model(x.cuda())
        loss.backward()
        optimizer.step()
    """
    assert lines(code, RULE) == []


def test_training_step_in_a_function():
    code = """
    import torch
    device = torch.device("cuda")
    class Trainer:
        def train_epoch(self):
            for batch in self.loader:
                self.train_step(batch)
        def train_step(self, batch):
            loss = self.model(batch.to(device))
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
    """
    assert lines(code, RULE) == [6]


def test_autocast_in_an_imported_project_module(tmp_path):
    (tmp_path / "amp_step.py").write_text("import torch\ndef step(m, x):\n    with torch.autocast('cuda'):\n        return m(x)\n")
    script = tmp_path / "train.py"
    text = "from amp_step import step\n" + textwrap.dedent(TRAIN)
    script.write_text(text)
    rules = [rule for rule in all_rules() if rule.code == RULE]
    assert not list(lint_text(text, str(script), rules, preview_options()).findings)
    (tmp_path / "amp_step.py").write_text("def step(m, x):\n    return m(x)\n")
    assert [f.code for f in lint_text(text, str(script), rules, preview_options()).findings] == [RULE]


def test_training_loops_over_wrapped_loaders():
    for iterable in (
        "enumerate(metric_logger.log_every(data_loader, 10, header))",
        "tqdm.tqdm(train_loader)",
        "zip(loader_a, loader_b)",
    ):
        code = f"import torch\nmodel = model.cuda()\nfor batch in {iterable}:\n    loss = model(batch)\n    loss.backward()\n    opt.step()\n"
        assert lines(code, RULE) == [3], iterable
    unrelated = "import torch\nmodel = model.cuda()\nfor batch in logger.log_every(items, 10):\n    model(batch).backward()\n    opt.step()\n"
    assert lines(unrelated, RULE) == []


def test_iteration_based_loops_that_draw_batches_from_a_loader():
    code = """
    import torch
    model = model.cuda()
    data_iter = iter(train_loader)
    for step in range(total_steps):
        try:
            x, y = next(data_iter)
        except StopIteration:
            data_iter = iter(train_loader)
            x, y = next(data_iter)
        loss = model(x.cuda()).sum()
        loss.backward()
        optimizer.step()
    """
    assert lines(code, RULE) == [5]
    assert lines(code.replace("iter(train_loader)", "iter(items)"), RULE) == []  # not a data loader
    assert lines(code.replace("next(data_iter)", "sample()"), RULE) == []  # draws nothing


def test_autocast_chosen_by_the_script_that_imports_the_trainer(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "main.py").write_text("import torch\nfrom solver import train\nwith torch.autocast('cuda'):\n    train()\n")
    text = textwrap.dedent(TRAIN)
    (tmp_path / "solver.py").write_text(text)
    rules = [rule for rule in all_rules() if rule.code == RULE]
    assert not list(lint_text(text, str(tmp_path / "solver.py"), rules, preview_options()).findings)
    (tmp_path / "main.py").write_text("from solver import train\ntrain()\n")
    assert [f.code for f in lint_text(text, str(tmp_path / "solver.py"), rules, preview_options()).findings] == [RULE]


def test_the_current_accelerator_counts_as_cuda_but_rpc_programs_are_silent():
    code = """
    import torch
    device = torch.accelerator.current_accelerator()
    model = Net().to(device)
    for x, y in train_loader:
        loss = criterion(model(x.to(device)), y.to(device))
        loss.backward()
        optimizer.step()
    """
    assert lines(code, RULE) == [5]
    assert lines(code.replace("import torch\n", "import torch\nimport torch.distributed.rpc as rpc\n"), RULE) == []
    assert lines(code.replace("torch.accelerator.current_accelerator()", 'torch.device("cpu")'), RULE) == []


ENGINE = """
import torch
def train_one_epoch(model, data_loader, optimizer, device):
    for samples, targets in data_loader:
        loss = model(samples.to(device), targets.to(device))
        loss.backward()
        optimizer.step()
"""


def findings_in(path, text):
    """The rule's findings in `text` as the file at `path`, with the project read afresh."""
    project.clear()
    rules = [rule for rule in all_rules() if rule.code == RULE]
    return [(f.code, f.line) for f in lint_text(text, str(path), rules, preview_options()).findings]


def test_a_trainer_module_runs_on_cuda_when_the_script_that_imports_it_does(tmp_path):
    """The trainer module never names CUDA; the entry script that imports it picks the device.
    A script that keeps to the CPU leaves the trainer silent."""
    (tmp_path / "pyproject.toml").write_text("")
    engine = textwrap.dedent(ENGINE)
    (tmp_path / "engine.py").write_text(engine)
    (tmp_path / "main.py").write_text("import torch\nfrom engine import train_one_epoch\ndevice = torch.device('cpu')\n")
    assert findings_in(tmp_path / "engine.py", engine) == []
    (tmp_path / "main.py").write_text("import torch\nfrom engine import train_one_epoch\nparser.add_argument('--device', default='cuda')\n")
    assert findings_in(tmp_path / "engine.py", engine) == [(RULE, 4)]


def test_reinforcement_learning_programs_are_silent(tmp_path):
    """A program that steps Gym environments spends its time in them; its networks are small."""
    (tmp_path / "pyproject.toml").write_text("")
    engine = textwrap.dedent(ENGINE).replace("import torch\n", "import torch\nmodel = model.cuda()\n")
    (tmp_path / "engine.py").write_text(engine)
    assert findings_in(tmp_path / "engine.py", engine) == [(RULE, 5)]
    (tmp_path / "main.py").write_text("import gymnasium as gym\nfrom engine import train_one_epoch\n")
    assert findings_in(tmp_path / "engine.py", engine) == []
    (tmp_path / "main.py").write_text("from engine import train_one_epoch\nobs, reward, done, info = envs.step(action)\n")
    assert findings_in(tmp_path / "engine.py", engine) == []
