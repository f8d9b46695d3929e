"""torch.utils.data sweep: default_collate/default_convert, DataLoader argument rules and
batching, samplers, data sets and random_split, each case called with glassgrad and with torch
(deterministic outcomes only: shuffled orders differ by design, docs/data-loading.md)."""
from collections import OrderedDict, namedtuple

import numpy as np
import pytest

import glassgrad as gg
from sweep_outcomes import assert_same_outcome

torch = pytest.importorskip("torch")
Pair = namedtuple("Pair", "a b")


def U(m):
    return m.utils.data


def _ds(m, n):
    return U(m).TensorDataset(m.arange(n), m.arange(n) * 2)


def _loader(m, *args, **kwargs):
    return list(U(m).DataLoader(*args, **kwargs))


def _iterable(m, n, with_len=True):
    class Numbers(U(m).IterableDataset):
        def __iter__(self):
            return iter(range(n))
    if with_len:
        Numbers.__len__ = lambda self: n
    return Numbers()


def _chain(m):
    class Numbers(U(m).IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n))

        def __len__(self):
            return self.n
    c = U(m).ChainDataset([Numbers(2), Numbers(3)])
    return list(c), len(c), list(Numbers(1) + Numbers(2))


def _getitems(m):
    class Tens(U(m).Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return i

        def __getitems__(self, idx):
            return [i * 10 for i in idx]
    return _loader(m, Tens(), batch_size=2), _loader(m, Tens(), batch_size=None)


def _distributed(m):
    d = U(m).DistributedSampler(range(5), num_replicas=2, rank=0, seed=3)
    d.set_epoch(2)
    return d.num_samples, d.total_size, d.epoch, d.seed, d.shuffle, d.drop_last, len(d)


def _attributes(m, *args, **kwargs):
    dl = U(m).DataLoader(*args, **kwargs)
    return (type(dl.sampler).__name__, type(dl.batch_sampler).__name__, dl.batch_size, dl.drop_last, dl.num_workers,
            dl.prefetch_factor, dl.pin_memory, dl.timeout, dl.persistent_workers, dl.pin_memory_device, dl.in_order,
            dl.collate_fn.__name__, dl.worker_init_fn, type(dl.multiprocessing_context).__name__,
            dl._auto_collation, type(dl._index_sampler).__name__, dl._dataset_kind)


COLLATE = {
    "dicts": lambda m: U(m).default_collate([{"a": 1, "b": 2.5, "c": "x"}, {"a": 3, "b": 4.0, "c": "y"}]),
    "ordered dict": lambda m: U(m).default_collate([OrderedDict(a=1), OrderedDict(a=2)]),
    "namedtuple": lambda m: U(m).default_collate([Pair(1, np.float32(2)), Pair(3, np.float32(4))]),
    "mixed tuples": lambda m: U(m).default_collate([(1, 2.0, "s", np.array([1, 2]), True),
                                                    (3, 4.0, "t", np.array([3, 4]), False)]),
    "strings": lambda m: U(m).default_collate(["a", "b"]),
    "bytes": lambda m: U(m).default_collate([b"a", b"b"]),
    "numpy int32 scalars": lambda m: U(m).default_collate([np.int32(1), np.int32(2)]),
    "numpy float16 scalars": lambda m: U(m).default_collate([np.float16(1), np.float16(2)]),
    "numpy bools": lambda m: U(m).default_collate([np.bool_(True), np.bool_(False)]),
    "0-d arrays": lambda m: U(m).default_collate([np.array(1.5), np.array(2.5)]),
    "string arrays": lambda m: U(m).default_collate([np.array(["a"]), np.array(["b"])]),
    "tensors of different sizes": lambda m: U(m).default_collate([m.zeros(2), m.zeros(3)]),
    "arrays of different sizes": lambda m: U(m).default_collate([np.zeros(2), np.zeros(3)]),
    "lists of different lengths": lambda m: U(m).default_collate([[1, 2], [3]]),
    "lists": lambda m: U(m).default_collate([[1, 2], [3, 4]]),
    "nested": lambda m: U(m).default_collate([{"x": [np.ones(2), (1, "a")]}, {"x": [np.zeros(2), (2, "b")]}]),
    "None": lambda m: U(m).default_collate([None, None]),
    "objects": lambda m: U(m).default_collate([object(), object()]),
    "empty batch": lambda m: U(m).default_collate([]),
    "bools": lambda m: U(m).default_collate([True, False]),
    "int then bool": lambda m: U(m).default_collate([1, True]),
    "float then int": lambda m: U(m).default_collate([1.0, 2]),
    "int then float": lambda m: U(m).default_collate([1, 2.5]),
    "complex": lambda m: U(m).default_collate([1j, 2j]),
    "0-d tensors": lambda m: U(m).default_collate([m.tensor(1), m.tensor(2)]),
    "int and float tensors": lambda m: U(m).default_collate([m.tensor([1]), m.tensor([2.0])]),
    "sets": lambda m: U(m).default_collate([{1, 2}, {3, 4}]),
    "tuples of tensors": lambda m: U(m).default_collate([(m.ones(2), m.tensor(0)), (m.zeros(2), m.tensor(1))]),
    "dicts of other keys": lambda m: U(m).default_collate([{"a": 1}, {"b": 2}]),
    "convert dict": lambda m: U(m).default_convert({"a": np.array([1, 2]), "b": 1, "c": np.float64(2)}),
    "convert tuple": lambda m: U(m).default_convert((np.array([1]), 2, "s")),
    "convert namedtuple": lambda m: U(m).default_convert(Pair(np.array([1]), 2)),
    "convert string array": lambda m: U(m).default_convert(np.array(["a"])),
    "convert numpy str": lambda m: U(m).default_convert(np.str_("a")),
    "convert nested list": lambda m: U(m).default_convert([np.array([1]), [np.int64(3)]]),
    "convert numpy int16": lambda m: U(m).default_convert(np.int16(3)),
}

LOADER = {
    "batch_size None": lambda m: _loader(m, _ds(m, 4), batch_size=None),
    "batch_size None with drop_last": lambda m: _loader(m, _ds(m, 4), batch_size=None, drop_last=True),
    "batch_size 0": lambda m: _loader(m, _ds(m, 4), batch_size=0),
    "batch_size float": lambda m: _loader(m, _ds(m, 4), batch_size=2.0),
    "drop_last": lambda m: _loader(m, _ds(m, 5), batch_size=2, drop_last=True),
    "len with drop_last": lambda m: (len(U(m).DataLoader(_ds(m, 5), batch_size=2, drop_last=True)),
                                     len(U(m).DataLoader(_ds(m, 5), batch_size=2))),
    "sampler and shuffle": lambda m: _loader(m, _ds(m, 4), sampler=[0, 1], shuffle=True),
    "sampler list": lambda m: _loader(m, _ds(m, 4), sampler=[3, 1], batch_size=2),
    "batch_sampler list": lambda m: _loader(m, _ds(m, 4), batch_sampler=[[3, 1], [0]]),
    "batch_sampler and batch_size": lambda m: _loader(m, _ds(m, 4), batch_sampler=[[3, 1]], batch_size=2),
    "batch_sampler and shuffle": lambda m: _loader(m, _ds(m, 4), batch_sampler=[[3, 1]], shuffle=True),
    "batch_sampler and sampler": lambda m: _loader(m, _ds(m, 4), batch_sampler=[[3, 1]], sampler=[0]),
    "batch_sampler and drop_last": lambda m: _loader(m, _ds(m, 4), batch_sampler=[[3, 1]], drop_last=True),
    "batch_sampler and batch_size None": lambda m: _loader(m, _ds(m, 4), batch_sampler=[[3, 1]], batch_size=None),
    "len of batch_sampler list": lambda m: len(U(m).DataLoader(_ds(m, 4), batch_sampler=[[3, 1], [0]])),
    "batch_size None with sampler": lambda m: _loader(m, _ds(m, 4), batch_size=None, sampler=[2, 0]),
    "len with batch_size None": lambda m: len(U(m).DataLoader(_ds(m, 4), batch_size=None)),
    "iterable": lambda m: _loader(m, _iterable(m, 7), batch_size=3),
    "iterable drop_last": lambda m: _loader(m, _iterable(m, 7), batch_size=3, drop_last=True),
    "iterable len": lambda m: (len(U(m).DataLoader(_iterable(m, 7), batch_size=3)),
                               len(U(m).DataLoader(_iterable(m, 7), batch_size=3, drop_last=True)),
                               len(U(m).DataLoader(_iterable(m, 7), batch_size=None))),
    "iterable without len": lambda m: len(U(m).DataLoader(_iterable(m, 7, with_len=False), batch_size=3)),
    "iterable shuffle": lambda m: _loader(m, _iterable(m, 3), shuffle=True),
    "iterable shuffle False": lambda m: _loader(m, _iterable(m, 3), shuffle=False, batch_size=None),
    "iterable sampler": lambda m: _loader(m, _iterable(m, 3), sampler=[0]),
    "iterable batch_sampler": lambda m: _loader(m, _iterable(m, 3), batch_sampler=[[0]]),
    "negative num_workers": lambda m: _loader(m, _ds(m, 4), num_workers=-1),
    "prefetch_factor without workers": lambda m: _loader(m, _ds(m, 4), prefetch_factor=2),
    "prefetch_factor 0": lambda m: iter(U(m).DataLoader(_ds(m, 4), num_workers=1, prefetch_factor=0)),
    "persistent_workers without workers": lambda m: _loader(m, _ds(m, 4), persistent_workers=True),
    "negative timeout": lambda m: _loader(m, _ds(m, 4), timeout=-1),
    "multiprocessing_context without workers": lambda m: _loader(m, _ds(m, 4), multiprocessing_context="fork"),
    "unknown multiprocessing_context": lambda m: _loader(m, _ds(m, 4), num_workers=1,
                                                         multiprocessing_context="bogus"),
    "multiprocessing_context of another type": lambda m: _loader(m, _ds(m, 4), num_workers=1,
                                                                 multiprocessing_context=12),
    "collate_fn": lambda m: _loader(m, _ds(m, 4), batch_size=2, collate_fn=lambda b: b),
    "a list data set": lambda m: _loader(m, [1, 2, 3], batch_size=2),
    "an int data set": lambda m: _loader(m, 5, batch_size=2),
    "__getitems__": _getitems,
    "get_worker_info in the main process": lambda m: U(m).get_worker_info(),
    "attributes": lambda m: _attributes(m, _ds(m, 4)),
    "attributes shuffled with workers": lambda m: _attributes(m, _ds(m, 4), shuffle=True, num_workers=2,
                                                              batch_size=3),
    "attributes batch_size None": lambda m: _attributes(m, _ds(m, 4), batch_size=None),
    "attributes spawn": lambda m: _attributes(m, _ds(m, 4), num_workers=1, multiprocessing_context="spawn"),
    "attributes batch_sampler": lambda m: _attributes(m, _ds(m, 4), batch_sampler=U(m).BatchSampler(
        U(m).SequentialSampler(range(4)), 2, False)),
    "attributes iterable": lambda m: _attributes(m, _iterable(m, 3), batch_size=2),
    "_DatasetKind": lambda m: (U(m)._DatasetKind.Map, U(m)._DatasetKind.Iterable),
    "pin_memory_device": lambda m: _loader(m, _ds(m, 2), pin_memory_device="cpu"),
    "Subset of a Subset": lambda m: (lambda s: ([s[0], s[1]], s.__getitems__([1, 0])))(
        U(m).Subset(U(m).Subset(list(range(10)), [5, 6, 7]), [2, 0])),
    "iterator length": lambda m: (lambda it: (len(it), next(it)))(iter(U(m).DataLoader(_ds(m, 4), batch_size=2))),
}

SAMPLERS_AND_DATASETS = {
    "RandomSampler replacement not bool": lambda m: U(m).RandomSampler(range(3), replacement=1),
    "RandomSampler num_samples 0": lambda m: U(m).RandomSampler(range(3), num_samples=0),
    "RandomSampler num_samples float": lambda m: U(m).RandomSampler(range(3), num_samples=2.0),
    "RandomSampler of nothing": lambda m: U(m).RandomSampler(range(0)),
    "RandomSampler with replacement": lambda m: len(list(U(m).RandomSampler(range(3), replacement=True,
                                                                            num_samples=70))),
    "RandomSampler permutation": lambda m: sorted(U(m).RandomSampler(range(5), generator=m.Generator().manual_seed(1))),
    "RandomSampler whole passes": lambda m: sorted(U(m).RandomSampler(range(3), num_samples=6)),
    "WeightedRandomSampler length": lambda m: len(list(U(m).WeightedRandomSampler([0.1, 0.9], 5))),
    "WeightedRandomSampler without replacement": lambda m: sorted(U(m).WeightedRandomSampler([0, 1, 1], 2,
                                                                                             replacement=False)),
    "WeightedRandomSampler past its non-zero weights": lambda m: sorted(U(m).WeightedRandomSampler(
        [0, 1, 1, 0], 4, replacement=False)),
    "WeightedRandomSampler zero weights last": lambda m: sorted(list(U(m).WeightedRandomSampler(
        [0, 1, 0, 1, 0, 0], 6, replacement=False))[:2]),
    "WeightedRandomSampler more than its weights": lambda m: (lambda s: (s.num_samples, list(s)))(
        U(m).WeightedRandomSampler([0, 1], 3, replacement=False)),
    "WeightedRandomSampler made with invalid weights": lambda m: [U(m).WeightedRandomSampler(w, 2).num_samples
                                                                  for w in ([1.0, -2.0], [0.0, 0.0], [])],
    "WeightedRandomSampler negative": lambda m: list(U(m).WeightedRandomSampler([-1, 1], 3)),
    "WeightedRandomSampler 2-d": lambda m: list(U(m).WeightedRandomSampler([[1, 1]], 3)),
    "WeightedRandomSampler num_samples 0": lambda m: list(U(m).WeightedRandomSampler([1, 1], 0)),
    "WeightedRandomSampler replacement int": lambda m: list(U(m).WeightedRandomSampler([1, 1], 2, replacement=1)),
    "WeightedRandomSampler weights": lambda m: U(m).WeightedRandomSampler([1, 2], 2).weights,
    "WeightedRandomSampler tensor weights": lambda m: U(m).WeightedRandomSampler(m.tensor([1., 2.]), 2).weights,
    "WeightedRandomSampler infinite": lambda m: list(U(m).WeightedRandomSampler([float("inf"), 1.0], 2)),
    "WeightedRandomSampler all zero": lambda m: list(U(m).WeightedRandomSampler([0.0, 0.0], 2)),
    "SubsetRandomSampler": lambda m: (sorted(U(m).SubsetRandomSampler([5, 7, 9])),
                                      len(U(m).SubsetRandomSampler([5, 7, 9]))),
    "BatchSampler": lambda m: (list(U(m).BatchSampler(range(5), 2, False)), list(U(m).BatchSampler(range(5), 2, True)),
                               len(U(m).BatchSampler(range(5), 2, True)), len(U(m).BatchSampler(range(5), 2, False))),
    "BatchSampler batch_size 0": lambda m: U(m).BatchSampler(range(5), 0, False),
    "BatchSampler drop_last int": lambda m: U(m).BatchSampler(range(5), 2, 0),
    "SequentialSampler": lambda m: (list(U(m).SequentialSampler([7, 8])), len(U(m).SequentialSampler([7, 8]))),
    "DistributedSampler in order": lambda m: list(U(m).DistributedSampler(range(5), num_replicas=2, rank=1,
                                                                          shuffle=False)),
    "DistributedSampler drop_last": lambda m: list(U(m).DistributedSampler(range(5), num_replicas=2, rank=1,
                                                                           shuffle=False, drop_last=True)),
    "DistributedSampler padding": lambda m: list(U(m).DistributedSampler(range(2), num_replicas=5, rank=4,
                                                                         shuffle=False)),
    "DistributedSampler rank too large": lambda m: U(m).DistributedSampler(range(5), num_replicas=2, rank=2),
    "DistributedSampler negative rank": lambda m: U(m).DistributedSampler(range(5), num_replicas=2, rank=-1),
    "DistributedSampler without a group": lambda m: U(m).DistributedSampler(range(5)),
    "DistributedSampler attributes": _distributed,
    "random_split fractions": lambda m: [len(s) for s in U(m).random_split(range(10), [0.33, 0.33, 0.34])],
    "random_split halves of 7": lambda m: [len(s) for s in U(m).random_split(range(7), [0.5, 0.5])],
    "random_split an empty split": lambda m: [len(s) for s in U(m).random_split(range(2), [0.1, 0.1, 0.8])],
    "random_split wrong sum": lambda m: U(m).random_split(range(10), [3, 3]),
    "random_split negative fraction": lambda m: U(m).random_split(range(10), [1.5, -0.5]),
    "random_split fractions under 1": lambda m: U(m).random_split(range(10), [0.3, 0.3]),
    "random_split float counts": lambda m: U(m).random_split(range(10), [3.0, 7.0]),
    "random_split indices": lambda m: sorted(sum((s.indices for s in U(m).random_split(range(4), [2, 2])), [])),
    "TensorDataset size mismatch": lambda m: U(m).TensorDataset(m.zeros(3), m.zeros(4)),
    "TensorDataset of a 0-d tensor": lambda m: U(m).TensorDataset(m.tensor(1.)),
    "TensorDataset of nothing": lambda m: len(U(m).TensorDataset()),
    "TensorDataset items": lambda m: (_ds(m, 4)[1], _ds(m, 4)[-1], _ds(m, 4)[1:3]),
    "TensorDataset out of range": lambda m: _ds(m, 4)[4],
    "Subset": lambda m: (U(m).Subset(_ds(m, 4), [3, 0])[0], len(U(m).Subset(_ds(m, 4), [3, 0]))),
    "Subset list index": lambda m: U(m).Subset(list(range(10, 20)), [3, 0, 5])[[0, 2]],
    "Subset out of range": lambda m: U(m).Subset(_ds(m, 4), [3, 0])[2],
    "ConcatDataset": lambda m: (lambda c: ([c[i] for i in range(5)], len(c), c[-1], c[-5], c.cumulative_sizes))(
        U(m).ConcatDataset([range(3), range(10, 12)])),
    "ConcatDataset out of range": lambda m: U(m).ConcatDataset([range(3), range(10, 12)])[5],
    "ConcatDataset negative out of range": lambda m: U(m).ConcatDataset([range(3), range(10, 12)])[-6],
    "ConcatDataset of nothing": lambda m: U(m).ConcatDataset([]),
    "ConcatDataset of an iterable": lambda m: U(m).ConcatDataset([_iterable(m, 1)]),
    "Dataset + Dataset": lambda m: (lambda c: (len(c), type(c).__name__))(_ds(m, 2) + _ds(m, 3)),
    "ChainDataset": _chain,
    "ChainDataset of a map data set": lambda m: list(U(m).ChainDataset([range(3)])),
    "ChainDataset len of a map data set": lambda m: len(U(m).ChainDataset([range(3)])),
    "StackDataset tuple": lambda m: (U(m).StackDataset(range(3), "abc")[1], len(U(m).StackDataset(range(3), "abc"))),
    "StackDataset dict": lambda m: (lambda s: (s[1], len(s), s.__getitems__([0, 2])))(
        U(m).StackDataset(a=range(3), b="abc")),
    "StackDataset args and kwargs": lambda m: U(m).StackDataset(range(3), b="abc"),
    "StackDataset of nothing": lambda m: U(m).StackDataset(),
    "StackDataset lengths differ": lambda m: U(m).StackDataset(range(3), "ab"),
    "Dataset item": lambda m: U(m).Dataset()[0],
    "IterableDataset made directly": lambda m: U(m).IterableDataset(),
    "Sampler iterated": lambda m: list(U(m).Sampler()),
}


@pytest.mark.parametrize("name", sorted(COLLATE))
def test_collate_and_convert_as_torch(name):
    assert_same_outcome(COLLATE[name], gg, torch)


@pytest.mark.parametrize("name", sorted(LOADER))
def test_loader_as_torch(name):
    assert_same_outcome(LOADER[name], gg, torch)


@pytest.mark.parametrize("name", sorted(SAMPLERS_AND_DATASETS))
def test_samplers_and_datasets_as_torch(name):
    assert_same_outcome(SAMPLERS_AND_DATASETS[name], gg, torch)
