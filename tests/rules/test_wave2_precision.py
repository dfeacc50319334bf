"""Regression tests for false positives found by reading wave-2 findings on real repositories."""

from __future__ import annotations

import pytest
from conftest import lint

CASES = {
    "fp1_comment_cuda": (['TL601', 'TL603', 'TL604'], 'import torch\nimport torch.nn as nn\n\nmodel = nn.Sequential(nn.Conv2d(1, 8, 3), nn.Flatten(), nn.LazyLinear(10))\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\nloader = torch.utils.data.DataLoader(dataset, batch_size=32)\n# runs on the CPU only: cuda is not available on this host\nfor x, y in loader:\n    loss = nn.functional.cross_entropy(model(x), y)\n    loss.backward()\n    opt.step()\n'),
    "fp2_amp_fallback": (['TL602'], 'import torch\n\ndef make_scaler(device, new_torch):\n    try:\n        return torch.amp.GradScaler(device=device)\n    except (AttributeError, TypeError):\n        return torch.cuda.amp.GradScaler()\n\ndef make_scaler2(device, new_torch):\n    return torch.amp.GradScaler(device=device) if new_torch else torch.cuda.amp.GradScaler()\n'),
    "fp3_oom_retry": (['TL104'], 'import torch\n\ndef try_run(run, batch_size):\n    while batch_size:\n        try:\n            torch.cuda.empty_cache()\n            return run(batch_size)\n        except RuntimeError as e:\n            batch_size //= 2\n    return None\n'),
    "fp4_first_update": (['TL104'], 'import torch\n\nclass Trainer:\n    def train_step(self, samples):\n        for sample in samples:\n            loss = self.model(sample.cuda()).sum()\n            loss.backward()\n            if self.get_num_updates() == 0:\n                torch.cuda.empty_cache()\n        self.optimizer.step()\n'),
    "fp5_is_complex": (['TL103'], 'import torch\n\ndef adam_step(params, grads, device):\n    for i, p in enumerate(params):\n        if torch.is_complex(p):\n            p = torch.view_as_real(p)\n        p.add_(grads[i].to(device))\n'),
    "fp6_except_loop": (['TL103'], 'import torch\n\ndef step(model, optimizer, sample, names):\n    try:\n        model(sample.cuda()).sum().backward()\n        optimizer.step()\n    except OverflowError:\n        for p, n in zip(optimizer.params, names):\n            if torch.isinf(p.grad).any():\n                print("overflow in", n)\n'),
    "fp6b_param_attr": (['TL103'], 'import torch\n\nclass NanDetector:\n    def __init__(self, model):\n        self.named_parameters = list(model.named_parameters())\n        self.device = torch.device("cuda")\n\n    def __exit__(self, *exc):\n        for name, param in self.named_parameters:\n            if torch.isnan(param.grad).any():\n                print("nan grad in", name)\n'),
    "fp7_varlen_conv": (['TL603'], 'import torch\nimport torch.nn as nn\nfrom torch.nn.utils.rnn import pad_sequence\n\ncollate = lambda b: pad_sequence([s for s in b], batch_first=True)\nloader = torch.utils.data.DataLoader(dataset, batch_size=32, collate_fn=collate)\nmodel = nn.Conv1d(80, 80, 5, padding=2).cuda()\nopt = torch.optim.Adam(model.parameters())\nwith torch.autocast("cuda"):\n  pass\nfor x in loader:\n    model(x.cuda().transpose(1, 2)).mean().backward()\n    opt.step()\n'),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_no_false_positive(case):
    codes, source = CASES[case]
    assert [f.code for f in lint(source, codes)] == []
