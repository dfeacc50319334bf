import textwrap

from conftest import lines as rule_lines
from conftest import lint as lint_rules

RULE = "TL101"
# The rule only looks at files that place work on a device; this line does so without
# shifting the line numbers of the snippets.
ON_DEVICE = "model.cuda()\n"


def lines(code, rule=RULE):
    return rule_lines(textwrap.dedent(code) + ON_DEVICE, rule)


def lint(code, select):
    return lint_rules(textwrap.dedent(code) + ON_DEVICE, select)


def test_item_in_training_loop_reports_on_the_call():
    code = """
    import torch
    for x, y in loader:
        loss = model(x)
        total += loss.item()
    """
    [finding] = lint(code, [RULE])
    assert (finding.line, finding.column, finding.end_column) == (5, 19, 25)
    assert "`.item()`" in finding.message


def test_every_sync_method_inside_while_and_comprehensions():
    code = """
    import torch
    while step < n:
        a = out.cpu()
        b = out.to("cpu")
        c = out.tolist()
        d = out.numpy()
    values = [t.item() for t in losses]
    nested = [[t.item() for t in row] for row in grid]
    gen = sum(t.item() for t in losses)
    for x in loader:
        values = [t.item() for t in model(x.cuda())]
    batches = [model(b.cuda()).cpu() for b in train_loader]
    """
    assert lines(code, RULE) == [4, 5, 6, 12, 13]


def test_outside_loops_and_in_functions_defined_in_loops():
    code = """
    import torch
    print(loss.item())
    for x in loader:
        def report(t):
            return t.item()
        callback = lambda t: t.item()
    """
    assert lines(code, RULE) == []


def test_host_values_are_not_tensors():
    code = """
    import numpy as np
    import torch
    for x in loader:
        arr = np.asarray(x)
        arr.tolist()
        host = out.numpy()
        host.tolist()
        n = 3
        n.item()
        np.mean(arr).item()
        t: np.ndarray = load()
        t.tolist()
    """
    assert lines(code, RULE) == []


def test_tensor_annotations_and_assignments_are_tensors():
    code = """
    import torch
    def run(batch: torch.Tensor, scale: float):
        for i in range(10):
            batch.item()
            scale.item()
    """
    assert lines(code, RULE) == [5]


def test_logging_interval_guards():
    code = """
    import torch
    for step, (x, y) in enumerate(loader):
        loss = model(x)
        if step % args.log_every == 0:
            print(loss.item())
        if (step + 1) % 50 == 0 and rank == 0:
            writer.add_scalar("loss", loss.item(), step)
        if should_log:
            print(loss.item())
        if cfg.verbose:
            print(loss.item())
        if loss.item() > 10:
            break
    """
    assert lines(code, RULE) == []


def test_guard_outside_the_loop_makes_the_whole_loop_opt_in():
    code = """
    import torch
    if verbose:
        for x in loader:
            print(model(x).item())
    for x in loader:
        print(model(x).item())
    """
    assert lines(code, RULE) == [7]


def test_container_loops_run_once_but_nested_in_a_step_loop_they_count():
    code = """
    import torch
    for name, p in model.named_parameters():
        print(p.norm().item())
    for k, v in enumerate(metrics.items()):
        print(v.item())
    for phase in ["train", "val"]:
        print(acc.item())
    for x in loader:
        for p in model.parameters():
            norm += p.grad.norm().item()
    """
    assert lines(code, RULE) == [11]


def test_dataset_code_runs_on_the_cpu():
    code = """
    import torch
    from torch.utils.data import Dataset
    class Boxes(Dataset):
        def load(self, boxes):
            for b in boxes:
                yield b[0].item()
    def collate_fn(batch):
        return [b.tolist() for b in batch]
    def __getitem__(self, i):
        return [t.item() for t in self.rows[i]]
    """
    assert lines(code, RULE) == []


