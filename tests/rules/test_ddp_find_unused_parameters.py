from conftest import lines, lint

RULE = "TL502"


def test_every_import_path():
    code = """
    import torch
    import torch.nn.parallel as par
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.nn.parallel.distributed import DistributedDataParallel
    a = torch.nn.parallel.DistributedDataParallel(m, find_unused_parameters=True)
    b = DDP(m, device_ids=[rank], find_unused_parameters=True)
    c = DistributedDataParallel(m, find_unused_parameters=True, gradient_as_bucket_view=True)
    d = par.DistributedDataParallel(
        m,
        device_ids=[local_rank],
        find_unused_parameters=True,
    )
    """
    assert lines(code, RULE) == [6, 7, 8, 9]


def test_flag_off_non_literal_or_static_graph():
    code = """
    from torch.nn.parallel import DistributedDataParallel as DDP
    a = DDP(m)
    b = DDP(m, find_unused_parameters=False)
    c = DDP(m, find_unused_parameters=args.find_unused_parameters)
    d = DDP(m, find_unused_parameters=True, static_graph=True)
    e = DDP(m, **ddp_kwargs)
    f = DDP(m, find_unused_parameters=cfg.get("find_unused", True))
    """
    assert lines(code, RULE) == []


def test_look_alikes():
    code = """
    import torch
    from fairscale.nn.data_parallel import ShardedDataParallel
    from mylib import DistributedDataParallel
    b = DistributedDataParallel(m, find_unused_parameters=True)
    c = ShardedDataParallel(m, find_unused_parameters=True)
    d = torch.nn.DataParallel(m)
    kwargs = dict(find_unused_parameters=True)
    def wrap(DistributedDataParallel):
        return DistributedDataParallel(m, find_unused_parameters=True)
    """
    assert lines(code, RULE) == []


def test_message_and_no_fix():
    code = "import torch\nmodel = torch.nn.parallel.DistributedDataParallel(m, find_unused_parameters=True)\n"
    [finding] = lint(code, [RULE])
    assert "static_graph=True" in finding.message and "every parameter" in finding.message
    assert finding.fix is None
