from conftest import lines, lint

RULE = "TL107"


def test_tensors_grown_in_loops_however_imported():
    code = """
    import torch
    import torch as th
    from torch import cat as join, concat
    out = torch.empty(0)
    for x in loader:
        out = torch.cat([out, model(x)])
    for x in loader:
        out = th.cat((model(x), out), dim=0)
    for x in loader:
        out = join(tensors=[out, x])
    while running:
        out = concat([out, next_piece()], 1)
    for i in range(n):
        out = torch.vstack([out, rows[i]])
    """
    assert lines(code, RULE) == [7, 9, 11, 13, 15]


def test_reported_span_and_message():
    [finding] = lint("import torch\nfor x in loader:\n    acc = torch.cat([acc, x])\n", [RULE])
    assert (finding.line, finding.column, finding.end_column) == (3, 11, 30)
    assert "`acc`" in finding.message and "list" in finding.message
    assert finding.fix is None


def test_initialised_while_none():
    code = """
    import torch
    feats = None
    for x in loader:
        y = model(x)
        if feats is None:
            feats = y
        else:
            feats = torch.cat([feats, y])
    preds = None
    for x in loader:
        if preds is not None:
            preds = torch.cat([preds, model(x)])
        else:
            preds = model(x)
    labels = None
    for x, y in loader:
        labels = y if labels is None else torch.cat([labels, y])
    """
    assert lines(code, RULE) == [9, 13, 18]


def test_loops_that_read_the_growing_tensor():
    code = """
    import torch
    for _ in range(max_new_tokens):
        logits = model(idx[:, -block_size:])
        idx_next = torch.multinomial(logits.softmax(-1), 1)
        idx = torch.cat((idx, idx_next), dim=1)
    while out.shape[0] < n:
        out = torch.cat([out, sample()])
    for x in loader:
        out = torch.cat([out, x])
        print(out.shape)
    for x in loader:
        out = torch.cat([out, x]) if len(out) < n else out
    """
    assert lines(code, RULE) == []


def test_bounded_or_reset_buffers():
    code = """
    import torch
    for x in loader:
        window = torch.cat([window, x])
        window = window[-100:]
    for x in loader:
        queue = torch.cat([queue, x])[-size:]
    for x in loader:
        if done:
            buf = torch.empty(0)
        buf = torch.cat([buf, x])
    """
    assert lines(code, RULE) == []


def test_not_a_growing_assignment():
    code = """
    import torch
    for x in loader:
        out = torch.cat([x, extra])
        pair = torch.cat([out, x])
        self.buf = torch.cat([self.buf, x])
        out = torch.stack([out, x])
        out = torch.cat(pieces + [out])
        out, n = torch.cat([out, x]), 1
        use(torch.cat([out, x]))
    for out in loader:
        out = torch.cat([out, out])
    values = [torch.cat([acc, v]) for v in vs]
    """
    assert lines(code, RULE) == []


def test_look_alikes():
    code = """
    import numpy as np
    import torch
    from mylib import cat
    for x in loader:
        arr = np.concatenate([arr, x])
        out = cat([out, x])
    def f(torch):
        for x in loader:
            out = torch.cat([out, x])
    """
    assert lines(code, RULE) == []


def test_short_loops_and_epoch_loops():
    code = """
    import torch
    for part in [a, b, c]:
        out = torch.cat([out, part])
    for epoch in range(epochs):
        history = torch.cat([history, evaluate(model)])
    for name, p in model.named_parameters():
        flat = torch.cat([flat, p.flatten()])
    """
    assert lines(code, RULE) == [8]


def test_only_the_innermost_loop_matters():
    code = """
    import torch
    for batch in loader:
        row = torch.empty(0)
        for piece in batch:
            row = torch.cat([row, piece])
        rows.append(row)
    """
    assert lines(code, RULE) == [6]