def test_modules_and_method_arguments_are_not_syncs():
    code = """
    import torch
    import torch.nn as nn
    for x in loader:
        net = nn.Linear(2, 2)
        net.cpu()
        out.cpu(memory_format=None)
    """
    assert lines(code, RULE) == []


def test_files_without_torch_or_without_a_device_are_not_checked():
    code = """
    for x in loader:
        total += x.item()
    """
    assert lines(code, RULE) == []
    cpu_only = "import torch\nfor x in loader:\n    total += model(x).item()\n"
    assert rule_lines(cpu_only, RULE) == []


def test_host_tensors_by_provenance():
    code = """
    import numpy as np
    import torch
    def areas(seg: np.ndarray, n: int):
        ids = torch.from_numpy(seg)
        table = torch.tensor([1, 2, 3])
        moved = out.cpu()
        back = out.to("cpu").float()
        on_device = torch.zeros(3, device="cuda")
        for i in range(n):
            a = ids.eq(i).sum().item()
            b = table[i].item()
            c = moved[i].tolist()
            d = (back * 2).item()
            e = on_device[i].item()
    """
    assert lines(code, RULE) == [15]


def test_default_device_changes_factories():
    code = """
    import torch
    torch.set_default_device("cuda")
    table = torch.zeros(3)
    for i in range(3):
        table[i].item()
    """
    assert lines(code, RULE) == [6]


def test_epoch_loops_are_not_step_loops():
    code = """
    import torch
    for epoch in range(1, args.epochs + 1):
        train_loss = train(model, loader)
        history.append(train_loss.item())
        for x, y in loader:
            total += model(x).item()
    for ep in range(cfg.num_epochs):
        print(ep, val_loss.item())
    """
    assert lines(code, RULE) == [7]


def test_single_step_guards():
    code = """
    import torch
    for i, (data, _) in enumerate(loader):
        recon = model(data)
        if i == 0:
            save_image(recon[:8].cpu(), "r.png")
        if i == len(loader) - 1:
            last = recon.cpu()
        if i > 0:
            later = recon.cpu()
    """
    assert lines(code, RULE) == [10]


def test_cpu_of_a_module():
    code = """
    import torch
    for inputs, labels in batches:
        grads = [p.grad for p in m.cpu().parameters()]
        state = net.cpu().state_dict()
    """
    assert lines(code, RULE) == []


def test_values_that_decide_the_loop():
    code = """
    import torch
    for _ in range(max_len):
        prob = model.decode(ys)[:, -1]
        next_word = prob.argmax(dim=1).item()
        if next_word == eos:
            break
    while True:
        mask = compute(x)
        if not mask.any().item():
            break
    while loss.item() > tol:
        loss = step()
    for x in loader:
        loss_value = loss.item()
        if not math.isfinite(loss_value):
            print("bad loss")
    """
    assert lines(code, RULE) == [15]


def test_interactive_and_sampling_loops_hand_results_to_the_host():
    code = """
    import torch
    while True:
        tokens = model.generate(encode(input("> ")))
        show(tokens.cpu())
    while len(images) < n:
        sample = sample_fn(model, shape)
        images.append(sample.cpu().numpy())
    for i in range(num_samples):
        print(decode(model.generate(x)[0].tolist()))
    for x, y in loader:
        preds.append(model(x).argmax(1).cpu())
    """
    assert lines(code, RULE) == [12]


def test_test_code_is_skipped(tmp_path):
    code = """
    import torch
    import unittest
    class Tester(unittest.TestCase):
        def check(self, indices):
            return [(i.tolist(), j.tolist()) for i, j in indices]
    def test_matcher():
        for x in loader:
            x.item()
    """
    assert lines(code, RULE) == []


def test_batches_from_a_loader_stay_on_the_host_until_moved():
    code = """
    import torch
    for images, labels in train_loader:
        out = model(images.to(device))
        all_labels.extend(labels.tolist())
        labels = labels.to(device)
        moved = labels.tolist()
    """
    assert lines(code, RULE) == [7]


