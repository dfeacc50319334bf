"""Round 18 (TL103, after batch 24's measurement): `loss = loss_func(outputs, targets)` with a
loss function chosen at run time, then `loss.backward()` and `print(loss)` every step. The name
a function calls autograd's `.backward()` on is a tensor (`semantics.autograd`); TL103 offers
no fix, so this knowledge stays out of the value inference that fixes rely on."""

import textwrap

import libcst as cst
from conftest import lines as rule_lines

from torchlint.semantics.autograd import backward_receiver

RULE = "TL103"


def lines(code):
    return rule_lines(textwrap.dedent(code), RULE)


def test_a_loss_the_function_calls_backward_on_is_a_tensor():
    code = """
    import torch
    def train(args, loader, model, loss_fn):
        optimizer = torch.optim.Adam(model.parameters())
        for batch in loader:
            loss = loss_fn(model(batch.cuda()))
            print("loss", loss)
            loss.backward(retain_graph=False)
            optimizer.step()
            record(float(loss))
            other = loss_fn(batch)
            print(other)
    """
    assert lines(code) == [7, 10]


def test_a_top_level_training_loop_counts_too():
    code = """
    import torch
    model = torch.nn.Linear(3, 3).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x in data_loader:
        cost = criterion(model(x.cuda()))
        cost.backward()
        opt.step()
        print(f"cost {cost}")
    """
    assert lines(code) == [9]


def test_names_that_may_hold_something_else_are_not_tensors():
    code = """
    import torch
    def train(loader, model, loss_fn, optimizer, accelerator):
        for x in loader:
            loss = loss_fn(model(x.cuda()))
            loss.backward()
            optimizer.step()
            loss = loss.item()
            print(loss)
            cost = loss_fn(model(x.cuda()))
            accelerator.backward(cost)
            print(cost)
            grads = layer.backward(dout)
            print(dout)
    def report(loader, model, loss_fn):
        for x in loader:
            loss = loss_fn(model(x.cuda()))
            print(loss)
    """
    assert lines(code) == []


def test_backward_receiver_reads_the_signature_and_the_assignments():
    module = cst.parse_module(
        "def f(net, x):\n"
        "    a = net(x)\n    a.backward()\n"
        "    b = net(x)\n    b.backward(x)\n"
        "    c = net(x)\n    c = 0\n    c.backward()\n"
        "    self.backward()\n"
    )
    function = module.body[0]
    assert [name for name in "abcself" if backward_receiver(module, function, name)] == ["a"]
