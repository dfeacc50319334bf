from conftest import lines

RULE = "TL501"


def test_every_import_path():
    code = """
    import torch
    import torch.nn as nn
    from torch.nn import DataParallel as DP
    from torch.nn.parallel import DataParallel
    from torch.nn.parallel.data_parallel import DataParallel as Old
    a = torch.nn.DataParallel(m)
    b = nn.DataParallel(m, device_ids=[0, 1])
    c = DP(m)
    d = DataParallel(m)
    e = Old(m)
    f = nn.parallel.DataParallel(m)
    """
    assert lines(code, RULE) == [7, 8, 9, 10, 11, 12]


def test_isinstance_ddp_and_look_alikes():
    code = """
    import torch
    import torch.nn as nn
    from torch.nn.parallel import DistributedDataParallel
    from apex.parallel import DataParallel
    if isinstance(model, nn.DataParallel):
        model = model.module
    a = DistributedDataParallel(m)
    b = DataParallel(m)
    class Wrapper(nn.DataParallel):
        pass
    """
    assert lines(code, RULE) == []