def test_training_loops_get_no_exemptions_and_rank_is_not_a_step_guard():
    code = """
    import torch
    for step in range(1000):
        loss = model(x)
        loss.backward()
        optimizer.step()
        print(loss.item())
        print("loss", round(loss.item(), 3))
        if rank == 0:
            pbar.set_postfix(loss=loss.item())
    """
    assert lines(code, RULE) == [7, 8, 10]


def test_autoregressive_decoding_feeds_values_back():
    code = """
    import torch
    ids = [start]
    for _ in range(max_len):
        logits = model(torch.tensor(ids, device=device))
        nxt = logits.argmax().item()
        ids.append(nxt)
    """
    assert lines(code, RULE) == []


def test_accumulation_fix_needs_a_known_tensor_and_a_single_step_loop():
    code = """
    import torch
    import torch.nn as nn
    def evaluate(loader, confusions, loaders):
        criterion = nn.CrossEntropyLoss()
        total = 0.0
        for x, y in loader:
            total += criterion(model(x.cuda()), y.cuda()).item()
        mean = 0.0
        for cm in confusions:
            mean += cm.diagonal().mean().item()
        nested = 0.0
        for part in loaders:
            for x, y in part:
                nested += criterion(x.cuda(), y.cuda()).item()
        return total, mean, nested
    """
    findings = lint(code, [RULE])
    assert [(f.line, f.fix is not None) for f in findings] == [(8, True), (11, False), (15, False)]


def test_silent_in_a_program_that_never_trains():
    """A feature-dump or generation script passes over its data once, and its outputs must
    reach the host to be written; the same loop in a training script is reported."""
    dump = """
    import numpy as np
    import torch
    def main():
        model = load_model().cuda()
        feats = []
        with torch.no_grad():
            for x in loader:
                feats.append(model(x.cuda()).cpu())
        np.save("feats.npy", torch.cat(feats).numpy())
    if __name__ == "__main__":
        main()
    """
    assert lines(dump, RULE) == []
    trains = dump.replace("feats.append(model(x.cuda()).cpu())", "loss = model(x.cuda()).sum(); loss.backward(); print(loss.item())")
    assert lines(trains, RULE) == [9]


def test_reinforcement_learning_rollouts_and_per_iteration_logging():
    """An environment's `step` is not an optimizer step: actions go to the host by design;
    logging after the update loop runs once per iteration, not per step."""
    code = """
    import torch
    for iteration in range(args.num_iterations):
        for step in range(args.num_steps):
            with torch.no_grad():
                action = agent(next_obs)
            next_obs, reward, done, info = envs.step(action.cpu().numpy())
        for start in range(0, batch_size, minibatch_size):
            loss = agent.loss(b_obs[start:start + minibatch_size])
            loss.backward()
            optimizer.step()
            clipfracs.append(loss.item())
        writer.add_scalar("losses/value_loss", loss.item(), iteration)
    """
    assert lines(code) == [12]


def test_a_question_about_training_does_not_hide_later_imports_from_other_rules():
    """Asking whether the file trains resolves names away from the traversal; those answers
    must not be kept for the rules that ask when the traversal reaches them."""
    code = """
    import torch
    model = Net().cuda()
    for x in loader:
        print(model(x.cuda()).sum().item())
    from torch import optim
    opt = optim.Adam(model.parameters(), lr=1e-3)
    for x, y in train_loader:
        model(x).sum().backward()
        opt.step()
    """
    assert [finding.code for finding in lint(code, ["TL101", "TL404"])] == ["TL404"]


def test_actions_for_an_environment_go_to_the_host_even_in_a_loop_that_trains():
    code = """
    import torch
    for global_step in range(args.total_timesteps):
        actions = torch.argmax(q_network(obs), dim=1).cpu().numpy()
        next_obs, rewards, terminations, truncations, infos = envs.step(actions)
        state, reward, done, _ = env.step(policy(state).item())
        scheduler.step(loss.item())
        loss = F.mse_loss(target, q_network(obs))
        loss.backward()
        optimizer.step()
        print(loss.item())
    """
    assert lines(code) == [7, 11]


