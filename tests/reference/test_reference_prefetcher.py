"""CUDAPrefetcher: pass-through on CPU, nested structures, len() and one iterator per epoch."""

from collections import OrderedDict, defaultdict, namedtuple
from dataclasses import dataclass

import pytest

torch = pytest.importorskip("torch")

from torch.utils.data import DataLoader, TensorDataset

from torchlint.reference import CUDAPrefetcher
from torchlint.reference.prefetcher import map_tensors

Pair = namedtuple("Pair", ["image", "label"])


@dataclass
class Sample:
    image: "torch.Tensor"


def nested_batches() -> list:
    return [
        {"pair": Pair(torch.full((2,), float(i)), torch.tensor(i)), "extra": [torch.ones(1) * i, "name", 3]}
        for i in range(5)
    ] + [(torch.zeros(2), Sample(torch.ones(2))), None]


class CountingIterable:
    """An iterable that counts how many iterators were asked of it."""

    def __init__(self, items: list) -> None:
        self.items = items
        self.iterators = 0

    def __iter__(self):
        self.iterators += 1
        return iter(self.items)


def test_cpu_passes_batches_through_unchanged_and_in_order():
    batches = nested_batches()
    seen = list(CUDAPrefetcher(batches, device="cpu"))
    assert len(seen) == len(batches)
    assert all(got is expected for got, expected in zip(seen, batches, strict=True))


def test_default_device_on_a_cpu_only_machine_is_pass_through():
    if torch.cuda.is_available():
        pytest.skip("CUDA is available")
    prefetcher = CUDAPrefetcher([torch.ones(1)])
    assert prefetcher.device == torch.device("cpu")
    assert torch.equal(next(iter(prefetcher)), torch.ones(1))


def test_map_tensors_rebuilds_containers_and_leaves_other_objects():
    sample = Sample(torch.ones(2))
    counts = defaultdict(int, {"a": torch.ones(1)})
    batch = OrderedDict(pair=Pair(torch.ones(2), torch.tensor(1)), rest=[torch.ones(1), "name", sample], counts=counts)
    mapped = map_tensors(batch, lambda tensor: tensor * 2)
    assert type(mapped) is OrderedDict and list(mapped) == ["pair", "rest", "counts"]
    assert type(mapped["pair"]) is Pair and torch.equal(mapped["pair"].image, torch.full((2,), 2.0))
    assert mapped["rest"][1] == "name" and mapped["rest"][2] is sample
    assert torch.equal(sample.image, torch.ones(2))
    assert type(mapped["counts"]) is defaultdict and mapped["counts"]["missing"] == 0
    assert torch.equal(batch["pair"].image, torch.ones(2)), "the input is not modified"


def test_len_follows_the_wrapped_iterable():
    loader = DataLoader(TensorDataset(torch.arange(10.0)), batch_size=3)
    assert len(CUDAPrefetcher(loader, device="cpu")) == 4
    with pytest.raises(TypeError):
        len(CUDAPrefetcher((x for x in range(3)), device="cpu"))


def test_each_epoch_iterates_afresh():
    iterable = CountingIterable([torch.tensor(i) for i in range(4)])
    prefetcher = CUDAPrefetcher(iterable, device="cpu")
    epochs = [[int(x) for x in prefetcher] for _ in range(3)]
    assert epochs == [[0, 1, 2, 3]] * 3
    assert iterable.iterators == 3


def test_wraps_a_dataloader_across_epochs():
    loader = DataLoader(TensorDataset(torch.arange(10.0), torch.arange(10)), batch_size=4)
    prefetcher = CUDAPrefetcher(loader, device="cpu")
    for _ in range(2):
        values = torch.cat([inputs for inputs, _ in prefetcher])
        assert torch.equal(values, torch.arange(10.0))


@pytest.mark.gpu
def test_cuda_copies_every_batch_in_order():
    batches = nested_batches()
    seen = list(CUDAPrefetcher(batches, device="cuda"))
    assert len(seen) == len(batches)
    for got, expected in zip(seen[:5], batches[:5], strict=True):
        assert got["pair"].image.is_cuda and got["extra"][1:] == ["name", 3]
        assert torch.equal(got["pair"].image.cpu(), expected["pair"].image)
        assert torch.equal(got["extra"][0].cpu(), expected["extra"][0])
    assert seen[5][1] is batches[5][1] and seen[6] is None
    assert list(CUDAPrefetcher([], device="cuda")) == []
