"""Round 15 of TL103 (implicit-sync-in-loop): toy top-level loops of a few iterations, files
whose only `.to(` is a dtype cast, and the keys of a module's dict of outputs."""

import textwrap

from conftest import lines as rule_lines

from torchlint.engine.context import mentions_device
from torchlint.semantics.frequency import rare_guard

RULE = "TL103"


def lines(code):
    return rule_lines(textwrap.dedent(code), RULE)


FULL_BATCH = """
import torch
import torch.nn.functional as F
device = torch.device("cuda")
model = torch.nn.Linear(2, 1).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
{setup}
for epoch in range({count}):
    out = model(features)
    cost = F.mse_loss(out, targets)
    optimizer.zero_grad()
    cost.backward()
    optimizer.step()
    print(f"cost {{cost:.4f}}")
"""


def test_toy_top_level_loop_of_a_few_iterations_is_silent():
    assert lines(FULL_BATCH.format(setup="", count="30")) == []
    assert lines(FULL_BATCH.format(setup="NUM_EPOCHS = 25", count="NUM_EPOCHS")) == []
    # a notebook's cells set the constant again
    assert lines(FULL_BATCH.format(setup="NUM_EPOCHS = 25\nNUM_EPOCHS = 50", count="NUM_EPOCHS")) == []
    assert lines(FULL_BATCH.format(setup="", count="5, 60")) == []


def test_long_or_unknown_top_level_loop_is_reported():
    assert lines(FULL_BATCH.format(setup="", count="5000")) == [14]
    assert lines(FULL_BATCH.format(setup="epochs = 30\nepochs += 1000", count="epochs")) == [15]
    assert lines(FULL_BATCH.format(setup="epochs = args.epochs", count="epochs")) == [14]
    assert lines(FULL_BATCH.format(setup="epochs = 30\nepochs = args.epochs", count="epochs")) == [15]


INNER_TEN = """
import torch
device = torch.device("cuda")
{outer}
    for i in range(10):
        loss = torch.nn.functional.mse_loss(model(x.to(device)), y)
        loss.backward()
        optimizer.step()
        print(f"{{loss:.3f}}")
"""


def test_few_iterations_nested_or_in_a_function_is_reported():
    assert lines(INNER_TEN.format(outer="for epoch in range(n_epochs):")) == [9]
    # the function's loop over the loader repeats the inner loop
    assert lines(INNER_TEN.format(outer="def train(loader):\n  for x in loader:")) == [10]
    # a function called from a loop
    called = INNER_TEN.format(outer="def train(x):\n  if True:") + "for x in loader:\n    train(x)\n"
    assert lines(called) == [10]


def test_a_dtype_cast_names_no_device():
    assert not mentions_device("y = torch.stack(ys).to(torch.float)\n")
    assert not mentions_device("y = x.to(dtype=torch.float32)\n")
    assert mentions_device("y = x.to(dev)\n")
    assert mentions_device("y = x.to(torch.float).cuda()\n")
    assert mentions_device("y = x.to(torch.device('cuda:0'))\n")


def test_file_whose_only_to_is_a_dtype_cast_is_silent():
    code = """
    import torch
    for _ in range(3000):
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(net(x_train), y_train)
        bar.set_postfix(loss=f"{loss:.3f}")
        loss.backward()
        optimizer.step()
    preds = torch.stack(preds).to(torch.float)
    """
    assert lines(code) == []
    assert lines(code.replace("to(torch.float)", "to(device)")) == [6]


def test_keys_of_a_dict_of_outputs_are_not_tensors():
    code = """
    import torch
    class Net(torch.nn.Module):
        pass
    model = Net()
    device = torch.device("cuda")
    for x in loader:
        loss_dict = model(x.to(device))
        for metric, value in loss_dict.items():
            log[f"training.{metric}"].append(value)
        for name in loss_dict.keys():
            log[f"training.{name}"] = 1
        loss_dict["loss"].backward()
        optimizer.step()
        bar = f"{loss_dict['loss']:.2f}"
    """
    assert lines(code) == [15]


def test_norm_of_a_value_of_unknown_origin_is_a_tensor():
    code = """
    import torch
    import numpy as np
    def train(loader, text_encoder, optimizer):
        for batch in loader:
            loss = torch.nn.functional.mse_loss(text_encoder(batch.cuda()), batch)
            loss.backward()
            optimizer.step()
            print(text_encoder.get_input_embeddings().weight.grad.norm(dim=-1).mean())
            current = text_encoder.get_input_embeddings().weight.norm(dim=-1)
            print(f"norm {current}")
            norm = np.linalg.norm(values)
            print(norm)
    """
    assert lines(code) == [9, 11]


TOY_METHOD = """
import torch
device = torch.device("cuda")
class Regression:
    def __init__(self):
        self.linear = torch.nn.Linear(2, 1).to(device)
    def train(self, x, y, num_epochs, learning_rate=0.01):
        for e in range(num_epochs):
            cost = torch.nn.functional.mse_loss(self.linear(x), y)
            cost.backward()
            self.optimizer.step()
            print(f"cost {{cost:.3f}}")
model = Regression()
{calls}
"""


def test_toy_method_called_with_a_few_epochs_at_module_level_is_silent():
    assert lines(TOY_METHOD.format(calls="model.train(x, y, num_epochs=50)")) == []
    assert lines(TOY_METHOD.format(calls="model.train(x, y, 30, 0.1)\nmodel.train(x, y, num_epochs=20)")) == []


def test_toy_method_called_with_many_or_unknown_epochs_is_reported():
    assert lines(TOY_METHOD.format(calls="model.train(x, y, num_epochs=5000)")) == [12]
    assert lines(TOY_METHOD.format(calls="model.train(x, y, num_epochs=args.epochs)")) == [12]
    assert lines(TOY_METHOD.format(calls="model.train(x, y, num_epochs=30)\nmodel.train(x, y, num_epochs=n)")) == [12]
    assert lines(TOY_METHOD.format(calls="for run in runs:\n    model.train(x, y, num_epochs=30)")) == [12]


def test_an_interval_of_a_visualisation_setting_is_rare():
    # the guard of a call from another module: no loop counter is known there
    assert rare_guard("itr % (n_iters_to_viz * num_batches) == 0")
    assert rare_guard("itr % args.viz_every == 0")
    assert not rare_guard("itr % (n_iters_to_sample * num_batches) == 0")