def test_syncs_in_a_helper_called_every_training_step():
    """A same-file helper the training loop calls runs every step: its sync is reported where
    it is, and the message names the helper."""
    code = """
    import torch

    def performance(pred, gold):
        n_correct = pred.eq(gold).sum().item()
        return n_correct

    for x, y in loader:
        pred = model(x.cuda())
        loss = criterion(pred, y.cuda())
        loss.backward()
        optimizer.step()
        correct += performance(pred, y.cuda())
    """
    [finding] = lint(code, [RULE])
    assert finding.line == 5
    assert "in `performance()`, called in a step loop" in finding.message


def test_helpers_outside_training_loops_or_choosing_actions_are_silent():
    """A helper called in a loop that does not train (generation, inference) is silent, even in
    preview: its value may be what that loop exists to produce. So is a helper called in a
    loop that steps an environment (`act()` computes the action the host needs), and one called
    only at an interval."""
    code = """
    import torch

    def decode(logits):
        return logits.argmax(-1).tolist()

    def act(state):
        return q_net(state.cuda()).argmax().item()

    def log_loss(loss):
        print(loss.item())

    for x in loader:
        tokens = decode(model(x.cuda()))

    for frame in range(num_frames):
        action = act(state)
        state, reward, done, _ = env.step(action)
        loss = compute_td_loss(replay_buffer.sample())
        loss.backward()
        optimizer.step()

    for step, (x, y) in enumerate(loader):
        loss = criterion(model(x.cuda()), y.cuda())
        loss.backward()
        optimizer.step()
        if step % 100 == 0:
            log_loss(loss)
    """
    assert lines(code) == []  # the tests run in preview mode (see conftest.preview_options)


def test_keys_of_a_dict_are_host_values_in_an_evaluation_loop():
    """An evaluator keyed by image id needs Python keys (a tensor key hashes by identity)."""
    code = """
    import torch
    for epoch in range(epochs):
        for samples, targets in val_loader:
            results = model(samples.cuda())
            res = {t["image_id"].item(): r for t, r in zip(targets, results)}
            ids = {int(t["image_id"].item()): 1 for t in targets}
            evaluator.update(res)
            total += results.sum().item()
    """
    assert lines(code) == [9]


def test_a_helper_of_another_module_that_reads_a_device_value_back(tmp_path):
    """`misc.all_reduce_mean(loss)` moves the value to CUDA, all-reduces it and returns
    `.item()`: each call in the training loop synchronises; so does a helper that converts a
    tensor it was given (`to_float(loss)`). One called at an interval, or handed a host
    number, is silent."""
    from conftest import preview_options
    from torchlint.engine.linter import lint_text
    from torchlint.engine.rule import all_rules
    from torchlint.semantics import project

    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "misc.py").write_text(
        "import torch\nimport torch.distributed as dist\n"
        "def all_reduce_mean(x):\n    t = torch.tensor(x).cuda()\n    dist.all_reduce(t)\n    return t.item()\n"
        "def to_float(x):\n    return x.item()\n"
    )
    code = textwrap.dedent(
        """
        import torch
        import misc
        for step, (x, y) in enumerate(loader):
            loss = criterion(model(x.cuda()), y.cuda())
            loss.backward()
            optimizer.step()
            value = misc.all_reduce_mean(float(loss))
            other = misc.to_float(loss)
            host = misc.to_float(3.0)
            if step % 100 == 0:
                logged = misc.all_reduce_mean(float(loss))
        """
    )
    (tmp_path / "train.py").write_text(code)
    project.clear()
    rules = [rule for rule in all_rules() if rule.code == RULE]
    findings = lint_text(code, str(tmp_path / "train.py"), rules, preview_options()).findings
    assert [(f.line, "misc.all_reduce_mean()" in f.message) for f in findings] == [(8, True), (9, False)]
